//! Where the read use cases find properties and calendars: a store
//! transaction, or the in-memory snapshot a `Rental` keeps when it is its
//! store's only writer (see `Rental::with_read_cache`).

use std::borrow::Cow;
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError, RwLock};

use chrono::{DateTime, Days, NaiveDate, Utc};

use super::visit_cache::VisitCache;
use super::write::CacheChanges;
use crate::admin::keys::ApiKey;
use crate::basics::ids::BookingCode;
use crate::basics::stay::MAX_NIGHTS;
use crate::bookings::booking::Status;
use crate::bookings::calendar::{CalendarEntry, EntryKind};
use crate::bookings::visit::Visit;
use crate::error::Result;
use crate::properties::property::Property;
use crate::stays::occupancy;
use crate::store::{ChangeMarks, KEYS_TOPIC, ReadTx, Store, StoreResult, topic_property};

/// Properties and calendars, from wherever they are kept.
pub(super) trait ReadModel {
    /// A property by slug, active or not.
    fn property(&self, slug: &str) -> Result<Option<Cow<'_, Property>>>;
    /// Every property, by slug.
    fn properties(&self) -> Result<Vec<Cow<'_, Property>>>;
    /// At least the property's entries that share a night with `from..to` (more do no harm).
    fn calendar(&self, slug: &str, from: NaiveDate, to: NaiveDate) -> Result<Cow<'_, [CalendarEntry]>>;
    /// Every active property, by slug, with what the occupancy summary reads
    /// of it on its today, as `today_of` gives it.
    fn live_days(&self, today_of: &dyn Fn(&Property) -> NaiveDate) -> Result<Vec<LiveDay<'_>>>;
}

/// What the occupancy summary reads of one property on its today.
#[derive(Debug)]
pub(super) struct LiveDay<'a> {
    pub(super) property: Cow<'a, Property>,
    /// At least its entries holding a night on or after its yesterday, by check-in then holder.
    pub(super) calendar: Cow<'a, [CalendarEntry]>,
    /// How many of its bookings are pending.
    pub(super) pending: usize,
    /// Where in `calendar` the first confirmed stay arriving after its today is.
    pub(super) next_confirmed: Option<usize>,
}

impl LiveDay<'_> {
    fn into_owned(self) -> LiveDay<'static> {
        LiveDay {
            property: Cow::Owned(self.property.into_owned()),
            calendar: Cow::Owned(self.calendar.into_owned()),
            pending: self.pending,
            next_confirmed: self.next_confirmed,
        }
    }
}

/// The night before `today`: the summary's first, so that stays leaving today are seen.
fn yesterday(today: NaiveDate) -> NaiveDate {
    today.pred_opt().unwrap_or(today)
}

/// A store transaction as a read model.
pub(super) struct FromStore<'a, T>(pub &'a T);

impl<T: ReadTx> ReadModel for FromStore<'_, T> {
    fn property(&self, slug: &str) -> Result<Option<Cow<'_, Property>>> {
        Ok(self.0.property(slug)?.map(Cow::Owned))
    }

    fn properties(&self) -> Result<Vec<Cow<'_, Property>>> {
        Ok(self.0.properties()?.into_iter().map(Cow::Owned).collect())
    }

    fn calendar(&self, slug: &str, from: NaiveDate, to: NaiveDate) -> Result<Cow<'_, [CalendarEntry]>> {
        Ok(Cow::Owned(self.0.calendar(slug, from, to)?))
    }

    fn live_days(&self, today_of: &dyn Fn(&Property) -> NaiveDate) -> Result<Vec<LiveDay<'_>>> {
        let mut properties = self.0.properties()?;
        properties.retain(|p| p.active);
        let todays: Vec<NaiveDate> = properties.iter().map(today_of).collect();
        let starts: Vec<(&str, NaiveDate)> =
            properties.iter().zip(&todays).map(|(p, today)| (p.slug.as_str(), yesterday(*today))).collect();
        let calendars = self.0.calendars_from(&starts)?;
        let slugs: Vec<&str> = starts.iter().map(|(slug, _)| *slug).collect();
        let pending = self.0.pending_counts(&slugs)?;
        let days = properties.into_iter().zip(calendars).zip(pending).zip(todays);
        Ok(days
            .map(|(((property, calendar), pending), today)| LiveDay {
                next_confirmed: occupancy::next_confirmed(&calendar, today),
                property: Cow::Owned(property),
                calendar: Cow::Owned(calendar),
                pending,
            })
            .collect())
    }
}

