//! What the engine counts, through the `metrics` facade: nothing is kept until
//! an embedder installs a recorder (the server installs a Prometheus one).
//!
//! Names are those of docs/API.md section 22; labels are fixed words, never a
//! code, a slug or an e-mail, so every family has a bounded set of series.

use std::time::Duration;

use crate::basics::ids::Source;
use crate::outbox::delivery::{Delivery, DeliveryStatus};

/// `rental_bookings_created_total{source}`: bookings created (not replays).
pub const BOOKINGS_CREATED: &str = "rental_bookings_created_total";
/// `rental_booking_conflicts_total`: creations refused because a night was taken.
pub const BOOKING_CONFLICTS: &str = "rental_booking_conflicts_total";
/// `rental_store_commit_duration_seconds`: how long each write transaction's commit took.
pub const STORE_COMMIT_DURATION: &str = "rental_store_commit_duration_seconds";
/// `rental_webhook_deliveries_total{outcome}`: attempts recorded, by what became of the delivery.
pub const WEBHOOK_DELIVERIES: &str = "rental_webhook_deliveries_total";
/// `rental_messages_total{kind,outcome}`: guest messages by kind and how their attempt ended.
pub const MESSAGES: &str = "rental_messages_total";

/// Every `source` label of [`BOOKINGS_CREATED`]: the known sources and `other`,
/// which any other source (a client's own word) counts as.
pub const SOURCE_LABELS: &[&str] = &["api", "admin", "cli", "agent", "page", "other"];

/// Every `outcome` label of [`MESSAGES`].
pub const MESSAGE_OUTCOMES: &[&str] = &["sent", "retry", "failed", "skipped", "cancelled"];

/// A booking was created with `source`.
pub(crate) fn booking_created(source: &Source) {
    let source = SOURCE_LABELS.iter().find(|s| **s == source.as_str()).copied().unwrap_or("other");
    metrics::counter!(BOOKINGS_CREATED, "source" => source).increment(1);
}

/// A creation was refused: its nights were taken.
pub(crate) fn booking_conflict() {
    metrics::counter!(BOOKING_CONFLICTS).increment(1);
}

/// A write transaction committed in `took`.
pub(crate) fn commit(took: Duration) {
    metrics::histogram!(STORE_COMMIT_DURATION).record(took.as_secs_f64());
}

/// Attempts were recorded: each delivery is now `delivered`, `failed` or pending a `retry`.
pub(crate) fn deliveries(recorded: &[Delivery]) {
    for d in recorded {
        let outcome = match d.status {
            DeliveryStatus::Delivered => "delivered",
            DeliveryStatus::Failed => "failed",
            DeliveryStatus::Pending => "retry",
        };
        metrics::counter!(WEBHOOK_DELIVERIES, "outcome" => outcome).increment(1);
    }
}

/// Counts one guest message: the hook the messages' sender calls once per
/// record it finishes with. `kind` is one of docs/API.md section 21's kinds
/// (`check_in_instructions`, ...); `outcome` one of `sent`, `retry`,
/// `failed`, `skipped`, `cancelled`. Both must be fixed words, never input.
///
/// ```
/// rental_core::metrics::message("confirmed", "sent");
/// ```
pub fn message(kind: &'static str, outcome: &'static str) {
    metrics::counter!(MESSAGES, "kind" => kind, "outcome" => outcome).increment(1);
}
