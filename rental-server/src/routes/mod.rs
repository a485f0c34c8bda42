//! The route table: every API endpoint declared once, as an `Endpoint` row
//! with its method, path, scope, handler and OpenAPI operation.
//!
//! Everything else is read from the rows: `answer.rs` resolves a request
//! to its row, checks the row's scope and calls its handler; the row's path
//! template is the `route` label of the metrics and the access log
//! ([`label`]); [`crate::openapi`] writes the document's `paths` from the rows'
//! operations. Adding an endpoint is one row in the area file it belongs to
//! (`properties.rs`, `bookings.rs`, `calendars.rs`, `operations.rs`) plus the
//! handler it calls.
//!
//! A path template is `/`-separated literals and parameters: `{name}` takes
//! one non-empty segment, `{name}.ics` one that ends in `.ics` (the parameter
//! is what comes before). Templates never overlap, so the order of rows does
//! not matter.

mod bookings;
mod calendars;
mod checkout;
mod operations;
mod properties;

use std::fmt;
use std::future::Future;
use std::marker::PhantomData;
use std::pin::Pin;
use std::sync::Arc;

use bytes::Bytes;
use http::request::Parts;
use http::{HeaderMap, Method, StatusCode, header};
use rental_core::keys::Scope;
use rental_core::{MemoryStore, Rental, Store};

use crate::AppState;
use crate::connection::body::Body;
use crate::openapi::Operation;
use crate::problem::Problem;
use crate::reply::Reply;
use crate::request::{self, Query};

/// What a handler returns: its reply, later.
pub(crate) type Answer = Pin<Box<dyn Future<Output = Reply> + Send>>;

/// The code that answers an endpoint, given the request.
pub(crate) type Handler<S> = fn(Call<S>) -> Answer;

/// One row of the table.
pub(crate) struct Endpoint<S: 'static> {
    /// The method it answers.
    pub(crate) method: Method,
    /// The path template, as the OpenAPI document writes it; also the `route` label.
    pub(crate) path: &'static str,
    /// The scope a key needs; `None` for a public endpoint.
    pub(crate) scope: Option<Scope>,
    /// The code that answers it.
    pub(crate) handler: Handler<S>,
    /// How the OpenAPI document describes it.
    pub(crate) operation: Operation,
}

impl<S> fmt::Debug for Endpoint<S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}", self.method, self.path)
    }
}

impl<S> Endpoint<S> {
    /// The row without its handler.
    fn route(&'static self) -> Route {
        Route { method: &self.method, path: self.path, scope: self.scope, operation: &self.operation }
    }
}

/// An endpoint of the table without its handler: what tests and the OpenAPI
/// document read. [`all`] lists them; [`resolve`] finds one.
#[derive(Debug, Clone, Copy)]
pub struct Route {
    method: &'static Method,
    path: &'static str,
    scope: Option<Scope>,
    operation: &'static Operation,
}

impl Route {
    /// The method it answers.
    pub fn method(&self) -> &'static Method {
        self.method
    }

    /// The path template (`/api/v1/bookings/{code}`), as in the OpenAPI document and the metrics.
    pub fn path(&self) -> &'static str {
        self.path
    }

    /// The scope a key needs; `None` for a public endpoint.
    pub fn scope(&self) -> Option<Scope> {
        self.scope
    }

    /// How the OpenAPI document describes it.
    pub(crate) fn operation(&self) -> &'static Operation {
        self.operation
    }
}

/// The rows, gathered from the area files. Generic over the store only
/// because the handlers are; the rest of every row is the same for each store.
pub(crate) struct Table<S>(PhantomData<S>);

impl<S: Store + 'static> Table<S> {
    const AREAS: &'static [&'static [Endpoint<S>]] =
        &[Self::OPERATIONS, Self::PROPERTIES, Self::BOOKINGS, Self::CALENDARS, Self::CHECKOUT];
}

/// Every row of the table, for a server over `S`.
pub(crate) fn endpoints<S: Store + 'static>() -> impl Iterator<Item = &'static Endpoint<S>> {
    Table::<S>::AREAS.iter().flat_map(|area| area.iter())
}

/// Every endpoint of the table. (The rows are read through one store type:
/// apart from the handlers, they do not depend on it.)
pub fn all() -> impl Iterator<Item = Route> {
    endpoints::<MemoryStore>().map(Endpoint::route)
}

/// The endpoint for `method` and `path`: 404 when no template fits the path,
/// 405 with `Allow` when one fits for other methods only.
pub fn resolve(method: &Method, path: &str) -> Result<Route, Problem> {
    find::<MemoryStore>(method, path).map(|(endpoint, _)| endpoint.route())
}

