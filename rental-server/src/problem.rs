//! Errors as RFC 9457 problem details (docs/API.md section 1), and the one
//! place where a library error becomes an HTTP status and a `code`.

use bytes::Bytes;
use http::{HeaderValue, Response, StatusCode, header};
use http_body_util::Full;
use rental_core::{Error, FieldError, StoreError};
use serde::Serialize;

use crate::connection::{MAX_HEADERS, MAX_URI_BYTES};

/// An error response: a status, a stable `code`, a sentence, and the fields at fault.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    /// The HTTP status.
    pub status: StatusCode,
    /// The stable machine-readable code.
    pub code: &'static str,
    /// A sentence for people; never internals.
    pub detail: String,
    /// The fields at fault, for validation errors.
    pub errors: Vec<FieldError>,
    /// Extra headers: `WWW-Authenticate`, `Allow`, `Retry-After`.
    pub headers: Vec<(header::HeaderName, String)>,
    /// `/readyz`'s checks, by name, each `ok` or what failed; empty elsewhere.
    pub checks: Vec<(&'static str, String)>,
}

impl Problem {
    /// A problem with no field errors and no extra headers.
    pub fn new(status: StatusCode, code: &'static str, detail: impl Into<String>) -> Self {
        Problem { status, code, detail: detail.into(), errors: Vec::new(), headers: Vec::new(), checks: Vec::new() }
    }

    /// Adds a header.
    #[must_use]
    pub fn with_header(mut self, name: header::HeaderName, value: impl Into<String>) -> Self {
        self.headers.push((name, value.into()));
        self
    }

    /// 400 `invalid_parameter` about one query parameter.
    pub fn invalid_parameter(name: &str, message: impl Into<String>) -> Self {
        let message = message.into();
        Problem {
            errors: vec![FieldError::new(name, "invalid_parameter", message.clone())],
            ..Problem::new(StatusCode::BAD_REQUEST, "invalid_parameter", format!("query parameter {name}: {message}"))
        }
    }

    /// 404 `not_found`.
    pub fn not_found(detail: impl Into<String>) -> Self {
        Problem::new(StatusCode::NOT_FOUND, "not_found", detail)
    }

    /// 401 `unauthorized`, with the challenge.
    pub fn unauthorized(detail: &str) -> Self {
        Problem::new(StatusCode::UNAUTHORIZED, "unauthorized", detail)
            .with_header(header::WWW_AUTHENTICATE, r#"Bearer realm="rental""#)
    }

    /// 500 `internal`: says nothing of the cause, which is logged with the request id.
    pub fn internal() -> Self {
        Problem::new(StatusCode::INTERNAL_SERVER_ERROR, "internal", "an unexpected error occurred; it has been logged")
    }

    /// 408 `request_timeout`: the body did not arrive in time; the connection closes.
    pub fn request_timeout() -> Self {
        Problem::new(
            StatusCode::REQUEST_TIMEOUT,
            "request_timeout",
            "the request body did not arrive in time; send it whole, without pauses",
        )
        .with_header(header::CONNECTION, "close")
    }

    /// 503 `unavailable` with `Retry-After`.
    pub fn unavailable(detail: &str) -> Self {
        Problem::new(StatusCode::SERVICE_UNAVAILABLE, "unavailable", detail).with_header(header::RETRY_AFTER, "5")
    }

    /// The answer to a request hyper could not parse, by the status hyper chose:
    /// 414 `uri_too_long`, 431 `headers_too_large`, else 400 `bad_request`.
    pub fn malformed_request(status: StatusCode) -> Self {
        match status {
            StatusCode::URI_TOO_LONG => {
                Problem::new(status, "uri_too_long", format!("the request target is longer than {MAX_URI_BYTES} bytes"))
            }
            StatusCode::REQUEST_HEADER_FIELDS_TOO_LARGE => Problem::new(
                status,
                "headers_too_large",
                format!("the request has more than {MAX_HEADERS} header fields or a head over about 400 KiB"),
            ),
            _ => Problem::new(
                StatusCode::BAD_REQUEST,
                "bad_request",
                "the request is not valid HTTP/1.1 (request line, header names and values)",
            ),
        }
    }

    /// The body: the problem as JSON.
    pub fn body(&self) -> Bytes {
        #[derive(Serialize)]
        struct Body<'a> {
            r#type: &'static str,
            title: &'a str,
            status: u16,
            code: &'a str,
            detail: &'a str,
            #[serde(skip_serializing_if = "<[FieldError]>::is_empty")]
            errors: &'a [FieldError],
            #[serde(skip_serializing_if = "serde_json::Map::is_empty")]
            checks: serde_json::Map<String, serde_json::Value>,
        }
        let body = Body {
            r#type: "about:blank",
            title: self.status.canonical_reason().unwrap_or("Error"),
            status: self.status.as_u16(),
            code: self.code,
            detail: &self.detail,
            errors: &self.errors,
            checks: self.checks.iter().map(|(name, state)| ((*name).to_owned(), state.as_str().into())).collect(),
        };
        Bytes::from(serde_json::to_vec(&body).unwrap_or_default())
    }

