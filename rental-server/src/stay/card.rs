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
    let Some(provider) = state.payments().cloned() else { return shell::private(crate::book::page::see_other(link)) };
    let started = match call(crate::payments::checkout::start(state, b.code.to_string(), b"").await).await {
        Ok(started) => started,
        Err(p) if p.status.is_client_error() => return shell::private(crate::book::page::see_other(link)),
        Err(p) => return shell::unavailable(&p),
    };
    let client = provider.client_config();
    let (key, secret) =
        (started["publishableKey"].as_str().unwrap_or(""), started["setupClientSecret"].as_str().unwrap_or(""));
    let amount = b.locale.money(started["amountDueNow"].as_i64().unwrap_or(0), &b.currency);
    let w = crate::lang::words(b.locale);
    let now = state.rental().now();
    let token = state.stay.forms.form_token(&scope(b.code.as_str()), now, &super::nonce());
    let nonce = crate::book::page::random_hex();
    let body = html! {
        main.page #stay {
            h1 { ((w.pay_amount)(&amount)) }
            section.box {
                p { ((w.booking_at)(b.code.as_str(), &b.property_name)) }
                label for="card" { (w.card_back.0) }
                div #card {}
                p #card-error.err role="alert" {}
                button #pay type="button" { ((w.pay_amount)(&amount)) }
                form #pay-done method="post" action=(format!("{link}/pay/complete")) {
                    input type="hidden" name="token" value=(token);
                }
                p { a href=(link) { (w.card_back.1) } }
            }
        }
        script nonce=(nonce) src=(client.js_url) {}
        script nonce=(nonce) { (PreEscaped(script(key, secret))) }
    };
    shell::shell_with_policy(
        b.locale,
        StatusCode::OK,
        &(w.pay_for_stay_at)(&b.property_name),
        &body,
        &policy(&client.js_url, &nonce),
    )
}

/// `POST .../pay/complete`: the amount held or charged with the card just saved, then back to the page.
pub async fn complete<S: Store + 'static>(state: &Arc<AppState<S>>, b: Booking, link: &str, body: Body) -> Page {
    if let Err(page) = guard(state, &b, body).await {
        return page;
    }
    match call(crate::payments::checkout::complete(state, b.code.to_string(), b"").await).await {
        Ok(done) if matches!(done["status"].as_str(), Some("authorized" | "succeeded")) => {
            shell::private(crate::book::page::see_other(link))
        }
        Ok(done) => {
            let why = done["error"].as_str().unwrap_or("your bank asks for a confirmation this page cannot show");
            message(b.locale, StatusCode::UNPROCESSABLE_ENTITY, &(crate::lang::words(b.locale).payment_not_made)(why))
        }
        Err(p) if p.status.is_client_error() => shell::private(crate::book::page::see_other(link)),
        Err(p) => shell::unavailable(&p),
    }
}

/// The card form's script: mount the provider's card element, save the card, then send the form.
fn script(key: &str, secret: &str) -> String {
    let (key, secret) =
        (serde_json::to_string(key).unwrap_or_default(), serde_json::to_string(secret).unwrap_or_default());
    // `</` cannot appear in JSON strings of these values (keys and secrets are [A-Za-z0-9_]).
    format!(
        "(function(){{var s=Stripe({key}),card=s.elements().create('card');card.mount('#card');\
         var pay=document.getElementById('pay'),err=document.getElementById('card-error');\
         pay.addEventListener('click',function(){{pay.disabled=true;\
         s.confirmCardSetup({secret},{{payment_method:{{card:card}}}}).then(function(r){{\
         if(r.error){{err.textContent=r.error.message||'The card was refused.';pay.disabled=false;}}\
         else{{document.getElementById('pay-done').submit();}}}});}});}})();"
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
