//! The kinds of record this crate keeps (see [`Record`]): properties, API
//! keys, webhooks, feed states, guest messages and the admin dashboard's
//! password, sessions and login throttle, payment records and plans, checkouts.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use super::IdempotencyRecord;
use super::record::{Record, RecordKind};
use crate::admin::admin_session::{AdminSession, LoginFailures};
use crate::admin::allowance::UseWindow;
use crate::admin::keys::ApiKey;
use crate::channels::pull::FeedState;
use crate::outbox::delivery::DeliveryClaim;
use crate::outbox::message::Message;
use crate::outbox::message::finished::FinishedMessage;
use crate::outbox::message::stored::SkippedMessage;
use crate::outbox::message::test_message::TestMessage;
use crate::outbox::webhook::Webhook;
use crate::payments::{PaymentPlan, PaymentRecord};
use crate::properties::property::Property;
use crate::stays::check_in::CheckIn;

/// Every kind of record this crate keeps beside its own tables on
/// PostgreSQL: what `rental db copy` and backups move as records.
/// (Properties, delivery leases and idempotency records are records only in
/// stores that keep the trait's default methods for them; PostgreSQL keeps
/// them in tables of its own, and the copy and backups move them through
/// those methods, so none is moved twice.)
pub const KINDS: &[RecordKind] = &[
    ApiKey::KIND,
    KeyHash::KIND,
    Webhook::KIND,
    FeedState::KIND,
    AdminPassword::KIND,
    StoredSession::KIND,
    ClientFailures::KIND,
    Message::KIND,
    PaymentRecord::KIND,
    PaymentPlan::KIND,
    crate::payment_provider::Checkout::KIND,
    CheckIn::KIND,
    TestMessage::KIND,
    FinishedMessage::KIND,
    SkippedMessage::KIND,
    PROMO_USES,
    UseWindow::KIND,
];

/// A property under its slug: the default of
/// [`ReadTx::property`](super::ReadTx::property), [`ReadTx::properties`](super::ReadTx::properties)
/// and [`WriteTx::put_property`](super::WriteTx::put_property). Read and write
/// properties through those methods: PostgreSQL overrides them and keeps its
/// own `properties` table, whose ids its bookings and calendar refer to.
///
/// The kind is per property (the record is the property itself, its key the
/// slug alone): a store that locks by property guards it with the property's
/// lock, as PostgreSQL's own methods do.
impl Record for Property {
    const KIND: RecordKind = RecordKind { name: "property", per_property: true };
    fn key(&self) -> String {
        self.slug.to_string()
    }
}

/// API keys by id.
impl Record for ApiKey {
    const KIND: RecordKind = RecordKind { name: "api_key", per_property: false };
    fn key(&self) -> String {
        self.id.clone()
    }
}

/// Which key a secret belongs to, under the SHA-256 of the secret (hex).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct KeyHash {
    /// The hash: the record's key.
    pub hash: String,
    /// The key's id.
    pub id: String,
}

impl Record for KeyHash {
    const KIND: RecordKind = RecordKind { name: "api_key_hash", per_property: false };
    fn key(&self) -> String {
        self.hash.clone()
    }
}

/// Webhooks by id.
impl Record for Webhook {
    const KIND: RecordKind = RecordKind { name: "webhook", per_property: false };
    fn key(&self) -> String {
        self.id.clone()
    }
}

/// A finished message in the time index by when it finished.
impl Record for FinishedMessage {
    const KIND: RecordKind = RecordKind { name: "message_finished", per_property: true };
    fn key(&self) -> String {
        self.key.clone()
    }
    fn at(&self) -> Option<DateTime<Utc>> {
        Some(self.at)
    }
}

/// Test messages under `{slug}/{id}`, in the time index by when they were
/// sent: retention reads it, the limit counts the keys of the last hour.
impl Record for TestMessage {
    const KIND: RecordKind = RecordKind { name: "test_message", per_property: true };
    fn key(&self) -> String {
        format!("{}/{}", self.property, self.id)
    }
    fn at(&self) -> Option<DateTime<Utc>> {
        Some(self.at)
    }
}

/// A feed's state under `"{slug}/{feed}"` (a feed's name holds no `/`).
impl Record for FeedState {
    const KIND: RecordKind = RecordKind { name: "feed_state", per_property: true };
    fn key(&self) -> String {
        feed_key(self.property.as_str(), self.feed.as_str())
    }
}

/// The key of a feed's state.
pub fn feed_key(slug: &str, feed: &str) -> String {
    format!("{slug}/{feed}")
}

/// The admin dashboard's password hash, the one record of its kind.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AdminPassword {
    /// An argon2id PHC string.
    pub phc: String,
}

impl AdminPassword {
    /// The key of the one record.
    pub const KEY: &str = "admin";
}

