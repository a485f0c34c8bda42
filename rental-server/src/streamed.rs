//! Answers sent while they are made (the backup): a body fed through a bounded
//! channel by a blocking task, so neither a large answer nor a slow client is held whole in memory.

use std::io::{self, Write};
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};

use bytes::Bytes;
use http::Response;
use http_body_util::{BodyExt, Full};
use hyper::body::{Body, Frame, SizeHint};
use tokio::sync::mpsc::{self, Receiver, Sender};

use crate::problem::Problem;

/// Bytes a chunk gathers before it is sent.
const CHUNK: usize = 64 * 1024;
/// Chunks in flight at most: what a client that stops reading costs (with hyper's own buffer).
const CHUNKS: usize = 8;

/// One chunk of a streamed answer, or the failure that cut it short.
pub(crate) type Chunk = Result<Bytes, io::Error>;

/// A new bounded channel: the writer for the blocking task, the receiver for the answer.
pub(crate) fn channel() -> (ChannelWriter, Receiver<Chunk>) {
    let (tx, rx) = mpsc::channel(CHUNKS);
    (ChannelWriter { tx, buf: Vec::with_capacity(CHUNK) }, rx)
}

/// A [`Write`] that sends what it is given in [`CHUNK`]-sized pieces,
/// waiting while the channel is full; it fails once the answer is dropped (the client left).
pub(crate) struct ChannelWriter {
    tx: Sender<Chunk>,
    buf: Vec<u8>,
}

impl ChannelWriter {
    /// Ends the answer with `error` (the client sees the body cut short).
    pub(crate) fn fail(self, error: io::Error) {
        let _ = self.tx.blocking_send(Err(error));
    }

    fn send(&mut self) -> io::Result<()> {
        if self.buf.is_empty() {
            return Ok(());
        }
        let chunk = Bytes::from(std::mem::replace(&mut self.buf, Vec::with_capacity(CHUNK)));
        self.tx
            .blocking_send(Ok(chunk))
            .map_err(|_| io::Error::new(io::ErrorKind::BrokenPipe, "the client stopped reading"))
    }
}

impl Write for ChannelWriter {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        self.buf.extend_from_slice(bytes);
        if self.buf.len() >= CHUNK {
            self.send()?;
        }
        Ok(bytes.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        self.send()
    }
}

/// The streamed rest of a response, carried in its extensions from the
/// handler to where the answer is assembled ([`assemble`]): handlers keep one body type.
#[derive(Clone)]
pub(crate) struct Pending(Arc<Mutex<Option<Stream>>>);

/// A streamed body: its first chunk (already read) and the channel bringing the rest.
type Stream = (Bytes, Receiver<Chunk>);

/// `response` (headers only) whose body is `first`, then what `rest` brings.
pub(crate) fn respond(
    mut response: Response<Full<Bytes>>,
    first: Bytes,
    rest: Receiver<Chunk>,
) -> Response<Full<Bytes>> {
    response.extensions_mut().insert(Pending(Arc::new(Mutex::new(Some((first, rest))))));
    response
}

/// What the server sends: a whole body, or one streamed from a channel.
pub(crate) enum AnswerBody {
    Whole(Full<Bytes>),
    Streamed(Option<Bytes>, Receiver<Chunk>),
}

/// The answer hyper sends: a streamed body where a handler left one.
pub(crate) fn assemble(response: Response<Full<Bytes>>) -> Response<AnswerBody> {
    let (mut parts, body) = response.into_parts();
    let pending = parts.extensions.remove::<Pending>().and_then(|p| p.0.lock().ok()?.take());
    let body = match pending {
        Some((first, rest)) => AnswerBody::Streamed(Some(first), rest),
        None => AnswerBody::Whole(body),
    };
    Response::from_parts(parts, body)
}

/// The answer gathered whole, for a program that mounts the service in its
/// own server (whose body type is `Full`); a stream cut short is a 500.
pub(crate) async fn gather(response: Response<Full<Bytes>>) -> Response<Full<Bytes>> {
    let (parts, body) = assemble(response).into_parts();
    match body.collect().await {
        Ok(collected) => Response::from_parts(parts, Full::new(collected.to_bytes())),
        Err(e) => {
            tracing::error!(error = %e, "a streamed answer failed");
            Problem::internal().into_response()
        }
    }
}

impl Body for AnswerBody {
    type Data = Bytes;
    type Error = io::Error;

    fn poll_frame(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Result<Frame<Bytes>, io::Error>>> {
        match self.get_mut() {
            AnswerBody::Whole(full) => Pin::new(full).poll_frame(cx).map_err(|never| match never {}),
            AnswerBody::Streamed(first, rest) => match first.take() {
                Some(first) => Poll::Ready(Some(Ok(Frame::data(first)))),
                None => rest.poll_recv(cx).map(|chunk| chunk.map(|c| c.map(Frame::data))),
            },
        }
    }

    fn is_end_stream(&self) -> bool {
        match self {
            AnswerBody::Whole(full) => full.is_end_stream(),
            AnswerBody::Streamed(..) => false,
        }
    }

    fn size_hint(&self) -> SizeHint {
        match self {
            AnswerBody::Whole(full) => full.size_hint(),
            AnswerBody::Streamed(..) => SizeHint::default(),
        }
    }
}
