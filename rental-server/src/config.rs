//! What a server is configured with besides the engine: [`ServerConfig`]
//! and its webhook part, read by `rental serve` from its settings file.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use rental_core::payment_provider::PaymentProvider;

use crate::client_addr::TrustedProxies;
use crate::connection::ConnectionLimits;
use crate::ratelimit::RateLimit;
use crate::{admin, book, dispatcher, feed_pulls, mail, outbound};

/// How long shutdown may take, by default: requests in flight and webhook
/// attempts in flight get this long to finish after SIGTERM.
pub const SHUTDOWN_GRACE: Duration = Duration::from_secs(30);

/// What the server needs besides the engine.
#[derive(Debug, Clone)]
pub struct ServerConfig {
    /// Per-key request rate; `None` for no limit.
    pub rate_limit: Option<RateLimit>,
    /// Webhook deliveries; `None` runs no dispatcher.
    pub webhooks: Option<WebhookConfig>,
    /// Pulls of the channels' feeds: the client's rules and the schedule.
    pub feed_pulls: feed_pulls::FeedPullConfig,
    /// The admin dashboard's cookie and session settings.
    pub admin: admin::AdminConfig,
    /// Time-outs for request heads and idle connections, and the connection cap.
    pub connections: ConnectionLimits,
    /// The reverse proxies whose `X-Forwarded-For` names the client (for the login throttle).
    pub trusted_proxies: TrustedProxies,
    /// How long shutdown may take ([`SHUTDOWN_GRACE`]).
    pub shutdown_grace: Duration,
    /// The booking page's token secret, token lifetime and post limit.
    pub book: book::BookConfig,
    /// A second address serving `GET /metrics` alone, without a key (`metricsListen`); `None`: off.
    pub metrics_listen: Option<SocketAddr>,
    /// Guest messages: the mail server, sender and retries (none: recorded `skipped`).
    pub mail: mail::MailConfig,
    /// The payment provider (docs/API.md section 23); `None`: no money moves through the
    /// server. `payments::PaymentsConfig::provider` builds Stripe's; an embedder may pass its own.
    pub payments: Option<Arc<dyn PaymentProvider>>,
}

impl Default for ServerConfig {
    fn default() -> Self {
        ServerConfig {
            rate_limit: None,
            webhooks: None,
            feed_pulls: feed_pulls::FeedPullConfig::default(),
            admin: admin::AdminConfig::default(),
            connections: ConnectionLimits::default(),
            trusted_proxies: TrustedProxies::default(),
            shutdown_grace: SHUTDOWN_GRACE,
            book: book::BookConfig::default(),
            metrics_listen: None,
            mail: mail::MailConfig::default(),
            payments: None,
        }
    }
}

/// How the server delivers webhooks.
#[derive(Debug, Clone, Default)]
pub struct WebhookConfig {
    /// Retries, timeout and concurrency.
    pub dispatch: dispatcher::DispatchConfig,
    /// The outbound client's rules (private targets, User-Agent).
    pub outbound: outbound::OutboundConfig,
}
