//! The store conformance suite (feature `conformance`): what every [`Store`]
//! must do, as tests any implementation runs with one macro call.
//!
//! ```ignore
//! // tests/conformance.rs of a crate with its own store
//! rental_core::store_conformance!(my_store, || Some((MyStore::open_temporary(), ())));
//! ```
//!
//! The closure opens a new, empty store for each test and returns it with
//! whatever must live as long as it (a temporary directory, say), or `None`
//! to skip the test (a database that is not there). Each test is a public
//! function here too, to call on its own.

// Tests: each panics on a broken promise, by design, and takes the store
// by value, as one of them hands it to the engine.
#![allow(clippy::missing_panics_doc, clippy::needless_pass_by_value)]

use chrono::{DateTime, TimeDelta, Utc};
use serde::{Deserialize, Serialize};

use crate::bookings::booking::{BookingQuery, NewBooking, Status};
use crate::bookings::calendar::{Block, EntryKind};
use crate::bookings::event::{Event, EventName};
use crate::outbox::delivery::{Attempt, ClaimLimits, Delivery, record};
use crate::store::{
    IdempotencyRecord, ReadRecords, ReadTx, Record, RecordKind, Store, StoreError, WriteRecords, WriteTx,
};
use crate::{Error, ManualClock, Rental, demo};

mod payments;
pub use payments::*;

/// Runs every conformance test, in a module `$name`, on the stores `$open`
/// makes: a closure returning `Some` new, empty store with a guard kept alive
/// beside it, or `None` to skip.
#[macro_export]
macro_rules! store_conformance {
    ($name:ident, $open:expr) => {
        $crate::store_conformance!(@tests $name, $open;
            a_record_is_found_by_its_key_replaced_and_removed,
            a_replaced_record_moves_in_the_time_index,
            a_scan_takes_the_prefix_from_after_the_cursor_in_key_order,
            due_records_come_earliest_first_then_by_key_and_kinds_stay_apart,
            a_write_dropped_without_commit_keeps_nothing,
            properties_read_back_by_slug_are_replaced_and_listed_in_slug_order,
            bookings_read_back_and_list_in_check_in_order,
            pending_bookings_hold_their_nights_and_are_counted,
            a_block_closes_nights_until_removed,
            the_outbox_numbers_events_in_order_and_marks_them_fanned_out,
            an_event_placed_under_its_number_is_followed_by_the_next,
            deliveries_fall_due_in_order_and_finished_ones_are_found_by_age,
            an_idempotency_key_is_recorded_once_and_found_by_age,
            a_claim_leases_due_deliveries_once_until_the_lease_lapses,
            the_engine_never_books_a_night_twice,
            payment_records_are_written_with_their_booking_and_found_when_due,
            the_engine_writes_a_schedule_with_each_booking_and_changes_it_with_the_booking,
        );
    };
    (@tests $name:ident, $open:expr; $($test:ident),* $(,)?) => {
        mod $name {
            #[allow(unused_imports)]
            use super::*;
            $(
                #[test]
                fn $test() {
                    let Some((store, _guard)) = ($open)() else { return };
                    $crate::conformance::$test(store);
                }
            )*
        }
    };
}

/// The instant the tests run at.
fn now() -> DateTime<Utc> {
    "2027-03-01T09:00:00Z".parse().unwrap_or_default()
}

/// A per-property kind of record, as guest messages are.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct Note {
    property: String,
    id: String,
    text: String,
    due: Option<DateTime<Utc>>,
}

impl Record for Note {
    const KIND: RecordKind = RecordKind { name: "conformance_note", per_property: true };
    fn key(&self) -> String {
        format!("{}/{}", self.property, self.id)
    }
    fn at(&self) -> Option<DateTime<Utc>> {
        self.due
    }
}

/// A kind that is no property's, with keys that could be a note's.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct Tag {
    key: String,
    due: Option<DateTime<Utc>>,
}

impl Record for Tag {
    const KIND: RecordKind = RecordKind { name: "conformance_tag", per_property: false };
    fn key(&self) -> String {
        self.key.clone()
    }
    fn at(&self) -> Option<DateTime<Utc>> {
        self.due
    }
}

