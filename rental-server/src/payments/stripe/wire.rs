//! Stripe's JSON objects read into the seam's types: payment intents, setup intents,
//! refunds and events, each status mapped onto the engine's words.

use std::collections::BTreeMap;

use rental_core::payment_provider::{
    CardSetup, Payment, PaymentState, ProviderError, Refund, RefundState, SetupState, WebhookError, WebhookEvent,
};
use serde_json::Value;

fn malformed(what: &str) -> ProviderError {
    ProviderError::Malformed { reason: format!("no {what}") }
}

fn text(v: &Value, field: &'static str) -> Result<String, ProviderError> {
    v[field].as_str().map(str::to_owned).ok_or_else(|| malformed(field))
}

/// An object's `id`.
pub(super) fn id(v: &Value) -> Result<String, ProviderError> {
    text(v, "id")
}

/// A setup intent.
pub(super) fn card_setup(v: &Value) -> Result<CardSetup, ProviderError> {
    let state = match v["status"].as_str() {
        Some("succeeded") => SetupState::Saved,
        Some("requires_action") => SetupState::RequiresAction,
        Some("processing") => SetupState::Processing,
        Some("canceled") => SetupState::Canceled,
        Some(_) => SetupState::NeedsCard,
        None => return Err(malformed("status")),
    };
    let mut setup = CardSetup::new(id(v)?, text(v, "client_secret")?, text(v, "customer")?, state);
    setup.card = expandable_id(&v["payment_method"]);
    Ok(setup)
}

/// A payment intent. `requires_payment_method` after an attempt (a last error) is a refusal;
/// before any attempt it is not made yet, which the engine treats the same: nothing moved.
pub(super) fn payment(v: &Value) -> Result<Payment, ProviderError> {
    let error = v["last_payment_error"]["message"].as_str().map(str::to_owned);
    let state = match v["status"].as_str() {
        Some("succeeded") => PaymentState::Succeeded,
        Some("requires_capture") => PaymentState::Authorized,
        Some("requires_action") => PaymentState::RequiresAction,
        Some("processing" | "requires_confirmation") => PaymentState::Processing,
        Some("canceled") => PaymentState::Canceled,
        Some("requires_payment_method") => PaymentState::Failed,
        _ => return Err(malformed("status")),
    };
    let amount = v["amount"].as_i64().ok_or_else(|| malformed("amount"))?;
    let mut payment = Payment::new(id(v)?, state, amount, v["currency"].as_str().unwrap_or_default());
    payment.amount_received = v["amount_received"].as_i64().unwrap_or(payment.amount_received);
    payment.customer = expandable_id(&v["customer"]);
    payment.client_secret = v["client_secret"].as_str().map(str::to_owned);
    payment.error = error;
    payment.metadata = strings(&v["metadata"]);
    Ok(payment)
}

/// A refund.
pub(super) fn refund(v: &Value) -> Result<Refund, ProviderError> {
    let state = match v["status"].as_str() {
        Some("succeeded") => RefundState::Succeeded,
        Some("failed" | "canceled") => RefundState::Failed,
        _ => RefundState::Pending,
    };
    Ok(Refund { id: id(v)?, amount: v["amount"].as_i64().ok_or_else(|| malformed("amount"))?, state })
}

/// A webhook body: the event's id and type, and the object it names.
pub(super) fn event(body: &[u8]) -> Result<WebhookEvent, WebhookError> {
    let bad = |reason: &str| WebhookError::Malformed { reason: reason.to_owned() };
    let v: Value = serde_json::from_slice(body).map_err(|_| bad("not json"))?;
    let (Some(id), Some(kind)) = (v["id"].as_str(), v["type"].as_str()) else {
        return Err(bad("no id or type"));
    };
    let mut event = WebhookEvent::new(id, kind);
    let object = &v["data"]["object"];
    match object["object"].as_str() {
        Some("payment_intent") => event.payment = object["id"].as_str().map(str::to_owned),
        Some("setup_intent") => event.card_setup = object["id"].as_str().map(str::to_owned),
        Some("charge" | "refund") => event.payment = expandable_id(&object["payment_intent"]),
        _ => {}
    }
    Ok(event)
}

/// A field Stripe sends as an id, or as the object when expanded.
fn expandable_id(v: &Value) -> Option<String> {
    v.as_str().or_else(|| v["id"].as_str()).map(str::to_owned)
}

fn strings(v: &Value) -> BTreeMap<String, String> {
    v.as_object().into_iter().flatten().filter_map(|(k, v)| v.as_str().map(|s| (k.clone(), s.to_owned()))).collect()
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn intent_statuses_map_onto_the_engines_words() {
        let cases = [
            ("succeeded", PaymentState::Succeeded),
            ("requires_capture", PaymentState::Authorized),
            ("requires_action", PaymentState::RequiresAction),
            ("processing", PaymentState::Processing),
            ("canceled", PaymentState::Canceled),
            ("requires_payment_method", PaymentState::Failed),
        ];
        for (status, state) in cases {
            let v = json!({"id": "pi_1", "status": status, "amount": 500, "currency": "eur"});
            let p = payment(&v).unwrap();
            assert_eq!((p.state, p.currency.as_str()), (state, "EUR"), "{status}");
        }
    }

    #[test]
    fn an_event_names_its_intent_and_a_charge_event_its_payment_intent() {
        let pi = br#"{"id":"evt_1","type":"payment_intent.succeeded","data":{"object":{"object":"payment_intent","id":"pi_1"}}}"#;
        assert_eq!(event(pi).unwrap().payment.as_deref(), Some("pi_1"));
        let ch = br#"{"id":"evt_2","type":"charge.refunded","data":{"object":{"object":"charge","id":"ch_1","payment_intent":"pi_2"}}}"#;
        assert_eq!(event(ch).unwrap().payment.as_deref(), Some("pi_2"));
        assert!(matches!(event(b"[]"), Err(WebhookError::Malformed { .. })));
    }
}
