//! Guest message records on every store (docs/API.md section 21): made in
//! the transaction of the change that causes them, leased by one sender at
//! a time, recorded, and timed by the store's time index.

use std::time::Duration;

use chrono::TimeDelta;
use rental_core::message::{MessageKind, MessageStatus, Outcome};
use rental_core::{Action, Store};
use rental_tests::{Harness, at, new_booking, store_suite};

store_suite!(
    a_booking_records_its_messages_with_each_change,
    one_sender_at_a_time_holds_a_message_until_it_is_recorded,
    timed_messages_fall_due_by_the_store_time_index,
);

fn kinds(ms: &[rental_core::message::Message]) -> Vec<(MessageKind, MessageStatus)> {
    ms.iter().map(|m| (m.kind, m.status)).collect()
}

fn a_booking_records_its_messages_with_each_change<S: Store>(h: &Harness<S>) {
    let code = h.create_booking(&new_booking("sea-view", "2026-12-20", "2026-12-23", 2), None).unwrap().booking.code;
    let code = code.as_str();
    assert_eq!(kinds(&h.messages(code).unwrap()), [(MessageKind::RequestReceived, MessageStatus::Scheduled)]);
    h.update_booking(code, &Action::Confirm).unwrap();
    h.update_booking(code, &Action::Cancel { by: rental_core::lifecycle::Party::Guest, reason: None }).unwrap();
    let all = h.messages(code).unwrap();
    assert_eq!(
        kinds(&all),
        [
            (MessageKind::RequestReceived, MessageStatus::Scheduled),
            (MessageKind::Confirmed, MessageStatus::Scheduled),
            (MessageKind::CheckInInstructions, MessageStatus::Cancelled),
            (MessageKind::CheckOutReminder, MessageStatus::Cancelled),
            (MessageKind::Cancelled, MessageStatus::Scheduled),
        ]
    );
    assert_eq!(all[2].due_at, at("2026-12-18T15:00:00Z"));
}

fn one_sender_at_a_time_holds_a_message_until_it_is_recorded<S: Store>(h: &Harness<S>) {
    let code = h.create_booking(&new_booking("sea-view", "2026-12-20", "2026-12-23", 2), None).unwrap().booking.code;
    let ops = h.worker();
    let a = ops.claim_messages("sender-a", 10, Duration::from_secs(60)).unwrap();
    assert_eq!(a.send.len(), 1);
    assert!(ops.claim_messages("sender-b", 10, Duration::from_secs(60)).unwrap().send.is_empty(), "leased to a");
    h.clock.advance(TimeDelta::seconds(61));
    let b = ops.claim_messages("sender-b", 10, Duration::from_secs(60)).unwrap();
    assert_eq!(b.send.len(), 1, "a's lease lapsed: b may send it");
    let sent = ops.record_messages(&[(b.send[0].message.clone(), Outcome::Sent, h.now())], &[]).unwrap();
    assert_eq!((sent[0].status, sent[0].lease.as_ref()), (MessageStatus::Sent, None));
    assert!(ops.claim_messages("sender-a", 10, Duration::from_secs(60)).unwrap().send.is_empty(), "sent is done");
    assert_eq!(h.messages(code.as_str()).unwrap()[0].sent_at, Some(h.now()));
}

fn timed_messages_fall_due_by_the_store_time_index<S: Store>(h: &Harness<S>) {
    let code = h.create_booking(&new_booking("sea-view", "2026-12-20", "2026-12-23", 2), None).unwrap().booking.code;
    h.update_booking(code.as_str(), &Action::Confirm).unwrap();
    let ops = h.worker();
    for _ in 0..2 {
        let claim = ops.claim_messages("sender", 10, Duration::from_secs(60)).unwrap();
        let done: Vec<_> = claim.send.into_iter().map(|c| (c.message, Outcome::Sent, h.now())).collect();
        ops.record_messages(&done, &[]).unwrap();
    }
    assert!(ops.claim_messages("sender", 10, Duration::from_secs(60)).unwrap().send.is_empty());
    h.set_now("2026-12-18T14:59:59Z");
    assert!(ops.claim_messages("sender", 10, Duration::from_secs(60)).unwrap().send.is_empty(), "a second early");
    h.set_now("2026-12-18T15:00:00Z");
    let claim = ops.claim_messages("sender", 10, Duration::from_secs(60)).unwrap();
    assert_eq!(claim.send.iter().map(|c| c.message.kind).collect::<Vec<_>>(), [MessageKind::CheckInInstructions]);
}

/// Without a mail server (`Settings::mail_server: false`), what is due at
/// once is recorded skipped in the booking's own write, with no sender
/// running; what is due later waits, in case a mail server is set by then.
#[test]
fn without_a_mail_server_messages_due_at_once_are_skipped_as_they_are_made() {
    use std::sync::Arc;
    let clock = Arc::new(rental_core::ManualClock::new(at("2026-11-22T08:00:00Z")));
    let settings = rental_core::Settings { mail_server: false, ..rental_core::Settings::default() };
    let rental =
        rental_core::Rental::new(rental_core::MemoryStore::new()).with_clock(clock).with_settings(settings).unwrap();
    rental.import_properties(&rental_core::demo::properties()).unwrap();
    let code =
        rental.create_booking(&new_booking("sea-view", "2026-12-20", "2026-12-23", 2), None).unwrap().booking.code;
    rental.update_booking(code.as_str(), &Action::Confirm).unwrap();
    let all = rental.messages(code.as_str()).unwrap();
    assert_eq!(
        kinds(&all),
        [
            (MessageKind::RequestReceived, MessageStatus::Skipped),
            (MessageKind::Confirmed, MessageStatus::Skipped),
            (MessageKind::CheckInInstructions, MessageStatus::Scheduled),
            (MessageKind::CheckOutReminder, MessageStatus::Scheduled),
        ]
    );
    assert_eq!(all[0].error.as_deref(), Some("no_mail_server"));
}