/// One property with the calendar entries that hold a night on or after the
/// snapshot's horizon, by check-in then holder, and what it takes to count
/// its pending bookings: those are its `Held` entries, and the few whose
/// stays ended before the horizon (no code is kept per pending stay ahead).
#[derive(Debug, Clone)]
struct PropertyState {
    property: Property,
    calendar: Vec<CalendarEntry>,
    /// The check-in of each confirmed entry of `calendar`, in order: the
    /// summary finds the next confirmed arrival without walking the pending ones.
    confirmed: Vec<NaiveDate>,
    /// How many entries of `calendar` are `Held`: pending bookings.
    held: usize,
    /// The codes of pending bookings whose stays ended before the horizon.
    ended_pending: BTreeSet<String>,
}

impl PropertyState {
    fn new(property: Property) -> Self {
        PropertyState { property, calendar: Vec::new(), confirmed: Vec::new(), held: 0, ended_pending: BTreeSet::new() }
    }

    /// Holds `calendar` (by check-in then holder) in place of the current one.
    fn set_calendar(&mut self, calendar: Vec<CalendarEntry>) {
        self.confirmed = calendar.iter().filter(|e| e.kind == EntryKind::Booked).map(|e| e.stay.check_in()).collect();
        self.held = calendar.iter().filter(|e| e.kind == EntryKind::Held).count();
        self.calendar = calendar;
    }

    /// Takes `pending` (the codes of its pending bookings) as this property's:
    /// the ones without a `Held` entry here are those whose stays ended.
    fn set_pending(&mut self, pending: &[BookingCode]) {
        let held: BTreeSet<&str> =
            self.calendar.iter().filter(|e| e.kind == EntryKind::Held).map(|e| e.holder.as_str()).collect();
        let ended = pending.iter().filter(|code| !held.contains(code.as_str()));
        self.ended_pending = ended.map(ToString::to_string).collect();
    }

    /// How many of the property's bookings are pending.
    fn pending(&self) -> usize {
        self.held + self.ended_pending.len()
    }

    /// Puts `entry` in place of the holder's current one (if any); `None` only removes.
    fn replace(&mut self, holder: &str, entry: Option<CalendarEntry>, horizon: NaiveDate) {
        if let Some(at) = self.calendar.iter().position(|e| e.holder == holder) {
            let old = self.calendar.remove(at);
            if old.kind == EntryKind::Held {
                self.held -= 1;
            }
            if old.kind == EntryKind::Booked
                && let Some(at) = self.confirmed.iter().position(|d| *d == old.stay.check_in())
            {
                self.confirmed.remove(at);
            }
        }
        if let Some(entry) = entry.filter(|e| e.stay.check_out() > horizon) {
            let check_in = entry.stay.check_in();
            match entry.kind {
                EntryKind::Booked => {
                    self.confirmed.insert(self.confirmed.partition_point(|d| *d <= check_in), check_in);
                }
                EntryKind::Held => self.held += 1,
                EntryKind::Blocked => {}
            }
            let at =
                self.calendar.partition_point(|e| (e.stay.check_in(), e.holder.as_str()) < (check_in, &entry.holder));
            self.calendar.insert(at, entry);
        }
    }

    /// What the summary reads of this property on `today` (on or after the
    /// horizon): the whole calendar, which holds nothing that ended earlier.
    fn live_day(&self, today: NaiveDate) -> LiveDay<'_> {
        let arriving = self.confirmed.partition_point(|d| *d <= today);
        let next_confirmed = self.confirmed.get(arriving).and_then(|check_in| {
            let at = self.calendar.partition_point(|e| e.stay.check_in() < *check_in);
            self.calendar[at..].iter().position(|e| e.kind == EntryKind::Booked).map(|i| at + i)
        });
        LiveDay {
            property: Cow::Borrowed(&self.property),
            calendar: Cow::Borrowed(&self.calendar),
            pending: self.pending(),
            next_confirmed,
        }
    }
}

/// Every property of the store with its live calendar: the nights from
/// `horizon` on, as of the last write. Earlier nights are read from the store.
#[derive(Debug, Clone)]
pub(super) struct Snapshot {
    properties: BTreeMap<String, Arc<PropertyState>>,
    horizon: NaiveDate,
}

