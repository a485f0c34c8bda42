//! Closes a keep-alive connection that stays silent too long after a response:
//! an I/O wrapper that reports end of stream once the idle time has passed.

use std::io::{self, IoSlice};
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::time::{Instant, Sleep};

use super::body::ReadyClock;

/// A connection that ends (reads give end of stream) when nothing has been
/// read for `limit` since the last write: the time between a response and the
/// next request. Before the first response, hyper's header timer is the limit.
/// Each write also marks `ready`: the next request's head may start from then.
#[derive(Debug)]
pub struct IdleTimeout<T> {
    inner: T,
    limit: Duration,
    ready: ReadyClock,
    /// When the last write finished, if nothing has been read since.
    idle_since: Option<Instant>,
    timer: Pin<Box<Sleep>>,
}

impl<T> IdleTimeout<T> {
    /// Wraps `inner`, allowing `limit` of silence after each response, and
    /// marking `ready` as each response goes out.
    pub fn new(inner: T, limit: Duration, ready: ReadyClock) -> Self {
        IdleTimeout { inner, limit, ready, idle_since: None, timer: Box::pin(tokio::time::sleep(limit)) }
    }

    /// True when the idle time is over; arms the timer to wake `cx` otherwise.
    ///
    /// The timer is moved only when it fires early (the connection was busy
    /// since it was set) or would fire late, so a busy keep-alive connection
    /// resets it about once per `limit`, not once per request: a reset takes
    /// the runtime's timer lock, which every worker shares.
    fn expired(&mut self, cx: &mut Context<'_>) -> bool {
        let Some(since) = self.idle_since else { return false };
        let deadline = since + self.limit;
        if self.timer.deadline() > deadline {
            self.timer.as_mut().reset(deadline);
        }
        while self.timer.as_mut().poll(cx).is_ready() {
            if Instant::now() >= deadline {
                return true;
            }
            self.timer.as_mut().reset(deadline);
        }
        false
    }
}

impl<T> IdleTimeout<T> {
    /// Notes a write's outcome: the idle time starts when bytes went out.
    fn wrote(&mut self, written: Poll<io::Result<usize>>) -> Poll<io::Result<usize>> {
        // A response still going out to a slow reader is not idle time.
        self.idle_since = match written {
            Poll::Ready(Ok(n)) if n > 0 => {
                self.ready.mark();
                Some(Instant::now())
            }
            Poll::Pending => None,
            Poll::Ready(_) => self.idle_since,
        };
        written
    }
}

impl<T: AsyncRead + Unpin> AsyncRead for IdleTimeout<T> {
    fn poll_read(self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &mut ReadBuf<'_>) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        let before = buf.filled().len();
        match Pin::new(&mut this.inner).poll_read(cx, buf) {
            Poll::Ready(result) => {
                if buf.filled().len() > before {
                    this.idle_since = None;
                }
                Poll::Ready(result)
            }
            // Nothing filled is end of stream: hyper closes an idle connection quietly.
            Poll::Pending if this.expired(cx) => Poll::Ready(Ok(())),
            Poll::Pending => Poll::Pending,
        }
    }
}

impl<T: AsyncWrite + Unpin> AsyncWrite for IdleTimeout<T> {
    fn poll_write(self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &[u8]) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        let written = Pin::new(&mut this.inner).poll_write(cx, buf);
        this.wrote(written)
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        let written = Pin::new(&mut this.inner).poll_write_vectored(cx, bufs);
        this.wrote(written)
    }

    fn is_write_vectored(&self) -> bool {
        self.inner.is_write_vectored()
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().inner).poll_flush(cx)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().inner).poll_shutdown(cx)
    }
}
