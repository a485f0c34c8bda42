//! The tables a write transaction keeps open until it commits: redb opens a
//! table for 6–9 thousand instructions, and a group's creations write the same ten.
//!
//! A redb table borrows its transaction, so the transaction and its open
//! tables live together in a [`KeptTx`] (a `self_cell`, the workspace
//! forbidding `unsafe`). Each table the write path uses has its own slot,
//! filled on its first open; any other table (the old schemas' ones,
//! `meta`) is opened and closed as redb does.

use std::cell::{RefCell, RefMut};
use std::ops::{Deref, DerefMut};

use redb::{Key, Table, TableDefinition, TableHandle, Value, WriteTransaction};

use super::tables::{
    BLOCKS, BOOKING_ORDER, BOOKING_RECORDS, BOOKING_SEQS, BOOKINGS, CALENDAR, CALENDAR_REACH, CalendarKey,
    CalendarValue, DELIVERIES, DELIVERY_DUE, DELIVERY_EVENTS, DELIVERY_FINISHED, DELIVERY_LEASES, LAPSING_HOLDS,
    OUTBOX, RECORD_TIMES, RECORDS, RecordValue, UNFANNED,
};
use crate::store::{StoreError, StoreResult};

pub type Slot<'q, K, V> = RefCell<Option<Table<'q, K, V>>>;

/// One slot per table a write transaction keeps open.
#[derive(Debug, Default)]
pub struct Kept<'q> {
    booking_rows: Slot<'q, u64, &'static [u8]>,
    booking_seqs: Slot<'q, &'static str, u64>,
    booking_order: Slot<'q, (u32, &'static str), ()>,
    calendar: Slot<'q, CalendarKey<'static>, CalendarValue<'static>>,
    calendar_reach: Slot<'q, &'static str, u32>,
    lapsing_holds: Slot<'q, (u64, &'static str), ()>,
    blocks: Slot<'q, &'static str, &'static [u8]>,
    outbox: Slot<'q, u64, &'static [u8]>,
    unfanned: Slot<'q, u64, ()>,
    deliveries: Slot<'q, &'static str, &'static [u8]>,
    delivery_due: Slot<'q, (u64, u64, &'static str), ()>,
    delivery_finished: Slot<'q, (u64, &'static str), ()>,
    delivery_events: Slot<'q, (u64, &'static str), ()>,
    delivery_leases: Slot<'q, &'static str, (&'static str, &'static str, u64)>,
    records: Slot<'q, (&'static str, &'static str), RecordValue<'static>>,
    booking_records: Slot<'q, (u64, &'static str, &'static str), RecordValue<'static>>,
    record_times: Slot<'q, (&'static str, i64, &'static str), ()>,
}

self_cell::self_cell!(
    /// redb's write transaction with the tables it keeps open.
    pub struct KeptTx {
        owner: WriteTransaction,
        #[not_covariant]
        dependent: Kept,
    }
);

impl KeptTx {
    /// `tx`, with no table open yet.
    pub(super) fn begin(tx: WriteTransaction) -> Self {
        KeptTx::new(tx, |_| Kept::default())
    }

    /// Closes the kept tables and gives the transaction back, to commit.
    pub(super) fn close(self) -> WriteTransaction {
        self.into_owner()
    }
}

/// The key types of tables: which slot, if any, holds the table `name` with values `V`.
pub trait Keep<V: Value + 'static>: Key + Sized + 'static {
    /// The slot of table `name`; `None` when such a table is not kept.
    fn slot<'s, 'q>(_kept: &'s Kept<'q>, _name: &str) -> Option<&'s Slot<'q, Self, V>> {
        None
    }
}

impl Keep<&'static [u8]> for u64 {
    fn slot<'s, 'q>(kept: &'s Kept<'q>, name: &str) -> Option<&'s Slot<'q, Self, &'static [u8]>> {
        match name {
            _ if name == BOOKINGS.name() => Some(&kept.booking_rows),
            _ if name == OUTBOX.name() => Some(&kept.outbox),
            _ => None,
        }
    }
}

