//! The OpenAPI 3.1 description of the API, served at `/api/openapi.json`.

use bytes::Bytes;
use http::{HeaderValue, Response, header};
use http_body_util::Full;

/// The document as JSON text.
pub fn document() -> serde_json::Value {
    serde_json::json!({"openapi": "3.1.0", "info": {"title": "rental", "version": env!("CARGO_PKG_VERSION")}, "paths": {}})
}

/// The `GET /api/openapi.json` response.
pub fn response() -> Response<Full<Bytes>> {
    let mut response = Response::new(Full::new(Bytes::from(document().to_string())));
    response.headers_mut().insert(header::CONTENT_TYPE, HeaderValue::from_static("application/json"));
    response
}
