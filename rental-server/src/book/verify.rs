//! The guest's e-mail check (docs/API.md section 20): a request from the page
//! holds its nights for half an hour until its guest opens the link mailed to
//! them. The mail carries no word the guest typed (not even their name), so
//! the page cannot be used to send someone else's words to any address.

use std::sync::Arc;

use http::StatusCode;
use maud::{Markup, html};
use rental_core::message::Outcome;
use rental_core::message::template::Rendered;
use rental_core::verification::{self, UNVERIFIED_HOLD};
use rental_core::{Booking, Error, Property, Store};

use super::error::BookError;
use super::page::{Frame, Page, shell};
use crate::AppState;
use crate::mail::compose::mailbox;
use crate::reply::blocking;

/// The link's path for `booking` (its token signs the code).
fn path<S: Store + 'static>(state: &AppState<S>, booking: &Booking) -> String {
    let token = state.book.signer.verification(booking.code.as_str());
    format!("/book/{}/verify/{token}", booking.property)
}

/// The server's public address for links in mail, as the messages' links
/// use it. Never the request's `Host`, which a client chooses.
fn public_url<S: Store + 'static>(state: &AppState<S>) -> Option<String> {
    state.mail().sender.as_ref().and_then(|s| s.base_url.as_deref()).map(|u| u.trim_end_matches('/').to_owned())
}

/// The check's e-mail: the property, the dates and the link; nothing the guest typed.
fn words(booking: &Booking, link: &str) -> Rendered {
    let (l, w) = (booking.locale, crate::lang::words(booking.locale));
    let (property, from, to) =
        (&booking.property_name, l.short_date(booking.stay.check_in()), l.short_date(booking.stay.check_out()));
    let subject = (w.verify_subject)(property);
    let (asked, within) = ((w.verify_asked)(property, &from, &to), (w.verify_within)(UNVERIFIED_HOLD.num_minutes()));
    let text = format!("{asked}\n\n{within}\n{link}\n\n{}", w.verify_not_you);
    let html = html! {
        p { (asked) }
        p { (within) br; a href=(link) { (link) } }
        p { (w.verify_not_you) }
    }
    .into_string();
    Rendered { subject, text, html }
}

/// Mails the check for the new request `booking` of `property`, in the
/// background (the guest's page does not wait for the mail server). Without
/// a mail server or a public URL nothing can be sent: the request lapses.
pub fn send_link<S: Store + 'static>(state: &Arc<AppState<S>>, booking: &Booking, property: &Property) {
    let mail = state.mail();
    let (Some(smtp), Some(sender), Some(base)) = (mail.smtp.clone(), mail.sender.clone(), public_url(state)) else {
        tracing::warn!(code = %booking.code, "a booking page request cannot be verified: no mail server or public URL");
        return;
    };
    let link = format!("{base}{}", path(state, booking));
    let id = format!("<verify.{}@{}>", booking.code, sender.domain());
    let email = mailbox(None, &booking.guest_email)
        .and_then(|to| sender.build(to, None, property, &id, &words(booking, &link)));
    let code = booking.code.clone();
    match email {
        Ok(email) => {
            tokio::spawn(async move {
                if let Outcome::Transient(e) | Outcome::Permanent(e) = smtp.send(email).await {
                    tracing::warn!(%code, error = %crate::log_safe::without_addresses(&e), "a verification e-mail was refused");
                }
            });
        }
        Err(e) => tracing::warn!(%code, error = %e, "a verification e-mail could not be made"),
    }
}

/// `GET /book/{slug}/verify/{token}`: a button that verifies (a mail scanner
/// that follows links does not verify anyone's address).
pub async fn show<S: Store + 'static>(state: &Arc<AppState<S>>, slug: &str, token: &str) -> Result<Page, BookError> {
    let booking = booking(state, slug, token).await?;
    let l = booking.locale;
    let w = crate::lang::words(l);
    let ([title, button, _], prompt) = (w.verify_page, w.verify_prompt);
    let (from, to) = (l.short_date(booking.stay.check_in()), l.short_date(booking.stay.check_out()));
    let body = match booking.status {
        rental_core::Status::Pending if !verification::is_verified(&booking) => html! {
            p { (prompt(&booking.property_name, &from, &to)) }
            form method="post" { button type="submit" { (button) } }
        },
        _ => status_words(&booking),
    };
    Ok(page(l, StatusCode::OK, title, &body))
}

/// `POST /book/{slug}/verify/{token}`: verifies the request's guest address.
pub async fn confirm<S: Store + 'static>(state: &Arc<AppState<S>>, slug: &str, token: &str) -> Result<Page, BookError> {
    let booking = booking(state, slug, token).await?;
    let code = booking.code.to_string();
    let verified = blocking(state.rental(), move |r| match r.verify_guest_email(&code) {
        Err(Error::InvalidTransition { .. }) => r.booking(&code),
        other => other,
    })
    .await?;
    let confirmed = crate::lang::words(verified.locale).verify_page[2];
    Ok(page(verified.locale, StatusCode::OK, confirmed, &status_words(&verified)))
}

/// Where the request stands, in words.
fn status_words(booking: &Booking) -> Markup {
    let (pending, confirmed, closed) = crate::lang::words(booking.locale).verify_status;
    html! {
        p { @match booking.status {
            rental_core::Status::Pending => { (pending(&booking.property_name)) }
            rental_core::Status::Confirmed => { (confirmed) }
            rental_core::Status::Cancelled => { (closed) }
        } }
    }
}

/// The booking the token names, under `slug`.
async fn booking<S: Store + 'static>(state: &Arc<AppState<S>>, slug: &str, token: &str) -> Result<Booking, BookError> {
    let code = state.book.signer.check_verification(token).ok_or(BookError::NotFound)?.to_owned();
    let booking = blocking(state.rental(), move |r| r.booking(&code)).await?;
    if booking.property.as_str() != slug {
        return Err(BookError::NotFound);
    }
    Ok(booking)
}

fn page(lang: rental_core::Locale, status: StatusCode, title: &str, body: &Markup) -> Page {
    let frame = Frame { lang, ..Frame::default() };
    shell(status, title, frame, &html! { main.page #book { h1 { (title) } (body) } })
}
