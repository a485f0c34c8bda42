//! Power losses, in process: a seeded workload through [`Rental`] on a simulated disk,
//! the power cut after a random sync, the store reopened and checked (docs/DESIGN.md).

use std::sync::{Arc, Mutex};
use std::time::Duration;

use chrono::{Days, NaiveDate};

use super::disk::SyncPoint;
use super::sim::{FileId, Rng, SimDisk};
use super::{RedbStore, RedoError};
use crate::basics::clock::{Entropy, ManualClock};
use crate::basics::stay::Stay;
use crate::bookings::booking::{BookingQuery, NewBooking};
use crate::bookings::calendar::EntryKind;
use crate::bookings::change::Change;
use crate::bookings::lifecycle::Action;
use crate::store::{ReadRecords, ReadTx, Record, RecordKind, Store, StoreError, WriteRecords, WriteTx};
use crate::{Error, Rental, demo};

/// How often the workload checkpoints.
#[derive(Debug, Clone, Copy)]
enum Checkpoints {
    Never,
    Always,
    AtRandom,
}

/// Randomness for codes and ids from a seed, so both runs of a workload write the same.
struct SeededEntropy(Mutex<Rng>);

impl Entropy for SeededEntropy {
    fn fill(&self, buf: &mut [u8]) {
        let mut rng = self.0.lock().unwrap();
        for byte in buf {
            *byte = rng.next().to_le_bytes()[0];
        }
    }
}

const START: &str = "2027-03-01T09:00:00Z";
const USE_CASES: usize = 24;

/// A record the workload writes beside the bookings, so that the records'
/// tables and their time index go through the same power losses.
#[derive(Debug, serde::Serialize, serde::Deserialize)]
struct Visit {
    property: String,
    n: u64,
    at: chrono::DateTime<chrono::Utc>,
}

impl Record for Visit {
    const KIND: RecordKind = RecordKind { name: "sim_visit", per_property: true };
    fn key(&self) -> String {
        format!("{}/{:03}", self.property, self.n % 8)
    }
    fn at(&self) -> Option<chrono::DateTime<chrono::Utc>> {
        Some(self.at)
    }
}

/// The workload's engine on `disk`, opened (or reopened) there.
fn engine(disk: &SimDisk, seed: u64) -> Result<Rental<RedbStore>, StoreError> {
    let store = RedbStore::open_on(disk)?;
    let clock = Arc::new(ManualClock::new(START.parse().unwrap()));
    let entropy = Arc::new(SeededEntropy(Mutex::new(Rng::new(seed ^ 0xE17))));
    Ok(Rental::new(store).with_clock(clock).with_entropy(entropy))
}

/// Runs the workload of `seed` until it is done or the power goes; returns
/// what the store read after each use case that returned, and whether the
/// power went (one use case then was in flight).
fn run(disk: &SimDisk, seed: u64, checkpoints: Checkpoints) -> (Vec<String>, bool) {
    let Ok(rental) = engine(disk, seed) else {
        return (vec![String::new()], true);
    };
    let mut rng = Rng::new(seed);
    let mut states = vec![state(rental.store())];
    if rental.import_properties(&demo::properties()).is_err() {
        return (states, true);
    }
    states.push(state(rental.store()));
    for _ in 0..USE_CASES {
        let due = match checkpoints {
            Checkpoints::Never => false,
            Checkpoints::Always => true,
            Checkpoints::AtRandom => rng.below(4) == 0,
        };
        let every = if due { Duration::ZERO } else { Duration::MAX };
        rental.store().log().checkpoint_every(every);
        if rng.below(5) == 0 {
            rental.store().flusher.sync_now();
        }
        if let Err(Error::Store(_)) = use_case(&rental, &mut rng) {
            return (states, true);
        }
        states.push(state(rental.store()));
    }
    (states, false)
}

