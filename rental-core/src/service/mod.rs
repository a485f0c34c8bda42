//! `Rental<S: Store>`: the use cases. Each one opens one store transaction,
//! calls the pure core, writes the result and its events, and commits.

mod access_sync;
mod admin;
mod admin_password;
mod admin_sessions;
mod agenda;
mod allowances;
mod blocks;
mod booking_events;
mod bookings;
mod change;
mod channels;
mod check_ins;
mod checkout;
mod deliveries;
mod demo_seed;
mod expiry;
mod group_commit;
mod leases;
mod messages;
mod payment_claims;
pub(crate) mod payments;
mod promo_uses;
mod property_edit;
mod read_model;
mod refusal;
mod retention;
mod settings;
mod stay;
mod stay_page;
mod test_messages;
mod verification;
mod views;
mod visit_cache;
mod webhook_admin;
mod worker;
mod write;

pub use self::admin::NewKey;
pub use self::agenda::Agenda;
pub use self::bookings::Created;
pub use self::channels::{FeedPull, Fetched, PullClaim};
pub use self::check_ins::CheckIns;
pub use self::deliveries::DueDelivery;
pub use self::messages::{Claim, Claimed};
pub use self::payments::PaymentChange;
pub use self::retention::{PRUNE_BATCH, Pruned};
pub use self::settings::Settings;
pub use self::stay::CATCH_UP_DAYS;
pub use self::test_messages::TestMessages;
pub use self::views::{Admin, Calendars};
pub use self::worker::Worker;
pub use self::write::{WRITE_ATTEMPTS, retry_pause};
use crate::basics::text::looks_like_email;

use std::sync::{Arc, Mutex};

use chrono::{DateTime, Days, DurationRound, NaiveDate, TimeDelta, Utc};

use crate::basics::clock::{Clock, Entropy, OsEntropy, SystemClock};
use crate::basics::ids::check_prefix;
use crate::basics::stay::{MAX_NIGHTS, Stay, StayError};
use crate::bookings::availability::{self, Availability};
use crate::bookings::booking::QuoteRequest;
use crate::bookings::pricing::{self, Quote};
use crate::bookings::visit::Visit;
use crate::channels::feed_status::{self, FeedStatus};
use crate::channels::pull::FeedState;
use crate::error::{Error, FieldError, NotFound, Result};
use crate::properties::property::{MAX_GUESTS, Property};
use crate::stays::access_gate::GateFacts;
use crate::stays::occupancy::{self, PropertyDay, Summary, today_in};
use crate::stays::stay_summary::{self, StayDay};
use crate::store::{ReadRecords, ReadTx, Store};

use self::bookings::NewBookingJob;
use self::group_commit::GroupCommit;
use self::read_model::{Cache, FromStore, Layered, ReadModel};

/// The booking engine over a store.
///
/// ```
/// use std::sync::Arc;
/// use rental_core::{demo, ManualClock, MemoryStore, NewBooking, Rental};
///
/// let clock = Arc::new(ManualClock::new("2026-11-22T08:00:00Z".parse().unwrap()));
/// let rental = Rental::new(MemoryStore::new()).with_clock(clock);
/// rental.import_properties(&demo::properties())?;
/// let booking = rental.create_booking(&NewBooking {
///     property: "sea-view".parse()?,
///     check_in: "2026-12-20".parse().unwrap(),
///     check_out: "2026-12-27".parse().unwrap(),
///     guest_name: "Ada Lovelace".into(),
///     guest_email: "ada@example.com".into(),
///     guests: 3,
///     notes: None,
///     source: None,
///     children: 0, pets: 0,
///     promo_code: None,
///     locale: None, // the property's language
/// }, None)?.booking;
/// assert_eq!((booking.status.to_string(), booking.locale.as_str()), ("pending".into(), "en"));
/// # Ok::<(), rental_core::Error>(())
/// ```
pub struct Rental<S> {
    store: S,
    clock: Arc<dyn Clock>,
    entropy: Arc<dyn Entropy>,
    settings: Settings,
    cache: Option<Cache>,
    /// Held by [`Rental::write`] from a transaction until the cache has its
    /// changes, so the cache takes them in commit order.
    writes: Mutex<()>,
    /// Booking creations waiting to share a commit (shared with the committer thread).
    creations: Arc<GroupCommit<NewBookingJob, Result<Created>>>,
}

