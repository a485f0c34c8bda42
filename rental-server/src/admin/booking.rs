//! `/admin/bookings/{code}`: one booking's whole record, notes and events, with
//! confirm, cancel with a reason, a note, a change previewed before it is saved,
//! its guest messages with a resend button each, and the guest's stay page
//! link with a copy button and a button that makes a new one.

use rental_core::words::count;
use std::sync::Arc;

use maud::{Markup, html};
use rental_core::change::Change;
use rental_core::lifecycle::Party;
use rental_core::message::{Message, MessageKind};
use rental_core::pricing::Quote;
use rental_core::stay_link::StayLinks;
use rental_core::{Action, Booking, Rental, Status, Store, format_amount, local_moment};

use super::Act;
use super::page::{Page, Section, csrf_field, shell, when};
use super::session::{Flash, Session};
use crate::problem::Problem;
use crate::reply::blocking;
use crate::request::Query;

/// The booking page; `?checkIn=&checkOut=&guests=` previews a change. The
/// guest's stay page address is made by `links` under `base`; with a payment
/// `provider`, the ledger has its refund and deposit buttons.
pub async fn page<S: Store + 'static>(
    rental: &Arc<Rental<S>>,
    session: &Session,
    code: &str,
    query: &Query,
    (links, base, provider): (&StayLinks, &str, bool),
) -> Page {
    let change = match change_of(query.get("checkIn"), query.get("checkOut"), query.get("guests")) {
        Ok(change) => change,
        Err(p) => return super::page::message(p.status, "Bad request", &super::explain(&p)),
    };
    let code = code.to_owned();
    let loaded = blocking(rental, move |r| {
        let booking = r.booking(&code)?;
        let preview = change.map(|c| (r.preview_change(&code, &c), c));
        let zone = r.property(booking.property.as_str()).map_or(r.settings().timezone, |p| p.timezone);
        let guest = (r.messages(&code)?, r.payments(&code)?, r.check_ins().get(&code)?);
        Ok((booking, preview, r.booking_events(&code)?, guest, zone))
    })
    .await;
    let (b, preview, events, (messages, payments, check_in), zone) = match loaded {
        Ok(loaded) => loaded,
        Err(p) => return super::page::message(p.status, "Not found", &super::explain(&p)),
    };
    let open = matches!(b.status, Status::Pending | Status::Confirmed) && !b.is_channel_owned();
    let body = html! {
        section.card #record { (record(&b)) }
        @if open { (change_card(&b, session, preview.as_ref())) }
        (stay_link_card(&b, &links.url(base, &b), session))
        section.card #actions {
            h2 { "Actions" }
            @if b.is_channel_owned() { p.muted { "Imported from " (b.source.as_str()) ": the channel confirms and cancels it." } }
            @if b.status == Status::Pending && !b.is_channel_owned() {
                form method="post" action=(format!("/admin/booking/{}/confirm", b.code)) {
                    (csrf_field(session)) button type="submit" { "Confirm" }
                }
            }
            @if open {
                form method="post" action=(format!("/admin/booking/{}/cancel", b.code)) data-confirm=(format!("Cancel booking {}?", b.code)) {
                    (csrf_field(session))
                    label for="cancel-reason" { "Reason for cancelling" }
                    input #cancel-reason type="text" name="reason" maxlength="2000";
                    p { button.danger type="submit" { "Cancel booking" } }
                }
            }
            form method="post" action=(format!("/admin/booking/{}/note", b.code)) {
                (csrf_field(session))
                label for="note" { "Add a note" }
                input #note type="text" name="note" required maxlength="2000";
                p { button.quiet type="submit" { "Add note" } }
            }
        }
        (super::booking_payments::card(&b, &payments, zone))
        (super::booking_money::forms(&b, &payments, session, provider))
        (super::booking_check_in::card(check_in.as_ref(), zone))
        (messages_card(&b, &messages, zone, session))
        section.card #notes {
            h2 { "Notes (" (b.notes.len()) ")" }
            @if b.notes.is_empty() { p.muted { "No notes." } }
            ul { @for n in &b.notes { li { span.paragraphs { (n.text) } " " span.muted { (when(n.at)) } } } }
        }
        section.card #events {
            h2 { "Events (" (events.len()) ")" }
            @if events.is_empty() { p.muted { "None left in the outbox." } } @else {
                div.table { table {
                    thead { tr { th { "When" } th { "Event" } th { "Changes" } } }
                    tbody { @for e in &events { tr {
                        td { (when(e.event.timestamp)) }
                        td { code { (e.event.event) } }
                        td { @if let Some(changes) = e.event.data["changes"].as_array() {
                            @for (i, c) in changes.iter().enumerate() { @if i > 0 { ", " } (c.as_str().unwrap_or_default()) }
                        } }
                    } } }
                } }
            }
        }
    };
    shell(&format!("Booking {}", b.code), Some(Section::Bookings), Some(session), &body)
}