/// One use case, chosen by `rng`: a creation, a confirmation, a
/// cancellation, a change of dates, a block made or removed.
fn use_case(rental: &Rental<RedbStore>, rng: &mut Rng) -> crate::Result<()> {
    let slugs = ["sea-view", "alpine-cabin", "harbour-loft"];
    let slug = slugs[usize::try_from(rng.below(3)).unwrap()];
    let first = NaiveDate::from_ymd_opt(2027, 3, 10).unwrap() + Days::new(rng.below(40));
    let stay = Stay::new(first, first + Days::new(1 + rng.below(5))).unwrap();
    let codes: Vec<String> = {
        let read = rental.store().read()?;
        read.bookings(&BookingQuery { limit: 1000, ..BookingQuery::default() })?
            .into_iter()
            .map(|b| b.code.to_string())
            .collect()
    };
    let some_code = (!codes.is_empty()).then(|| codes[usize::try_from(rng.below(codes.len() as u64)).unwrap()].clone());
    match (rng.below(7), some_code) {
        (0, Some(code)) => rental.update_booking(&code, &Action::Confirm).map(drop),
        (1, Some(code)) => rental
            .update_booking(&code, &Action::Cancel { by: crate::bookings::lifecycle::Party::default(), reason: None })
            .map(drop),
        (2, Some(code)) => {
            let change = Change { check_in: Some(stay.check_in()), check_out: Some(stay.check_out()), guests: None };
            rental.update_booking(&code, &Action::Change(change)).map(drop)
        }
        (3, _) => rental.calendars().add_block(slug, stay, "maintenance").map(drop),
        (5, _) => {
            // Replaces one of a few keys, moving it in the time index, or removes it.
            let n = rng.below(16);
            let visit = Visit {
                property: slug.into(),
                n,
                at: START.parse::<chrono::DateTime<chrono::Utc>>().unwrap() + Days::new(rng.below(9)),
            };
            let mut tx = rental.store().write()?;
            if n >= 8 {
                tx.remove::<Visit>(&visit.key())?;
            } else {
                tx.put(&visit)?;
            }
            Ok(tx.commit()?)
        }
        (4, _) => {
            let blocks = rental.calendars().blocks(slug, None, None)?;
            match blocks.first() {
                Some(block) => rental.calendars().remove_block(slug, &block.id).map(drop),
                None => Ok(()),
            }
        }
        _ => {
            let request = NewBooking {
                property: crate::Slug::parse(slug).map_err(Error::from)?,
                check_in: stay.check_in(),
                check_out: stay.check_out(),
                guest_name: "Ada Lovelace".into(),
                guest_email: "ada@example.com".into(),
                guests: 1,
                notes: None,
                source: None,
                children: 0,
                pets: 0,
                promo_code: None,
                locale: None,
            };
            rental.create_booking(&request, None).map(drop)
        }
    }
    .or_else(|e| if matches!(e, Error::Store(_)) { Err(e) } else { Ok(()) })
}

/// What the store reads: every booking, every calendar, every event.
fn state(store: &RedbStore) -> String {
    let read = store.read().unwrap();
    let bookings = read.bookings(&BookingQuery { limit: 1000, ..BookingQuery::default() }).unwrap();
    let (from, to) = (NaiveDate::from_ymd_opt(2026, 1, 1).unwrap(), NaiveDate::from_ymd_opt(2029, 1, 1).unwrap());
    let calendars: Vec<_> =
        read.properties().unwrap().iter().map(|p| read.calendar(p.slug.as_str(), from, to).unwrap()).collect();
    let events = read.events_after(0, 10_000).unwrap();
    let visits = read.list_all::<Visit>("").unwrap();
    let due = read.due::<Visit>(chrono::DateTime::<chrono::Utc>::MAX_UTC, 1_000).unwrap();
    format!("{bookings:?}\n{calendars:?}\n{events:?}\n{visits:?}\n{due:?}")
}

/// No night is held twice (blocks may overlap each other, not a booking),
/// and every booking on a calendar is pending or confirmed.
fn check_invariants(store: &RedbStore) -> Result<(), String> {
    let read = store.read().unwrap();
    let (from, to) = (NaiveDate::from_ymd_opt(2026, 1, 1).unwrap(), NaiveDate::from_ymd_opt(2029, 1, 1).unwrap());
    for property in read.properties().unwrap() {
        let mut entries = read.calendar(property.slug.as_str(), from, to).unwrap();
        entries.sort_by_key(|e| e.stay.check_in());
        for (i, a) in entries.iter().enumerate() {
            let later = entries[i + 1..].iter().take_while(|b| b.stay.check_in() < a.stay.check_out());
            if let Some(b) = later.into_iter().find(|b| a.kind != EntryKind::Blocked || b.kind != EntryKind::Blocked) {
                return Err(format!("{} and {} share a night", a.holder, b.holder));
            }
        }
        for entry in entries.iter().filter(|e| e.kind != EntryKind::Blocked) {
            let booking = read.booking(entry.holder.as_str()).unwrap();
            if !booking.is_some_and(|b| b.is_active()) {
                return Err(format!("calendar entry {} has no active booking", entry.holder));
            }
        }
    }
    Ok(())
}

