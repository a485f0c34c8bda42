//! Admin sessions and the login throttle, kept in the store so that every
//! process sharing it knows them; `last_seen` is written at most once a minute.

use chrono::{DateTime, TimeDelta, Utc};

use crate::admin::admin_session::{AdminSession, Flash, LoginFailures, MAX_TRACKED, MAX_WAIT, SEEN_EVERY};
use crate::error::Result;
use crate::store::{ClientFailures, ReadRecords, ReadTx, Record, Store, StoredSession};

impl<S: Store> super::Worker<'_, S> {
    /// Stores a new session under `key_hash` (hex SHA-256 of its cookie id),
    /// seen at `now`, and drops the sessions idle for `idle` or more.
    pub fn start_admin_session(&self, key_hash: &str, csrf: &str, idle: TimeDelta, now: DateTime<Utc>) -> Result<()> {
        let session = AdminSession { csrf: csrf.to_owned(), last_seen: now, flash: None };
        let stored = StoredSession { key_hash: key_hash.to_owned(), session };
        self.write(|tx| {
            // Idle: last seen before `now - idle`, so at or before a millisecond earlier.
            let idle_until = now - idle - TimeDelta::milliseconds(1);
            for old in tx.due::<StoredSession>(idle_until, usize::MAX)? {
                tx.remove::<StoredSession>(&old.key_hash)?;
            }
            Ok(tx.put(&stored)?)
        })
    }

    /// The live session under `key_hash` at `now`, with its flash taken. A
    /// session idle for `idle` is removed. Only a flash to take, or a
    /// `last_seen` older than [`SEEN_EVERY`] (or a quarter of `idle`), costs a
    /// write; otherwise this is a read.
    pub fn admin_session(&self, key_hash: &str, idle: TimeDelta, now: DateTime<Utc>) -> Result<Option<AdminSession>> {
        let Some(StoredSession { session: seen, .. }) = self.store.read()?.get(key_hash)? else { return Ok(None) };
        // Written again only after a quarter of `idle` (at most SEEN_EVERY), so
        // that a session may expire that much early but page views stay reads.
        if seen.flash.is_none() && now - seen.last_seen < SEEN_EVERY.min(idle / 4) {
            return Ok(Some(seen));
        }
        self.write(|tx| {
            let Some(mut stored) = tx.get::<StoredSession>(key_hash)? else { return Ok(None) };
            if now - stored.session.last_seen >= idle {
                tx.remove::<StoredSession>(key_hash)?;
                return Ok(None);
            }
            let taken = stored.session.clone();
            stored.session.flash = None;
            stored.session.last_seen = stored.session.last_seen.max(now);
            tx.put(&stored)?;
            Ok(Some(taken))
        })
    }

    /// Leaves `flash` for the next page of the session under `key_hash`, if it still exists.
    pub fn set_admin_flash(&self, key_hash: &str, flash: &Flash) -> Result<()> {
        self.write(|tx| {
            let Some(mut stored) = tx.get::<StoredSession>(key_hash)? else { return Ok(()) };
            stored.session.flash = Some(flash.clone());
            Ok(tx.put(&stored)?)
        })
    }

    /// Ends the session under `key_hash`, if there is one.
    pub fn end_admin_session(&self, key_hash: &str) -> Result<()> {
        self.write(|tx| Ok(tx.remove::<StoredSession>(key_hash).map(drop)?))
    }

    /// How long `client` must still wait at `now` before its next login attempt, if at all.
    pub fn login_wait(&self, client: &str, now: DateTime<Utc>) -> Result<Option<TimeDelta>> {
        let failures = self.store.read()?.get::<ClientFailures>(client)?.map(|c| c.failures);
        Ok(failures.and_then(|f| f.locked_until).filter(|until| *until > now).map(|until| until - now))
    }

    /// Counts a login attempt from `client` at `now` before its password is
    /// checked, as a failure until [`Self::login_succeeded`] forgets it:
    /// `Err(wait)` while the client must wait, and then nothing is counted.
    /// The check and the count are one transaction, so that attempts racing
    /// each other cannot all pass the check before any of them is counted.
    pub fn login_attempt(&self, client: &str, now: DateTime<Utc>) -> Result<std::result::Result<(), TimeDelta>> {
        self.write(|tx| {
            let failures = tx.get::<ClientFailures>(client)?.map(|c| c.failures);
            if let Some(until) = failures.and_then(|f| f.locked_until).filter(|until| *until > now) {
                return Ok(Err(until - now));
            }
            Self::forget_quiet_clients(tx, now)?;
            let failures = LoginFailures::and_one(failures, now);
            tx.put(&ClientFailures { client: client.to_owned(), failures })?;
            Ok(Ok(()))
        })
    }

    /// Notes a failed login from `client` at `now`; past [`MAX_TRACKED`]
    /// clients, those quiet for [`MAX_WAIT`] are forgotten first.
    pub fn login_failed(&self, client: &str, now: DateTime<Utc>) -> Result<()> {
        self.write(|tx| {
            Self::forget_quiet_clients(tx, now)?;
            let failures = LoginFailures::and_one(tx.get::<ClientFailures>(client)?.map(|c| c.failures), now);
            Ok(tx.put(&ClientFailures { client: client.to_owned(), failures })?)
        })
    }

    /// Past [`MAX_TRACKED`] clients, forgets those quiet for [`MAX_WAIT`].
    fn forget_quiet_clients(tx: &mut super::write::Tx<'_, S>, now: DateTime<Utc>) -> Result<()> {
        if tx.records(&ClientFailures::KIND, "", "", MAX_TRACKED)?.len() >= MAX_TRACKED {
            let quiet_until = now - MAX_WAIT - TimeDelta::milliseconds(1);
            for quiet in tx.due::<ClientFailures>(quiet_until, usize::MAX)? {
                tx.remove::<ClientFailures>(&quiet.client)?;
            }
        }
        Ok(())
    }

    /// Forgets the failed logins of `client` after a successful login.
    pub fn login_succeeded(&self, client: &str) -> Result<()> {
        self.write(|tx| Ok(tx.remove::<ClientFailures>(client).map(drop)?))
    }
}
