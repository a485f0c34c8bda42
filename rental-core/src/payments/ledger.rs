//! The payment ledger: one stored record per movement of money (an
//! installment, a deposit hold, a refund), and the frozen plan of a booking.
//!
//! Records are written in the same store transaction as the booking change
//! they belong to (the schedule at creation, one record at a change; see
//! [`crate::Rental::change_payments`]), under the booking (`{slug}/{code}/...`).
//! A payment provider finds the movements it has to make through the store's
//! time index ([`crate::store::ReadRecords::due`]): a record's time there is
//! the instant its next step falls due ([`PaymentRecord::next_step_at`]).

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use crate::basics::ids::{BookingCode, Slug};
use crate::basics::lease::{self, Lease};
use crate::basics::money::Cents;
use crate::bookings::booking::Booking;
pub use crate::bookings::payment_summary::PaymentSummary;
use crate::properties::payment_settings::PaymentSettings;

/// What a payment record moves.
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PaymentKind {
    /// A share of the booking's total, charged (or, for a request's first, held).
    Installment,
    /// The security deposit: a card hold, claimed in part or released.
    Deposit,
    /// Money given back to the guest.
    Refund,
}

/// Where a movement is.
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PaymentState {
    /// Waiting for its instant (`dueAt`).
    Scheduled,
    /// To be made now: its instant has come, or it is a refund to issue.
    Due,
    /// A card hold is in place (a request's first installment, a deposit).
    Authorized,
    /// The money moved (charged, captured or refunded).
    Succeeded,
    /// The provider refused it (`error` says why); it may be tried again.
    Failed,
    /// A hold was let go without taking anything.
    Released,
    /// The host captured (part of) a deposit hold.
    Claimed,
    /// Will not be made: the booking was cancelled or changed first.
    Canceled,
}

impl PaymentState {
    /// True once nothing more will happen to the movement.
    pub fn is_final(self) -> bool {
        matches!(self, Self::Succeeded | Self::Released | Self::Claimed | Self::Canceled)
    }
}

/// One movement of money for a booking (docs/API.md, Payments).
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct PaymentRecord {
    /// `pay_BK-7QX2MF_i1`: the booking's code, the kind's letter and the number; fixed.
    pub id: String,
    /// The booking's property.
    pub property: Slug,
    /// The booking.
    pub booking: BookingCode,
    /// Installment, deposit or refund.
    pub kind: PaymentKind,
    /// 1, 2, ... within its kind.
    pub number: u32,
    /// In the minor unit of `currency`; positive (a refund's too).
    pub amount: Cents,
    /// The booking's currency.
    pub currency: String,
    /// Where it is.
    pub status: PaymentState,
    /// When it falls due (an installment, a deposit's hold); `None` for a refund.
    #[serde(default, with = "crate::basics::timestamp::option")]
    #[cfg_attr(feature = "schemars", schemars(with = "Option<crate::basics::timestamp::Rfc3339Millis>"))]
    pub due_at: Option<DateTime<Utc>>,
    /// When its status last changed by a movement (held, paid, refused, released...).
    #[serde(default, with = "crate::basics::timestamp::option")]
    #[cfg_attr(feature = "schemars", schemars(with = "Option<crate::basics::timestamp::Rfc3339Millis>"))]
    pub at: Option<DateTime<Utc>>,
    /// The provider's id of the movement (a payment intent, a refund), once made.
    pub provider_ref: Option<String>,
    /// Why the provider refused it, in its words, when it did.
    pub error: Option<String>,
    /// The key the provider is given with this movement, so that a retry,
    /// a crash or a second server never moves the money twice. Fixed per
    /// attempt: [`PaymentRecord::retry`] gives the next attempt its own.
    pub idempotency_key: String,
    /// How many times it was tried and refused.
    #[serde(default)]
    pub attempts: u32,
    /// A deposit's release instant, after check-out.
    #[serde(default, skip_serializing_if = "Option::is_none", with = "crate::basics::timestamp::option")]
    #[cfg_attr(feature = "schemars", schemars(with = "Option<crate::basics::timestamp::Rfc3339Millis>"))]
    pub release_at: Option<DateTime<Utc>>,
    /// A refund's or claim's reason, as given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// A refund's source: the provider's id of the payment it gives money back from (the
    /// `providerRef` of the installments it refunds).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source_ref: Option<String>,
    /// Who is making the movement now, and until when: a second server (or a run after a
    /// crash) leaves it alone until the lease lapses, as with messages.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "schemars", schemars(skip))]
    pub lease: Option<Lease>,
    /// A refused installment's end of grace (`dueAt` + the frozen `graceHours`): unpaid then,
    /// it cancels its booking (`cancelReason` `payment_overdue`).
    #[serde(default, skip_serializing_if = "Option::is_none", with = "crate::basics::timestamp::option")]
    #[cfg_attr(feature = "schemars", schemars(skip))]
    pub overdue_at: Option<DateTime<Utc>>,
    /// On a booking's first installment: the payment settings it was made
    /// under (the booking's frozen plan, one record fewer a creation).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "schemars", schemars(skip))]
    pub(crate) plan: Option<FrozenSettings>,
}

