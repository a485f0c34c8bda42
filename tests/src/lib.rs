//! Shared fixtures for the black-box tests of `rental-core`.
//!
//! Every test drives the public [`Rental`] API over a [`Harness`]: an engine
//! on a fresh store (in memory or a redb file in a temporary directory) with
//! the three demo properties loaded and a [`ManualClock`] stopped at
//! [`NOW`], so "today" is the same on every run.
//!
//! [`store_suite!`] turns a list of functions generic over the store into one
//! `#[test]` per store, so the same suite checks `MemoryStore` and `RedbStore`.
//!
//! [`http`] serves such an engine through the real HTTP server, for the API tests.
//! [`ports`] hands out loopback ports for the programs the tests start.
//! [`tools`] says what a test does when a program it needs (PostgreSQL,
//! chromium, Python packages) is missing: fail under `./scripts/test`, skip otherwise.

// Fixtures are test code: a setup step that fails should stop the test at once.
#![allow(clippy::missing_panics_doc)]

pub mod feeds;
pub mod http;
pub mod localstripe;
pub mod ports;
pub mod postgres;
pub mod receiver;
pub mod smtp;
pub mod tools;

use std::ops::Deref;
use std::path::Path;
use std::sync::Arc;

use chrono::{DateTime, NaiveDate, TimeDelta, Utc};
use rental_core::event::OutboxEvent;
use rental_core::store::PgStore;
use rental_core::{Booking, BookingQuery, Created, ManualClock, MemoryStore, NewBooking, RedbStore, Rental, Store};
use tempfile::TempDir;

/// The instant every test starts at: a Sunday morning in Lisbon, Sunday
/// evening in Auckland, and still Saturday night in Los Angeles.
pub const NOW: &str = "2026-11-22T07:39:21.123Z";

/// A date from `YYYY-MM-DD`.
pub fn d(s: &str) -> NaiveDate {
    s.parse().unwrap_or_else(|e| panic!("bad date {s:?}: {e}"))
}

/// An instant from RFC 3339.
pub fn at(s: &str) -> DateTime<Utc> {
    s.parse().unwrap_or_else(|e| panic!("bad instant {s:?}: {e}"))
}

/// A clock stopped at [`NOW`].
pub fn fixed_clock() -> Arc<ManualClock> {
    Arc::new(ManualClock::new(at(NOW)))
}

/// A valid request for `guests` at `property` from `check_in` to `check_out`.
pub fn new_booking(property: &str, check_in: &str, check_out: &str, guests: u32) -> NewBooking {
    NewBooking {
        property: property.parse().expect("a property slug"),
        check_in: d(check_in),
        check_out: d(check_out),
        guest_name: "Ada Lovelace".to_owned(),
        guest_email: "ada@example.com".to_owned(),
        guests,
        notes: None,
        source: None,
        children: 0,
        pets: 0,
        promo_code: None,
        locale: None,
    }
}

/// An engine on `store` with the demo properties and `clock`.
pub fn rental_with_demo<S: Store>(store: S, clock: Arc<ManualClock>) -> Rental<S> {
    let rental = Rental::new(store).with_clock(clock);
    rental.import_properties(&rental_core::demo::properties()).expect("the demo properties import");
    rental
}

/// A redb store in a new file `rental.redb` inside `dir`.
pub fn open_redb(dir: &Path) -> RedbStore {
    RedbStore::open(dir.join("rental.redb")).expect("a redb store opens in a temporary directory")
}

/// An engine with the demo properties on a fresh store, and the clock it reads.
#[derive(Debug)]
pub struct Harness<S> {
    /// The engine under test.
    pub rental: Rental<S>,
    /// Its clock, stopped at [`NOW`] until a test moves it.
    pub clock: Arc<ManualClock>,
    /// Keeps a redb file's directory alive as long as the engine.
    _dir: Option<TempDir>,
}

impl Harness<MemoryStore> {
    /// On a [`MemoryStore`].
    pub fn memory() -> Self {
        let clock = fixed_clock();
        Harness { rental: rental_with_demo(MemoryStore::new(), clock.clone()), clock, _dir: None }
    }
}

impl Harness<RedbStore> {
    /// On a [`RedbStore`] in a temporary directory removed when the harness is dropped.
    pub fn redb() -> Self {
        let dir = tempfile::tempdir().expect("a temporary directory");
        let clock = fixed_clock();
        Harness { rental: rental_with_demo(open_redb(dir.path()), clock.clone()), clock, _dir: Some(dir) }
    }
}

impl Harness<RedbStore> {
    /// On a [`RedbStore`] with the read cache on: reads come from memory.
    pub fn redb_cached() -> Self {
        let harness = Harness::redb();
        Harness { rental: harness.rental.with_read_cache().expect("the cache loads"), ..harness }
    }
}

impl Harness<PgStore> {
    /// On a [`PgStore`] in a new database of the shared test cluster.
    pub fn postgres() -> Self {
        let url = postgres::PgCluster::shared().database();
        let store = PgStore::open(&url).expect("a PostgreSQL store opens on a fresh database");
        let clock = fixed_clock();
        Harness { rental: rental_with_demo(store, clock.clone()), clock, _dir: None }
    }