fn note(property: &str, id: &str, due: Option<TimeDelta>) -> Note {
    Note { property: property.into(), id: id.into(), text: format!("note {id}"), due: due.map(|d| now() + d) }
}

fn put_all<S: Store>(store: &S, notes: &[Note]) {
    let mut tx = store.write().expect("a write");
    for n in notes {
        tx.put(n).expect("a record written");
    }
    tx.commit().expect("a commit");
}

fn keys<R: Record>(records: &[R]) -> Vec<String> {
    records.iter().map(Record::key).collect()
}

/// A record reads back by its key, is replaced by a put under the same key and is gone once removed.
pub fn a_record_is_found_by_its_key_replaced_and_removed<S: Store>(store: S) {
    let first = note("sea-view", "n1", None);
    put_all(&store, std::slice::from_ref(&first));
    let read = store.read().unwrap();
    assert_eq!(read.get::<Note>("sea-view/n1").unwrap(), Some(first.clone()));
    assert_eq!(read.get::<Note>("sea-view/n2").unwrap(), None);
    assert_eq!(read.get::<Tag>("sea-view/n1").unwrap(), None, "another kind's key space");
    drop(read);
    let replaced = Note { text: "changed".into(), ..first };
    put_all(&store, std::slice::from_ref(&replaced));
    assert_eq!(store.read().unwrap().get::<Note>("sea-view/n1").unwrap(), Some(replaced));
    assert_eq!(store.read().unwrap().list_all::<Note>("").unwrap().len(), 1, "replaced, not added");
    let mut tx = store.write().unwrap();
    assert!(tx.remove::<Note>("sea-view/n1").unwrap());
    assert!(!tx.remove::<Note>("sea-view/n1").unwrap(), "nothing left to remove");
    tx.commit().unwrap();
    assert_eq!(store.read().unwrap().get::<Note>("sea-view/n1").unwrap(), None);
}

/// Replacing a record moves it in the time index; a record without a time, or removed, leaves it.
pub fn a_replaced_record_moves_in_the_time_index<S: Store>(store: S) {
    put_all(
        &store,
        &[note("sea-view", "a", Some(TimeDelta::hours(1))), note("sea-view", "b", Some(TimeDelta::hours(2)))],
    );
    let due_in = |hours| keys(&store.read().unwrap().due::<Note>(now() + TimeDelta::hours(hours), 10).unwrap());
    assert_eq!(due_in(1), ["sea-view/a"]);
    put_all(&store, &[note("sea-view", "a", Some(TimeDelta::hours(3)))]);
    assert_eq!(due_in(2), ["sea-view/b"], "a moved later");
    assert_eq!(due_in(3), ["sea-view/b", "sea-view/a"]);
    put_all(&store, &[note("sea-view", "b", None)]);
    assert_eq!(due_in(3), ["sea-view/a"], "b left the index");
    let mut tx = store.write().unwrap();
    tx.remove::<Note>("sea-view/a").unwrap();
    tx.commit().unwrap();
    assert!(due_in(100).is_empty(), "a removed record leaves the index");
}

/// A scan takes the keys with its prefix after its cursor, in bytewise order, up to its limit.
pub fn a_scan_takes_the_prefix_from_after_the_cursor_in_key_order<S: Store>(store: S) {
    let mut notes: Vec<Note> = ["n3", "n1", "n10", "n2", "N9"].iter().map(|id| note("sea-view", id, None)).collect();
    notes.extend([note("sea", "n1", None), note("alpine-cabin", "n1", None), note("sea-view0", "n1", None)]);
    put_all(&store, &notes);
    let read = store.read().unwrap();
    let scan = |prefix: &str, after: &str, limit: usize| keys(&read.list::<Note>(prefix, after, limit).unwrap());
    let all = ["sea-view/N9", "sea-view/n1", "sea-view/n10", "sea-view/n2", "sea-view/n3"];
    assert_eq!(scan("sea-view/", "", 100), all, "bytewise: upper case first, n10 before n2");
    assert_eq!(scan("sea-view/", "", 2), all[..2]);
    assert_eq!(scan("sea-view/", "sea-view/n1", 2), all[2..4], "the next page starts after the cursor");
    assert!(scan("sea-view/", "sea-view/n3", 2).is_empty());
    assert_eq!(scan("sea-view/", "a", 100), all, "a cursor before the prefix starts at the prefix");
    assert!(scan("sea-view/", "z", 100).is_empty(), "a cursor past the prefix ends it");
    assert_eq!(scan("sea/", "", 100), ["sea/n1"]);
    assert_eq!(scan("", "", 100).len(), 8, "an empty prefix is the whole kind");
    assert_eq!(scan("", "sea-view/n3", 100), ["sea-view0/n1", "sea/n1"]);
    assert!(read.list::<Tag>("", "", 100).unwrap().is_empty(), "kinds stay apart");
}

