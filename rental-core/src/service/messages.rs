//! Guest message use cases (docs/API.md section 21): a booking's messages, a
//! resend, previews, and the sender's claim and record. The messages a
//! booking's change causes are recorded by the write path itself (`write.rs`).

use std::collections::HashSet;
use std::time::Duration;

use chrono::{DateTime, TimeDelta, Utc};

use super::Rental;
use super::write::Tx;
use crate::admin::keys;
use crate::basics::lease;
use crate::bookings::booking::{Booking, Status};
use crate::error::{Error, NotFound, Result};
use crate::outbox::message::finished;
use crate::outbox::message::plan::{PlanInput, fresh};
use crate::outbox::message::template::{Facts, MessageTemplate, Rendered, context, render};
use crate::outbox::message::timing::too_late;
use crate::outbox::message::{
    Message, MessageKind, MessageStatus, Outcome, booking_prefix, cancel, reasons, record, skip,
};
use crate::properties::property::Property;
use crate::stays::access_gate;
use crate::stays::occupancy::today_in;
use crate::store::{ReadRecords, ReadTx, Store};

/// The most messages one booking lists.
const MAX_PER_BOOKING: usize = 1_000;

/// A message claimed for sending, with what rendering it needs.
#[derive(Debug, Clone, PartialEq)]
pub struct Claimed {
    /// The message, leased to the claimer.
    pub message: Message,
    /// Its booking, as stored now.
    pub booking: Booking,
    /// The booking's property, as stored now.
    pub property: Property,
}

/// What one claim took.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Claim {
    /// Messages to send now, leased.
    pub send: Vec<Claimed>,
    /// Due messages that no longer make sense, recorded `skipped` or `cancelled` instead.
    pub finished: Vec<Message>,
}

/// How many due messages a starting server reads to void earlier leases.
const VOID_READ_AT_MOST: usize = 10_000;

impl<S: Store> Rental<S> {
    /// The messages of booking `code`, in the order they were recorded.
    pub fn messages(&self, code: &str) -> Result<Vec<Message>> {
        let tx = self.store.read()?;
        let booking = tx.booking(code)?.ok_or_else(|| Error::NotFound(NotFound::Booking(code.to_owned())))?;
        Ok(super::write::message_records::of_booking(&tx, booking.property.as_str(), code, MAX_PER_BOOKING)?)
    }

    /// Records a new message of `kind` for booking `code`, due now: a resend
    /// by hand. Refused ([`Error::CannotSend`]) when the booking has no guest
    /// e-mail, for a kind that does not fit the booking's status (the
    /// request's kinds while pending, `confirmed` and the timed kinds while
    /// confirmed, `cancelled` once cancelled), for the host's kinds without
    /// `hostEmail`, and past 5 resends of the booking in 24 hours.
    pub fn resend_message(&self, code: &str, kind: MessageKind) -> Result<Message> {
        let now = self.now();
        let host_email = self.settings.host_email.clone();
        self.write(|tx| {
            let booking = tx.booking(code)?.ok_or_else(|| Error::NotFound(NotFound::Booking(code.to_owned())))?;
            let property = tx
                .property(booking.property.as_str())?
                .ok_or_else(|| Error::NotFound(NotFound::Property(booking.property.to_string())))?;
            if booking.guest_email.is_empty() {
                return Err(Error::CannotSend { kind, reason: "the booking has no guest e-mail address" });
            }
            if let Err(reason) = kind.fits_status(booking.status) {
                return Err(Error::CannotSend { kind, reason });
            }
            if kind.is_for_host() && host_email.is_empty() {
                return Err(Error::CannotSend { kind, reason: "hostEmail is not set" });
            }
            let existing =
                super::write::message_records::of_booking(&**tx, booking.property.as_str(), code, MAX_PER_BOOKING)?;
            let recent = existing.iter().filter(|m| m.resent && now - m.created_at < RESEND_WINDOW).count();
            if recent >= MAX_RESENDS {
                return Err(Error::CannotSend { kind, reason: "the booking was sent 5 messages again today already" });
            }
            let request_ttl = self.settings.checkout_ttl;
            let input =
                PlanInput { property: &property, existing: &existing, host_email: &host_email, request_ttl, now };
            let message = fresh(kind, &booking, input, now, keys::new_id("msg_", self.entropy.as_ref()));
            // A resend by hand goes even when the property turned the kind off.
            let message = Message { status: MessageStatus::Scheduled, error: None, resent: true, ..message };
            tx.put(&message)?;
            Ok(message)
        })
    }

