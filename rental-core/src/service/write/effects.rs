//! What a write causes besides itself, as values: the door code it settles, the
//! guest messages and promo-code uses it moves, the events and cache changes its commit takes.
//!
//! A use case writes a booking, a property or a block through [`UseCaseTx`](super::UseCaseTx),
//! whose methods work out these values with the functions here before writing and
//! then apply them; what waits for the commit ([`AtCommit`]) the write path applies.

use std::sync::Arc;

use chrono::{DateTime, TimeDelta, Utc};

use super::message_records;
use crate::basics::clock::Entropy;
use crate::bookings::booking::Booking;
use crate::bookings::calendar::Block;
use crate::bookings::event::Event;
use crate::outbox::message::plan::{PlanInput, fresh, plan as message_plan};
use crate::outbox::message::stored::Recorded;
use crate::outbox::message::{Message, MessageKind, MessageStatus, reasons, skip};
use crate::properties::property::Property;
use crate::service::{access_sync, promo_uses};
use crate::store::{ReadTx, StoreResult};

/// What writing one booking causes, worked out from the store before the write.
#[derive(Debug)]
pub(in crate::service) struct BookingEffects {
    /// The booking as it is stored: the one given with its door code settled
    /// (`access_sync::settle`), so what is read back may differ in `access`.
    pub stored: Booking,
    /// `access.updated`, when the settled door code differs from the stored one.
    pub access_event: Option<Event>,
    /// The promo-code counters the change moves.
    pub promo_moves: Vec<promo_uses::Move>,
    /// The guest messages to record: new ones, and earlier ones re-timed or cancelled.
    pub messages: Vec<Recorded>,
}

/// What a transaction's writes leave for its commit, which [`Rental::write`](crate::service::Rental::write) applies.
#[derive(Debug, Default)]
pub(in crate::service) struct AtCommit {
    /// `access.updated` events, appended after the use case's own.
    pub events: Vec<Event>,
    /// What the read cache learns once the commit is made.
    pub cache: CacheChanges,
}

/// What a committed write changed that the read cache holds.
#[derive(Debug, Default)]
pub(in crate::service) struct CacheChanges {
    /// Properties written, in order.
    pub properties: Vec<Property>,
    /// Bookings written, in order.
    pub bookings: Vec<Booking>,
    /// Blocks written, in order.
    pub blocks: Vec<Block>,
    /// Blocks removed, as they were.
    pub removed_blocks: Vec<Block>,
    /// A key was revoked.
    pub keys_revoked: bool,
    /// Anything at all was written.
    pub any: bool,
}

/// The engine's side of working out effects: its randomness, the write's instant and the settings messages follow.
#[derive(Clone)]
pub(in crate::service) struct Engine {
    pub entropy: Arc<dyn Entropy>,
    pub now: DateTime<Utc>,
    /// Where `host_request` messages go (`hostEmail`); empty: nowhere.
    pub host_email: Arc<str>,
    /// [`Settings::mail_server`](crate::service::Settings::mail_server): without one, a message due now is skipped.
    pub mail_server: bool,
    /// [`Settings::checkout_ttl`](crate::service::Settings::checkout_ttl): when requests lapse.
    pub request_ttl: Option<TimeDelta>,
}

/// The booking a change brings to the store, about to replace `before`
/// (`None`: new): what writing `after` causes. `known` is its property when
/// the caller has it already (a creation read it to price): it is then not
/// decoded from the store again.
pub(in crate::service) fn of_booking(
    tx: &impl ReadTx,
    before: Option<&Booking>,
    existed: bool,
    after: &Booking,
    known: Option<&Property>,
    engine: &Engine,
) -> StoreResult<BookingEffects> {
    let mut stored = after.clone();
    let access_event = access_sync::settle(tx, &mut stored, engine.entropy.as_ref(), engine.now)?;
    let messages = messages(tx, before, existed, &stored, known, None, engine)?;
    Ok(BookingEffects { promo_moves: promo_uses::moves(before, &stored), stored, access_event, messages })
}

/// The guest messages `after` replacing `before` causes (or, with `one`, that
/// one message due now), planned with the property and, for a booking stored
/// before (`existed`), its messages so far (docs/API.md section 21). A
/// message due now without a mail server is skipped as it is planned.
pub(in crate::service) fn messages(
    tx: &impl ReadTx,
    before: Option<&Booking>,
    existed: bool,
    after: &Booking,
    known: Option<&Property>,
    one: Option<MessageKind>,
    engine: &Engine,
) -> StoreResult<Vec<Recorded>> {
    if after.guest_email.is_empty() {
        return Ok(Vec::new());
    }
    let read;
    let property = match known.filter(|p| p.slug == after.property) {
        Some(property) => property,
        None => match tx.property(after.property.as_str())? {
            Some(property) => {
                read = property;
                &read
            }
            None => return Ok(Vec::new()),
        },
    };
    let existing = if existed {
        message_records::of_booking(tx, after.property.as_str(), after.code.as_str(), 1_000)?
    } else {
        Vec::new()
    };
    let now = engine.now;
    let input = PlanInput {
        property,
        existing: &existing,
        host_email: &engine.host_email,
        request_ttl: engine.request_ttl,
        now,
    };
    let mut new_id = || crate::admin::keys::new_id("msg_", engine.entropy.as_ref());
    let planned = match one {
        Some(kind) => vec![fresh(kind, after, input, now, new_id())],
        None => message_plan(before, after, input, &mut new_id),
    };
    let unsendable = |m: &Message| m.status == MessageStatus::Scheduled && m.due_at <= now && !engine.mail_server;
    let recorded = |m: Message| Recorded {
        new: !existing.iter().any(|e| e.id == m.id),
        message: if unsendable(&m) { skip(&m, reasons::NO_MAIL_SERVER) } else { m },
    };
    Ok(planned.into_iter().map(recorded).collect())
}