impl Keep<&'static [u8]> for &'static str {
    fn slot<'s, 'q>(kept: &'s Kept<'q>, name: &str) -> Option<&'s Slot<'q, Self, &'static [u8]>> {
        match name {
            _ if name == BLOCKS.name() => Some(&kept.blocks),
            _ if name == DELIVERIES.name() => Some(&kept.deliveries),
            _ => None,
        }
    }
}

impl Keep<()> for (u64, &'static str) {
    fn slot<'s, 'q>(kept: &'s Kept<'q>, name: &str) -> Option<&'s Slot<'q, Self, ()>> {
        match name {
            _ if name == LAPSING_HOLDS.name() => Some(&kept.lapsing_holds),
            _ if name == DELIVERY_FINISHED.name() => Some(&kept.delivery_finished),
            _ if name == DELIVERY_EVENTS.name() => Some(&kept.delivery_events),
            _ => None,
        }
    }
}

/// A key type with one kept table: its slot when `name` is that table's.
macro_rules! one_table {
    ($key:ty, $value:ty, $def:ident, $field:ident) => {
        impl Keep<$value> for $key {
            fn slot<'s, 'q>(kept: &'s Kept<'q>, name: &str) -> Option<&'s Slot<'q, Self, $value>> {
                (name == $def.name()).then_some(&kept.$field)
            }
        }
    };
}

one_table!(&'static str, u64, BOOKING_SEQS, booking_seqs);
one_table!((u32, &'static str), (), BOOKING_ORDER, booking_order);
one_table!(CalendarKey<'static>, CalendarValue<'static>, CALENDAR, calendar);
one_table!(&'static str, u32, CALENDAR_REACH, calendar_reach);
one_table!(u64, (), UNFANNED, unfanned);
one_table!((u64, u64, &'static str), (), DELIVERY_DUE, delivery_due);
one_table!(&'static str, (&'static str, &'static str, u64), DELIVERY_LEASES, delivery_leases);
one_table!((&'static str, &'static str), RecordValue<'static>, RECORDS, records);
one_table!((&'static str, i64, &'static str), (), RECORD_TIMES, record_times);
one_table!((u64, &'static str, &'static str), RecordValue<'static>, BOOKING_RECORDS, booking_records);

// Tables of older schemas and `meta`, never kept.
impl Keep<&'static str> for &'static str {}
impl Keep<()> for (&'static str, &'static str) {}

/// An open table of a write transaction: a kept one, or one of its own.
#[derive(Debug)]
pub enum Open<'s, 'q, K: Key + 'static, V: Value + 'static> {
    /// A kept table, borrowed from its slot.
    Kept(RefMut<'s, Table<'q, K, V>>),
    /// A table opened for this use, closed when dropped.
    Own(Table<'q, K, V>),
}

impl<'q, K: Key + 'static, V: Value + 'static> Deref for Open<'_, 'q, K, V> {
    type Target = Table<'q, K, V>;
    fn deref(&self) -> &Self::Target {
        match self {
            Open::Kept(table) => table,
            Open::Own(table) => table,
        }
    }
}

impl<K: Key + 'static, V: Value + 'static> DerefMut for Open<'_, '_, K, V> {
    fn deref_mut(&mut self) -> &mut Self::Target {
        match self {
            Open::Kept(table) => table,
            Open::Own(table) => table,
        }
    }
}

/// Opens `def` in `tx`: from its slot in `kept` (opening it there the first
/// time), or on its own when it is not kept. As in redb, a table cannot be
/// open twice at once.
pub(super) fn open<'s, 'q, K: Keep<V>, V: Value + 'static>(
    tx: &'q WriteTransaction,
    kept: &'s Kept<'q>,
    def: TableDefinition<K, V>,
) -> StoreResult<Open<'s, 'q, K, V>> {
    let Some(slot) = K::slot(kept, def.name()) else {
        return Ok(Open::Own(tx.open_table(def).map_err(super::backend)?));
    };
    let mut slot = slot
        .try_borrow_mut()
        .map_err(|_| StoreError::Backend(format!("table {} is already open", def.name()).into()))?;
    if slot.is_none() {
        *slot = Some(tx.open_table(def).map_err(super::backend)?);
    }
    Ok(Open::Kept(RefMut::map(slot, |table| table.as_mut().expect("opened above"))))
}
