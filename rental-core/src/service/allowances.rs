//! Allowances counted in the store (docs/API.md sections 20 and 24): the
//! booking page's posts per client and the stay page's per link, shared by
//! every server on one database.

use chrono::{DateTime, Utc};

use crate::admin::allowance::{self, Allowance, UseWindow};
use crate::error::Result;
use crate::store::{ReadRecords, Store};

impl<S: Store> super::Worker<'_, S> {
    /// Counts a use of `key` now against `allowance`, in one write: of
    /// racing uses past the allowance, on any server of the store, none is
    /// counted. `Ok(Err(seconds))` to wait when it is spent. Returns the
    /// instant counted, for [`Self::give_back`].
    pub fn take_allowance(&self, key: &str, allowance: Allowance) -> Result<std::result::Result<DateTime<Utc>, u64>> {
        let now = self.now();
        self.write(|tx| match allowance::take(tx.get::<UseWindow>(key)?, key, allowance, now) {
            Ok(window) => {
                tx.put(&window)?;
                Ok(Ok(now))
            }
            Err(wait) => Ok(Err(wait)),
        })
    }

    /// Takes back the use of `key` counted at `at`: what it allowed did not
    /// happen (a form refused for its fields), so it does not count.
    pub fn give_back(&self, key: &str, at: DateTime<Utc>) -> Result<()> {
        self.write(|tx| {
            if let Some(window) = tx.get::<UseWindow>(key)? {
                tx.put(&allowance::give_back(window, at))?;
            }
            Ok(())
        })
    }
}