/// Due records come by time, then key, up to and including `until`; each kind has its own index.
pub fn due_records_come_earliest_first_then_by_key_and_kinds_stay_apart<S: Store>(store: S) {
    let hour = |h| Some(TimeDelta::hours(h));
    put_all(
        &store,
        &[
            note("sea-view", "late", hour(5)),
            note("sea-view", "b", hour(1)),
            note("alpine-cabin", "z", hour(1)),
            note("sea-view", "a", hour(1)),
            note("sea-view", "never", None),
            note("sea-view", "past", hour(-48)),
        ],
    );
    let mut tx = store.write().unwrap();
    tx.put(&Tag { key: "sea-view/a".into(), due: Some(now() - TimeDelta::days(365)) }).unwrap();
    tx.commit().unwrap();
    let read = store.read().unwrap();
    let due = |hours: i64, limit| keys(&read.due::<Note>(now() + TimeDelta::hours(hours), limit).unwrap());
    assert_eq!(due(0, 10), ["sea-view/past"]);
    assert_eq!(due(1, 10), ["sea-view/past", "alpine-cabin/z", "sea-view/a", "sea-view/b"], "at, then key");
    assert_eq!(due(1, 2), ["sea-view/past", "alpine-cabin/z"]);
    assert_eq!(due(5, 10).len(), 5, "at `until` is due; no time is never due");
    assert_eq!(read.due::<Tag>(now(), 10).unwrap().len(), 1);
}

/// A write dropped without its commit leaves no record, booking or event, and every index as it was.
pub fn a_write_dropped_without_commit_keeps_nothing<S: Store>(store: S) {
    put_all(&store, &[note("sea-view", "kept", Some(TimeDelta::hours(1)))]);
    let mut tx = store.write().unwrap();
    for property in demo::properties() {
        tx.put_property(&property).unwrap();
    }
    tx.commit().unwrap();
    {
        let mut tx = store.write().unwrap();
        tx.put(&note("sea-view", "lost", Some(TimeDelta::hours(1)))).unwrap();
        tx.put(&Note { text: "changed".into(), ..note("sea-view", "kept", Some(TimeDelta::hours(9))) }).unwrap();
        let booking = demo::booking("BK-LOST01", "2027-04-01", "2027-04-03");
        tx.put_booking(&booking).unwrap();
        tx.append_events(&[Event::created(&booking, now())]).unwrap();
        assert!(tx.get::<Note>("sea-view/lost").unwrap().is_some(), "the write reads its own records");
        assert!(tx.booking("BK-LOST01").unwrap().is_some(), "and its own bookings");
    }
    let read = store.read().unwrap();
    assert_eq!(read.list_all::<Note>("").unwrap(), [note("sea-view", "kept", Some(TimeDelta::hours(1)))]);
    assert_eq!(keys(&read.due::<Note>(now() + TimeDelta::hours(1), 10).unwrap()), ["sea-view/kept"]);
    assert!(read.booking("BK-LOST01").unwrap().is_none());
    assert!(read.events_after(0, 10).unwrap().is_empty());
    let from = "2027-04-01".parse().unwrap();
    assert!(read.calendar("sea-view", from, "2027-04-03".parse().unwrap()).unwrap().is_empty());
}

