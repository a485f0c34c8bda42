//! The whole HTTP interface as one hyper service, for a program that runs its
//! own server: the API, the admin pages, the booking page and the calendars,
//! mounted at the root or under a path prefix such as `/rental`.
//!
//! Every request still gets what [`crate::serve`] gives it: a request id, the
//! access log line, authentication and scopes, the rate limit, the admin
//! session and CSRF checks, the 64 KiB body cap and the body deadlines of
//! [`crate::connection::ConnectionLimits`]. What belongs to a connection
//! rather than a request (the connection caps overall and per address, the
//! head and idle time-outs, the write stall) belongs to whoever accepts the
//! connections: `serve` when it does, the embedding program otherwise.
//!
//! Under a prefix, the service answers only paths below it, and what it
//! sends back keeps the prefix: links and form targets in its HTML pages,
//! `Location` headers, cookie paths, the booking page's links and snippet,
//! and the OpenAPI document's server URL.

use std::convert::Infallible;
use std::future::Future;
use std::net::{IpAddr, Ipv4Addr};
use std::pin::Pin;
use std::sync::Arc;

use bytes::Bytes;
use http::{HeaderValue, Request, Response, Uri, header};
use http_body_util::{BodyExt, Full};
use hyper::body::Incoming;
use rental_core::Store;

use crate::AppState;
use crate::connection::body::Body;
use crate::problem::Problem;

/// The API, the admin pages, the booking page and the calendars as one
/// [`hyper::service::Service`](https://docs.rs/hyper/1/hyper/service/trait.Service.html), to mount in a program's own server.
///
/// Make one per connection with [`RentalService::for_client`], so the login
/// throttle and the booking page's limits count each client apart (behind a
/// trusted proxy, [`crate::ServerConfig::trusted_proxies`] names the client
/// as with `serve`). The background work (webhook deliveries, checkout
/// expiry, calendar pulls, the stay schedule) runs with [`crate::Jobs`].
///
/// ```no_run
/// use std::sync::Arc;
/// use hyper_util::rt::TokioIo;
/// use rental_core::{MemoryStore, Rental};
/// use rental_server::{AppState, Jobs, RentalService, ServerConfig};
///
/// # async fn run() -> std::io::Result<()> {
/// let rental = Arc::new(Rental::new(MemoryStore::new()));
/// let state = AppState::new(rental, &ServerConfig::default());
/// let jobs = Jobs::start(&state).await?;
/// let service = RentalService::new(Arc::clone(&state)).under("/rental");
/// let listener = tokio::net::TcpListener::bind("127.0.0.1:8080").await?;
/// loop {
///     let (stream, peer) = listener.accept().await?;
///     let service = service.for_client(peer.ip());
///     tokio::spawn(hyper::server::conn::http1::Builder::new().serve_connection(TokioIo::new(stream), service));
/// #   break;
/// }
/// jobs.stop(std::time::Duration::from_secs(5)).await;
/// # Ok(())
/// # }
/// ```
#[derive(Debug)]
pub struct RentalService<S> {
    state: Arc<AppState<S>>,
    /// Empty at the root, else `/rental`: a leading slash and none at the end.
    prefix: Arc<str>,
    client: IpAddr,
}

impl<S> Clone for RentalService<S> {
    fn clone(&self) -> Self {
        RentalService { state: Arc::clone(&self.state), prefix: Arc::clone(&self.prefix), client: self.client }
    }
}

/// The path prefix a request arrived under, for the handlers that write
/// absolute URLs (the admin pages' booking page links): in its extensions.
#[derive(Debug, Clone, Default)]
pub(crate) struct Mount(pub(crate) Arc<str>);