impl Snapshot {
    /// Reads every property with its calendar from the horizon of `now` on,
    /// and its pending bookings, one property at a time.
    fn load(tx: &impl ReadTx, now: DateTime<Utc>) -> StoreResult<Self> {
        let mut snapshot = Snapshot { properties: BTreeMap::new(), horizon: horizon(now) };
        for property in tx.properties()? {
            let slug = property.slug.to_string();
            let state = snapshot.read_state(tx, property)?;
            snapshot.properties.insert(slug, Arc::new(state));
        }
        Ok(snapshot)
    }

    /// Reads `property`'s calendar from the horizon on, and its pending bookings.
    fn read_state(&self, tx: &impl ReadTx, property: Property) -> StoreResult<PropertyState> {
        let slug = property.slug.to_string();
        let mut state = PropertyState::new(property);
        let mut calendar = tx.calendar(&slug, self.horizon, NaiveDate::MAX)?;
        calendar.retain(|e| e.stay.check_out() > self.horizon);
        state.set_calendar(calendar);
        state.set_pending(&tx.pending_codes_of(&slug)?);
        Ok(state)
    }

    /// Takes in what one committed write changed, in the order it wrote it.
    fn apply(&mut self, changes: &CacheChanges, now: DateTime<Utc>) {
        self.advance(horizon(now));
        let horizon = self.horizon;
        for property in &changes.properties {
            let state = self
                .properties
                .entry(property.slug.to_string())
                .or_insert_with(|| Arc::new(PropertyState::new(property.clone())));
            Arc::make_mut(state).property = property.clone();
        }
        for booking in &changes.bookings {
            if let Some(state) = self.properties.get_mut(booking.property.as_str()) {
                let state = Arc::make_mut(state);
                state.replace(booking.code.as_str(), CalendarEntry::of_booking(booking), horizon);
                if booking.status == Status::Pending && booking.check_out() <= horizon {
                    state.ended_pending.insert(booking.code.to_string());
                } else {
                    state.ended_pending.remove(booking.code.as_str());
                }
            }
        }
        for block in &changes.blocks {
            if let Some(state) = self.properties.get_mut(block.property.as_str()) {
                Arc::make_mut(state).replace(&block.id, Some(CalendarEntry::of_block(block)), horizon);
            }
        }
        for block in &changes.removed_blocks {
            if let Some(state) = self.properties.get_mut(block.property.as_str()) {
                Arc::make_mut(state).replace(&block.id, None, horizon);
            }
        }
    }

    /// Reads property `slug` again from `tx`, with its calendar from the
    /// horizon on and its pending bookings, in place of what the snapshot held.
    fn reload(&mut self, tx: &impl ReadTx, slug: &str) -> StoreResult<()> {
        let Some(property) = tx.property(slug)? else {
            self.properties.remove(slug);
            return Ok(());
        };
        let state = self.read_state(tx, property)?;
        self.properties.insert(slug.to_owned(), Arc::new(state));
        Ok(())
    }

    /// Moves the horizon forward to `to`, letting go of the stays that ended before it.
    fn advance(&mut self, to: NaiveDate) {
        if to <= self.horizon {
            return;
        }
        self.horizon = to;
        for state in self.properties.values_mut() {
            if state.calendar.iter().any(|e| e.stay.check_out() <= to) {
                let state = Arc::make_mut(state);
                let (calendar, ended): (Vec<_>, Vec<_>) =
                    std::mem::take(&mut state.calendar).into_iter().partition(|e| e.stay.check_out() > to);
                let ended_held = ended.into_iter().filter(|e| e.kind == EntryKind::Held).map(|e| e.holder.into());
                state.ended_pending.extend(ended_held);
                state.set_calendar(calendar);
            }
        }
    }

    /// Every active property's [`LiveDay`] on its today, as `today_of` gives it;
    /// `None` when some property's yesterday lies before the horizon (a clock set back).
    fn covered_live_days(&self, today_of: &dyn Fn(&Property) -> NaiveDate) -> Option<Vec<LiveDay<'_>>> {
        let active = self.properties.values().filter(|s| s.property.active);
        active
            .map(|state| {
                let today = today_of(&state.property);
                self.covers(yesterday(today)).then(|| state.live_day(today))
            })
            .collect()
    }

    /// True when the snapshot holds every entry sharing a night on or after `from`.
    fn covers(&self, from: NaiveDate) -> bool {
        from >= self.horizon
    }
}

