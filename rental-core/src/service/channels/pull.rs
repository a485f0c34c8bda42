//! Channel feed pulls, claimed and applied: one process pulls a feed at a time, and
//! each pull is reconciled with what the feed owns in one store transaction.

use std::collections::HashSet;
use std::time::Duration;

use chrono::{DateTime, NaiveDate, Utc};

use crate::admin::keys;
use crate::basics::ids::{Slug, Source};
use crate::basics::lease::{self, Held};
use crate::basics::stay::Stay;
use crate::bookings::booking::{Booking, ExternalRef, PaymentStatus, Status};
use crate::bookings::calendar::{Block, EntryKind};
use crate::bookings::event::{Event, EventName};
use crate::bookings::lifecycle::{self, Outcome};
use crate::channels::ical::{self, Feed, FeedError};
use crate::channels::pull::{EventAction, FeedState, Owned, OwnedKind, PullResult, Seen, Step, SyncReport, plan};
use crate::error::Result;
use crate::properties::property::{IcalFeed, Property};
use crate::service::write::Tx;
use crate::service::write::UseCaseTx;
use crate::service::{FromStore, Rental, active_property};
use crate::stays::occupancy::today_in;
use crate::store::{ReadRecords, ReadTx, Store, WriteTx, feed_key};

/// One feed to pull: where from, and what to send for a conditional request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FeedPull {
    /// The property's slug.
    pub property: Slug,
    /// The feed's name.
    pub feed: Source,
    /// Where to GET it.
    pub url: String,
    /// For `If-None-Match`.
    pub etag: Option<String>,
    /// For `If-Modified-Since`.
    pub last_modified: Option<String>,
    /// When it was last pulled, if ever.
    pub last_pull_at: Option<DateTime<Utc>>,
    /// How many pulls of the feed were applied when this one was planned ([`FeedState::pulls`]).
    pub applied: u64,
    /// How many were applied when it was asked for: a pull asked for while another pull of
    /// the feed ran does not confirm that pull's empty calendar ([`FeedState::empty_confirmed_by`]).
    pub requested: u64,
    /// The owner of the lease it was claimed under ([`Worker::claim_feed_pull`](crate::service::Worker::claim_feed_pull)), if any.
    pub holder: Option<String>,
}

impl FeedPull {
    /// A pull of `feed` of `property` from `url`, planned from its stored `state`.
    fn planned(property: &Slug, feed: &Source, url: &str, state: Option<&FeedState>) -> Self {
        let applied = state.map_or(0, |s| s.pulls);
        FeedPull {
            property: property.clone(),
            feed: feed.clone(),
            url: url.to_owned(),
            etag: state.and_then(|s| s.etag.clone()),
            last_modified: state.and_then(|s| s.last_modified.clone()),
            last_pull_at: state.and_then(|s| s.last_pull_at),
            applied,
            requested: applied,
            holder: None,
        }
    }
}

/// What claiming a feed's pull came to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PullClaim {
    /// Claimed: this pull, planned afresh, is the caller's to fetch and apply.
    Claimed(FeedPull),
    /// Another pull of the feed holds its lease until then.
    Held(DateTime<Utc>),
}

/// What pulling a feed brought back.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Fetched {
    /// `304 Not Modified`: a success with no change.
    NotModified,
    /// A 2xx body, with the validators to send next time.
    Body {
        /// The body as received.
        body: Vec<u8>,
        /// Its `ETag`.
        etag: Option<String>,
        /// Its `Last-Modified`.
        last_modified: Option<String>,
    },
    /// The network, the status or a limit: the feed keeps what it owns.
    Failed(String),
}

/// A feed's counters while its steps are applied.
#[derive(Default)]
struct Counts {
    created: usize,
    updated: usize,
    cancelled: usize,
    conflicts: usize,
}

