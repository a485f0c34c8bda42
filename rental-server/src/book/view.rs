//! The property's page: rules, the stay picker and calendar, the quote or the
//! refusal in words, and the request form, as HTML that works without script.

use std::fmt::Write as _;

use chrono::NaiveDate;
use maud::{Markup, html};
use rental_core::pricing::{DiscountKind, Problem, Quote};
use rental_core::{FieldError, Property};

mod months;

use self::months::calendar;
use super::calendar::Month;
use super::calendar_words::weekdays;
use super::form::{Entered, HONEYPOT};
use crate::lang::{Words, words};
use rental_core::Locale;

/// The stay a guest asked about, as typed, and as far as it could be read.
#[derive(Debug, Clone, Default)]
pub struct Asked {
    /// `checkIn` as given.
    pub check_in: String,
    /// `checkOut` as given.
    pub check_out: String,
    /// `guests` as given.
    pub guests: String,
    /// `children` as given (of the guests; empty: none).
    pub children: String,
    /// `pets` as given (empty: none).
    pub pets: String,
    /// `promoCode` as given (empty: none).
    pub promo_code: String,
    /// The check-in date, if it is one.
    pub check_in_date: Option<NaiveDate>,
    /// The check-out date, if it is one.
    pub check_out_date: Option<NaiveDate>,
}

/// What the page says about the stay asked for.
#[derive(Debug, Clone)]
pub enum Quoted {
    /// The library's quote: bookable when it has no problems.
    Priced(Quote),
    /// The stay could not even be priced, in words (`check-out is before check-in`).
    Unreadable(Vec<String>),
}

/// The request form, with what the guest typed and what is wrong with it.
#[derive(Debug, Clone, Default)]
pub struct RequestForm {
    /// The fields as typed (empty on a fresh form).
    pub entered: Entered,
    /// The faults, by field.
    pub errors: Vec<FieldError>,
    /// A new token for the next submit.
    pub token: String,
}

/// Everything the page shows.
#[derive(Debug)]
pub struct View<'a> {
    /// The property.
    pub property: &'a Property,
    /// The months shown.
    pub months: &'a [Month],
    /// The first month of the previous and next views, where they may be seen.
    pub prev: Option<NaiveDate>,
    /// See `prev`.
    pub next: Option<NaiveDate>,
    /// The stay asked about.
    pub asked: &'a Asked,
    /// Its quote, once both dates are given.
    pub quoted: Option<&'a Quoted>,
    /// The request form, when the stay can be asked for (or a post failed).
    pub form: Option<&'a RequestForm>,
    /// The allowed origin of the site framing the page.
    pub embed: Option<&'a str>,
    /// The guest's language: `Accept-Language`'s best, else the property's.
    pub lang: Locale,
}

impl View<'_> {
    /// `/book/{slug}?...` keeping the framing site, with `params`.
    fn href(&self, params: &[(&str, String)]) -> String {
        let mut url = format!("/book/{}", self.property.slug);
        let embed = self.embed.map(|e| ("embed", e.to_owned()));
        for (i, (name, value)) in params.iter().cloned().chain(embed).enumerate() {
            url.push(if i == 0 { '?' } else { '&' });
            url.push_str(name);
            url.push('=');
            url.push_str(&encode(&value));
        }
        url
    }

    fn words(&self) -> &'static Words {
        words(self.lang)
    }

    fn day(&self, date: NaiveDate) -> String {
        self.lang.short_date(date)
    }

    fn guests(&self) -> u32 {
        self.asked
            .guests
            .trim()
            .parse()
            .unwrap_or(self.property.pricing.base_guests)
            .clamp(1, self.property.pricing.max_guests)
    }

    fn errors(&self, field: &str) -> Vec<&str> {
        let errors = self.form.map(|f| f.errors.as_slice()).unwrap_or_default();
        errors.iter().filter(|e| e.field == field).map(|e| e.message.as_str()).collect()
    }

    /// The messages for `field`, shown beside it, if any.
    fn field_error(&self, field: &str) -> Markup {
        let messages = self.errors(field);
        html! { @if !messages.is_empty() { p.err id=(format!("{field}-err")) { (messages.join("; ")) } } }
    }

    /// The `aria-describedby` of `field`'s input: its messages, when it has some.
    fn described(&self, field: &str) -> Option<String> {
        (!self.errors(field).is_empty()).then(|| format!("{field}-err"))
    }

    /// The `aria-invalid` of `field`'s input.
    fn invalid(&self, field: &str) -> Option<&'static str> {
        (!self.errors(field).is_empty()).then_some("true")
    }
}

