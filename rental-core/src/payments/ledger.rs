//! The payment ledger: one stored record per movement of money (an
//! installment, a deposit hold, a refund), and the frozen plan of a booking.
//!
//! Records are written in the same store transaction as the booking change
//! they belong to ([`write_schedule`] at creation; [`WriteRecords::put`] for
//! a change of one record), under the booking (`{slug}/{code}/...`), and are
//! found again with [`records_of`]. A payment provider finds the movements
//! it has to make through the time index ([`ReadRecords::due`]): a record's
//! [`Record::at`] is the instant its next step falls due.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use super::schedule::{PlannedInstallment, StayClock, deposit_instants, installments};
use crate::basics::ids::{BookingCode, Slug};
use crate::basics::money::Cents;
use crate::bookings::booking::Booking;
use crate::properties::payment_settings::PaymentSettings;
use crate::store::{ReadRecords, Record, RecordKind, StoreResult, WriteRecords};

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

    /// The instant its next step falls due, if it has one: a scheduled or
    /// due movement's `dueAt` (a refund to issue: at once), a held
    /// deposit's release.
    pub fn next_step_at(&self) -> Option<DateTime<Utc>> {
        match (self.status, self.kind) {
            (PaymentState::Scheduled | PaymentState::Due, _) => Some(self.due_at.unwrap_or(DateTime::<Utc>::MIN_UTC)),
            (PaymentState::Authorized, PaymentKind::Deposit) => self.release_at,
            _ => None,
        }
    }
}

/// Payment records under their booking, `{slug}/{code}/{id}`, found by
/// their next step ([`PaymentRecord::next_step_at`]).
impl Record for PaymentRecord {
    const KIND: RecordKind = RecordKind { name: "payment", per_property: true };

    fn key(&self) -> String {
        format!("{}{}", booking_prefix(self.property.as_str(), self.booking.as_str()), self.id)
    }

    fn at(&self) -> Option<DateTime<Utc>> {
        self.next_step_at()
    }
}

/// The key prefix of a booking's payment records.
pub fn booking_prefix(slug: &str, code: &str) -> String {
    format!("{slug}/{code}/")
}

/// The payment settings a booking was made under, frozen on it: later
/// edits of the property do not change them. Stored under `{slug}/{code}`.
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

impl Record for PaymentPlan {
    const KIND: RecordKind = RecordKind { name: "payment_plan", per_property: true };

    fn key(&self) -> String {
        format!("{}/{}", self.property, self.booking)
    }
}

/// Writes, in the caller's transaction, the frozen plan of a booking just
/// made and its schedule: the installments of its total (the first `due`,
/// later ones `scheduled`), and the deposit's hold, if the settings take one.
/// Returns the records written.
pub fn write_schedule<T: WriteRecords + ?Sized>(
    tx: &mut T,
    booking: &Booking,
    settings: &PaymentSettings,
    clock: &StayClock,
    now: DateTime<Utc>,
) -> StoreResult<Vec<PaymentRecord>> {
    let plan =
        PaymentPlan { property: booking.property.clone(), booking: booking.code.clone(), settings: settings.into() };
    tx.put(&plan)?;
    let mut written = Vec::new();
    for PlannedInstallment { number, amount, due_at } in installments(booking.total, &settings.terms, clock, now) {
        let status = if due_at <= now { PaymentState::Due } else { PaymentState::Scheduled };
        let mut record = PaymentRecord::new(booking, PaymentKind::Installment, number, amount, status);
        record.due_at = Some(due_at);
        written.push(record);
    }
    if let Some(deposit) = &settings.security_deposit {
        let (hold, release) = deposit_instants(deposit, clock, now);
        let status = if hold <= now { PaymentState::Due } else { PaymentState::Scheduled };
        let mut record = PaymentRecord::new(booking, PaymentKind::Deposit, 1, deposit.amount, status);
        (record.due_at, record.release_at) = (Some(hold), Some(release));
        written.push(record);
    }
    for record in &written {
        tx.put(record)?;
    }
    Ok(written)
}

/// A booking's payment records: installments by number, then the deposit,
/// then refunds by number.
pub fn records_of<T: ReadRecords + ?Sized>(tx: &T, slug: &str, code: &str) -> StoreResult<Vec<PaymentRecord>> {
    let mut records: Vec<PaymentRecord> = tx.list_all(&booking_prefix(slug, code))?;
    records.sort_by_key(|r| (r.kind as u8, r.number));
    Ok(records)
}

/// The frozen payment settings of a booking; `None` for one made before
/// payments, or imported from a channel.
pub fn plan_of<T: ReadRecords + ?Sized>(tx: &T, slug: &str, code: &str) -> StoreResult<Option<PaymentSettings>> {
    Ok(tx.get::<PaymentPlan>(&format!("{slug}/{code}"))?.map(|p| p.settings.into()))
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