impl<S: Store> Rental<S> {
    /// Brings what `state`'s feed owns in line with `parsed`, the body of a pull asked
    /// for when `requested` pulls were applied.
    fn reconcile(
        &self,
        tx: &mut Tx<'_, S>,
        (property, feed): (&Property, &IcalFeed),
        state: &mut FeedState,
        parsed: Feed,
        requested: u64,
        now: DateTime<Utc>,
    ) -> Result<PullResult> {
        let events = parsed.events.len();
        if events == 0 && !state.items.is_empty() && !state.empty_confirmed_by(requested) {
            if !state.empty_once {
                (state.empty_once, state.empty_at) = (true, state.pulls + 1);
            }
            let error = "the calendar came back empty; it is believed if the next pull says the same";
            return Ok(failed_for(property, feed, error));
        }
        state.empty_once = false;
        let today = today_in(property.timezone, now);
        let steps = plan(state, parsed.events, &feed.reservation_patterns, today);
        if steps.is_empty() {
            return Ok(PullResult::succeeded(property.slug.clone(), feed.name.clone(), events));
        }
        let direct = direct_stays(&**tx, property, state, today)?;
        let mut pull = Pull { property, feed, now, direct, counts: Counts::default() };
        for step in steps {
            match self.apply_step(tx, &mut pull, &step)? {
                Some(owned) => state.items.insert(step.uid, owned),
                None => state.items.remove(&step.uid),
            };
        }
        let Counts { created, updated, cancelled, conflicts } = pull.counts;
        Ok(PullResult {
            created,
            updated,
            cancelled,
            conflicts,
            ..PullResult::succeeded(property.slug.clone(), feed.name.clone(), events)
        })
    }

    /// Makes one step's change; returns what the event owns afterwards.
    fn apply_step(&self, tx: &mut Tx<'_, S>, pull: &mut Pull<'_>, step: &Step) -> Result<Option<Owned>> {
        let (before, now) = (step.before.as_ref(), pull.now);
        match &step.action {
            EventAction::Forget => Ok(None),
            EventAction::Drop => {
                release(tx, before, now, &mut pull.counts)?;
                Ok(None)
            }
            EventAction::Booking { stay, guest_name, seen } => {
                let kept = before.filter(|o| o.kind == OwnedKind::Booking).and_then(|o| o.holders.first());
                let existing = match kept {
                    Some(code) => tx.booking(code)?.filter(Booking::is_active),
                    None => None,
                };
                let booking = if let Some(old) = existing {
                    move_booking(tx, old, *stay, guest_name, now, &mut pull.counts)?
                } else {
                    release(tx, before, now, &mut pull.counts)?;
                    let booking = self.imported_booking(tx, pull, &step.uid, *stay, guest_name)?;
                    tx.insert_booking(&booking, pull.property)?;
                    tx.append_events(&[Event::created(&booking, now)])?;
                    pull.counts.created += 1;
                    booking
                };
                pull.counts.conflicts += usize::from(pull.overlaps_direct(*stay));
                Ok(Some(owned(OwnedKind::Booking, vec![booking.code.to_string()], seen)))
            }
            EventAction::Blocks { stays, seen } => {
                release(tx, before, now, &mut pull.counts)?;
                let mut ids = Vec::with_capacity(stays.len());
                let mut conflict = false;
                for stay in stays {
                    let block = Block {
                        id: keys::new_id("blk_", self.entropy.as_ref()),
                        property: pull.property.slug.clone(),
                        stay: *stay,
                        note: seen.summary.clone(),
                        feed: Some(pull.feed.name.clone()),
                        uid: Some(step.uid.clone()),
                        created_at: now,
                    };
                    tx.put_block(&block)?;
                    conflict |= pull.overlaps_direct(*stay);
                    ids.push(block.id);
                }
                pull.counts.conflicts += usize::from(conflict);
                Ok(Some(owned(OwnedKind::Block, ids, seen)))
            }
        }
    }