impl PaymentRecord {
    /// A new record of `kind` number `number` for `booking`, with its fixed id and key.
    pub fn new(booking: &Booking, kind: PaymentKind, number: u32, amount: Cents, status: PaymentState) -> Self {
        let letter = match kind {
            PaymentKind::Installment => 'i',
            PaymentKind::Deposit => 'd',
            PaymentKind::Refund => 'r',
        };
        let id = format!("pay_{}_{letter}{number}", booking.code);
        PaymentRecord {
            idempotency_key: format!("rental-{id}"),
            id,
            property: booking.property.clone(),
            booking: booking.code.clone(),
            kind,
            number,
            amount,
            currency: booking.currency.clone(),
            status,
            due_at: None,
            at: None,
            provider_ref: None,
            error: None,
            attempts: 0,
            release_at: None,
            reason: None,
            source_ref: None,
            lease: None,
            overdue_at: None,
            plan: None,
        }
    }

    /// Marks a refused try (`failed`, with the provider's `error`) and gives
    /// the next try an idempotency key of its own: a provider answers a key
    /// it has seen with its first answer, so a new card needs a new key.
    pub fn retry(&mut self, error: impl Into<String>, at: DateTime<Utc>) {
        self.attempts += 1;
        self.status = PaymentState::Failed;
        self.error = Some(error.into());
        self.at = Some(at);
        self.idempotency_key = format!("rental-{}-{}", self.id, self.attempts);
    }

    /// A refused installment's end of grace: `grace_hours` after its instant (`dueAt`), however
    /// it was refused (charged off-session, or paid and refused on the stay page); `None` for
    /// a record that is not an installment or has no instant.
    pub fn end_of_grace(&self, grace_hours: u32) -> Option<DateTime<Utc>> {
        let instant = self.due_at.filter(|_| self.kind == PaymentKind::Installment)?;
        Some(instant + chrono::TimeDelta::hours(grace_hours.into()))
    }

    /// The instant its next step falls due, if it has one: a scheduled or
    /// due movement's `dueAt` (a refund to issue: at once), a held
    /// deposit's release; while it is leased, not before the lease lapses.
    pub fn next_step_at(&self) -> Option<DateTime<Utc>> {
        let next = match (self.status, self.kind) {
            (PaymentState::Scheduled | PaymentState::Due, _) => Some(self.due_at.unwrap_or(DateTime::<Utc>::MIN_UTC)),
            (PaymentState::Authorized, PaymentKind::Deposit) => self.release_at,
            (PaymentState::Failed, PaymentKind::Installment) => self.overdue_at,
            _ => None,
        }?;
        Some(lease::not_before(self.lease.as_ref(), next))
    }
}

/// Marks what a cancelled booking will no longer pay `canceled` (installments
/// and a deposit hold not yet made: `scheduled`, `due`, `failed`), at `now`;
/// returns the records it changed. Held money (`authorized`) and refunds are
/// the provider side's to release or issue: a deposit hold's release falls due at once.
pub fn cancel_unpaid(records: &mut [PaymentRecord], now: DateTime<Utc>) -> Vec<PaymentRecord> {
    let mut changed = Vec::new();
    for r in records.iter_mut().filter(|r| r.kind != PaymentKind::Refund) {
        if matches!(r.status, PaymentState::Scheduled | PaymentState::Due | PaymentState::Failed) {
            (r.status, r.at) = (PaymentState::Canceled, Some(now));
            changed.push(r.clone());
        } else if r.kind == PaymentKind::Deposit && r.status == PaymentState::Authorized {
            // A deposit hold has nothing left to secure: released at once, not after check-out.
            r.release_at = Some(now);
            changed.push(r.clone());
        }
    }
    changed
}

/// The key prefix of a booking's payment records.
pub fn booking_prefix(slug: &str, code: &str) -> String {
    format!("{slug}/{code}/")
}

/// The payment settings a booking was made under, frozen on it: later
/// edits of the property do not change them. Stored on the booking's first
/// installment; under `{slug}/{code}` for a booking without one, or made
/// before they moved there.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct PaymentPlan {
    /// The property.
    pub property: Slug,
    /// The booking.
    pub booking: BookingCode,
    /// The settings as they were when the booking was made.
    #[serde(flatten)]
    pub settings: FrozenSettings,
}

/// [`PaymentSettings`] in a plan's JSON.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct FrozenSettings {
    /// See [`PaymentSettings::instant_booking`].
    pub instant_booking: bool,
    /// See [`PaymentSettings::terms`].
    pub payment_terms: crate::properties::payment_settings::PaymentTerms,
    /// See [`PaymentSettings::security_deposit`].
    pub security_deposit: Option<crate::properties::payment_settings::SecurityDeposit>,
    /// See [`PaymentSettings::cancellation_policy`].
    pub cancellation_policy: crate::properties::payment_settings::CancellationPolicy,
}