/// The row for `method` and `path` and the parameters taken from the path.
pub(crate) fn find<S: Store + 'static>(method: &Method, path: &str) -> Result<(&'static Endpoint<S>, Params), Problem> {
    with_segments(path, |segments| {
        let found = endpoints::<S>().find(|e| e.method == method && fits(e.path, segments));
        match found {
            Some(endpoint) => Ok((endpoint, Params::take(endpoint.path, segments))),
            None => Err(refusal::<S>(method, segments, path)),
        }
    })
    .unwrap_or_else(|| Err(not_found(path)))
}

/// The `route` label of a request: its template, `/admin`, `/book` or `/stay` for those
/// pages, `unmatched` for anything else (never the raw path: labels stay few).
pub fn label(method: &Method, path: &str) -> &'static str {
    if crate::admin::owns(path) {
        return "/admin";
    }
    if crate::book::owns(path) {
        return "/book";
    }
    if crate::stay::owns(path) {
        return "/stay";
    }
    let found = |segments: &[&str]| {
        endpoints::<MemoryStore>().find(|e| e.method == method && fits(e.path, segments)).map(|e| e.path)
    };
    with_segments(path, found).flatten().unwrap_or("unmatched")
}

/// Calls `f` with the segments of `path`, split without allocating (this runs
/// for every request); `None` for a path longer than any route.
fn with_segments<T>(path: &str, f: impl FnOnce(&[&str]) -> T) -> Option<T> {
    let mut parts = path.strip_prefix('/').unwrap_or(path).split('/');
    let mut segments = [""; 6];
    let mut count = 0;
    for part in parts.by_ref().take(segments.len()) {
        segments[count] = part;
        count += 1;
    }
    if parts.next().is_some() {
        return None;
    }
    Some(f(&segments[..count]))
}

/// Whether `template` fits a path of `segments`.
fn fits(template: &'static str, segments: &[&str]) -> bool {
    let mut patterns = template_segments(template);
    let all_fit = segments.iter().all(|given| patterns.next().is_some_and(|p| segment(p, given).is_some()));
    all_fit && patterns.next().is_none()
}

/// The segments of a template.
fn template_segments(template: &'static str) -> impl Iterator<Item = &'static str> {
    template.strip_prefix('/').unwrap_or(template).split('/')
}

/// Whether one path segment fits one template segment: `None` when not, else
/// the parameter it gives, if the template segment is one.
#[allow(clippy::option_option)] // "does not fit" and "fits, without a parameter" differ
fn segment<'a>(pattern: &'static str, given: &'a str) -> Option<Option<(&'static str, &'a str)>> {
    let Some(parameter) = pattern.strip_prefix('{') else {
        return (pattern == given).then_some(None);
    };
    let (name, suffix) = parameter.split_once('}')?;
    let value = given.strip_suffix(suffix)?;
    (!value.is_empty()).then_some(Some((name, value)))
}

/// 405 with `Allow` when the path exists for other methods, else 404.
fn refusal<S: Store + 'static>(method: &Method, segments: &[&str], path: &str) -> Problem {
    let allowed: Vec<&str> = [Method::GET, Method::POST, Method::PATCH, Method::DELETE]
        .iter()
        .filter(|m| endpoints::<S>().any(|e| e.method == **m && fits(e.path, segments)))
        .map(Method::as_str)
        .collect();
    if allowed.is_empty() {
        return not_found(path);
    }
    let allow = allowed.join(", ");
    Problem::new(
        StatusCode::METHOD_NOT_ALLOWED,
        "method_not_allowed",
        format!("{method} is not allowed here; use {allow}"),
    )
    .with_header(header::ALLOW, allow)
}

fn not_found(path: &str) -> Problem {
    Problem::not_found(format!("no such endpoint: {path}"))
}

