//! The booking page (docs/API.md section 20): `/book/{slug}` shows a property's
//! calendar and prices to guests and takes requests to book, with no API key.
//!
//! - `loaded` reads what the page shows, [`view`] renders it, [`calendar`]
//!   lays out its months, [`page`] holds the shell and headers,
//!   [`confirmation`] the page after a request.
//! - [`form`] reads the posted form; [`token`] signs the form and the
//!   confirmation's address; [`throttle`] limits posts per client address,
//!   and [`limited`] is the page of a post over the limit.
//! - [`embed`] serves `embed.js` and says who may frame the page.
//! - [`error`] is the one place a failure becomes a status and a page;
//!   [`words`] puts the library's refusals in a guest's words.
//!
//! Pages call the same library use cases as the API: `property`,
//! `availability` and `quote` to show, booking creation (through the same
//! gatherer as `POST /api/v1/bookings`) to request, keyed by the form token.

pub mod calendar;
pub mod calendar_words;
pub mod confirmation;
pub mod embed;
pub mod error;
pub mod form;
pub mod limited;
mod loaded;
pub mod page;
pub mod throttle;
pub mod token;
pub mod verify;
pub mod view;
pub mod words;

use std::net::IpAddr;
use std::sync::Arc;

use chrono::{NaiveDate, TimeDelta};
use http::{Method, Request, StatusCode};
use rental_core::booking_page::BookingPage;
use rental_core::{Error, FieldError, Locale, NewBooking, Property, Rental, Store, parse_date};

use self::embed::allowed_origin;
use self::error::BookError;
use self::form::Entered;
use self::loaded::{listed, load};
use self::page::{Frame, Page, see_other, shell};
use self::throttle::{PostLimit, Throttle};
use self::token::{FORM_LIFETIME, Signer};
use self::view::{Asked, Quoted, RequestForm, View};
use crate::AppState;
use crate::admin::form::Form;
use crate::connection::body::Body;
use crate::reply::read;
use crate::request::Query;

/// How the booking page behaves.
#[derive(Clone)]
pub struct BookConfig {
    /// Signs form tokens and confirmation addresses. Servers sharing a store
    /// should share it, and keep it across restarts (`rental serve` keeps it in the data directory).
    pub secret: Vec<u8>,
    /// How long a form token is accepted ([`FORM_LIFETIME`]).
    pub form_lifetime: TimeDelta,
    /// Posts allowed per client address.
    pub posts: PostLimit,
}

impl std::fmt::Debug for BookConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BookConfig")
            .field("secret", &"(hidden)")
            .field("form_lifetime", &self.form_lifetime)
            .field("posts", &self.posts)
            .finish()
    }
}

impl Default for BookConfig {
    /// A random secret: tokens hold for this process only.
    fn default() -> Self {
        BookConfig {
            secret: page::random_hex().into_bytes(),
            form_lifetime: FORM_LIFETIME,
            posts: PostLimit::default(),
        }
    }
}

/// The booking page's state.
#[derive(Debug)]
pub struct Book {
    signer: Signer,
    form_lifetime: TimeDelta,
    throttle: Throttle,
}

impl Book {
    /// The page configured by `config`.
    pub fn new(config: &BookConfig) -> Self {
        Book {
            signer: Signer::new(&config.secret),
            form_lifetime: config.form_lifetime,
            throttle: Throttle::new(config.posts),
        }
    }
}

/// True for the paths the booking page answers: its own, and `/favicon.ico`,
/// which browsers ask of every page they show (a 404 there is an error in the
/// console of every site that embeds the page).
pub fn owns(path: &str) -> bool {
    path == "/book" || path.starts_with("/book/") || path == FAVICON
}

/// The icon's path.
const FAVICON: &str = "/favicon.ico";

/// A 16-pixel icon in the page's blue (an ICO holding one PNG).
const FAVICON_ICO: &[u8] = include_bytes!("favicon.ico");

/// Answers one `/book` request from the client at `client`.
pub async fn handle<S: Store + 'static>(state: &Arc<AppState<S>>, client: IpAddr, req: Request<Body>) -> Page {
    let (parts, body) = req.into_parts();
    let path = parts.uri.path().to_owned();
    if path == FAVICON {
        return favicon(&parts.method);
    }
    let segments: Vec<&str> = path.trim_start_matches("/book").split('/').filter(|s| !s.is_empty()).collect();
    let accept = accepted(&parts.headers);
    let answer = match Query::of(&parts.uri) {
        Ok(query) => route(state, client, &parts.method, &segments, &query, body, accept).await,
        Err(_) => Err(BookError::BadRequest),
    };
    match answer {
        Ok(page) => page,
        Err(e) => {
            let slug = segments.first().filter(|s| **s != "embed.js").map(|s| (*s).to_owned());
            let framing = read(state.rental(), move |r| framing(r, slug.as_deref())).await.unwrap_or_default();
            e.page(Frame { settings: Some(&framing), lang: accept.unwrap_or_default(), ..Frame::default() })
        }
    }
}

