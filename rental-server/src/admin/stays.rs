//! The Today page's houses: each property's stay state, the door code valid
//! now or next with its window, the turnover window, stale feeds, and check-in and check-out buttons.

use chrono::{DateTime, Utc};

use maud::{Markup, html};
use rental_core::occupancy::{PropertySummary, Summary};
use rental_core::stay_state::StayState;
use rental_core::{Property, Rental, Store, Tz};

use super::page::button_form;
use super::session::Session;

/// The summary with each property's time zone, read in one go.
pub fn read<S: Store>(rental: &Rental<S>) -> rental_core::Result<(Summary, Vec<Property>)> {
    Ok((rental.summary()?, rental.properties()?))
}

/// One card row per active property.
pub fn houses(summary: &Summary, properties: &[Property], session: &Session) -> Markup {
    let zone = |slug: &str| properties.iter().find(|p| p.slug.as_str() == slug).map_or(Tz::UTC, |p| p.timezone);
    html! {
        section.card #houses {
            h2 { "Houses" }
            @if summary.properties.is_empty() { p.muted { "No active properties." } } @else {
                div.table { table {
                    thead { tr { th { "Property" } th { "Stay" } th { "Door code" } th { "Turnover" } th { "Feeds" } th {} } }
                    tbody { @for p in &summary.properties { (house(p, zone(p.slug.as_str()), summary.generated_at, session)) } }
                } }
            }
        }
    }
}

fn house(p: &PropertySummary, tz: Tz, now: DateTime<Utc>, session: &Session) -> Markup {
    let local = |t: DateTime<Utc>| t.with_timezone(&tz).format("%a %d %b %H:%M").to_string();
    let (label, class) = match p.stay_state {
        StayState::Vacant => ("Vacant", ""),
        StayState::AwaitingCheckIn => ("Awaiting check-in", "wait"),
        StayState::CheckedIn => ("Checked in", "ok"),
        StayState::CheckedOut => ("Checked out", "wait"),
    };
    html! {
        tr data-slug=(p.slug) data-state=(p.stay_state.as_str()) {
            td { strong { (p.name) } br; span.muted { (tz.name()) } }
            td {
                span class={ "badge " (class) } { (label) }
                @if let Some(code) = &p.stay_booking { br; span.muted { (code) } }
                @if let Some(next) = p.next_transition_at { br; span.muted { "changes " (local(next)) } }
            }
            td {
                @match &p.access {
                    Some(a) => {
                        code.door { (a.code) } br;
                        span.muted { (local(a.valid_from)) " → " (local(a.valid_until)) }
                        @if !a.valid_at(now) { br; span.muted { "not valid yet" } }
                    }
                    None => { @if p.door_code.is_empty() { span.muted { "none" } } @else { code.door { (p.door_code) } } }
                }
            }
            td {
                @match &p.turnover {
                    Some(t) => {
                        (local(t.cleaning_from)) " → "
                        @match t.cleaning_until { Some(until) => { (local(until)) } None => { "no next arrival" } }
                        @if t.same_day { br; span.badge.wait { "same-day" } }
                        @if t.unbookable_gap { br; span.badge.bad { "unbookable gap" } }
                    }
                    None => { span.muted { "—" } }
                }
            }
            td {
                @if p.feeds.is_empty() { span.muted { "none" } }
                @for f in &p.feeds {
                    @if f.stale { span.badge.bad { (f.name.as_str()) " stale" } } @else { span.badge.ok { (f.name.as_str()) } }
                    " "
                }
            }
            td { div.actions { (door_button(p, session)) } }
        }
    }
}

fn door_button(p: &PropertySummary, session: &Session) -> Markup {
    let Some(code) = &p.stay_booking else { return html! {} };
    match p.stay_state {
        StayState::AwaitingCheckIn => {
            button_form(session, &format!("/admin/bookings/{code}/check_in"), "Check in", "", None)
        }
        StayState::CheckedIn => button_form(
            session,
            &format!("/admin/bookings/{code}/check_out"),
            "Check out",
            "quiet",
            Some(&format!("Check booking {code} out of {} now?", p.name)),
        ),
        StayState::Vacant | StayState::CheckedOut => html! {},
    }
}
