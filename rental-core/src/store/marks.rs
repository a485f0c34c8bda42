//! Change marks: how a process learns what other processes wrote to a store
//! they share, so its read cache reads again only the properties that changed.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{PoisonError, RwLock};

/// The topic of the API keys: bumped by every revocation.
pub const KEYS_TOPIC: &str = "keys";

/// The topic of one property's data: the property, its bookings and blocks.
///
/// ```
/// assert_eq!(rental_core::store::property_topic("sea-view"), "property/sea-view");
/// ```
pub fn property_topic(slug: &str) -> String {
    format!("property/{slug}")
}

/// The property a topic names, if it names one.
pub fn topic_property(topic: &str) -> Option<&str> {
    topic.strip_prefix("property/")
}

/// The newest version known of each topic that any process changed, and a
/// generation that grows whenever one of them does.
#[derive(Debug, Default)]
pub struct ChangeMarks {
    versions: RwLock<HashMap<String, i64>>,
    generation: AtomicU64,
}

impl ChangeMarks {
    /// No topic known yet.
    pub fn new() -> Self {
        ChangeMarks::default()
    }

    /// Grows whenever a version grows: nothing to look at while it stays the same.
    pub fn generation(&self) -> u64 {
        self.generation.load(Ordering::Acquire)
    }

    /// Every topic's newest known version.
    pub fn versions(&self) -> HashMap<String, i64> {
        self.versions.read().unwrap_or_else(PoisonError::into_inner).clone()
    }

    /// The newest known version of one topic, if any process changed it.
    pub fn version(&self, topic: &str) -> Option<i64> {
        self.versions.read().unwrap_or_else(PoisonError::into_inner).get(topic).copied()
    }

    /// Takes in `version` of `topic`; an older one than known changes nothing.
    ///
    /// ```
    /// use rental_core::store::ChangeMarks;
    ///
    /// let marks = ChangeMarks::new();
    /// marks.note("keys", 3);
    /// let seen = marks.generation();
    /// marks.note("keys", 2);
    /// assert_eq!(marks.generation(), seen, "an older version is no news");
    /// marks.note("keys", 4);
    /// assert!(marks.generation() > seen);
    /// assert_eq!(marks.versions()["keys"], 4);
    /// assert_eq!((marks.version("keys"), marks.version("property/sea-view")), (Some(4), None));
    /// ```
    pub fn note(&self, topic: &str, version: i64) {
        let mut versions = self.versions.write().unwrap_or_else(PoisonError::into_inner);
        let known = versions.entry(topic.to_owned()).or_insert(i64::MIN);
        if version > *known {
            *known = version;
            self.generation.fetch_add(1, Ordering::AcqRel);
        }
    }
}
