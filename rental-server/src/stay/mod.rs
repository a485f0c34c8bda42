//! The guest's stay page (docs/API.md section 24): `/stay/{code}.{signature}`,
//! one private page per booking from request to departure, with no key.
//!
//! - [`shell`] holds the page's headers and look (the booking page's CSS, no
//!   script), and the one 404 every wrong link gets.
//! - [`view`] renders the page; [`body`] adds `stayUrl` to the API's booking body.
//!
//! A link is checked against the booking as the store holds it at that moment
//! ([`rental_core::Rental::stay_page_booking`]), so a rotated link is dead at
//! once on every server sharing the store. Whatever is wrong with a link
//! (unknown code, another booking's code, a wrong, short or rotated
//! signature), the answer is the same 404 after the same work: one store read
//! and one MAC compared in constant time.

pub mod api;
pub mod body;
pub mod shell;
pub mod view;

use std::sync::Arc;

use http::{Method, Request, StatusCode};
use rental_core::stay_link::{self, StayLinks};
use rental_core::{Booking, Property, Store};

use crate::AppState;
use crate::book::page::Page;
use crate::connection::body::Body;
use crate::reply::blocking;

/// The stay pages' state: what signs their links.
#[derive(Debug)]
pub struct StayPages {
    links: StayLinks,
}

impl StayPages {
    /// Pages whose links are signed with `secret` (the booking page's secret).
    pub fn new(secret: &[u8]) -> Self {
        StayPages { links: StayLinks::new(secret) }
    }

    /// What signs the links.
    pub fn links(&self) -> &StayLinks {
        &self.links
    }
}

/// True for the paths the stay page answers.
pub fn owns(path: &str) -> bool {
    path.starts_with(stay_link::PREFIX)
}

/// Answers one `/stay/...` request.
pub async fn handle<S: Store + 'static>(state: &Arc<AppState<S>>, req: Request<Body>) -> Page {
    let (parts, _body) = req.into_parts();
    let segment = parts.uri.path().strip_prefix(stay_link::PREFIX).unwrap_or_default().to_owned();
    if !matches!(parts.method, Method::GET | Method::HEAD) {
        return shell::not_found();
    }
    match open(state, &segment).await {
        Ok(Some((booking, property))) => {
            let title = format!("Your stay at {}", booking.property_name);
            shell::shell(StatusCode::OK, &title, &view::render(&booking, property.as_ref(), state.rental().now()))
        }
        Ok(None) => shell::not_found(),
        Err(e) => shell::unavailable(&e),
    }
}

/// The booking and property of a page's link segment `{code}.{signature}`;
/// `None` for any link that is not a current one.
async fn open<S: Store + 'static>(
    state: &Arc<AppState<S>>,
    segment: &str,
) -> Result<Option<(Booking, Option<Property>)>, crate::problem::Problem> {
    let (code, signature) = stay_link::split(segment).unwrap_or((segment, ""));
    let (code, signature) = (code.to_owned(), signature.to_owned());
    let links = state.stay.links.clone();
    blocking(state.rental(), move |r| {
        let found = r.stay_page_booking(&code)?;
        let key = found.as_ref().map(|b| (b.code.as_str(), b.stay_link_rotations));
        if !links.verify(key, &code, &signature) {
            return Ok(None);
        }
        let Some(booking) = found else { return Ok(None) };
        let property = r.property(booking.property.as_str()).ok();
        Ok(Some((booking, property)))
    })
    .await
}
