//! The foundation's performance figures, each pure and through `Rental` on redb:
//! a 7-night quote, a 365-night availability (and both with every stay and
//! price rule of section 25 on, pure), the occupancy summary of 1,000
//! properties, and durable booking creations against the raw redb commit rate.
//!
//! Run: `cargo bench -p rental-benches`. Targets and results: docs/PERFORMANCE.md.
//! `cargo test --benches -p rental-benches` runs each bench once, on a small fleet.

use std::cell::OnceCell;
use std::hint::black_box;
use std::time::{Duration, Instant};

use chrono::NaiveDate;
use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use redb::{Database, TableDefinition};
use rental_benches as data;
use rental_core::access_gate::GateFacts;
use rental_core::calendar::CalendarEntry;
use rental_core::occupancy::{self, PropertyDay, today_in};
use rental_core::stay_summary::{self, StayDay};
use rental_core::store::{ReadTx, Store};
use rental_core::visit::Visit;
use rental_core::{Property, QuoteRequest, RedbStore, Rental, availability, pricing};
use tempfile::TempDir;

/// True under `cargo test --benches` (criterion's test mode: each bench runs once),
/// where the data sets shrink so the run stays quick.
fn quick() -> bool {
    let args: Vec<String> = std::env::args().collect();
    !args.iter().any(|a| a == "--bench") || args.iter().any(|a| a == "--test")
}

/// One seasonal property with a year of bookings and blocks, in redb.
struct Year {
    _dir: TempDir,
    rental: Rental<RedbStore>,
    property: Property,
    today: NaiveDate,
}

fn year() -> Year {
    let dir = tempfile::tempdir().expect("a temp dir");
    let rental = data::open_rental(dir.path());
    let property = data::seasonal_property();
    rental.import_properties(std::slice::from_ref(&property)).expect("import");
    let today = today_in(property.timezone, data::now());
    data::load_calendar(&rental, property.slug.as_str(), &data::year_calendar(today));
    Year { _dir: dir, rental, property, today }
}

/// What the store hands the pure functions: the entries sharing a night with `from..to`.
fn stored_calendar(rental: &Rental<RedbStore>, slug: &str, from: NaiveDate, to: NaiveDate) -> Vec<CalendarEntry> {
    rental.store().read().and_then(|tx| tx.calendar(slug, from, to)).expect("read the calendar")
}

fn quote(c: &mut Criterion) {
    let y = year();
    let stay = data::quote_stay(y.today);
    let slug = y.property.slug.as_str();
    let (from, to) = pricing::calendar_span(&y.property, stay);
    let calendar = stored_calendar(&y.rental, slug, from, to);
    let req = QuoteRequest {
        property: slug.parse().expect("a property slug"),
        check_in: stay.check_in(),
        check_out: stay.check_out(),
        guests: 3,
        children: 0,
        pets: 0,
        promo_code: None,
    };
    let facts = pricing::Facts { now: data::now(), calendar: &calendar, promo_uses: 0 };
    let asked = pricing::Asked::stay(stay, 3);
    let pure = pricing::quote(&y.property, &asked, &facts);
    assert!(pure.available, "the bench quotes a free week");
    assert_eq!(y.rental.quote(&req).expect("quote"), pure, "pure and redb quotes agree");

    let mut g = c.benchmark_group("quote_7_nights");
    g.bench_function("pure", |b| {
        b.iter(|| pricing::quote(black_box(&y.property), black_box(&asked), black_box(&facts)));
    });
    g.bench_function("redb", |b| b.iter(|| y.rental.quote(black_box(&req)).expect("quote")));
    g.finish();
}

fn availability(c: &mut Criterion) {
    let y = year();
    let slug = y.property.slug.as_str();
    let range = data::stay_at(y.today, 0, 365);
    let (from, to) = (range.check_in(), range.check_out());
    let (span_from, span_to) = availability::calendar_span(&y.property, range);
    let calendar = stored_calendar(&y.rental, slug, span_from, span_to);
    let pure = availability::nights(&y.property, range, data::now(), &calendar);
    assert_eq!(pure.nights.len(), 365);
    assert_eq!(y.rental.availability(slug, Some(from), Some(to)).expect("availability"), pure);

    let mut g = c.benchmark_group("availability_365_nights");
    g.bench_function("pure", |b| {
        b.iter(|| availability::nights(black_box(&y.property), black_box(range), data::now(), black_box(&calendar)));
    });
    g.bench_function("redb", |b| {
        b.iter(|| y.rental.availability(black_box(slug), Some(from), Some(to)).expect("availability"));
    });
    g.finish();
}