/// A property reads back by its slug, active or not; a put under the same
/// slug replaces it; every property lists in bytewise slug order; records
/// of other kinds under the same keys stay apart.
pub fn properties_read_back_by_slug_are_replaced_and_listed_in_slug_order<S: Store>(store: S) {
    assert!(store.read().unwrap().properties().unwrap().is_empty());
    let mut properties = demo::properties();
    let mut tx = store.write().unwrap();
    for property in &properties {
        tx.put_property(property).unwrap();
    }
    tx.put(&Tag { key: "sea-view".into(), due: None }).unwrap();
    assert!(tx.property("sea-view").unwrap().is_some(), "the write reads its own properties");
    tx.commit().unwrap();
    properties.sort_by(|a, b| a.slug.as_str().cmp(b.slug.as_str()));
    assert_eq!(store.read().unwrap().properties().unwrap(), properties);

    let mut closed = properties.iter().find(|p| p.slug.as_str() == "sea-view").unwrap().clone();
    closed.active = false;
    closed.name = "Sea View, closed".into();
    let mut tx = store.write().unwrap();
    tx.put_property(&closed).unwrap();
    tx.commit().unwrap();
    let read = store.read().unwrap();
    assert_eq!(read.property("sea-view").unwrap(), Some(closed.clone()), "replaced, and kept while inactive");
    assert_eq!(read.property("sea").unwrap(), None);
    let listed = read.properties().unwrap();
    assert_eq!(listed.len(), properties.len(), "replaced, not added");
    assert!(listed.contains(&closed));
    assert_eq!(read.get::<Tag>("sea-view").unwrap().map(|t| t.key).as_deref(), Some("sea-view"));
}

fn with_properties<S: Store>(store: &S) {
    let mut tx = store.write().unwrap();
    for property in demo::properties() {
        tx.put_property(&property).unwrap();
    }
    tx.commit().unwrap();
}

/// Bookings read back by code, replaced by a put, and list by check-in then code, page after page.
pub fn bookings_read_back_and_list_in_check_in_order<S: Store>(store: S) {
    with_properties(&store);
    let mut tx = store.write().unwrap();
    let mut later = demo::booking("BK-AAAAA2", "2027-05-10", "2027-05-12");
    // The same check-in on another property: nights never overlap on one.
    let mut beside = demo::booking("BK-AAAAA1", "2027-05-10", "2027-05-11");
    beside.property = crate::basics::ids::Slug::parse("alpine-cabin").unwrap();
    for b in [&later, &demo::booking("BK-AAAAA3", "2027-04-01", "2027-04-03"), &beside] {
        tx.insert_booking(b).unwrap();
    }
    tx.commit().unwrap();
    later.guests = 1;
    let mut tx = store.write().unwrap();
    tx.put_booking(&later).unwrap();
    let taken = tx.insert_booking(&demo::booking("BK-AAAAA3", "2027-06-01", "2027-06-03"));
    assert!(matches!(taken, Err(StoreError::Conflict(_))), "a taken code conflicts: {taken:?}");
    drop(tx);
    let mut tx = store.write().unwrap();
    tx.put_booking(&later).unwrap();
    tx.commit().unwrap();
    let read = store.read().unwrap();
    assert_eq!(read.booking("BK-AAAAA2").unwrap(), Some(later));
    assert_eq!(read.booking("BK-NONE00").unwrap(), None);
    let page = |after: Option<&crate::bookings::booking::Booking>| {
        let query = BookingQuery {
            limit: 2,
            after: after.map(crate::bookings::booking::Cursor::after),
            ..BookingQuery::default()
        };
        read.bookings(&query).unwrap()
    };
    let first = page(None);
    let codes: Vec<&str> = first.iter().map(|b| b.code.as_str()).collect();
    assert_eq!(codes, ["BK-AAAAA3", "BK-AAAAA1", "BK-AAAAA2"], "one more than the limit, to say there is more");
    let rest = page(first.get(1));
    assert_eq!(rest.iter().map(|b| b.code.as_str()).collect::<Vec<_>>(), ["BK-AAAAA2"]);
}

