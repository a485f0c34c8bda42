//! Manual blocks (docs/API.md section 14): owner stays, maintenance and
//! closures, listed by date, added over free nights and removed.

use chrono::{Days, NaiveDate};

use super::active_property;
use super::read_model::FromStore;
use crate::admin::keys;
use crate::basics::stay::{MAX_NIGHTS, Stay, StayError, last_check_in};
use crate::bookings::calendar::{Block, EntryKind, NewBlock, taken_nights};
use crate::bookings::pricing::Problem;
use crate::error::{Error, NotFound, Result};
use crate::stays::occupancy::today_in;
use crate::store::{ReadTx, Store};

/// The longest block note, in characters.
pub const MAX_BLOCK_NOTE: usize = 500;

impl<S: Store> super::Calendars<'_, S> {
    /// The blocks of active property `slug` (manual and imported) holding a
    /// night in `[from, to)`, by start date; the range defaults as availability's.
    pub fn blocks(&self, slug: &str, from: Option<NaiveDate>, to: Option<NaiveDate>) -> Result<Vec<Block>> {
        let tx = self.store.read()?;
        let property = active_property(&FromStore(&tx), slug)?.into_owned();
        let from = from.unwrap_or_else(|| today_in(property.timezone, self.now()));
        let to = match to {
            Some(to) => to,
            None => from
                .checked_add_days(Days::new(30))
                .ok_or_else(|| Error::invalid("from", "invalid_date", "out of range"))?,
        };
        Stay::new(from, to).map_err(|e| range_error(e, "to", "from"))?;
        let mut blocks = Vec::new();
        for entry in tx.calendar(slug, from, to)?.into_iter().filter(|e| e.kind == EntryKind::Blocked) {
            blocks.extend(tx.block(&entry.holder)?);
        }
        blocks.sort_by(|a, b| (a.stay.check_in(), &a.id).cmp(&(b.stay.check_in(), &b.id)));
        Ok(blocks)
    }

    /// A manual block from a request: the dates checked into a stay of 1 to
    /// 366 nights, then as [`Calendars::add_block`](super::Calendars::add_block).
    pub fn create_block(&self, slug: &str, req: &NewBlock) -> Result<Block> {
        let stay = Stay::new(req.start_date, req.end_date).map_err(|e| range_error(e, "endDate", "startDate"))?;
        self.add_block(slug, stay, req.note.as_deref().unwrap_or(""))
    }

    /// Closes nights of an active property without a booking. Nights a
    /// pending or confirmed stay holds are refused (`dates_unavailable`);
    /// blocks may overlap each other. A block may not start before the
    /// property's local today nor past the booking horizon
    /// ([`crate::stay::HORIZON_MONTHS`]), and its note is at most 500 characters.
    pub fn add_block(&self, slug: &str, stay: Stay, note: &str) -> Result<Block> {
        let note = note.trim();
        if note.chars().count() > MAX_BLOCK_NOTE {
            return Err(Error::invalid("note", "invalid", format!("at most {MAX_BLOCK_NOTE} characters")));
        }
        crate::basics::text::check("note", note)?;
        let now = self.now();
        self.write(|tx| {
            let property = active_property(&FromStore(&**tx), slug)?.into_owned();
            let today = today_in(property.timezone, now);
            check_dates(stay, today)?;
            let mut stays = tx.calendar(slug, stay.check_in(), stay.check_out())?;
            stays.retain(|e| e.kind != EntryKind::Blocked);
            let taken = taken_nights(&stays, stay);
            if !taken.is_empty() {
                return Err(Error::DatesUnavailable { dates: taken });
            }
            let block = Block {
                id: keys::new_id("blk_", self.entropy.as_ref()),
                property: property.slug,
                stay,
                note: note.to_owned(),
                feed: None,
                uid: None,
                created_at: now,
            };
            tx.put_block(&block)?;
            Ok(block)
        })
    }

    /// Reopens the nights of manual block `id` of property `slug`: 404 when
    /// the property has no such block, 409 `invalid_transition` for a block
    /// a channel feed imported (the feed owns it).
    pub fn remove_block(&self, slug: &str, id: &str) -> Result<Block> {
        self.write(|tx| {
            active_property(&FromStore(&**tx), slug)?;
            let block = tx
                .block(id)?
                .filter(|b| b.property.as_str() == slug)
                .ok_or_else(|| Error::NotFound(NotFound::Block(id.to_owned())))?;
            if let Some(feed) = &block.feed {
                return Err(Error::FeedOwned { what: format!("block {id}"), feed: feed.to_string() });
            }
            tx.remove_block(id)?;
            Ok(block)
        })
    }
}

/// A block's dates against the property's local `today`: not before it, and not
/// starting past the booking horizon (the rule and words a booking's check-in gets).
fn check_dates(stay: Stay, today: NaiveDate) -> Result<()> {
    if stay.check_in() < today {
        return Err(Error::invalid("startDate", "past_dates", format!("starts before {today}, the property's today")));
    }
    let last = last_check_in(today);
    if stay.check_in() > last {
        let problem = Problem::BeyondHorizon { last };
        return Err(Error::invalid("startDate", problem.code(), problem.message()));
    }
    Ok(())
}

/// A date range that makes no stay, named by the block's own fields.
fn range_error(e: StayError, field: &str, start: &str) -> Error {
    let message = match e {
        StayError::NotAfter => format!("must be after {start}"),
        StayError::TooLong => format!("at most {MAX_NIGHTS} nights after {start}"),
    };
    Error::invalid(field, "invalid_range", message)
}
