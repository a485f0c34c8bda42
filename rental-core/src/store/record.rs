//! Records: documents under a key, of a named kind, with an optional time
//! index. A store keeps them untyped; a new kind of record touches no store.
//!
//! A store implements five untyped methods ([`ReadTx::record`],
//! [`ReadTx::records`], [`ReadTx::records_due`], [`WriteTx::put_record`],
//! [`WriteTx::remove_record`]); callers use the typed ones of
//! [`ReadRecords`] and [`WriteRecords`], which every transaction has.

use chrono::{DateTime, Utc};
use serde::Serialize;
use serde::de::DeserializeOwned;

use super::{ReadTx, StoreError, StoreResult, WriteTx};

/// A kind of record: its name (the store keeps kinds apart by it) and whether
/// each record belongs to one property, whose slug then begins its key:
/// `"{slug}/..."` (or is the whole key: `"{slug}"`).
///
/// A store that several processes share locks by it: a write for some
/// properties ([`Store::write_for`](super::Store::write_for)) takes the
/// property's lock for a record of a per-property kind, and every other
/// write's lock otherwise.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct RecordKind {
    /// The kind's name, unique among kinds: `api_key`, `webhook`, ...
    pub name: &'static str,
    /// True when each key begins with the slug of the property it belongs
    /// to, then `/` (or is the slug alone, for the property itself).
    pub per_property: bool,
}

impl RecordKind {
    /// The property a key of this kind belongs to: its first segment, for a
    /// per-property kind; `None` for a kind that is no property's.
    pub fn property_of<'k>(&self, key: &'k str) -> Option<&'k str> {
        self.per_property.then(|| key.split_once('/').map_or(key, |(slug, _)| slug))
    }
}

/// A record as a store keeps it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RecordRow {
    /// Its key, unique within its kind; keys order bytewise.
    pub key: String,
    /// Its place in the kind's time index (milliseconds since 1970), if it has one.
    pub at: Option<i64>,
    /// The record itself, a JSON document, kept as it is.
    pub doc: Vec<u8>,
}

/// A typed record: what it is stored as, under which key, at which time.
///
/// ```
/// use chrono::{DateTime, Utc};
/// use rental_core::{MemoryStore, ReadRecords, Record, RecordKind, Store, WriteRecords, WriteTx};
///
/// #[derive(serde::Serialize, serde::Deserialize, Debug, PartialEq)]
/// struct Reminder { property: String, id: String, due: DateTime<Utc> }
///
/// impl Record for Reminder {
///     const KIND: RecordKind = RecordKind { name: "reminder", per_property: true };
///     fn key(&self) -> String { format!("{}/{}", self.property, self.id) }
///     fn at(&self) -> Option<DateTime<Utc>> { Some(self.due) }
/// }
///
/// let store = MemoryStore::new();
/// let due = "2026-12-01T09:00:00Z".parse().unwrap();
/// let reminder = Reminder { property: "sea-view".into(), id: "r1".into(), due };
/// let mut tx = store.write()?;
/// tx.put(&reminder)?;
/// tx.commit()?;
///
/// let tx = store.read()?;
/// assert_eq!(tx.get::<Reminder>("sea-view/r1")?.as_ref(), Some(&reminder));
/// assert_eq!(tx.list::<Reminder>("sea-view/", "", 10)?.len(), 1);
/// assert_eq!(tx.due::<Reminder>(due, 10)?, vec![reminder]);
/// # Ok::<(), rental_core::store::StoreError>(())
/// ```
pub trait Record: Serialize + DeserializeOwned {
    /// The kind every record of this type is stored as.
    const KIND: RecordKind;
    /// Its key; for a per-property kind, starts with `"{slug}/"`.
    fn key(&self) -> String;
    /// Its place in the time index (a due time, a last use, ...), if it has one.
    fn at(&self) -> Option<DateTime<Utc>> {
        None
    }
}