/// The parameters a path gave its template, by name.
#[derive(Debug, Default)]
pub(crate) struct Params(Vec<(&'static str, String)>);

impl Params {
    /// The parameters of `segments`, which fit `template`.
    fn take(template: &'static str, segments: &[&str]) -> Params {
        let pairs = template_segments(template).zip(segments).filter_map(|(p, given)| segment(p, given).flatten());
        Params(pairs.map(|(name, value)| (name, value.to_owned())).collect())
    }
}

/// A request on its way to its handler: the server's state, the path's
/// parameters, the head, the query and the body, not yet read.
#[derive(Debug)]
pub(crate) struct Call<S> {
    pub(crate) state: Arc<AppState<S>>,
    pub(crate) params: Params,
    pub(crate) parts: Parts,
    pub(crate) body: Option<Body>,
    pub(crate) query: Query,
    /// Whether the key may read (`read` scope): what a write-only key is shown depends on it.
    pub(crate) reader: bool,
    /// Whether the key has the `guests` scope: guests' identity documents are shown only then.
    pub(crate) guests: bool,
    /// The id of the key (empty on a public route): what is remembered per key is scoped by it.
    pub(crate) key_id: String,
}

impl<S: Store + 'static> Call<S> {
    /// The server's state.
    pub(crate) fn state(&self) -> &Arc<AppState<S>> {
        &self.state
    }

    /// The engine.
    pub(crate) fn rental(&self) -> &Arc<Rental<S>> {
        self.state.rental()
    }

    /// The path parameter `name` of the row's template. (Every handler asks
    /// for names its template has: a missing one is an empty string, which
    /// names nothing and is answered 404.)
    pub(crate) fn param(&self, name: &str) -> String {
        self.params.0.iter().find(|(n, _)| *n == name).map(|(_, v)| v.clone()).unwrap_or_default()
    }

    /// The query parameters.
    pub(crate) fn query(&self) -> &Query {
        &self.query
    }

    /// The request's headers.
    pub(crate) fn headers(&self) -> &HeaderMap {
        &self.parts.headers
    }

    /// The id of the request's key; empty on a public route.
    pub(crate) fn key_id(&self) -> &str {
        &self.key_id
    }

    /// Whether the key has the `read` scope.
    pub(crate) fn reader(&self) -> bool {
        self.reader
    }

    /// Whether the key has the `guests` scope.
    pub(crate) fn guests(&self) -> bool {
        self.guests
    }

    /// What writes `stayUrl` into booking bodies, under the server's public URL.
    pub(crate) fn linker(&self) -> crate::stay::body::Linker<'_> {
        crate::stay::body::Linker {
            links: self.state.stay_links(),
            base_url: crate::admin::base_url(&self.state, &self.parts),
        }
    }

    /// Reads the body, bounded as [`request::body`] says; once.
    pub(crate) async fn body(&mut self) -> Result<Bytes, Problem> {
        let body = self.body.take().ok_or_else(Problem::internal)?;
        request::body(&self.parts.headers, body).await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn concrete(template: &str) -> String {
        template.replace("{slug}", "sea-view").replace("{code}", "BK-7QX2MF").replace("{id}", "blk_1")
    }

    #[test]
    fn every_route_resolves_with_its_method_only() {
        for route in all() {
            let path = concrete(route.path());
            let method = route.method();
            assert_eq!(resolve(method, &path).unwrap().path(), route.path(), "{method} {path}");
            let wrong = if method == Method::DELETE { Method::PUT } else { Method::DELETE };
            assert_eq!(resolve(&wrong, &path).unwrap_err().status, StatusCode::METHOD_NOT_ALLOWED, "{path}");
        }
    }

    #[test]
    fn no_two_rows_share_a_method_and_path_or_an_operation_id() {
        let mut seen = std::collections::BTreeSet::new();
        let mut ids = std::collections::BTreeSet::new();
        for route in all() {
            assert!(seen.insert((route.method().as_str(), route.path())), "{} {} twice", route.method(), route.path());
            assert!(ids.insert(route.operation().id), "{} twice", route.operation().id);
        }
        assert_eq!(seen.len(), 28);
    }

    #[test]
    fn unknown_paths_are_404_and_scopes_follow_the_spec() {
        assert_eq!(resolve(&Method::GET, "/api/v2/properties").unwrap_err().code, "not_found");
        assert_eq!(resolve(&Method::GET, "/api/v1/properties/").unwrap_err().code, "not_found");
        assert_eq!(resolve(&Method::GET, "/api/v1/calendar/sea-view.txt").unwrap_err().code, "not_found");
        assert_eq!(resolve(&Method::GET, "/api/v1/calendar/.ics").unwrap_err().code, "not_found");
        let r = resolve(&Method::POST, "/api/v1/bookings").unwrap();
        assert_eq!(r.scope(), Some(Scope::Write));
        assert_eq!(resolve(&Method::GET, "/api/v1/ha/summary").unwrap().scope(), Some(Scope::Read));
        assert_eq!(resolve(&Method::GET, "/api/openapi.json").unwrap().scope(), None);
        let e = resolve(&Method::PUT, "/api/v1/bookings").unwrap_err();
        assert_eq!(e.headers, vec![(header::ALLOW, "GET, POST".to_owned())]);
    }

    #[test]
    fn parameters_are_taken_by_name_and_labels_are_templates() {
        let segments = ["api", "v1", "properties", "sea-view", "blocks", "blk_1"];
        let params = Params::take("/api/v1/properties/{slug}/blocks/{id}", &segments);
        assert_eq!(params.0, vec![("slug", "sea-view".to_owned()), ("id", "blk_1".to_owned())]);
        let params = Params::take("/api/v1/calendar/{slug}.ics", &["api", "v1", "calendar", "sea-view.ics"]);
        assert_eq!(params.0, vec![("slug", "sea-view".to_owned())]);
        assert_eq!(label(&Method::GET, "/api/v1/bookings/BK-7QX2MF"), "/api/v1/bookings/{code}");
        assert_eq!(label(&Method::PUT, "/api/v1/bookings/BK-7QX2MF"), "unmatched");
        assert_eq!(label(&Method::GET, "/book/sea-view"), "/book");
        assert_eq!(label(&Method::GET, "/stay/BK-7QX2MF.0123"), "/stay", "never the link itself");
    }
}
