//! Webhook delivery use cases: fanning outbox events out to the webhooks
//! subscribed to them, claiming due deliveries, and recording each attempt.

use std::time::Duration;

use chrono::{DateTime, Utc};

use super::write::UseCaseTx;
use crate::admin::keys;
use crate::basics::lease;
use crate::error::{Error, NotFound, Result};
use crate::outbox::delivery::{self, Attempt, ClaimLimits, Delivery};
use crate::outbox::webhook::Webhook;
use crate::store::{ReadRecords, ReadTx, Store, WriteTx};

/// A delivery to attempt now, with what sending it needs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DueDelivery {
    /// The delivery (its id is the `X-SVC-Delivery` header).
    pub delivery: Delivery,
    /// Where to send it.
    pub url: String,
    /// The webhook's active signing secrets, the current one first (more than
    /// one while a rotation's overlap lasts).
    pub secrets: Vec<String>,
    /// The exact body to send and sign.
    pub body: String,
}

impl<S: Store> super::Admin<'_, S> {
    /// A delivery by id.
    pub fn delivery(&self, id: &str) -> Result<Delivery> {
        self.store.read()?.delivery(id)?.ok_or_else(|| Error::NotFound(NotFound::Delivery(id.to_owned())))
    }
}

/// Records `attempts` in order in `tx`, each clearing its delivery's lease; a
/// `410 Gone` deactivates the webhook and gives up its other pending deliveries.
fn record_in(
    tx: &mut UseCaseTx<impl WriteTx>,
    attempts: &[(String, Attempt)],
    retries: &[Duration],
) -> Result<Vec<Delivery>> {
    let mut out = Vec::with_capacity(attempts.len());
    for (id, attempt) in attempts {
        let current = tx.delivery(id)?.ok_or_else(|| Error::NotFound(NotFound::Delivery(id.clone())))?;
        let recorded = delivery::record(&current, attempt.clone(), retries);
        tx.put_delivery(&recorded.delivery)?;
        tx.remove_lease(id)?;
        if recorded.deactivate_webhook
            && let Some(mut webhook) = tx.list_all::<Webhook>("")?.into_iter().find(|w| w.id == current.webhook_id)
        {
            webhook.active = false;
            tx.put(&webhook)?;
            abandon_pending(tx, &webhook.id)?;
        }
        out.push(recorded.delivery);
    }
    Ok(out)
}

/// `deliveries` with their webhook's address and active secrets at `now` and
/// the exact body; one whose webhook or event is gone is left out.
fn to_send(tx: &impl ReadTx, deliveries: Vec<Delivery>, now: DateTime<Utc>) -> Result<Vec<DueDelivery>> {
    let webhooks = tx.list_all::<Webhook>("")?;
    let mut due = Vec::with_capacity(deliveries.len());
    for delivery in deliveries {
        let webhook = webhooks.iter().find(|w| w.id == delivery.webhook_id);
        let event = tx.event(delivery.event_seq)?;
        if let (Some(webhook), Some(event)) = (webhook, event) {
            let url = webhook.url.clone();
            let secrets = webhook.secrets.active(now).into_iter().map(str::to_owned).collect();
            due.push(DueDelivery { url, secrets, body: event.body(), delivery });
        }
    }
    Ok(due)
}

/// Gives up every pending delivery of a webhook that will not receive them.
pub(super) fn abandon_pending(tx: &mut UseCaseTx<impl WriteTx>, webhook_id: &str) -> Result<()> {
    for pending in tx.pending_deliveries()?.into_iter().filter(|d| d.webhook_id == webhook_id) {
        tx.put_delivery(&delivery::abandon(&pending))?;
    }
    Ok(())
}

/// Drops, from every webhook, the replaced secrets that no longer sign at `now`.
fn drop_expired_secrets(tx: &mut UseCaseTx<impl WriteTx>, now: DateTime<Utc>) -> Result<()> {
    for mut webhook in tx.list_all::<Webhook>("")? {
        if webhook.secrets.drop_expired(now) {
            tx.put(&webhook)?;
        }
    }
    Ok(())
}