/// Who may frame an error page under `slug`: the sites of that property when
/// there is one (even with its page off, so that the host's site shows why
/// rather than the browser's refusal), else the sites of every property.
fn framing<S: Store>(r: &Rental<S>, slug: Option<&str>) -> rental_core::Result<BookingPage> {
    let all = r.all_properties()?;
    if let Some(property) = slug.and_then(|slug| all.iter().find(|p| p.slug.as_str() == slug)) {
        return Ok(property.booking_page.clone());
    }
    let mut embed_origins: Vec<String> = all.into_iter().flat_map(|p| p.booking_page.embed_origins).collect();
    embed_origins.sort();
    embed_origins.dedup();
    Ok(embed_origins.into_iter().fold(BookingPage::default(), BookingPage::embed_origin))
}

/// The language `Accept-Language` prefers among those built in, if any.
fn accepted(headers: &http::HeaderMap) -> Option<Locale> {
    headers.get(http::header::ACCEPT_LANGUAGE).and_then(|v| v.to_str().ok()).and_then(Locale::negotiate)
}

async fn route<S: Store + 'static>(
    state: &Arc<AppState<S>>,
    client: IpAddr,
    method: &Method,
    segments: &[&str],
    query: &Query,
    body: Body,
    accept: Option<Locale>,
) -> Result<Page, BookError> {
    match (method, segments) {
        (&Method::GET | &Method::HEAD, ["embed.js"]) => Ok(embed_script()),
        (&Method::GET | &Method::HEAD, [slug]) => show(state, slug, query, accept).await,
        (&Method::POST, [slug]) => submit(state, client, slug, body, accept).await,
        (&Method::GET | &Method::HEAD, [slug, "requested", token]) => requested(state, slug, token, query).await,
        (&Method::GET | &Method::HEAD, [slug, "verify", token]) => verify::show(state, slug, token).await,
        (&Method::POST, [slug, "verify", token]) => verify::confirm(state, slug, token).await,
        (_, [_] | [_, "requested" | "verify", _]) => Err(BookError::MethodNotAllowed),
        _ => Err(BookError::NotFound),
    }
}

fn favicon(method: &Method) -> Page {
    if !matches!(*method, Method::GET | Method::HEAD) {
        return BookError::MethodNotAllowed.page(Frame::default());
    }
    let mut page = page::respond(StatusCode::OK, "default-src 'none'", "image/x-icon", String::new());
    *page.body_mut() = http_body_util::Full::new(bytes::Bytes::from_static(FAVICON_ICO));
    page.headers_mut().insert(http::header::CACHE_CONTROL, http::HeaderValue::from_static("public, max-age=86400"));
    page
}

fn embed_script() -> Page {
    let mut page =
        page::respond(StatusCode::OK, "default-src 'none'", "text/javascript; charset=utf-8", embed::SCRIPT.to_owned());
    page.headers_mut().insert(http::header::CACHE_CONTROL, http::HeaderValue::from_static("public, max-age=300"));
    page
}

/// `?month=2026-12` as the first of that month.
fn month_param(query: &Query) -> Result<Option<NaiveDate>, BookError> {
    match query.get("month") {
        None | Some("") => Ok(None),
        Some(m) => parse_date(&format!("{m}-01")).map(Some).ok_or(BookError::BadRequest),
    }
}

/// `GET /book/{slug}`: the page, with the quote and the form when a stay is given.
async fn show<S: Store + 'static>(
    state: &Arc<AppState<S>>,
    slug: &str,
    query: &Query,
    accept: Option<Locale>,
) -> Result<Page, BookError> {
    let asked = Asked::of(query);
    let month = month_param(query)?;
    let embed = query.get("embed").unwrap_or_default();
    render(state, slug, month, asked, embed, None, accept).await
}

