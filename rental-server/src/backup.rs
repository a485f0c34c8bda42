//! `GET /api/v1/backup` (docs/API.md section 22): the whole store as one
//! backup file, for a key with the `backup` scope, while the server goes on serving.

use std::sync::Arc;

use bytes::Bytes;
use http::{HeaderValue, Response, header};
use http_body_util::Full;
use rental_core::backup::BackupError;
use rental_core::{Rental, Store, StoreError};

use crate::problem::Problem;
use crate::reply::{Reply, problem};
use crate::streamed;

/// The backup, written from one snapshot on the blocking pool (writers are
/// not held up) and sent as it is written: memory holds a few chunks, not the file.
pub async fn download<S: Store + 'static>(rental: &Arc<Rental<S>>) -> Reply {
    let (mut out, mut rest) = streamed::channel();
    let rental = Arc::clone(rental);
    tokio::task::spawn_blocking(move || match rental.backup(&mut out) {
        Ok(_) => {}
        // The client left: the snapshot is let go, nothing to tell.
        Err(BackupError::Io(e)) if e.kind() == std::io::ErrorKind::BrokenPipe => {}
        Err(e) => out.fail(std::io::Error::other(e)),
    });
    // A failure before the first chunk still gets a problem answer; one after
    // it cuts the body short (the file then lacks its trailer, and restores refuse it).
    let first = match rest.recv().await {
        Some(Ok(first)) => first,
        Some(Err(e)) => return Err(problem(store_error(e))),
        None => return Err(Problem::internal()),
    };
    let mut response = Response::new(Full::new(Bytes::new()));
    let headers = response.headers_mut();
    headers.insert(header::CONTENT_TYPE, HeaderValue::from_static("application/x-ndjson"));
    headers.insert(header::CONTENT_DISPOSITION, HeaderValue::from_static("attachment; filename=\"rental.backup\""));
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    Ok(streamed::respond(response, first, rest))
}

/// The library error of a backup that failed before its first byte.
fn store_error(e: std::io::Error) -> rental_core::Error {
    match e.into_inner().and_then(|inner| inner.downcast::<BackupError>().ok()).map(|b| *b) {
        Some(BackupError::Store(e)) => rental_core::Error::Store(e),
        Some(other) => rental_core::Error::Store(StoreError::Backend(other.to_string().into())),
        None => rental_core::Error::Store(StoreError::Backend("the backup failed".into())),
    }
}
