//! What the admin dashboard does to webhooks beyond registering them: pause and resume
//! one, rotate its secret, list its recent deliveries, resend one, send a test event.

use serde_json::json;

use crate::admin::keys;
use crate::basics::base64;
use crate::basics::clock::Entropy;
use crate::bookings::event::{Event, EventName};
use crate::error::{Error, NotFound, Result};
use crate::outbox::delivery::{self, Delivery};
use crate::outbox::webhook::{self, Webhook};
use crate::store::{ReadRecords, ReadTx, Store};

/// The shortest secret accepted.
const MIN_SECRET_LEN: usize = 8;

impl<S: Store> super::Admin<'_, S> {
    /// Activates or deactivates a webhook. Deactivating gives up its pending
    /// deliveries; events after reactivation are delivered again.
    pub fn set_webhook_active(&self, id: &str, active: bool) -> Result<Webhook> {
        self.write(|tx| {
            let mut webhook = find_webhook(&**tx, id)?;
            if webhook.active != active {
                webhook.active = active;
                tx.put(&webhook)?;
                if !active {
                    super::deliveries::abandon_pending(tx, id)?;
                }
            }
            Ok(webhook)
        })
    }

    /// Gives a webhook a new signing secret (`secret`, or a generated one) and
    /// returns it with the new secret current. The one it replaces keeps signing
    /// beside it for [`webhook::OVERLAP`] (24 h), so receivers can switch over
    /// without refusing a delivery; secrets whose overlap is over are dropped.
    pub fn rotate_webhook_secret(&self, id: &str, secret: Option<String>) -> Result<Webhook> {
        let now = self.now();
        let secret = signing_secret(secret, self.entropy.as_ref())?;
        self.write(|tx| {
            let mut webhook = find_webhook(&**tx, id)?;
            if webhook.secrets.contains(&secret) {
                return Err(Error::invalid("secret", "duplicate", "is already one of the webhook's secrets"));
            }
            webhook.secrets.rotate(secret.clone(), now);
            tx.put(&webhook)?;
            Ok(webhook)
        })
    }

    /// Up to `limit` deliveries to a webhook, the newest event first, each with its attempts.
    pub fn deliveries_of(&self, webhook_id: &str, limit: usize) -> Result<Vec<Delivery>> {
        Ok(self.store.read()?.deliveries_of(webhook_id, limit)?)
    }

    /// Sends a delivery again: the same delivery (same `X-SVC-Delivery` id,
    /// same body and signature) becomes due now and gets one more attempt,
    /// recorded with the others. Its webhook must be active.
    pub fn resend_delivery(&self, id: &str) -> Result<Delivery> {
        let now = self.now();
        self.write(|tx| {
            let current = tx.delivery(id)?.ok_or_else(|| Error::NotFound(NotFound::Delivery(id.to_owned())))?;
            require_active(&find_webhook(&**tx, &current.webhook_id)?)?;
            let resent = delivery::resend(&current, now);
            tx.put_delivery(&resent)?;
            Ok(resent)
        })
    }

    /// Sends a `webhook.test` event to this webhook alone, through the
    /// ordinary delivery path: an outbox event and one delivery, due now,
    /// signed with the webhook's secret. Other webhooks never receive it.
    pub fn send_test_event(&self, webhook_id: &str) -> Result<Delivery> {
        let now = self.now();
        self.write(|tx| {
            let webhook = find_webhook(&**tx, webhook_id)?;
            require_active(&webhook)?;
            let event = Event {
                event: EventName::WebhookTest,
                timestamp: now,
                data: json!({ "webhook": webhook.id, "message": "a test event sent from the admin dashboard" }),
            };
            let seq = tx.append_event(&event)?;
            let id = keys::new_id("dlv_", self.entropy.as_ref());
            let test = Delivery::new(id, webhook.id, seq, EventName::WebhookTest, now);
            tx.put_delivery(&test)?;
            Ok(test)
        })
    }
}

fn find_webhook(tx: &impl ReadTx, id: &str) -> Result<Webhook> {
    tx.list_all::<Webhook>("")?
        .into_iter()
        .find(|w| w.id == id)
        .ok_or_else(|| Error::NotFound(NotFound::Webhook(id.to_owned())))
}

fn require_active(webhook: &Webhook) -> Result<()> {
    if webhook.active {
        Ok(())
    } else {
        Err(Error::invalid("webhook", "inactive", "the webhook is deactivated; activate it first"))
    }
}

/// The secret given, checked, or a new one: `whsec_` and the base64 of 32 random
/// bytes, the Standard Webhooks form that its libraries take as it is.
pub(super) fn signing_secret(given: Option<String>, entropy: &dyn Entropy) -> Result<String> {
    let Some(secret) = given else {
        let mut key = [0u8; 32];
        entropy.fill(&mut key);
        return Ok(format!("{}{}", webhook::SECRET_PREFIX, base64::encode(&key)));
    };
    if secret.chars().count() < MIN_SECRET_LEN {
        return Err(Error::invalid("secret", "invalid", "must be at least 8 characters"));
    }
    if !webhook::is_standard_secret(&secret) {
        let message = "a secret that starts with whsec_ must continue with base64 (A-Z, a-z, 0-9, +, /, = padding)";
        return Err(Error::invalid("secret", "invalid", message));
    }
    Ok(secret)
}
