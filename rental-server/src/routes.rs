//! The route table: a path and method become a [`Route`] with its captured
//! parameters and the scope it needs, or a 404 / 405 problem.

use http::{Method, StatusCode, header};
use rental_core::keys::Scope;

use crate::problem::Problem;

/// Every routed endpoint, as `(method, OpenAPI path template)`. The OpenAPI
/// document is checked against this list, and this list against [`resolve`].
pub const ROUTES: &[(&str, &str)] = &[
    ("GET", "/api/openapi.json"),
    ("GET", "/api/v1/properties"),
    ("GET", "/api/v1/properties/{slug}"),
    ("GET", "/api/v1/properties/{slug}/availability"),
    ("GET", "/api/v1/properties/{slug}/blocks"),
    ("POST", "/api/v1/properties/{slug}/blocks"),
    ("DELETE", "/api/v1/properties/{slug}/blocks/{id}"),
    ("POST", "/api/v1/quotes"),
    ("GET", "/api/v1/bookings"),
    ("POST", "/api/v1/bookings"),
    ("GET", "/api/v1/bookings/{code}"),
    ("PATCH", "/api/v1/bookings/{code}"),
    ("GET", "/api/v1/bookings/{code}/messages"),
    ("POST", "/api/v1/bookings/{code}/messages"),
    ("GET", "/api/v1/ha/summary"),
    ("POST", "/api/v1/sync/ical"),
    ("GET", "/api/v1/sync/status"),
    ("GET", "/api/v1/calendar/{slug}.ics"),
    ("GET", "/healthz"),
    ("GET", "/readyz"),
    ("GET", "/metrics"),
    ("GET", "/api/v1/backup"),
];

/// An endpoint with the parameters taken from its path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Route {
    /// `GET /api/openapi.json`.
    OpenApi,
    /// `GET /api/v1/properties`.
    ListProperties,
    /// `GET /api/v1/properties/{slug}`.
    GetProperty(String),
    /// `GET /api/v1/properties/{slug}/availability`.
    Availability(String),
    /// `GET /api/v1/properties/{slug}/blocks`.
    ListBlocks(String),
    /// `POST /api/v1/properties/{slug}/blocks`.
    CreateBlock(String),
    /// `DELETE /api/v1/properties/{slug}/blocks/{id}`: the slug and the block id.
    DeleteBlock(String, String),
    /// `POST /api/v1/quotes`.
    Quote,
    /// `GET /api/v1/bookings`.
    ListBookings,
    /// `POST /api/v1/bookings`.
    CreateBooking,
    /// `GET /api/v1/bookings/{code}`.
    GetBooking(String),
    /// `PATCH /api/v1/bookings/{code}`.
    PatchBooking(String),
    /// `GET /api/v1/bookings/{code}/messages`.
    ListMessages(String),
    /// `POST /api/v1/bookings/{code}/messages`.
    ResendMessage(String),
    /// `GET /api/v1/ha/summary`.
    Summary,
    /// `POST /api/v1/sync/ical`.
    Sync,
    /// `GET /api/v1/sync/status`.
    SyncStatus,
    /// `GET /api/v1/calendar/{slug}.ics`: public.
    Calendar(String),
    /// `GET /healthz`: public, touches no store.
    Healthz,
    /// `GET /readyz`: public.
    Readyz,
    /// `GET /metrics`: the Prometheus exposition, for a `metrics` key.
    Metrics,
    /// `GET /api/v1/backup`: the whole store as a backup file, for a `backup` key.
    Backup,
}

impl Route {
    /// The scope a key needs; `None` for public routes.
    pub fn scope(&self) -> Option<Scope> {
        match self {
            Route::OpenApi | Route::Calendar(_) | Route::Healthz | Route::Readyz => None,
            Route::Metrics => Some(Scope::Metrics),
            Route::Backup => Some(Scope::Backup),
            Route::CreateBooking
            | Route::PatchBooking(_)
            | Route::ResendMessage(_)
            | Route::Sync
            | Route::CreateBlock(_)
            | Route::DeleteBlock(..) => Some(Scope::Write),
            _ => Some(Scope::Read),
        }
    }
}

impl Route {
    /// The path template, as [`ROUTES`] lists it: the `route` label of the metrics.
    pub fn template(&self) -> &'static str {
        match self {
            Route::OpenApi => "/api/openapi.json",
            Route::ListProperties => "/api/v1/properties",
            Route::GetProperty(_) => "/api/v1/properties/{slug}",
            Route::Availability(_) => "/api/v1/properties/{slug}/availability",
            Route::ListBlocks(_) | Route::CreateBlock(_) => "/api/v1/properties/{slug}/blocks",
            Route::DeleteBlock(..) => "/api/v1/properties/{slug}/blocks/{id}",
            Route::Quote => "/api/v1/quotes",
            Route::ListBookings | Route::CreateBooking => "/api/v1/bookings",
            Route::GetBooking(_) | Route::PatchBooking(_) => "/api/v1/bookings/{code}",
            Route::ListMessages(_) | Route::ResendMessage(_) => "/api/v1/bookings/{code}/messages",
            Route::Summary => "/api/v1/ha/summary",
            Route::Sync => "/api/v1/sync/ical",
            Route::SyncStatus => "/api/v1/sync/status",
            Route::Calendar(_) => "/api/v1/calendar/{slug}.ics",
            Route::Healthz => "/healthz",
            Route::Readyz => "/readyz",
            Route::Metrics => "/metrics",
            Route::Backup => "/api/v1/backup",
        }
    }
}

