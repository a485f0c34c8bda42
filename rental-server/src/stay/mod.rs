//! The guest's stay page (docs/API.md section 24): `/stay/{code}.{signature}`,
//! one private page per booking from request to departure, with no key.
//!
//! - [`shell`] holds the page's headers and look (the booking page's CSS, no
//!   script), and the one 404 every wrong link gets.
//! - [`view`] renders the page, [`access`] its arrival section, [`guide`] a
//!   host's free text; [`cancel`] the two cancellation steps and
//!   [`check_in`] the online check-in, each guarded by a signed form and
//!   [`limit`]'s posts per link; [`body`] adds `stayUrl` to the API's booking
//!   body, [`api`] rotates a link and [`check_in_api`] reads a check-in;
//!   [`pay`] shows what was paid and is due, and [`card`] pays it with the
//!   provider's card form.
//!
//! A link is checked against the booking as the store holds it at that moment
//! ([`rental_core::Rental::stay_page_booking`]), so a rotated link is dead at
//! once on every server sharing the store. Whatever is wrong with a link
//! (unknown code, another booking's code, a wrong, short or rotated
//! signature), the answer is the same 404 after the same work: one store read
//! and one MAC compared in constant time.

pub mod access;
pub mod api;
pub mod body;
pub mod cancel;
pub mod card;
pub mod check_in;
pub mod check_in_api;
pub mod guide;
pub mod limit;
pub mod pay;
pub mod shell;
pub mod view;

use std::sync::Arc;

use http::{Method, Request, StatusCode};
use rental_core::lifecycle::Party;
use rental_core::stay_link::{self, StayLinks};
use rental_core::{Action, Booking, Property, Store};

use crate::AppState;
use crate::book::page::Page;
use crate::book::token::Signer;
use crate::connection::body::Body;
use crate::reply::blocking;

/// The stay pages' state: what signs their links and forms, and the per-link post limit.
#[derive(Debug)]
pub struct StayPages {
    links: StayLinks,
    forms: Signer,
    posts: limit::LinkLimit,
}

impl StayPages {
    /// Pages whose links are signed with `secret` (the booking page's secret).
    pub fn new(secret: &[u8]) -> Self {
        StayPages { links: StayLinks::new(secret), forms: Signer::new(secret), posts: limit::LinkLimit }
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

/// Answers one `/stay/...` request: the page, or the two cancellation steps.
pub async fn handle<S: Store + 'static>(state: &Arc<AppState<S>>, req: Request<Body>) -> Page {
    let (parts, body) = req.into_parts();
    let rest = parts.uri.path().strip_prefix(stay_link::PREFIX).unwrap_or_default().to_owned();
    let (segment, tail) = match rest.split_once('/') {
        Some((segment, tail)) => (segment, Some(tail)),
        None => (rest.as_str(), None),
    };
    let read = matches!(parts.method, Method::GET | Method::HEAD);
    let step = match (read, parts.method == Method::POST, tail) {
        (true, _, None) => Step::Page,
        (true, _, Some("cancel")) => Step::Review,
        (_, true, Some("cancel")) => Step::Cancel(body),
        (_, true, Some("check-in")) => Step::CheckIn(body),
        (_, true, Some("pay")) => Step::Pay(body),
        (_, true, Some("pay/complete")) => Step::PayComplete(body),
        _ => return shell::not_found(),
    };
    let (booking, property) = match open(state, segment).await {
        Ok(Some((booking, Some(property)))) => (booking, property),
        Ok(_) => return shell::not_found(),
        Err(e) => return shell::unavailable(&e),
    };
    let link = format!("{}{segment}", stay_link::PREFIX);
    match step {
        Step::Page => {
            page_again(state, &booking, &property, &link, &check_in::Filled::default(), StatusCode::OK, None).await
        }
        Step::Review => review(state, &booking, &property, &link, None).await,
        Step::Cancel(body) => cancel_step(state, booking, &property, &link, body).await,
        Step::CheckIn(body) => check_in::post(state, booking, &property, &link, body).await,
        Step::Pay(body) => card::start(state, booking, &link, body).await,
        Step::PayComplete(body) => card::complete(state, booking, &link, body).await,
    }
}

/// The page of `b` answered with `status`; its check-in form, when it has
/// one, filled with `filled` (or, when that is empty, what was given before)
/// and a new token. A 429 carries `Retry-After: wait`.
async fn page_again<S: Store + 'static>(
    state: &Arc<AppState<S>>,
    b: &Booking,
    p: &Property,
    link: &str,
    filled: &check_in::Filled,
    status: StatusCode,
    wait: Option<u64>,
) -> Page {
    let now = state.rental().now();
    let (code, shown) = (b.code.to_string(), check_in::shown(b, p));
    let loaded = blocking(state.rental(), move |r| {
        let given = if shown { r.check_ins().get(&code)? } else { None };
        let refund = r.worker().guest_refund_preview(&code)?;
        Ok((given, r.payments(&code)?, r.settings().payment_provider, refund))
    })
    .await;
    let (given, records, payments_configured, refund) = match loaded {
        Ok(loaded) => loaded,
        Err(e) => return shell::unavailable(&e),
    };
    let deposit_held = rental_core::payments::deposit_held(&records);
    let conditions = rental_core::access_gate::Conditions { payments_configured, deposit_held };
    let totals = (!records.is_empty()).then(|| rental_core::payments::Totals::of(&records));
    let check_in = shown.then(|| {
        let token = state.stay.forms.form_token(&check_in::scope(b.code.as_str()), now, &nonce());
        let posted = filled.alert.is_some() || !filled.errors.is_empty();
        let from_given = check_in::Filled::from_given(given.as_ref());
        let filled = if posted { filled } else { &from_given };
        check_in::section(b, p, given.as_ref(), filled, &token, &format!("{link}/check-in"))
    });
    // The card form is offered while a provider takes it and something is due now: the
    // guest's first payment, or a confirmed stay's installment due or refused off-session.
    let payable = state.payments().is_some()
        && !records.is_empty()
        && !b.is_channel_owned()
        && crate::payments::checkout::due_now(b, &records, now).is_some();
    let pay_start = payable.then(|| {
        let token = state.stay.forms.form_token(&card::scope(b.code.as_str()), now, &nonce());
        card::start_form(&token, &format!("{link}/pay"), crate::lang::words(b.locale).pay_now_by_card)
    });
    let parts = view::Parts { check_in, conditions, totals, pay_start, refund };
    let title = (crate::lang::words(b.locale).stay_at)(&b.property_name);
    let mut page = shell::shell(b.locale, status, &title, &view::render(b, p, now, link, &parts));
    if let Some(wait) = wait
        && let Ok(value) = http::HeaderValue::from_str(&wait.to_string())
    {
        page.headers_mut().insert(http::header::RETRY_AFTER, value);
    }
    page
}

