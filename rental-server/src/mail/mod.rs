//! Guest messages on their way out (docs/API.md section 21): a sender loop
//! that claims due message records as leases in the store, sends each over
//! SMTP and records how it went, like the webhook dispatcher.
//!
//! A claim is one short write: due messages that no live lease holds, at most
//! one per booking and none of a booking that has a message in flight, so a
//! booking's messages go in order. Each is sent on its own task; outcomes are
//! recorded as they come, in the same write as the next claim (one commit
//! per batch, taken once half the slots are free), which clears the leases. A
//! crash loses nothing: a message whose send was cut is claimed again once its
//! lease lapses and goes out again with the same `Message-ID`.
//!
//! Without `smtp`, due messages are recorded `skipped` (`no_mail_server`).

pub mod compose;
pub mod counters;
pub mod smtp;

use std::collections::HashSet;
use std::sync::Arc;
use std::time::Duration;

use chrono::{DateTime, Utc};
use rental_core::message::{Message, MessageStatus, Outcome, reasons};
use rental_core::store::Record as _;
use rental_core::{Rental, Store};
use tokio::sync::{mpsc, watch};
use tokio::task::JoinSet;

pub use self::compose::Sender;
pub use self::counters::{MessageCounters, MessageOutcome};
pub use self::smtp::Smtp;

use crate::lease_owner::lease_owner;

/// How guest messages are sent.
#[derive(Debug, Clone)]
pub struct MailConfig {
    /// The mail server; `None` records every due message `skipped`.
    pub smtp: Option<Smtp>,
    /// `From` and links.
    pub sender: Option<Sender>,
    /// The waits before each retry (`mailRetries`).
    pub retries: Vec<Duration>,
    /// How long a claim holds a message (`mailLease`, 10 s): renewed while a
    /// send is in flight, and how long a message claimed by a process that died waits.
    pub lease: Duration,
    /// How often the store is asked for due messages.
    pub poll: Duration,
    /// How many messages may be on the network at once.
    pub max_in_flight: usize,
    /// What signs the stay page links in messages (`stay_url`); the server
    /// sets it from its page secret ([`crate::book::BookConfig::secret`]).
    pub stay_links: Option<rental_core::stay_link::StayLinks>,
}

impl Default for MailConfig {
    fn default() -> Self {
        MailConfig {
            smtp: None,
            sender: None,
            retries: rental_core::message::DEFAULT_RETRIES.to_vec(),
            lease: Duration::from_secs(10),
            poll: Duration::from_millis(250),
            max_in_flight: 32,
            stay_links: None,
        }
    }
}

/// One finished attempt, waiting to be recorded.
type Done = (Message, Outcome, DateTime<Utc>);

