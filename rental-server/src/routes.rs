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
    ("POST", "/api/v1/quotes"),
    ("GET", "/api/v1/bookings"),
    ("POST", "/api/v1/bookings"),
    ("GET", "/api/v1/bookings/{code}"),
    ("PATCH", "/api/v1/bookings/{code}"),
    ("GET", "/api/v1/ha/summary"),
    ("POST", "/api/v1/sync/ical"),
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
    /// `GET /api/v1/ha/summary`.
    Summary,
    /// `POST /api/v1/sync/ical`.
    Sync,
}

impl Route {
    /// The scope a key needs; `None` for public routes.
    pub fn scope(&self) -> Option<Scope> {
        match self {
            Route::OpenApi => None,
            Route::CreateBooking | Route::PatchBooking(_) | Route::Sync => Some(Scope::Write),
            _ => Some(Scope::Read),
        }
    }
}

/// The route for `method` and `path`.
pub fn resolve(method: &Method, path: &str) -> Result<Route, Problem> {
    let segments: Vec<&str> = path.trim_start_matches('/').split('/').collect();
    let owned = |s: &&str| (*s).to_owned();
    let candidates: Vec<(Method, Route)> = match segments.as_slice() {
        ["api", "openapi.json"] => vec![(Method::GET, Route::OpenApi)],
        ["api", "v1", "properties"] => vec![(Method::GET, Route::ListProperties)],
        ["api", "v1", "properties", slug] if !slug.is_empty() => vec![(Method::GET, Route::GetProperty(owned(slug)))],
        ["api", "v1", "properties", slug, "availability"] => vec![(Method::GET, Route::Availability(owned(slug)))],
        ["api", "v1", "quotes"] => vec![(Method::POST, Route::Quote)],
        ["api", "v1", "bookings"] => vec![(Method::GET, Route::ListBookings), (Method::POST, Route::CreateBooking)],
        ["api", "v1", "bookings", code] if !code.is_empty() => {
            vec![(Method::GET, Route::GetBooking(owned(code))), (Method::PATCH, Route::PatchBooking(owned(code)))]
        }
        ["api", "v1", "ha", "summary"] => vec![(Method::GET, Route::Summary)],
        ["api", "v1", "sync", "ical"] => vec![(Method::POST, Route::Sync)],
        _ => return Err(Problem::not_found(format!("no such endpoint: {path}"))),
    };
    let allow: Vec<&str> = candidates.iter().map(|(m, _)| m.as_str()).collect();
    let allow = allow.join(", ");
    candidates.into_iter().find(|(m, _)| m == method).map(|(_, route)| route).ok_or_else(|| {
        Problem::new(
            StatusCode::METHOD_NOT_ALLOWED,
            "method_not_allowed",
            format!("{method} is not allowed here; use {allow}"),
        )
        .with_header(header::ALLOW, allow)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_listed_route_resolves_with_its_method_only() {
        for (method, template) in ROUTES {
            let path = template.replace("{slug}", "sea-view").replace("{code}", "BK-7QX2MF");
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
