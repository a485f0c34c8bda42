//! Booking use cases: create (check and insert in one write transaction),
//! look up, list, act on, and expire unpaid requests.

use chrono::{DateTime, TimeDelta, Utc};
use sha2::{Digest, Sha256};

use super::read_model::FromStore;
use super::refusal::refuse_problems;
use super::write::Tx;
use super::{Rental, active_property, check_party, range_error};
use crate::basics::ids::{BookingCode, Slug, Source};
use crate::basics::stay::Stay;
use crate::basics::text::looks_like_email;
use crate::bookings::booking::{Booking, BookingQuery, Cursor, NewBooking, PaymentStatus, Status};
use crate::bookings::event::Event;
use crate::bookings::lifecycle::{self, Action, Outcome};
use crate::bookings::pricing;
use crate::error::{Error, FieldError, NotFound, Result};
use crate::stays::occupancy::today_in;
use crate::stays::presence::Door;
use crate::store::{IdempotencyRecord, Prefetch, ReadTx, Store, StoreError};

/// A creation waiting for its group: the request, checked as far as it can be without the store.
#[derive(Debug)]
pub(super) struct NewBookingJob {
    req: NewBooking,
    stay: Stay,
    key: Option<String>,
    fingerprint: Option<String>,
}

impl NewBookingJob {
    /// Checks what can be checked of `req` without the store.
    fn check(req: &NewBooking, idempotency_key: Option<&str>) -> Result<Self> {
        let stay = check_new_booking(req)?;
        let fingerprint =
            idempotency_key.map(|key| check_idempotency_key(key).map(|()| fingerprint(req))).transpose()?;
        Ok(NewBookingJob { req: req.clone(), stay, key: idempotency_key.map(str::to_owned), fingerprint })
    }
}

/// A creation whose group ended without its result (a panic).
fn failed() -> Error {
    Error::Store(StoreError::Backend("booking creation failed unexpectedly".into()))
}

/// How long an idempotency key is remembered.
pub const IDEMPOTENCY_WINDOW: TimeDelta = TimeDelta::hours(24);
/// The longest idempotency key.
pub const MAX_IDEMPOTENCY_KEY_LEN: usize = 255;

/// What [`Rental::create_booking`] did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Created {
    /// The booking (the first request's, on a replay).
    pub booking: Booking,
    /// True when the idempotency key had been seen with the same request: nothing was created.
    pub replayed: bool,
}

/// How many lapsed holds one expiry transaction cancels at most.
pub(super) const EXPIRY_BATCH: usize = 500;

impl<S: Store> Rental<S> {
    /// Creates a pending, unpaid booking that holds its nights, and emits
    /// `booking.created`. Availability is checked and the booking inserted in
    /// one write transaction, so two overlapping requests can never both win.
    ///
    /// With an `idempotency_key`, a repeat of the same request within 24 hours
    /// returns the first response again (the booking as it was created) and
    /// creates nothing.
    ///
    /// Concurrent creations share durable commits (group commit) as far as
    /// the store allows ([`Store::group_commit`]): each is still checked
    /// against every booking before it, and none returns before the commit
    /// that holds it is on disk.
    pub fn create_booking(&self, req: &NewBooking, idempotency_key: Option<&str>) -> Result<Created> {
        let job = NewBookingJob::check(req, idempotency_key)?;
        self.creations.run(job, self.store.group_commit().max(1), |jobs| self.create_group(&jobs), || Err(failed()))
    }

