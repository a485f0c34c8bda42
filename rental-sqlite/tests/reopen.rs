//! What a file-backed store keeps: a committed booking is there after reopening; an uncommitted one is not.

use rental_core::store::{ReadTx, Store, WriteTx};
use std::sync::Arc;

use rental_core::{ManualClock, NewBooking, Rental, demo};
use rental_sqlite::SqliteStore;

#[test]
fn a_committed_booking_survives_reopening_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("rental.sqlite");
    let booked = {
        let clock = Arc::new(ManualClock::new("2026-11-22T08:00:00Z".parse().unwrap()));
        let rental = Rental::new(SqliteStore::open(&path).unwrap()).with_clock(clock);
        rental.import_properties(&demo::properties()).unwrap();
        let request = NewBooking {
            property: "sea-view".parse().unwrap(),
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
        rental.create_booking(&request, None).unwrap().booking
    };
    let store = SqliteStore::open(&path).unwrap();
    // A write dropped without commit leaves nothing in the file either.
    let mut tx = store.write().unwrap();
    tx.put_booking(&demo::booking("BK-UNSAVED", "2031-01-10", "2031-01-12")).unwrap();
    drop(tx);
    drop(store);
    let rental = Rental::new(SqliteStore::open(&path).unwrap());
    assert_eq!(rental.booking(booked.code.as_str()).unwrap(), booked);
    let store = SqliteStore::open(&path).unwrap();
    assert_eq!(store.read().unwrap().booking("BK-UNSAVED").unwrap(), None);
}

/// A file written before properties were records kept them in a table of
/// their own: opening it moves them into records, where every read finds them.
#[test]
fn properties_of_a_file_from_before_records_are_kept() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("rental.sqlite");
    drop(SqliteStore::open(&path).unwrap());
    let mut old = demo::properties();
    old.sort_by(|a, b| a.slug.as_str().cmp(b.slug.as_str()));
    {
        let conn = rusqlite::Connection::open(&path).unwrap();
        conn.execute_batch("CREATE TABLE properties (slug TEXT PRIMARY KEY, doc TEXT NOT NULL)").unwrap();
        for property in &old {
            let doc = serde_json::to_string(property).unwrap();
            conn.execute("INSERT INTO properties (slug, doc) VALUES (?1, ?2)", [property.slug.as_str(), &doc]).unwrap();
        }
    }
    let store = SqliteStore::open(&path).unwrap();
    assert_eq!(store.read().unwrap().properties().unwrap(), old);
    assert_eq!(
        store.read().unwrap().property("sea-view").unwrap().as_ref(),
        old.iter().find(|p| p.slug.as_str() == "sea-view")
    );
    drop(store);
    let conn = rusqlite::Connection::open(&path).unwrap();
    let tables: i64 =
        conn.query_row("SELECT count(*) FROM sqlite_master WHERE name = 'properties'", [], |r| r.get(0)).unwrap();
    assert_eq!(tables, 0, "the old table is gone");
}
