//! The page a guest lands on after asking to book: the code, the stay, the
//! total, what happens next and the way to the stay page. Its address holds a
//! signed token, not the code alone.

use maud::{Markup, html};
use rental_core::verification;
use rental_core::{Booking, Property, Status};

use super::page::{day, money};

/// The confirmation's `main`; `property` gives the arrival and departure times
/// when it is still listed; `stay` is the path of the booking's stay page.
pub fn render(b: &Booking, property: Option<&Property>, back: &str, stay: &str) -> Markup {
    let (arrive, leave) = match property {
        Some(p) => (
            format!(" from {}", p.stay_rules.check_in_time.in_zone(p.timezone)),
            format!(" by {}", p.stay_rules.check_out_time.in_zone(p.timezone)),
        ),
        None => (String::new(), String::new()),
    };
    html! {
        main.page #book {
            h1 { (title(b.status)) }
            div.box {
                p { "Your request code is " strong #code { (b.code) } ". Keep it for any question about your stay." }
                dl {
                    dt { "Where" } dd { (b.property_name) }
                    dt { "Check-in" } dd { (day(b.stay.check_in())) (arrive) }
                    dt { "Check-out" } dd { (day(b.stay.check_out())) (leave) }
                    dt { "Nights" } dd { (b.nights) }
                    dt { "Guests" } dd { (b.guests) }
                    dt { "Name" } dd { (b.guest_name) }
                    dt { "Total" } dd #total { (money(b.total, &b.currency)) }
                }
            }
            section.box aria-labelledby="next-title" {
                h2 #next-title { "What happens next" }
                @match b.status {
                    Status::Pending if !verification::is_verified(b) => p #verify {
                        "Check your e-mail: we sent a link to " (b.guest_email) ". Open it within "
                        (super::verify::hold_words()) " to keep these nights and send your request to the host; "
                        "until then the nights are held only for you to confirm your address."
                    },
                    Status::Pending => p {
                        "These nights are held for you while the host looks at your request. "
                        "You will hear from the host at " (b.guest_email) ": nothing is charged and "
                        "nothing is certain until the host confirms."
                    },
                    Status::Confirmed => p { "The host confirmed your stay. See you on " (day(b.stay.check_in())) "!" },
                    Status::Cancelled => p { "This request is no longer open. You can ask for other dates." },
                }
                p {
                    "Everything about this booking, from now until you leave, is on your private stay page: "
                    // Out of any frame: the stay page is never framed.
                    a #stay-link href=(stay) target="_top" { "open your stay page" } ". Keep its address: it is the key to your booking."
                }
                p { a href=(back) { "Back to " (b.property_name) } }
            }
        }
    }
}

/// The heading for a request in `status`.
pub fn title(status: Status) -> &'static str {
    match status {
        Status::Pending => "Request sent",
        Status::Confirmed => "Stay confirmed",
        Status::Cancelled => "Request closed",
    }
}
