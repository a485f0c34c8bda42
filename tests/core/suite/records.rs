//! The record layer on every store: typed records under a key, scanned by
//! prefix, found by their time, gone with a write that was never committed.

use chrono::{DateTime, TimeDelta, Utc};
use rental_core::{ReadRecords, Record, RecordKind, Store, WriteRecords, WriteTx};
use rental_tests::{Harness, NOW, at, store_suite};
use serde::{Deserialize, Serialize};

store_suite!(
    a_record_is_found_by_its_key_replaced_and_removed,
    a_replaced_record_moves_in_the_time_index,
    a_scan_takes_the_prefix_from_after_the_cursor_in_key_order,
    due_records_come_earliest_first_then_by_key_and_kinds_stay_apart,
    a_write_dropped_without_commit_keeps_no_record,
);

/// A per-property kind, as guest messages will be.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct Note {
    property: String,
    id: String,
    text: String,
    due: Option<DateTime<Utc>>,
}

impl Record for Note {
    const KIND: RecordKind = RecordKind { name: "test_note", per_property: true };
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
    const KIND: RecordKind = RecordKind { name: "test_tag", per_property: false };
    fn key(&self) -> String {
        self.key.clone()
    }
    fn at(&self) -> Option<DateTime<Utc>> {
        self.due
    }
}

fn note(property: &str, id: &str, due: Option<TimeDelta>) -> Note {
    Note { property: property.into(), id: id.into(), text: format!("note {id}"), due: due.map(|d| at(NOW) + d) }
}

fn put_all<S: Store>(store: &S, notes: &[Note]) {
    let mut tx = store.write().unwrap();
    for n in notes {
        tx.put(n).unwrap();
    }
    tx.commit().unwrap();
}

fn a_record_is_found_by_its_key_replaced_and_removed<S: Store>(h: &Harness<S>) {
    let store = h.rental.store();
    let first = note("sea-view", "n1", None);
    put_all(store, std::slice::from_ref(&first));
    assert_eq!(store.read().unwrap().get::<Note>("sea-view/n1").unwrap(), Some(first.clone()));
    assert_eq!(store.read().unwrap().get::<Note>("sea-view/n2").unwrap(), None);
    assert_eq!(store.read().unwrap().get::<Tag>("sea-view/n1").unwrap(), None, "another kind's key space");

    let replaced = Note { text: "changed".into(), ..first };
    put_all(store, std::slice::from_ref(&replaced));
    assert_eq!(store.read().unwrap().get::<Note>("sea-view/n1").unwrap(), Some(replaced));
    assert_eq!(store.read().unwrap().list_all::<Note>("").unwrap().len(), 1, "replaced, not added");

    let mut tx = store.write().unwrap();
    assert!(tx.remove::<Note>("sea-view/n1").unwrap());
    assert!(!tx.remove::<Note>("sea-view/n1").unwrap(), "nothing left to remove");
    tx.commit().unwrap();
    assert_eq!(store.read().unwrap().get::<Note>("sea-view/n1").unwrap(), None);
}

fn a_replaced_record_moves_in_the_time_index<S: Store>(h: &Harness<S>) {
    let store = h.rental.store();
    put_all(
        store,
        &[note("sea-view", "a", Some(TimeDelta::hours(1))), note("sea-view", "b", Some(TimeDelta::hours(2)))],
    );
    let due_in = |hours| store.read().unwrap().due::<Note>(at(NOW) + TimeDelta::hours(hours), 10).unwrap();
    assert_eq!(due_in(1).iter().map(|n| n.id.as_str()).collect::<Vec<_>>(), ["a"]);

    put_all(store, &[note("sea-view", "a", Some(TimeDelta::hours(3)))]);
    assert_eq!(due_in(2).iter().map(|n| n.id.as_str()).collect::<Vec<_>>(), ["b"], "a moved later");
    assert_eq!(due_in(3).iter().map(|n| n.id.as_str()).collect::<Vec<_>>(), ["b", "a"]);

    put_all(store, &[note("sea-view", "b", None)]);
    assert_eq!(due_in(3).iter().map(|n| n.id.as_str()).collect::<Vec<_>>(), ["a"], "b left the index");
    let mut tx = store.write().unwrap();
    tx.remove::<Note>("sea-view/a").unwrap();
    tx.commit().unwrap();
    assert!(due_in(100).is_empty(), "a removed record leaves the index");
}