/// The page's `main`.
pub fn render(v: &View<'_>) -> Markup {
    let p = v.property;
    html! {
        main.page #book {
            h1 { (p.name) }
            (rules(v))
            div.cols {
                section aria-labelledby="cal-title" {
                    h2 #cal-title { (v.words().pick_your_nights) }
                    p #hint.hint { (hint(v)) }
                    (calendar(v))
                }
                div {
                    (stay_form(v))
                    @if let Some(quoted) = v.quoted { (quote(v, quoted)) }
                    @if let Some(form) = v.form { (request_form(v, form)) }
                }
            }
        }
    }
}

fn rules(v: &View<'_>) -> Markup {
    let (p, w, l) = (v.property, v.words(), v.lang);
    let seasons: Vec<String> = p
        .pricing
        .seasonal_rates
        .iter()
        .filter_map(|s| {
            s.min_nights.filter(|m| *m != p.stay_rules.min_nights).map(|m| {
                let to = format!("{} {}", l.day_month(s.end_date), s.end_date.format("%Y"));
                (w.season_minimum)(m, &l.day_month(s.start_date), &to)
            })
        })
        .collect();
    html! {
        h2.sr { (w.house_rules) }
        ul.rules {
            li { ((w.up_to_guests)(p.pricing.max_guests)) }
            li { ((w.at_least_nights)(p.stay_rules.min_nights))
                 @if !seasons.is_empty() { " (" (seasons.join("; ")) ")" } }
            li { ((w.check_in_from)(&l.time(p.stay_rules.check_in_time, p.timezone))) }
            li { ((w.check_out_by)(&l.time(p.stay_rules.check_out_time, p.timezone))) }
        }
    }
}

fn hint(v: &View<'_>) -> String {
    let w = v.words();
    match (v.asked.check_in_date, v.asked.check_out_date) {
        (Some(ci), None) => (w.hint_check_in)(&v.day(ci)),
        (Some(ci), Some(co)) => (w.hint_both)(&v.day(ci), &v.day(co)),
        _ => w.hint_start.to_owned(),
    }
}

/// The stay's dates and guests: a plain form, for typing dates or changing guests.
fn stay_form(v: &View<'_>) -> Markup {
    let w = v.words();
    html! {
        form #stay.box method="get" action=(format!("/book/{}", v.property.slug)) aria-labelledby="stay-title" {
            h2 #stay-title { (w.your_stay) }
            @if let Some(embed) = v.embed { input type="hidden" name="embed" value=(embed); }
            div.row {
                div {
                    label for="checkIn" { (w.check_in) }
                    input #checkIn type="date" name="checkIn" value=(v.asked.check_in)
                        aria-invalid=[v.invalid("checkIn")] aria-describedby=[v.described("checkIn")];
                    (v.field_error("checkIn"))
                }
                div {
                    label for="checkOut" { (w.check_out) }
                    input #checkOut type="date" name="checkOut" value=(v.asked.check_out)
                        aria-invalid=[v.invalid("checkOut")] aria-describedby=[v.described("checkOut")];
                    (v.field_error("checkOut"))
                }
                div {
                    label for="guests" { (w.guests) }
                    select #guests name="guests" aria-invalid=[v.invalid("guests")] aria-describedby=[v.described("guests")] {
                        @for n in 1..=v.property.pricing.max_guests {
                            option value=(n) selected[n == v.guests()] { (n) }
                        }
                    }
                    (v.field_error("guests"))
                }
                div {
                    label for="children" { (w.of_whom_children) }
                    select #children name="children" aria-invalid=[v.invalid("children")] aria-describedby=[v.described("children")] {
                        @for n in 0..v.property.pricing.max_guests {
                            option value=(n) selected[v.asked.children == n.to_string()] { (n) }
                        }
                    }
                    (v.field_error("children"))
                }
                @if v.property.pricing.rules.max_pets > 0 {
                    div {
                        label for="pets" { (w.pets) }
                        select #pets name="pets" aria-invalid=[v.invalid("pets")] aria-describedby=[v.described("pets")] {
                            @for n in 0..=v.property.pricing.rules.max_pets {
                                option value=(n) selected[v.asked.pets == n.to_string()] { (n) }
                            }
                        }
                        (v.field_error("pets"))
                    }
                }
                @if !v.property.pricing.rules.promo_codes.is_empty() {
                    div {
                        label for="promoCode" { (w.promo_code) }
                        input #promoCode type="text" name="promoCode" value=(v.asked.promo_code) maxlength="32"
                            autocomplete="off" aria-invalid=[v.invalid("promoCode")] aria-describedby=[v.described("promoCode")];
                        (v.field_error("promoCode"))
                    }
                }
            }
            button.quiet type="submit" { (w.show_the_price) }
        }
    }
}

