//! The words of the guest's pages (the booking page and the stay page) in
//! each language built in: one table per language (`en`, `de`), the same
//! fields in each, so a language cannot miss a sentence without failing to compile.
//!
//! Sentences with values in them are functions, so that each language puts
//! the values and the plural where its grammar wants them. Dates, times and
//! money are [`rental_core::Locale`]'s.

mod de;
mod en;

use rental_core::Locale;

/// The table of `locale`.
pub fn words(locale: Locale) -> &'static Words {
    match locale {
        Locale::De => &de::WORDS,
        _ => &en::WORDS,
    }
}

/// A sentence around one value.
pub type Sentence = fn(&str) -> String;

/// Every sentence and label of the guest's pages in one language.
#[derive(Debug)]
pub struct Words {
    // The booking page: rules, calendar, stay form.
    /// The page's title after the property's name.
    pub book_your_stay: &'static str,
    /// The hidden heading of the rules.
    pub house_rules: &'static str,
    /// `Up to 4 guests`.
    pub up_to_guests: fn(u32) -> String,
    /// `At least 2 nights`.
    pub at_least_nights: fn(u32) -> String,
    /// A season's own minimum: `3 from 20 Dec to 5 Jan 2027`.
    pub season_minimum: fn(u32, &str, &str) -> String,
    /// `Check-in from 15:00`.
    pub check_in_from: fn(&str) -> String,
    /// `Check-out by 11:00`.
    pub check_out_by: fn(&str) -> String,
    /// The calendar's heading.
    pub pick_your_nights: &'static str,
    /// The hint before any day is picked.
    pub hint_start: &'static str,
    /// The hint once check-in is picked.
    pub hint_check_in: fn(&str) -> String,
    /// The hint once both days are picked.
    pub hint_both: fn(&str, &str) -> String,
    /// The months' navigation label.
    pub months: &'static str,
    /// The link to earlier months.
    pub earlier: &'static str,
    /// The link to later months.
    pub later: &'static str,
    /// The legend: a free day that starts a stay, one that does not, taken, chosen.
    pub legend: [&'static str; 4],
    /// Weekday columns, Monday first: two letters each.
    pub weekday_letters: [&'static str; 7],
    /// Read after a day that can be picked to check in.
    pub sr_check_in: &'static str,
    /// Read after a day that can be picked to check out.
    pub sr_check_out: &'static str,
    /// Read after a past day.
    pub sr_past: &'static str,
    /// Read after a taken day.
    pub sr_taken: &'static str,
    /// Why a day cannot be picked: check-in or check-out only on these weekdays.
    pub why_days: [Sentence; 2],
    /// Why: the notice in hours.
    pub why_notice: fn(u32) -> String,
    /// Why: too far ahead; kept free to prepare.
    pub why_window_preparation: (&'static str, &'static str),
    /// Why, in nights: a gap too short, too short, too long, a short gap.
    pub why_nights: [fn(u32) -> String; 4],
    /// The rules under the months: check-in days, check-out days.
    pub rule_days: [Sentence; 2],
    /// The rules: notice hours, window days, preparation nights.
    pub rule_counts: [fn(u32) -> String; 3],
    /// The rule of short gaps: (longest gap, shortest stay).
    pub rule_gap: fn(u32, u32) -> String,
    /// The stay form's heading.
    pub your_stay: &'static str,
    /// Check-in.
    pub check_in: &'static str,
    /// Check-out.
    pub check_out: &'static str,
    /// Guests.
    pub guests: &'static str,
    /// Of the guests, children.
    pub of_whom_children: &'static str,
    /// Pets.
    pub pets: &'static str,
    /// Promo code.
    pub promo_code: &'static str,
    /// The stay form's button.
    pub show_the_price: &'static str,

    // The quote and its refusals.
    /// The heading of a refusal.
    pub cannot_be_booked: &'static str,
    /// A stay that cannot be read: check-in not a date, check-out not a date, guests not a number.
    pub unreadable: [&'static str; 3],
    /// Nights taken, with their dates.
    pub nights_taken: fn(&str) -> String,
    /// Nights taken between quote and request, with their dates.
    pub nights_just_taken: fn(&str) -> String,
    /// Too short from a day: (day, limit).
    pub min_nights: fn(&str, u32) -> String,
    /// Too long from a day: (day, limit).
    pub max_nights: fn(&str, u32) -> String,
    /// Too many guests.
    pub max_guests: fn(u32) -> String,
    /// Before today.
    pub past_dates: fn(&str) -> String,
    /// Beyond the last day that can be booked.
    pub beyond_horizon: fn(&str) -> String,
    /// Stays start only on these weekdays.
    pub starts_only_on: fn(&str) -> String,
    /// Stays end only on these weekdays.
    pub ends_only_on: fn(&str) -> String,
    /// Pets: none or at most so many.
    pub max_pets: fn(u32) -> String,
    /// Notice: (hours, earliest day).
    pub notice: fn(u32, &str) -> String,
    /// Weekdays in the plural, Monday first, and the word joining the last two.
    pub weekdays_plural: ([&'static str; 7], &'static str),
    /// The discounts: short gap, early booking, promo code, monthly, weekly.
    pub discounts: [&'static str; 5],
    /// `Price for 7 nights`.
    pub price_for: fn(u32) -> String,
    /// `Sun 20 Dec 2026 to Sun 27 Dec 2026, 3 guests`.
    pub stay_line: fn(&str, &str, u32) -> String,
    /// `7 nights`.
    pub nights: fn(u32) -> String,
    /// The quote's lines: extra guests, cleaning, pets, taxes, tourist tax, total.
    pub price_lines: [&'static str; 6],
    /// The nightly prices' summary.
    pub each_night: &'static str,
    /// Under a quote without a form.
    pub pick_other_dates: &'static str,

    // The request form.
    /// Its heading and button.
    pub request_to_book: &'static str,
    /// Before the faults of a refused request.
    pub not_sent: &'static str,
    /// Name.
    pub your_name: &'static str,
    /// E-mail.
    pub your_email: &'static str,
    /// The note's label.
    pub note_for_host: &'static str,
    /// After an optional field's label.
    pub optional: &'static str,
    /// The hidden field's label.
    pub leave_empty: &'static str,
    /// Under the request button.
    pub nothing_charged: &'static str,
    /// The booking page's error pages, title and text: not found, too many
    /// requests, bad request, not sent, not allowed, unavailable, internal.
    pub book_errors: [(&'static str, &'static str); 7],
    /// The page of a request over the address's limit: its title, the form's
    /// heading, its button, the way back.
    pub limited: [&'static str; 4],
    /// Why it was not sent, and when to send it again: minutes to wait.
    pub limited_alert: fn(u64) -> String,
    /// The stay as typed: (check-in, check-out, guests).
    pub limited_stay: fn(&str, &str, &str) -> String,
    /// The form's refusals: pick check-in, pick check-out, check-out after
    /// check-in, choose guests, a name, a shorter name, an e-mail, a real e-mail.
    pub form_refusals: [&'static str; 8],
    /// `A stay can be at most 366 nights.`, from the library's limit.
    pub stay_can_be: fn(&str) -> String,

    // The confirmation after a request.
    /// Headings by status: pending, confirmed, cancelled.
    pub request_titles: [&'static str; 3],
    /// `Your request code is {code}.`: before and after the code.
    pub request_code: (&'static str, &'static str),
    /// The facts' labels: where, name, nights, total.
    pub where_name_nights_total: [&'static str; 4],
    /// What happens next.
    pub what_next: &'static str,
    /// Check the e-mail: (address, minutes the nights are held).
    pub verify_email: fn(&str, i64) -> String,
    /// A pending request.
    pub held_for_you: fn(&str) -> String,
    /// A confirmed stay.
    pub see_you_on: fn(&str) -> String,
    /// A closed request.
    pub request_closed: &'static str,
    /// The stay page link: before, the link, after.
    pub stay_page_link: (&'static str, &'static str, &'static str),
    /// Back to the property.
    pub back_to: fn(&str) -> String,

    // The e-mail check of a request from the page, and its page.
    /// The e-mail's subject: the property.
    pub verify_subject: fn(&str) -> String,
    /// Someone asked: (property, from, to).
    pub verify_asked: fn(&str, &str, &str) -> String,
    /// Open the link within so many minutes.
    pub verify_within: fn(i64) -> String,
    /// If it was not you.
    pub verify_not_you: &'static str,
    /// The page: its title, the button, the title once confirmed.
    pub verify_page: [&'static str; 3],
    /// The page's prompt: (property, from, to).
    pub verify_prompt: fn(&str, &str, &str) -> String,
    /// Where the request stands: pending (property), confirmed, closed.
    pub verify_status: (fn(&str) -> String, &'static str, &'static str),

    // The stay page.
    /// `Your stay at Sea View`.
    pub stay_at: fn(&str) -> String,
    /// Statuses: request, confirmed, cancelled.
    pub statuses: [&'static str; 3],
    /// The booking's heading.
    pub your_booking: &'static str,
    /// Booking code.
    pub booking_code: &'static str,
    /// Arrival from a time: ` from 15:00`.
    pub from_time: fn(&str) -> String,
    /// Departure by a time: ` by 11:00`.
    pub by_time: fn(&str) -> String,
    /// The address's heading.
    pub address: &'static str,
    /// The guide's heading.
    pub house_guide: &'static str,
    /// The arrival section's heading.
    pub getting_in: &'static str,
    /// Door code, opens the door, Wi-Fi, Wi-Fi password.
    pub access_labels: [&'static str; 4],
    /// `from {opens} until {closes}`.
    pub from_until: fn(&str, &str) -> String,
    /// Why the door code is not shown: not confirmed, ended, unpaid, form, deposit.
    pub missing: [&'static str; 5],
    /// The door code appears at a moment.
    pub appears_on: fn(&str) -> String,
    /// `18 December at 15:00 (Lisbon time)`: (day, time, city).
    pub moment: fn(&str, &str, &str) -> String,
    /// The payment heading, paid, refunded, still due, next payment, due now.
    pub payment_labels: [&'static str; 6],
    /// The card button.
    pub pay_now_by_card: &'static str,
    /// The card page: `Pay €120.00`.
    pub pay_amount: fn(&str) -> String,
    /// The card page: (code, property).
    pub booking_at: fn(&str, &str) -> String,
    /// The card field's label, and the way back.
    pub card_back: (&'static str, &'static str),
    /// The card page's title.
    pub pay_for_stay_at: fn(&str) -> String,
    /// The bank asks the guest (3-D Secure): the page's heading and what it says.
    pub bank_confirms: (&'static str, &'static str),
    /// A payment refused: the provider's reason.
    pub payment_not_made: fn(&str) -> String,
    /// The reason given when the provider gave none.
    pub bank_refused: &'static str,
    /// The cancel section's heading.
    pub cancelling: &'static str,
    /// Withdrawing a request.
    pub withdraw_request: &'static str,
    /// The refund of what was paid: (refund, paid and not refunded, the policy's percent).
    pub refund_now: fn(&str, &str, &str) -> String,
    /// Nothing paid yet: (the policy's percent).
    pub refund_nothing_paid: fn(&str) -> String,
    /// The link to the review step.
    pub cancel_this_booking: &'static str,
    /// Already cancelled.
    pub is_cancelled: &'static str,
    /// Nothing back.
    pub nothing_back: &'static str,
    /// The review's heading.
    pub cancel_stay_at: fn(&str) -> String,
    /// Too many posts: minutes.
    pub too_many_attempts: fn(u64) -> String,
    /// `Booking BK-…, {from} to {to}.`
    pub booking_from_to: fn(&str, &str, &str) -> String,
    /// Confirm and keep.
    pub yes_cancel: &'static str,
    /// Keep it.
    pub no_keep: &'static str,

    // The online check-in.
    /// Its heading.
    pub online_check_in: &'static str,
    /// Fields to check.
    pub check_fields: &'static str,
    /// Received at a moment.
    pub check_in_received: fn(&str) -> String,
    /// Before anything was given.
    pub check_in_hint: &'static str,
    /// The button.
    pub send_details: &'static str,
    /// Labels: e-mail, phone, arrival time, names, address, document.
    pub check_in_labels: [&'static str; 6],
    /// After an optional field: ` (optional)`.
    pub optional_suffix: &'static str,
    /// The document number was received.
    pub document_kept: &'static str,
    /// An old or incomplete form.
    pub form_too_old: &'static str,
    /// A form sent twice.
    pub form_sent_already: &'static str,
}

/// `n` with `one` or `many` after it.
fn count(n: impl Into<u64>, one: &str, many: &str) -> String {
    let n = n.into();
    format!("{n} {}", if n == 1 { one } else { many })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_language_says_it_its_own_way() {
        let (en, de) = (words(Locale::En), words(Locale::De));
        assert_eq!((en.nights)(1), "1 night");
        assert_eq!((de.nights)(3), "3 Nächte");
        assert_eq!((de.stay_at)("Sea View"), "Ihr Aufenthalt in Sea View");
        assert_ne!(en.request_to_book, de.request_to_book);
    }
}
