//! The stay page's `main`: the stay, its status and what comes next, in the
//! booking page's look, phone first. Every value a guest or host typed is
//! escaped by maud.

use chrono::{DateTime, Utc};
use maud::{Markup, html};
use rental_core::{Booking, Property, Status};

use rental_core::access_gate;

use super::{access, cancel, guide};
use crate::book::page::{day, money};

/// What the page shows besides the booking and its property.
#[derive(Debug, Default)]
pub struct Parts {
    /// The online check-in's section, when the page shows one.
    pub check_in: Option<Markup>,
    /// What the access gate needs beyond the booking: the provider, the deposit.
    pub conditions: access_gate::Conditions,
    /// The sums of the booking's ledger; `None` without one.
    pub totals: Option<rental_core::payments::Totals>,
}

/// The page of `b` at `p` at `now`; `link` is the page's own path.
pub fn render(b: &Booking, p: &Property, now: DateTime<Utc>, link: &str, parts: &Parts) -> Markup {
    let property = Some(p);
    let check_in = parts.check_in.as_ref();
    let gate = property.map(|p| access_gate::check(b, p, now, parts.conditions));
    let review = format!("{link}/cancel");
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
            @if let (Some(p), Some(gate)) = (property, &gate) {
                @if b.status != Status::Cancelled { (access::section(b, p, gate)) }
            }
            @if let Some(pay) = super::pay::section(b, p, parts.totals.as_ref(), now) { (pay) }
            @if let Some(check_in) = check_in { (check_in) }
            @if let Some(p) = property {
                @if b.status == Status::Confirmed && !p.access.stay_page.address.trim().is_empty() {
                    section.box aria-labelledby="address-title" {
                        h2 #address-title { "Address" }
                        div #address { (guide::render(&p.access.stay_page.address)) }
                    }
                }
                (cancel::section(b, cancel::offer(b, p, now), &review))
                @if !p.access.stay_page.guide.trim().is_empty() {
                    section.box.guide aria-labelledby="guide-title" {
                        h2 #guide-title { "House guide" }
                        div #guide { (guide::render(&p.access.stay_page.guide)) }
                    }
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
