//! Where the read use cases find properties and calendars: a store
//! transaction, or the in-memory snapshot a `Rental` keeps when it is its
//! store's only writer (see `Rental::with_read_cache`).

use std::borrow::Cow;
use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, PoisonError, RwLock};

use chrono::{Days, NaiveDate};

use crate::calendar::CalendarEntry;
use crate::error::Result;
use crate::keys::ApiKey;
use crate::property::Property;
use crate::stay::MAX_NIGHTS;
use crate::store::{ReadTx, StoreResult};

/// Properties and calendars, from wherever they are kept.
pub(super) trait ReadModel {
    /// A property by slug, active or not.
    fn property(&self, slug: &str) -> Result<Option<Cow<'_, Property>>>;
    /// Every property, by slug.
    fn properties(&self) -> Result<Vec<Cow<'_, Property>>>;
    /// At least the property's entries that share a night with `from..to` (more do no harm).
    fn calendar(&self, slug: &str, from: NaiveDate, to: NaiveDate) -> Result<Cow<'_, [CalendarEntry]>>;
    /// For each `(slug, from)`, at least that property's entries holding a night on or after `from`.
    fn calendars_from(&self, starts: &[(&str, NaiveDate)]) -> Result<Vec<Cow<'_, [CalendarEntry]>>>;
    /// How many of each property's bookings are pending.
    fn pending_counts(&self, slugs: &[&str]) -> Result<Vec<usize>>;
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

    fn calendars_from(&self, starts: &[(&str, NaiveDate)]) -> Result<Vec<Cow<'_, [CalendarEntry]>>> {
        Ok(self.0.calendars_from(starts)?.into_iter().map(Cow::Owned).collect())
    }

    fn pending_counts(&self, slugs: &[&str]) -> Result<Vec<usize>> {
        Ok(self.0.pending_counts(slugs)?)
    }
}

/// One property with every calendar entry it has, by check-in.
#[derive(Debug)]
struct PropertyState {
    property: Property,
    calendar: Vec<CalendarEntry>,
    pending: usize,
}

/// Every property of the store with its calendar, as of the last write.
#[derive(Debug, Default)]
pub(super) struct Snapshot {
    properties: BTreeMap<String, Arc<PropertyState>>,
}

impl Snapshot {
    /// Reads every property and calendar.
    fn load(tx: &impl ReadTx) -> StoreResult<Self> {
        let slugs: Vec<String> = tx.properties()?.into_iter().map(|p| p.slug.to_string()).collect();
        Snapshot::default().refreshed(tx, &slugs)
    }

    /// A copy with the properties `slugs` read again from `tx`.
    fn refreshed(&self, tx: &impl ReadTx, slugs: &[String]) -> StoreResult<Self> {
        let mut properties = self.properties.clone();
        let mut slugs: Vec<&String> = slugs.iter().collect();
        slugs.sort_unstable();
        slugs.dedup();
        for slug in slugs {
            match tx.property(slug)? {
                Some(property) => {
                    let calendar = tx.calendar(slug, NaiveDate::MIN, NaiveDate::MAX)?;
                    let pending = tx.pending_count(slug)?;
                    properties.insert(slug.clone(), Arc::new(PropertyState { property, calendar, pending }));
                }
                None => {
                    properties.remove(slug);
                }
            }
        }
        Ok(Snapshot { properties })
    }
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

    fn calendars_from(&self, starts: &[(&str, NaiveDate)]) -> Result<Vec<Cow<'_, [CalendarEntry]>>> {
        starts.iter().map(|(slug, from)| self.calendar(slug, *from, NaiveDate::MAX)).collect()
    }

    fn pending_counts(&self, slugs: &[&str]) -> Result<Vec<usize>> {
        Ok(slugs.iter().map(|slug| self.properties.get(*slug).map_or(0, |s| s.pending)).collect())
    }
}

/// The snapshot and the keys already seen, shared by every caller of a `Rental`.
#[derive(Debug, Default)]
pub(super) struct Cache {
    snapshot: RwLock<Option<Arc<Snapshot>>>,
    keys: RwLock<HashMap<[u8; 32], Arc<ApiKey>>>,
}

impl Cache {
    /// A cache filled from `tx`.
    pub(super) fn load(tx: &impl ReadTx) -> StoreResult<Self> {
        let snapshot = Snapshot::load(tx)?;
        Ok(Cache { snapshot: RwLock::new(Some(Arc::new(snapshot))), keys: RwLock::default() })
    }

    /// The current snapshot; `None` once a refresh has failed.
    pub(super) fn snapshot(&self) -> Option<Arc<Snapshot>> {
        self.snapshot.read().unwrap_or_else(PoisonError::into_inner).clone()
    }

    /// Reads `slugs` again after a write. Callers hold the write lock, so
    /// refreshes happen in commit order. If the store cannot be read, the
    /// snapshot is dropped and reads go to the store from then on.
    pub(super) fn refresh(&self, tx: StoreResult<impl ReadTx>, slugs: &[String]) {
        let mut slot = self.snapshot.write().unwrap_or_else(PoisonError::into_inner);
        let refreshed = match (slot.as_ref(), tx) {
            (Some(current), Ok(tx)) => current.refreshed(&tx, slugs).ok(),
            _ => None,
        };
        *slot = refreshed.map(Arc::new);
    }

    /// A key seen before under this secret digest.
    pub(super) fn key(&self, digest: &[u8; 32]) -> Option<Arc<ApiKey>> {
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