/// Sends due messages until `stop` holds a drain deadline; sends in flight may
/// finish until then, and what finished is recorded before it returns.
pub async fn run<S: Store + 'static>(
    rental: Arc<Rental<S>>,
    config: MailConfig,
    counters: Arc<MessageCounters>,
    mut stop: watch::Receiver<Option<tokio::time::Instant>>,
) {
    let owner = lease_owner("mailer");
    if let Some(smtp) = config.smtp.clone() {
        tokio::spawn(check_at_start(smtp, Arc::clone(&counters)));
    }
    void_earlier_leases(&rental, config.lease).await;
    let (done_tx, mut done_rx) = mpsc::unbounded_channel::<Done>();
    let mut sending = JoinSet::new();
    // The keys of the messages being sent, whose leases the heartbeat renews.
    let mut in_flight = HashSet::new();
    let mut heartbeat = tokio::time::interval(config.lease / 3);
    heartbeat.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        let mut done = Vec::new();
        let mut beat = false;
        tokio::select! {
            () = tokio::time::sleep(config.poll) => {}
            Some(first) = done_rx.recv() => done.push(first),
            _ = heartbeat.tick() => beat = true,
            _ = stop.wait_for(Option::is_some) => break,
        }
        if beat {
            renew(&rental, &owner, &in_flight, config.lease).await;
            continue;
        }
        while let Ok(more) = done_rx.try_recv() {
            done.push(more);
        }
        for (message, _, _) in &done {
            in_flight.remove(&message.key());
        }
        while sending.try_join_next().is_some() {}
        let (Some(smtp), Some(sender)) = (&config.smtp, &config.sender) else {
            record(&rental, &config, &counters, done).await;
            skip_all(&rental, &counters).await;
            continue;
        };
        // New claims wait until half the slots are free (or none is busy):
        // fewer, larger writes, each recording what finished and claiming more.
        let free = config.max_in_flight.saturating_sub(sending.len());
        let limit = if free * 2 >= config.max_in_flight || sending.is_empty() { free } else { 0 };
        if done.is_empty() && limit == 0 {
            continue;
        }
        for claimed in record_and_claim(&rental, &config, &counters, done, &owner, limit).await {
            in_flight.insert(claimed.message.key());
            let (smtp, sender, done_tx, clock) = (smtp.clone(), sender.clone(), done_tx.clone(), Arc::clone(&rental));
            let links = config.stay_links.clone();
            let counters = Arc::clone(&counters);
            sending.spawn(async move {
                let outcome =
                    match sender.compose(&claimed.message, &claimed.booking, &claimed.property, links.as_ref()) {
                        Ok((email, _)) => smtp.send(email).await,
                        Err(e) => Outcome::Permanent(e.to_string()),
                    };
                match &outcome {
                    Outcome::Sent => counters.set_trouble(None),
                    Outcome::Transient(why) => counters.set_trouble(Some(why.clone())),
                    Outcome::Permanent(_) => {}
                }
                let _ = done_tx.send((claimed.message, outcome, clock.now()));
            });
        }
    }
    let deadline = *stop.borrow();
    let finishing = async { while sending.join_next().await.is_some() {} };
    match deadline {
        Some(deadline) => {
            let _ = tokio::time::timeout_at(deadline, finishing).await;
        }
        None => finishing.await,
    }
    sending.abort_all();
    drop(done_tx);
    let mut done = Vec::new();
    while let Some(d) = done_rx.recv().await {
        done.push(d);
    }
    record(&rental, &config, &counters, done).await;
}

/// Greets the mail server once at start: a server that refuses is a warning
/// in the log and on the dashboard now, not news from each message's retries.
/// Readiness does not depend on it: bookings work without mail.
async fn check_at_start(smtp: Smtp, counters: Arc<MessageCounters>) {
    match smtp.check().await {
        Ok(()) => counters.set_trouble(None),
        Err(why) => {
            tracing::warn!(error = %why, "the mail server refused a test connection; guest messages wait and are retried");
            counters.set_trouble(Some(why));
        }
    }
}

/// Renews the leases of the messages in flight (the sender's heartbeat).
async fn renew<S: Store + 'static>(rental: &Arc<Rental<S>>, owner: &str, in_flight: &HashSet<String>, lease: Duration) {
    if in_flight.is_empty() {
        return;
    }
    let (r, owner, keys) = (Arc::clone(rental), owner.to_owned(), in_flight.iter().cloned().collect::<Vec<_>>());
    match tokio::task::spawn_blocking(move || r.worker().renew_message_leases(&owner, &keys, lease)).await {
        Ok(Ok(_)) => {}
        Ok(Err(e)) => tracing::warn!(error = %e, "cannot renew the leases of guest messages in flight"),
        Err(e) => tracing::error!(error = %e, "the message lease renewal task failed"),
    }
}

/// On a store this process alone holds, the message leases in it are an
/// earlier run's, whose sends were cut: they go again at once.
async fn void_earlier_leases<S: Store + 'static>(rental: &Arc<Rental<S>>, lease: Duration) {
    let r = Arc::clone(rental);
    match tokio::task::spawn_blocking(move || r.worker().void_message_leases(lease)).await {
        Ok(Ok(0)) => {}
        Ok(Ok(voided)) => tracing::info!(voided, "guest messages an earlier run was sending go again now"),
        Ok(Err(e)) => tracing::warn!(error = %e, "cannot void the message leases of an earlier run; they will lapse"),
        Err(e) => tracing::error!(error = %e, "the message lease voiding task failed"),
    }
}