/// A pending booking holds its nights, a confirmed one books them, a cancelled one frees them.
pub fn pending_bookings_hold_their_nights_and_are_counted<S: Store>(store: S) {
    with_properties(&store);
    let held = demo::booking("BK-HELD01", "2027-04-01", "2027-04-05");
    let mut booked = demo::booking("BK-BOOK01", "2027-04-10", "2027-04-12");
    booked.status = Status::Confirmed;
    let mut gone = demo::booking("BK-GONE01", "2027-04-20", "2027-04-22");
    gone.status = Status::Cancelled;
    let mut tx = store.write().unwrap();
    for b in [&held, &booked, &gone] {
        tx.put_booking(b).unwrap();
    }
    tx.commit().unwrap();
    let read = store.read().unwrap();
    let entries = read.calendar("sea-view", "2027-04-04".parse().unwrap(), "2027-04-30".parse().unwrap()).unwrap();
    let kinds: Vec<(&str, EntryKind)> = entries.iter().map(|e| (e.holder.as_str(), e.kind)).collect();
    assert_eq!(kinds, [("BK-HELD01", EntryKind::Held), ("BK-BOOK01", EntryKind::Booked)], "sharing a night");
    assert_eq!(read.pending_codes().unwrap(), std::slice::from_ref(&held.code));
    assert_eq!(read.pending_codes_of("sea-view").unwrap(), std::slice::from_ref(&held.code));
    assert_eq!(read.pending_count("sea-view").unwrap(), 1);
    assert_eq!(read.pending_counts(&["sea-view", "alpine-cabin"]).unwrap(), [1, 0]);
}

/// A block closes its nights on the property's calendar until it is removed.
pub fn a_block_closes_nights_until_removed<S: Store>(store: S) {
    with_properties(&store);
    let block = Block {
        id: "blk_conformance".into(),
        property: crate::basics::ids::Slug::parse("sea-view").unwrap(),
        stay: crate::basics::stay::Stay::new("2027-04-01".parse().unwrap(), "2027-04-04".parse().unwrap()).unwrap(),
        note: "paint".into(),
        feed: None,
        uid: None,
        created_at: now(),
    };
    let mut tx = store.write().unwrap();
    tx.put_block(&block).unwrap();
    tx.commit().unwrap();
    let (from, to) = ("2027-03-01".parse().unwrap(), "2027-05-01".parse().unwrap());
    let entries = store.read().unwrap().calendar("sea-view", from, to).unwrap();
    assert_eq!(
        entries.iter().map(|e| (e.holder.as_str(), e.kind)).collect::<Vec<_>>(),
        [("blk_conformance", EntryKind::Blocked)]
    );
    assert_eq!(store.read().unwrap().block("blk_conformance").unwrap(), Some(block));
    let mut tx = store.write().unwrap();
    assert!(tx.remove_block("blk_conformance").unwrap());
    assert!(!tx.remove_block("blk_conformance").unwrap());
    tx.commit().unwrap();
    assert!(store.read().unwrap().calendar("sea-view", from, to).unwrap().is_empty());
}

/// Events are numbered from 1 in the order appended, and leave the unfanned list once marked.
pub fn the_outbox_numbers_events_in_order_and_marks_them_fanned_out<S: Store>(store: S) {
    with_properties(&store);
    let b = demo::booking("BK-EVNT01", "2027-04-01", "2027-04-03");
    let mut tx = store.write().unwrap();
    tx.append_events(&[Event::created(&b, now()), Event::created(&b, now())]).unwrap();
    assert_eq!(tx.append_event(&Event::created(&b, now())).unwrap(), 3);
    tx.commit().unwrap();
    let read = store.read().unwrap();
    assert_eq!(read.events_after(0, 10).unwrap().iter().map(|e| e.seq).collect::<Vec<_>>(), [1, 2, 3]);
    assert_eq!(read.events_after(1, 1).unwrap().iter().map(|e| e.seq).collect::<Vec<_>>(), [2]);
    assert!(read.event(2).unwrap().is_some());
    drop(read);
    let mut tx = store.write().unwrap();
    tx.mark_fanned_out(&[1, 3]).unwrap();
    tx.remove_event(1).unwrap();
    tx.commit().unwrap();
    let read = store.read().unwrap();
    assert_eq!(read.unfanned_events(10).unwrap().iter().map(|e| e.seq).collect::<Vec<_>>(), [2]);
    assert_eq!(read.events_after(0, 10).unwrap().iter().map(|e| e.seq).collect::<Vec<_>>(), [2, 3]);
}