    /// `kind` rendered for `slug` with `custom` wording (the property's own
    /// when `None`): on the property's next confirmed or pending stay, else on
    /// a made-up stay two weeks from its today.
    pub fn preview_message(
        &self,
        slug: &str,
        kind: MessageKind,
        custom: Option<&MessageTemplate>,
        base_url: Option<&str>,
    ) -> Result<(Rendered, Option<Booking>)> {
        let now = self.now();
        let tx = self.store.read()?;
        let property = tx.property(slug)?.ok_or_else(|| Error::NotFound(NotFound::Property(slug.to_owned())))?;
        let today = today_in(property.timezone, now);
        let query = crate::bookings::booking::BookingQuery {
            statuses: vec![Status::Confirmed],
            property: Some(property.slug.clone()),
            from: Some(today),
            limit: crate::bookings::booking::BookingQuery::MAX_LIMIT,
            ..crate::bookings::booking::BookingQuery::default()
        };
        let next = tx.bookings(&query)?.into_iter().find(|b| b.check_in() >= today && !b.guest_email.is_empty());
        let booking =
            next.clone().unwrap_or_else(|| crate::demo::sample_booking(&property, today + chrono::Days::new(14)));
        let custom = custom.or_else(|| property.messages.templates.get(&kind));
        let facts = Facts { booking: &booking, property: &property, base_url, stay_url: None };
        let locale = crate::outbox::message::template::locale_of(kind, &booking, &property);
        let parts = custom.map(|t| t.parts(locale, property.messages.language));
        let rendered = render(locale, kind, parts, &context(kind, facts))
            .map_err(|e| Error::invalid(&format!("messages.{kind}"), "invalid_template", e.to_string()))?;
        Ok((rendered, next))
    }
}