impl<S: Store + 'static> RentalService<S> {
    /// The service at the root, every client counted as one (`0.0.0.0`) until
    /// [`RentalService::for_client`] says otherwise.
    pub fn new(state: Arc<AppState<S>>) -> Self {
        RentalService { state, prefix: Arc::from(""), client: IpAddr::V4(Ipv4Addr::UNSPECIFIED) }
    }

    /// The same service under `prefix` (`/rental`; `""` or `/` is the root):
    /// `/rental/api/v1/quotes`, `/rental/admin`, `/rental/book/{slug}`...
    ///
    /// # Panics
    ///
    /// When `prefix` has a `?` or `#`, or characters a path cannot hold
    /// unescaped: a mistake in the program, not in a request.
    #[must_use]
    pub fn under(mut self, prefix: &str) -> Self {
        let prefix = format!("/{}", prefix.trim_matches('/'));
        let prefix = if prefix == "/" { String::new() } else { prefix };
        assert!(
            prefix.bytes().all(|b| b.is_ascii_graphic() && b != b'?' && b != b'#' && b != b'"'),
            "{prefix:?} is not a path prefix"
        );
        self.prefix = Arc::from(prefix);
        self
    }

    /// The same service for a connection from `client` (the socket's peer).
    #[must_use]
    pub fn for_client(&self, client: IpAddr) -> Self {
        RentalService { client, ..self.clone() }
    }

    /// The state it answers from.
    pub(crate) fn state(&self) -> &Arc<AppState<S>> {
        &self.state
    }

    /// The prefix the service answers under (`""` at the root).
    pub fn prefix(&self) -> &str {
        &self.prefix
    }

    /// Answers one request whose body is already bounded.
    pub(crate) async fn answer(self, mut req: Request<Body>) -> Response<Full<Bytes>> {
        if self.prefix.is_empty() {
            return crate::answer::handle(self.state, self.client, req).await;
        }
        let Some(inner) = below(&self.prefix, req.uri()) else {
            let path = req.uri().path().to_owned();
            return crate::answer::handle_outside(
                &self.state,
                &req,
                Problem::not_found(format!("no such endpoint: {path}")),
            );
        };
        *req.uri_mut() = inner;
        req.extensions_mut().insert(Mount(Arc::clone(&self.prefix)));
        let openapi = req.uri().path() == "/api/openapi.json";
        let response = crate::answer::handle(self.state, self.client, req).await;
        keep_prefix(&self.prefix, response, openapi).await
    }
}

impl<S: Store + 'static> hyper::service::Service<Request<Incoming>> for RentalService<S> {
    type Response = Response<Full<Bytes>>;
    type Error = Infallible;
    type Future = Pin<Box<dyn Future<Output = Result<Self::Response, Infallible>> + Send>>;

    fn call(&self, req: Request<Incoming>) -> Self::Future {
        // The connection is not ours: its head arrived just now, as far as the body's deadline goes.
        let limits = self.state.limits;
        let req = req.map(|body| Body::new(body, tokio::time::Instant::now(), &limits));
        let service = self.clone();
        // The program's server takes `Full` bodies: a streamed answer (the backup) is gathered whole.
        Box::pin(async move { Ok(crate::streamed::gather(service.answer(req).await).await) })
    }
}

/// `uri` without `prefix`, or `None` when it is not below it.
fn below(prefix: &str, uri: &Uri) -> Option<Uri> {
    let rest = uri.path().strip_prefix(prefix)?;
    let rest = match rest {
        "" => "/",
        rest if rest.starts_with('/') => rest,
        _ => return None,
    };
    let target = match uri.query() {
        Some(query) => format!("{rest}?{query}"),
        None => rest.to_owned(),
    };
    target.parse().ok()
}

