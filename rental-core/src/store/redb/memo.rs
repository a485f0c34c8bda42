//! Properties decoded once per stored form: a write transaction that reads a
//! property reuses the last decoding while the stored bytes are the same.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use crate::properties::property::Property;
use crate::store::record::decode;
use crate::store::{RecordRow, StoreResult};

/// The most properties remembered; past it the memo starts again empty.
const MOST: usize = 4_096;

/// The last decoding of each property read through it, with the bytes it came from.
#[derive(Debug, Default)]
pub(super) struct PropertyMemo(Mutex<HashMap<String, (Vec<u8>, Arc<Property>)>>);

impl PropertyMemo {
    /// The property stored as `row`, decoded only when its bytes differ from the last seen.
    pub(super) fn decode(&self, row: RecordRow) -> StoreResult<Property> {
        if let Some((_, known)) = self.lock().get(&row.key).filter(|(doc, _)| *doc == row.doc) {
            return Ok(Property::clone(known));
        }
        let property = decode::<Property>(&row)?;
        let mut memo = self.lock();
        if memo.len() >= MOST {
            memo.clear();
        }
        memo.insert(row.key, (row.doc, Arc::new(property.clone())));
        Ok(property)
    }

    fn lock(&self) -> MutexGuard<'_, HashMap<String, (Vec<u8>, Arc<Property>)>> {
        self.0.lock().unwrap_or_else(PoisonError::into_inner)
    }
}
