//! [`AppState`]: everything a request handler and a background job can
//! reach, made once per server from the engine and the [`ServerConfig`].

use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64};
use std::time::Duration;

use rental_core::payment_provider::PaymentProvider;
use rental_core::{Rental, Store};

use crate::client_addr::TrustedProxies;
use crate::connection::ConnectionLimits;
use crate::ratelimit::Limiter;
use crate::{ServerConfig, WebhookConfig, admin, book, feed_pulls, mail, stay};

/// Everything a request handler can reach.
#[derive(Debug)]
pub struct AppState<S> {
    pub(crate) rental: Arc<Rental<S>>,
    pub(crate) webhooks: Option<WebhookConfig>,
    pub(crate) feed_puller: Arc<feed_pulls::FeedPuller<S>>,
    pub(crate) sync_interval: Option<Duration>,
    pub(crate) limiter: Limiter,
    pub(crate) limits: ConnectionLimits,
    pub(crate) grace: Duration,
    pub(crate) proxies: TrustedProxies,
    pub(crate) admin: admin::Admin,
    pub(crate) book: book::Book,
    /// The guests' stay pages and what signs their links.
    pub(crate) stay: stay::StayPages,
    pub(crate) draining: AtomicBool,
    /// The process's counters and histograms ([`crate::metrics`]).
    pub(crate) metrics: crate::metrics::Metrics,
    pub(crate) metrics_listen: Option<SocketAddr>,
    /// Held by the one readiness probe running ([`health`]).
    pub(crate) probe: Arc<tokio::sync::Mutex<()>>,
    pub(crate) next_request: AtomicU64,
    /// Requests answered so far: how the dispatcher tells a busy server.
    pub(crate) requests: Arc<AtomicU64>,
    /// How guest messages go out.
    pub(crate) mail: mail::MailConfig,
    /// Outcomes of guest messages per kind, for metrics.
    pub(crate) message_counters: Arc<mail::MessageCounters>,
    /// The payment provider, if one is configured.
    pub(crate) payments: Option<Arc<dyn PaymentProvider>>,
}

impl<S: Store + 'static> AppState<S> {
    /// The state of a server over `rental`.
    pub fn new(rental: Arc<Rental<S>>, config: &ServerConfig) -> Arc<Self> {
        Arc::new(AppState {
            feed_puller: Arc::new(feed_pulls::FeedPuller::new(Arc::clone(&rental), &config.feed_pulls)),
            sync_interval: config.feed_pulls.interval,
            rental,
            webhooks: config.webhooks.clone(),
            limiter: Limiter::new(config.rate_limit),
            limits: config.connections,
            grace: config.shutdown_grace,
            proxies: config.trusted_proxies.clone(),
            admin: admin::Admin::new(config.admin.clone()),
            book: book::Book::new(&config.book),
            stay: stay::StayPages::new(&config.book.secret),
            draining: AtomicBool::new(false),
            probe: Arc::new(tokio::sync::Mutex::new(())),
            metrics: crate::metrics::Metrics::install(),
            metrics_listen: config.metrics_listen,
            next_request: AtomicU64::new(1),
            requests: Arc::new(AtomicU64::new(0)),
            mail: mail::MailConfig {
                stay_links: Some(rental_core::stay_link::StayLinks::new(&config.book.secret)),
                ..config.mail.clone()
            },
            message_counters: Arc::new(mail::MessageCounters::default()),
            payments: config.payments.clone(),
        })
    }

    /// Outcomes of guest messages per kind since start (`rental_messages_total{kind,outcome}`).
    pub fn message_counters(&self) -> &Arc<mail::MessageCounters> {
        &self.message_counters
    }

    /// How guest messages go out (the admin's test message uses it too).
    pub fn mail(&self) -> &mail::MailConfig {
        &self.mail
    }

    /// What signs the guests' stay page links.
    pub fn stay_links(&self) -> &rental_core::stay_link::StayLinks {
        self.stay.links()
    }

    /// The payment provider, if one is configured.
    pub fn payments(&self) -> Option<&Arc<dyn PaymentProvider>> {
        self.payments.as_ref()
    }

    /// The engine.
    pub fn rental(&self) -> &Arc<Rental<S>> {
        &self.rental
    }

    /// The process's counters and histograms.
    pub(crate) fn metrics(&self) -> &crate::metrics::Metrics {
        &self.metrics
    }

    /// The job that pulls the channels' feeds.
    pub fn feed_puller(&self) -> &Arc<feed_pulls::FeedPuller<S>> {
        &self.feed_puller
    }
}
