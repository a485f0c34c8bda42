//! One request, start to finish: its id, its access log line and metrics,
//! the admin, booking and stay pages, then the route table's row, its scope and rate limit, its handler.

use std::sync::atomic::Ordering;
use std::sync::{Arc, OnceLock};
use std::time::Instant;

use bytes::Bytes;
use http::{HeaderValue, Request, Response, StatusCode, header};
use http_body_util::Full;
use rental_core::Store;
use rental_core::keys::{ApiKey, Scope};
use tracing::Instrument;

use crate::connection::body::Body;
use crate::problem::Problem;
use crate::reply::{Reply, blocking};
use crate::request::{self, Query};
use crate::routes::{self, Call};
use crate::{AppState, admin, book, stay};

/// The request id header, given by the client or made here.
const X_REQUEST_ID: http::HeaderName = http::HeaderName::from_static("x-request-id");

/// One request, start to finish: id, log line, auth, rate limit, route.
pub(crate) async fn handle<S: Store + 'static>(
    state: Arc<AppState<S>>,
    peer: std::net::IpAddr,
    req: Request<Body>,
) -> Response<Full<Bytes>> {
    let started = Instant::now();
    state.requests.fetch_add(1, Ordering::Relaxed);
    let request_id = request_id(&state, &req);
    let (method, path) = (req.method().clone(), req.uri().path().to_owned());
    let (on_admin, on_book, on_stay) = (admin::owns(&path), book::owns(&path), stay::owns(&path));
    // The API's row, found once for the label and the dispatch (the table is scanned per request).
    let found = (!on_admin && !on_book && !on_stay).then(|| routes::find::<S>(&method, &path));
    // The route template, never the raw path: a path can carry a token (a booking page or stay link).
    let route = match &found {
        None if on_admin => "/admin",
        None if on_book => "/book",
        None => "/stay",
        Some(Ok((endpoint, _))) => endpoint.path,
        Some(Err(_)) => "unmatched",
    };
    // A client may send any method, 300 KB long: the log holds a bounded, escaped one.
    let logged_method = crate::log_safe::method(&method).into_owned();
    let span = tracing::info_span!("request", requestId = %request_id, method = %logged_method, route);
    let mut response = async {
        // Health and readiness answer for themselves while draining: alive, and not ready.
        if state.draining.load(Ordering::SeqCst) && !matches!(path.as_str(), "/healthz" | "/readyz") {
            return Problem::unavailable("the server is shutting down").into_response();
        }
        match found {
            None if on_admin => admin::handle(&state, peer, req).await,
            None if on_book => {
                let client = state.proxies.client(peer, req.headers());
                book::handle(&state, client, req).await
            }
            None => stay::handle(&state, req).await,
            Some(found) => dispatch(&state, req, found).await,
        }
    }
    .instrument(span)
    .await;
    if let Ok(id) = HeaderValue::from_str(&request_id) {
        response.headers_mut().insert(X_REQUEST_ID, id);
    }
    let took = started.elapsed();
    crate::metrics::request(&method, route, response.status(), took);
    let status = response.status().as_u16();
    let duration_ms = (took.as_secs_f64() * 100_000.0).round() / 100.0;
    let key_id = response.extensions().get::<KeyId>().map(|k| k.0.clone());
    tracing::info!(
        target: "rental::access",
        requestId = %request_id, method = %logged_method, route, status, durationMs = duration_ms, keyId = key_id.as_deref(), "request"
    );
    response
}

/// The answer to a request the service does not serve (outside its path
/// prefix), with its id and log line like any other.
pub(crate) fn handle_outside<S>(state: &AppState<S>, req: &Request<Body>, problem: Problem) -> Response<Full<Bytes>> {
    state.requests.fetch_add(1, Ordering::Relaxed);
    let request_id = request_id(state, req);
    let mut response = problem.into_response();
    if let Ok(id) = HeaderValue::from_str(&request_id) {
        response.headers_mut().insert(X_REQUEST_ID, id);
    }
    let (method, status) = (crate::log_safe::method(req.method()), response.status().as_u16());
    tracing::info!(target: "rental::access", requestId = %request_id, %method, route = "outside", status, durationMs = 0.0, "request");
    response
}

