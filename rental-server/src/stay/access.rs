//! The stay page's arrival section: the door code, Wi-Fi and arrival notes
//! when every condition of [`rental_core::access_gate`] holds, else what is
//! missing and, for time, when they appear, on the property's clock.

use chrono::{DateTime, Utc};
use maud::{Markup, html};
use rental_core::access_gate::{AccessGate, Missing};
use rental_core::{Booking, ClockTime, Locale, Property};

use super::guide;
use crate::lang::words;

/// The arrival section of `b` at `p` under `gate`.
pub fn section(b: &Booking, p: &Property, gate: &AccessGate) -> Markup {
    html! {
        section.box #access aria-labelledby="access-title" {
            h2 #access-title { (words(b.locale).getting_in) }
            @if gate.open() { (details(b, p, gate)) } @else {
                ul #missing {
                    @for m in &gate.missing { li { (missing(*m, p, gate, b.locale)) } }
                }
            }
        }
    }
}

fn details(b: &Booking, p: &Property, gate: &AccessGate) -> Markup {
    let code = b.visit.access.as_ref().map_or(p.access.door_code.as_str(), |a| a.code.as_str());
    let (l, w) = (b.locale, words(b.locale));
    let [door_code, opens, wifi, wifi_password] = w.access_labels;
    html! {
        dl.facts {
            @if !code.is_empty() {
                dt { (door_code) } dd.code #door-code { (code) }
                dt { (opens) } dd { ((w.from_until)(&moment(gate.opens, p, l), &moment(gate.closes, p, l))) }
            }
            @if !p.access.wifi_ssid.is_empty() { dt { (wifi) } dd #wifi { (p.access.wifi_ssid) } }
            @if !p.access.wifi_password.is_empty() { dt { (wifi_password) } dd #wifi-password { (p.access.wifi_password) } }
        }
        @if !p.access.arrival_notes.trim().is_empty() {
            div #arrival-notes { (guide::render(&p.access.arrival_notes)) }
        }
    }
}

/// One missing condition in a guest's words and language.
fn missing(m: Missing, p: &Property, gate: &AccessGate, l: Locale) -> String {
    let w = words(l);
    let [not_confirmed, ended, unpaid, form, deposit] = w.missing;
    match m {
        Missing::NotConfirmed => not_confirmed.to_owned(),
        Missing::TooEarly => (w.appears_on)(&moment(gate.reveal_at, p, l)),
        Missing::Ended => ended.to_owned(),
        Missing::Unpaid => unpaid.to_owned(),
        Missing::FormNotDone => form.to_owned(),
        Missing::DepositNotHeld => deposit.to_owned(),
    }
}

/// `18 December at 15:00 (Lisbon time)` (`18. Dezember um 15:00 Uhr (Ortszeit
/// Lisbon)`), on the property's wall clock and its way of writing times.
pub fn moment(at: DateTime<Utc>, p: &Property, l: Locale) -> String {
    let local = at.with_timezone(&p.timezone);
    let city = p.timezone.name().rsplit('/').next().unwrap_or_default().replace('_', " ");
    (words(l).moment)(&l.day_month(local.date_naive()), &l.time(ClockTime(local.time()), p.timezone), &city)
}