impl<S> Drop for Rental<S> {
    fn drop(&mut self) {
        // A committer thread waiting for creations ends now rather than at its idle time-out.
        self.creations.close();
    }
}

impl<S> std::fmt::Debug for Rental<S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Rental").field("settings", &self.settings).finish_non_exhaustive()
    }
}

impl<S: Store> Rental<S> {
    /// An engine with the system clock, OS randomness and default settings.
    pub fn new(store: S) -> Self {
        Rental {
            store,
            clock: Arc::new(SystemClock),
            entropy: Arc::new(OsEntropy),
            settings: Settings::default(),
            cache: None,
            writes: Mutex::new(()),
            creations: Arc::default(),
        }
    }

    /// Keeps every property, its calendar from a few days ago on and its
    /// pending count (and the keys already seen) in memory, updated from what
    /// each write made through this `Rental` changed, so properties,
    /// availability, quotes, the summary and repeat authentications need no
    /// store transaction. Past stays stay on disk only: a read of earlier
    /// nights goes to the store. The calendars are read from the store on the
    /// first read that needs them, so a server over a large store starts small.
    ///
    /// Over a store several processes share (one whose
    /// [`Store::change_marks`] is `Some`, such as the PostgreSQL store), each
    /// read first reads again the properties another process changed, and a
    /// key written anywhere makes every process forget the keys it had seen.
    pub fn with_read_cache(mut self) -> Result<Self> {
        // A shared store starts listening for other processes' changes now, not at the first read.
        drop(self.store.change_marks());
        self.cache = Some(Cache::new());
        Ok(self)
    }

    /// Uses `clock` for "now".
    #[must_use]
    pub fn with_clock(mut self, clock: Arc<dyn Clock>) -> Self {
        self.clock = clock;
        self
    }

    /// Uses `entropy` for codes, secrets and ids.
    #[must_use]
    pub fn with_entropy(mut self, entropy: Arc<dyn Entropy>) -> Self {
        self.entropy = entropy;
        self
    }

    /// Uses `settings`, after checking the code prefix.
    pub fn with_settings(mut self, settings: Settings) -> Result<Self> {
        check_prefix(&settings.code_prefix).map_err(|e| Error::invalid("codePrefix", "invalid", e.to_string()))?;
        if !settings.host_email.is_empty() && !looks_like_email(&settings.host_email) {
            return Err(Error::invalid("hostEmail", "invalid", "must be an e-mail address"));
        }
        self.settings = settings;
        Ok(self)
    }

    /// Writes a backup of the whole store, read from one snapshot, to `out`
    /// ([`crate::backup`]); returns the counts. Writers go on meanwhile: the
    /// snapshot holds every write committed before it was opened, and none after.
    pub fn backup(
        &self,
        out: &mut impl std::io::Write,
    ) -> std::result::Result<crate::backup::Counts, crate::backup::BackupError> {
        crate::backup::write(&self.store.read()?, self.now(), out)
    }

    /// The store underneath, for tests that read or break it directly
    /// (feature `testing`). A program goes through the use cases instead:
    /// a write behind their back would skip the outbox and the read cache.
    #[cfg(any(test, feature = "testing"))]
    pub fn store(&self) -> &S {
        &self.store
    }

