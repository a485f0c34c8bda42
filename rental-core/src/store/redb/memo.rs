//! Properties decoded once per stored form: a write transaction that reads a
//! property reuses the last decoding while the stored bytes are the same.

use std::collections::HashMap;
use std::sync::{Mutex, MutexGuard, PoisonError};

use crate::properties::property::Property;
use crate::store::record::decode;
use crate::store::{RecordRow, StoreResult};

/// The most properties remembered; past it the memo starts again empty.
const MOST: usize = 4_096;

/// The last decoding of each property read through it, by slug.
#[derive(Debug, Default)]
pub(super) struct PropertyMemo(Mutex<HashMap<String, Decoded>>);

/// A property and the bytes it was decoded from.
#[derive(Debug)]
struct Decoded {
    doc: Vec<u8>,
    property: Property,
}

impl PropertyMemo {
    /// The property stored as `row`, decoded only when its bytes differ from the last seen.
    pub(super) fn decode(&self, row: RecordRow) -> StoreResult<Property> {
        if let Some(known) = self.lock().get(&row.key).filter(|known| known.doc == row.doc) {
            return Ok(known.property.clone());
        }
        let property = decode::<Property>(&row)?;
        let mut memo = self.lock();
        if memo.len() >= MOST {
            memo.clear();
        }
        memo.insert(row.key, Decoded { doc: row.doc, property: property.clone() });
        Ok(property)
    }

    fn lock(&self) -> MutexGuard<'_, HashMap<String, Decoded>> {
        self.0.lock().unwrap_or_else(PoisonError::into_inner)
    }
}