impl Record for AdminPassword {
    const KIND: RecordKind = RecordKind { name: "admin_password", per_property: false };
    fn key(&self) -> String {
        Self::KEY.to_owned()
    }
}

/// An admin session under the hash of its cookie id, found by its last request.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct StoredSession {
    /// Hex SHA-256 of the cookie id: the record's key.
    pub key_hash: String,
    /// The session.
    #[serde(flatten)]
    pub session: AdminSession,
}

impl Record for StoredSession {
    const KIND: RecordKind = RecordKind { name: "admin_session", per_property: false };
    fn key(&self) -> String {
        self.key_hash.clone()
    }
    fn at(&self) -> Option<DateTime<Utc>> {
        Some(self.session.last_seen)
    }
}

/// The failed logins of one client address, found by the last one.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ClientFailures {
    /// The client address: the record's key.
    pub client: String,
    /// Its failures in a row.
    #[serde(flatten)]
    pub failures: LoginFailures,
}

impl Record for ClientFailures {
    const KIND: RecordKind = RecordKind { name: "login_failures", per_property: false };
    fn key(&self) -> String {
        self.client.clone()
    }
    fn at(&self) -> Option<DateTime<Utc>> {
        Some(self.failures.last)
    }
}

/// A delivery's lease, under the delivery's id, found by when it lapses.
/// The default of [`ReadTx::delivery_leases`](super::ReadTx::delivery_leases) and its writes.
impl Record for DeliveryClaim {
    const KIND: RecordKind = RecordKind { name: "delivery_lease", per_property: false };
    fn key(&self) -> String {
        self.delivery_id.clone()
    }
    fn at(&self) -> Option<DateTime<Utc>> {
        Some(self.lease.until)
    }
}

/// An idempotency record under its key, found by when it was made: the
/// default of [`ReadTx::idempotency`](super::ReadTx::idempotency) and its writes.
impl Record for IdempotencyRecord {
    const KIND: RecordKind = RecordKind { name: "idempotency", per_property: false };
    fn key(&self) -> String {
        self.key.clone()
    }
    fn at(&self) -> Option<DateTime<Utc>> {
        Some(self.created_at)
    }
}

/// Guest messages, under their booking (`{slug}/{code}/...`).
impl Record for Message {
    const KIND: RecordKind = RecordKind { name: "message", per_property: true };

    fn key(&self) -> String {
        self.key_of()
    }

    /// When a sender should look at it ([`Message::wake_at`]): the claim reads this index.
    fn at(&self) -> Option<DateTime<Utc>> {
        self.wake_at()
    }
}

/// Messages recorded already skipped, under the message's key, found by
/// when they were recorded (which is when they finished): retention reads it.
impl Record for SkippedMessage {
    const KIND: RecordKind = RecordKind { name: "message_skipped", per_property: true };

    fn key(&self) -> String {
        self.0.key_of()
    }

    fn at(&self) -> Option<DateTime<Utc>> {
        Some(self.0.created_at)
    }
}

/// Payment records under their booking, `{slug}/{code}/{id}`, found by
/// their next step ([`PaymentRecord::next_step_at`]).
impl Record for PaymentRecord {
    const KIND: RecordKind = RecordKind { name: "payment", per_property: true };

    fn key(&self) -> String {
        format!("{}{}", crate::payments::ledger::booking_prefix(self.property.as_str(), self.booking.as_str()), self.id)
    }

    fn at(&self) -> Option<DateTime<Utc>> {
        self.next_step_at()
    }
}

impl Record for PaymentPlan {
    const KIND: RecordKind = RecordKind { name: "payment_plan", per_property: true };

    fn key(&self) -> String {
        format!("{}/{}", self.property, self.booking)
    }
}

/// Checkouts by booking code.
impl Record for crate::payment_provider::Checkout {
    const KIND: RecordKind = RecordKind { name: "checkout", per_property: false };
    fn key(&self) -> String {
        self.booking.to_string()
    }
}

/// Check-ins under `{slug}/{code}`, in the time index while a document number
/// waits for its deletion: retention reads that index alone.
impl Record for crate::stays::check_in::CheckIn {
    const KIND: RecordKind = RecordKind { name: "check_in", per_property: true };
    fn key(&self) -> String {
        crate::stays::check_in::key(self.property.as_str(), self.booking.as_str())
    }
    fn at(&self) -> Option<DateTime<Utc>> {
        self.document_due()
    }
}

/// Use windows under their key, in the time index by when they expire:
/// retention removes the expired ones.
impl Record for UseWindow {
    const KIND: RecordKind = RecordKind { name: "use_window", per_property: false };
    fn key(&self) -> String {
        self.key.clone()
    }
    fn at(&self) -> Option<DateTime<Utc>> {
        Some(self.expires_at)
    }
}

/// The promo code counters' kind (the service keeps them in step with the
/// bookings that use a code).
pub(crate) const PROMO_USES: RecordKind = RecordKind { name: "promo_uses", per_property: true };