/// Renders the page for `asked` in the language of `accept` (else the
/// property's); `failed` is a post that was refused (the guest's input and
/// what is wrong), answered with 422.
async fn render<S: Store + 'static>(
    state: &Arc<AppState<S>>,
    slug: &str,
    month: Option<NaiveDate>,
    asked: Asked,
    embed: &str,
    failed: Option<(Entered, Vec<FieldError>)>,
    accept: Option<Locale>,
) -> Result<Page, BookError> {
    let slug_owned = slug.to_owned();
    let (loaded, asked) =
        read(state.rental(), move |r| load(r, &slug_owned, month, &asked, accept).map(|loaded| (loaded, asked)))
            .await?;
    let embed = allowed_origin(&loaded.property.booking_page, embed);
    let lang = accept.unwrap_or(loaded.property.messages.language);
    let bookable = matches!(&loaded.quoted, Some(Quoted::Priced(q)) if q.problems.is_empty());
    let unreadable = matches!(&loaded.quoted, Some(Quoted::Unreadable(_)));
    let token = state.book.signer.form_token(slug, state.rental().now(), &nonce());
    let status = match &failed {
        Some(_) => StatusCode::UNPROCESSABLE_ENTITY,
        None if unreadable => StatusCode::BAD_REQUEST,
        None => StatusCode::OK,
    };
    let form = match failed {
        Some((entered, errors)) => Some(RequestForm { entered, errors, token }),
        None if bookable => Some(RequestForm { token, ..RequestForm::default() }),
        None => None,
    };
    let view = View {
        property: &loaded.property,
        months: &loaded.months,
        prev: loaded.prev,
        next: loaded.next,
        asked: &asked,
        quoted: loaded.quoted.as_ref(),
        form: form.as_ref(),
        embed,
        lang,
    };
    let title = format!("{} · {}", loaded.property.name, crate::lang::words(lang).book_your_stay);
    let frame = Frame { settings: Some(&loaded.property.booking_page), embed, requested: None, lang };
    Ok(shell(status, &title, frame, &view::render(&view)))
}

fn nonce() -> [u8; 16] {
    let mut buf = [0u8; 16];
    rental_core::clock::Entropy::fill(&rental_core::clock::OsEntropy, &mut buf);
    buf
}

/// `POST /book/{slug}`: creates a pending request from the page, as
/// `POST /api/v1/bookings` does, keyed by the form token; then `303` to its confirmation.
/// Only posts that made or tried to make a booking count toward the address's
/// limit; over it, the guest gets their input back to send later ([`limited`]).
async fn submit<S: Store + 'static>(
    state: &Arc<AppState<S>>,
    client: IpAddr,
    slug: &str,
    body: Body,
    accept: Option<Locale>,
) -> Result<Page, BookError> {
    let form = Form::read(body).await.ok_or(BookError::BadRequest)?;
    let entered = Entered::from_form(&form);
    let slug_owned = slug.to_owned();
    let property = read(state.rental(), move |r| listed(r, &slug_owned)).await?;
    let embed = allowed_origin(&property.booking_page, &entered.embed).map(str::to_owned);
    let counted = read(state.rental(), {
        let state = Arc::clone(state);
        move |r| state.book.throttle.check(r, client)
    })
    .await?;
    let at = match counted {
        Ok(at) => at,
        Err(retry_after) => {
            let lang = accept.unwrap_or(property.messages.language);
            let frame =
                Frame { settings: Some(&property.booking_page), embed: embed.as_deref(), requested: None, lang };
            return Ok(limited::page(slug, &entered, frame, retry_after));
        }
    };
    let (answer, attempted) = attempt(state, &property, entered, embed, accept).await;
    if !attempted {
        read(state.rental(), {
            let state = Arc::clone(state);
            move |r| state.book.throttle.forget(r, client, at)
        })
        .await?;
    }
    answer
}

