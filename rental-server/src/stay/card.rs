//! Paying on the stay page through the provider's card form (docs/API.md
//! section 24): a plain form starts it (`POST .../pay`), a page of its own
//! loads the provider's script and frames (the only script any stay page
//! runs) to save the card, and `POST .../pay/complete` holds or charges the
//! server's amount with it, as `checkout` and `checkout/complete` do for the API.

use std::sync::Arc;

use http::StatusCode;
use http_body_util::BodyExt;
use maud::{Markup, PreEscaped, html};
use rental_core::{Booking, Store};
use serde_json::Value;

use super::shell;
use crate::AppState;
use crate::book::page::Page;
use crate::book::token::FORM_LIFETIME;
use crate::connection::body::Body;

/// The form token's scope: paying for this booking.
pub fn scope(code: &str) -> String {
    format!("stay-pay:{code}")
}

/// The button that starts paying: a form with a signed token, no script.
pub fn start_form(token: &str, action: &str, label: &str) -> Markup {
    html! {
        form #pay-start method="post" action=(action) {
            input type="hidden" name="token" value=(token);
            button type="submit" { (label) }
        }
    }
}

/// Why a post is refused before the provider is asked: the link's limit, or a form that is not this page's.
async fn guard<S: Store + 'static>(state: &Arc<AppState<S>>, b: &Booking, body: Body) -> Result<(), Page> {
    if let Err(wait) = state.stay.posts.check(state.rental(), b.code.as_str()).await {
        let text = (crate::lang::words(b.locale).too_many_attempts)(wait.div_ceil(60));
        return Err(message(b.locale, StatusCode::TOO_MANY_REQUESTS, &text));
    }
    let form = crate::admin::form::Form::read(body).await;
    let token = form.as_ref().map_or("", |f| f.get("token"));
    let now = state.rental().now();
    if state.stay.forms.check_form_token(token, &scope(b.code.as_str()), now, FORM_LIFETIME).is_err() {
        return Err(message(b.locale, StatusCode::UNPROCESSABLE_ENTITY, crate::lang::words(b.locale).form_too_old));
    }
    Ok(())
}

/// What the API's endpoint answered, as JSON: its problem, or its body.
async fn call(reply: crate::reply::Reply) -> Result<Value, crate::problem::Problem> {
    let response = reply?;
    let bytes = response.into_body().collect().await.map(http_body_util::Collected::to_bytes).unwrap_or_default();
    Ok(serde_json::from_slice(&bytes).unwrap_or(Value::Null))
}

/// `POST .../pay`: the card form for what is due now.
pub async fn start<S: Store + 'static>(state: &Arc<AppState<S>>, b: Booking, link: &str, body: Body) -> Page {
    if let Err(page) = guard(state, &b, body).await {
        return page;
    }
    if state.payments().is_none() {
        return shell::private(crate::book::page::see_other(link));
    }
    let started = match call(crate::payments::checkout::start(state, b.code.to_string(), b"").await).await {
        Ok(started) => started,
        Err(p) if p.status.is_client_error() => return shell::private(crate::book::page::see_other(link)),
        Err(p) => return shell::unavailable(&p),
    };
    let (key, secret) =
        (started["publishableKey"].as_str().unwrap_or(""), started["setupClientSecret"].as_str().unwrap_or(""));
    let w = crate::lang::words(b.locale);
    let amount = (w.pay_amount)(&b.locale.money(started["amountDueNow"].as_i64().unwrap_or(0), &b.currency));
    let form = html! {
        label for="card" { (w.card_back.0) }
        div #card {}
        p #card-error.err role="alert" {}
        button #pay type="button" { (amount) }
    };
    card_page(state, &b, link, &amount, &form, &save_script(key, secret))
}

/// `POST .../pay/complete`: the amount held or charged with the card just saved, then back to
/// the page; when the bank wants the guest (3-D Secure), a page where the provider's script
/// asks them, which posts here again to learn the outcome.
pub async fn complete<S: Store + 'static>(state: &Arc<AppState<S>>, b: Booking, link: &str, body: Body) -> Page {
    if let Err(page) = guard(state, &b, body).await {
        return page;
    }
    match call(crate::payments::checkout::complete(state, b.code.to_string(), b"").await).await {
        Ok(done) if matches!(done["status"].as_str(), Some("authorized" | "succeeded")) => {
            shell::private(crate::book::page::see_other(link))
        }
        Ok(done) if done["status"] == "requires_action" && state.payments().is_some() => {
            let key = state.payments().map(|p| p.client_config().publishable_key).unwrap_or_default();
            let secret = done["clientSecret"].as_str().unwrap_or("");
            let (heading, ask) = crate::lang::words(b.locale).bank_confirms;
            let text = html! {
                p #pay-confirm { (ask) }
                p #card-error.err role="alert" {}
            };
            card_page(state, &b, link, heading, &text, &confirm_script(&key, secret))
        }
        Ok(done) => {
            let w = crate::lang::words(b.locale);
            let why = done["error"].as_str().unwrap_or(w.bank_refused);
            message(b.locale, StatusCode::UNPROCESSABLE_ENTITY, &(w.payment_not_made)(why))
        }
        Err(p) if p.status.is_client_error() => shell::private(crate::book::page::see_other(link)),
        Err(p) => shell::unavailable(&p),
    }
}