/// Records `done` and claims up to `limit` due messages for `owner`, in one
/// write; counts what was recorded and what was found too late.
async fn record_and_claim<S: Store + 'static>(
    rental: &Arc<Rental<S>>,
    config: &MailConfig,
    counters: &MessageCounters,
    done: Vec<Done>,
    owner: &str,
    limit: usize,
) -> Vec<rental_core::worker::Claimed> {
    let (r, owner, retries, lease) = (Arc::clone(rental), owner.to_owned(), config.retries.clone(), config.lease);
    let work = move || r.worker().record_and_claim(&done, &retries, &owner, limit, lease);
    match tokio::task::spawn_blocking(work).await {
        Ok(Ok((recorded, claim))) => {
            count_recorded(counters, &recorded);
            count_finished(counters, &claim.finished);
            claim.send
        }
        Ok(Err(e)) => {
            tracing::error!(error = %e, "cannot record and claim guest messages; sends in flight go again once their leases lapse");
            Vec::new()
        }
        Err(e) => {
            tracing::error!(error = %e, "the message claim task failed");
            Vec::new()
        }
    }
}

/// Without a mail server: every due message is recorded `skipped`.
async fn skip_all<S: Store + 'static>(rental: &Arc<Rental<S>>, counters: &MessageCounters) {
    let r = Arc::clone(rental);
    match tokio::task::spawn_blocking(move || r.worker().skip_due_messages(reasons::NO_MAIL_SERVER, 500)).await {
        Ok(Ok(skipped)) => count_finished(counters, &skipped),
        Ok(Err(e)) => tracing::error!(error = %e, "cannot skip due guest messages"),
        Err(e) => tracing::error!(error = %e, "the message skip task failed"),
    }
}

/// Records finished attempts in one write and counts them.
async fn record<S: Store + 'static>(
    rental: &Arc<Rental<S>>,
    config: &MailConfig,
    counters: &MessageCounters,
    done: Vec<Done>,
) {
    if done.is_empty() {
        return;
    }
    let (r, retries) = (Arc::clone(rental), config.retries.clone());
    match tokio::task::spawn_blocking(move || r.worker().record_messages(&done, &retries)).await {
        Ok(Ok(recorded)) => count_recorded(counters, &recorded),
        Ok(Err(e)) => {
            tracing::error!(error = %e, "cannot record guest message attempts; they go again once their leases lapse");
        }
        Err(e) => tracing::error!(error = %e, "the record task failed"),
    }
}

/// Counts recorded attempts by outcome, and logs each (ids, kinds and SMTP answers, never content).
fn count_recorded(counters: &MessageCounters, recorded: &[Message]) {
    for m in recorded {
        let outcome = match m.status {
            MessageStatus::Sent => MessageOutcome::Sent,
            MessageStatus::Scheduled => MessageOutcome::Retried,
            MessageStatus::Failed => MessageOutcome::Failed,
            MessageStatus::Skipped => MessageOutcome::Skipped,
            MessageStatus::Cancelled => MessageOutcome::Cancelled,
        };
        counters.add(m.kind, outcome);
        let (id, kind, booking) = (&m.id, m.kind, m.booking.as_str());
        if m.status == MessageStatus::Sent {
            tracing::info!(%id, %kind, booking, "guest message sent");
        } else {
            // A mail server quotes the refused recipient: the guest's address stays out of the log.
            let error = crate::log_safe::without_addresses(m.error.as_deref().unwrap_or(""));
            tracing::warn!(%id, %kind, booking, status = %m.status, error, "guest message not sent");
        }
    }
}

fn count_finished(counters: &MessageCounters, finished: &[Message]) {
    for m in finished {
        let outcome =
            if m.status == MessageStatus::Cancelled { MessageOutcome::Cancelled } else { MessageOutcome::Skipped };
        counters.add(m.kind, outcome);
        tracing::info!(id = %m.id, kind = %m.kind, booking = %m.booking.as_str(), status = %m.status, reason = crate::log_safe::without_addresses(m.error.as_deref().unwrap_or("")), "guest message not sent");
    }
}