    /// A confirmed booking owned by the pulled feed's event `uid`.
    fn imported_booking(
        &self,
        tx: &Tx<'_, S>,
        pull: &Pull<'_>,
        uid: &str,
        stay: Stay,
        guest_name: &str,
    ) -> Result<Booking> {
        let (property, feed) = (pull.property, pull.feed);
        Ok(Booking {
            code: self.unused_code(&**tx, None)?,
            property: property.slug.clone(),
            property_name: property.name.clone(),
            guest_name: guest_name.to_owned(),
            guest_email: String::new(),
            guests: 1,
            stay,
            nights: stay.nights(),
            status: Status::Confirmed,
            payment_status: PaymentStatus::External,
            total: 0,
            currency: property.currency.clone(),
            source: feed.name.clone(),
            locale: property.messages.language,
            notes: Vec::new(),
            created_at: pull.now,
            updated_at: pull.now,
            cancelled_by: None,
            cancel_reason: None,
            visit: crate::bookings::visit::Visit::default(),
            extras: crate::bookings::booking::Extras::default(),
            stay_link_rotations: 0,
            money: crate::payments::PaymentSummary::default(),
            external: Some(ExternalRef { feed: feed.name.clone(), uid: uid.to_owned() }),
            guest_email_verified_at: None,
        })
    }
}

/// Brings an imported booking to the feed's dates and guest name; emits
/// `booking.updated` with what changed, if anything did.
fn move_booking(
    tx: &mut UseCaseTx<impl WriteTx>,
    old: Booking,
    stay: Stay,
    guest_name: &str,
    now: DateTime<Utc>,
    counts: &mut Counts,
) -> Result<Booking> {
    let mut changes = Vec::new();
    if old.stay.check_in() != stay.check_in() {
        changes.push("checkIn");
    }
    if old.stay.check_out() != stay.check_out() {
        changes.push("checkOut");
    }
    if old.guest_name != guest_name {
        changes.push("guestName");
    }
    if changes.is_empty() {
        return Ok(old);
    }
    let booking = Booking { stay, nights: stay.nights(), guest_name: guest_name.to_owned(), updated_at: now, ..old };
    tx.put_booking(&booking)?;
    tx.append_events(&[Event::updated(&booking, &changes, now)])?;
    counts.updated += 1;
    Ok(booking)
}

/// Gives back what an event owned: cancels its booking (by the channel) or removes its blocks.
fn release(
    tx: &mut UseCaseTx<impl WriteTx>,
    before: Option<&Owned>,
    now: DateTime<Utc>,
    counts: &mut Counts,
) -> Result<()> {
    let Some(before) = before else { return Ok(()) };
    for holder in &before.holders {
        match before.kind {
            OwnedKind::Block => {
                tx.remove_block(holder)?;
            }
            OwnedKind::Booking => {
                let Some(booking) = tx.booking(holder)? else { continue };
                if let Outcome::Changed { booking, events } = lifecycle::cancel_by_channel(&booking, now) {
                    tx.put_booking(&booking)?;
                    tx.append_events(&events)?;
                    counts.cancelled += 1;
                }
            }
        }
    }
    Ok(())
}

/// A body, once read, or why there is none.
#[derive(Clone)]
enum Read {
    NotModified,
    Feed(Feed),
    Failed(String),
}

/// The property and feed of `pull`, if the property is active and still has that feed.
fn configured_feed(tx: &impl ReadTx, pull: &FeedPull) -> Result<Option<(Property, IcalFeed)>> {
    let Some(property) = tx.property(pull.property.as_str())?.filter(|p| p.active) else {
        return Ok(None);
    };
    let feed = property.feeds.ical_feeds.iter().find(|f| f.name == pull.feed).cloned();
    Ok(feed.map(|feed| (property, feed)))
}

/// One feed's pull being applied: what every step needs, and the counts so far.
struct Pull<'a> {
    property: &'a Property,
    feed: &'a IcalFeed,
    now: DateTime<Utc>,
    /// The stays of active bookings made here (not imported), from today on.
    direct: Vec<Stay>,
    counts: Counts,
}

