//! The shared suite: each module holds functions generic over the store, and
//! `store_suite!` runs each of them against `MemoryStore` and `RedbStore`.

mod admin;
mod admin_sessions;
mod availability;
mod bookings;
mod catalog;
mod deliveries;
mod delivery_leases;
mod expiry;
mod feed_leases;
mod idempotency;
mod keys;
mod lifecycle;
mod listing;
mod many_writers;
mod messages;
mod outbox;
mod precision;
mod quotes;
mod retention;
mod stay_summary;
mod summary;
mod webhook_secrets;

use rental_core::{Error, FieldError};

/// The field errors of a validation error; fails the test on any other result.
pub fn field_errors<T: std::fmt::Debug>(result: Result<T, Error>) -> Vec<FieldError> {
    match result {
        Err(Error::Validation(errors)) => errors,
        other => panic!("expected a validation error, got {other:?}"),
    }
}

/// The `(field, code)` pairs of a validation error.
pub fn faults<T: std::fmt::Debug>(result: Result<T, Error>) -> Vec<(String, &'static str)> {
    field_errors(result).into_iter().map(|e| (e.field, e.code)).collect()
}