/// The `route` label of a request: its template, `/admin` or `/book` for those
/// pages, `unmatched` for anything else (never the raw path: labels stay few).
pub fn label(method: &Method, path: &str) -> &'static str {
    if crate::admin::owns(path) {
        return "/admin";
    }
    if crate::book::owns(path) {
        return "/book";
    }
    with_segments(path, |segments| route(method, segments).map_or("unmatched", |r| r.template())).unwrap_or("unmatched")
}

/// The route for `method` and `path`.
pub fn resolve(method: &Method, path: &str) -> Result<Route, Problem> {
    with_segments(path, |segments| route(method, segments).ok_or_else(|| refusal(method, segments, path)))
        .unwrap_or_else(|| Err(not_found(path)))
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

/// The endpoint at `segments` for `method`, if there is one.
fn route(method: &Method, segments: &[&str]) -> Option<Route> {
    let owned = |s: &str| s.to_owned();
    Some(match (method.as_str(), segments) {
        ("GET", ["api", "openapi.json"]) => Route::OpenApi,
        ("GET", ["healthz"]) => Route::Healthz,
        ("GET", ["readyz"]) => Route::Readyz,
        ("GET", ["metrics"]) => Route::Metrics,
        ("GET", ["api", "v1", "backup"]) => Route::Backup,
        ("GET", ["api", "v1", "properties"]) => Route::ListProperties,
        ("GET", ["api", "v1", "properties", slug]) if !slug.is_empty() => Route::GetProperty(owned(slug)),
        ("GET", ["api", "v1", "properties", slug, "availability"]) => Route::Availability(owned(slug)),
        ("GET", ["api", "v1", "properties", slug, "blocks"]) => Route::ListBlocks(owned(slug)),
        ("POST", ["api", "v1", "properties", slug, "blocks"]) => Route::CreateBlock(owned(slug)),
        ("DELETE", ["api", "v1", "properties", slug, "blocks", id]) if !id.is_empty() => {
            Route::DeleteBlock(owned(slug), owned(id))
        }
        ("POST", ["api", "v1", "quotes"]) => Route::Quote,
        ("GET", ["api", "v1", "bookings"]) => Route::ListBookings,
        ("POST", ["api", "v1", "bookings"]) => Route::CreateBooking,
        ("GET", ["api", "v1", "bookings", code]) if !code.is_empty() => Route::GetBooking(owned(code)),
        ("PATCH", ["api", "v1", "bookings", code]) if !code.is_empty() => Route::PatchBooking(owned(code)),
        ("GET", ["api", "v1", "bookings", code, "messages"]) if !code.is_empty() => Route::ListMessages(owned(code)),
        ("POST", ["api", "v1", "bookings", code, "messages"]) if !code.is_empty() => Route::ResendMessage(owned(code)),
        ("GET", ["api", "v1", "ha", "summary"]) => Route::Summary,
        ("POST", ["api", "v1", "sync", "ical"]) => Route::Sync,
        ("GET", ["api", "v1", "sync", "status"]) => Route::SyncStatus,
        ("GET", ["api", "v1", "calendar", file]) => match file.strip_suffix(".ics") {
            Some(slug) if !slug.is_empty() => Route::Calendar(owned(slug)),
            _ => return None,
        },
        _ => return None,
    })
}

/// 405 with `Allow` when the path exists for other methods, else 404.
fn refusal(method: &Method, segments: &[&str], path: &str) -> Problem {
    let allowed: Vec<&str> = ["GET", "POST", "PATCH", "DELETE"]
        .into_iter()
        .filter(|m| m.parse::<Method>().ok().and_then(|m| route(&m, segments)).is_some())
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_listed_route_resolves_with_its_method_only() {
        for (method, template) in ROUTES {
            let path = template.replace("{slug}", "sea-view").replace("{code}", "BK-7QX2MF").replace("{id}", "blk_1");
            let method: Method = method.parse().unwrap();
            assert!(resolve(&method, &path).is_ok(), "{method} {path}");
            let wrong = if method == Method::DELETE { Method::PUT } else { Method::DELETE };
            assert_eq!(resolve(&wrong, &path).unwrap_err().status, StatusCode::METHOD_NOT_ALLOWED, "{path}");
        }
    }

    #[test]
    fn unknown_paths_are_404_and_scopes_follow_the_spec() {
        assert_eq!(resolve(&Method::GET, "/api/v2/properties").unwrap_err().code, "not_found");
        assert_eq!(resolve(&Method::GET, "/api/v1/properties/").unwrap_err().code, "not_found");
        let r = resolve(&Method::POST, "/api/v1/bookings").unwrap();
        assert_eq!(r.scope(), Some(Scope::Write));
        assert_eq!(resolve(&Method::GET, "/api/v1/ha/summary").unwrap().scope(), Some(Scope::Read));
        assert_eq!(resolve(&Method::GET, "/api/openapi.json").unwrap().scope(), None);
        let e = resolve(&Method::PUT, "/api/v1/bookings").unwrap_err();
        assert_eq!(e.headers, vec![(header::ALLOW, "GET, POST".to_owned())]);
    }
}