/// The quote and the availability with every rule of section 25 on
/// ([`data::every_rule_property`]), pure, over the year's calendar.
fn every_rule(c: &mut Criterion) {
    let y = year();
    let property = data::every_rule_property();
    let slug = y.property.slug.as_str();
    let stay = data::quote_stay(y.today);
    let (from, to) = pricing::calendar_span(&property, stay);
    let calendar = stored_calendar(&y.rental, slug, from, to);
    let asked = pricing::Asked { stay, guests: 3, children: 1, pets: 1, promo_code: Some("winter") };
    let facts = pricing::Facts { now: data::now(), calendar: &calendar, promo_uses: 3 };
    let q = pricing::quote(&property, &asked, &facts);
    assert_eq!(q.nightly.len(), 7);
    assert!(q.tourist_tax > 0 && q.pet_fee > 0, "every line is priced");

    let range = data::stay_at(y.today, 0, 366);
    let (span_from, span_to) = availability::calendar_span(&property, range);
    let year_calendar = stored_calendar(&y.rental, slug, span_from, span_to);
    assert_eq!(availability::nights(&property, range, data::now(), &year_calendar).nights.len(), 366);

    let mut g = c.benchmark_group("every_rule");
    g.bench_function("quote_7_nights", |b| {
        b.iter(|| pricing::quote(black_box(&property), black_box(&asked), black_box(&facts)));
    });
    g.bench_function("availability_366_nights", |b| {
        b.iter(|| availability::nights(black_box(&property), black_box(range), data::now(), black_box(&year_calendar)));
    });
    g.finish();
}

/// The occupancy fleet in redb, and the pure function's input read back from it
/// exactly as `Rental::summary` reads it.
struct Fleet {
    _dir: TempDir,
    rental: Rental<RedbStore>,
    properties: Vec<Property>,
    calendars: Vec<Vec<CalendarEntry>>,
    pending: Vec<usize>,
    /// Each property's stays with what their access gate reads, as the summary reads them.
    visits: Vec<Vec<(String, Visit, GateFacts)>>,
}

/// `size` fleet properties in redb; with `cached`, the engine keeps its read cache
/// (as `rental serve` runs it).
fn fleet(size: usize, cached: bool) -> Fleet {
    let started = Instant::now();
    let dir = tempfile::tempdir().expect("a temp dir");
    let rental = data::open_rental(dir.path());
    data::load_fleet(&rental, size);
    let rental = if cached { rental.with_read_cache().expect("the read cache") } else { rental };
    let tx = rental.store().read().expect("read");
    let properties = rental.properties().expect("properties");
    let mut calendars = Vec::new();
    let mut pending = Vec::new();
    let mut visits = Vec::new();
    for p in &properties {
        let today = today_in(p.timezone, data::now());
        let slug = p.slug.as_str();
        let calendar = tx.calendar(slug, today.pred_opt().unwrap_or(today), NaiveDate::MAX).expect("calendar");
        let stays = calendar.iter().filter_map(|e| tx.booking(e.holder.as_str()).expect("booking"));
        visits.push(stays.map(|b| (b.code.to_string(), b.visit.clone(), GateFacts::of(&b))).collect());
        calendars.push(calendar);
        pending.push(tx.pending_count(slug).expect("pending"));
    }
    drop(tx);
    eprintln!("occupancy fleet: {size} properties, {} stays, loaded in {:.1?}", size * 10, started.elapsed());
    Fleet { _dir: dir, rental, properties, calendars, pending, visits }
}

impl Fleet {
    fn days(&self) -> Vec<PropertyDay<'_>> {
        (self.properties.iter().zip(&self.calendars).zip(&self.pending))
            .map(|((property, calendar), &pending)| PropertyDay::new(property, calendar, pending, data::now()))
            .collect()
    }
}

