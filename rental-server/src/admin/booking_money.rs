//! The admin booking page's money buttons (docs/API.md section 23): with a payment provider,
//! confirm captures the hold and cancel releases it and refunds by the policy, as the API
//! does; a goodwill refund; the deposit claimed or released. Each a form with the admin's
//! CSRF field, answered with a flash on the booking's page.

use maud::{Markup, html};
use rental_core::payments::{PaymentKind, PaymentRecord, PaymentState};
use rental_core::{Booking, Store};
use serde_json::json;

use super::Act;
use super::page::{Page, csrf_field};
use super::session::{Flash, Session};
use crate::problem::Problem;

/// The page for `action` when it moves money through the provider; `None` for the others
/// (and for confirm and cancel without a provider, which change the booking only).
pub(super) async fn act<S: Store + 'static>(act: &Act<'_, S>, code: &str, action: &str, back: &str) -> Option<Page> {
    let state = act.state;
    let form = act.form;
    let result: Result<(), Problem> = match action {
        "confirm" | "cancel" if state.payments.is_some() => {
            let reason = Some(form.get("reason").trim().to_owned()).filter(|r| !r.is_empty());
            let body = match action {
                "confirm" => json!({"action": "confirm"}),
                _ => json!({"action": "cancel", "by": "host", "reason": reason}),
            };
            let bytes = serde_json::to_vec(&body).unwrap_or_default();
            crate::payments::settle::patch_booking(state, code.to_owned(), &bytes, None).await.map(drop)
        }
        "refund" => {
            let amount = form.get("amount").trim().parse::<i64>().unwrap_or(0);
            let body = json!({"amount": amount, "reason": Some(form.get("reason").trim()).filter(|r| !r.is_empty())});
            let bytes = serde_json::to_vec(&body).unwrap_or_default();
            crate::payments::refunds::goodwill(state, code.to_owned(), &bytes).await.map(drop)
        }
        "deposit" => {
            let body = match form.get("do") {
                "claim" => json!({"action": "claim", "amount": form.get("amount").trim().parse::<i64>().unwrap_or(0),
                    "reason": Some(form.get("reason").trim()).filter(|r| !r.is_empty())}),
                _ => json!({"action": "release"}),
            };
            let bytes = serde_json::to_vec(&body).unwrap_or_default();
            crate::payments::deposit::act(state, code.to_owned(), &bytes).await.map(drop)
        }
        _ => return None,
    };
    let done = match action {
        "confirm" => "Confirmed; the card hold was captured.",
        "cancel" => "Cancelled; the hold was released and the policy's refund issued.",
        "refund" => "Refunded through the payment provider.",
        _ => "The deposit was settled with the payment provider.",
    };
    Some(act.done(result, back, |()| Flash::done(done)).await)
}

/// The forms under the ledger: a goodwill refund (amounts in the currency's minor unit) and,
/// while the deposit is held, its claim and release. Nothing without a provider.
pub(super) fn forms(b: &Booking, records: &[PaymentRecord], session: &Session, provider: bool) -> Markup {
    let held = records.iter().find(|r| r.kind == PaymentKind::Deposit && r.status == PaymentState::Authorized);
    let paid = b.money.amount_paid > b.money.amount_refunded;
    html! {
        @if provider && paid {
            form method="post" action=(format!("/admin/booking/{}/refund", b.code)) data-confirm=(format!("Refund booking {}?", b.code)) {
                (csrf_field(session))
                label { "Refund (minor units, " (b.currency) ") " input type="number" name="amount" min="1" required; }
                label { " Reason " input type="text" name="reason" maxlength="500"; }
                button type="submit" { "Refund" }
            }
        }
        @if let (true, Some(deposit)) = (provider, held) {
            form method="post" action=(format!("/admin/booking/{}/deposit", b.code)) {
                (csrf_field(session))
                input type="hidden" name="do" value="claim";
                label { "Claim of the deposit (at most " (deposit.amount) ") " input type="number" name="amount" min="1" max=(deposit.amount) required; }
                label { " Reason " input type="text" name="reason" maxlength="500"; }
                button type="submit" { "Claim" }
            }
            form method="post" action=(format!("/admin/booking/{}/deposit", b.code)) {
                (csrf_field(session))
                input type="hidden" name="do" value="release";
                button type="submit" { "Release the deposit" }
            }
        }
    }
}
