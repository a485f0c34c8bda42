//! What a cancellation gives back: the share of the total a frozen
//! cancellation policy refunds on a given day, what the host keeps, and the
//! refund of what was paid. Pure functions, one rounding.

use chrono::{DateTime, NaiveDate, Utc};
use chrono_tz::Tz;

use super::ledger::{PaymentKind, PaymentRecord, PaymentState};
use crate::basics::money::Cents;
use crate::bookings::booking::{Booking, CancelledBy};
use crate::bookings::pricing::basis_points;
use crate::properties::payment_settings::{CancellationPolicy, WHOLE};
use crate::stays::occupancy::today_in;

/// When a guest cancels, measured the policy's way.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Cancellation {
    /// When the booking was made.
    pub created_at: DateTime<Utc>,
    /// When it is cancelled.
    pub at: DateTime<Utc>,
    /// The first night.
    pub check_in: NaiveDate,
    /// The property's time zone, where the cancellation's date is read.
    pub timezone: Tz,
}

impl Cancellation {
    /// Whole days from the cancellation's date (in the property's zone) to
    /// the check-in date; negative once the stay has begun.
    pub fn days_before_check_in(&self) -> i64 {
        (self.check_in - today_in(self.timezone, self.at)).num_days()
    }
}

/// The share of the total (basis points) `policy` refunds for a guest's
/// cancellation: 10000 inside the grace (within `graceHours` of creation,
/// with check-in at least `graceMinDaysBeforeCheckIn` days away); else that
/// of the checkpoint with the most days that `days ≥ daysBeforeCheckIn`
/// allows; else 0.
///
/// ```
/// use rental_core::payments::refund::{Cancellation, refund_share};
/// use rental_core::property::CancellationPolicy;
/// use rental_core::Tz;
///
/// let policy = CancellationPolicy::checkpoints(&[(30, 10_000), (7, 5_000)]);
/// let on = |date: &str| Cancellation {
///     created_at: "2026-01-01T00:00:00Z".parse().unwrap(),
///     at: format!("{date}T12:00:00Z").parse().unwrap(),
///     check_in: "2026-12-20".parse().unwrap(),
///     timezone: Tz::UTC,
/// };
/// assert_eq!(refund_share(&policy, &on("2026-11-10")), 10_000); // 40 days
/// assert_eq!(refund_share(&policy, &on("2026-11-30")), 5_000); // 20 days
/// assert_eq!(refund_share(&policy, &on("2026-12-17")), 0); // 3 days
/// ```
pub fn refund_share(policy: &CancellationPolicy, c: &Cancellation) -> u32 {
    let days = c.days_before_check_in();
    let min_days = i64::from(policy.grace_min_days_before_check_in.unwrap_or(0));
    let in_grace = policy
        .grace_hours
        .is_some_and(|hours| c.at - c.created_at <= chrono::TimeDelta::hours(hours.into()) && days >= min_days);
    if in_grace {
        return WHOLE;
    }
    // The checkpoint with the most days that the cancellation reaches.
    policy
        .refunds
        .iter()
        .filter(|cp| days >= i64::from(cp.days_before_check_in))
        .max_by_key(|cp| cp.days_before_check_in)
        .map_or(0, |cp| cp.share)
}

/// What the host keeps of `total` when `share` is refunded:
/// `total − round(total × share / 10000)`.
pub fn kept(total: Cents, share: u32) -> Cents {
    total - basis_points(total, share)
}

/// The refund owed when the host may keep `kept`, of `paid` with
/// `refunded` already given back: `max(0, paid − refunded − kept)`, never
/// more than what was paid and not refunded.
pub fn refund_owed(paid: Cents, refunded: Cents, kept: Cents) -> Cents {
    (paid - refunded - kept).clamp(0, (paid - refunded).max(0))
}

