//! One HTTP/1 connection to a checked address: the TCP connect, the hyper
//! handshake, the task that drives it, and a count of the response bytes read.

use std::io;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::task::{Context, Poll};

use bytes::Bytes;
use http_body_util::Full;
use hyper::client::conn::http1::SendRequest;
use hyper_util::rt::TokioIo;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::TcpStream;
use tokio::task::JoinHandle;

use super::error::{OutboundError, invalid};

/// Drives one HTTP/1 connection; aborted when dropped, so a timed-out call leaves no task behind.
struct Connection(JoinHandle<()>);

impl Drop for Connection {
    fn drop(&mut self) {
        self.0.abort();
    }
}

pub(super) async fn connect(addrs: &[SocketAddr]) -> Result<TcpStream, OutboundError> {
    let mut last = None;
    for &addr in addrs {
        match TcpStream::connect(addr).await {
            Ok(stream) => {
                stream.set_nodelay(true).ok();
                return Ok(stream);
            }
            Err(error) => last = Some(OutboundError::Connect { addr, error }),
        }
    }
    Err(last.unwrap_or(invalid("the url has no host")))
}

/// One HTTP/1 connection: the handle to send requests on, the task that drives it, and how many
/// response bytes it has read so far (to tell whether a failed request got any answer).
pub(super) struct Conn {
    pub(super) sender: SendRequest<Full<Bytes>>,
    _driver: Connection,
    bytes_read: Arc<AtomicUsize>,
}

impl Conn {
    pub(super) async fn handshake<T>(io: T) -> Result<Conn, OutboundError>
    where
        T: AsyncRead + AsyncWrite + Unpin + Send + 'static,
    {
        let bytes_read = Arc::new(AtomicUsize::new(0));
        let io = TokioIo::new(Counted { io, bytes_read: Arc::clone(&bytes_read) });
        let (sender, connection) = hyper::client::conn::http1::handshake(io).await.map_err(OutboundError::Http)?;
        let driver = Connection(tokio::spawn(async move {
            if let Err(e) = connection.await {
                tracing::debug!(error = %e, "outbound connection ended with an error");
            }
        }));
        Ok(Conn { sender, _driver: driver, bytes_read })
    }

    pub(super) fn bytes_read(&self) -> usize {
        self.bytes_read.load(Ordering::Relaxed)
    }
}

/// A stream that counts the bytes read from it (after TLS: response bytes, not records).
struct Counted<T> {
    io: T,
    bytes_read: Arc<AtomicUsize>,
}

impl<T: AsyncRead + Unpin> AsyncRead for Counted<T> {
    fn poll_read(self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &mut ReadBuf<'_>) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        let before = buf.filled().len();
        let polled = Pin::new(&mut this.io).poll_read(cx, buf);
        this.bytes_read.fetch_add(buf.filled().len() - before, Ordering::Relaxed);
        polled
    }
}

impl<T: AsyncWrite + Unpin> AsyncWrite for Counted<T> {
    fn poll_write(self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &[u8]) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.get_mut().io).poll_write(cx, buf)
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.get_mut().io).poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.io.is_write_vectored()
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().io).poll_flush(cx)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().io).poll_shutdown(cx)
    }
}