    /// What servers and background workers call, apart from what an
    /// embedder needs: see [`crate::worker`].
    pub fn worker(&self) -> Worker<'_, S> {
        Worker(self)
    }

    /// API keys, webhooks and their deliveries, the admin password and the
    /// event log: see [`Admin`].
    pub fn admin(&self) -> Admin<'_, S> {
        Admin(self)
    }

    /// Blocked nights and the channel calendars imported and exported: see [`Calendars`].
    pub fn calendars(&self) -> Calendars<'_, S> {
        Calendars(self)
    }

    /// The guests' online check-in (docs/API.md section 24): see [`CheckIns`].
    pub fn check_ins(&self) -> CheckIns<'_, S> {
        CheckIns(self)
    }

    /// The admin's test messages, limited and recorded (docs/API.md section 21): see [`TestMessages`].
    pub fn test_messages(&self) -> TestMessages<'_, S> {
        TestMessages(self)
    }

    /// The settings in force.
    pub fn settings(&self) -> &Settings {
        &self.settings
    }

    /// Now, by the engine's clock, to the millisecond: the precision every
    /// stored and rendered timestamp has, so what a call returns equals what
    /// a later read gives back.
    pub fn now(&self) -> DateTime<Utc> {
        let now = self.clock.now();
        now.duration_trunc(TimeDelta::milliseconds(1)).unwrap_or(now)
    }

    /// Inserts or replaces properties by slug, all or none: every property is
    /// checked first, and one bad property writes nothing. Returns how many were new.
    /// A currency change is refused while the property has bookings to come.
    pub fn import_properties(&self, properties: &[Property]) -> Result<usize> {
        for (i, p) in properties.iter().enumerate() {
            p.validate().map_err(|e| at_index(e, i))?;
            if properties[..i].iter().any(|earlier| earlier.slug == p.slug) {
                return Err(Error::invalid(&format!("[{i}].slug"), "duplicate", format!("{} appears twice", p.slug)));
            }
        }
        let now = self.now();
        self.write(|tx| {
            let mut created = 0;
            for (i, p) in properties.iter().enumerate() {
                let before = tx.property(p.slug.as_str())?;
                property_edit::refuse_currency_change(&**tx, before.as_ref(), p, now).map_err(|e| at_index(e, i))?;
                created += usize::from(before.is_none());
                tx.put_property(p)?;
            }
            Ok(created)
        })
    }

    /// Active properties, by slug.
    pub fn properties(&self) -> Result<Vec<Property>> {
        self.read_with(|model| {
            Ok(model.properties()?.into_iter().filter(|p| p.active).map(std::borrow::Cow::into_owned).collect())
        })
    }

    /// Every property, active or not, by slug.
    pub fn all_properties(&self) -> Result<Vec<Property>> {
        self.read_with(|model| Ok(model.properties()?.into_iter().map(std::borrow::Cow::into_owned).collect()))
    }

    /// An active property.
    pub fn property(&self, slug: &str) -> Result<Property> {
        self.read_with(|model| active_property(model, slug).map(std::borrow::Cow::into_owned))
    }

    /// Per-night availability of `slug` from `from` (default: its local today)
    /// to `to` (exclusive; default: `from` + 30 days), at most 366 nights.
    pub fn availability(&self, slug: &str, from: Option<NaiveDate>, to: Option<NaiveDate>) -> Result<Availability> {
        self.read_with(|model| self.availability_in(model, slug, from, to))
    }

    fn availability_in(
        &self,
        model: &dyn ReadModel,
        slug: &str,
        from: Option<NaiveDate>,
        to: Option<NaiveDate>,
    ) -> Result<Availability> {
        let property = active_property(model, slug)?;
        let today = today_in(property.timezone, self.now());
        let from = from.unwrap_or(today);
        let last = crate::basics::stay::last_check_in(today);
        if from > last {
            let message = format!("availability is known up to stays starting on {last}");
            return Err(Error::invalid("from", "beyond_horizon", message));
        }
        let to = match to {
            Some(to) => to,
            None => from
                .checked_add_days(Days::new(30))
                .ok_or_else(|| Error::invalid("from", "invalid_date", "out of range"))?,
        };
        let range = Stay::new(from, to).map_err(|e| range_error(e, "to"))?;
        let (span_from, span_to) = availability::calendar_span(&property, range);
        let calendar = model.calendar(slug, span_from, span_to)?;
        Ok(availability::nights(&property, range, self.now(), &calendar))
    }

    /// Prices a stay. A stay that breaks a rule is still priced, with `problems`.
    pub fn quote(&self, req: &QuoteRequest) -> Result<Quote> {
        let stay = Stay::new(req.check_in, req.check_out).map_err(|e| range_error(e, "checkOut"))?;
        check_party(req.guests, req.children, req.pets, req.promo_code.as_deref())?;
        let asked = pricing::Asked {
            stay,
            guests: req.guests,
            children: req.children,
            pets: req.pets,
            promo_code: req.promo_code.as_deref(),
        };
        // Only a quote with a code reads the bookings that used it (the read model holds none).
        let promo_uses = match &req.promo_code {
            Some(code) => bookings::promo_uses(&self.store.read()?, &req.property, code, None)?,
            None => 0,
        };
        self.read_with(|model| {
            let property = active_property(model, req.property.as_str())?;
            let (from, to) = pricing::calendar_span(&property, stay);
            let calendar = model.calendar(req.property.as_str(), from, to)?;
            let facts = pricing::Facts { now: self.now(), calendar: &calendar, promo_uses };
            Ok(pricing::quote(&property, &asked, &facts))
        })
    }

    /// The occupancy summary of every active property, each judged on its own today.
    pub fn summary(&self) -> Result<Summary> {
        self.read_with(|model| self.summary_in(model))
    }

    fn summary_in(&self, model: &dyn ReadModel) -> Result<Summary> {
        let now = self.now();
        let live = model.live_days(&|p| today_in(p.timezone, now))?;
        let days: Vec<PropertyDay<'_>> = live
            .iter()
            .map(|d| PropertyDay {
                property: &d.property,
                calendar: &d.calendar,
                pending: d.pending,
                next_confirmed: d.next_confirmed.map(|i| &d.calendar[i]),
            })
            .collect();
        let mut summary = occupancy::summarize(now, self.settings.timezone, &days);
        let (visits, feeds) = self.stay_inputs(&summary, &days, now)?;
        let payments_configured = self.settings.payment_provider;
        let stays: Vec<StayDay<'_>> =
            visits.iter().zip(&feeds).map(|(visits, feeds)| StayDay { visits, feeds, payments_configured }).collect();
        stay_summary::complete(&mut summary, now, &days, &stays);
        Ok(summary)
    }

    /// Per property, the visits of the few bookings the stay state needs and
    /// its feeds' freshness. The visits come from the read cache once a
    /// summary has filled it, else from one store read.
    #[expect(clippy::type_complexity, reason = "two parallel lists, one entry per property")]
    fn stay_inputs(
        &self,
        summary: &Summary,
        days: &[PropertyDay<'_>],
        now: DateTime<Utc>,
    ) -> Result<(Vec<Vec<(String, Visit, GateFacts)>>, Vec<Vec<FeedStatus>>)> {
        let needed: Vec<(&str, Vec<&str>)> = days
            .iter()
            .zip(&summary.properties)
            .map(|(day, ps)| {
                let codes = stay_summary::needed_visits(day, ps).into_iter().map(|e| e.holder.as_str()).collect();
                (day.property.slug.as_str(), codes)
            })
            .collect();
        let any_feeds = days.iter().any(|d| !d.property.feeds.ical_feeds.is_empty());
        if !any_feeds && needed.iter().all(|(_, codes)| codes.is_empty()) {
            // Nothing stayed or syncs: no store read (the summary is polled often).
            return Ok((vec![Vec::new(); days.len()], vec![Vec::new(); days.len()]));
        }
        let visits = match &self.cache {
            Some(cache) => cache.visits(&self.store, &needed)?,
            None => stored_visits(&self.store.read()?, &needed)?,
        };
        let states = if any_feeds { self.store.read()?.list_all::<FeedState>("")? } else { Vec::new() };
        let feeds = days
            .iter()
            .map(|day| {
                let p = day.property;
                p.feeds
                    .ical_feeds
                    .iter()
                    .map(|f| {
                        let state = states.iter().find(|s| s.property == p.slug && s.feed == f.name);
                        feed_status::status(&p.slug, &f.name, state, now, self.settings.sync_interval)
                    })
                    .collect()
            })
            .collect();
        Ok((visits, feeds))
    }

    /// Runs a read on the in-memory snapshot when there is one, else on a store transaction.
    fn read_with<R>(&self, f: impl FnOnce(&dyn ReadModel) -> Result<R>) -> Result<R> {
        if let Some(cache) = &self.cache {
            let snapshot = cache.snapshot(&self.store, self.now())?;
            return f(&Layered { snapshot: &snapshot, store: &self.store });
        }
        f(&FromStore(&self.store.read()?))
    }
}