/// The first night a snapshot taken at `now` holds. Three days back: every
/// property's local yesterday (the summary's earliest night) is on or after it,
/// in any zone.
fn horizon(now: DateTime<Utc>) -> NaiveDate {
    let today = now.date_naive();
    today.checked_sub_days(Days::new(3)).unwrap_or(today)
}

impl ReadModel for Snapshot {
    fn property(&self, slug: &str) -> Result<Option<Cow<'_, Property>>> {
        Ok(self.properties.get(slug).map(|s| Cow::Borrowed(&s.property)))
    }

    fn properties(&self) -> Result<Vec<Cow<'_, Property>>> {
        Ok(self.properties.values().map(|s| Cow::Borrowed(&s.property)).collect())
    }

    fn calendar(&self, slug: &str, from: NaiveDate, to: NaiveDate) -> Result<Cow<'_, [CalendarEntry]>> {
        let Some(state) = self.properties.get(slug) else { return Ok(Cow::Borrowed(&[])) };
        // Entries are sorted by check-in and span at most MAX_NIGHTS, so the
        // ones sharing a night with from..to start in [from - MAX_NIGHTS, to).
        let earliest = from.checked_sub_days(Days::new(MAX_NIGHTS.into())).unwrap_or(NaiveDate::MIN);
        let start = state.calendar.partition_point(|e| e.stay.check_in() < earliest);
        let end = state.calendar.partition_point(|e| e.stay.check_in() < to);
        Ok(Cow::Borrowed(&state.calendar[start..end.max(start)]))
    }

    fn live_days(&self, today_of: &dyn Fn(&Property) -> NaiveDate) -> Result<Vec<LiveDay<'_>>> {
        let active = self.properties.values().filter(|s| s.property.active);
        Ok(active.map(|state| state.live_day(today_of(&state.property))).collect())
    }
}

/// The snapshot, and the store for the nights before its horizon.
pub(super) struct Layered<'a, S> {
    pub snapshot: &'a Snapshot,
    pub store: &'a S,
}

impl<S: Store> ReadModel for Layered<'_, S> {
    fn property(&self, slug: &str) -> Result<Option<Cow<'_, Property>>> {
        self.snapshot.property(slug)
    }

    fn properties(&self) -> Result<Vec<Cow<'_, Property>>> {
        self.snapshot.properties()
    }

    fn calendar(&self, slug: &str, from: NaiveDate, to: NaiveDate) -> Result<Cow<'_, [CalendarEntry]>> {
        if self.snapshot.covers(from) {
            return self.snapshot.calendar(slug, from, to);
        }
        Ok(Cow::Owned(self.store.read()?.calendar(slug, from, to)?))
    }

    fn live_days(&self, today_of: &dyn Fn(&Property) -> NaiveDate) -> Result<Vec<LiveDay<'_>>> {
        if let Some(days) = self.snapshot.covered_live_days(today_of) {
            return Ok(days);
        }
        let tx = self.store.read()?;
        Ok(FromStore(&tx).live_days(today_of)?.into_iter().map(LiveDay::into_owned).collect())
    }
}

/// The snapshot, the visits the summary needs and the keys already seen,
/// shared by every caller of a `Rental`.
///
/// The snapshot is read from the store on the first read that needs it, not
/// when the cache is made: a server that restarts over a large store holds
/// no calendar in memory until a request asks for one (docs/PERFORMANCE.md, "Growth and memory").
///
/// Over a store that other processes write too ([`Store::change_marks`]),
/// each read first catches up: the properties whose change version grew are
/// read again (and their visits forgotten), and a new keys version forgets every key seen.
#[derive(Debug, Default)]
pub(super) struct Cache {
    /// `None` until the first read loads it.
    snapshot: RwLock<Option<Arc<Snapshot>>>,
    /// The visits the last summary needed; starts empty. Its lock is taken
    /// after `snapshot` and `seen` when they are held.
    visits: VisitCache,
    keys: RwLock<HashMap<[u8; 32], Arc<ApiKey>>>,
    /// What the cache has caught up with. Taken after `snapshot` when both are held.
    seen: Mutex<Seen>,
    /// The marks' generation last caught up with (keys and properties): while the
    /// marks stay at it, a read looks at nothing else.
    caught_up: AtomicU64,
}

/// The change marks a cache has taken in.
#[derive(Debug, Default)]
struct Seen {
    /// The marks' generation last caught up with.
    generation: u64,
    /// The version of each topic that the snapshot (or the key cache) holds.
    versions: HashMap<String, i64>,
}