/// Opens the store after a power loss, perhaps losing the power again
/// during its recovery; checks integrity and the invariants; returns what it reads.
fn recover(disk: &SimDisk, seed: u64) -> Result<String, String> {
    let mut rng = Rng::new(seed ^ 0x5EED);
    if rng.below(4) == 0 {
        disk.cut_after_syncs(1 + rng.below(4));
        if let Ok(rental) = engine(disk, seed) {
            drop(rental);
        }
        disk.cut();
        disk.lose_power(rng.next());
    }
    let mut store = RedbStore::open_on(disk).map_err(|e| format!("the store does not open: {e}"))?;
    check_invariants(&store)?;
    let state = state(&store);
    match store.db.check_integrity() {
        Ok(true) => Ok(state),
        other => Err(format!("redb's integrity check: {other:?}")),
    }
}

/// The oracle runs the same workload on a disk whose power stays on and
/// notes what the store reads after each use case. After a power loss the
/// store must open, pass redb's integrity check, keep its invariants (no
/// night held twice, every calendar entry's booking active) and read as
/// after every acknowledged use case, plus at most the one in flight.
///
/// One power loss: runs the workload of `seed` with the power cut after a
/// random sync (`cut` picks which), reopens, and compares with `reference`.
fn crash_once(
    seed: u64,
    cut: u64,
    checkpoints: Checkpoints,
    removed: Option<SyncPoint>,
    reference: &[String],
) -> Result<(), String> {
    let disk = SimDisk::default();
    if let Some(point) = removed {
        disk.remove(point);
    }
    disk.cut_after_syncs(cut);
    let (states, cut_off) = run(&disk, seed, checkpoints);
    disk.cut();
    disk.lose_power(seed.wrapping_mul(31).wrapping_add(cut));
    let recovered = recover(&disk, seed.wrapping_add(cut)).map_err(|e| format!("seed {seed} cut {cut}: {e}"))?;
    let acked = states.len() - 1;
    let allowed = if cut_off { &reference[acked..(acked + 2).min(reference.len())] } else { &reference[acked..=acked] };
    if allowed.contains(&recovered) {
        return Ok(());
    }
    let lost = reference.iter().position(|s| *s == recovered);
    Err(format!("seed {seed} cut {cut}: {acked} use cases acknowledged, the store reads as after {lost:?}"))
}

/// The reference of `seed`: what the store reads after each use case with
/// the power on, and how many syncs the whole run made.
fn reference(seed: u64, checkpoints: Checkpoints) -> (Vec<String>, u64) {
    let disk = SimDisk::default();
    let (states, cut_off) = run(&disk, seed, checkpoints);
    assert!(!cut_off, "the power stays on");
    (states, disk.syncs())
}

/// Runs `seeds` workloads, each cut `cuts` times; returns the number of crashes and the failures.
fn crashes(seeds: std::ops::Range<u64>, cuts: u64, removed: Option<SyncPoint>) -> (u64, Vec<String>) {
    let mut failures = Vec::new();
    let mut count = 0;
    for seed in seeds {
        let checkpoints =
            [Checkpoints::Never, Checkpoints::Always, Checkpoints::AtRandom][usize::try_from(seed % 3).unwrap()];
        let (states, syncs) = reference(seed, checkpoints);
        let mut rng = Rng::new(seed);
        for _ in 0..cuts {
            let cut = 1 + rng.below(syncs);
            count += 1;
            if let Err(failure) = crash_once(seed, cut, checkpoints, removed, &states) {
                failures.push(failure);
            }
        }
    }
    (count, failures)
}

#[test]
fn no_acknowledged_use_case_is_lost_over_two_hundred_power_losses() {
    let (count, failures) = crashes(0..50, 4, None);
    assert!(count >= 200);
    assert!(failures.is_empty(), "{} of {count} power losses lost something:\n{}", failures.len(), failures.join("\n"));
}

