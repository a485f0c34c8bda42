//! What can go wrong on the booking page, and the one place each becomes a
//! status and an HTML page (never a problem+json body, never internals).

use http::{HeaderValue, StatusCode, header};

use super::page::{Frame, Page, message};
use crate::problem::Problem;

/// A request the booking page cannot answer with the page itself.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum BookError {
    /// No such property, or it is inactive, or its page is off; or no such page.
    #[error("there is no booking page here")]
    NotFound,
    /// The address posted too often; it may post again after `retry_after` seconds.
    #[error("too many requests from this address")]
    RateLimited {
        /// Seconds to wait.
        retry_after: u64,
    },
    /// The query or form could not be read at all.
    #[error("the request could not be read")]
    BadRequest,
    /// The hidden field people leave empty was filled: nothing is created.
    #[error("the request was not sent")]
    Refused,
    /// A method the page does not answer.
    #[error("method not allowed")]
    MethodNotAllowed,
    /// The store cannot answer now.
    #[error("the booking service is unavailable")]
    Unavailable,
    /// Anything unexpected (logged where it happened).
    #[error("unexpected failure")]
    Internal,
}

impl From<Problem> for BookError {
    fn from(p: Problem) -> Self {
        match p.status {
            StatusCode::NOT_FOUND => BookError::NotFound,
            StatusCode::SERVICE_UNAVAILABLE => BookError::Unavailable,
            s if s.is_server_error() => BookError::Internal,
            _ => BookError::BadRequest,
        }
    }
}

impl BookError {
    /// The HTML page of the error, in the frame's language.
    pub fn page(self, frame: Frame<'_>) -> Page {
        let (status, words) = match self {
            BookError::NotFound => (StatusCode::NOT_FOUND, 0),
            BookError::RateLimited { .. } => (StatusCode::TOO_MANY_REQUESTS, 1),
            BookError::BadRequest => (StatusCode::BAD_REQUEST, 2),
            BookError::Refused => (StatusCode::BAD_REQUEST, 3),
            BookError::MethodNotAllowed => (StatusCode::METHOD_NOT_ALLOWED, 4),
            BookError::Unavailable => (StatusCode::SERVICE_UNAVAILABLE, 5),
            BookError::Internal => (StatusCode::INTERNAL_SERVER_ERROR, 6),
        };
        let (title, text) = crate::lang::words(frame.lang).book_errors[words];
        let mut page = message(status, title, text, frame);
        let retry = match self {
            BookError::RateLimited { retry_after } => Some(retry_after.to_string()),
            BookError::Unavailable => Some("5".to_owned()),
            _ => None,
        };
        if let Some(value) = retry.and_then(|r| HeaderValue::from_str(&r).ok()) {
            page.headers_mut().insert(header::RETRY_AFTER, value);
        }
        if self == BookError::MethodNotAllowed {
            page.headers_mut().insert(header::ALLOW, HeaderValue::from_static("GET, POST"));
        }
        page
    }
}