/// Both parts of the summary, as `Rental::summary` makes them: each property's
/// stays with their visits and gate facts, and no feeds.
fn summarize(days: &[PropertyDay<'_>], visits: &[Vec<(String, Visit, GateFacts)>]) -> occupancy::Summary {
    let now = data::now();
    let mut summary = occupancy::summarize(now, chrono_tz::UTC, days);
    let stays: Vec<StayDay<'_>> =
        visits.iter().map(|v| StayDay { visits: v, feeds: &[], payments_configured: false }).collect();
    stay_summary::complete(&mut summary, now, days, &stays);
    summary
}

fn occupancy(c: &mut Criterion) {
    let size = if quick() { 20 } else { 1_000 };
    let (cell, cached_cell) = (OnceCell::new(), OnceCell::new());
    let checked = |cached: bool| {
        let f = fleet(size, cached);
        let pure = summarize(&f.days(), &f.visits);
        assert_eq!(pure.totals.properties, size);
        assert_eq!(f.rental.summary().expect("summary"), pure, "pure and redb summaries agree");
        f
    };
    let fleet = || cell.get_or_init(|| checked(false));
    let mut g = c.benchmark_group(format!("occupancy_summary_{size}_properties"));
    g.sample_size(20).measurement_time(Duration::from_secs(5));
    g.bench_function("pure", |b| {
        let days = fleet().days();
        b.iter(|| summarize(black_box(&days), &fleet().visits));
    });
    g.bench_function("redb", |b| {
        let rental = &fleet().rental;
        b.iter(|| rental.summary().expect("summary"));
    });
    // The read cache answers from memory after the first summary, visits included.
    g.bench_function("redb_cached", |b| {
        let rental = &cached_cell.get_or_init(|| checked(true)).rental;
        b.iter(|| rental.summary().expect("summary"));
    });
    g.finish();
}

const RAW: TableDefinition<u64, &[u8]> = TableDefinition::new("raw");

/// A plain redb database (default, `Immediate` durability) taking one ~500-byte
/// insert per write transaction.
struct RawDb {
    _dir: TempDir,
    db: Database,
    next: u64,
}

impl RawDb {
    fn open() -> Self {
        let dir = tempfile::tempdir().expect("a temp dir");
        let db = Database::create(dir.path().join("raw.redb")).expect("create redb");
        RawDb { _dir: dir, db, next: 0 }
    }

    fn commit_one(&mut self) {
        let value = [0x5a_u8; 500];
        let tx = self.db.begin_write().expect("begin");
        tx.open_table(RAW).expect("table").insert(self.next, value.as_slice()).expect("insert");
        tx.commit().expect("commit");
        self.next += 1;
    }

    fn run(&mut self, n: u64) -> Duration {
        let start = Instant::now();
        for _ in 0..n {
            self.commit_one();
        }
        start.elapsed()
    }

    /// `n` commits from `clients` threads at once (redb takes one writer at a time).
    fn run_concurrent(&mut self, n: u64, clients: u64) -> Duration {
        let (db, first) = (&self.db, self.next);
        let start = Instant::now();
        std::thread::scope(|scope| {
            for c in 0..clients {
                scope.spawn(move || {
                    let value = [0x5a_u8; 500];
                    for k in (first + c..first + n).step_by(clients as usize) {
                        let tx = db.begin_write().expect("begin");
                        tx.open_table(RAW).expect("table").insert(k, value.as_slice()).expect("insert");
                        tx.commit().expect("commit");
                    }
                });
            }
        });
        self.next += n;
        start.elapsed()
    }
}

/// An engine over a fleet of properties, taking bookings that never collide.
struct Bookings {
    _dir: TempDir,
    rental: Rental<RedbStore>,
    slugs: Vec<String>,
    today: NaiveDate,
    next: u64,
}

impl Bookings {
    const PROPERTIES: u64 = 500;

    fn open() -> Self {
        let dir = tempfile::tempdir().expect("a temp dir");
        let rental = data::open_rental(dir.path());
        let fleet: Vec<Property> = (0..Self::PROPERTIES as usize).map(data::fleet_property).collect();
        rental.import_properties(&fleet).expect("import");
        let slugs = fleet.iter().map(|p| p.slug.to_string()).collect();
        Bookings { _dir: dir, rental, slugs, today: data::now().date_naive(), next: 0 }
    }

    fn requests(&mut self, n: u64) -> Vec<rental_core::NewBooking> {
        let requests = (self.next..self.next + n)
            .map(|k| {
                let (p, stay) = data::booking_slot(k, Self::PROPERTIES, self.today);
                data::request(&self.slugs[p], stay)
            })
            .collect();
        self.next += n;
        requests
    }

    fn run(&mut self, n: u64) -> Duration {
        let requests = self.requests(n);
        let start = Instant::now();
        for req in &requests {
            self.rental.create_booking(req, None).expect("create a booking");
        }
        start.elapsed()
    }

    /// `n` creations from `clients` threads at once, as a server's requests arrive.
    fn run_concurrent(&mut self, n: u64, clients: u64) -> Duration {
        let requests = self.requests(n);
        let rental = &self.rental;
        let start = Instant::now();
        std::thread::scope(|scope| {
            for chunk in requests.chunks(requests.len().div_ceil(clients as usize).max(1)) {
                scope.spawn(move || {
                    for req in chunk {
                        rental.create_booking(req, None).expect("create a booking");
                    }
                });
            }
        });
        start.elapsed()
    }
}

#[expect(clippy::cast_precision_loss, reason = "counts far below 2^52")]
fn per_second(n: u64, took: Duration) -> f64 {
    n as f64 / took.as_secs_f64()
}

fn booking_rate(c: &mut Criterion) {
    let mut raw = RawDb::open();
    let mut bookings = Bookings::open();
    eprintln!("redb files in {}", std::env::temp_dir().display());

    let mut g = c.benchmark_group("durable_commits");
    g.throughput(Throughput::Elements(1)).sample_size(20).measurement_time(Duration::from_secs(5));
    g.bench_function("raw_redb_commit", |b| b.iter_custom(|n| raw.run(n)));
    g.bench_function("create_booking", |b| b.iter_custom(|n| bookings.run(n)));
    g.bench_function("raw_redb_commit_8_writers", |b| b.iter_custom(|n| raw.run_concurrent(n, CLIENTS)));
    g.bench_function("create_booking_8_clients", |b| b.iter_custom(|n| bookings.run_concurrent(n, CLIENTS)));
    g.finish();

    // The ratio, from alternating batches so both sides see the same machine load.
    let (rounds, batch) = if quick() { (1, 5) } else { (10, 200) };
    let (mut raw_time, mut booking_time) = (Duration::ZERO, Duration::ZERO);
    for _ in 0..rounds {
        raw_time += raw.run(batch);
        booking_time += bookings.run(batch);
    }
    let n = rounds * batch;
    let (raw_rate, booking_rate) = (per_second(n, raw_time), per_second(n, booking_time));
    eprintln!(
        "durable commits, one client, {n} of each in alternating batches of {batch}: raw redb {raw_rate:.0}/s, \
         create_booking {booking_rate:.0}/s, ratio {:.1} % (target >= 80 %)",
        100.0 * booking_rate / raw_rate
    );

    let (mut raw_time, mut booking_time) = (Duration::ZERO, Duration::ZERO);
    for _ in 0..rounds {
        raw_time += raw.run_concurrent(batch, CLIENTS);
        booking_time += bookings.run_concurrent(batch, CLIENTS);
    }
    let (raw_rate, booking_rate) = (per_second(n, raw_time), per_second(n, booking_time));
    eprintln!(
        "durable commits, {CLIENTS} clients at once, {n} of each: raw redb {raw_rate:.0}/s, \
         create_booking {booking_rate:.0}/s (group commit), ratio {:.1} % (target >= 80 %)",
        100.0 * booking_rate / raw_rate
    );
}

/// Concurrent clients of the concurrent durable-commit figures.
const CLIENTS: u64 = 8;

criterion_group! {
    name = benches;
    config = Criterion::default()
        .sample_size(30)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(3));
    targets = quote, availability, every_rule, occupancy, booking_rate
}
criterion_main!(benches);