/// For each `(property, codes)`, the visits of those bookings read from `read`.
fn stored_visits(read: &impl ReadTx, needed: &[(&str, Vec<&str>)]) -> Result<Vec<Vec<(String, Visit, GateFacts)>>> {
    let mut visits = Vec::with_capacity(needed.len());
    for (_, codes) in needed {
        let mut found = Vec::with_capacity(codes.len());
        for code in codes {
            if let Some(b) = read.booking(code)? {
                found.push(((*code).to_owned(), b.visit.clone(), GateFacts::of(&b)));
            }
        }
        visits.push(found);
    }
    Ok(visits)
}

/// The property `slug` if it exists and is active.
fn active_property<'m>(model: &'m dyn ReadModel, slug: &str) -> Result<std::borrow::Cow<'m, Property>> {
    match model.property(slug)? {
        Some(p) if p.active => Ok(p),
        _ => Err(Error::NotFound(NotFound::Property(slug.to_owned()))),
    }
}

fn check_guests(guests: u32) -> Result<()> {
    if (1..=MAX_GUESTS).contains(&guests) {
        Ok(())
    } else {
        Err(Error::invalid("guests", "invalid", format!("must be 1 to {MAX_GUESTS}")))
    }
}

/// The most pets a request may name (a property allows at most its `maxPets`).
const MAX_PETS_ASKED: u32 = 100;

