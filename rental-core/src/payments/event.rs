//! The payment events of the webhook catalogue (docs/API.md, Payments): a
//! booking's envelope plus the payment record that moved and the sums after it.

use chrono::{DateTime, Utc};
use serde_json::{Value, json};

use super::ledger::{PaymentRecord, PaymentView};
use crate::bookings::booking::Booking;
use crate::bookings::event::{Event, EventName, envelope};

impl Event {
    /// A payment event (`booking.payment_authorized`, `booking.payment_succeeded`,
    /// `booking.payment_failed`, `booking.deposit_held`, `booking.deposit_released`,
    /// `booking.payment_refunded`):
    /// the envelope plus `payment`, the record as `GET .../payments` shows it,
    /// and the booking's `amountPaid` and `balanceDue` after it. The provider
    /// side emits them, with the ledger change, through `Rental::change_payments`.
    pub fn payment(event: EventName, b: &Booking, record: &PaymentRecord, at: DateTime<Utc>) -> Self {
        let mut data = envelope(b);
        data.insert("payment".into(), json!(PaymentView::from(record)));
        data.insert("amountPaid".into(), json!(b.money.amount_paid));
        data.insert("balanceDue".into(), json!(b.money.balance_due));
        Event { event, timestamp: at, data: Value::Object(data) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::payments::{PaymentKind, PaymentState};

    #[test]
    fn a_payment_event_carries_the_record_and_the_sums_after_it() {
        let mut b = crate::demo::booking("BK-PAY001", "2026-12-20", "2026-12-27");
        b.money.amount_paid = 40_286;
        let record = PaymentRecord::new(&b, PaymentKind::Installment, 1, 40_286, PaymentState::Succeeded);
        let e = Event::payment(EventName::PaymentSucceeded, &b, &record, b.created_at);
        assert_eq!(e.event.as_str(), "booking.payment_succeeded");
        assert_eq!(
            (e.data["payment"]["id"].as_str(), e.data["payment"]["amount"].as_i64()),
            (Some("pay_BK-PAY001_i1"), Some(40_286))
        );
        assert_eq!(e.data["amountPaid"], 40_286);
        assert!(e.data["payment"].get("idempotencyKey").is_none());
    }
}