/// An event appended under a number of its own (a restore's) is found there,
/// the next append follows it, and a number already passed is refused.
pub fn an_event_placed_under_its_number_is_followed_by_the_next<S: Store>(store: S) {
    with_properties(&store);
    let b = demo::booking("BK-EVNT02", "2027-04-01", "2027-04-03");
    let mut tx = store.write().unwrap();
    tx.append_event_at(7, &Event::created(&b, now())).unwrap();
    tx.append_event_at(1_000, &Event::created(&b, now())).unwrap();
    assert_eq!(tx.append_event(&Event::created(&b, now())).unwrap(), 1_001);
    assert!(tx.append_event_at(500, &Event::created(&b, now())).is_err());
    tx.commit().unwrap();
    let read = store.read().unwrap();
    assert_eq!(read.events_after(0, 10).unwrap().iter().map(|e| e.seq).collect::<Vec<_>>(), [7, 1_000, 1_001]);
    assert_eq!(read.unfanned_events(10).unwrap().len(), 3);
}

fn delivery(id: &str, seq: u64, due_in: TimeDelta) -> Delivery {
    let mut d = Delivery::new(id.into(), "wh_conformance".into(), seq, EventName::BookingCreated, now());
    d.next_attempt_at = Some(now() + due_in);
    d
}

/// Pending deliveries fall due by time, then event number; finished ones are found by when they finished.
pub fn deliveries_fall_due_in_order_and_finished_ones_are_found_by_age<S: Store>(store: S) {
    let (later, first, same_time) = (
        delivery("dlv_b", 1, TimeDelta::minutes(5)),
        delivery("dlv_c", 3, TimeDelta::zero()),
        delivery("dlv_a", 2, TimeDelta::zero()),
    );
    let ok = Attempt { at: now(), status: Some(200), latency_ms: 1, error: None };
    let done = record(&delivery("dlv_d", 4, TimeDelta::zero()), ok, &[]).delivery;
    let mut tx = store.write().unwrap();
    for d in [&later, &first, &same_time, &done] {
        tx.put_delivery(d).unwrap();
    }
    tx.commit().unwrap();
    let read = store.read().unwrap();
    let ids = |ds: Vec<Delivery>| ds.into_iter().map(|d| d.id).collect::<Vec<_>>();
    assert_eq!(ids(read.due_deliveries(now(), 10).unwrap()), ["dlv_a", "dlv_c"], "due together: by event");
    assert_eq!(ids(read.pending_deliveries().unwrap()), ["dlv_a", "dlv_c", "dlv_b"]);
    assert_eq!(read.delivery("dlv_d").unwrap(), Some(done.clone()));
    let just_after = now() + TimeDelta::milliseconds(1);
    assert_eq!(read.finished_deliveries(just_after, 10).unwrap(), ["dlv_d"]);
    assert!(read.finished_deliveries(now(), 10).unwrap().is_empty(), "finished before, not at");
    assert_eq!(read.first_delivered_event().unwrap(), Some(1));
    assert_eq!(ids(read.deliveries_of("wh_conformance", 2).unwrap()), ["dlv_d", "dlv_c"], "newest event first");
    drop(read);
    let mut tx = store.write().unwrap();
    tx.remove_delivery("dlv_b").unwrap();
    tx.commit().unwrap();
    assert_eq!(store.read().unwrap().first_delivered_event().unwrap(), Some(2));
}

