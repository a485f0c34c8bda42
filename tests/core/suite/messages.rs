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

#[test]
fn on_memory_a_message_recorded_skipped_is_one_record_that_reads_as_the_two_it_was() {
    a_message_recorded_skipped_is_one_record_that_reads_as_the_two_it_was(rental_core::MemoryStore::new());
}

#[test]
fn on_redb_a_message_recorded_skipped_is_one_record_that_reads_as_the_two_it_was() {
    let dir = tempfile::tempdir().unwrap();
    a_message_recorded_skipped_is_one_record_that_reads_as_the_two_it_was(rental_tests::open_redb(dir.path()));
}

/// Without a mail server, a booking's messages due at once are recorded
/// skipped as one record each (no `message` record, no finished index); the
/// API's answer is byte for byte the one from the two records an earlier
/// build wrote (which stay readable), and retention removes both layouts.
fn a_message_recorded_skipped_is_one_record_that_reads_as_the_two_it_was<S: Store>(store: S) {
    use std::sync::Arc;

    use rental_core::message::finished::{self, FinishedMessage};
    use rental_core::message::stored::SkippedMessage;
    use rental_core::message::{Message, MessageView};
    use rental_core::{ReadRecords, WriteRecords, WriteTx};

    let clock = Arc::new(rental_core::ManualClock::new(at("2026-11-22T08:00:00Z")));
    let settings = rental_core::Settings { mail_server: false, ..rental_core::Settings::default() };
    let rental = rental_core::Rental::new(store).with_clock(clock.clone()).with_settings(settings).unwrap();
    rental.import_properties(&rental_core::demo::properties()).unwrap();
    let mut codes = Vec::new();
    for (check_in, check_out) in [("2026-12-20", "2026-12-23"), ("2027-01-10", "2027-01-12")] {
        let code = rental.create_booking(&new_booking("sea-view", check_in, check_out, 2), None).unwrap().booking.code;
        rental.update_booking(code.as_str(), &Action::Confirm).unwrap();
        codes.push(code.to_string());
    }
    let answer = |code: &str| {
        let views: Vec<MessageView> = rental.messages(code).unwrap().iter().map(MessageView::from).collect();
        serde_json::to_string(&views).unwrap()
    };
    let prefix = |code: &str| format!("sea-view/{code}/");
    let read = rental.store().read().unwrap();
    let skipped: Vec<SkippedMessage> = read.list_all(&prefix(&codes[0])).unwrap();
    let kept: Vec<Message> = read.list_all(&prefix(&codes[0])).unwrap();
    assert_eq!(
        skipped.iter().map(|s| s.0.kind).collect::<Vec<_>>(),
        [MessageKind::RequestReceived, MessageKind::Confirmed]
    );
    assert_eq!(
        kinds(&kept),
        [
            (MessageKind::CheckInInstructions, MessageStatus::Scheduled),
            (MessageKind::CheckOutReminder, MessageStatus::Scheduled)
        ]
    );
    assert!(read.list_all::<FinishedMessage>(&prefix(&codes[0])).unwrap().is_empty(), "no finished index of its own");
    drop(read);

    let before = answer(&codes[0]);
    assert!(before.contains(r#""status":"skipped","dueAt":"2026-11-22T08:00:00.000Z","sentAt":null,"attempts":0,"error":"no_mail_server""#), "{before}");
    let mut tx = rental.store().write().unwrap();
    for SkippedMessage(m) in skipped {
        assert!(tx.remove::<SkippedMessage>(&m.key_of()).unwrap());
        tx.put(&m).unwrap();
        tx.put(&finished::of(&m, m.created_at).unwrap()).unwrap();
    }
    tx.commit().unwrap();
    assert_eq!(answer(&codes[0]), before, "as an earlier build stored them");

    clock.advance(TimeDelta::days(31));
    assert_eq!(rental.worker().prune().unwrap().messages, 4, "two of each booking, in either layout");
    for code in &codes {
        let left = rental.messages(code).unwrap();
        assert_eq!(
            kinds(&left),
            [
                (MessageKind::CheckInInstructions, MessageStatus::Scheduled),
                (MessageKind::CheckOutReminder, MessageStatus::Scheduled)
            ]
        );
        assert!(rental.store().read().unwrap().list_all::<SkippedMessage>(&prefix(code)).unwrap().is_empty());
    }
}
