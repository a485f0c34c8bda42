//! Booking creations from HTTP requests, gathered into groups that share a
//! commit, with no thread held per waiting request.
//!
//! Each request hands its creation to one gatherer task and awaits the
//! answer. The gatherer takes what is queued, waits for the callers of the
//! last group to come back as [`Gathering`] says (the same policy as
//! `Rental::create_booking`'s own queue), and creates the group on the
//! blocking pool with [`Rental::create_bookings`]. One group runs at a
//! time; the next queues meanwhile. Measured against a blocking task per
//! request: a fifth to a third less server CPU per booking
//! (docs/PERFORMANCE.md, "What was tried").

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use rental_core::gathering::Gathering;
use rental_core::{Created, Error, NewBooking, Rental, Store, StoreError};
use tokio::sync::mpsc::{UnboundedReceiver, UnboundedSender, unbounded_channel};
use tokio::sync::oneshot;
use tokio::time::Instant;

/// A creation and where its answer goes.
struct Job {
    request: (NewBooking, Option<String>),
    answer: oneshot::Sender<rental_core::Result<Created>>,
}

/// The way into the gatherer.
#[derive(Debug)]
pub struct Creations {
    jobs: UnboundedSender<Job>,
    /// Callers waiting for an answer now.
    waiting: Arc<AtomicUsize>,
}

impl Creations {
    /// Starts the gatherer for `rental` on the current runtime.
    pub fn start<S: Store + 'static>(rental: Arc<Rental<S>>) -> Self {
        let (jobs, queue) = unbounded_channel();
        let waiting = Arc::new(AtomicUsize::new(0));
        tokio::spawn(gather(rental, queue, Arc::clone(&waiting)));
        Creations { jobs, waiting }
    }

    /// Creates a booking as [`Rental::create_booking`] does, with an
    /// optional idempotency key.
    pub async fn create(&self, request: NewBooking, key: Option<String>) -> rental_core::Result<Created> {
        let (answer, answered) = oneshot::channel();
        let _waiting = Waiting::count(&self.waiting);
        let result = match self.jobs.send(Job { request: (request, key), answer }) {
            Ok(()) => answered.await.ok(),
            Err(_) => None,
        };
        result.unwrap_or_else(|| Err(Error::Store(StoreError::Backend("booking creation failed unexpectedly".into()))))
    }
}

/// One caller counted as waiting until dropped, also when its request is
/// dropped mid-wait (the client went away).
struct Waiting<'a>(&'a AtomicUsize);

impl<'a> Waiting<'a> {
    fn count(waiting: &'a AtomicUsize) -> Self {
        waiting.fetch_add(1, Ordering::Relaxed);
        Waiting(waiting)
    }
}

impl Drop for Waiting<'_> {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::Relaxed);
    }
}

/// The gatherer: one group at a time, until every [`Creations`] is dropped.
async fn gather<S: Store + 'static>(
    rental: Arc<Rental<S>>,
    mut queue: UnboundedReceiver<Job>,
    waiting: Arc<AtomicUsize>,
) {
    let max = rental.store().group_commit().max(1);
    let mut gathering = Gathering::default();
    while let Some(first) = queue.recv().await {
        let mut jobs = vec![first];
        while jobs.len() < max
            && let Ok(job) = queue.try_recv()
        {
            jobs.push(job);
        }
        if let Some(wait) = gathering.wait(jobs.len(), max) {
            let (before, deadline) = (jobs.len(), Instant::now() + wait);
            while jobs.len() < gathering.target(max)
                && let Ok(Some(job)) = tokio::time::timeout_at(deadline, queue.recv()).await
            {
                jobs.push(job);
            }
            gathering.waited(jobs.len() > before);
        }
        gathering.started(waiting.load(Ordering::Relaxed));
        let started = Instant::now();
        let (requests, answers): (Vec<_>, Vec<_>) = jobs.into_iter().map(|j| (j.request, j.answer)).unzip();
        let rental = Arc::clone(&rental);
        match tokio::task::spawn_blocking(move || rental.create_bookings(&requests)).await {
            Ok(results) => {
                for (answer, result) in answers.into_iter().zip(results) {
                    let _ = answer.send(result);
                }
            }
            // The answers are dropped: each caller gets a store failure.
            Err(e) => tracing::error!(error = %e, "a group of booking creations failed"),
        }
        gathering.finished(started.elapsed());
    }
}
