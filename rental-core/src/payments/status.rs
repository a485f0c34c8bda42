//! A booking's `paymentStatus` as its ledger's sums say it (CONTRACT.md section 23,
//! States): `partially_paid` and `partially_refunded` come from the sums, never stored apart.

use crate::bookings::booking::{Booking, PaymentStatus};
use crate::bookings::payment_summary::PaymentSummary;
use crate::payments::ledger::PaymentRecord;

/// Puts a booking's ledger on its body: the sums of `records` (docs/API.md,
/// Payments) and the `paymentStatus` they give ([`derive_status`]). Every
/// write of a booking's ledger goes through here, so the two never disagree.
pub fn follow_ledger(booking: &mut Booking, records: &[PaymentRecord]) {
    booking.money = PaymentSummary::of(records, booking.is_active());
    booking.payment_status = derive_status(booking.payment_status, &booking.money);
}

/// The payment status a booking shows, from its `current` one and its ledger's
/// sums. Refunds that succeeded decide first: less than was paid is
/// `partially_refunded`, all of it `refunded`. Otherwise, something paid with a
/// balance still due is `partially_paid`, and a `partially_paid` booking whose
/// balance is gone (paid up, or cancelled) is `paid`. Everything else keeps
/// `current`: a ledger with nothing paid says nothing (an `authorized` hold, an
/// `unpaid` request, a booking without a ledger), `expired` and `external` are
/// not the ledger's to change, and a cancellation's refund still to be issued
/// leaves the lifecycle's `refunded` until the provider answers.
///
/// ```
/// use rental_core::payments::{derive_status, PaymentSummary};
/// use rental_core::PaymentStatus;
///
/// let half = PaymentSummary { amount_paid: 500, balance_due: 500, ..Default::default() };
/// assert_eq!(derive_status(PaymentStatus::Paid, &half), PaymentStatus::PartiallyPaid);
/// ```
pub fn derive_status(current: PaymentStatus, money: &PaymentSummary) -> PaymentStatus {
    use PaymentStatus::{Authorized, Expired, External, Paid, PartiallyPaid, PartiallyRefunded, Refunded, Unpaid};
    let (paid, refunded, due) = (money.amount_paid, money.amount_refunded, money.balance_due);
    if matches!(current, Expired | External) {
        current
    } else if refunded > 0 {
        if refunded < paid { PartiallyRefunded } else { Refunded }
    } else if paid > 0 && due > 0 {
        PartiallyPaid
    } else if paid > 0 && matches!(current, PartiallyPaid | PartiallyRefunded | Unpaid | Authorized) {
        Paid
    } else {
        current
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use PaymentStatus::{Authorized, Expired, External, Paid, PartiallyPaid, PartiallyRefunded, Refunded, Unpaid};

    fn sums(paid: i64, refunded: i64, due: i64) -> PaymentSummary {
        PaymentSummary { amount_paid: paid, amount_refunded: refunded, balance_due: due, next_payment_at: None }
    }

    #[test]
    fn the_ledger_decides_partial_states() {
        let cases = [
            // (current, paid, refunded, due) → expected
            (Unpaid, 0, 0, 1000, Unpaid),
            (Authorized, 0, 0, 1000, Authorized),
            (Paid, 0, 0, 0, Paid), // no ledger: the lifecycle's word stands
            (Paid, 400, 0, 600, PartiallyPaid),
            (Authorized, 400, 0, 600, PartiallyPaid),
            (Unpaid, 400, 0, 600, PartiallyPaid), // the second installment failed, the first stands
            (PartiallyPaid, 1000, 0, 0, Paid),
            (Unpaid, 1000, 0, 0, Paid),
            (Paid, 1000, 0, 0, Paid),
            (Refunded, 1000, 0, 0, Refunded), // cancelled, the refund not yet issued
            (Paid, 1000, 250, 0, PartiallyRefunded),
            (PartiallyPaid, 400, 100, 600, PartiallyRefunded),
            (Refunded, 1000, 250, 0, PartiallyRefunded),
            (PartiallyRefunded, 1000, 1000, 0, Refunded),
            (Paid, 1000, 1000, 0, Refunded),
            (Expired, 0, 0, 0, Expired),
            (External, 0, 0, 0, External),
        ];
        for (current, paid, refunded, due, expected) in cases {
            assert_eq!(
                derive_status(current, &sums(paid, refunded, due)),
                expected,
                "{current:?} {paid} {refunded} {due}"
            );
        }
    }

    #[test]
    fn the_new_states_have_their_contract_names() {
        assert_eq!(serde_json::to_value(PartiallyPaid).unwrap(), "partially_paid");
        assert_eq!(serde_json::to_value(PartiallyRefunded).unwrap(), "partially_refunded");
        assert_eq!(PartiallyRefunded.to_string(), "partially_refunded");
    }
}