impl Seen {
    /// The topics of `current` newer than what was seen.
    fn stale(&self, current: &HashMap<String, i64>) -> Vec<String> {
        let newer = current.iter().filter(|(topic, v)| self.versions.get(*topic).is_none_or(|seen| seen < *v));
        newer.map(|(topic, _)| topic.clone()).collect()
    }
}

impl Cache {
    /// An empty cache; the snapshot is loaded by the first [`Cache::snapshot`].
    pub(super) fn new() -> Self {
        Cache::default()
    }

    /// The snapshot as of the last write, read from `store` if this is the first call.
    ///
    /// The load holds the snapshot's lock while it reads, and [`Cache::apply`]
    /// takes the same lock: a write that committed before the load's
    /// transaction began is in what it reads, and one that committed after
    /// is applied once the load is done (applying a change twice does nothing more).
    pub(super) fn snapshot<S: Store>(&self, store: &S, now: DateTime<Utc>) -> Result<Arc<Snapshot>> {
        if let Some(marks) = store.change_marks() {
            self.catch_up(store, &marks)?;
        }
        if let Some(snapshot) = self.snapshot.read().unwrap_or_else(PoisonError::into_inner).as_ref() {
            return Ok(Arc::clone(snapshot));
        }
        let mut slot = self.snapshot.write().unwrap_or_else(PoisonError::into_inner);
        if let Some(snapshot) = slot.as_ref() {
            return Ok(Arc::clone(snapshot));
        }
        let tx = store.read()?;
        let snapshot = Arc::new(Snapshot::load(&tx, now)?);
        self.lock_seen().versions.extend(tx.change_versions()?);
        *slot = Some(Arc::clone(&snapshot));
        Ok(snapshot)
    }

    /// Takes in what other processes wrote since the last look: forgets the
    /// keys if any key changed, and reads again each property whose version
    /// grew, all from one store snapshot. Costs nothing while the marks stand still.
    fn catch_up<S: Store>(&self, store: &S, marks: &ChangeMarks) -> Result<()> {
        let generation = marks.generation();
        if self.caught_up.load(Ordering::Acquire) == generation || self.lock_seen().generation == generation {
            return Ok(());
        }
        let current = marks.versions();
        self.catch_up_keys(current.get(KEYS_TOPIC).copied());
        let mut slot = self.snapshot.write().unwrap_or_else(PoisonError::into_inner);
        let mut seen = self.lock_seen();
        let stale = seen.stale(&current);
        let slugs: Vec<&str> = stale.iter().filter_map(|t| topic_property(t)).collect();
        self.visits.forget(&slugs);
        if let (Some(snapshot), false) = (slot.as_mut(), slugs.is_empty()) {
            let tx = store.read()?;
            let versions = tx.change_versions()?;
            let snapshot = Arc::make_mut(snapshot);
            for slug in slugs {
                snapshot.reload(&tx, slug)?;
            }
            seen.versions.extend(versions);
        } else if slot.is_some() {
            seen.versions.extend(current);
        }
        seen.generation = generation;
        self.caught_up.store(generation, Ordering::Release);
        Ok(())
    }

    /// Forgets every key seen when the keys' `version` is newer than the one seen.
    fn catch_up_keys(&self, version: Option<i64>) {
        let Some(version) = version else { return };
        let mut seen = self.lock_seen();
        if seen.versions.get(KEYS_TOPIC).is_none_or(|v| *v < version) {
            seen.versions.insert(KEYS_TOPIC.to_owned(), version);
            drop(seen);
            self.forget_keys();
        }
    }

    fn lock_seen(&self) -> MutexGuard<'_, Seen> {
        self.seen.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Takes in a committed write's changes. Callers hold the write lock, so
    /// changes arrive in commit order. Before the first load there is nothing
    /// to update: the load will read them from the store.
    pub(super) fn apply(&self, changes: &CacheChanges, now: DateTime<Utc>) {
        if changes.keys_revoked {
            self.forget_keys();
        }
        let mut slot = self.snapshot.write().unwrap_or_else(PoisonError::into_inner);
        if let Some(snapshot) = slot.as_mut() {
            Arc::make_mut(snapshot).apply(changes, now);
        }
        drop(slot);
        self.visits.take_in(&changes.bookings);
    }