fn quote(v: &View<'_>, quoted: &Quoted) -> Markup {
    match quoted {
        Quoted::Priced(q) if q.problems.is_empty() => priced(v, q),
        Quoted::Priced(q) => refused(v, &q.problems.iter().map(|p| refusal(p, q, v.lang)).collect::<Vec<_>>()),
        Quoted::Unreadable(reasons) => refused(v, reasons),
    }
}

fn refused(v: &View<'_>, reasons: &[String]) -> Markup {
    html! {
        section #quote.box aria-labelledby="quote-title" {
            h2 #quote-title { (v.words().cannot_be_booked) }
            div.alert role="alert" { ul { @for r in reasons { li { (r) } } } }
        }
    }
}

/// A rule the stay breaks, in words for the guest in `lang`. Taken nights say nothing of why.
pub fn refusal(problem: &Problem, q: &Quote, lang: Locale) -> String {
    let (w, day) = (words(lang), |d: NaiveDate| lang.short_date(d));
    match problem {
        Problem::NightsTaken { dates } => (w.nights_taken)(&short_days(dates, lang)),
        Problem::MinNights { limit } => (w.min_nights)(&day(q.check_in), *limit),
        Problem::MaxNights { limit } => (w.max_nights)(&day(q.check_in), *limit),
        Problem::MaxGuests { limit } => (w.max_guests)(*limit),
        Problem::PastDates { today } => (w.past_dates)(&day(*today)),
        Problem::BeyondHorizon { last } => (w.beyond_horizon)(&day(*last)),
        Problem::CheckInDay { allowed } => (w.starts_only_on)(&weekdays(*allowed, lang)),
        Problem::CheckOutDay { allowed } => (w.ends_only_on)(&weekdays(*allowed, lang)),
        Problem::MaxPets { limit } => (w.max_pets)(*limit),
        Problem::AdvanceNotice { hours, earliest } => (w.notice)(*hours, &day(*earliest)),
        Problem::PromoCode { .. } => format!("{}.", capitalized(&problem.message())),
    }
}

/// `Thu 24 Dec, Fri 25 Dec`: taken nights, short, without their year.
pub fn short_days(dates: &[NaiveDate], lang: Locale) -> String {
    let short: Vec<String> = dates
        .iter()
        .map(|d| {
            let full = lang.short_date(*d);
            full.rsplit_once(' ').map_or(full.clone(), |(without_year, _)| without_year.to_owned())
        })
        .collect();
    short.join(", ")
}

fn capitalized(s: &str) -> String {
    let mut chars = s.chars();
    chars.next().map(|c| c.to_uppercase().chain(chars).collect()).unwrap_or_default()
}