/// What may still be given back of a booking's ledger, per payment at the provider (the
/// `providerRef` of its paid installments), in installment order: each payment's paid
/// installments less the refunds made or on their way from it (a refund the provider
/// refused gave nothing back).
pub fn refundable(records: &[PaymentRecord]) -> Vec<(String, Cents)> {
    let mut sources: Vec<(String, Cents)> = Vec::new();
    for r in records.iter().filter(|r| r.kind == PaymentKind::Installment && r.status == PaymentState::Succeeded) {
        let Some(source) = &r.provider_ref else { continue };
        match sources.iter_mut().find(|(s, _)| s == source) {
            Some((_, amount)) => *amount += r.amount,
            None => sources.push((source.clone(), r.amount)),
        }
    }
    for r in records.iter().filter(|r| r.kind == PaymentKind::Refund && !gave_nothing(r.status)) {
        if let Some((_, amount)) = sources.iter_mut().find(|(s, _)| Some(s) == r.source_ref.as_ref()) {
            *amount -= r.amount;
        }
    }
    sources.retain(|(_, amount)| *amount > 0);
    sources
}

/// A refund in this state gave nothing back and never will.
fn gave_nothing(status: PaymentState) -> bool {
    matches!(status, PaymentState::Failed | PaymentState::Canceled)
}

/// The refund a cancellation of `booking` by `by` owes at `at` (the booking already
/// cancelled), from its ledger and frozen `policy`: a host's gives back all that is
/// refundable; a guest's or the system's (an overdue payment) keeps what the policy keeps;
/// a channel's moves nothing here.
pub fn on_cancellation(
    booking: &Booking,
    records: &[PaymentRecord],
    policy: &CancellationPolicy,
    by: CancelledBy,
    at: DateTime<Utc>,
    timezone: Tz,
) -> Cents {
    let left: Cents = refundable(records).iter().map(|(_, amount)| amount).sum();
    let kept = match by {
        CancelledBy::Host => 0,
        CancelledBy::Guest | CancelledBy::System => {
            let c = Cancellation { created_at: booking.created_at, at, check_in: booking.check_in(), timezone };
            kept(booking.total, refund_share(policy, &c))
        }
        CancelledBy::Channel => return 0,
    };
    let paid: Cents = records
        .iter()
        .filter(|r| r.kind == PaymentKind::Installment && r.status == PaymentState::Succeeded)
        .map(|r| r.amount)
        .sum();
    refund_owed(paid, paid - left, kept)
}

/// What a guest's cancellation now would give back, as the stay page shows it
/// before the guest confirms (docs/API.md section 24).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct RefundPreview {
    /// The share of the total the policy refunds now, in basis points.
    pub share: u32,
    /// What was paid and may still be given back (refunds made or on their way taken off).
    pub refundable: Cents,
    /// What the cancellation would refund: [`on_cancellation`]'s amount, the one the
    /// cancellation records, never more than [`RefundPreview::refundable`].
    pub refund: Cents,
}

/// The refund a guest's cancellation of `booking` at `at` would give, from its ledger and
/// frozen `policy`: the share for the wording and [`on_cancellation`]'s amount, so the page
/// shows what the cancellation then records.
pub fn preview(
    booking: &Booking,
    records: &[PaymentRecord],
    policy: &CancellationPolicy,
    at: DateTime<Utc>,
    timezone: Tz,
) -> RefundPreview {
    let c = Cancellation { created_at: booking.created_at, at, check_in: booking.check_in(), timezone };
    RefundPreview {
        share: refund_share(policy, &c),
        refundable: refundable(records).iter().map(|(_, amount)| amount).sum(),
        refund: on_cancellation(booking, records, policy, CancelledBy::Guest, at, timezone),
    }
}

/// The refund records that give back `amount` of `booking`'s ledger `records`, drawn from
/// its payments in order ([`refundable`]), numbered after its refunds so far, `due` (to
/// issue), with `reason`. Nothing when `amount` is 0; never more than is refundable.
pub fn records_for(booking: &Booking, records: &[PaymentRecord], amount: Cents, reason: &str) -> Vec<PaymentRecord> {
    let mut number = records.iter().filter(|r| r.kind == PaymentKind::Refund).map(|r| r.number).max().unwrap_or(0);
    let mut left = amount;
    let mut out = Vec::new();
    for (source, available) in refundable(records) {
        if left <= 0 {
            break;
        }
        let part = left.min(available);
        left -= part;
        number += 1;
        let mut record = PaymentRecord::new(booking, PaymentKind::Refund, number, part, PaymentState::Due);
        (record.source_ref, record.reason) = (Some(source), Some(reason.to_owned()));
        out.push(record);
    }
    out
}

