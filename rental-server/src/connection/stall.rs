//! Closes a connection whose client stops reading, or reads a trickle: an I/O wrapper that fails a
//! write that has made no progress for the stall time, or a run of waiting writes below the minimum rate.
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

/// The slowest a client may read a response it keeps the server waiting on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MinRate {
    /// Bytes a second, averaged over `window`.
    pub bytes_per_second: u32,
    /// How long writes must keep waiting on the client before the rate is judged.
    pub window: Duration,
}

/// A run of writes that keep waiting on the client: when it began and how
/// much the client took since.
#[derive(Debug, Clone, Copy)]
struct SlowRun {
    since: Instant,
    bytes: u64,
}

impl SlowRun {
    fn new(now: Instant) -> Self {
        SlowRun { since: now, bytes: 0 }
    }
}

/// A TCP connection whose writes fail once blocked for longer than `limit`,
/// or once a run of waiting writes moves less than the minimum rate.
#[derive(Debug)]
pub struct WriteStall {
    inner: TcpStream,
    limit: Duration,
    rate: MinRate,
    /// When the current run of blocked writes began.
    blocked_since: Option<Instant>,
    /// The current run of writes that wait on the client, if any: it ends
    /// once writes went through without waiting for a whole window (the client caught up).
    slow: Option<SlowRun>,
    /// Since when writes have gone through without waiting, if they have.
    free_since: Option<Instant>,
    timer: Pin<Box<Sleep>>,
}

impl WriteStall {
    /// Wraps `inner`, allowing writes to block for `limit` at most and a
    /// client that keeps them waiting to read no slower than `rate`.
    pub fn new(inner: TcpStream, limit: Duration, rate: MinRate) -> Self {
        let timer = Box::pin(tokio::time::sleep(limit));
        WriteStall { inner, limit, rate, blocked_since: None, slow: None, free_since: None, timer }
    }

    /// Notes a write's outcome (`moved` bytes when it is done): progress clears
    /// the stall and counts toward the run's rate, a block starts or continues
    /// both, and a stall or a run slower than the rate becomes an error.
    fn wrote<T>(&mut self, cx: &mut Context<'_>, written: Poll<io::Result<T>>, moved: usize) -> Poll<io::Result<T>> {
        if let Poll::Ready(result) = &written {
            if self.blocked_since.take().is_some() || self.free_since.is_none() {
                self.free_since = Some(Instant::now());
            }
            if let (Ok(_), Some(run)) = (result, self.slow.as_mut()) {
                run.bytes += moved as u64;
            }
            return written;
        }
        let now = Instant::now();
        let since = *self.blocked_since.get_or_insert(now);
        let caught_up = self.free_since.take().is_some_and(|free| now.duration_since(free) >= self.rate.window);
        if caught_up || self.slow.is_none() {
            self.slow = Some(SlowRun::new(now));
        }
        loop {
            let now = Instant::now();
            if now.duration_since(since) >= self.limit {
                return Poll::Ready(Err(self.close("the client read nothing of the response in time")));
            }
            if self.judge(now) {
                return Poll::Ready(Err(self.close("the client read the response slower than the minimum rate")));
            }
            let window_ends = self.slow.map_or(since + self.limit, |run| run.since + self.rate.window);
            let deadline = (since + self.limit).min(window_ends);
            if self.timer.deadline() != deadline {
                self.timer.as_mut().reset(deadline);
            }
            if self.timer.as_mut().poll(cx).is_pending() {
                return Poll::Pending;
            }
            // The timer fired: judge again at its time.
        }
    }

    /// At the end of a window of waiting writes: true when the client took
    /// less than the rate allows (close it); else the next window starts.
    fn judge(&mut self, now: Instant) -> bool {
        let Some(run) = self.slow else { return false };
        let took = now.duration_since(run.since);
        if took < self.rate.window {
            return false;
        }
        let owed = u64::from(self.rate.bytes_per_second).saturating_mul(took.as_millis() as u64) / 1_000;
        if run.bytes < owed {
            return true;
        }
        self.slow = Some(SlowRun::new(now));
        false
    }

    /// Resets the socket (dropping what the kernel still holds for this client
    /// at once, instead of keeping it queued after the close) and says why.
    fn close(&mut self, why: &'static str) -> io::Error {
        if let Err(e) = self.inner.set_zero_linger() {
            tracing::debug!(error = %e, "could not set the slow socket to reset on close");
        }
        tracing::info!(target: "rental::access", stalled = ?self.limit, min_rate = self.rate.bytes_per_second, "closing a connection: {why}");
        io::Error::new(io::ErrorKind::TimedOut, why)
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
        let moved = if let Poll::Ready(Ok(n)) = written { n } else { 0 };
        this.wrote(cx, written, moved)
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        let written = Pin::new(&mut this.inner).poll_write_vectored(cx, bufs);
        let moved = if let Poll::Ready(Ok(n)) = written { n } else { 0 };
        this.wrote(cx, written, moved)
    }

    fn is_write_vectored(&self) -> bool {
        self.inner.is_write_vectored()
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        let flushed = Pin::new(&mut this.inner).poll_flush(cx);
        this.wrote(cx, flushed, 0)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().inner).poll_shutdown(cx)
    }
}
