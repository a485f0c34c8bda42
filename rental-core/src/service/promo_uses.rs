//! How many bookings hold each promo code: one counter record per property and
//! code, kept in step by the one write path, so a creation reads one record.
//!
//! A booking counts while it is pending or confirmed and carries the code. A
//! store made before the counters (or restored from such a backup) has none:
//! the first write or read that needs one counts the property's bookings once.

use serde::{Deserialize, Serialize};

use crate::basics::ids::{BookingCode, Slug};
use crate::bookings::booking::{Booking, BookingQuery, Cursor, Status};
use crate::store::{PROMO_USES, ReadRecords, ReadTx, Record, RecordKind, StoreResult, WriteRecords, WriteTx};

/// The uses of one promo code at one property.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct PromoUses {
    property: Slug,
    /// The code in capitals: uses count whatever case guests type.
    code: String,
    uses: u32,
}

impl Record for PromoUses {
    const KIND: RecordKind = PROMO_USES;
    fn key(&self) -> String {
        key(&self.property, &self.code)
    }
}

fn key(property: &Slug, code: &str) -> String {
    format!("{property}/{}", code.trim().to_ascii_uppercase())
}

/// The code `booking` uses, if it counts as a use.
fn counted(booking: &Booking) -> Option<&str> {
    matches!(booking.status, Status::Pending | Status::Confirmed).then_some(())?;
    booking.extras.promo_code.as_deref()
}

/// Bookings of `property` not cancelled that used `code` (whatever its
/// case), but `except`: the uses a promo code's `maxUses` counts. Read inside
/// the write transaction that may add one, whose writes take turns per store
/// (redb's one writer, PostgreSQL's advisory write lock on the property), so
/// that of racing bookings for the last use one wins.
pub(super) fn promo_uses(
    tx: &dyn ReadTx,
    property: &Slug,
    code: &str,
    except: Option<&BookingCode>,
) -> StoreResult<u32> {
    let Some(row) = tx.record(&PromoUses::KIND, &key(property, code))? else {
        return scan(tx, property, code, except);
    };
    let uses: PromoUses = serde_json::from_slice(&row.doc)
        .map_err(|e| crate::store::StoreError::Corrupt(format!("promo_uses {:?}: {e}", row.key)))?;
    let own = match except {
        Some(booking) => tx.booking(booking.as_str())?.is_some_and(|b| counted(&b).is_some_and(|c| same(c, code))),
        None => false,
    };
    Ok(uses.uses.saturating_sub(u32::from(own)))
}

/// One promo code's counter moving by one use, up or down.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Move {
    code: String,
    by: i32,
}

/// The counters that move when `after` replaces `before` (`None`: new): none
/// when both count the same code, else the old code's use goes and the new one's comes.
pub(super) fn moves(before: Option<&Booking>, after: &Booking) -> Vec<Move> {
    let (was, is) = (before.and_then(counted), counted(after));
    if let (Some(was), Some(is)) = (was, is)
        && same(was, is)
    {
        return Vec::new();
    }
    let down = was.map(|code| Move { code: code.to_owned(), by: -1 });
    let up = is.map(|code| Move { code: code.to_owned(), by: 1 });
    down.into_iter().chain(up).collect()
}

/// Applies `moves` to `property`'s counters; called once the booking that
/// caused them is written, so that a counter counted afresh includes it.
pub(super) fn apply<T: WriteTx>(tx: &mut T, property: &Slug, moves: &[Move]) -> StoreResult<()> {
    moves.iter().try_for_each(|m| step(tx, property, &m.code, m.by))
}

fn step<T: WriteTx>(tx: &mut T, property: &Slug, code: &str, by: i32) -> StoreResult<()> {
    let uses = match tx.get::<PromoUses>(&key(property, code))? {
        Some(held) => held.uses.saturating_add_signed(by),
        // No counter yet: the bookings as written now, this one included.
        None => scan(&*tx, property, code, None)?,
    };
    tx.put(&PromoUses { property: property.clone(), code: code.trim().to_ascii_uppercase(), uses })
}

fn same(a: &str, b: &str) -> bool {
    a.trim().eq_ignore_ascii_case(b.trim())
}

/// The uses counted from the property's bookings themselves: once per counter.
fn scan(tx: &dyn ReadTx, property: &Slug, code: &str, except: Option<&BookingCode>) -> StoreResult<u32> {
    let mut query = BookingQuery {
        statuses: vec![Status::Pending, Status::Confirmed],
        property: Some(property.clone()),
        limit: 500,
        ..BookingQuery::default()
    };
    let mut uses = 0u32;
    loop {
        let page = tx.bookings(&query)?;
        let more = page.len() > query.limit;
        for b in page.iter().take(query.limit) {
            if b.extras.promo_code.as_deref().is_some_and(|c| same(c, code)) && Some(&b.code) != except {
                uses += 1;
            }
        }
        match (more, page.get(query.limit - 1)) {
            (true, Some(last)) => query.after = Some(Cursor::after(last)),
            _ => return Ok(uses),
        }
    }
}