impl<S: Store> super::Worker<'_, S> {
    /// Claims for `owner`, in one write, up to `limit` due messages that no
    /// live lease holds, each leased until `lease` from now: at most one per
    /// booking, and none of a booking with a message in flight, so a
    /// booking's messages go out in order. A due message that no longer makes
    /// sense (timing's `too_late`, a cancelled booking, a booking gone) is
    /// recorded `skipped` or `cancelled` in the same write instead.
    pub fn claim_messages(&self, owner: &str, limit: usize, lease: Duration) -> Result<Claim> {
        let now = self.now();
        if limit == 0 || self.store.read()?.due::<Message>(now, 1)?.is_empty() {
            return Ok(Claim::default());
        }
        let until = lease::end(now, lease);
        self.write(|tx| claim_in::<S>(tx, owner, now, until, limit))
    }

    /// [`Self::record_messages`] and then [`Self::claim_messages`]
    /// in one write (one commit where a sender would make two): what a busy
    /// sender does each time sends finish.
    pub fn record_and_claim(
        &self,
        done: &[(Message, Outcome, DateTime<Utc>)],
        retries: &[Duration],
        owner: &str,
        limit: usize,
        lease: Duration,
    ) -> Result<(Vec<Message>, Claim)> {
        if done.is_empty() {
            return Ok((Vec::new(), self.claim_messages(owner, limit, lease)?));
        }
        let now = self.now();
        let until = lease::end(now, lease);
        self.write(|tx| {
            let recorded = record_in::<S>(tx, done, retries)?;
            let claim = if limit == 0 { Claim::default() } else { claim_in::<S>(tx, owner, now, until, limit)? };
            Ok((recorded, claim))
        })
    }

    /// Records every due message `skipped` because of `reason` (no mail
    /// server), up to `limit` in one write; returns them.
    pub fn skip_due_messages(&self, reason: &str, limit: usize) -> Result<Vec<Message>> {
        let now = self.now();
        if self.store.read()?.due::<Message>(now, 1)?.is_empty() {
            return Ok(Vec::new());
        }
        self.write(|tx| {
            let mut skipped = Vec::new();
            for message in tx.due::<Message>(now, limit)? {
                let done = skip(&message, reason);
                put_message::<S>(tx, &done, now)?;
                skipped.push(done);
            }
            Ok(skipped)
        })
    }

    /// Records finished attempts in one write, in order: each `(message as
    /// claimed, outcome, when it ended)` moves the stored message (see
    /// [`record`]) and clears its lease. Returns the messages as stored.
    pub fn record_messages(
        &self,
        done: &[(Message, Outcome, DateTime<Utc>)],
        retries: &[Duration],
    ) -> Result<Vec<Message>> {
        self.write(|tx| record_in::<S>(tx, done, retries))
    }

    /// Extends the leases `owner` holds on the messages under `keys` to
    /// `lease` from now, in one write; returns how many. The heartbeat of a
    /// sender whose sends are in flight: its leases stay short, so another
    /// server takes over a killed one's messages soon (docs/API.md section 22).
    pub fn renew_message_leases(&self, owner: &str, keys: &[String], lease: Duration) -> Result<usize> {
        let until = lease::end(self.now(), lease);
        self.write(|tx| {
            let mut renewed = 0;
            for key in keys {
                let Some(mut message) = tx.get::<Message>(key)? else { continue };
                if !lease::renew(&mut message.lease, owner, until) {
                    continue;
                }
                tx.put(&message)?;
                renewed += 1;
            }
            Ok(renewed)
        })
    }

    /// Voids the message leases in the store that end within `lease` from
    /// now; returns how many. Only for a store one process holds (redb locks
    /// its file), when that process starts: the leases are an earlier run's,
    /// and its sends were cut, so they go again at once rather than when the
    /// leases lapse. A lease (or its renewal) reaches at most `lease` past
    /// its writing, so with the same `lease` this finds them by reading only
    /// what is due by then, never the store's future messages; and at most
    /// 10,000 of those, so a backlog of due messages costs no more memory at
    /// start than that (leases past it lapse on their own).
    pub fn void_message_leases(&self, lease: Duration) -> Result<usize> {
        if self.store.change_marks().is_some() {
            return Ok(0);
        }
        let until = lease::end(self.now(), lease);
        self.write(|tx| {
            let mut voided = 0;
            for mut message in tx.due::<Message>(until, VOID_READ_AT_MOST)? {
                if lease::void(&mut message.lease) {
                    tx.put(&message)?;
                    voided += 1;
                }
            }
            Ok(voided)
        })
    }
}

/// Stores `message`, and for a finished one when it finished (`now`, or
/// when it was sent), the index retention removes it by: every write of a
/// message goes through here.
pub(super) fn put_message<S: Store>(tx: &mut Tx<'_, S>, message: &Message, now: DateTime<Utc>) -> Result<()> {
    tx.put(message)?;
    if let Some(done) = finished::of(message, now) {
        tx.put(&done)?;
    }
    Ok(())
}

