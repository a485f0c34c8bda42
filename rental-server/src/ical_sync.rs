//! Pulling channel calendars: each feed fetched with the outbound client
//! (conditional, 5 MiB, 20 s), then applied by the engine in one transaction.
//!
//! Feeds are pulled concurrently up to [`CONCURRENT_PULLS`], and one feed is never pulled
//! twice at once: a second pull of a feed waits for the first, then pulls again. Every
//! sync, by hand or by the schedule, ends with one `calendar.synced` event.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use chrono::Utc;
use http::{HeaderName, HeaderValue, StatusCode, header};
use rental_core::channel::{FeedResult, SyncReport};
use rental_core::{FeedPull, Fetched, Rental, Store};
use tokio::sync::{Mutex as AsyncMutex, Semaphore};
use tokio::task::JoinSet;

use crate::outbound::{Outbound, OutboundConfig, OutboundError};

/// The largest feed body read; a longer one fails the feed.
pub const MAX_FEED_BYTES: usize = 5 * 1024 * 1024;
/// The longest a feed pull may take, redirects included.
pub const FEED_TIMEOUT: Duration = Duration::from_secs(20);
/// Feeds pulled at the same time.
pub const CONCURRENT_PULLS: usize = 8;
/// Redirects followed on a feed GET (channels move their calendar URLs).
const MAX_REDIRECTS: u8 = 5;

/// How the server pulls channel calendars.
#[derive(Debug, Clone)]
pub struct IcalConfig {
    /// The outbound client's rules (private targets, User-Agent).
    pub outbound: OutboundConfig,
    /// Pull each feed when its last pull is older than this; `None` pulls only on request.
    pub interval: Option<Duration>,
    /// The longest one pull may take ([`FEED_TIMEOUT`]).
    pub timeout: Duration,
}

impl Default for IcalConfig {
    fn default() -> Self {
        IcalConfig { outbound: OutboundConfig::default(), interval: None, timeout: FEED_TIMEOUT }
    }
}

/// A feed's property slug and name.
type FeedKey = (String, String);

/// Pulls feeds for one engine.
#[derive(Debug)]
pub struct Syncer<S> {
    rental: Arc<Rental<S>>,
    outbound: Result<Outbound, String>,
    timeout: Duration,
    /// One lock per (property, feed): held for the whole pull of that feed.
    pulling: Mutex<HashMap<FeedKey, Arc<AsyncMutex<()>>>>,
}

