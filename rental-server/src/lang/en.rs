//! The guest's pages in English.

use super::{Words, count};

/// The English table.
pub(super) static WORDS: Words = Words {
    book_your_stay: "Book your stay",
    house_rules: "House rules",
    up_to_guests: |n| format!("Up to {n} guests"),
    at_least_nights: |n| format!("At least {}", count(n, "night", "nights")),
    season_minimum: |n, from, to| format!("{n} from {from} to {to}"),
    check_in_from: |t| format!("Check-in from {t}"),
    check_out_by: |t| format!("Check-out by {t}"),
    pick_your_nights: "Pick your nights",
    hint_start: "Pick your check-in day, then your check-out day.",
    hint_check_in: |d| format!("Check-in {d} picked. Now pick your check-out day."),
    hint_both: |a, b| format!("{a} to {b} picked. Pick another day to start over."),
    months: "Months",
    earlier: "← Earlier",
    later: "Later →",
    legend: ["free: pick to check in", "free, no check-in", "taken", "your stay"],
    weekday_letters: ["Mo", "Tu", "We", "Th", "Fr", "Sa", "Su"],
    sr_check_in: "free, check in",
    sr_check_out: "check out",
    sr_past: "past",
    sr_taken: "taken",
    why_days: [|d| format!("check-in on {d} only"), |d| format!("check-out on {d} only")],
    why_notice: |h| format!("too soon: stays need {h} hours' notice"),
    why_window_preparation: ("too far ahead to book yet", "kept free to prepare the house"),
    why_nights: [
        |n| format!("a gap too short: stays from here are at least {}", count(n, "night", "nights")),
        |n| format!("too short: this stay is at least {}", count(n, "night", "nights")),
        |n| format!("too long: stays are at most {}", count(n, "night", "nights")),
        |n| format!("a short gap: bookable from {}", count(n, "night", "nights")),
    ],
    rule_days: [|d| format!("Check-in on {d} only."), |d| format!("Check-out on {d} only.")],
    rule_counts: [
        |h| format!("Book at least {h} hours before check-in."),
        |d| format!("Check-in at most {d} days from today."),
        |n| format!("{n} night{} kept free before and after each stay.", if n == 1 { " is" } else { "s are" }),
    ],
    rule_gap: |gap, n| {
        format!(
            "Short gaps of up to {} between stays can be booked from {}.",
            count(gap, "night", "nights"),
            count(n, "night", "nights")
        )
    },
    your_stay: "Your stay",
    check_in: "Check-in",
    check_out: "Check-out",
    guests: "Guests",
    of_whom_children: "Of whom children",
    pets: "Pets",
    promo_code: "Promo code",
    show_the_price: "Show the price",

    cannot_be_booked: "These dates cannot be booked",
    unreadable: [
        "The check-in day is not a date.",
        "The check-out day is not a date.",
        "The number of guests is not a number from 1.",
    ],
    nights_taken: |d| format!("Some of these nights are already taken: {d}."),
    nights_just_taken: |d| format!("Some of these nights were just taken: {d}. Pick other dates."),
    min_nights: |d, n| format!("Stays starting on {d} are at least {n} nights."),
    max_nights: |d, n| format!("Stays starting on {d} are at most {n} nights."),
    max_guests: |n| format!("The house takes at most {n} guests."),
    past_dates: |d| format!("Check-in cannot be before today, {d}."),
    beyond_horizon: |d| format!("Stays can be booked up to a check-in on {d}."),
    starts_only_on: |days| format!("Stays start only on {days}."),
    ends_only_on: |days| format!("Stays end only on {days}."),
    max_pets: |n| match n {
        0 => "The house takes no pets.".to_owned(),
        n => format!("The house takes at most {}.", count(n, "pet", "pets")),
    },
    notice: |h, d| format!("Stays need {h} hours' notice: the earliest check-in is {d}."),
    weekdays_plural: (["Mondays", "Tuesdays", "Wednesdays", "Thursdays", "Fridays", "Saturdays", "Sundays"], "and"),
    discounts: ["Short-gap discount", "Early-booking discount", "Promo code", "Monthly discount", "Weekly discount"],
    price_for: |n| format!("Price for {}", count(n, "night", "nights")),
    stay_line: |a, b, g| format!("{a} to {b}, {}", count(g, "guest", "guests")),
    nights: |n| count(n, "night", "nights"),
    price_lines: ["Extra guests", "Cleaning fee", "Pet fee", "Taxes", "Tourist tax", "Total"],
    each_night: "Each night",
    pick_other_dates: "Pick other dates to see their price.",

    request_to_book: "Request to book",
    not_sent: "Your request was not sent:",
    your_name: "Your name",
    your_email: "Your e-mail",
    note_for_host: "A note for the host ",
    optional: "(optional)",
    leave_empty: "Leave this empty",
    nothing_charged: "Nothing is charged now. The host confirms your request by e-mail.",
    book_errors: [
        ("Page not found", "There is no booking page here. Check the link you followed."),
        ("Too many requests", "Too many requests came from your address. Please wait a few minutes and try again."),
        ("Bad request", "The request could not be read. Go back and try again."),
        ("Request not sent", "Your request could not be sent. Go back, leave the hidden field empty, and try again."),
        ("Not allowed", "Use the page's links and buttons."),
        ("Please try again", "Bookings cannot be taken at this moment. Please try again in a minute."),
        ("Something went wrong", "Something went wrong on our side."),
    ],
    limited: ["Too many requests", "Your request", "Send the request again", "Back to the calendar and the price"],
    limited_alert: |minutes| {
        let wait = if minutes == 1 { "a minute".to_owned() } else { format!("{minutes} minutes") };
        format!(
            "Too many requests came from your address, so this one was not sent. Please wait {wait}, then send it \
             again: what you typed is kept below."
        )
    },
    limited_stay: |check_in, check_out, guests| {
        let plural = if guests == "1" { "guest" } else { "guests" };
        format!("Check-in {check_in}, check-out {check_out}, {guests} {plural}")
    },
    form_refusals: [
        "Please pick a check-in day.",
        "Please pick a check-out day.",
        "Check-out must be after check-in.",
        "Please choose how many guests are coming.",
        "Please enter your name.",
        "Please shorten your name to at most 200 characters.",
        "Please enter your e-mail address.",
        "Please enter an e-mail address like name@example.com.",
    ],
    stay_can_be: |limit| format!("A stay can be {limit}."),

    request_titles: ["Request sent", "Stay confirmed", "Request closed"],
    request_code: ("Your request code is ", ". Keep it for any question about your stay."),
    where_name_nights_total: ["Where", "Name", "Nights", "Total"],
    what_next: "What happens next",
    verify_email: |to, hold| {
        format!(
            "Check your e-mail: we sent a link to {to}. Open it within {hold} minutes to keep these nights and send your \
             request to the host; until then the nights are held only for you to confirm your address."
        )
    },
    held_for_you: |to| {
        format!(
            "These nights are held for you while the host looks at your request. You will hear from the host at \
             {to}: nothing is charged and nothing is certain until the host confirms."
        )
    },
    see_you_on: |d| format!("The host confirmed your stay. See you on {d}!"),
    request_closed: "This request is no longer open. You can ask for other dates.",
    stay_page_link: (
        "Everything about this booking, from now until you leave, is on your private stay page: ",
        "open your stay page",
        ". Keep its address: it is the key to your booking.",
    ),
    back_to: |name| format!("Back to {name}"),

    verify_subject: |property| format!("Confirm your e-mail to keep your request at {property}"),
    verify_asked: |property, from, to| {
        format!("Someone asked to book {property} from {from} to {to} with this e-mail address.")
    },
    verify_within: |minutes| format!("To keep the request, open this link within {minutes} minutes:"),
    verify_not_you: "If it was not you, ignore this e-mail: the nights are released and nothing more is sent.",
    verify_page: ["Confirm your e-mail", "Confirm my e-mail", "Your e-mail is confirmed"],
    verify_prompt: |property, from, to| {
        format!("Confirm that this e-mail address is yours to keep your request for {property} from {from} to {to}.")
    },
    verify_status: (
        |property| {
            format!(
                "Thank you: your request for {property} went to the host, who answers by e-mail. Your nights are held \
                 meanwhile."
            )
        },
        "The host confirmed your stay.",
        "This request is closed (an e-mail not confirmed in time lapses). You can ask for the dates again on the \
         booking page.",
    ),

    stay_at: |name| format!("Your stay at {name}"),
    statuses: ["Request: waiting for the host", "Confirmed", "Cancelled"],
    your_booking: "Your booking",
    booking_code: "Booking code",
    from_time: |t| format!(" from {t}"),
    by_time: |t| format!(" by {t}"),
    address: "Address",
    house_guide: "House guide",
    getting_in: "Getting in",
    access_labels: ["Door code", "Opens the door", "Wi-Fi", "Wi-Fi password"],
    from_until: |a, b| format!("from {a} until {b}"),
    missing: [
        "Your door code appears here once the host confirms your stay.",
        "Your stay has ended: the door code no longer opens the door.",
        "Your door code appears here once everything due is paid.",
        "Your door code appears here once you have sent the online check-in below.",
        "Your door code appears here once the security deposit is held on your card.",
    ],
    appears_on: |at| format!("Your door code appears on {at}."),
    moment: |day, time, city| format!("{day} at {time} ({city} time)"),
    payment_labels: ["Payment", "Paid", "Refunded", "Still due", "Next payment", "due now"],
    pay_now_by_card: "Pay now by card",
    pay_amount: |amount| format!("Pay {amount}"),
    booking_at: |code, name| format!("Booking {code} at {name}."),
    card_back: ("Card", "Back to your stay"),
    pay_for_stay_at: |name| format!("Pay for your stay at {name}"),
    bank_confirms: ("Confirm your payment", "Your bank asks you to confirm this payment: follow its window."),
    payment_not_made: |why| format!("The payment was not made: {why}. Go back to your stay page to try again."),
    bank_refused: "your bank did not confirm it",
    cancelling: "Cancelling",
    withdraw_request: "This is still a request: withdrawing it frees its nights, and nothing more is charged.",
    refund_now: |refund, paid, percent| {
        format!(
            "If you cancel now, you get back {refund} of the {paid} you paid (the cancellation policy gives back \
             {percent}% of the total)."
        )
    },
    refund_nothing_paid: |percent| {
        format!(
            "If you cancel now, the cancellation policy gives back {percent}% of the total; nothing has been paid \
             here, so nothing is refunded and nothing more is charged."
        )
    },
    cancel_this_booking: "Cancel this booking…",
    is_cancelled: "This booking is cancelled.",
    nothing_back: "The cancellation policy gives nothing back now: write to your host if your plans change.",
    cancel_stay_at: |name| format!("Cancel your stay at {name}?"),
    too_many_attempts: |minutes| format!("Too many attempts on this page: please try again in {minutes} minutes."),
    booking_from_to: |code, a, b| format!("Booking {code}, {a} to {b}."),
    yes_cancel: "Yes, cancel my booking",
    no_keep: "No, keep my booking",

    online_check_in: "Online check-in",
    check_fields: "Please check the fields marked below.",
    check_in_received: |at| format!("Thank you: your details were received on {at}. You can change them below."),
    check_in_hint: "Please tell your host a few details before you arrive.",
    send_details: "Send my details",
    check_in_labels: [
        "E-mail",
        "Phone",
        "Expected arrival time",
        "Names of everyone staying (one a line)",
        "Your home address",
        "Passport or ID card number",
    ],
    optional_suffix: " (optional)",
    document_kept: "Received; send it again only to change it.",
    form_too_old: "This form is too old or incomplete: please check your details and send them again.",
    form_sent_already: "This form was sent already: please check your details and send them again.",
};