/// Claims in `tx` for `owner` up to `limit` messages due at `now`, leased
/// until `until` (see `Worker::claim_messages`).
fn claim_in<S: Store>(
    tx: &mut Tx<'_, S>,
    owner: &str,
    now: DateTime<Utc>,
    until: DateTime<Utc>,
    limit: usize,
) -> Result<Claim> {
    let mut claim = Claim::default();
    let mut seen: HashSet<String> = HashSet::new();
    for message in tx.due::<Message>(now, limit.saturating_mul(4))? {
        if claim.send.len() >= limit {
            break;
        }
        if message.status != MessageStatus::Scheduled || !seen.insert(message.booking.as_str().to_owned()) {
            continue;
        }
        let booking = tx.booking(message.booking.as_str())?;
        let property = tx.property(message.property.as_str())?;
        let (Some(booking), Some(property)) = (booking, property) else {
            let gone = skip(&message, reasons::GONE);
            put_message::<S>(tx, &gone, now)?;
            claim.finished.push(gone);
            continue;
        };
        if let Some(finished) = no_longer_due(&message, &booking, &property, now) {
            put_message::<S>(tx, &finished, now)?;
            claim.finished.push(finished);
            continue;
        }
        if message.kind == MessageKind::CheckInInstructions
            && !access_gate::check(&booking, &property, now, gate_conditions(&**tx, &booking, tx.payment_provider)?)
                .open()
        {
            // The stay page's conditions (payment, say) do not hold yet: the
            // instructions wait for them, looked at again a little later.
            tx.put(&Message { due_at: now + ACCESS_RECHECK, ..message })?;
            continue;
        }
        let prefix = booking_prefix(property.slug.as_str(), booking.code.as_str());
        let siblings = tx.list::<Message>(&prefix, "", MAX_PER_BOOKING)?;
        if siblings.iter().any(|s| s.id != message.id && s.status == MessageStatus::Scheduled && s.is_leased(now)) {
            continue;
        }
        if let Some(earlier) = siblings.iter().find(|s| waits_for(&message, s)) {
            // An earlier message to the same address is between retries: this
            // one goes after it, and is not looked at again until then.
            tx.put(&Message { due_at: earlier.due_at.max(message.due_at), ..message })?;
            continue;
        }
        let mut leased = message;
        // Due means its lease, if any, has lapsed (`Message::wake_at` waits for it): this takes it.
        if lease::claim(&mut leased.lease, owner, now, until).is_err() {
            continue;
        }
        tx.put(&leased)?;
        claim.send.push(Claimed { message: leased, booking, property });
    }
    Ok(claim)
}

/// What the access gate needs of `booking`'s ledger: its deposit's state.
fn gate_conditions<T: ReadRecords>(tx: &T, booking: &Booking, provider: bool) -> Result<access_gate::Conditions> {
    let records = super::payments::records_of(tx, booking.property.as_str(), booking.code.as_str())?;
    Ok(access_gate::Conditions { payments_configured: provider, deposit_held: crate::payments::deposit_held(&records) })
}

/// Records `done` in `tx`, in order (see `Worker::record_messages`).
fn record_in<S: Store>(
    tx: &mut Tx<'_, S>,
    done: &[(Message, Outcome, DateTime<Utc>)],
    retries: &[Duration],
) -> Result<Vec<Message>> {
    let mut out = Vec::with_capacity(done.len());
    for (claimed, outcome, at) in done {
        let current = tx.get::<Message>(&claimed.key_of())?.unwrap_or_else(|| claimed.clone());
        let next = record(&current, outcome, *at, retries);
        put_message::<S>(tx, &next, *at)?;
        out.push(next);
    }
    Ok(out)
}

/// True when `message` must wait for `other`, an earlier message of its
/// booking to the same address that a transient refusal left to be retried:
/// a booking's messages reach each recipient in the order they were recorded
/// (a guest never reads "confirmed" before "we received your request").
fn waits_for(message: &Message, other: &Message) -> bool {
    other.seq < message.seq && other.status == MessageStatus::Scheduled && other.attempts > 0 && other.to == message.to
}

/// `message` finished instead of sent, when it no longer makes sense at `now`.
fn no_longer_due(message: &Message, booking: &Booking, property: &Property, now: DateTime<Utc>) -> Option<Message> {
    if message.kind.is_timed() && booking.status != Status::Confirmed {
        return Some(cancel(message, reasons::BOOKING_CANCELLED));
    }
    too_late(message.kind, booking, property, now).map(|reason| skip(message, reason))
}

/// How long `check_in_instructions` whose access conditions do not hold wait
/// before they are looked at again (docs/API.md section 24).
pub const ACCESS_RECHECK: TimeDelta = TimeDelta::minutes(5);

/// Resends of one booking allowed in [`RESEND_WINDOW`]: enough to fix a lost
/// e-mail, too few to make the host's mail server a guest's pest.
pub const MAX_RESENDS: usize = 5;
/// The window [`MAX_RESENDS`] counts in.
pub const RESEND_WINDOW: TimeDelta = TimeDelta::hours(24);