/// Sends one posted form on; true with the answer when it made or tried to
/// make a booking (or was a script's), false when it was refused for its fields or token.
async fn attempt<S: Store + 'static>(
    state: &Arc<AppState<S>>,
    property: &Property,
    entered: Entered,
    embed: Option<String>,
    accept: Option<Locale>,
) -> (Result<Page, BookError>, bool) {
    let slug = property.slug.as_str();
    if !entered.honeypot.is_empty() {
        return (Err(BookError::Refused), true);
    }
    let now = state.rental().now();
    let refused = |errors: Vec<FieldError>| {
        let asked = Asked::entered(&entered);
        let failed = Some((entered.clone(), errors));
        render(state, slug, None, asked, embed.as_deref().unwrap_or_default(), failed, accept)
    };
    if let Err(e) = state.book.signer.check_form_token(&entered.token, slug, now, state.book.form_lifetime) {
        let message = format!("{}: check the details and send it again.", capitalized(&e.to_string()));
        return (refused(vec![FieldError::new("token", "invalid_token", message)]).await, false);
    }
    let lang = accept.unwrap_or(property.messages.language);
    let request = match entered.request(slug) {
        Ok(request) => NewBooking { locale: Some(lang.as_str().to_owned()), ..request },
        Err(errors) => {
            let errors = errors
                .into_iter()
                .map(|e| FieldError { message: words::for_guest(&e, entered.typed(&e.field), lang), ..e })
                .collect();
            return (refused(errors).await, false);
        }
    };
    // The mailer's own parser, as at the API: an address it cannot send to is refused now.
    let email = request.guest_email.trim();
    if !email.is_empty() && !crate::mail::compose::can_send_to(email) {
        let e = FieldError::new("guestEmail", "invalid_email", "must be an e-mail address");
        let e = FieldError { message: words::for_guest(&e, entered.typed(&e.field), lang), ..e };
        return (refused(vec![e]).await, false);
    }
    let key = format!("page:{}", entered.token);
    let answer = match state.rental().create_booking_async(&request, Some(&key)).await {
        Ok(created) => {
            if !created.replayed && !rental_core::verification::is_verified(&created.booking) {
                verify::send_link(state, &created.booking, property);
            }
            let token = state.book.signer.confirmation(created.booking.code.as_str());
            let mut location = format!("/book/{slug}/requested/{token}");
            if let Some(embed) = &embed {
                location.push_str("?embed=");
                location.push_str(&view::encode(embed));
            }
            Ok(see_other(&location))
        }
        Err(Error::Validation(errors)) => {
            let errors = errors
                .into_iter()
                .map(|e| FieldError { message: words::for_guest(&e, entered.typed(&e.field), lang), ..e })
                .collect();
            return (refused(errors).await, false);
        }
        Err(Error::DatesUnavailable { dates }) => {
            let message = (crate::lang::words(lang).nights_just_taken)(&view::short_days(&dates, lang));
            refused(vec![FieldError::new("checkIn", "dates_unavailable", message)]).await
        }
        Err(e @ Error::PromoCode { .. }) => {
            let message = format!("{}.", capitalized(&e.to_string()));
            refused(vec![FieldError::new("promoCode", "promo_code", message)]).await
        }
        Err(Error::IdempotencyKeyReused) => {
            let message = "This form was already sent with other details: check them and send it again.";
            refused(vec![FieldError::new("token", "token_used", message)]).await
        }
        Err(e) => {
            if matches!(e, Error::Store(_)) {
                tracing::error!(error = %e, "a request from the booking page failed");
            }
            Err(crate::problem::Problem::from(e).into())
        }
    };
    (answer, true)
}

fn capitalized(s: &str) -> String {
    let mut chars = s.chars();
    chars.next().map(|c| c.to_uppercase().chain(chars).collect()).unwrap_or_default()
}

/// `GET /book/{slug}/requested/{token}`: the confirmation of the request the token names.
async fn requested<S: Store + 'static>(
    state: &Arc<AppState<S>>,
    slug: &str,
    token: &str,
    query: &Query,
) -> Result<Page, BookError> {
    let code = state.book.signer.check_confirmation(token).ok_or(BookError::NotFound)?.to_owned();
    let slug_owned = slug.to_owned();
    let (booking, property) = crate::reply::blocking(state.rental(), move |r| {
        let booking = r.booking(&code)?;
        Ok((booking, r.property(&slug_owned).ok()))
    })
    .await?;
    if booking.property.as_str() != slug {
        return Err(BookError::NotFound);
    }
    let settings = property.as_ref().map(|p| &p.booking_page);
    let embed = settings.and_then(|s| allowed_origin(s, query.get("embed").unwrap_or_default()));
    let back = match embed {
        Some(e) => format!("/book/{slug}?embed={}", view::encode(e)),
        None => format!("/book/{slug}"),
    };
    let frame = Frame { settings, embed, requested: Some(booking.code.as_str()), lang: booking.locale };
    let title = format!("{} · {}", confirmation::title(booking.status, booking.locale), booking.property_name);
    let stay = state.stay_links().path(&booking);
    Ok(shell(StatusCode::OK, &title, frame, &confirmation::render(&booking, property.as_ref(), &back, &stay)))
}