/// A page that runs the provider's script (`script`, with this page's nonce) around `inner`,
/// and whose form `#pay-done` posts to `.../pay/complete` with a fresh token.
fn card_page<S: Store + 'static>(
    state: &Arc<AppState<S>>,
    b: &Booking,
    link: &str,
    heading: &str,
    inner: &Markup,
    script: &str,
) -> Page {
    let js_url = state.payments().map(|p| p.client_config().js_url).unwrap_or_default();
    let now = state.rental().now();
    let token = state.stay.forms.form_token(&scope(b.code.as_str()), now, &super::nonce());
    let nonce = crate::book::page::random_hex();
    let w = crate::lang::words(b.locale);
    let body = html! {
        main.page #stay {
            h1 { (heading) }
            section.box {
                p { ((w.booking_at)(b.code.as_str(), &b.property_name)) }
                (inner)
                form #pay-done method="post" action=(format!("{link}/pay/complete")) {
                    input type="hidden" name="token" value=(token);
                }
                p { a href=(link) { (w.card_back.1) } }
            }
        }
        script nonce=(nonce) src=(js_url) {}
        script nonce=(nonce) { (PreEscaped(script)) }
    };
    let title = (w.pay_for_stay_at)(&b.property_name);
    shell::shell_with_policy(b.locale, StatusCode::OK, &title, &body, &policy(&js_url, &nonce))
}

/// `value` as a JavaScript string. `</` cannot appear in it: keys and client secrets are
/// `[A-Za-z0-9_]`.
fn js(value: &str) -> String {
    serde_json::to_string(value).unwrap_or_default()
}

/// The card form's script: mount the provider's card element, save the card, then send the form.
fn save_script(key: &str, secret: &str) -> String {
    let (key, secret) = (js(key), js(secret));
    format!(
        "(function(){{var s=Stripe({key}),card=s.elements().create('card');card.mount('#card');\
         var pay=document.getElementById('pay'),err=document.getElementById('card-error');\
         pay.addEventListener('click',function(){{pay.disabled=true;\
         s.confirmCardSetup({secret},{{payment_method:{{card:card}}}}).then(function(r){{\
         if(r.error){{err.textContent=r.error.message||'The card was refused.';pay.disabled=false;}}\
         else{{document.getElementById('pay-done').submit();}}}});}});}})();"
    )
}

/// The 3-D Secure step's script: the provider asks the guest's bank for the payment of
/// `secret`, then the form is sent whatever the outcome: the server fetches the payment and
/// says what became of it (a refusal is the bank's to tell, not this script's).
fn confirm_script(key: &str, secret: &str) -> String {
    let (key, secret) = (js(key), js(secret));
    format!(
        "(function(){{var done=function(){{document.getElementById('pay-done').submit();}};\
         Stripe({key}).confirmCardPayment({secret}).then(function(r){{\
         if(r.error){{document.getElementById('card-error').textContent=r.error.message||'';}}done();}},done);}})();"
    )
}

/// The pay page's policy: the stay page's, plus the provider's script, frames and API, and this page's own script.
fn policy(js_url: &str, nonce: &str) -> String {
    let origin = origin(js_url);
    format!(
        "default-src 'none'; style-src 'unsafe-inline'; img-src 'self'; form-action 'self'; frame-ancestors 'none'; \
         base-uri 'none'; script-src 'nonce-{nonce}' {origin}; frame-src {origin} https://hooks.stripe.com; \
         connect-src {origin} https://api.stripe.com"
    )
}

/// `https://js.stripe.com` of `https://js.stripe.com/v3/`.
fn origin(url: &str) -> &str {
    let after = url.find("://").map_or(0, |i| i + 3);
    url[after..].find('/').map_or(url, |i| &url[..after + i])
}

/// A short page in words.
fn message(lang: rental_core::Locale, status: StatusCode, text: &str) -> Page {
    let title = crate::lang::words(lang).payment_labels[0];
    shell::shell(lang, status, title, &html! { main.page { h1 { (title) } p #pay-message { (text) } } })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_policy_allows_the_providers_origin_alone() {
        assert_eq!(origin("https://js.stripe.com/v3/"), "https://js.stripe.com");
        assert_eq!(origin("http://127.0.0.1:8420/js.stripe.com/v3/"), "http://127.0.0.1:8420");
        let csp = policy("https://js.stripe.com/v3/", "n1");
        assert!(csp.contains("script-src 'nonce-n1' https://js.stripe.com;"), "{csp}");
    }
}
