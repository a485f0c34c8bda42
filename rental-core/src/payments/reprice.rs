//! A changed booking's ledger (docs/API.md section 23): its unpaid installments re-priced
//! for the new total with the shares they had, and what was paid beyond it to refund.
//! A pure function of the records; the change's transaction writes what it returns.

use chrono::{DateTime, Utc};

use super::ledger::{PaymentKind, PaymentRecord, PaymentState};
use crate::basics::money::Cents;
use crate::bookings::booking::Booking;

/// What a change of total does to a ledger.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Repriced {
    /// Records changed or added (installments re-priced, cancelled or added).
    pub changed: Vec<PaymentRecord>,
    /// Paid (or held) beyond the new total: to refund.
    pub overpaid: Cents,
}

/// `records` re-priced for `booking`'s new total at `now`. What is paid or held stays; the
/// rest of the total is split over the unpaid installments (`scheduled`, `due`, `failed`)
/// in proportion to their amounts so far (their shares), each rounded half away from zero
/// and the last taking the rest, so the ledger sums to the total exactly. With nothing
/// unpaid left, a rise is one new installment due now; a fall below what was paid cancels
/// the unpaid ones and the difference is `overpaid`.
pub fn reprice(booking: &Booking, records: &[PaymentRecord], now: DateTime<Utc>) -> Repriced {
    let installments = records.iter().filter(|r| r.kind == PaymentKind::Installment);
    let settled: Cents = installments
        .clone()
        .filter(|r| matches!(r.status, PaymentState::Succeeded | PaymentState::Authorized))
        .map(|r| r.amount)
        .sum();
    let unpaid: Vec<&PaymentRecord> = installments
        .clone()
        .filter(|r| matches!(r.status, PaymentState::Scheduled | PaymentState::Due | PaymentState::Failed))
        .collect();
    let rest = booking.total - settled;
    let mut out = Repriced::default();
    if rest <= 0 {
        for r in unpaid {
            let mut r = r.clone();
            (r.status, r.at) = (PaymentState::Canceled, Some(now));
            out.changed.push(r);
        }
        out.overpaid = -rest;
        return out;
    }
    if unpaid.is_empty() {
        let number = installments.map(|r| r.number).max().unwrap_or(0) + 1;
        let mut added = PaymentRecord::new(booking, PaymentKind::Installment, number, rest, PaymentState::Due);
        added.due_at = Some(now);
        out.changed.push(added);
        return out;
    }
    let weight: i128 = unpaid.iter().map(|r| i128::from(r.amount)).sum::<i128>().max(1);
    let mut allotted = 0;
    for (i, r) in unpaid.iter().enumerate() {
        let amount = if i + 1 == unpaid.len() {
            rest - allotted
        } else {
            let exact = i128::from(rest) * i128::from(r.amount);
            Cents::try_from((2 * exact + weight) / (2 * weight)).unwrap_or(0)
        };
        allotted += amount;
        if amount != r.amount {
            let mut r = (*r).clone();
            r.amount = amount;
            out.changed.push(r);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ledger(b: &Booking, parts: &[(Cents, PaymentState)]) -> Vec<PaymentRecord> {
        (1..).zip(parts).map(|(n, (a, s))| PaymentRecord::new(b, PaymentKind::Installment, n, *a, *s)).collect()
    }

    fn now() -> DateTime<Utc> {
        "2026-11-25T10:00:00Z".parse().unwrap()
    }

    #[test]
    fn the_unpaid_installments_take_the_new_rest_in_their_shares() {
        let mut b = crate::demo::booking("BK-REP001", "2026-12-20", "2026-12-27");
        let records = ledger(
            &b,
            &[(5_000, PaymentState::Succeeded), (3_000, PaymentState::Scheduled), (2_000, PaymentState::Scheduled)],
        );
        b.total = 12_001;
        let r = reprice(&b, &records, now());
        // 7,001 split 3:2: 4,200.6 → 4,201, and the rest 2,800.
        assert_eq!(r.changed.iter().map(|c| (c.number, c.amount)).collect::<Vec<_>>(), [(2, 4_201), (3, 2_800)]);
        assert_eq!(r.overpaid, 0);
    }

    #[test]
    fn a_fall_below_what_was_paid_cancels_the_rest_and_refunds_the_difference() {
        let mut b = crate::demo::booking("BK-REP002", "2026-12-20", "2026-12-27");
        let records = ledger(&b, &[(5_000, PaymentState::Succeeded), (5_000, PaymentState::Failed)]);
        b.total = 4_000;
        let r = reprice(&b, &records, now());
        assert_eq!((r.changed.len(), r.changed[0].status, r.overpaid), (1, PaymentState::Canceled, 1_000));
    }

    #[test]
    fn a_rise_of_a_booking_paid_in_full_is_a_new_installment_due_now() {
        let mut b = crate::demo::booking("BK-REP003", "2026-12-20", "2026-12-27");
        let records = ledger(&b, &[(10_000, PaymentState::Succeeded)]);
        b.total = 12_500;
        let r = reprice(&b, &records, now());
        let added = &r.changed[0];
        assert_eq!(
            (added.number, added.amount, added.status, added.due_at),
            (2, 2_500, PaymentState::Due, Some(now()))
        );
    }
}