impl<S: Store + 'static> Syncer<S> {
    /// A syncer over `rental` that pulls as `config` says.
    pub fn new(rental: Arc<Rental<S>>, config: &IcalConfig) -> Self {
        let outbound =
            Outbound::new(config.outbound.clone()).map_err(|e| format!("the outbound HTTP client failed: {e}"));
        Syncer { rental, outbound, timeout: config.timeout, pulling: Mutex::new(HashMap::new()) }
    }

    /// Pulls every feed (or those of `property`) now, waits for all of them, records
    /// `calendar.synced` and returns the report. `on_feed` sees each feed's result as it ends.
    pub async fn sync(
        self: &Arc<Self>,
        property: Option<String>,
        on_feed: impl Fn(&FeedResult) + Send + Sync + 'static,
    ) -> rental_core::Result<SyncReport> {
        let pulls = self.blocking(move |r| r.feed_pulls(property.as_deref())).await?;
        self.pull_all(pulls, on_feed).await
    }

    /// Pulls the feeds whose last pull is older than `interval` (or that were never pulled).
    /// `None` when none was due.
    pub async fn sync_due(self: &Arc<Self>, interval: Duration) -> rental_core::Result<Option<SyncReport>> {
        let now = self.rental.now();
        let interval = chrono::TimeDelta::from_std(interval).unwrap_or(chrono::TimeDelta::MAX);
        let mut pulls = self.blocking(|r| r.feed_pulls(None)).await?;
        pulls.retain(|p| p.last_pull_at.is_none_or(|at| now - at >= interval));
        if pulls.is_empty() {
            return Ok(None);
        }
        self.pull_all(pulls, |_| {}).await.map(Some)
    }

    async fn pull_all(
        self: &Arc<Self>,
        pulls: Vec<FeedPull>,
        on_feed: impl Fn(&FeedResult) + Send + Sync + 'static,
    ) -> rental_core::Result<SyncReport> {
        let started_at = self.rental.now();
        let on_feed = Arc::new(on_feed);
        let permits = Arc::new(Semaphore::new(CONCURRENT_PULLS));
        let mut tasks = JoinSet::new();
        for (i, pull) in pulls.into_iter().enumerate() {
            let (this, permits, on_feed) = (Arc::clone(self), Arc::clone(&permits), Arc::clone(&on_feed));
            tasks.spawn(async move {
                let _permit = permits.acquire_owned().await;
                let result = this.pull(pull).await;
                if let Ok(result) = &result {
                    on_feed(result);
                }
                (i, result)
            });
        }
        let mut results = Vec::new();
        while let Some(joined) = tasks.join_next().await {
            match joined {
                Ok((i, result)) => results.push((i, result?)),
                Err(e) => {
                    tracing::error!(error = %e, "a feed pull task failed");
                    return Err(rental_core::Error::Store(rental_core::StoreError::Backend(Box::new(e))));
                }
            }
        }
        results.sort_by_key(|(i, _)| *i);
        let report = SyncReport::new(started_at, self.rental.now(), results.into_iter().map(|(_, r)| r).collect());
        let recorded = report.clone();
        self.blocking(move |r| r.record_sync(&recorded)).await?;
        Ok(report)
    }

    /// Pulls one feed and applies what came back.
    async fn pull(&self, pull: FeedPull) -> rental_core::Result<FeedResult> {
        let lock = {
            let mut pulling = self.pulling.lock().unwrap_or_else(PoisonError::into_inner);
            let key = (pull.property.to_string(), pull.feed.to_string());
            Arc::clone(pulling.entry(key).or_default())
        };
        let _one_at_a_time = lock.lock().await;
        let fetched = self.fetch(&pull).await;
        if let Fetched::Failed(error) = &fetched {
            tracing::warn!(property = %pull.property, feed = %pull.feed, %error, "feed pull failed");
        }
        let result = self.blocking(move |r| r.apply_feed(&pull, fetched)).await?;
        tracing::info!(
            property = %result.property, feed = %result.feed, ok = result.ok, events = result.events,
            created = result.created, updated = result.updated, cancelled = result.cancelled,
            conflicts = result.conflicts, "feed pulled"
        );
        Ok(result)
    }

    /// GETs a feed with the validators of its last applied body.
    async fn fetch(&self, pull: &FeedPull) -> Fetched {
        let outbound = match &self.outbound {
            Ok(outbound) => outbound,
            Err(e) => return Fetched::Failed(e.clone()),
        };
        let mut headers: Vec<(HeaderName, HeaderValue)> =
            vec![(header::ACCEPT, HeaderValue::from_static("text/calendar, */*;q=0.5"))];
        let validators = [(header::IF_NONE_MATCH, &pull.etag), (header::IF_MODIFIED_SINCE, &pull.last_modified)];
        for (name, value) in validators {
            if let Some(value) = value.as_deref().and_then(|v| HeaderValue::from_str(v).ok()) {
                headers.push((name, value));
            }
        }
        match outbound.get(&pull.url, &headers, self.timeout, MAX_FEED_BYTES, MAX_REDIRECTS).await {
            Ok(reply) if reply.status == StatusCode::NOT_MODIFIED => Fetched::NotModified,
            Ok(reply) if reply.status.is_success() => {
                let text = |name| reply.headers.get(name).and_then(|v| v.to_str().ok()).map(str::to_owned);
                Fetched::Body {
                    etag: text(header::ETAG),
                    last_modified: text(header::LAST_MODIFIED),
                    body: reply.body.to_vec(),
                }
            }
            Ok(reply) => Fetched::Failed(format!("the feed answered {}", reply.status)),
            Err(OutboundError::BodyTooLarge { .. }) => {
                Fetched::Failed(format!("the feed is larger than {} MiB", MAX_FEED_BYTES / (1024 * 1024)))
            }
            Err(e) => Fetched::Failed(e.to_string()),
        }
    }

    async fn blocking<T: Send + 'static>(
        &self,
        f: impl FnOnce(&Rental<S>) -> rental_core::Result<T> + Send + 'static,
    ) -> rental_core::Result<T> {
        let rental = Arc::clone(&self.rental);
        tokio::task::spawn_blocking(move || f(&rental))
            .await
            .map_err(|e| rental_core::Error::Store(rental_core::StoreError::Backend(Box::new(e))))?
    }
}

/// The first scheduled check comes this soon after a start (plus up to 2 s), so a fresh
/// store is filled quickly.
const FIRST_CHECK: Duration = Duration::from_secs(1);
/// Then feeds are checked about this often (plus up to 15 s), so servers started together
/// do not pull together.
pub const CHECK_EVERY: Duration = Duration::from_secs(60);

/// Pulls due feeds about once a minute until `stop` changes (CONTRACT.md section 8).
pub async fn schedule<S: Store + 'static>(
    syncer: Arc<Syncer<S>>,
    interval: Duration,
    mut stop: tokio::sync::watch::Receiver<bool>,
) {
    let mut wait = FIRST_CHECK + jitter(Duration::from_secs(2));
    loop {
        tokio::select! {
            () = tokio::time::sleep(wait) => {}
            _ = stop.changed() => return,
        }
        match syncer.sync_due(interval).await {
            Ok(Some(report)) => tracing::info!(
                feeds = report.feeds,
                failed = report.failed,
                created = report.created,
                updated = report.updated,
                cancelled = report.cancelled,
                "scheduled feed sync done"
            ),
            Ok(None) => {}
            Err(e) => tracing::error!(error = %e, "scheduled feed sync failed"),
        }
        wait = CHECK_EVERY + jitter(Duration::from_secs(15));
    }
}

/// A pseudo-random part of `up_to`, from the clock's nanoseconds.
fn jitter(up_to: Duration) -> Duration {
    let nanos = Utc::now().timestamp_subsec_nanos();
    up_to.mul_f64(f64::from(nanos % 1000) / 1000.0)
}
