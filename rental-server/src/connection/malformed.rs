//! Problem details for requests hyper refuses before our service sees them: an
//! I/O wrapper that swaps hyper's bare 400, 414 and 431 answers for problem+json.
//!
//! hyper answers a request line or head it cannot parse itself, with an empty
//! body and no `X-Request-Id`, then closes the connection. Every answer of our
//! service carries `X-Request-Id`, so a response head written alone, without
//! it, with one of those statuses and `content-length: 0`, is hyper's: the
//! wrapper writes our problem in its place (with a new request id and
//! `connection: close`) and tells hyper its bytes went out.

use std::io::{self, IoSlice};
use std::pin::Pin;
use std::task::{Context, Poll, ready};

use bytes::Bytes;
use http::StatusCode;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};

use crate::problem::Problem;

/// A connection whose bare parse-error answers become problem details;
/// `new_id` names each such answer's request.
#[derive(Debug)]
pub struct MalformedAnswers<T, F> {
    inner: T,
    new_id: F,
    /// The problem being written in place of hyper's answer, how much of it
    /// is out, and the length of hyper's answer.
    replacing: Option<(Bytes, usize, usize)>,
}

impl<T, F: Fn() -> String> MalformedAnswers<T, F> {
    /// Wraps `inner`.
    pub fn new(inner: T, new_id: F) -> Self {
        MalformedAnswers { inner, new_id, replacing: None }
    }
}

/// The status of `head` if it is one of hyper's own parse-error answers: a
/// whole response head and nothing else, 400, 414 or 431, empty, with no request id.
fn hyper_answer(head: &[u8]) -> Option<StatusCode> {
    let rest = head.strip_prefix(b"HTTP/1.1 ")?;
    let status = StatusCode::from_bytes(rest.get(..3)?).ok()?;
    let ours = [StatusCode::BAD_REQUEST, StatusCode::URI_TOO_LONG, StatusCode::REQUEST_HEADER_FIELDS_TOO_LARGE];
    if !ours.contains(&status) || !head.ends_with(b"\r\n\r\n") {
        return None;
    }
    let text = std::str::from_utf8(head).ok()?.to_ascii_lowercase();
    let one_head = text.matches("\r\n\r\n").count() == 1;
    (one_head && text.contains("\r\ncontent-length: 0\r\n") && !text.contains("\r\nx-request-id:")).then_some(status)
}

/// The problem+json response for `status`, keeping hyper's `date` header.
fn problem_response(status: StatusCode, hyper_head: &[u8], request_id: &str) -> Bytes {
    let problem = Problem::malformed_request(status);
    let body = problem.body();
    let date = String::from_utf8_lossy(hyper_head)
        .split("\r\n")
        .find(|line| line.to_ascii_lowercase().starts_with("date:"))
        .map(|line| format!("{line}\r\n"))
        .unwrap_or_default();
    let head = format!(
        "HTTP/1.1 {} {}\r\ncontent-type: application/problem+json\r\ncontent-length: {}\r\n\
         x-request-id: {request_id}\r\nconnection: close\r\n{date}\r\n",
        problem.status.as_str(),
        problem.status.canonical_reason().unwrap_or("Error"),
        body.len(),
    );
    [head.as_bytes(), &body].concat().into()
}

impl<T: AsyncRead + Unpin, F: Unpin> AsyncRead for MalformedAnswers<T, F> {
    fn poll_read(self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &mut ReadBuf<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().inner).poll_read(cx, buf)
    }
}

impl<T: AsyncWrite + Unpin, F: Fn() -> String + Unpin> AsyncWrite for MalformedAnswers<T, F> {
    fn poll_write(self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &[u8]) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        if this.replacing.is_none()
            && let Some(status) = hyper_answer(buf)
        {
            let id = (this.new_id)();
            tracing::info!(target: "rental::access", %id, status = status.as_u16(), "request could not be parsed");
            this.replacing = Some((problem_response(status, buf, &id), 0, buf.len()));
        }
        let Some((bytes, written, claimed)) = &mut this.replacing else {
            return Pin::new(&mut this.inner).poll_write(cx, buf);
        };
        while *written < bytes.len() {
            let n = ready!(Pin::new(&mut this.inner).poll_write(cx, &bytes[*written..]))?;
            if n == 0 {
                return Poll::Ready(Err(io::ErrorKind::WriteZero.into()));
            }
            *written += n;
        }
        let claimed = *claimed;
        this.replacing = None;
        Poll::Ready(Ok(claimed))
    }

    /// hyper writes a response head as its own slice: one of its bare answers
    /// is the first slice, alone, and goes through [`Self::poll_write`].
    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        let first = bufs.iter().find(|b| !b.is_empty()).map_or(&[][..], |b| &**b);
        if self.replacing.is_some() || hyper_answer(first).is_some() {
            return self.poll_write(cx, first);
        }
        Pin::new(&mut self.get_mut().inner).poll_write_vectored(cx, bufs)
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_hyper_s_bare_parse_error_heads_are_recognised() {
        let date = "date: Tue, 24 Nov 2026 09:00:00 GMT\r\n\r\n";
        let cases = [
            (format!("HTTP/1.1 431 Request Header Fields Too Large\r\ncontent-length: 0\r\n{date}"), Some(431)),
            (format!("HTTP/1.1 414 URI Too Long\r\ncontent-length: 0\r\n{date}"), Some(414)),
            (format!("HTTP/1.1 400 Bad Request\r\ncontent-length: 0\r\n{date}"), Some(400)),
            (format!("HTTP/1.1 400 Bad Request\r\ncontent-length: 0\r\nx-request-id: r1\r\n{date}"), None),
            (format!("HTTP/1.1 404 Not Found\r\ncontent-length: 0\r\n{date}"), None),
            (format!("HTTP/1.1 400 Bad Request\r\ncontent-length: 2\r\n{date}{{}}"), None),
            (format!("HTTP/1.1 400 Bad Request\r\ncontent-length: 0\r\n{date}HTTP/1.1 200 OK\r\n\r\n"), None),
        ];
        for (head, want) in cases {
            assert_eq!(hyper_answer(head.as_bytes()).map(|s| s.as_u16()), want, "{head:?}");
        }
    }

    #[test]
    fn the_replacement_is_a_whole_problem_response_that_closes() {
        let hyper = b"HTTP/1.1 414 URI Too Long\r\ncontent-length: 0\r\ndate: Tue, 24 Nov 2026 09:00:00 GMT\r\n\r\n";
        let bytes = problem_response(StatusCode::URI_TOO_LONG, hyper, "req_1");
        let text = String::from_utf8(bytes.to_vec()).unwrap();
        let (head, body) = text.split_once("\r\n\r\n").unwrap();
        assert!(head.starts_with("HTTP/1.1 414 URI Too Long\r\n"), "{head}");
        assert!(head.contains("\r\nx-request-id: req_1\r\n") && head.contains("\r\nconnection: close\r\n"));
        assert!(head.contains(&format!("\r\ncontent-length: {}\r\n", body.len())));
        assert!(head.ends_with("date: Tue, 24 Nov 2026 09:00:00 GMT"), "{head}");
        let json: serde_json::Value = serde_json::from_str(body).unwrap();
        assert_eq!((json["status"].as_u64(), json["code"].as_str()), (Some(414), Some("uri_too_long")));
    }
}
