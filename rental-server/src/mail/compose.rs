//! One stored message as an e-mail: rendered wording (docs/API.md section 21)
//! in a multipart/alternative body, with `From`, `Reply-To`, `To`, `Date` and
//! the record's fixed `Message-ID`.
//!
//! Every header value is one line before lettre sees it (rendered subjects are
//! made so by `template::one_line`, names by the same function here), and
//! lettre encodes what is not plain ASCII: no input can add a header.

use std::time::SystemTime;

use lettre::message::{Mailbox, MultiPart, header};
use rental_core::message::template::{Facts, Rendered, TemplateError, one_line, render_for};
use rental_core::message::{Message, MessageKind};
use rental_core::stay_link::StayLinks;
use rental_core::{Booking, Property};

/// What composing needs besides the message.
#[derive(Debug, Clone)]
pub struct Sender {
    /// `From` (`mailFrom`).
    pub from: Mailbox,
    /// The server's public URL, for links.
    pub base_url: Option<String>,
}

/// Why a message cannot be made into an e-mail: both are permanent.
#[derive(Debug, thiserror::Error)]
pub enum ComposeError {
    /// A template failed (saved before the checks, or out of fuel).
    #[error(transparent)]
    Template(#[from] TemplateError),
    /// The recipient or reply address is not an e-mail address.
    #[error("{0}")]
    Address(String),
}

impl Sender {
    /// The domain of `Message-ID`s: `mailFrom`'s.
    pub fn domain(&self) -> &str {
        self.from.email.domain()
    }

    /// `message` about `booking` at `property`, rendered now; `links` sign
    /// the booking's stay page address (`stay_url`) under the base URL.
    pub fn compose(
        &self,
        message: &Message,
        booking: &Booking,
        property: &Property,
        links: Option<&StayLinks>,
    ) -> Result<(lettre::Message, Rendered), ComposeError> {
        let stay_url = self.base_url.as_deref().zip(links).map(|(base, links)| links.url(base, booking));
        let facts = Facts { booking, property, base_url: self.base_url.as_deref(), stay_url: stay_url.as_deref() };
        let rendered = render_for(message.kind, facts)?;
        let name = (!message.kind.is_for_host()).then(|| one_line(&booking.guest_name));
        let to = mailbox(name, &message.to)?;
        let reply_to = reply_to_guest(message.kind, booking);
        let email = self.build(to, reply_to, property, &message.message_id(self.domain()), &rendered)?;
        Ok((email, rendered))
    }

    /// An e-mail of `rendered` to `to`, replying to `reply_to` when given,
    /// else to the property's `contactEmail` (else `From`).
    pub fn build(
        &self,
        to: Mailbox,
        reply_to: Option<Mailbox>,
        property: &Property,
        message_id: &str,
        rendered: &Rendered,
    ) -> Result<lettre::Message, ComposeError> {
        let reply_to = match reply_to {
            Some(reply_to) => reply_to,
            None if property.messages.contact_email.is_empty() => self.from.clone(),
            None => mailbox(Some(one_line(&property.name)), &property.messages.contact_email)?,
        };
        lettre::Message::builder()
            .from(self.from.clone())
            .reply_to(reply_to)
            .to(to)
            .subject(rendered.subject.clone())
            .message_id(Some(message_id.to_owned()))
            .date(SystemTime::now())
            .header(header::MIME_VERSION_1_0)
            .multipart(MultiPart::alternative_plain_html(rendered.text.clone(), rendered.html.clone()))
            .map_err(|e| ComposeError::Address(e.to_string()))
    }
}

/// Who the host answers by replying to a new request: the guest who made it.
/// Guests' own messages reply to the property, so this is `None` for them (and
/// for a request whose address the mail library cannot read).
fn reply_to_guest(kind: MessageKind, booking: &Booking) -> Option<Mailbox> {
    (kind.is_for_host() && !booking.guest_email.is_empty())
        .then(|| mailbox(Some(one_line(&booking.guest_name)), &booking.guest_email).ok())
        .flatten()
}

/// Reads `Name <address>` or a bare address (`mailFrom`).
pub fn parse_mailbox(text: &str) -> Result<Mailbox, ComposeError> {
    text.parse()
        .map_err(|_| ComposeError::Address(format!("{text:?} is not an address like Sea View <stay@example.com>")))
}

/// True when the mailer can send to `address` (lettre's own parser): what
/// the API checks a guest's address with, so that no booking is accepted
/// with an address its messages would then fail on (`<c@d.com>`, `a@-example.com`).
pub fn can_send_to(address: &str) -> bool {
    address.parse::<lettre::Address>().is_ok()
}

/// A mailbox of `address` with an optional display name (made one line).
pub fn mailbox(name: Option<String>, address: &str) -> Result<Mailbox, ComposeError> {
    let email = address.parse().map_err(|_| ComposeError::Address(format!("{address:?} is not an e-mail address")))?;
    Ok(Mailbox::new(name.filter(|n| !n.is_empty()), email))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_addresses_the_mailer_takes_are_sendable() {
        for good in ["ada@example.com", "a.b+c@mail.example.co.uk"] {
            assert!(can_send_to(good), "{good}");
        }
        for bad in ["<c@d.com>", "a@-example.com", "a b@example.com"] {
            assert!(!can_send_to(bad), "{bad}");
        }
    }
}
