//! Backups read as a stream (issue 45, 6): the streamed check agrees with the
//! whole read, and a streamed restore in batches gives back the same bytes.

use chrono::{DateTime, Utc};
use rental_core::backup::{self, RESTORE_BATCH};
use rental_core::{BookingCode, MemoryStore, ReadTx as _, Store as _, WriteTx as _};
use rental_tests::{at, fixed_clock, new_booking, open_redb, rental_with_demo};

fn now() -> DateTime<Utc> {
    at("2026-11-28T12:00:00Z")
}

/// The `n`th of the copies' codes.
fn code(n: usize) -> BookingCode {
    const ALPHABET: &[u8] = b"23456789ABCDEFGHJKMNPQRSTUVWXYZ";
    let digits: String =
        (0..6).rev().map(|i| char::from(ALPHABET[n / ALPHABET.len().pow(i) % ALPHABET.len()])).collect();
    format!("CP-{digits}").parse().unwrap()
}

/// The backup of a store with more bookings than one restore batch holds.
fn backed_up_store() -> Vec<u8> {
    let rental = rental_with_demo(MemoryStore::new(), fixed_clock());
    let first = rental.create_booking(&new_booking("sea-view", "2026-12-20", "2026-12-27", 3), None).unwrap().booking;
    let mut tx = rental.store().write().unwrap();
    for n in 0..RESTORE_BATCH + 500 {
        tx.put_booking(&rental_core::Booking { code: code(n), ..first.clone() }).unwrap();
    }
    tx.commit().unwrap();
    let mut out = Vec::new();
    backup::write(&rental.store().read().unwrap(), now(), &mut out).unwrap();
    out
}

#[test]
fn a_streamed_restore_in_batches_gives_back_the_same_backup_byte_for_byte() {
    let bytes = backed_up_store();
    let whole = backup::read(&bytes).unwrap();
    let checked = backup::check(&bytes[..]).unwrap();
    assert_eq!(
        (&checked.header, &checked.counts),
        (&whole.header, &whole.counts),
        "the stream reads what the whole read does"
    );
    assert!(checked.counts["bookings"] > RESTORE_BATCH as u64);

    let dir = tempfile::tempdir().unwrap();
    let store = open_redb(dir.path());
    assert_eq!(backup::restore_from(&store, &bytes[..]).unwrap(), whole.counts);
    let mut again = Vec::new();
    backup::write(&store.read().unwrap(), now(), &mut again).unwrap();
    assert!(again == bytes, "the restored store backs up to the same bytes (format unchanged)");

    let whole_restored = MemoryStore::new();
    backup::restore(&whole_restored, &whole).unwrap();
    let mut from_whole = Vec::new();
    backup::write(&whole_restored.read().unwrap(), now(), &mut from_whole).unwrap();
    assert!(from_whole == bytes, "the whole restore and the streamed one agree");
}

#[test]
fn the_streamed_check_refuses_a_damaged_file_as_the_whole_read_does_and_writes_nothing() {
    let bytes = backed_up_store();
    let text = String::from_utf8(bytes.clone()).unwrap();
    let cut = bytes[..bytes.len() - 1].to_vec();
    let changed = text.replacen(code(7).as_str(), code(9_999).as_str(), 1).into_bytes();
    let no_trailer = bytes[..=text.trim_end().rfind('\n').unwrap()].to_vec();
    let no_header = text.split_once('\n').unwrap().1.as_bytes().to_vec();
    for (what, file) in [("cut", cut), ("changed", changed), ("no trailer", no_trailer), ("no header", no_header)] {
        let whole = backup::read(&file).unwrap_err().to_string();
        let streamed = backup::check(&file[..]).unwrap_err().to_string();
        assert_eq!(streamed, whole, "{what}");
        let store = MemoryStore::new();
        let refused = backup::restore_from(&store, &file[..]).unwrap_err().to_string();
        assert!(refused.contains("unusable"), "{what}: {refused}");
        // A fault in the first line is found before any batch; later ones are why the CLI checks first.
        if what == "no header" {
            assert!(store.read().unwrap().properties().unwrap().is_empty(), "{what}: nothing written");
        }
    }
}

#[test]
fn a_backup_keeps_each_booking_s_language() {
    let rental = rental_with_demo(MemoryStore::new(), fixed_clock());
    let german = rental_core::NewBooking {
        locale: Some("de-DE".into()),
        ..new_booking("sea-view", "2026-12-20", "2026-12-23", 2)
    };
    let code = rental.create_booking(&german, None).unwrap().booking.code;
    let english =
        rental.create_booking(&new_booking("sea-view", "2027-01-10", "2027-01-13", 2), None).unwrap().booking.code;
    let mut out = Vec::new();
    backup::write(&rental.store().read().unwrap(), now(), &mut out).unwrap();
    let restored = MemoryStore::new();
    backup::restore(&restored, &backup::read(&out).unwrap()).unwrap();
    let locale = |c: &BookingCode| restored.read().unwrap().booking(c.as_str()).unwrap().unwrap().locale;
    assert_eq!((locale(&code), locale(&english)), (rental_core::Locale::De, rental_core::Locale::En));
}