/// An idempotency key is recorded once (a second insert conflicts), found by key and by age, and removed.
pub fn an_idempotency_key_is_recorded_once_and_found_by_age<S: Store>(store: S) {
    with_properties(&store);
    let booking = demo::booking("BK-IDEM01", "2027-04-01", "2027-04-03");
    let first = IdempotencyRecord {
        key: "order-1".into(),
        fingerprint: "f".into(),
        code: booking.code.clone(),
        response: booking,
        created_at: now(),
    };
    let mut tx = store.write().unwrap();
    tx.insert_idempotency(&first).unwrap();
    tx.commit().unwrap();
    let mut tx = store.write().unwrap();
    let again = tx.insert_idempotency(&IdempotencyRecord { fingerprint: "other".into(), ..first.clone() });
    assert!(matches!(again, Err(StoreError::Conflict(_))), "{again:?}");
    drop(tx);
    let read = store.read().unwrap();
    assert_eq!(read.idempotency("order-1").unwrap(), Some(first));
    assert!(read.idempotency_before(now(), 10).unwrap().is_empty(), "recorded at, not before");
    assert_eq!(read.idempotency_before(now() + TimeDelta::seconds(1), 10).unwrap(), ["order-1"]);
    drop(read);
    let mut tx = store.write().unwrap();
    tx.remove_idempotency("order-1").unwrap();
    tx.commit().unwrap();
    assert_eq!(store.read().unwrap().idempotency("order-1").unwrap(), None);
}

/// A claim leases due deliveries of a stored webhook to one owner; another
/// claim meanwhile gets none of them, a later one after the lease lapses does.
pub fn a_claim_leases_due_deliveries_once_until_the_lease_lapses<S: Store>(store: S) {
    let webhook = crate::outbox::webhook::Webhook {
        id: "wh_conformance".into(),
        url: "https://example.com/hook".into(),
        secrets: crate::outbox::webhook::Secrets::new("whsec_conformance".into(), now()),
        events: crate::outbox::webhook::Subscription::parse("*").unwrap(),
        active: true,
        created_at: now(),
    };
    let mut tx = store.write().unwrap();
    tx.put(&webhook).unwrap();
    tx.put_delivery(&delivery("dlv_1", 1, TimeDelta::zero())).unwrap();
    tx.commit().unwrap();
    let limits = ClaimLimits { deliveries: 10, webhooks: 10 };
    let claim = |owner: &str, at: DateTime<Utc>| {
        let mut tx = store.write().unwrap();
        let claimed = tx.claim_deliveries(at, owner, at + TimeDelta::seconds(30), limits).unwrap();
        tx.commit().unwrap();
        claimed.into_iter().map(|d| d.id).collect::<Vec<_>>()
    };
    assert_eq!(claim("a", now()), ["dlv_1"]);
    assert!(claim("b", now() + TimeDelta::seconds(1)).is_empty(), "leased to a");
    assert_eq!(store.read().unwrap().delivery_leases().unwrap().len(), 1);
    assert_eq!(claim("b", now() + TimeDelta::seconds(31)), ["dlv_1"], "the lease lapsed");
}

/// Through the engine: of two requests for the same nights, one books and the other is refused.
pub fn the_engine_never_books_a_night_twice<S: Store>(store: S) {
    let rental =
        Rental::new(store).with_clock(std::sync::Arc::new(ManualClock::new("2026-11-22T08:00:00Z".parse().unwrap())));
    rental.import_properties(&demo::properties()).unwrap();
    let request = NewBooking {
        property: "sea-view".parse().expect("a slug"),
        check_in: "2026-12-20".parse().unwrap(),
        check_out: "2026-12-27".parse().unwrap(),
        guest_name: "Ada Lovelace".into(),
        guest_email: "ada@example.com".into(),
        guests: 3,
        notes: None,
        source: None,
        children: 0,
        pets: 0,
        promo_code: None,
        locale: None,
    };
    let booked = rental.create_booking(&request, Some("order-1")).unwrap().booking;
    let replay = rental.create_booking(&request, Some("order-1")).unwrap().booking;
    assert_eq!(replay.code, booked.code, "the same key replays the same booking");
    let again = rental.create_booking(&request, None);
    assert!(matches!(again, Err(Error::DatesUnavailable { .. })), "{again:?}");
}