    /// For each `(property, codes)`, the visits of those bookings, from
    /// memory once a summary has asked for them (see [`VisitCache`]).
    pub(super) fn visits<S: Store>(
        &self,
        store: &S,
        needed: &[(&str, Vec<&str>)],
    ) -> Result<Vec<Vec<(String, Visit, crate::stays::access_gate::GateFacts)>>> {
        self.visits.needed(store, needed)
    }

    /// A key seen before under this secret digest, unless keys changed
    /// since (in this process or, per `marks`, another).
    pub(super) fn key(&self, digest: &[u8; 32], marks: Option<&ChangeMarks>) -> Option<Arc<ApiKey>> {
        if let Some(marks) = marks
            && marks.generation() != self.caught_up.load(Ordering::Acquire)
        {
            self.catch_up_keys(marks.version(KEYS_TOPIC));
        }
        self.keys.read().unwrap_or_else(PoisonError::into_inner).get(digest).cloned()
    }

    /// Remembers the key of a secret digest.
    pub(super) fn remember_key(&self, digest: [u8; 32], key: ApiKey) {
        self.keys.write().unwrap_or_else(PoisonError::into_inner).insert(digest, Arc::new(key));
    }

    /// Forgets every key, after one changed.
    pub(super) fn forget_keys(&self) {
        self.keys.write().unwrap_or_else(PoisonError::into_inner).clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::basics::short_text::ShortText;
    use crate::basics::stay::Stay;
    use crate::bookings::booking::Booking;
    use crate::demo;
    use crate::store::WriteTx;

    fn entry(holder: &str, check_in: NaiveDate, nights: u64, kind: EntryKind) -> CalendarEntry {
        let stay = Stay::new(check_in, check_in + Days::new(nights)).unwrap();
        CalendarEntry { holder: holder.into(), stay, kind, guest_name: ShortText::default(), guests: 1 }
    }

    /// The index's answer, as a holder, against a walk of the whole calendar.
    fn next_confirmed_both_ways(state: &PropertyState, today: NaiveDate) -> (Option<String>, Option<String>) {
        let day = state.live_day(today);
        let indexed = day.next_confirmed.map(|i| day.calendar[i].holder.to_string());
        let walked = occupancy::next_confirmed(&state.calendar, today).map(|i| state.calendar[i].holder.to_string());
        (indexed, walked)
    }

    #[test]
    fn the_next_confirmed_arrival_follows_every_write_and_the_horizon() {
        let start: NaiveDate = "2026-12-01".parse().unwrap();
        let horizon = start - Days::new(3);
        let mut state = PropertyState::new(demo::sea_view());
        // Forty stays of two nights, every fifth one confirmed, written out of order.
        for i in (0..40u64).rev() {
            let kind = if i % 5 == 0 { EntryKind::Booked } else { EntryKind::Held };
            state.replace(
                &format!("BK-{i:02}"),
                Some(entry(&format!("BK-{i:02}"), start + Days::new(2 * i), 2, kind)),
                horizon,
            );
        }
        let check = |state: &PropertyState, expected: &[(u64, Option<&str>)]| {
            for (offset, holder) in expected {
                let (indexed, walked) = next_confirmed_both_ways(state, start + Days::new(*offset));
                assert_eq!(indexed.as_deref(), *holder, "day {offset}");
                assert_eq!(indexed, walked, "day {offset}");
            }
        };
        check(&state, &[(0, Some("BK-05")), (9, Some("BK-05")), (10, Some("BK-10")), (69, Some("BK-35")), (70, None)]);

        // A pending stay confirmed, a confirmed one cancelled, one moved.
        state.replace("BK-03", Some(entry("BK-03", start + Days::new(6), 2, EntryKind::Booked)), horizon);
        state.replace("BK-05", None, horizon);
        state.replace("BK-10", Some(entry("BK-10", start + Days::new(90), 2, EntryKind::Booked)), horizon);
        check(&state, &[(0, Some("BK-03")), (6, Some("BK-15")), (69, Some("BK-35")), (70, Some("BK-10")), (90, None)]);

        // Stays that ended before a later horizon leave the index with the calendar.
        let mut snapshot = Snapshot { properties: BTreeMap::from([("sea-view".into(), Arc::new(state))]), horizon };
        snapshot.advance(start + Days::new(20));
        let state = &snapshot.properties["sea-view"];
        assert!(state.calendar.iter().all(|e| e.stay.check_out() > start + Days::new(20)));
        assert_eq!(state.confirmed.len(), state.calendar.iter().filter(|e| e.kind == EntryKind::Booked).count());
        check(state, &[(20, Some("BK-15")), (30, Some("BK-20"))]);
    }

    #[test]
    fn a_pending_stay_counts_until_confirmed_or_cancelled_also_after_it_ended() {
        let mut ahead = demo::booking("BK-AHEAD1", "2026-12-20", "2026-12-23");
        let mut ending = demo::booking("BK-ENDING", "2026-12-02", "2026-12-04");
        let mut ended = demo::booking("BK-ENDED1", "2026-11-01", "2026-11-03");
        let slug = ahead.property.to_string();
        let mut state = PropertyState::new(demo::sea_view());
        state.property.slug = ahead.property.clone();
        let horizon: NaiveDate = "2026-11-28".parse().unwrap();
        let mut snapshot = Snapshot { properties: BTreeMap::from([(slug.clone(), Arc::new(state))]), horizon };
        let now = |day: &str| format!("{day}T12:00:00Z").parse::<DateTime<Utc>>().unwrap();
        let write = |snapshot: &mut Snapshot, bookings: &[&Booking], at: &str| {
            let bookings = bookings.iter().map(|b| (*b).clone()).collect();
            snapshot.apply(&CacheChanges { bookings, ..CacheChanges::default() }, now(at));
        };
        let pending = |snapshot: &Snapshot| snapshot.properties[&slug].pending();

        write(&mut snapshot, &[&ahead, &ending, &ended], "2026-12-01");
        assert_eq!(pending(&snapshot), 3, "two held in the calendar, one ended before the horizon");
        write(&mut snapshot, &[], "2026-12-10");
        assert_eq!(pending(&snapshot), 3, "a pending stay that ends is still pending");
        assert_eq!(snapshot.properties[&slug].calendar.len(), 1);

        ending.status = Status::Confirmed;
        ended.status = Status::Cancelled;
        write(&mut snapshot, &[&ending, &ended], "2026-12-10");
        assert_eq!(pending(&snapshot), 1);
        ahead.status = Status::Confirmed;
        write(&mut snapshot, &[&ahead], "2026-12-10");
        assert_eq!(pending(&snapshot), 0);
    }

    /// Writes pending stays ahead and ended, a confirmed one and a cancelled
    /// one over two properties, then loads a snapshot from `store`.
    fn loaded_from<S: Store>(store: &S) -> Snapshot {
        let mut tx = store.write().unwrap();
        for property in demo::properties() {
            tx.put_property(&property).unwrap();
        }
        let mut bookings = vec![
            demo::booking("BK-AHEAD1", "2026-12-20", "2026-12-23"),
            demo::booking("BK-ENDED1", "2026-11-01", "2026-11-03"),
            demo::booking("BK-CONFIR", "2026-12-24", "2026-12-26"),
            demo::booking("BK-CANCEL", "2026-12-27", "2026-12-29"),
            demo::booking("BK-OTHER1", "2026-12-20", "2026-12-23"),
        ];
        bookings[2].status = Status::Confirmed;
        bookings[3].status = Status::Cancelled;
        bookings[4].property = demo::alpine_cabin().slug;
        for booking in &bookings {
            tx.put_booking(booking).unwrap();
        }
        tx.commit().unwrap();
        let now = "2026-12-01T12:00:00Z".parse::<DateTime<Utc>>().unwrap();
        Snapshot::load(&store.read().unwrap(), now).unwrap()
    }

    #[test]
    fn a_loaded_snapshot_counts_each_property_s_pending_stays_ahead_and_ended() {
        check_loaded(&loaded_from(&crate::MemoryStore::new()));
    }

    #[cfg(feature = "redb")]
    #[test]
    fn a_snapshot_loaded_from_redb_counts_each_property_s_pending_stays() {
        let dir = tempfile::tempdir().unwrap();
        check_loaded(&loaded_from(&crate::RedbStore::open_dir(dir.path()).unwrap()));
    }

    fn check_loaded(snapshot: &Snapshot) {
        let sea_view = &snapshot.properties["sea-view"];
        assert_eq!(sea_view.pending(), 2, "one held ahead, one ended before the horizon");
        assert_eq!(sea_view.calendar.len(), 2, "the pending and the confirmed stay ahead");
        assert_eq!(snapshot.properties["alpine-cabin"].pending(), 1);
        assert_eq!(snapshot.properties["harbour-loft"].pending(), 0);
    }
}