    /// Creates a booking as [`Rental::create_booking`] does, for a caller
    /// that awaits instead of blocking (any async runtime): the creation
    /// joins the same group commit, and no thread is held while it waits.
    /// The groups of awaiting callers run on a committer thread the engine
    /// starts when needed and that ends when idle.
    ///
    /// ```
    /// use std::sync::Arc;
    /// use rental_core::{demo, ManualClock, MemoryStore, NewBooking, Rental};
    ///
    /// let clock = Arc::new(ManualClock::new("2026-11-22T08:00:00Z".parse().unwrap()));
    /// let rental = Arc::new(Rental::new(MemoryStore::new()).with_clock(clock));
    /// rental.import_properties(&demo::properties())?;
    /// let request = NewBooking {
    ///     property: "sea-view".parse()?,
    ///     check_in: "2026-12-20".parse().unwrap(),
    ///     check_out: "2026-12-27".parse().unwrap(),
    ///     guest_name: "Ada Lovelace".into(),
    ///     guest_email: "ada@example.com".into(),
    ///     guests: 3,
    ///     notes: None,
    ///     source: None,
    ///     children: 0,
    ///     pets: 0,
    ///     promo_code: None,
    ///     locale: None,
    /// };
    /// # let runtime = tokio::runtime::Builder::new_current_thread().build().unwrap();
    /// # runtime.block_on(async {
    /// let created = rental.create_booking_async(&request, None).await?;
    /// assert_eq!(created.booking.status.to_string(), "pending");
    /// # Ok::<(), rental_core::Error>(())
    /// # })?;
    /// # Ok::<(), rental_core::Error>(())
    /// ```
    pub fn create_booking_async(
        self: &std::sync::Arc<Self>,
        req: &NewBooking,
        idempotency_key: Option<&str>,
    ) -> impl Future<Output = Result<Created>> + Send + 'static
    where
        S: Send + Sync + 'static,
    {
        let later = NewBookingJob::check(req, idempotency_key).map(|job| {
            let max = self.store.group_commit().max(1);
            let start = || {
                let (queue, rental) = (std::sync::Arc::clone(&self.creations), std::sync::Arc::downgrade(self));
                let process = move |jobs: Vec<NewBookingJob>| match rental.upgrade() {
                    Some(rental) => rental.create_group(&jobs),
                    None => Vec::new(),
                };
                let committer = move || queue.commit_queued(max, process, || Err(failed()));
                std::thread::Builder::new().name("rental-commit".into()).spawn(committer).is_ok()
            };
            self.creations.submit(job, start, || Err(failed()))
        });
        async move { later?.await }
    }
}

impl<S: Store> super::Worker<'_, S> {
    /// Creates bookings as [`Rental::create_booking`] does, one result per
    /// request in order, sharing write transactions and commits (up to
    /// [`Store::group_commit`] creations each) among the requests given: for
    /// a caller that gathers requests itself.
    /// Each creation is checked against every one before it.
    pub fn create_bookings(&self, requests: &[(NewBooking, Option<String>)]) -> Vec<Result<Created>> {
        let mut jobs = Vec::with_capacity(requests.len());
        let refused: Vec<Option<Error>> = requests
            .iter()
            .map(|(req, key)| NewBookingJob::check(req, key.as_deref()).map(|job| jobs.push(job)).err())
            .collect();
        let mut created = jobs.chunks(self.store.group_commit().max(1)).flat_map(|group| self.create_group(group));
        refused
            .into_iter()
            .map(|refusal| match refusal {
                Some(e) => Err(e),
                None => created.next().unwrap_or_else(|| Err(failed())),
            })
            .collect()
    }
}

impl<S: Store> Rental<S> {
    /// Creates a group of bookings in one write transaction for their
    /// properties ([`Store::write_for`]) and one commit. What the group will
    /// read is said first ([`ReadTx::prefetch`]), with a code drawn for each creation.
    fn create_group(&self, jobs: &[NewBookingJob]) -> Vec<Result<Created>> {
        let now = self.now();
        let codes: Vec<BookingCode> = jobs.iter().map(|_| self.new_code()).collect();
        let wanted = Prefetch {
            properties: jobs.iter().map(|j| j.req.property.as_str()).collect(),
            bookings: codes.iter().map(BookingCode::as_str).collect(),
            calendars: jobs.iter().map(|j| (j.req.property.as_str(), j.stay.check_in(), j.stay.check_out())).collect(),
        };
        let written = self.write_for(&wanted.properties, |tx| {
            tx.prefetch(&wanted)?;
            let mut results = Vec::with_capacity(jobs.len());
            for (job, code) in jobs.iter().zip(&codes) {
                match self.create_in(tx, job, code.clone(), now) {
                    // A failed write leaves the transaction unusable: the whole group fails, nothing is kept.
                    Err(Error::Store(e)) => return Err(Error::Store(e)),
                    result => results.push(result),
                }
            }
            // The group's `booking.created` events in its order, appended at once (one look at the outbox's end).
            let created: Vec<Event> = results
                .iter()
                .filter_map(|r| r.as_ref().ok().filter(|c| !c.replayed).map(|c| Event::created(&c.booking, now)))
                .collect();
            if !created.is_empty() {
                tx.append_events(&created)?;
            }
            Ok(results)
        });
        match written {
            Ok(results) => {
                for result in &results {
                    match result {
                        Ok(created) if !created.replayed => crate::metrics::booking_created(&created.booking.source),
                        Err(Error::DatesUnavailable { .. }) => crate::metrics::booking_conflict(),
                        _ => {}
                    }
                }
                results
            }
            Err(e) => {
                let e = match e {
                    Error::Store(e) => e,
                    other => StoreError::Backend(other.to_string().into()),
                };
                jobs.iter().map(|_| Err(Error::Store(copy_of(&e)))).collect()
            }
        }
    }

