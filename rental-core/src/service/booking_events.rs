//! The outbox events about one booking, oldest first, for the admin's booking
//! page: a scan of the outbox (which keeps events for `retention`) in one snapshot.

use super::Rental;
use crate::bookings::event::OutboxEvent;
use crate::error::Result;
use crate::store::{ReadTx, Store};

/// How many events one step of the scan reads.
const SCAN_BATCH: usize = 1_000;

impl<S: Store> Rental<S> {
    /// The events still in the outbox whose payload names booking `code`.
    /// It reads the whole outbox: for a page a person asks for, not a hot path.
    pub fn booking_events(&self, code: &str) -> Result<Vec<OutboxEvent>> {
        let tx = self.store.read()?;
        let mut found = Vec::new();
        let mut seq = 0;
        loop {
            let batch = tx.events_after(seq, SCAN_BATCH)?;
            let Some(last) = batch.last() else { break };
            seq = last.seq;
            found.extend(batch.into_iter().filter(|e| e.event.data["code"] == code));
        }
        Ok(found)
    }
}