    /// The response, `application/problem+json`.
    pub fn into_response(self) -> Response<Full<Bytes>> {
        let mut response = Response::new(Full::new(self.body()));
        *response.status_mut() = self.status;
        let headers = response.headers_mut();
        headers.insert(header::CONTENT_TYPE, HeaderValue::from_static("application/problem+json"));
        for (name, value) in self.headers {
            if let Ok(value) = HeaderValue::from_str(&value) {
                headers.insert(name, value);
            }
        }
        response
    }
}

impl From<Error> for Problem {
    fn from(e: Error) -> Self {
        let status = match &e {
            Error::Validation(_) | Error::IdempotencyKeyReused | Error::PromoCode { .. } => {
                StatusCode::UNPROCESSABLE_ENTITY
            }
            Error::NotFound(_) => StatusCode::NOT_FOUND,
            Error::DatesUnavailable { .. }
            | Error::InvalidTransition { .. }
            | Error::FeedOwned { .. }
            | Error::CannotSend { .. } => StatusCode::CONFLICT,
            Error::Store(StoreError::Locked | StoreError::Unavailable(_)) => {
                return Problem::unavailable("storage is unavailable");
            }
            Error::Store(StoreError::Conflict(_)) => {
                return Problem::unavailable("storage is busy with other writes; try again");
            }
            _ => return Problem::internal(),
        };
        let errors = match &e {
            Error::Validation(errors) => errors.clone(),
            Error::PromoCode { reason } => {
                vec![rental_core::FieldError::new("promoCode", reason.as_str(), e.to_string())]
            }
            _ => Vec::new(),
        };
        Problem { errors, ..Problem::new(status, e.code(), e.to_string()) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rental_core::NotFound;

    #[test]
    fn library_errors_map_to_one_status_and_code_each() {
        let cases: Vec<(Error, u16, &str)> = vec![
            (Error::invalid("guests", "invalid", "must be 1 to 100"), 422, "validation_failed"),
            (Error::NotFound(NotFound::Booking("BK-X".into())), 404, "not_found"),
            (Error::DatesUnavailable { dates: vec![] }, 409, "dates_unavailable"),
            (
                Error::InvalidTransition {
                    from: rental_core::Status::Cancelled,
                    action: "confirm",
                    channel_owned: false,
                },
                409,
                "invalid_transition",
            ),
            (Error::IdempotencyKeyReused, 422, "idempotency_key_reused"),
            (Error::Store(StoreError::Locked), 503, "unavailable"),
            (Error::Store(StoreError::Conflict("40001".into())), 503, "unavailable"),
            (Error::Store(StoreError::Unavailable("connection lost".into())), 503, "unavailable"),
            (Error::Store(StoreError::Corrupt("table x at /var/lib".into())), 500, "internal"),
        ];
        for (error, status, code) in cases {
            let p = Problem::from(error);
            assert_eq!((p.status.as_u16(), p.code), (status, code));
        }
    }

    #[test]
    fn an_internal_error_says_nothing_of_its_cause() {
        let p = Problem::from(Error::Store(StoreError::Corrupt("redb page 17 at /srv/data".into())));
        assert!(!p.detail.contains("redb") && !p.detail.contains("/srv"));
    }
}
