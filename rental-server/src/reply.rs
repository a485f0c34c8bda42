//! Answering from a handler: the [`Reply`] type, running library calls off
//! the async runtime, and JSON responses. Depends on nothing but [`Problem`].

use std::sync::Arc;

use bytes::Bytes;
use http::{HeaderValue, Response, StatusCode, header};
use http_body_util::Full;
use rental_core::{Rental, Store};
use serde::Serialize;

use crate::problem::Problem;

/// A finished response.
pub type Reply = Result<Response<Full<Bytes>>, Problem>;

/// Runs a library call on the blocking pool, so store I/O never stalls the runtime.
pub async fn blocking<S, T, F>(rental: &Arc<Rental<S>>, f: F) -> Result<T, Problem>
where
    S: Store + 'static,
    T: Send + 'static,
    F: FnOnce(&Rental<S>) -> rental_core::Result<T> + Send + 'static,
{
    let rental = Arc::clone(rental);
    match tokio::task::spawn_blocking(move || f(&rental)).await {
        Ok(result) => result.map_err(problem),
        Err(e) => {
            tracing::error!(error = %e, "a blocking task failed");
            Err(Problem::internal())
        }
    }
}

/// Runs a read use case: inline when the engine answers reads from memory
/// (no store transaction to wait on), else on the blocking pool.
pub async fn read<S, T, F>(rental: &Arc<Rental<S>>, f: F) -> Result<T, Problem>
where
    S: Store + 'static,
    T: Send + 'static,
    F: FnOnce(&Rental<S>) -> rental_core::Result<T> + Send + 'static,
{
    if rental.worker().reads_from_memory() { f(rental).map_err(problem) } else { blocking(rental, f).await }
}

/// The problem of a library error; store failures are logged, as their response says nothing.
pub(crate) fn problem(e: rental_core::Error) -> Problem {
    if matches!(e, rental_core::Error::Store(_)) {
        tracing::error!(error = %e, "store failure");
    }
    Problem::from(e)
}

/// A JSON response.
pub fn json(status: StatusCode, value: &impl Serialize) -> Response<Full<Bytes>> {
    let mut bytes = Vec::with_capacity(4096);
    if serde_json::to_writer(&mut bytes, value).is_err() {
        return Problem::internal().into_response();
    }
    json_bytes(status, bytes)
}

/// A response of JSON already written.
pub fn json_bytes(status: StatusCode, bytes: Vec<u8>) -> Response<Full<Bytes>> {
    let mut response = Response::new(Full::new(Bytes::from(bytes)));
    *response.status_mut() = status;
    response.headers_mut().insert(header::CONTENT_TYPE, HeaderValue::from_static("application/json"));
    response
}
