//! The stay page's arrival section: the door code, Wi-Fi and arrival notes
//! when every condition of [`rental_core::access_gate`] holds, else what is
//! missing and, for time, when they appear, on the property's clock.

use chrono::{DateTime, Utc};
use maud::{Markup, html};
use rental_core::access_gate::{AccessGate, Missing};
use rental_core::{Booking, ClockTime, Property};

use super::guide;

/// The arrival section of `b` at `p` under `gate`.
pub fn section(b: &Booking, p: &Property, gate: &AccessGate) -> Markup {
    html! {
        section.box #access aria-labelledby="access-title" {
            h2 #access-title { "Getting in" }
            @if gate.open() { (details(b, p, gate)) } @else {
                ul #missing {
                    @for m in &gate.missing { li { (missing(*m, p, gate)) } }
                }
            }
        }
    }
}

fn details(b: &Booking, p: &Property, gate: &AccessGate) -> Markup {
    let code = b.visit.access.as_ref().map_or(p.access.door_code.as_str(), |a| a.code.as_str());
    html! {
        dl.facts {
            @if !code.is_empty() {
                dt { "Door code" } dd.code #door-code { (code) }
                dt { "Opens the door" } dd { "from " (moment(gate.opens, p)) " until " (moment(gate.closes, p)) }
            }
            @if !p.access.wifi_ssid.is_empty() { dt { "Wi-Fi" } dd #wifi { (p.access.wifi_ssid) } }
            @if !p.access.wifi_password.is_empty() { dt { "Wi-Fi password" } dd #wifi-password { (p.access.wifi_password) } }
        }
        @if !p.access.arrival_notes.trim().is_empty() {
            div #arrival-notes { (guide::render(&p.access.arrival_notes)) }
        }
    }
}

/// One missing condition in a guest's words.
fn missing(m: Missing, p: &Property, gate: &AccessGate) -> String {
    match m {
        Missing::NotConfirmed => "Your door code appears here once the host confirms your stay.".to_owned(),
        Missing::TooEarly => format!("Your door code appears on {}.", moment(gate.reveal_at, p)),
        Missing::Ended => "Your stay has ended: the door code no longer opens the door.".to_owned(),
        Missing::Unpaid => "Your door code appears here once everything due is paid.".to_owned(),
        Missing::FormNotDone => "Your door code appears here once you have sent the online check-in below.".to_owned(),
        Missing::DepositNotHeld => {
            "Your door code appears here once the security deposit is held on your card.".to_owned()
        }
    }
}

/// `18 December at 15:00 (Lisbon time)`, on the property's wall clock and its
/// way of writing times.
pub fn moment(at: DateTime<Utc>, p: &Property) -> String {
    let local = at.with_timezone(&p.timezone);
    let city = p.timezone.name().rsplit('/').next().unwrap_or_default().replace('_', " ");
    format!("{} at {} ({city} time)", local.format("%-d %B"), ClockTime(local.time()).in_zone(p.timezone))
}
