//! The job that pulls the channels' feeds: each feed fetched with the outbound
//! client (conditional, 5 MiB, 20 s), then applied by the engine in one transaction.
//!
//! Feeds are pulled concurrently up to [`CONCURRENT_PULLS`], and one feed is pulled by one
//! process at a time: a pull first claims the feed's lease in the store. A sync asked for
//! while another pull of the feed runs (here or on another server) waits for it, then pulls
//! again; the schedule skips a feed being pulled. Every sync that pulls ends with one
//! `calendar.synced` event.

use std::sync::Arc;
use std::time::Duration;

use chrono::{DateTime, Utc};
use http::{HeaderName, HeaderValue, StatusCode, header};
use rental_core::pull::{PullResult, SyncReport};
use rental_core::worker::{FeedPull, Fetched, PullClaim};
use rental_core::{Rental, Store};
use tokio::sync::Semaphore;
use tokio::task::JoinSet;

use crate::lease_owner::lease_owner;
use crate::outbound::{Outbound, OutboundConfig, OutboundError};

/// The largest feed body read; a longer one fails the feed.
pub const MAX_FEED_BYTES: usize = 5 * 1024 * 1024;
/// The longest a feed pull may take, redirects included.
pub const FEED_TIMEOUT: Duration = Duration::from_secs(20);
/// Feeds pulled at the same time.
pub const CONCURRENT_PULLS: usize = 8;
/// Redirects followed on a feed GET (channels move their calendar URLs).
const MAX_REDIRECTS: u8 = 5;
/// A sync asked for waits for another pull of its feed at most the longest a pull
/// may take and this much more, to apply it.
const LEASE_MARGIN: Duration = Duration::from_secs(30);
/// How long a feed's pull lease lasts unless renewed: a heartbeat renews it each
/// third of this while the pull runs, so a pull of a process that was killed
/// frees its feed within this long (docs/SEVERAL-SERVERS.md, "Failover").
pub const FEED_LEASE: Duration = Duration::from_secs(10);
/// How often a sync waiting for another pull of a feed asks for the feed again.
const CLAIM_POLL: Duration = Duration::from_millis(250);
/// Why a sync by hand gave up a feed that other pulls kept holding.
const BUSY: &str = "other pulls of this feed kept it busy; try again";

/// How the server pulls the channels' feeds.
#[derive(Debug, Clone)]
pub struct FeedPullConfig {
    /// The outbound client's rules (private targets, User-Agent).
    pub outbound: OutboundConfig,
    /// Pull each feed when its last pull is older than this; `None` pulls only on request.
    pub interval: Option<Duration>,
    /// The longest one pull may take ([`FEED_TIMEOUT`]).
    pub timeout: Duration,
}

impl Default for FeedPullConfig {
    fn default() -> Self {
        FeedPullConfig { outbound: OutboundConfig::default(), interval: None, timeout: FEED_TIMEOUT }
    }
}

/// Pulls the channels' feeds for one engine: a sync asked for, or those due on schedule.
#[derive(Debug)]
pub struct FeedPuller<S> {
    rental: Arc<Rental<S>>,
    outbound: Result<Outbound, String>,
    timeout: Duration,
    /// This puller's name on the feed leases it takes.
    owner: String,
}

/// Why a feed is pulled, which says what to do when another pull holds it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mode {
    /// Asked for: wait for the other pull, then pull again.
    Asked,
    /// Scheduled: leave the feed to the other pull, or to the one made meanwhile.
    Due,
}

/// What a pull's claim on its feed came to.
enum Turn {
    /// The feed is this pull's to fetch and apply, as planned afresh.
    Mine(FeedPull),
    /// A scheduled pull leaves the feed alone.
    Skip,
    /// Other pulls held the feed past the first one's lease.
    Busy(PullResult),
}