    /// On a [`PgStore`] with the read cache on, as `rental serve` runs it.
    pub fn postgres_cached() -> Self {
        let harness = Harness::postgres();
        Harness { rental: harness.rental.with_read_cache().expect("the cache loads"), ..harness }
    }
}

impl<S: Store> Harness<S> {
    /// Moves the clock to `instant`.
    pub fn set_now(&self, instant: &str) {
        self.clock.set(at(instant));
    }

    /// Moves the clock forward.
    pub fn advance(&self, by: TimeDelta) {
        self.clock.advance(by);
    }

    /// Creates a booking that must succeed.
    pub fn book(&self, property: &str, check_in: &str, check_out: &str, guests: u32) -> Booking {
        self.create(&new_booking(property, check_in, check_out, guests)).booking
    }

    /// Creates a booking that must succeed, from a full request.
    pub fn create(&self, request: &NewBooking) -> Created {
        self.rental.create_booking(request, None).unwrap_or_else(|e| panic!("{request:?} was refused: {e}"))
    }

    /// Creates and confirms a booking.
    pub fn book_confirmed(&self, property: &str, check_in: &str, check_out: &str, guests: u32) -> Booking {
        let b = self.book(property, check_in, check_out, guests);
        self.rental.update_booking(b.code.as_str(), &rental_core::Action::Confirm).expect("a pending booking confirms")
    }

    /// The whole outbox.
    pub fn events(&self) -> Vec<OutboxEvent> {
        all_events(&self.rental)
    }

    /// The names of the outbox events after `seq`, in order.
    pub fn event_names_after(&self, seq: u64) -> Vec<&'static str> {
        self.rental
            .admin()
            .events_after(seq, 10_000)
            .expect("the outbox reads")
            .iter()
            .map(|e| e.event.event.as_str())
            .collect()
    }

    /// The number of the last outbox event (0 when empty).
    pub fn last_seq(&self) -> u64 {
        self.events().last().map_or(0, |e| e.seq)
    }

    /// Every booking, walked page by page to the end.
    pub fn all_bookings(&self) -> Vec<Booking> {
        list_all(&self.rental, BookingQuery { limit: BookingQuery::MAX_LIMIT, ..BookingQuery::default() })
    }
}

impl<S> Deref for Harness<S> {
    type Target = Rental<S>;
    fn deref(&self) -> &Rental<S> {
        &self.rental
    }
}

/// The whole outbox of `rental`.
pub fn all_events<S: Store>(rental: &Rental<S>) -> Vec<OutboxEvent> {
    rental.admin().events_after(0, 1_000_000).expect("the outbox reads")
}

/// Every booking matching `query`, following `next` cursors to the last page.
pub fn list_all<S: Store>(rental: &Rental<S>, mut query: BookingQuery) -> Vec<Booking> {
    let mut out = Vec::new();
    loop {
        let page = rental.bookings(&query).expect("the listing reads");
        assert!(page.data.len() <= query.limit, "a page is never longer than its limit");
        out.extend(page.data);
        match page.next {
            Some(next) => query.after = Some(next),
            None => return out,
        }
    }
}

/// Runs each listed function, generic over the store, once per store: a
/// module per store with one `#[test]` per function.
///
/// ```text
/// fn free_nights_are_available<S: Store>(h: &Harness<S>) { /* ... */ }
/// store_suite!(free_nights_are_available);
/// // or name the stores, with attributes for every test of one store:
/// store_suite!(stores: [memory => Harness::memory, #[ignore = "why"] redb => Harness::redb],
///              tests: [free_nights_are_available]);
/// ```
#[macro_export]
macro_rules! store_suite {
    (
        stores: [$(#[$attr:meta])* $store:ident => $open:path
                 $(, $(#[$rest_attr:meta])* $rest:ident => $rest_open:path)* $(,)?],
        tests: $tests:tt
    ) => {
        mod $store {
            $crate::store_suite!(@tests [$(#[$attr])*] $open, $tests);
        }
        $crate::store_suite!(stores: [$($(#[$rest_attr])* $rest => $rest_open),*], tests: $tests);
    };
    (stores: [], tests: $tests:tt) => {};
    (@tests $attrs:tt $open:path, []) => {};
    (@tests $attrs:tt $open:path, [$test:ident $(, $rest:ident)* $(,)?]) => {
        $crate::store_suite!(@test $attrs $open, $test);
        $crate::store_suite!(@tests $attrs $open, [$($rest),*]);
    };
    (@test [$(#[$attr:meta])*] $open:path, $test:ident) => {
        $(#[$attr])*
        #[test]
        fn $test() {
            if stringify!($open).contains("postgres") && !$crate::tools::postgres() {
                return;
            }
            let harness = $open();
            super::$test(&harness);
        }
    };
    ($($test:ident),* $(,)?) => {
        $crate::store_suite!(
            stores: [
                memory => $crate::Harness::memory,
                redb => $crate::Harness::redb,
                redb_cached => $crate::Harness::redb_cached,
                postgres => $crate::Harness::postgres,
                postgres_cached => $crate::Harness::postgres_cached,
            ],
            tests: [$($test),*]
        );
    };
}