/// Puts `prefix` back into what `response` points at: its `Location`, its
/// cookies' paths, the links, form targets and sources of an HTML page, and
/// the server URL of the OpenAPI document.
async fn keep_prefix(prefix: &str, mut response: Response<Full<Bytes>>, openapi: bool) -> Response<Full<Bytes>> {
    let headers = response.headers_mut();
    if let Some(location) = headers.get(header::LOCATION).and_then(|l| l.to_str().ok())
        && location.starts_with('/')
        && let Ok(moved) = HeaderValue::from_str(&format!("{prefix}{location}"))
    {
        headers.insert(header::LOCATION, moved);
    }
    let cookies: Vec<HeaderValue> = headers
        .get_all(header::SET_COOKIE)
        .iter()
        .filter_map(|c| c.to_str().ok())
        .filter_map(|c| HeaderValue::from_str(&c.replace("; Path=/", &format!("; Path={prefix}/"))).ok())
        .collect();
    if !cookies.is_empty() {
        headers.remove(header::SET_COOKIE);
        for cookie in cookies {
            headers.append(header::SET_COOKIE, cookie);
        }
    }
    let html =
        headers.get(header::CONTENT_TYPE).and_then(|t| t.to_str().ok()).is_some_and(|t| t.starts_with("text/html"));
    if !html && !openapi {
        return response;
    }
    let (mut parts, body) = response.into_parts();
    let Ok(collected) = body.collect().await;
    let bytes = collected.to_bytes();
    let text = if openapi {
        let Ok(mut document) = serde_json::from_slice::<serde_json::Value>(&bytes) else {
            return Response::from_parts(parts, Full::new(bytes));
        };
        document["servers"][0]["url"] = serde_json::Value::from(format!("{prefix}/"));
        document.to_string()
    } else {
        let Ok(text) = std::str::from_utf8(&bytes) else {
            return Response::from_parts(parts, Full::new(bytes));
        };
        // Attribute values are escaped in every page (maud), so `="/` opens a path only in markup.
        ["href", "action", "src"].iter().fold(text.to_owned(), |page, attribute| {
            page.replace(&format!("{attribute}=\"/"), &format!("{attribute}=\"{prefix}/"))
        })
    };
    parts.headers.remove(header::CONTENT_LENGTH);
    Response::from_parts(parts, Full::new(Bytes::from(text)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_paths_below_the_prefix_are_answered_and_lose_it() {
        let uri = |s: &str| s.parse::<Uri>().unwrap();
        assert_eq!(below("/rental", &uri("/rental/api/v1/quotes?x=1")), Some(uri("/api/v1/quotes?x=1")));
        assert_eq!(below("/rental", &uri("/rental")), Some(uri("/")));
        assert_eq!(below("/rental", &uri("/rentals/admin")), None);
        assert_eq!(below("/rental", &uri("/api/v1/quotes")), None);
    }

    #[tokio::test]
    async fn links_locations_and_cookie_paths_keep_the_prefix() {
        let mut page = Response::new(Full::new(Bytes::from_static(
            br#"<a href="/admin/bookings">b</a><form action="/admin/login"></form><a href="https://x.example/">x</a>"#,
        )));
        let headers = page.headers_mut();
        headers.insert(header::CONTENT_TYPE, HeaderValue::from_static("text/html; charset=utf-8"));
        headers.insert(header::LOCATION, HeaderValue::from_static("/admin"));
        headers.append(header::SET_COOKIE, HeaderValue::from_static("a=1; HttpOnly; Path=/admin"));
        headers.append(header::SET_COOKIE, HeaderValue::from_static("b=2; Path=/admin/login"));
        let page = keep_prefix("/rental", page, false).await;
        assert_eq!(page.headers()[header::LOCATION], "/rental/admin");
        let cookies: Vec<&str> =
            page.headers().get_all(header::SET_COOKIE).iter().map(|c| c.to_str().unwrap()).collect();
        assert_eq!(cookies, ["a=1; HttpOnly; Path=/rental/admin", "b=2; Path=/rental/admin/login"]);
        let body = page.into_body().collect().await.unwrap().to_bytes();
        assert_eq!(
            std::str::from_utf8(&body).unwrap(),
            r#"<a href="/rental/admin/bookings">b</a><form action="/rental/admin/login"></form><a href="https://x.example/">x</a>"#
        );
    }
}