/// The guest's stay page (docs/API.md section 24): its address to copy (to
/// paste into a channel's messages, say) and a button that makes a new one.
fn stay_link_card(b: &Booking, url: &str, session: &Session) -> Markup {
    html! {
        section.card #stay-link {
            h2 { "Guest's stay page" }
            p.muted { "A private page with this stay, its status, the house guide and, when their conditions hold, \
                the arrival details. Anyone with the link can open it: send it to the guest only." }
            p { code #stay-url { (url) } " " button.quiet type="button" data-copy="stay-url" { "Copy link" } }
            form method="post" action=(format!("/admin/booking/{}/stay-link", b.code))
                data-confirm="Make a new link? The current one stops working at once." {
                (csrf_field(session))
                button.quiet type="submit" { "Make a new link" }
            }
        }
    }
}

/// The booking's guest messages (docs/API.md section 21), each with its
/// status and error and a button that sends its kind again; times on the
/// property's clock, its zone named.
fn messages_card(b: &Booking, messages: &[Message], zone: rental_core::Tz, session: &Session) -> Markup {
    html! {
        section.card #messages {
            h2 { "Messages (" (messages.len()) ")" }
            @if messages.is_empty() {
                p.muted { @if b.guest_email.is_empty() { "No guest e-mail: no messages." } @else { "None yet." } }
            } @else {
                div.table { table {
                    thead { tr { th { "Kind" } th { "To" } th { "Subject" } th { "Status" } th { "Due" } th { "Sent" } th { "Attempts" } th { "Error" } th { span.visually-hidden { "Resend" } } } }
                    tbody { @for m in messages { tr {
                        td { code { (m.kind) } }
                        td { (m.to) }
                        td { (m.subject) }
                        td { span.badge { (m.status) } }
                        td { (local_moment(m.due_at, zone)) }
                        td { @if let Some(t) = m.sent_at { (local_moment(t, zone)) } @else { "–" } }
                        td { (m.attempts) }
                        td { (m.error.as_deref().unwrap_or("")) }
                        td {
                            form method="post" action=(format!("/admin/booking/{}/resend", b.code)) {
                                (csrf_field(session))
                                input type="hidden" name="kind" value=(m.kind);
                                button.quiet type="submit" aria-label=(format!("Resend {} to {}", m.kind, m.to)) { "Resend" }
                            }
                        }
                    } } }
                } }
            }
        }
    }
}