impl From<&PaymentSettings> for FrozenSettings {
    fn from(s: &PaymentSettings) -> Self {
        FrozenSettings {
            instant_booking: s.instant_booking,
            payment_terms: s.terms.clone(),
            security_deposit: s.security_deposit,
            cancellation_policy: s.cancellation_policy.clone(),
        }
    }
}

impl From<FrozenSettings> for PaymentSettings {
    fn from(f: FrozenSettings) -> Self {
        PaymentSettings {
            instant_booking: f.instant_booking,
            terms: f.payment_terms,
            security_deposit: f.security_deposit,
            cancellation_policy: f.cancellation_policy,
        }
    }
}

/// A payment record as the API shows it (`GET /api/v1/bookings/{code}/payments`):
/// what moved, when and where it is; not the provider's idempotency key.
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct PaymentView {
    /// `pay_BK-7QX2MF_i1`, fixed per movement.
    pub id: String,
    /// `installment`, `deposit` or `refund`.
    pub kind: PaymentKind,
    /// 1, 2, ... within its kind.
    pub number: u32,
    /// In the minor unit of `currency`; positive (a refund's too).
    pub amount: Cents,
    /// The booking's currency.
    pub currency: String,
    /// Where it is.
    pub status: PaymentState,
    /// When it falls due (an installment, a deposit's hold); null for a refund.
    #[serde(default, with = "crate::basics::timestamp::option")]
    #[cfg_attr(feature = "schemars", schemars(with = "Option<crate::basics::timestamp::Rfc3339Millis>"))]
    pub due_at: Option<DateTime<Utc>>,
    /// When it last moved (held, paid, refused, released, refunded); null until then.
    #[serde(default, with = "crate::basics::timestamp::option")]
    #[cfg_attr(feature = "schemars", schemars(with = "Option<crate::basics::timestamp::Rfc3339Millis>"))]
    pub at: Option<DateTime<Utc>>,
    /// The payment provider's id of the movement, once made; null before.
    pub provider_ref: Option<String>,
    /// Why the provider refused it, when it did; null otherwise.
    pub error: Option<String>,
}

impl From<&PaymentRecord> for PaymentView {
    fn from(r: &PaymentRecord) -> Self {
        PaymentView {
            id: r.id.clone(),
            kind: r.kind,
            number: r.number,
            amount: r.amount,
            currency: r.currency.clone(),
            status: r.status,
            due_at: r.due_at,
            at: r.at,
            provider_ref: r.provider_ref.clone(),
            error: r.error.clone(),
        }
    }
}

impl PaymentSummary {
    /// The summary of `records` for a booking that is (`active`) or is not cancelled.
    pub fn of(records: &[PaymentRecord], active: bool) -> Self {
        let t = Totals::of(records);
        PaymentSummary {
            amount_paid: t.paid,
            amount_refunded: t.refunded,
            balance_due: if active { t.due } else { 0 },
            next_payment_at: t.next_payment_at.filter(|_| active),
        }
    }
}

/// The sums of a booking's ledger, as its body shows them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Totals {
    /// Installments that succeeded.
    pub paid: Cents,
    /// Refunds that succeeded.
    pub refunded: Cents,
    /// Installments not yet paid and not canceled.
    pub due: Cents,
    /// The earliest instant of an unpaid installment.
    pub next_payment_at: Option<DateTime<Utc>>,
}

impl Totals {
    /// The sums of `records`.
    pub fn of(records: &[PaymentRecord]) -> Self {
        let mut t = Totals::default();
        for r in records {
            match (r.kind, r.status) {
                (PaymentKind::Installment, PaymentState::Succeeded) => t.paid += r.amount,
                (PaymentKind::Refund, PaymentState::Succeeded) => t.refunded += r.amount,
                (
                    PaymentKind::Installment,
                    PaymentState::Scheduled | PaymentState::Due | PaymentState::Failed | PaymentState::Authorized,
                ) => {
                    t.due += r.amount;
                    if let (true, Some(due_at)) = (r.status != PaymentState::Authorized, r.due_at) {
                        t.next_payment_at = Some(t.next_payment_at.map_or(due_at, |next| next.min(due_at)));
                    }
                }
                _ => {}
            }
        }
        t
    }
}

/// Whether the deposit among a booking's `records` is held: `Some(true)` for
/// a card hold in place or already claimed from (a claim follows a hold),
/// `Some(false)` while scheduled, due, refused or once released; `None`
/// when the ledger has no deposit (docs/API.md section 24's access condition).
pub fn deposit_held(records: &[PaymentRecord]) -> Option<bool> {
    let deposit = records.iter().find(|r| r.kind == PaymentKind::Deposit)?;
    Some(matches!(deposit.status, PaymentState::Authorized | PaymentState::Claimed))
}
