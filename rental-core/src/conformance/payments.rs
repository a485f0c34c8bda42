//! Conformance cases for the payment ledger: records written with the
//! booking change they belong to, read back by booking and found when due.

use chrono::{DateTime, Utc};

use crate::payments::schedule::StayClock;
use crate::payments::{PaymentKind, PaymentRecord, PaymentState};
use crate::properties::payment_settings::{PaymentSettings, PaymentTerms, SecurityDeposit};
use crate::service::payments::{plan_of, records_of, schedule};
use crate::store::{ReadRecords, ReadTx, Store, WriteRecords, WriteTx};
use crate::{Error, ManualClock, NewBooking, PaymentStatus, Rental, demo};

/// The ledger in the store: a booking's schedule is written in the
/// booking's own transaction (dropped uncommitted, neither is kept), read
/// back by booking in order, and found through the time index at its instants.
pub fn payment_records_are_written_with_their_booking_and_found_when_due<S: Store>(store: S) {
    let mut tx = store.write().unwrap();
    tx.put_property(&demo::sea_view()).unwrap();
    tx.commit().unwrap();
    let booking = demo::booking("BK-PAY001", "2027-04-01", "2027-04-08");
    let settings = PaymentSettings::default()
        .terms(PaymentTerms::split(&[(5_000, None), (5_000, Some(30))], 48))
        .deposit(SecurityDeposit::new(30_000));
    let clock = StayClock::of(&demo::sea_view(), booking.stay);
    let now = "2027-01-10T10:00:00Z".parse().unwrap();
    let write = |commit: bool| {
        let mut tx = store.write().unwrap();
        tx.put_booking(&booking).unwrap();
        let (plan, written) = schedule(&booking, &settings, &clock, now);
        assert!(plan.is_none(), "the plan rides on the first installment");
        for record in &written {
            tx.put(record).unwrap();
        }
        if commit {
            tx.commit().unwrap();
        }
        written
    };
    write(false);
    let read = store.read().unwrap();
    assert!(
        read.booking("BK-PAY001").unwrap().is_none() && records_of(&read, "sea-view", "BK-PAY001").unwrap().is_empty()
    );
    drop(read);
    let written = write(true);
    let read = store.read().unwrap();
    let records = records_of(&read, "sea-view", "BK-PAY001").unwrap();
    assert_eq!(records, written, "read back as written, installments then the deposit");
    let shape: Vec<_> = records.iter().map(|r| (r.kind, r.number, r.status)).collect();
    assert_eq!(
        shape,
        [
            (PaymentKind::Installment, 1, PaymentState::Due),
            (PaymentKind::Installment, 2, PaymentState::Scheduled),
            (PaymentKind::Deposit, 1, PaymentState::Scheduled),
        ]
    );
    assert_eq!(
        records.iter().filter(|r| r.kind == PaymentKind::Installment).map(|r| r.amount).sum::<i64>(),
        booking.total
    );
    assert!(plan_of(&read, "sea-view", "BK-PAY001").unwrap().is_some(), "the plan is frozen with them");
    // 30 days before 2027-04-01, at 15:00 in Lisbon (UTC+0 until 2027-03-28).
    let second: DateTime<Utc> = "2027-03-02T15:00:00Z".parse().unwrap();
    assert_eq!(records[1].due_at, Some(second));
    let due = |until: DateTime<Utc>| {
        let read = store.read().unwrap();
        read.due::<PaymentRecord>(until, 10).unwrap().iter().map(|r| r.id.clone()).collect::<Vec<_>>()
    };
    assert_eq!(due(now), ["pay_BK-PAY001_i1"]);
    assert_eq!(due(second), ["pay_BK-PAY001_i1", "pay_BK-PAY001_i2"]);
    drop(read);
    let mut paid = records[0].clone();
    paid.status = PaymentState::Succeeded;
    let mut tx = store.write().unwrap();
    tx.put(&paid).unwrap();
    tx.commit().unwrap();
    let read = store.read().unwrap();
    assert_eq!(due(second), ["pay_BK-PAY001_i2"], "a paid installment leaves the time index");
    assert!(records_of(&read, "sea-view", "BK-OTHER").unwrap().is_empty(), "another booking has none");
}

/// Through the engine: a booking is created with its schedule; a refused
/// creation and a failed ledger change write nothing; a ledger change
/// writes the record and the booking together.
pub fn the_engine_writes_a_schedule_with_each_booking_and_changes_it_with_the_booking<S: Store>(store: S) {
    let clock = std::sync::Arc::new(ManualClock::new("2026-11-22T08:00:00Z".parse().unwrap()));
    let rental = Rental::new(store).with_clock(clock);
    let mut sea_view = demo::sea_view();
    sea_view.payments = PaymentSettings::default().terms(PaymentTerms::split(&[(3_000, None), (7_000, Some(14))], 48));
    rental.import_properties(&[sea_view]).unwrap();
    let request = NewBooking {
        property: "sea-view".parse().expect("a slug"),
        check_in: "2026-12-20".parse().unwrap(),
        check_out: "2026-12-27".parse().unwrap(),
        guest_name: "Ada Lovelace".into(),
        guest_email: "ada@example.com".into(),
        guests: 3,
        children: 0,
        pets: 0,
        promo_code: None,
        locale: None,
        notes: None,
        source: None,
    };
    let booking = rental.create_booking(&request, None).unwrap().booking;
    let code = booking.code.as_str();
    let records = rental.payments(code).unwrap();
    let shape: Vec<_> = records.iter().map(|r| (r.number, r.amount, r.status)).collect();
    assert_eq!(shape, [(1, 40_286, PaymentState::Due), (2, 94_002, PaymentState::Scheduled)]);
    let again = rental.create_booking(&request, None);
    assert!(matches!(again, Err(Error::DatesUnavailable { .. })), "{again:?}");

    let refused: crate::Result<()> = rental.change_payments(code, |change| {
        change.records[0].status = PaymentState::Succeeded;
        change.booking.payment_status = PaymentStatus::Paid;
        Err(Error::invalid("amount", "invalid", "refused on purpose"))
    });
    assert!(refused.is_err());
    assert_eq!(rental.payments(code).unwrap(), records, "a failed change writes nothing");
    assert_eq!(rental.booking(code).unwrap().payment_status, PaymentStatus::Unpaid);
    rental
        .change_payments(code, |change| {
            change.records[0].status = PaymentState::Succeeded;
            change.records[0].at = Some(change.now);
            change.booking.payment_status = PaymentStatus::Authorized;
            Ok(())
        })
        .unwrap();
    // Written with its record: the ledger's sums (the first of two paid) decide the status.
    assert_eq!(rental.booking(code).unwrap().payment_status, PaymentStatus::PartiallyPaid, "changed with its record");
    let after = rental.payments(code).unwrap();
    assert_eq!(after[0].status, PaymentState::Succeeded);
    assert_eq!(after[1], records[1], "the others unchanged");
}