/// Why a goodwill refund is refused; nothing is refunded.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum GoodwillError {
    /// Less than 1 minor unit.
    #[error("must be at least 1 (in the currency's minor unit)")]
    NotPositive,
    /// More than was paid and not refunded (`left`, refunds on their way counted).
    #[error("is more than was paid and not refunded ({left})")]
    MoreThanLeft {
        /// What may still be refunded.
        left: Cents,
    },
}

/// The records of a goodwill refund of `amount` (`POST .../refunds`): at most what was paid
/// and not refunded, else refused, and nothing is refunded.
pub fn goodwill(
    booking: &Booking,
    records: &[PaymentRecord],
    amount: Cents,
    reason: &str,
) -> Result<Vec<PaymentRecord>, GoodwillError> {
    let left: Cents = refundable(records).iter().map(|(_, amount)| amount).sum();
    if amount < 1 {
        return Err(GoodwillError::NotPositive);
    }
    if amount > left {
        return Err(GoodwillError::MoreThanLeft { left });
    }
    Ok(records_for(booking, records, amount, reason))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::properties::payment_settings::CancellationPolicy;

    fn cancel(created: &str, at: &str, check_in: &str, tz: Tz) -> Cancellation {
        Cancellation {
            created_at: created.parse().unwrap(),
            at: at.parse().unwrap(),
            check_in: check_in.parse().unwrap(),
            timezone: tz,
        }
    }

    #[test]
    fn checkpoints_give_their_share_from_their_day_on() {
        let policy = CancellationPolicy::checkpoints(&[(7, 5_000), (30, 10_000)]);
        let cases = [
            ("2026-11-20T12:00:00Z", 10_000), // 30 days
            ("2026-11-21T12:00:00Z", 5_000),  // 29 days
            ("2026-12-13T12:00:00Z", 5_000),  // 7 days
            ("2026-12-14T12:00:00Z", 0),      // 6 days
            ("2026-12-21T12:00:00Z", 0),      // the stay has begun
        ];
        for (at, want) in cases {
            assert_eq!(refund_share(&policy, &cancel("2026-01-01T00:00:00Z", at, "2026-12-20", Tz::UTC)), want, "{at}");
        }
    }

    #[test]
    fn the_cancellations_date_is_the_propertys() {
        let policy = CancellationPolicy::checkpoints(&[(7, 10_000)]);
        // 23:30 UTC on the 12th is already the 13th in Tokyo: 7 days, not 8 — still refunded;
        // 15:30 UTC on the 13th is the 14th in Tokyo: 6 days.
        let c = |at: &str| cancel("2026-01-01T00:00:00Z", at, "2026-12-20", Tz::Asia__Tokyo);
        assert_eq!(refund_share(&policy, &c("2026-12-12T23:30:00Z")), 10_000);
        assert_eq!(refund_share(&policy, &c("2026-12-13T15:30:00Z")), 0);
    }

    #[test]
    fn the_grace_refunds_everything_soon_after_booking_for_a_stay_far_enough_away() {
        let policy = CancellationPolicy::checkpoints(&[(30, 10_000)]).grace(48, 14);
        let created = "2026-11-22T08:00:00Z";
        assert_eq!(refund_share(&policy, &cancel(created, "2026-11-24T08:00:00Z", "2026-12-20", Tz::UTC)), 10_000);
        assert_eq!(refund_share(&policy, &cancel(created, "2026-11-24T08:00:01Z", "2026-12-20", Tz::UTC)), 0);
        assert_eq!(refund_share(&policy, &cancel(created, "2026-11-23T08:00:00Z", "2026-12-05", Tz::UTC)), 0);
        assert_eq!(
            refund_share(&CancellationPolicy::checkpoints(&[]), &cancel(created, created, "2026-12-20", Tz::UTC)),
            0
        );
    }

    #[test]
    fn the_refund_is_what_was_paid_beyond_what_is_kept() {
        assert_eq!(kept(134_288, 5_000), 67_144);
        assert_eq!(kept(1_001, 5_000), 500, "one rounding: 500.5 refunded is 501");
        assert_eq!(refund_owed(67_144, 0, 67_144), 0);
        assert_eq!(refund_owed(134_288, 0, 67_144), 67_144);
        assert_eq!(refund_owed(50_000, 0, 67_144), 0, "paid less than is kept: nothing back");
        assert_eq!(refund_owed(134_288, 100_000, 0), 34_288, "never more than is left to refund");
        assert_eq!(refund_owed(10, 20, 0), 0);
    }
}
