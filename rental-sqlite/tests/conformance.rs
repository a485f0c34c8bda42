//! The public conformance suite on `SQLite`.

use rental_sqlite::SqliteStore;

rental_core::store_conformance!(sqlite, || Some((SqliteStore::open_in_memory().unwrap(), ())));