/// Reading typed records, on every transaction.
pub trait ReadRecords: ReadTx {
    /// The record of type `R` under `key`.
    fn get<R: Record>(&self, key: &str) -> StoreResult<Option<R>> {
        self.record(&R::KIND, key)?.map(|row| decode(&row)).transpose()
    }

    /// Up to `limit` records of type `R` whose keys start with `prefix` and
    /// come after `after` (`""`: from the start), in key order.
    fn list<R: Record>(&self, prefix: &str, after: &str, limit: usize) -> StoreResult<Vec<R>> {
        self.records(&R::KIND, prefix, after, limit)?.iter().map(decode).collect()
    }

    /// Every record of type `R` whose keys start with `prefix`, in key order.
    fn list_all<R: Record>(&self, prefix: &str) -> StoreResult<Vec<R>> {
        self.list(prefix, "", usize::MAX)
    }

    /// Up to `limit` records of type `R` whose time is at or before `until`,
    /// the earliest first (then by key).
    fn due<R: Record>(&self, until: DateTime<Utc>, limit: usize) -> StoreResult<Vec<R>> {
        self.records_due(&R::KIND, until.timestamp_millis(), limit)?.iter().map(decode).collect()
    }
}

impl<T: ReadTx + ?Sized> ReadRecords for T {}

/// Writing typed records, on every write transaction.
pub trait WriteRecords: WriteTx {
    /// Inserts or replaces `record` under its key.
    fn put<R: Record>(&mut self, record: &R) -> StoreResult<()> {
        self.put_record(&R::KIND, &row_of(record)?)
    }

    /// Removes the record of type `R` under `key`; false when there was none.
    fn remove<R: Record>(&mut self, key: &str) -> StoreResult<bool> {
        self.remove_record(&R::KIND, key)
    }
}

impl<T: WriteTx + ?Sized> WriteRecords for T {}

/// The row a store keeps `record` as.
pub(crate) fn row_of<R: Record>(record: &R) -> StoreResult<RecordRow> {
    let doc = serde_json::to_vec(record).map_err(|e| StoreError::Backend(Box::new(e)))?;
    Ok(RecordRow { key: record.key(), at: record.at().map(|at| at.timestamp_millis()), doc })
}

pub(crate) fn decode<R: Record>(row: &RecordRow) -> StoreResult<R> {
    serde_json::from_slice(&row.doc)
        .map_err(|e| StoreError::Corrupt(format!("{} record {:?}: {e}", R::KIND.name, row.key)))
}

/// The least string above every key that starts with `prefix`, for a store
/// that bounds a scan by range; `None` when nothing bounds it (an empty prefix).
pub fn prefix_end(prefix: &str) -> Option<String> {
    let mut end: Vec<char> = prefix.chars().collect();
    while let Some(last) = end.pop() {
        let next = (u32::from(last) + 1..=u32::from(char::MAX)).find_map(char::from_u32);
        if let Some(next) = next {
            end.push(next);
            return Some(end.into_iter().collect());
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_per_property_key_belongs_to_its_first_segment() {
        let kind = RecordKind { name: "message", per_property: true };
        assert_eq!(kind.property_of("sea-view/m1"), Some("sea-view"));
        assert_eq!(kind.property_of("sea-view"), Some("sea-view"));
        let global = RecordKind { name: "webhook", per_property: false };
        assert_eq!(global.property_of("sea-view/m1"), None);
    }

    #[test]
    fn a_prefix_ends_before_the_next_prefix_of_its_length() {
        assert_eq!(prefix_end("sea-view/").as_deref(), Some("sea-view0"));
        assert_eq!(prefix_end("a\u{10ffff}").as_deref(), Some("b"));
        assert_eq!(prefix_end("\u{d7ff}").as_deref(), Some("\u{e000}"));
        assert_eq!(prefix_end(""), None);
        assert!("sea-view/zz" < "sea-view0");
    }
}