    /// One creation inside the group's transaction: replay, or check and
    /// insert under `code` (or another, if a booking has it); the group
    /// appends its `booking.created` event.
    fn create_in(
        &self,
        tx: &mut Tx<'_, S>,
        job: &NewBookingJob,
        code: BookingCode,
        now: DateTime<Utc>,
    ) -> Result<Created> {
        let (req, stay) = (&job.req, job.stay);
        if let (Some(key), Some(fingerprint)) = (&job.key, &job.fingerprint)
            && let Some(booking) = replay(&**tx, key, fingerprint, now)?
        {
            return Ok(Created { booking, replayed: true });
        }
        let property = active_property(&FromStore(&**tx), req.property.as_str())?.into_owned();
        let (from, to) = pricing::calendar_span(&property, stay);
        let calendar = tx.calendar(req.property.as_str(), from, to)?;
        let asked = pricing::Asked {
            stay,
            guests: req.guests,
            children: req.children,
            pets: req.pets,
            promo_code: req.promo_code.as_deref(),
        };
        let promo_uses = match &req.promo_code {
            Some(code) => promo_uses(&**tx, &property.slug, code, None)?,
            None => 0,
        };
        let quote = pricing::quote(&property, &asked, &pricing::Facts { now, calendar: &calendar, promo_uses });
        refuse_problems(&quote.problems)?;
        if req.source.as_ref().is_some_and(|s| s.as_str() == "page") && !req.guest_email.trim().is_empty() {
            super::verification::refuse_past_unverified_cap(&**tx, &property)?;
        }
        let code = self.unused_code(&**tx, Some(code))?;
        let mut booking = Booking {
            code: code.clone(),
            property: property.slug.clone(),
            property_name: property.name.clone(),
            guest_name: req.guest_name.trim().to_owned(),
            guest_email: req.guest_email.trim().to_owned(),
            guests: req.guests,
            stay,
            nights: stay.nights(),
            status: Status::Pending,
            payment_status: PaymentStatus::Unpaid,
            total: quote.total,
            currency: property.currency.clone(),
            source: req.source.clone().unwrap_or_else(Source::api),
            locale: property.messages.locale_of(req.locale.as_deref()),
            notes: req
                .notes
                .iter()
                .map(|n| crate::basics::text::paragraphs(n.trim()))
                .filter(|n| !n.is_empty())
                .map(|text| crate::bookings::booking::Note { text: text.into_owned(), at: now })
                .collect(),
            created_at: now,
            updated_at: now,
            cancelled_by: None,
            cancel_reason: None,
            visit: crate::bookings::visit::Visit::default(),
            extras: crate::bookings::booking::Extras {
                children: req.children,
                pets: req.pets,
                // As the property spells it, so that uses count whatever case guests type.
                promo_code: req.promo_code.as_deref().and_then(|code| {
                    property.pricing.rules.promo_code(code, property.today(now)).map(|p| p.code.clone())
                }),
            },
            stay_link_rotations: 0,
            money: crate::payments::PaymentSummary::default(),
            external: None,
            guest_email_verified_at: None,
        };
        // The payment plan is frozen and the schedule written with the booking (docs/API.md, Payments).
        let clock = crate::payments::schedule::StayClock::of(&property, stay);
        let (plan, schedule) = super::payments::schedule(&booking, &property.payments, &clock, now);
        booking.money = crate::payments::PaymentSummary::of(&schedule, true);
        // The booking first: its records then go under its sequence (a redb store keeps them in booking order).
        tx.insert_booking(&booking, &property)?;
        plan.iter().try_for_each(|plan| tx.put(plan))?;
        schedule.iter().try_for_each(|record| tx.put(record))?;
        if let (Some(key), Some(fingerprint)) = (&job.key, &job.fingerprint) {
            // A record still here is older than the window (a fresh one replayed above): it gives way.
            if tx.idempotency(key)?.is_some() {
                tx.remove_idempotency(key)?;
            }
            let record = IdempotencyRecord {
                key: key.clone(),
                fingerprint: fingerprint.clone(),
                code,
                response: booking.clone(),
                created_at: now,
            };
            tx.insert_idempotency(&record)?;
        }
        Ok(Created { booking, replayed: false })
    }

