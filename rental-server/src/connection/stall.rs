//! Closes a connection whose client stops reading: an I/O wrapper that fails a
//! write that has made no progress for the stall time, and resets the socket.
//!
//! Without it a client that pipelines requests and never reads keeps its
//! connection, and the responses queued for it, for as long as it likes.

use std::io::{self, IoSlice};
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::TcpStream;
use tokio::time::{Instant, Sleep};

/// A TCP connection whose writes fail once blocked for longer than `limit`.
#[derive(Debug)]
pub struct WriteStall {
    inner: TcpStream,
    limit: Duration,
    /// When the current run of blocked writes began.
    blocked_since: Option<Instant>,
    timer: Pin<Box<Sleep>>,
}

impl WriteStall {
    /// Wraps `inner`, allowing writes to block for `limit` at most.
    pub fn new(inner: TcpStream, limit: Duration) -> Self {
        WriteStall { inner, limit, blocked_since: None, timer: Box::pin(tokio::time::sleep(limit)) }
    }

    /// Notes a write's outcome: progress clears the stall, a block starts or
    /// continues it, and a stall past the limit becomes an error.
    fn wrote<T>(&mut self, cx: &mut Context<'_>, written: Poll<io::Result<T>>) -> Poll<io::Result<T>> {
        if written.is_ready() {
            self.blocked_since = None;
            return written;
        }
        let since = *self.blocked_since.get_or_insert_with(Instant::now);
        let deadline = since + self.limit;
        if self.timer.deadline() != deadline {
            self.timer.as_mut().reset(deadline);
        }
        if self.timer.as_mut().poll(cx).is_pending() {
            return Poll::Pending;
        }
        // A reset drops what the kernel still holds for this client at once,
        // instead of keeping it queued after the close.
        if let Err(e) = self.inner.set_zero_linger() {
            tracing::debug!(error = %e, "could not set the stalled socket to reset on close");
        }
        tracing::info!(target: "rental::access", stalled = ?self.limit, "closing a connection whose client reads nothing");
        Poll::Ready(Err(io::Error::new(io::ErrorKind::TimedOut, "the client read nothing of the response in time")))
    }
}

impl AsyncRead for WriteStall {
    fn poll_read(self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &mut ReadBuf<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().inner).poll_read(cx, buf)
    }
}

impl AsyncWrite for WriteStall {
    fn poll_write(self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &[u8]) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        let written = Pin::new(&mut this.inner).poll_write(cx, buf);
        this.wrote(cx, written)
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        let written = Pin::new(&mut this.inner).poll_write_vectored(cx, bufs);
        this.wrote(cx, written)
    }

    fn is_write_vectored(&self) -> bool {
        self.inner.is_write_vectored()
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        let flushed = Pin::new(&mut this.inner).poll_flush(cx);
        this.wrote(cx, flushed)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().inner).poll_shutdown(cx)
    }
}