/// Checks who a quote or booking is for: 1 to 100 guests, of whom at least
/// one adult, up to 100 pets, a promo code of at most 32 characters.
pub(super) fn check_party(guests: u32, children: u32, pets: u32, promo_code: Option<&str>) -> Result<()> {
    let mut errors = match check_guests(guests) {
        Err(Error::Validation(errors)) => errors,
        _ => Vec::new(),
    };
    if children >= guests.max(1) {
        errors.push(FieldError::new(
            "children",
            "invalid",
            "must be fewer than guests: one guest at least is an adult",
        ));
    }
    if pets > MAX_PETS_ASKED {
        errors.push(FieldError::new("pets", "invalid", format!("must be 0 to {MAX_PETS_ASKED}")));
    }
    if promo_code.is_some_and(|c| !(1..=32).contains(&c.trim().len())) {
        errors.push(FieldError::new("promoCode", "invalid", "must be 1 to 32 characters"));
    }
    if errors.is_empty() { Ok(()) } else { Err(Error::Validation(errors)) }
}

fn range_error(e: StayError, field: &str) -> Error {
    let message = match e {
        StayError::NotAfter => e.to_string(),
        StayError::TooLong => format!("at most {MAX_NIGHTS} nights"),
    };
    Error::invalid(field, "invalid_range", message)
}

/// Names the position of a property in an import in its field errors.
fn at_index(e: Error, i: usize) -> Error {
    match e {
        Error::Validation(errors) => Error::Validation(
            errors.into_iter().map(|f| FieldError { field: format!("[{i}].{}", f.field), ..f }).collect(),
        ),
        other => other,
    }
}