impl<S: Store + 'static> FeedPuller<S> {
    /// A feed puller over `rental` that pulls as `config` says.
    pub fn new(rental: Arc<Rental<S>>, config: &FeedPullConfig) -> Self {
        let outbound =
            Outbound::new(config.outbound.clone()).map_err(|e| format!("the outbound HTTP client failed: {e}"));
        FeedPuller { rental, outbound, timeout: config.timeout, owner: lease_owner("syncer") }
    }

    /// Pulls every feed (or those of `property`) now, waits for all of them, records
    /// `calendar.synced` and returns the report. `on_feed` sees each feed's result as it ends.
    pub async fn sync(
        self: &Arc<Self>,
        property: Option<String>,
        on_feed: impl Fn(&PullResult) + Send + Sync + 'static,
    ) -> rental_core::Result<SyncReport> {
        let started_at = self.rental.now();
        let pulls = self.blocking(move |r| r.worker().feed_pulls(property.as_deref())).await?;
        let results = self.pull_all(pulls, Mode::Asked, on_feed).await?;
        self.report(started_at, results).await
    }

    /// Pulls the feeds whose last pull is older than `interval` (or that were never pulled),
    /// but not one that another pull holds or made meanwhile. `None` when none was pulled.
    pub async fn sync_due(self: &Arc<Self>, interval: Duration) -> rental_core::Result<Option<SyncReport>> {
        let now = self.rental.now();
        let interval = chrono::TimeDelta::from_std(interval).unwrap_or(chrono::TimeDelta::MAX);
        let mut pulls = self.blocking(|r| r.worker().feed_pulls(None)).await?;
        pulls.retain(|p| p.last_pull_at.is_none_or(|at| now - at >= interval));
        if pulls.is_empty() {
            return Ok(None);
        }
        let results = self.pull_all(pulls, Mode::Due, |_| {}).await?;
        if results.is_empty() {
            return Ok(None);
        }
        self.report(now, results).await.map(Some)
    }

    /// Records `calendar.synced` for `results` and returns the report.
    async fn report(&self, started_at: DateTime<Utc>, results: Vec<PullResult>) -> rental_core::Result<SyncReport> {
        let report = SyncReport::new(started_at, self.rental.now(), results);
        let recorded = report.clone();
        self.blocking(move |r| r.worker().record_sync(&recorded)).await?;
        Ok(report)
    }

    /// Pulls `pulls`, in their order; the results of those pulled.
    async fn pull_all(
        self: &Arc<Self>,
        pulls: Vec<FeedPull>,
        mode: Mode,
        on_feed: impl Fn(&PullResult) + Send + Sync + 'static,
    ) -> rental_core::Result<Vec<PullResult>> {
        let on_feed = Arc::new(on_feed);
        let permits = Arc::new(Semaphore::new(CONCURRENT_PULLS));
        let mut tasks = JoinSet::new();
        for (i, pull) in pulls.into_iter().enumerate() {
            let (this, permits, on_feed) = (Arc::clone(self), Arc::clone(&permits), Arc::clone(&on_feed));
            tasks.spawn(async move {
                let _permit = permits.acquire_owned().await;
                let result = this.pull(pull, mode).await;
                if let Ok(Some(result)) = &result {
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
        Ok(results.into_iter().filter_map(|(_, r)| r).collect())
    }

    /// Pulls one feed once it has its lease, and applies what came back; `None` when a
    /// scheduled pull leaves the feed alone.
    async fn pull(&self, pull: FeedPull, mode: Mode) -> rental_core::Result<Option<PullResult>> {
        let pull = match self.claim(pull, mode).await? {
            Turn::Mine(pull) => pull,
            Turn::Skip => return Ok(None),
            Turn::Busy(result) => return Ok(Some(result)),
        };
        let _beating = self.heartbeat(&pull);
        let fetched = self.fetch(&pull).await;
        if let Fetched::Failed(error) = &fetched {
            tracing::warn!(property = %pull.property, feed = %pull.feed, %error, "feed pull failed");
        }
        let applying = pull.clone();
        let applied = self.blocking(move |r| r.worker().apply_pull(&applying, fetched)).await;
        if applied.is_err() {
            // Not applied: the feed is given back now rather than when its lease lapses.
            if let Err(error) = self.blocking(move |r| r.worker().release_feed_pull(&pull)).await {
                tracing::warn!(%error, "a feed lease was left to lapse");
            }
        }
        let result = applied?;
        metrics::counter!(crate::metrics::FEED_PULLS, "outcome" => if result.ok { "ok" } else { "failed" })
            .increment(1);
        tracing::info!(
            property = %result.property, feed = %result.feed, ok = result.ok, events = result.events,
            created = result.created, updated = result.updated, cancelled = result.cancelled,
            conflicts = result.conflicts, "feed pulled"
        );
        Ok(Some(result))
    }

    /// Renews `pull`'s lease each third of [`FEED_LEASE`] until the returned guard is dropped.
    fn heartbeat(&self, pull: &FeedPull) -> Beating {
        let (rental, owner) = (Arc::clone(&self.rental), self.owner.clone());
        let feeds = vec![(pull.property.clone(), pull.feed.clone())];
        Beating(tokio::spawn(async move {
            let mut every = tokio::time::interval(FEED_LEASE / 3);
            every.tick().await;
            loop {
                every.tick().await;
                let (rental, owner, feeds) = (Arc::clone(&rental), owner.clone(), feeds.clone());
                match tokio::task::spawn_blocking(move || rental.worker().renew_feed_leases(&owner, &feeds, FEED_LEASE))
                    .await
                {
                    Ok(Ok(_)) => {}
                    Ok(Err(e)) => tracing::warn!(error = %e, "cannot renew a feed pull lease"),
                    Err(e) => tracing::error!(error = %e, "the feed lease heartbeat failed"),
                }
            }
        }))
    }

    /// Claims `pull`'s feed. While another pull holds it, a scheduled pull skips it and
    /// one asked for waits, at most until that first lease ends (a lapsed lease is taken
    /// over). A scheduled pull that finds the feed pulled since it was planned gives it back.
    async fn claim(&self, pull: FeedPull, mode: Mode) -> rental_core::Result<Turn> {
        let lease = FEED_LEASE;
        // The holder renews its lease while it pulls: wait as long as a pull may take.
        let patience = chrono::TimeDelta::from_std((self.timeout + LEASE_MARGIN).saturating_sub(FEED_LEASE))
            .unwrap_or(chrono::TimeDelta::zero());
        let mut first_until = None;
        loop {
            let (asked, owner) = (pull.clone(), self.owner.clone());
            match self.blocking(move |r| r.worker().claim_feed_pull(&asked, &owner, lease)).await? {
                PullClaim::Claimed(fresh) if mode == Mode::Due && fresh.applied != pull.applied => {
                    self.blocking(move |r| r.worker().release_feed_pull(&fresh)).await?;
                    return Ok(Turn::Skip);
                }
                PullClaim::Claimed(fresh) => return Ok(Turn::Mine(fresh)),
                PullClaim::Held(_) if mode == Mode::Due => return Ok(Turn::Skip),
                PullClaim::Held(until) => {
                    if self.rental.now() > *first_until.get_or_insert(until + patience) {
                        return Ok(Turn::Busy(PullResult::failed(pull.property, pull.feed, BUSY)));
                    }
                    tokio::time::sleep(CLAIM_POLL).await;
                }
            }
        }
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

/// Pulls due feeds about once a minute until `stop` changes (docs/API.md section 8).
pub async fn schedule<S: Store + 'static>(
    puller: Arc<FeedPuller<S>>,
    interval: Duration,
    mut stop: tokio::sync::watch::Receiver<bool>,
) {
    let mut wait = FIRST_CHECK + jitter(Duration::from_secs(2));
    loop {
        tokio::select! {
            () = tokio::time::sleep(wait) => {}
            _ = stop.changed() => return,
        }
        match puller.sync_due(interval).await {
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

/// A lease heartbeat that stops when dropped (the pull ended, however).
struct Beating(tokio::task::JoinHandle<()>);

impl Drop for Beating {
    fn drop(&mut self) {
        self.0.abort();
    }
}
