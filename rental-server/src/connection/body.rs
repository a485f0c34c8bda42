//! A request's body with a deadline: whole by the head's own deadline until
//! the request proves a credential, and never slower than a minimum rate.
//!
//! The deadline is checked only while a reader waits for bytes, so a handler
//! that is busy before it reads loses nothing; a reader that waits past it
//! gets [`BodyTimeout`], which the server answers with 408 and a close.

use std::error::Error as StdError;
use std::pin::Pin;
use std::sync::{Arc, Mutex, PoisonError};
use std::task::{Context, Poll};
use std::time::Duration;

use bytes::Bytes;
use hyper::body::{Body as HttpBody, Frame, Incoming, SizeHint};
use tokio::time::{Instant, Sleep};

use super::ConnectionLimits;

/// The error a body gives once its deadline has passed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("the request body did not arrive in time")]
pub struct BodyTimeout;

/// True when a body reader's error is [`BodyTimeout`].
pub fn is_timeout(error: &(dyn StdError + 'static)) -> bool {
    error.is::<BodyTimeout>()
}

/// When a connection last became ready for a request head: at accept, and
/// again each time a response went out. The connection's I/O marks it; each
/// request's body reads it, to hold an anonymous request to the head's deadline.
#[derive(Debug, Clone)]
pub struct ReadyClock(Arc<Mutex<Instant>>);

impl ReadyClock {
    /// A clock that starts now (at accept).
    pub fn new() -> Self {
        ReadyClock(Arc::new(Mutex::new(Instant::now())))
    }

    /// The connection is ready for the next request head from now.
    pub fn mark(&self) {
        *self.0.lock().unwrap_or_else(PoisonError::into_inner) = Instant::now();
    }

    /// When the connection became ready for the current request.
    pub fn since(&self) -> Instant {
        *self.0.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

impl Default for ReadyClock {
    fn default() -> Self {
        ReadyClock::new()
    }
}

/// Every request's body: hyper's, bounded in time.
#[derive(Debug)]
pub struct Body {
    inner: Incoming,
    /// The deadline until a credential is proven: the head's own.
    anonymous_by: Instant,
    /// The deadline once one is: the body time-out after the head.
    authenticated_by: Instant,
    proven: bool,
    /// From when [`ConnectionLimits::min_body_rate`] applies, and the rate.
    rate_from: Instant,
    min_rate: u32,
    received: u64,
    /// Made the first time a read waits: most bodies arrive with their head
    /// and never need one.
    timer: Option<Pin<Box<Sleep>>>,
}

impl Body {
    /// `inner`, whose head arrived just now on a connection ready since `ready_since`.
    pub fn new(inner: Incoming, ready_since: Instant, limits: &ConnectionLimits) -> Self {
        let now = Instant::now();
        let anonymous_by = ready_since + limits.header_read_timeout;
        Body {
            inner,
            anonymous_by,
            authenticated_by: now + limits.body_read_timeout,
            proven: false,
            rate_from: now + limits.body_rate_grace,
            min_rate: limits.min_body_rate.max(1),
            received: 0,
            timer: None,
        }
    }

    /// The request has shown a valid credential: it gets the body time-out
    /// instead of the head's deadline.
    pub fn credential_proven(&mut self) {
        self.proven = true;
    }

    /// When the next bytes must have arrived.
    fn deadline(&self) -> Instant {
        let whole = if self.proven { self.authenticated_by } else { self.anonymous_by };
        let at_rate =
            Duration::from_nanos((self.received + 1).saturating_mul(1_000_000_000) / u64::from(self.min_rate));
        whole.min(self.rate_from + at_rate)
    }
}

impl HttpBody for Body {
    type Data = Bytes;
    type Error = Box<dyn StdError + Send + Sync>;

    fn poll_frame(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Result<Frame<Bytes>, Self::Error>>> {
        let this = self.get_mut();
        match Pin::new(&mut this.inner).poll_frame(cx) {
            Poll::Ready(Some(Ok(frame))) => {
                this.received += frame.data_ref().map_or(0, |data| data.len() as u64);
                Poll::Ready(Some(Ok(frame)))
            }
            Poll::Ready(other) => Poll::Ready(other.map(|r| r.map_err(Into::into))),
            Poll::Pending => {
                let deadline = this.deadline();
                let timer = this.timer.get_or_insert_with(|| Box::pin(tokio::time::sleep_until(deadline)));
                if timer.deadline() != deadline {
                    timer.as_mut().reset(deadline);
                }
                match timer.as_mut().poll(cx) {
                    Poll::Ready(()) => Poll::Ready(Some(Err(Box::new(BodyTimeout)))),
                    Poll::Pending => Poll::Pending,
                }
            }
        }
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.inner.size_hint()
    }
}