impl<S: Store> super::Worker<'_, S> {
    /// Turns up to `limit` outbox events not yet fanned out into a pending
    /// delivery for each active webhook subscribed to each, in one
    /// transaction, and marks each of them fanned out. Returns how
    /// many events it took. The dispatcher calls this, so a booking's own
    /// transaction writes only its event, whatever the number of webhooks.
    ///
    /// It is a write of everything (`Rental::write`): with no other write
    /// open, every event number drawn so far is committed or gone, so the
    /// events come in number order, none after a later one.
    ///
    /// The same write drops the webhook secrets whose rotation overlap is over.
    pub fn fan_out(&self, limit: usize) -> Result<usize> {
        self.write(|tx| {
            // Read inside the write, which holds every other: fan-outs' times
            // follow their order, so a later event's delivery is never due
            // before an earlier one's (on two servers, the earlier `now` could win the lock later).
            let now = self.now();
            drop_expired_secrets(tx, now)?;
            let events = tx.unfanned_events(limit)?;
            if events.is_empty() {
                return Ok(0);
            }
            let webhooks: Vec<_> = tx.list_all::<Webhook>("")?.into_iter().filter(|w| w.active).collect();
            // A `webhook.test` event already has its one delivery; it is never fanned out.
            for e in events.iter().filter(|e| e.event.event != crate::bookings::event::EventName::WebhookTest) {
                for webhook in webhooks.iter().filter(|w| w.events.includes(e.event.event)) {
                    let id = keys::new_id("dlv_", self.entropy.as_ref());
                    tx.put_delivery(&Delivery::new(id, webhook.id.clone(), e.seq, e.event.event, now))?;
                }
            }
            tx.mark_fanned_out(&events.iter().map(|e| e.seq).collect::<Vec<_>>())?;
            Ok(events.len())
        })
    }

    /// Up to `limit` deliveries due now, earliest first, each with its webhook's
    /// address and active secrets and the exact body to send. Leases are not
    /// looked at: a dispatcher claims with [`Worker::claim_deliveries`](super::Worker::claim_deliveries).
    pub fn due_deliveries(&self, limit: usize) -> Result<Vec<DueDelivery>> {
        let now = self.now();
        let tx = self.store.read()?;
        let due = tx.due_deliveries(now, limit)?;
        to_send(&tx, due, now)
    }

    /// Claims for `owner`, in one write, the deliveries due now that no live
    /// lease holds, none of a webhook that has one (see
    /// [`delivery::lease::claimable`]), each leased until `lease` from now;
    /// returns them in due order with what sending them needs.
    pub fn claim_deliveries(&self, owner: &str, limits: ClaimLimits, lease: Duration) -> Result<Vec<DueDelivery>> {
        let now = self.now();
        let until = lease::end(now, lease);
        self.write(|tx| {
            let claimed = tx.claim_deliveries(now, owner, until, limits)?;
            to_send(&**tx, claimed, now)
        })
    }

    /// One flush of a dispatcher's worker, in one write: records `attempts`
    /// (clearing their leases, as [`Worker::record_attempts`](super::Worker::record_attempts)), then, of the
    /// deliveries in `held` still leased to `owner`, renews the lease to
    /// `renew` from now, or releases it when `renew` is `None` (the worker
    /// stops before sending them, so they are claimable again at once).
    pub fn record_claimed(
        &self,
        owner: &str,
        attempts: &[(String, Attempt)],
        retries: &[Duration],
        held: &[String],
        renew: Option<Duration>,
    ) -> Result<Vec<Delivery>> {
        let now = self.now();
        let until = renew.map(|d| lease::end(now, d));
        self.write(|tx| {
            let recorded = record_in(tx, attempts, retries)?;
            let leases = tx.delivery_leases()?;
            for mut claim in leases.into_iter().filter(|l| held.contains(&l.delivery_id)) {
                // Renewed or released only by its holder, as every lease (`lease::renew`, `lease::release`).
                match until {
                    Some(until) if claim.lease.renew(owner, until) => tx.put_lease(&claim)?,
                    None if claim.lease.is_held_by(owner) => tx.remove_lease(&claim.delivery_id)?,
                    Some(_) | None => {}
                }
            }
            Ok(recorded)
        })
        .inspect(|recorded| crate::metrics::deliveries(recorded))
    }

    /// Records an attempt at `delivery_id` (see [`delivery::record`]); a `410 Gone`
    /// deactivates the webhook and gives up its other pending deliveries.
    pub fn record_attempt(&self, delivery_id: &str, attempt: Attempt, retries: &[Duration]) -> Result<Delivery> {
        let mut recorded = self.record_attempts(&[(delivery_id.to_owned(), attempt)], retries)?;
        recorded.pop().ok_or_else(|| Error::NotFound(NotFound::Delivery(delivery_id.into())))
    }

    /// Records several attempts in one transaction (a dispatcher's batch), in
    /// order; each clears its delivery's lease.
    pub fn record_attempts(&self, attempts: &[(String, Attempt)], retries: &[Duration]) -> Result<Vec<Delivery>> {
        self.write(|tx| record_in(tx, attempts, retries)).inspect(|recorded| crate::metrics::deliveries(recorded))
    }
}