/// The client's `X-Request-Id` when it is sensible, else a new one.
fn request_id<S>(state: &AppState<S>, req: &Request<Body>) -> String {
    let given = req.headers().get(X_REQUEST_ID).and_then(|v| v.to_str().ok());
    match given {
        Some(id) if (1..=128).contains(&id.len()) && id.bytes().all(|b| b.is_ascii_graphic()) => id.to_owned(),
        _ => new_request_id(state),
    }
}

/// A new request id, unique in this process.
pub(crate) fn new_request_id<S>(state: &AppState<S>) -> String {
    // The process id once: `process::id` is a system call, and this runs for most requests.
    static PROCESS: OnceLock<u32> = OnceLock::new();
    let process = *PROCESS.get_or_init(std::process::id);
    format!("req_{process:x}_{:06}", state.next_request.fetch_add(1, Ordering::Relaxed))
}

/// The id of the key a request was made with, kept on its response for the access log.
#[derive(Debug, Clone)]
struct KeyId(String);

/// A request's row of the route table and its path's parameters, or why it has none.
type Found<S> = Result<(&'static routes::Endpoint<S>, routes::Params), Problem>;

/// Routes an API request and answers it, problems included; the response
/// carries the [`KeyId`] of the key that authenticated it.
async fn dispatch<S: Store + 'static>(
    state: &Arc<AppState<S>>,
    req: Request<Body>,
    found: Found<S>,
) -> Response<Full<Bytes>> {
    let mut key_id = None;
    let mut response = route_request(state, req, found, &mut key_id).await.unwrap_or_else(Problem::into_response);
    if let Some(id) = key_id {
        response.extensions_mut().insert(KeyId(id));
    }
    response
}

async fn route_request<S: Store + 'static>(
    state: &Arc<AppState<S>>,
    mut req: Request<Body>,
    found: Found<S>,
    key_id: &mut Option<String>,
) -> Reply {
    let (endpoint, params) = found?;
    let (mut reader, mut guests) = (false, false);
    if let Some(scope) = endpoint.scope {
        let key = authenticate(state, req.headers(), scope).await?;
        *key_id = Some(key.id.clone());
        req.body_mut().credential_proven();
        state.limiter.check(&key.id, Instant::now()).map_err(|wait| {
            Problem::new(StatusCode::TOO_MANY_REQUESTS, "rate_limited", "too many requests for this key; slow down")
                .with_header(header::RETRY_AFTER, wait.to_string())
        })?;
        reader = key.allows(Scope::Read);
        guests = key.allows(Scope::Guests);
    }
    let (parts, body) = req.into_parts();
    let query = Query::of(&parts.uri)?;
    let key_id = key_id.clone().unwrap_or_default();
    let call = Call { state: Arc::clone(state), params, parts, body: Some(body), query, reader, guests, key_id };
    (endpoint.handler)(call).await
}

/// The key of the request if it is valid and has `scope`: 401 or 403 otherwise.
/// Runs before the body is read.
async fn authenticate<S: Store + 'static>(
    state: &Arc<AppState<S>>,
    headers: &http::HeaderMap,
    scope: Scope,
) -> Result<Arc<ApiKey>, Problem> {
    let Some(secret) = request::bearer(headers) else {
        return Err(Problem::unauthorized("send an API key as Authorization: Bearer <key>"));
    };
    let key = if let Some(key) = state.rental.worker().authenticate_from_memory(secret) {
        Some(key)
    } else {
        let secret = secret.to_owned();
        blocking(&state.rental, move |r| r.authenticate(&secret)).await?.map(Arc::new)
    };
    let key = key.ok_or_else(|| Problem::unauthorized("the API key is unknown or revoked"))?;
    if key.allows(scope) {
        Ok(key)
    } else {
        Err(Problem::new(StatusCode::FORBIDDEN, "insufficient_scope", format!("this key lacks the {scope} scope")))
    }
}
