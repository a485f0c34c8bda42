//! The public conformance suite (`rental_core::store_conformance!`) on the
//! crate's own stores, as an embedder runs it on theirs.

use rental_core::MemoryStore;
use rental_core::store::PgStore;
use rental_tests::postgres::PgCluster;
use rental_tests::{open_redb, tools};

rental_core::store_conformance!(memory, || Some((MemoryStore::new(), ())));

rental_core::store_conformance!(redb, || {
    let dir = tempfile::tempdir().expect("a temporary directory");
    Some((open_redb(dir.path()), dir))
});

rental_core::store_conformance!(postgres, || {
    tools::postgres().then(|| (PgStore::open(&PgCluster::shared().database()).expect("a fresh database"), ()))
});