impl Pull<'_> {
    /// True when `stay` shares a night with a booking made here.
    fn overlaps_direct(&self, stay: Stay) -> bool {
        self.direct.iter().any(|d| d.overlaps(stay.check_in(), stay.check_out()))
    }
}

/// The stays of the property's active bookings made here (not owned by any of its feeds)
/// that hold a night from `today` on, read once per pull.
fn direct_stays(tx: &impl ReadTx, property: &Property, state: &FeedState, today: NaiveDate) -> Result<Vec<Stay>> {
    let mut imported: HashSet<String> = state.holders().map(str::to_owned).collect();
    for other in
        tx.list_all::<FeedState>(&format!("{}/", property.slug.as_str()))?.iter().filter(|s| s.feed != state.feed)
    {
        imported.extend(other.holders().map(str::to_owned));
    }
    let entries = tx.calendar(property.slug.as_str(), today, NaiveDate::MAX)?;
    Ok(entries
        .into_iter()
        .filter(|e| e.kind != EntryKind::Blocked && !imported.contains(e.holder.as_str()))
        .map(|e| e.stay)
        .collect())
}

fn owned(kind: OwnedKind, holders: Vec<String>, seen: &Seen) -> Owned {
    Owned { kind, holders, start: seen.start, end: seen.end, summary: seen.summary.clone() }
}

/// Why a pull planned before another pull of its feed was applied changes nothing.
const SUPERSEDED: &str = "another pull of this feed finished first; this one was dropped";

fn failed(pull: &FeedPull, error: impl Into<String>) -> PullResult {
    PullResult::failed(pull.property.clone(), pull.feed.clone(), error)
}

fn failed_for(property: &Property, feed: &IcalFeed, error: &str) -> PullResult {
    PullResult::failed(property.slug.clone(), feed.name.clone(), error)
}