/// What a request to a valid link asks for.
enum Step {
    Page,
    Review,
    Cancel(Body),
    CheckIn(Body),
    Pay(Body),
    PayComplete(Body),
}

/// The form token's scope: cancelling this booking.
fn cancel_scope(code: &str) -> String {
    format!("stay-cancel:{code}")
}

/// What cancelling `b` now would give back, as the cancellation will compute it.
async fn refund_preview<S: Store + 'static>(
    state: &Arc<AppState<S>>,
    b: &Booking,
) -> Result<rental_core::payments::refund::RefundPreview, crate::problem::Problem> {
    let code = b.code.to_string();
    blocking(state.rental(), move |r| r.worker().guest_refund_preview(&code)).await
}

/// The review step, or back to the page when there is nothing to cancel.
async fn review<S: Store + 'static>(
    state: &Arc<AppState<S>>,
    b: &Booking,
    p: &Property,
    link: &str,
    limited: Option<u64>,
) -> Page {
    let now = state.rental().now();
    let refund = match refund_preview(state, b).await {
        Ok(refund) => refund,
        Err(e) => return shell::unavailable(&e),
    };
    let Some(offer) = cancel::offer(b, p, now, refund) else {
        return shell::private(crate::book::page::see_other(link));
    };
    let token = state.stay.forms.form_token(&cancel_scope(b.code.as_str()), now, &nonce());
    let status = if limited.is_some() { StatusCode::TOO_MANY_REQUESTS } else { StatusCode::OK };
    let title = (crate::lang::words(b.locale).cancel_stay_at)(&b.property_name);
    let mut page = shell::shell(b.locale, status, &title, &cancel::review(b, offer, &token, link, limited));
    if let Some(wait) = limited
        && let Ok(value) = http::HeaderValue::from_str(&wait.to_string())
    {
        page.headers_mut().insert(http::header::RETRY_AFTER, value);
    }
    page
}

/// The second step: a signed form within the link's post limit cancels the
/// booking `by` `guest`, then back to the page.
async fn cancel_step<S: Store + 'static>(
    state: &Arc<AppState<S>>,
    b: Booking,
    p: &Property,
    link: &str,
    body: Body,
) -> Page {
    let now = state.rental().now();
    if let Err(wait) = state.stay.posts.check(state.rental(), b.code.as_str()).await {
        return review(state, &b, p, link, Some(wait)).await;
    }
    let Some(form) = crate::admin::form::Form::read(body).await else {
        return review(state, &b, p, link, None).await;
    };
    let scope = cancel_scope(b.code.as_str());
    let refund = match refund_preview(state, &b).await {
        Ok(refund) => refund,
        Err(e) => return shell::unavailable(&e),
    };
    if state.stay.forms.check_form_token(form.get("token"), &scope, now, crate::book::token::FORM_LIFETIME).is_err()
        || cancel::offer(&b, p, now, refund).is_none()
    {
        return review(state, &b, p, link, None).await;
    }
    let code = b.code.to_string();
    let action = Action::Cancel { by: Party::Guest, reason: Some("cancelled on the stay page".to_owned()) };
    match blocking(state.rental(), move |r| r.update_booking(&code, &action)).await {
        Ok(_) => shell::private(crate::book::page::see_other(link)),
        Err(e) => shell::unavailable(&e),
    }
}

fn nonce() -> [u8; 16] {
    let mut buf = [0u8; 16];
    rental_core::clock::Entropy::fill(&rental_core::clock::OsEntropy, &mut buf);
    buf
}

/// True for a cancelled booking whose stay ended longer than `retention` ago:
/// its page is gone (docs/API.md section 24).
fn gone(b: &Booking, now: chrono::DateTime<chrono::Utc>, retention: chrono::TimeDelta) -> bool {
    let ended = b.check_out().and_time(chrono::NaiveTime::MIN).and_utc();
    b.status == rental_core::Status::Cancelled && ended + retention < now
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
        if gone(&booking, r.now(), r.settings().retention) {
            return Ok(None);
        }
        let property = r.property(booking.property.as_str()).ok();
        Ok(Some((booking, property)))
    })
    .await
}
