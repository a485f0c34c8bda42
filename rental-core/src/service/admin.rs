//! Administration use cases: API keys and webhook registrations. Keys are
//! shown once; only their hash is stored.

use chrono::TimeDelta;

use crate::admin::keys::{self, ApiKey, Scope};
use crate::bookings::event::OutboxEvent;
use crate::error::{Error, NotFound, Result};
use crate::outbox::webhook::{Secrets, Subscription, Webhook};
use crate::store::{KEYS_TOPIC, KeyHash, ReadRecords, ReadTx, Store};

/// `lastUsedAt` is written at most this often per key, so reads stay reads.
pub const LAST_USED_GRANULARITY: TimeDelta = TimeDelta::minutes(1);

/// A key just made: the record and its secret, which is never shown again.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewKey {
    /// The stored record.
    pub key: ApiKey,
    /// `rk_...`: give it to the client now.
    pub secret: String,
}

impl<S: Store> super::Admin<'_, S> {
    /// Makes a key with `scopes` (at least one).
    pub fn create_key(&self, name: &str, scopes: &[Scope]) -> Result<NewKey> {
        let name = name.trim();
        if name.is_empty() || name.len() > 100 {
            return Err(Error::invalid("name", "invalid", "must be 1 to 100 characters"));
        }
        crate::basics::text::check("name", name)?;
        if scopes.is_empty() {
            return Err(Error::invalid("scopes", "required", "give read, write or both"));
        }
        let mut scopes = scopes.to_vec();
        scopes.sort_unstable();
        scopes.dedup();
        let secret = keys::new_secret(self.entropy.as_ref());
        let key = ApiKey {
            id: keys::new_id("key_", self.entropy.as_ref()),
            name: name.to_owned(),
            scopes,
            created_at: self.now(),
            last_used_at: None,
            revoked_at: None,
        };
        let hash = KeyHash { hash: keys::hash_secret(&secret), id: key.id.clone() };
        self.write(|tx| {
            tx.put(&hash)?;
            Ok(tx.put(&key)?)
        })?;
        Ok(NewKey { key, secret })
    }

    /// Every key, by id.
    pub fn keys(&self) -> Result<Vec<ApiKey>> {
        Ok(self.store.read()?.list_all("")?)
    }

    /// Revokes the key with this id, or else the one unrevoked key with this name.
    pub fn revoke_key(&self, id_or_name: &str) -> Result<ApiKey> {
        self.write(|tx| {
            let found = match tx.get::<ApiKey>(id_or_name)? {
                Some(key) => Some(key),
                None => tx.list_all::<ApiKey>("")?.into_iter().find(|k| k.name == id_or_name && k.revoked_at.is_none()),
            };
            let mut key = found.ok_or_else(|| Error::NotFound(NotFound::Key(id_or_name.to_owned())))?;
            if key.revoked_at.is_none() {
                key.revoked_at = Some(self.now());
                tx.put(&key)?;
                // Caches hold only keys they found valid: a revocation is the one change they must hear of.
                tx.touch(KEYS_TOPIC)?;
            }
            Ok(key)
        })
    }

    /// The unrevoked key whose secret is `secret`, with its last use noted;
    /// `None` for a malformed, unknown or revoked secret.
    pub fn authenticate(&self, secret: &str) -> Result<Option<ApiKey>> {
        if let Some(key) = self.worker().authenticate_from_memory(secret) {
            return Ok(Some(ApiKey::clone(&key)));
        }
        if !keys::looks_like_secret(secret) {
            return Ok(None);
        }
        let hash = keys::hash_secret(secret);
        let read = self.store.read()?;
        let Some(KeyHash { id, .. }) = read.get(&hash)? else { return Ok(None) };
        let Some(key) = read.get::<ApiKey>(&id)? else { return Ok(None) };
        drop(read);
        if key.revoked_at.is_some() {
            return Ok(None);
        }
        let now = self.now();
        if key.last_used_at.is_some_and(|t| now - t < LAST_USED_GRANULARITY) {
            self.remember_key(secret, &key);
            return Ok(Some(key));
        }
        let key = self.write(|tx| {
            let Some(mut key) = tx.get::<ApiKey>(&key.id)?.filter(|k| k.revoked_at.is_none()) else {
                return Ok(None);
            };
            key.last_used_at = Some(now);
            tx.put(&key)?;
            Ok(Some(key))
        })?;
        if let Some(key) = &key {
            self.remember_key(secret, key);
        }
        Ok(key)
    }

    fn remember_key(self, secret: &str, key: &ApiKey) {
        if let Some(cache) = &self.cache {
            cache.remember_key(keys::digest(secret), key.clone());
        }
    }

    /// Registers a webhook; a secret (`whsec_` and base64 of 32 random bytes) is generated when none is given.
    pub fn add_webhook(&self, url: &str, events: Subscription, secret: Option<String>) -> Result<Webhook> {
        let printable =
            url.chars().all(|c| !c.is_whitespace() && !c.is_control() && !crate::basics::text::is_refused(c));
        if !(url.starts_with("http://") || url.starts_with("https://")) || url.len() > 2_000 || !printable {
            return Err(Error::invalid("url", "invalid_url", "must be an http or https URL"));
        }
        let now = self.now();
        let secret = super::webhook_admin::signing_secret(secret, self.entropy.as_ref())?;
        let webhook = Webhook {
            id: keys::new_id("wh_", self.entropy.as_ref()),
            url: url.to_owned(),
            secrets: Secrets::new(secret, now),
            events,
            active: true,
            created_at: now,
        };
        self.write(|tx| Ok(tx.put(&webhook)?))?;
        Ok(webhook)
    }

    /// Every webhook, by id.
    pub fn webhooks(&self) -> Result<Vec<Webhook>> {
        Ok(self.store.read()?.list_all("")?)
    }

    /// Removes a webhook.
    pub fn remove_webhook(&self, id: &str) -> Result<()> {
        self.write(|tx| {
            if !tx.remove::<Webhook>(id)? {
                return Err(Error::NotFound(NotFound::Webhook(id.to_owned())));
            }
            super::deliveries::abandon_pending(tx, id)
        })
    }

    /// Up to `limit` outbox events after `seq`, for a dispatcher.
    pub fn events_after(&self, seq: u64, limit: usize) -> Result<Vec<OutboxEvent>> {
        Ok(self.store.read()?.events_after(seq, limit)?)
    }
}

impl<S: Store> super::Worker<'_, S> {
    /// The key of `secret` when memory alone can answer: a key this `Rental`
    /// authenticated within the last minute and has not seen revoked (only
    /// with [`Rental::with_read_cache`](super::Rental::with_read_cache)). `None` means "ask [`Admin::authenticate`](super::Admin::authenticate)",
    /// not "unknown".
    pub fn authenticate_from_memory(&self, secret: &str) -> Option<std::sync::Arc<ApiKey>> {
        let marks = self.store.change_marks();
        let key = self.cache.as_ref()?.key(&keys::digest(secret), marks.as_deref())?;
        let fresh = key.last_used_at.is_some_and(|t| self.now() - t < LAST_USED_GRANULARITY);
        fresh.then_some(key)
    }
}
