//! Webhook delivery use cases: fanning outbox events out to the webhooks
//! subscribed to them, and recording each delivery attempt.

use std::time::Duration;

use chrono::{DateTime, Utc};

use super::Rental;
use crate::delivery::{self, Attempt, Delivery};
use crate::error::{Error, NotFound, Result};
use crate::keys;
use crate::store::{ReadTx, Store, WriteTx};

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

impl<S: Store> Rental<S> {
    /// Turns up to `limit` outbox events not yet fanned out into a pending
    /// delivery for each active webhook subscribed to each, in one
    /// transaction, and moves the fan-out position past them. Returns how
    /// many events it took. The dispatcher calls this, so a booking's own
    /// transaction writes only its event, whatever the number of webhooks.
    ///
    /// The same write drops the webhook secrets whose rotation overlap is over.
    pub fn fan_out(&self, limit: usize) -> Result<usize> {
        let now = self.now();
        self.write(|tx| {
            drop_expired_secrets(tx, now)?;
            let events = tx.events_after(tx.fanned_out()?, limit)?;
            let Some(last) = events.last().map(|e| e.seq) else { return Ok(0) };
            let webhooks: Vec<_> = tx.webhooks()?.into_iter().filter(|w| w.active).collect();
            // A `webhook.test` event already has its one delivery; it is never fanned out.
            for e in events.iter().filter(|e| e.event.event != crate::event::EventName::WebhookTest) {
                for webhook in webhooks.iter().filter(|w| w.events.includes(e.event.event)) {
                    let id = keys::new_id("dlv_", self.entropy.as_ref());
                    tx.put_delivery(&Delivery::new(id, webhook.id.clone(), e.seq, e.event.event, now))?;
                }
            }
            tx.set_fanned_out(last)?;
            Ok(events.len())
        })
    }

    /// Up to `limit` deliveries due now, earliest first, each with its webhook's
    /// address and active secrets and the exact body to send.
    pub fn due_deliveries(&self, limit: usize) -> Result<Vec<DueDelivery>> {
        let now = self.now();
        let tx = self.store.read()?;
        let webhooks = tx.webhooks()?;
        let mut due = Vec::new();
        for delivery in tx.due_deliveries(now, limit)? {
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

    /// Records an attempt at `delivery_id` (see [`delivery::record`]); a `410 Gone`
    /// deactivates the webhook and gives up its other pending deliveries.
    pub fn record_attempt(&self, delivery_id: &str, attempt: Attempt, retries: &[Duration]) -> Result<Delivery> {
        let mut recorded = self.record_attempts(vec![(delivery_id.to_owned(), attempt)], retries)?;
        recorded.pop().ok_or_else(|| Error::NotFound(NotFound::Delivery(delivery_id.into())))
    }

    /// Records several attempts in one transaction (a dispatcher's batch), in order.
    pub fn record_attempts(&self, attempts: Vec<(String, Attempt)>, retries: &[Duration]) -> Result<Vec<Delivery>> {
        self.write(|tx| {
            let mut out = Vec::with_capacity(attempts.len());
            for (id, attempt) in attempts {
                let current = tx.delivery(&id)?.ok_or_else(|| Error::NotFound(NotFound::Delivery(id.clone())))?;
                let recorded = delivery::record(&current, attempt, retries);
                tx.put_delivery(&recorded.delivery)?;
                if recorded.deactivate_webhook
                    && let Some(mut webhook) = tx.webhooks()?.into_iter().find(|w| w.id == current.webhook_id)
                {
                    webhook.active = false;
                    tx.put_webhook(&webhook)?;
                    abandon_pending(tx, &webhook.id)?;
                }
                out.push(recorded.delivery);
            }
            Ok(out)
        })
    }

    /// A delivery by id.
    pub fn delivery(&self, id: &str) -> Result<Delivery> {
        self.store.read()?.delivery(id)?.ok_or_else(|| Error::NotFound(NotFound::Delivery(id.to_owned())))
    }
}

/// Gives up every pending delivery of a webhook that will not receive them.
pub(super) fn abandon_pending(tx: &mut impl WriteTx, webhook_id: &str) -> Result<()> {
    for pending in tx.pending_deliveries()?.into_iter().filter(|d| d.webhook_id == webhook_id) {
        tx.put_delivery(&delivery::abandon(&pending))?;
    }
    Ok(())
}

/// Drops, from every webhook, the replaced secrets that no longer sign at `now`.
fn drop_expired_secrets(tx: &mut impl WriteTx, now: DateTime<Utc>) -> Result<()> {
    for mut webhook in tx.webhooks()? {
        if webhook.secrets.drop_expired(now) {
            tx.put_webhook(&webhook)?;
        }
    }
    Ok(())
}