fn a_scan_takes_the_prefix_from_after_the_cursor_in_key_order<S: Store>(h: &Harness<S>) {
    let store = h.rental.store();
    // "sea" is a prefix of "sea-view": the `/` keeps their records apart.
    let ids = ["n3", "n1", "n10", "n2", "N9"];
    let mut notes: Vec<Note> = ids.iter().map(|id| note("sea-view", id, None)).collect();
    notes.push(note("sea", "n1", None));
    notes.push(note("alpine-cabin", "n1", None));
    notes.push(note("sea-view0", "n1", None));
    put_all(store, &notes);
    let read = store.read().unwrap();
    let keys = |prefix: &str, after: &str, limit: usize| -> Vec<String> {
        read.list::<Note>(prefix, after, limit).unwrap().iter().map(Record::key).collect()
    };
    // Bytewise order: upper case before lower, "n10" before "n2".
    let all = ["sea-view/N9", "sea-view/n1", "sea-view/n10", "sea-view/n2", "sea-view/n3"];
    assert_eq!(keys("sea-view/", "", 100), all);
    assert_eq!(keys("sea-view/", "", 2), all[..2]);
    assert_eq!(keys("sea-view/", "sea-view/n1", 2), all[2..4], "the next page starts after the cursor");
    assert_eq!(keys("sea-view/", "sea-view/n3", 2), Vec::<String>::new());
    assert_eq!(keys("sea-view/", "a", 100), all, "a cursor before the prefix starts at the prefix");
    assert_eq!(keys("sea-view/", "z", 100), Vec::<String>::new(), "a cursor past the prefix ends it");
    assert_eq!(keys("sea/", "", 100), ["sea/n1"]);
    assert_eq!(keys("", "", 100).len(), 8, "an empty prefix is the whole kind");
    assert_eq!(keys("", "sea-view/n3", 100), ["sea-view0/n1", "sea/n1"]);
    assert!(read.list::<Tag>("", "", 100).unwrap().is_empty(), "kinds stay apart");
}

fn due_records_come_earliest_first_then_by_key_and_kinds_stay_apart<S: Store>(h: &Harness<S>) {
    let store = h.rental.store();
    let hour = |h| Some(TimeDelta::hours(h));
    put_all(
        store,
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
    tx.put(&Tag { key: "sea-view/a".into(), due: Some(at(NOW) - TimeDelta::days(365)) }).unwrap();
    tx.commit().unwrap();

    let read = store.read().unwrap();
    let due = |hours: i64, limit| -> Vec<String> {
        read.due::<Note>(at(NOW) + TimeDelta::hours(hours), limit).unwrap().iter().map(Record::key).collect()
    };
    assert_eq!(due(0, 10), ["sea-view/past"]);
    assert_eq!(due(1, 10), ["sea-view/past", "alpine-cabin/z", "sea-view/a", "sea-view/b"], "at, then key");
    assert_eq!(due(1, 2), ["sea-view/past", "alpine-cabin/z"]);
    assert_eq!(due(5, 10).len(), 5, "at `until` is due; no time is never due");
    assert_eq!(read.due::<Tag>(at(NOW), 10).unwrap().len(), 1);
}

fn a_write_dropped_without_commit_keeps_no_record<S: Store>(h: &Harness<S>) {
    let store = h.rental.store();
    put_all(store, &[note("sea-view", "kept", Some(TimeDelta::hours(1)))]);
    {
        let mut tx = store.write().unwrap();
        tx.put(&note("sea-view", "lost", Some(TimeDelta::hours(1)))).unwrap();
        tx.put(&Note { text: "changed".into(), ..note("sea-view", "kept", Some(TimeDelta::hours(9))) }).unwrap();
        assert!(tx.get::<Note>("sea-view/lost").unwrap().is_some(), "the write reads its own records");
        assert_eq!(tx.list_all::<Note>("sea-view/").unwrap().len(), 2);
    }
    let read = store.read().unwrap();
    assert_eq!(read.list_all::<Note>("").unwrap(), [note("sea-view", "kept", Some(TimeDelta::hours(1)))]);
    let due: Vec<String> =
        read.due::<Note>(at(NOW) + TimeDelta::hours(1), 10).unwrap().iter().map(Record::key).collect();
    assert_eq!(due, ["sea-view/kept"], "the index is as it was");
}