    /// A booking by code.
    pub fn booking(&self, code: &str) -> Result<Booking> {
        self.store.read()?.booking(code)?.ok_or_else(|| Error::NotFound(NotFound::Booking(code.to_owned())))
    }

    /// One page of bookings matching `query`, ordered by check-in then code.
    pub fn bookings(&self, query: &BookingQuery) -> Result<crate::bookings::booking::Page> {
        if !(1..=BookingQuery::MAX_LIMIT).contains(&query.limit) {
            return Err(Error::invalid("limit", "invalid", format!("must be 1 to {}", BookingQuery::MAX_LIMIT)));
        }
        let mut data = self.store.read()?.bookings(query)?;
        let next = if data.len() > query.limit {
            data.truncate(query.limit);
            data.last().map(Cursor::after)
        } else {
            None
        };
        Ok(crate::bookings::booking::Page { data, next })
    }

    /// Confirms, cancels, annotates, authorizes, changes, checks in or checks
    /// out a booking (docs/API.md sections 6, 13 and 15).
    /// A transition already made is a no-op that emits nothing.
    pub fn update_booking(&self, code: &str, action: &Action) -> Result<Booking> {
        match action {
            Action::CheckIn => return self.door(code, Door::In),
            Action::CheckOut => return self.door(code, Door::Out),
            _ => {}
        }
        let now = self.now();
        self.write(|tx| {
            let booking = tx.booking(code)?.ok_or_else(|| Error::NotFound(NotFound::Booking(code.to_owned())))?;
            if let Action::Change(change) = action {
                return super::change::change_in::<S>(tx, booking, change, now);
            }
            let tz = tx.property(booking.property.as_str())?.map_or(chrono_tz::UTC, |p| p.timezone);
            match lifecycle::apply(&booking, action, now, today_in(tz, now))? {
                Outcome::Unchanged => Ok(booking),
                Outcome::Changed { mut booking, events } => {
                    super::payments::settle_ledger(tx, &mut booking, now)?;
                    tx.put_booking(&booking)?;
                    tx.append_events(&events)?;
                    // As stored: confirming may have issued a door code, cancelling revoked one.
                    Ok(tx.booking(code)?.unwrap_or(booking))
                }
            }
        })
    }

    /// `first` when no booking has it (or, without one, a fresh code), else fresh codes until one is free.
    pub(super) fn unused_code(&self, tx: &impl ReadTx, first: Option<BookingCode>) -> Result<BookingCode> {
        let mut code = first.unwrap_or_else(|| self.new_code());
        while tx.booking(code.as_str())?.is_some() {
            code = self.new_code();
        }
        Ok(code)
    }

    /// A fresh random booking code, not yet checked against the store.
    fn new_code(&self) -> BookingCode {
        BookingCode::generate(&self.settings.code_prefix, self.entropy.as_ref())
    }
}

impl NewBooking {
    /// Checks the fields that need no store (dates, guests, name, e-mail,
    /// notes), reporting every fault together as [`Error::Validation`]; the
    /// creation checks them again, with the property and the calendar.
    pub fn check(&self) -> Result<Stay> {
        check_new_booking(self)
    }
}