impl<S: Store> crate::service::Worker<'_, S> {
    /// The feeds to pull: every feed of every active property, or of `property` alone.
    pub fn feed_pulls(&self, property: Option<&str>) -> Result<Vec<FeedPull>> {
        let tx = self.store.read()?;
        let properties = match property {
            Some(slug) => vec![active_property(&FromStore(&tx), slug)?.into_owned()],
            None => tx.properties()?.into_iter().filter(|p| p.active).collect(),
        };
        let mut pulls = Vec::new();
        for p in &properties {
            for feed in &p.feeds.ical_feeds {
                let state = tx.get::<FeedState>(&feed_key(p.slug.as_str(), feed.name.as_str()))?;
                pulls.push(FeedPull::planned(&p.slug, &feed.name, &feed.url, state.as_ref()));
            }
        }
        Ok(pulls)
    }

    /// Claims `pull`'s feed for `owner` for `lease` from now, so that one process at a time
    /// pulls it (docs/API.md section 17). A feed another pull holds is [`PullClaim::Held`] until
    /// that pull is applied or given up, or its lease ends (its process crashed or hung).
    /// Claimed, the pull is planned afresh (the feed's URL, validators and count of pulls
    /// applied now) and keeps when it was asked for.
    pub fn claim_feed_pull(&self, pull: &FeedPull, owner: &str, lease: Duration) -> Result<PullClaim> {
        let now = self.now();
        let until = lease::end(now, lease);
        self.write(|tx| {
            let stored = tx.get::<FeedState>(&feed_key(pull.property.as_str(), pull.feed.as_str()))?;
            let mut state = stored.unwrap_or_else(|| FeedState::new(pull.property.clone(), pull.feed.clone()));
            if let Err(Held { until }) = lease::claim(&mut state.lease, owner, now, until) {
                return Ok(PullClaim::Held(until));
            }
            tx.put(&state)?;
            let url = configured_feed(&**tx, pull)?.map_or_else(|| pull.url.clone(), |(_, feed)| feed.url);
            Ok(PullClaim::Claimed(FeedPull {
                requested: pull.requested,
                holder: Some(owner.to_owned()),
                ..FeedPull::planned(&pull.property, &pull.feed, &url, Some(&state))
            }))
        })
    }

    /// Gives up a claimed pull that will not be applied: its feed may be claimed at once.
    pub fn release_feed_pull(&self, pull: &FeedPull) -> Result<()> {
        self.write(|tx| {
            let Some(mut state) = tx.get::<FeedState>(&feed_key(pull.property.as_str(), pull.feed.as_str()))? else {
                return Ok(());
            };
            if lease::release(&mut state.lease, pull.holder.as_deref()) {
                tx.put(&state)?;
            }
            Ok(())
        })
    }

    /// What every feed owns and how its last pull went.
    pub fn feed_states(&self) -> Result<Vec<FeedState>> {
        Ok(self.store.read()?.list_all::<FeedState>("")?)
    }

    /// Applies what a pull of `pull` brought back, in one transaction: the feed's bookings
    /// and blocks follow its events (docs/API.md section 8), or, when it failed, nothing of
    /// it changes. The body is read before the writer is taken. The pull's lease, if it
    /// holds the feed's, is cleared in the same transaction.
    pub fn apply_pull(&self, pull: &FeedPull, fetched: Fetched) -> Result<PullResult> {
        let zone = self.store.read()?.property(pull.property.as_str())?.map_or(chrono_tz::UTC, |p| p.timezone);
        let (read, validators) = match fetched {
            Fetched::NotModified => (Read::NotModified, (pull.etag.clone(), pull.last_modified.clone())),
            Fetched::Failed(error) => (Read::Failed(error), (None, None)),
            Fetched::Body { body, etag, last_modified } => match ical::parse_feed(&body, zone) {
                Ok(feed) => (Read::Feed(feed), (etag, last_modified)),
                Err(FeedError::Empty) => (Read::Feed(Feed::default()), (etag, last_modified)),
                Err(e @ FeedError::NotACalendar(_)) => (Read::Failed(e.to_string()), (None, None)),
            },
        };
        let now = self.now();
        self.write(|tx| {
            let stored = tx.get::<FeedState>(&feed_key(pull.property.as_str(), pull.feed.as_str()))?;
            let mut state = stored.unwrap_or_else(|| FeedState::new(pull.property.clone(), pull.feed.clone()));
            let leased = lease::release(&mut state.lease, pull.holder.as_deref());
            // Another pull of this feed was applied after this one was planned (its lease lapsed,
            // or it was never claimed): this one is stale, and applying it could defeat the
            // empty-feed guard.
            if state.pulls != pull.applied {
                if leased {
                    tx.put(&state)?;
                }
                return Ok(failed(pull, SUPERSEDED));
            }
            let configured = configured_feed(&**tx, pull)?;
            let result = match (configured, read.clone()) {
                (None, _) => failed(pull, "the feed is no longer configured"),
                (Some(_), Read::Failed(error)) => failed(pull, error),
                (Some(_), Read::NotModified) => {
                    PullResult::succeeded(pull.property.clone(), pull.feed.clone(), state.items.len())
                }
                (Some((property, feed)), Read::Feed(parsed)) => {
                    let result = self.reconcile(tx, (&property, &feed), &mut state, parsed, pull.requested, now)?;
                    if result.ok {
                        (state.etag, state.last_modified) = validators.clone();
                    }
                    result
                }
            };
            state.last_pull_at = Some(now);
            state.last_result = Some(result.clone());
            if result.ok {
                state.last_success_at = Some(now);
            }
            state.pulls += 1;
            tx.put(&state)?;
            Ok(result)
        })
    }

    /// Emits `calendar.synced` with the report as its data.
    pub fn record_sync(&self, report: &SyncReport) -> Result<()> {
        let data = serde_json::json!(report);
        self.write(|tx| {
            Ok(tx
                .append_events(&[Event { event: EventName::CalendarSynced, timestamp: self.now(), data: data.clone() }])
                .map(drop)?)
        })
    }
}
