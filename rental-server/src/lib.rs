//! `rental-server`: the reference HTTP server of `rental-core`, on hyper 1
//! and tokio. It parses, calls one library use case, and renders.
//!
//! - [`serve`] takes an already bound listener and a shutdown future, so
//!   `main` binds and passes `ctrl_c()`, and tests bind `127.0.0.1:0`.
//! - [`RentalService`] is everything `serve` answers as one hyper service, for
//!   a program that mounts it in its own server, under a path prefix if it
//!   likes; [`Jobs`] runs the background work beside it. `serve` is the
//!   two with an accept loop and the connection limits around them.
//! - [`connection`] bounds each connection: deadlines for the request head
//!   and body, a minimum body rate, a write-stall reset, an idle time-out,
//!   caps on how many are open overall and per client address, and problem
//!   details for requests hyper cannot parse.
//! - [`routes`] is the route table: each endpoint once, with its method,
//!   path, scope, handler and OpenAPI operation; `answer` takes a request
//!   through it. [`handlers`] (and `blocks`, `messages`, `health`, `backup`)
//!   answer the endpoints, through [`reply`]; [`problem`] is the one place
//!   errors become statuses and codes.
//! - Every response carries `X-Request-Id`; every request is logged once.
//! - Store calls run on tokio's blocking pool, never on the runtime's workers;
//!   reads the engine answers from memory (`Rental::with_read_cache`) run inline.
//! - [`jobs`] runs the background work ([`Jobs`]) and listens for SIGINT/SIGTERM;
//!   [`AppState`] is what handlers and jobs share, made from a [`ServerConfig`].
//! - [`book`] serves the guests' booking page under `/book`, and [`stay`]
//!   each booking's private stay page under `/stay`, both in the guest's
//!   language from [`lang`]'s tables.
//! - [`admin`] serves the dashboard's HTML pages under `/admin`; [`client_addr`]
//!   tells it the client's address, behind trusted reverse proxies too.
//! - In the background, [`dispatcher`] delivers webhooks and [`feed_pulls`] pulls the
//!   channels' feeds on a schedule; both go out through [`outbound`];
//!   [`mail`] sends guest messages over SMTP.

#![deny(missing_docs)]

mod accept;
pub mod admin;
mod answer;
pub mod backup;
pub mod blocks;
pub mod book;
pub mod client_addr;
mod config;
pub mod connection;
pub mod dispatcher;
pub mod feed_pulls;
pub mod handlers;
pub mod health;
pub mod jobs;
pub mod lang;
mod lease_owner;
pub mod ledger;
pub mod log_safe;
pub mod mail;
pub mod messages;
pub mod metrics;
pub mod openapi;
pub mod outbound;
pub mod payments;
pub mod problem;
pub mod ratelimit;
pub mod reply;
pub mod request;
pub mod routes;
mod service;
mod state;
pub mod stay;
pub mod stay_schedule;
mod streamed;

pub use accept::serve;
pub use config::{SHUTDOWN_GRACE, ServerConfig, WebhookConfig};
pub use jobs::Jobs;
pub use service::RentalService;
pub use state::AppState;
