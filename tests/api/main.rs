//! Black-box tests of the HTTP API (docs/API.md sections 1 to 9), each
//! against its own in-process server from `rental_tests::http`.
//!
//! - `properties`, `availability`, `quotes`, `bookings`, `patch`, `summary`:
//!   every endpoint, its shapes and its refusals; `change` and `blocks`:
//!   changing a stay and manual blocks (sections 13 and 14).
//! - `auth`: keys and scopes; `scopes`: every endpoint with every scope, and
//!   nothing private to a key without `read`; `errors`: every problem code, and that refused
//!   requests change nothing.
//! - `concurrency`: racing creations over HTTP; `restart`: what a redb store
//!   keeps across a restart, and a graceful shutdown.
//! - `connections`: head and idle time-outs, the connection cap, and problem
//!   details for the requests hyper refuses before routing; `slow_clients`:
//!   body deadlines, the minimum body rate, write stalls, the per-address cap;
//!   `denial`: attacks from one address do not deny service to another.
//! - `webhooks`: signed deliveries of every event to a recording receiver,
//!   subscriptions, retries, 410, redirects, a hanging receiver, checkout expiry.
//! - `delivery_claims`: deliveries claimed as store leases: 2,000 answered at
//!   once arrive once each; shutdown with attempts hanging ends within its grace.
//! - `standard_webhooks`: the reference Standard Webhooks library verifies real
//!   deliveries, also while a secret rotation's two secrets sign.
//! - `stay_page`: the guest's stay page (section 24): its link, rotation, the page;
//!   `check_in`: its online check-in form, the API's view of it and the `guests` scope.
//! - `stay`: check-in and check-out, per-stay door codes, turnover, feed
//!   freshness, and the stay schedule across restarts (section 15).
//! - `home_assistant`: a real Home Assistant runs the example configuration
//!   against a server (installed by `scripts/test`).
//! - `schemathesis`: the OpenAPI document against a demo server, by Schemathesis.
//! - `price_rules`: section 25 over HTTP: every quote line, refusals, promo uses, kept prices.
//! - `book`: the booking page guests book on (section 20), its form, tokens and framing.
//! - `health`: `/healthz` and `/readyz`, at shutdown and with PostgreSQL stopped and started (section 22).
//! - `guest_mail`: what guests and hosts read in messages (issue 44): reply-to,
//!   plurals, days and clocks, lapsed requests and the host told before.
//! - `messages`: guest messages (section 21) through a real SMTP server: every kind,
//!   timing across DST, order, retries, refusals, a server down, header injection.
//! - `payments`: euro and yen properties quoted, booked and shown; the currency locked by bookings;
//!   the payment settings and their refusals (docs/API.md, Payments).
//! - `mounted`: the whole interface mounted under `/rental` in a program's own
//!   hyper server, beside its own route (`RentalService`).

mod auth;
mod availability;
mod backup;
mod blocks;
mod book;
mod book_verify;
mod bookings;
mod change;
mod check_in;
mod checkout;
mod concurrency;
mod connections;
mod delivery_claims;
mod denial;
mod errors;
mod guest_mail;
mod health;
mod home_assistant;
mod ical;
mod languages;
mod messages;
mod mounted;
mod patch;
mod payment_installments;
mod payment_refunds;
mod payment_webhook;
mod payments;
mod payments_provider;
mod price_rules;
mod properties;
mod quotes;
mod restart;
mod schemathesis;
mod scopes;
mod slow_clients;
mod standard_webhooks;
mod stay;
mod stay_page;
mod summary;
mod webhooks;