fn priced(v: &View<'_>, q: &Quote) -> Markup {
    let w = v.words();
    let m = |cents: i64| v.lang.money(cents, &q.currency);
    let discount = match q.discount_kind {
        Some(DiscountKind::GapFill) => w.discounts[0],
        Some(DiscountKind::EarlyBird) => w.discounts[1],
        Some(DiscountKind::Promo) => w.discounts[2],
        _ if q.nights >= 28 => w.discounts[3],
        _ => w.discounts[4],
    };
    let [extra, cleaning, pet, taxes, tourist, total] = w.price_lines;
    html! {
        section #quote.box aria-labelledby="quote-title" {
            h2 #quote-title { ((w.price_for)(q.nights)) }
            p.muted { ((w.stay_line)(&v.day(q.check_in), &v.day(q.check_out), q.guests)) }
            table.price {
                tbody {
                    tr { td { ((w.nights)(q.nights)) } td { (m(q.accommodation)) } }
                    @if q.discount > 0 { tr { td { (discount) } td { "−" (m(q.discount)) } } }
                    @if q.extra_guest_fee > 0 { tr { td { (extra) } td { (m(q.extra_guest_fee)) } } }
                    @if q.cleaning_fee > 0 { tr { td { (cleaning) } td { (m(q.cleaning_fee)) } } }
                    @if q.pet_fee > 0 { tr { td { (pet) } td { (m(q.pet_fee)) } } }
                    tr { td { (taxes) } td { (m(q.taxes)) } }
                    @if q.tourist_tax > 0 { tr { td { (tourist) } td { (m(q.tourist_tax)) } } }
                    tr.total { td { (total) } td #total { (m(q.total)) } }
                }
            }
            details.nights {
                summary { (w.each_night) }
                table.price {
                    tbody { @for n in &q.nightly { tr { td { (v.day(n.date)) } td { (m(n.price)) } } } }
                }
            }
            @if v.form.is_none() { p.muted { (w.pick_other_dates) } }
        }
    }
}

fn request_form(v: &View<'_>, form: &RequestForm) -> Markup {
    let (e, w) = (&form.entered, v.words());
    let stay_faults: Vec<&FieldError> =
        form.errors.iter().filter(|f| !matches!(f.field.as_str(), "guestName" | "guestEmail" | "notes")).collect();
    html! {
        form #request.box method="post" action=(format!("/book/{}", v.property.slug)) aria-labelledby="request-title" {
            h2 #request-title { (w.request_to_book) }
            @if !stay_faults.is_empty() {
                div.alert role="alert" {
                    (w.not_sent)
                    ul { @for f in &stay_faults { li data-field=(f.field) { (f.message) } } }
                }
            }
            input type="hidden" name="checkIn" value=(v.asked.check_in);
            input type="hidden" name="checkOut" value=(v.asked.check_out);
            input type="hidden" name="guests" value=(v.guests());
            input type="hidden" name="children" value=(v.asked.children);
            input type="hidden" name="pets" value=(v.asked.pets);
            input type="hidden" name="promoCode" value=(v.asked.promo_code);
            input type="hidden" name="token" value=(form.token);
            @if let Some(embed) = v.embed { input type="hidden" name="embed" value=(embed); }
            label for="guestName" { (w.your_name) }
            input #guestName type="text" name="guestName" value=(e.guest_name) autocomplete="name" required maxlength="200"
                aria-invalid=[v.invalid("guestName")] aria-describedby=[v.described("guestName")];
            (v.field_error("guestName"))
            label for="guestEmail" { (w.your_email) }
            input #guestEmail type="email" name="guestEmail" value=(e.guest_email) autocomplete="email" required maxlength="254"
                aria-invalid=[v.invalid("guestEmail")] aria-describedby=[v.described("guestEmail")];
            (v.field_error("guestEmail"))
            label for="notes" { (w.note_for_host) span.muted { (w.optional) } }
            textarea #notes name="notes" rows="3" maxlength="2000"
                aria-invalid=[v.invalid("notes")] aria-describedby=[v.described("notes")] { (e.notes) }
            (v.field_error("notes"))
            div.hp { label for=(HONEYPOT) { (w.leave_empty) } input id=(HONEYPOT) type="text" name=(HONEYPOT) tabindex="-1" autocomplete="off"; }
            button type="submit" { (w.request_to_book) }
            p.muted { (w.nothing_charged) }
        }
    }
}

/// Percent-encodes a query value.
pub fn encode(value: &str) -> String {
    let mut out = String::with_capacity(value.len());
    for b in value.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.' | b'~') {
            out.push(char::from(b));
        } else {
            let _ = write!(out, "%{b:02X}");
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn query_values_are_percent_encoded() {
        assert_eq!(encode("http://localhost:8000"), "http%3A%2F%2Flocalhost%3A8000");
        assert_eq!(encode("2026-12-20"), "2026-12-20");
    }
}
