//! The stay page's `main`: the stay, its status and what comes next, in the
//! booking page's look, phone first. Every value a guest or host typed is
//! escaped by maud.

use chrono::{DateTime, Utc};
use maud::{Markup, html};
use rental_core::{Booking, Property, Status};

use crate::book::page::{day, money};

/// The page of `booking` at `property` (when it is still listed) at `now`.
pub fn render(b: &Booking, property: Option<&Property>, now: DateTime<Utc>) -> Markup {
    let _ = now;
    let (arrive, leave) = match property {
        Some(p) => (
            format!(" from {}", p.stay_rules.check_in_time.in_zone(p.timezone)),
            format!(" by {}", p.stay_rules.check_out_time.in_zone(p.timezone)),
        ),
        None => (String::new(), String::new()),
    };
    html! {
        main.page #stay {
            h1 { "Your stay at " (b.property_name) }
            p { span.status.(b.status) #status { (status_words(b.status)) } }
            section.box aria-labelledby="stay-title" {
                h2 #stay-title { "Your booking" }
                dl.facts {
                    dt { "Booking code" } dd #code { (b.code) }
                    dt { "Name" } dd { (b.guest_name) }
                    dt { "Check-in" } dd #check-in { (day(b.check_in())) (arrive) }
                    dt { "Check-out" } dd #check-out { (day(b.check_out())) (leave) }
                    dt { "Nights" } dd { (b.nights) }
                    dt { "Guests" } dd #guests { (b.guests) }
                    dt { "Total" } dd #total { (money(b.total, &b.currency)) }
                }
            }
        }
    }
}

/// The status in a guest's words.
fn status_words(status: Status) -> &'static str {
    match status {
        Status::Pending => "Request: waiting for the host",
        Status::Confirmed => "Confirmed",
        Status::Cancelled => "Cancelled",
    }
}