/// Checks the fields of a request that need no store; all faults together.
fn check_new_booking(req: &NewBooking) -> Result<Stay> {
    let mut errors = Vec::new();
    let stay = Stay::new(req.check_in, req.check_out);
    if let Err(e) = stay
        && let Error::Validation(mut e) = range_error(e, "checkOut")
    {
        errors.append(&mut e);
    }
    if let Err(Error::Validation(mut e)) = check_party(req.guests, req.children, req.pets, req.promo_code.as_deref()) {
        errors.append(&mut e);
    }
    let name = req.guest_name.trim();
    if name.is_empty() || name.len() > 200 {
        errors.push(FieldError::new("guestName", "invalid", "must be 1 to 200 characters"));
    }
    if !looks_like_email(req.guest_email.trim()) {
        errors.push(FieldError::new("guestEmail", "invalid_email", "must be an e-mail address"));
    }
    if let Some(Err(e)) = req.locale.as_deref().map(crate::basics::locale::Locale::from_tag) {
        errors.push(FieldError::new("locale", "invalid", e.to_string()));
    }
    if req.notes.as_ref().is_some_and(|n| n.len() > lifecycle::MAX_NOTE_LEN) {
        errors.push(FieldError::new("notes", "invalid", format!("at most {} bytes", lifecycle::MAX_NOTE_LEN)));
    }
    errors.extend(crate::basics::text::field_error("guestName", &req.guest_name));
    errors.extend(req.notes.as_ref().and_then(|n| crate::basics::text::paragraph_field_error("notes", n)));
    match stay {
        Ok(stay) if errors.is_empty() => Ok(stay),
        _ => Err(Error::Validation(errors)),
    }
}

/// See [`super::promo_uses::promo_uses`]: the counter, read in the write transaction.
pub(super) fn promo_uses(tx: &dyn ReadTx, property: &Slug, code: &str, except: Option<&BookingCode>) -> Result<u32> {
    Ok(super::promo_uses::promo_uses(tx, property, code, except)?)
}

fn check_idempotency_key(key: &str) -> Result<()> {
    let ok = (1..=MAX_IDEMPOTENCY_KEY_LEN).contains(&key.len()) && key.bytes().all(|b| b.is_ascii_graphic());
    if ok {
        Ok(())
    } else {
        Err(Error::invalid("Idempotency-Key", "invalid", "must be 1 to 255 visible ASCII characters"))
    }
}

fn fingerprint(req: &NewBooking) -> String {
    hex::encode(Sha256::digest(serde_json::to_vec(req).unwrap_or_default()))
}

/// The first response of a repeated idempotency key, if the key is known and fresh.
fn replay(
    tx: &impl ReadTx,
    key: &str,
    fingerprint: &str,
    now: chrono::DateTime<chrono::Utc>,
) -> Result<Option<Booking>> {
    let Some(record) = tx.idempotency(key)? else { return Ok(None) };
    if record.created_at + IDEMPOTENCY_WINDOW <= now {
        return Ok(None);
    }
    if record.fingerprint != fingerprint {
        return Err(Error::IdempotencyKeyReused);
    }
    Ok(Some(record.response))
}

/// The same store failure again, for each job of a failed group.
fn copy_of(e: &StoreError) -> StoreError {
    match e {
        StoreError::Locked => StoreError::Locked,
        StoreError::Corrupt(s) => StoreError::Corrupt(s.clone()),
        StoreError::Conflict(s) => StoreError::Conflict(s.clone()),
        StoreError::Unavailable(s) => StoreError::Unavailable(s.clone()),
        other => StoreError::Backend(other.to_string().into()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn email_addresses_are_checked_for_shape_only() {
        for ok in ["ada@example.com", "a.b+c@mail.example.co.uk"] {
            assert!(looks_like_email(ok), "{ok}");
        }
        for bad in ["", "ada", "ada@", "@example.com", "ada@example", "a da@example.com", "a@b@c.com", "ada@.com"] {
            assert!(!looks_like_email(bad), "{bad}");
        }
    }
}
