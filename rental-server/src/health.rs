//! `/healthz` and `/readyz` (docs/API.md section 22): the process answers; the
//! store answers a read within a second, its schema is current, and shutdown has not begun.

use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Duration;

use http::StatusCode;
use rental_core::{Store, StoreError};
use serde_json::json;

use crate::AppState;
use crate::problem::Problem;
use crate::reply::{Reply, json};

/// How long the store has to answer `/readyz`'s read.
pub const READY_DEADLINE: Duration = Duration::from_secs(1);

/// `GET /healthz`: 200 while the process runs; touches no store.
pub fn healthz() -> Reply {
    Ok(json(StatusCode::OK, &json!({ "status": "ok" })))
}

/// `GET /readyz`: 200 `ready`, or 503 `unavailable` whose `checks` name what failed.
pub async fn readyz<S: Store + 'static>(state: &Arc<AppState<S>>) -> Reply {
    let shutdown = if state.draining.load(Ordering::SeqCst) { "shutting down" } else { "ok" };
    let (store, schema) = probe(state).await;
    if shutdown == "ok" && store == "ok" && schema == "ok" {
        return Ok(json(StatusCode::OK, &json!({ "status": "ready" })));
    }
    let mut problem = Problem::unavailable("not ready: see checks");
    problem.checks = vec![("store", store), ("schema", schema), ("shutdown", shutdown.to_owned())];
    Err(problem)
}

/// Reads from the store and asks whether its schema is current, within
/// [`READY_DEADLINE`]: `(store, schema)`, each `ok` or what went wrong.
///
/// One probe runs at a time (a later one waits for it, within its own
/// deadline): a store that hangs holds one blocking thread, not one per request.
async fn probe<S: Store + 'static>(state: &Arc<AppState<S>>) -> (String, String) {
    let deadline = tokio::time::Instant::now() + READY_DEADLINE;
    let late = || ("no answer within 1s".to_owned(), "unknown".to_owned());
    let Ok(turn) = tokio::time::timeout_at(deadline, Arc::clone(&state.probe).lock_owned()).await else {
        return late();
    };
    let rental = Arc::clone(state.rental());
    let work = tokio::task::spawn_blocking(move || {
        let _turn = turn;
        let schema = match rental.worker().check_store() {
            Ok(true) => "ok".to_owned(),
            Ok(false) => "not this build's schema: run the rental that matches it".to_owned(),
            Err(e) => return (failed("the store's read", &e), "unknown".to_owned()),
        };
        ("ok".to_owned(), schema)
    });
    match tokio::time::timeout_at(deadline, work).await {
        Ok(Ok(answer)) => answer,
        Ok(Err(e)) => {
            tracing::error!(error = %e, "the readiness probe failed");
            ("failed".to_owned(), "unknown".to_owned())
        }
        Err(_) => late(),
    }
}

/// What a public answer says of a store failure (`unavailable` or `failed`);
/// the details, which may name hosts or paths, go to the log.
fn failed(what: &str, e: &StoreError) -> String {
    tracing::warn!(error = %e, "readiness: {what} failed");
    if e.is_transient() || matches!(e, StoreError::Locked) { "unavailable" } else { "failed" }.to_owned()
}