fn record(b: &Booking) -> Markup {
    html! {
        dl {
            dt { "Code" } dd { strong { (b.code) } }
            dt { "Property" } dd { (b.property_name) " " span.muted { "(" (b.property) ")" } }
            dt { "Guest" } dd { (b.guest_name) @if !b.guest_email.is_empty() { " · " (b.guest_email) } }
            dt { "Guests" } dd #guests { (b.guests) }
            dt { "Stay" } dd #stay { (b.check_in()) " → " (b.check_out()) ", " (count(b.nights, "night")) }
            dt { "Status" } dd { span.badge #status { (b.status) } }
            dt { "Payment" } dd { (b.payment_status) }
            dt { "Total" } dd #total { (format_amount(b.total, &b.currency)) }
            dt { "Source" } dd { (b.source.as_str()) }
            dt { "Created" } dd { (when(b.created_at)) }
            dt { "Updated" } dd { (when(b.updated_at)) }
            @if let Some(by) = b.cancelled_by { dt { "Cancelled by" } dd { (by) } }
            @if let Some(reason) = &b.cancel_reason { dt { "Reason" } dd { (reason) } }
        }
    }
}

fn change_card(b: &Booking, session: &Session, preview: Option<&(rental_core::Result<Quote>, Change)>) -> Markup {
    let (check_in, check_out, guests) = match preview {
        Some((_, c)) => {
            (c.check_in.unwrap_or(b.check_in()), c.check_out.unwrap_or(b.check_out()), c.guests.unwrap_or(b.guests))
        }
        None => (b.check_in(), b.check_out(), b.guests),
    };
    html! {
        section.card #change {
            h2 { "Change dates or guests" }
            form method="get" action=(format!("/admin/bookings/{}", b.code)) {
                div.grid2 {
                    div { label for="change-in" { "Check-in" } input #change-in type="date" name="checkIn" value=(check_in) required; }
                    div { label for="change-out" { "Check-out" } input #change-out type="date" name="checkOut" value=(check_out) required; }
                    div { label for="change-guests" { "Guests" } input #change-guests type="number" name="guests" min="1" max="100" value=(guests) required; }
                }
                p { button.quiet type="submit" { "Preview the new price" } }
            }
            @if let Some((quote, _)) = preview {
                div #preview {
                    @match quote {
                        Ok(q) => {
                            p { "New total " strong #new-total { (format_amount(q.total, &q.currency)) } " for " (count(q.nights, "night")) " (now " (format_amount(b.total, &b.currency)) ")." }
                            @if q.available {
                                form method="post" action=(format!("/admin/booking/{}/change", b.code)) {
                                    (csrf_field(session))
                                    input type="hidden" name="checkIn" value=(check_in);
                                    input type="hidden" name="checkOut" value=(check_out);
                                    input type="hidden" name="guests" value=(guests);
                                    button type="submit" { "Save the change" }
                                }
                            } @else {
                                p.flash.error { "This stay cannot be booked: "
                                    @for (i, p) in q.problems.iter().enumerate() { @if i > 0 { "; " } (p.message()) } "." }
                            }
                        },
                        Err(e) => p.flash.error { (super::explain(&Problem::from(clone_error(e)))) },
                    }
                }
            }
        }
    }
}

/// The library's errors are not `Clone`; the page needs only the problem's words.
fn clone_error(e: &rental_core::Error) -> rental_core::Error {
    match e {
        rental_core::Error::Validation(errors) => rental_core::Error::Validation(errors.clone()),
        rental_core::Error::InvalidTransition { from, action, channel_owned } => {
            rental_core::Error::InvalidTransition { from: *from, action, channel_owned: *channel_owned }
        }
        rental_core::Error::NotFound(n) => rental_core::Error::NotFound(n.clone()),
        rental_core::Error::DatesUnavailable { dates } => rental_core::Error::DatesUnavailable { dates: dates.clone() },
        other => rental_core::Error::invalid("booking", "invalid", other.to_string()),
    }
}

/// A change from form or query fields; `None` when none is given.
fn change_of(check_in: Option<&str>, check_out: Option<&str>, guests: Option<&str>) -> Result<Option<Change>, Problem> {
    let date = |field: &str, v: Option<&str>| -> Result<Option<chrono::NaiveDate>, Problem> {
        v.filter(|v| !v.is_empty())
            .map(|v| {
                rental_core::parse_date(v).ok_or_else(|| Problem::invalid_parameter(field, "a date written YYYY-MM-DD"))
            })
            .transpose()
    };
    let guests = guests
        .filter(|v| !v.is_empty())
        .map(|v| v.parse::<u32>().map_err(|_| Problem::invalid_parameter("guests", "a number")))
        .transpose()?;
    let change = Change { check_in: date("checkIn", check_in)?, check_out: date("checkOut", check_out)?, guests };
    Ok((!change.is_empty()).then_some(change))
}

/// `POST /admin/booking/{code}/confirm|cancel|note|change|resend|stay-link|refund|deposit`.
pub async fn act<S: Store + 'static>(act: &Act<'_, S>, code: &str, action: &str) -> Page {
    let back = format!("/admin/bookings/{code}");
    let form = act.form;
    if action == "resend" {
        let kind = match form.get("kind").parse::<MessageKind>() {
            Ok(kind) => kind,
            Err(e) => {
                return act
                    .done::<Message>(Err(Problem::invalid_parameter("kind", &e)), &back, |_| Flash::done(""))
                    .await;
            }
        };
        let code = code.to_owned();
        let result = blocking(act.rental(), move |r| r.resend_message(&code, kind)).await;
        return act
            .done(result, &back, |m| Flash::done(format!("The {} message to {} goes out now.", m.kind, m.to)))
            .await;
    }
    if action == "stay-link" {
        let code = code.to_owned();
        let result = blocking(act.rental(), move |r| r.rotate_stay_link(&code)).await;
        return act
            .done(result, &back, |_| Flash::done("A new stay page link was made; the old one no longer opens."))
            .await;
    }
    if let Some(page) = super::booking_money::act(act, code, action, &back).await {
        return page;
    }
    let action = match action {
        "confirm" => Action::Confirm,
        "cancel" => {
            let reason = Some(form.get("reason").trim().to_owned()).filter(|r| !r.is_empty());
            Action::Cancel { by: Party::Host, reason }
        }
        "note" => Action::Annotate { note: form.get("note").to_owned() },
        "change" => match change_of(Some(form.get("checkIn")), Some(form.get("checkOut")), Some(form.get("guests"))) {
            Ok(Some(change)) => Action::Change(change),
            Ok(None) => Action::Change(Change::default()),
            Err(p) => return act.done::<Booking>(Err(p), &back, |_| Flash::done("")).await,
        },
        _ => return super::page::message(http::StatusCode::NOT_FOUND, "Not found", "There is no such action."),
    };
    let verb = action.name();
    let code = code.to_owned();
    let result = blocking(act.rental(), move |r| r.update_booking(&code, &action)).await;
    act.done(result, &back, |b| match verb {
        "change" => Flash::done(format!(
            "Booking {} now runs {} → {}, total {}.",
            b.code,
            b.check_in(),
            b.check_out(),
            format_amount(b.total, &b.currency)
        )),
        "annotate" => Flash::done("Note added."),
        _ => Flash::done(format!("Booking {} is now {}.", b.code, b.status)),
    })
    .await
}
