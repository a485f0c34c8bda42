//! The visits the occupancy summary needs, kept between summaries so that a
//! summary reads no booking from the store (docs/PERFORMANCE.md, "Growth and memory").

use std::collections::{HashMap, HashSet};
use std::sync::{Mutex, MutexGuard, PoisonError};

use crate::bookings::booking::Booking;
use crate::bookings::visit::Visit;
use crate::error::Result;
use crate::stays::access_gate::GateFacts;
use crate::store::{ReadTx, Store};

/// The [`Visit`] of each stay the last summary needed (each property's
/// current and next stays, `stay_summary::needed_visits`), by booking code.
///
/// Empty until the first summary, which reads what it lacks from the store.
/// After each summary it holds exactly the codes that summary needed, so it
/// never holds more than a few visits per property, and stays that ended or
/// were cancelled drop out on their own.
///
/// Invalidated by writes: a booking written through this engine replaces
/// its visit here ([`VisitCache::take_in`]), and a property another process
/// changed loses its visits ([`VisitCache::forget`]), to be read again. Keyed
/// by code, a visit is found by its booking wherever that booking now is.
///
/// [`VisitCache::needed`] holds the lock while it reads the store, and
/// `take_in` takes the same lock after the write's commit: a write that
/// committed before the read began is in what it reads, and one that
/// committed after replaces what it kept once it is done.
#[derive(Debug, Default)]
pub(super) struct VisitCache {
    held: Mutex<HashMap<String, Held>>,
}

/// One kept visit and the property of its booking.
#[derive(Debug)]
struct Held {
    property: String,
    visit: Visit,
    /// What the access gate reads of the booking beside its visit.
    facts: GateFacts,
}

impl VisitCache {
    /// For each `(property, codes)` of `needed`, the visits of those codes:
    /// from memory, else from `store` (a code the store does not know is left
    /// out). Keeps exactly these visits, and lets go of every other.
    pub(super) fn needed<S: Store>(
        &self,
        store: &S,
        needed: &[(&str, Vec<&str>)],
    ) -> Result<Vec<Vec<(String, Visit, GateFacts)>>> {
        let mut held = self.lock();
        let mut read = None;
        let mut out = Vec::with_capacity(needed.len());
        for (property, codes) in needed {
            let mut visits = Vec::with_capacity(codes.len());
            for code in codes {
                if let Some(kept) = held.get(*code) {
                    visits.push(((*code).to_owned(), kept.visit.clone(), kept.facts));
                } else if let Some(kept) = stored(store, &mut read, property, code)? {
                    visits.push(((*code).to_owned(), kept.visit.clone(), kept.facts));
                    held.insert((*code).to_owned(), kept);
                }
            }
            out.push(visits);
        }
        // A booking's code is needed by its property only, so equal sizes mean nothing else is held.
        if held.len() > out.iter().map(Vec::len).sum() {
            let wanted: HashSet<&str> = needed.iter().flat_map(|(_, codes)| codes.iter().copied()).collect();
            held.retain(|code, _| wanted.contains(code.as_str()));
        }
        Ok(out)
    }

    /// Replaces the kept visit of each written booking that has one.
    pub(super) fn take_in(&self, bookings: &[Booking]) {
        let mut held = self.lock();
        for booking in bookings {
            if let Some(kept) = held.get_mut(booking.code.as_str()) {
                kept.property = booking.property.to_string();
                kept.visit = booking.visit.clone();
                kept.facts = GateFacts::of(booking);
            }
        }
    }

    /// Lets go of the visits of `properties`' bookings.
    pub(super) fn forget(&self, properties: &[&str]) {
        if properties.is_empty() {
            return;
        }
        self.lock().retain(|_, kept| !properties.contains(&kept.property.as_str()));
    }

    fn lock(&self) -> MutexGuard<'_, HashMap<String, Held>> {
        self.held.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// The visit of booking `code` of `property` read from `store`, in the
/// transaction `read` (opened by the first call); `None` when there is no such booking.
fn stored<'s, S: Store>(
    store: &'s S,
    read: &mut Option<S::Read<'s>>,
    property: &str,
    code: &str,
) -> Result<Option<Held>> {
    let tx = match read {
        Some(tx) => tx,
        empty => empty.insert(store.read()?),
    };
    Ok(tx.booking(code)?.map(|b| Held { property: property.to_owned(), facts: GateFacts::of(&b), visit: b.visit }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::demo;
    use crate::store::{MemoryStore, WriteTx};

    fn store_with(codes: &[&str]) -> MemoryStore {
        let store = MemoryStore::new();
        let mut tx = store.write().unwrap();
        for code in codes {
            tx.put_booking(&demo::booking(code, "2026-12-20", "2026-12-23")).unwrap();
        }
        tx.commit().unwrap();
        store
    }

    fn held(cache: &VisitCache) -> Vec<String> {
        let mut codes: Vec<String> = cache.lock().keys().cloned().collect();
        codes.sort();
        codes
    }

    #[test]
    fn it_holds_exactly_what_the_last_summary_needed() {
        let store = store_with(&["BK-A", "BK-B", "BK-C"]);
        let cache = VisitCache::default();
        let first = cache.needed(&store, &[("sea-view", vec!["BK-A", "BK-B"]), ("loft", vec!["BK-C", "BK-X"])]);
        assert_eq!(first.unwrap().iter().map(Vec::len).collect::<Vec<_>>(), [2, 1], "an unknown code is left out");
        assert_eq!(held(&cache), ["BK-A", "BK-B", "BK-C"]);
        cache.needed(&store, &[("sea-view", vec!["BK-B"]), ("loft", vec![])]).unwrap();
        assert_eq!(held(&cache), ["BK-B"], "ended stays are let go");
        cache.forget(&["loft"]);
        assert_eq!(held(&cache), ["BK-B"]);
        cache.forget(&["sea-view"]);
        assert!(held(&cache).is_empty());
    }
}