/// The soak: `cargo test -p rental-core --release --lib power_loss -- --ignored --nocapture`.
#[test]
#[ignore = "a soak of 10,000 power losses"]
fn no_acknowledged_use_case_is_lost_over_ten_thousand_power_losses() {
    let started = std::time::Instant::now();
    let (count, failures) = crashes(1000..3500, 4, None);
    eprintln!("{count} power losses, {} lost something, in {:?}", failures.len(), started.elapsed());
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Removing `point` from the code makes some power loss lose an acknowledged use case.
fn bites(point: SyncPoint) {
    let (count, failures) = crashes(0..40, 4, Some(point));
    assert!(!failures.is_empty(), "without {point:?}, {count} power losses lost nothing");
}

#[test]
fn without_the_records_sync_a_power_loss_loses_a_commit() {
    bites(SyncPoint::Record);
}

#[test]
fn without_the_checkpoints_durable_commit_a_power_loss_loses_a_commit() {
    bites(SyncPoint::Checkpoint);
}

/// A log whose file name was never synced into its directory can vanish
/// with the power, and the commits it alone held with it.
#[test]
fn a_fresh_store_keeps_its_first_commits_when_the_power_goes_and_loses_them_without_the_directory_sync() {
    let lost = |removed: Option<SyncPoint>| {
        (0..16)
            .filter(|&seed| {
                let disk = SimDisk::default();
                if let Some(point) = removed {
                    disk.remove(point);
                }
                let rental = engine(&disk, seed).unwrap();
                rental.store().log().checkpoint_every(Duration::MAX);
                rental.import_properties(&demo::properties()).unwrap();
                disk.cut();
                drop(rental);
                disk.lose_power(seed);
                // A refusal to open (the log without its file) is a loss too.
                engine(&disk, seed).map_or(true, |reopened| reopened.all_properties().unwrap().is_empty())
            })
            .count()
    };
    assert_eq!(lost(None), 0);
    assert!(lost(Some(SyncPoint::Dir)) > 0, "without the directory sync the log's name is lost");
}

/// Writes enough between checkpoints that redb lets pages go into its file, unsynced.
fn fill(rental: &Rental<RedbStore>, from: u64, count: u64) {
    let start = NaiveDate::from_ymd_opt(2027, 4, 1).unwrap();
    for n in from..from + count {
        rental
            .calendars()
            .add_block("sea-view", Stay::new(start + Days::new(n), start + Days::new(n + 1)).unwrap(), &"x".repeat(400))
            .unwrap();
    }
}

/// The flusher's sync fails (EIO) and the kernel drops the pages it was to
/// write: the next checkpoint and every commit are refused until the store
/// is reopened, and then nothing acknowledged is missing.
#[test]
fn a_failed_flusher_sync_refuses_checkpoints_and_commits_until_reopened() {
    let outcome = |removed: Option<SyncPoint>| -> Result<usize, String> {
        let disk = SimDisk::default();
        if let Some(point) = removed {
            disk.remove(point);
        }
        let rental = engine(&disk, 7).unwrap();
        rental.import_properties(&demo::properties()).unwrap();
        rental.store().log().checkpoint_every(Duration::MAX);
        fill(&rental, 0, 150);
        disk.fail_next_sync(FileId::Db);
        rental.store().flusher.sync_now();
        rental.store().log().checkpoint_every(Duration::ZERO);
        let mut acked = 150;
        for n in 150..160 {
            let start = NaiveDate::from_ymd_opt(2027, 4, 1).unwrap() + Days::new(n);
            match rental.calendars().add_block("sea-view", Stay::new(start, start + Days::new(1)).unwrap(), "y") {
                Ok(_) => acked += 1,
                Err(Error::Store(e)) => assert_eq!(RedoError::of(&e), Some(&RedoError::Broken), "{e}"),
                Err(e) => panic!("{e}"),
            }
        }
        disk.cut();
        drop(rental);
        disk.lose_power(3);
        let reopened = engine(&disk, 7).map_err(|e| format!("does not open: {e}"))?;
        let (from, to) = (NaiveDate::from_ymd_opt(2027, 4, 1), NaiveDate::from_ymd_opt(2028, 3, 1));
        let blocks = reopened.calendars().blocks("sea-view", from, to).map_err(|e| e.to_string())?.len();
        if blocks == acked { Ok(acked) } else { Err(format!("{acked} blocks acknowledged, {blocks} read back")) }
    };
    assert_eq!(outcome(None), Ok(150), "the commits after the failed sync are refused, none is lost");
    let without = outcome(Some(SyncPoint::FlusherLatch));
    assert!(without.is_err(), "without the latch the checkpoint loses pages: {without:?}");
}

/// A use case whose redb commit fails after its record was synced is
/// taken back: it was reported as failed, and no power loss brings it
/// back, while without the take-back's sync one does.
#[test]
fn a_failed_commit_is_taken_back_for_good_and_comes_back_without_the_take_backs_sync() {
    let comes_back = |removed: Option<SyncPoint>, seed: u64| -> bool {
        let disk = SimDisk::default();
        if let Some(point) = removed {
            disk.remove(point);
        }
        let rental = engine(&disk, seed).unwrap();
        rental.import_properties(&demo::properties()).unwrap();
        rental.store().log().checkpoint_every(Duration::MAX);
        disk.fail_writes(FileId::Db);
        let start = NaiveDate::from_ymd_opt(2027, 4, 1).unwrap();
        let failed = (0..300)
            .find_map(|n| {
                let stay = Stay::new(start + Days::new(n), start + Days::new(n + 1)).unwrap();
                rental
                    .calendars()
                    .add_block("sea-view", stay, &"x".repeat(400))
                    .is_err()
                    .then_some(start + Days::new(n))
            })
            .expect("redb writes pages once its cache is full");
        disk.cut();
        drop(rental);
        disk.lose_power(seed);
        let reopened = engine(&disk, seed).unwrap();
        let blocks = reopened.calendars().blocks("sea-view", Some(failed), failed.succ_opt()).unwrap();
        !blocks.is_empty()
    };
    assert!((0..8).all(|seed| !comes_back(None, seed)), "a failed commit came back");
    assert!((0..8).any(|seed| comes_back(Some(SyncPoint::TakeBack), seed)), "without the sync it never came back");
}

/// A store written by schema 5, its 20 bookings durable, on a simulated disk.
fn schema_5_store() -> SimDisk {
    let disk = SimDisk::default();
    let store = RedbStore::open_on(&disk).unwrap();
    let mut tx = store.write().unwrap();
    for n in 0..20u64 {
        let day = NaiveDate::from_ymd_opt(2027, 1, 1).unwrap() + Days::new(2 * n);
        let booking = demo::booking(&format!("BK-MIGR{n:02}"), &day.to_string(), &day.succ_opt().unwrap().to_string());
        tx.put_booking(&booking).unwrap();
    }
    tx.commit().unwrap();
    let tx = store.db.begin_write().unwrap();
    tx.open_table(super::tables::META).unwrap().insert("schema_version", "5").unwrap();
    super::tests::unnumber_bookings(&tx);
    tx.commit().unwrap();
    drop(store);
    disk
}

/// The power goes at each sync of the open that migrates a schema 5 store
/// (it numbers the bookings): the next open finds every booking, numbered.
#[test]
fn a_power_loss_during_a_schema_migration_loses_no_booking() {
    let disk = schema_5_store();
    let before = disk.syncs();
    drop(RedbStore::open_on(&disk).unwrap());
    let syncs = disk.syncs() - before;
    assert!(syncs >= 3, "the open replays, migrates and closes: {syncs} syncs");
    for cut in 1..=syncs {
        let disk = schema_5_store();
        disk.cut_after_syncs(cut);
        drop(RedbStore::open_on(&disk));
        disk.cut();
        disk.lose_power(cut);
        let mut store = RedbStore::open_on(&disk).unwrap_or_else(|e| panic!("cut {cut}: {e}"));
        let read = store.read().unwrap();
        let found = (0..20).filter(|n| read.numbered_booking(&format!("BK-MIGR{n:02}")).unwrap().is_some()).count();
        assert_eq!(found, 20, "cut after sync {cut}");
        drop(read);
        assert_eq!(store.db.check_integrity().ok(), Some(true), "cut after sync {cut}");
    }
}
