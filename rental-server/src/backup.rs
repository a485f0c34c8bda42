//! `GET /api/v1/backup` (docs/API.md section 22): the whole store as one
//! backup file, for a key with the `backup` scope, while the server goes on serving.

use std::sync::Arc;

use bytes::Bytes;
use http::{HeaderValue, Response, header};
use http_body_util::Full;
use rental_core::backup::BackupError;
use rental_core::{Rental, Store, StoreError};

use crate::reply::{Reply, blocking};

/// The backup, read from one snapshot on the blocking pool (writers are not held up).
pub async fn download<S: Store + 'static>(rental: &Arc<Rental<S>>) -> Reply {
    let bytes = blocking(rental, |r| {
        let mut out = Vec::with_capacity(1 << 20);
        r.backup(&mut out).map_err(|e| match e {
            BackupError::Store(e) => rental_core::Error::Store(e),
            other => rental_core::Error::Store(StoreError::Backend(other.to_string().into())),
        })?;
        Ok(out)
    })
    .await?;
    let mut response = Response::new(Full::new(Bytes::from(bytes)));
    let headers = response.headers_mut();
    headers.insert(header::CONTENT_TYPE, HeaderValue::from_static("application/x-ndjson"));
    headers.insert(header::CONTENT_DISPOSITION, HeaderValue::from_static("attachment; filename=\"rental.backup\""));
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    Ok(response)
}
