//! `/admin`: each house's stay now, today's arrivals and departures, and the pending requests,
//! with buttons that run the same actions as the API's PATCH.

use std::sync::Arc;

use maud::{Markup, html};
use rental_core::lifecycle::Party;
use rental_core::words::count;
use rental_core::{Action, Booking, Property, Rental, Status, Store, format_amount};

use super::page::{Page, Section, button_form, shell};
use super::session::{Flash, Session};
use super::{Act, stays};
use crate::reply::blocking;

/// The dashboard's first page.
/// `mail_trouble`: why the mail server refuses now, shown above all else.
pub async fn page<S: Store + 'static>(
    rental: &Arc<Rental<S>>,
    session: &Session,
    mail_trouble: Option<String>,
) -> Page {
    let agenda = match blocking(rental, Rental::agenda).await {
        Ok(agenda) => agenda,
        Err(p) => return super::page::message(p.status, "Error", &super::explain(&p)),
    };
    let (summary, properties) = match blocking(rental, stays::read).await {
        Ok(read) => read,
        Err(p) => return super::page::message(p.status, "Error", &super::explain(&p)),
    };
    let body = html! {
        @if let Some(why) = mail_trouble {
            p.flash.error #mail-trouble role="alert" {
                "Guest e-mails are not going out: the mail server (smtp) refuses (" (why) "). "
                "They wait and are retried; check the smtp setting and the server."
            }
        }
        (stays::houses(&summary, &properties, session))
        section.card #arrivals {
            h2 { "Arriving today (" (agenda.arrivals.len()) ")" }
            (stays(&agenda.arrivals, session, "No arrivals today."))
        }
        section.card #departures {
            h2 { "Leaving today (" (agenda.departures.len()) ")" }
            (stays(&agenda.departures, session, "No departures today."))
        }
        section.card #pending {
            h2 { "Pending requests (" (agenda.pending.len()) ")" }
            (stays(&agenda.pending, session, "Nothing is waiting for an answer."))
            @if let Some(ttl) = rental.settings().checkout_ttl {
                @if !agenda.pending.is_empty() {
                    ul.muted #deadlines {
                        @for b in &agenda.pending {
                            li data-code=(b.code) { (b.code) " lapses unless confirmed by " (deadline(b, ttl, &properties)) }
                        }
                    }
                }
            }
        }
    };
    shell("Today", Some(Section::Today), Some(session), &body)
}

/// When a pending request lapses (`checkoutTtl` after it was made), on its
/// property's clock with the zone named, as the property's e-mails write it.
fn deadline(b: &Booking, ttl: chrono::TimeDelta, properties: &[Property]) -> String {
    let at = b.created_at + ttl;
    let Some(p) = properties.iter().find(|p| p.slug == b.property) else {
        return at.format("%a %-d %b %Y, %H:%M UTC").to_string();
    };
    let local = at.with_timezone(&p.timezone);
    let time = rental_core::ClockTime(local.time()).in_zone(p.timezone);
    let city = p.timezone.name().rsplit('/').next().unwrap_or_default().replace('_', " ");
    format!("{}, {time} {city} time", local.format("%a %-d %b %Y"))
}

fn stays(bookings: &[Booking], session: &Session, empty: &str) -> Markup {
    html! {
        @if bookings.is_empty() { p.muted { (empty) } } @else {
            div.table { table {
                thead { tr { th { "Booking" } th { "Guest" } th { "Stay" } th { "Total" } th { "Status" } th {} } }
                tbody { @for b in bookings { tr data-code=(b.code) {
                    td { strong { (b.code) } br; span.muted { (b.property_name) } }
                    td { (b.guest_name) br; span.muted { (b.guests) " guest" @if b.guests != 1 { "s" } } }
                    td { (b.check_in()) " → " (b.check_out()) br; span.muted { (count(b.stay.nights(), "night")) } }
                    td { (format_amount(b.total, &b.currency)) }
                    td { span.badge { (b.status) } br; span.muted { (b.source.as_str()) } }
                    td { div.actions {
                        @if b.status == Status::Pending && !b.is_channel_owned() {
                            (button_form(session, &format!("/admin/bookings/{}/confirm", b.code), "Confirm", "", None))
                        }
                        @if b.status != Status::Cancelled && !b.is_channel_owned() {
                            (button_form(session, &format!("/admin/bookings/{}/cancel", b.code), "Cancel", "danger",
                                Some(&format!("Cancel booking {} of {}?", b.code, b.guest_name))))
                        }
                    } }
                } } }
            } }
        }
    }
}

/// `POST /admin/bookings/{code}/confirm|cancel|check_in|check_out`.
pub async fn act<S: Store + 'static>(act: &Act<'_, S>, code: &str, action: &str) -> Page {
    let action = match action {
        "confirm" => Action::Confirm,
        "check_in" => Action::CheckIn,
        "check_out" => Action::CheckOut,
        "cancel" => Action::Cancel { by: Party::Host, reason: Some("cancelled in the admin dashboard".to_owned()) },
        _ => return super::page::message(http::StatusCode::NOT_FOUND, "Not found", "There is no such action."),
    };
    let door = matches!(action, Action::CheckIn | Action::CheckOut);
    let code = code.to_owned();
    let result = blocking(act.rental(), move |r| r.update_booking(&code, &action)).await;
    act.done(result, "/admin", |b| {
        Flash::done(match (b.visit.checked_out_at, b.visit.checked_in_at) {
            (Some(_), _) if door => format!("Booking {} is checked out.", b.code),
            (None, Some(_)) if door => format!("Booking {} is checked in.", b.code),
            _ => format!("Booking {} is now {}.", b.code, b.status),
        })
    })
    .await
}
