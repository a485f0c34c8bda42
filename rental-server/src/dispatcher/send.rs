//! One delivery attempt: the body signed in both schemes (docs/API.md sections
//! 9 and 16), posted through the outbound client, and what happened.

use std::time::Instant;

use bytes::Bytes;
use chrono::{DateTime, Utc};
use http::header::{CONTENT_TYPE, HeaderName, HeaderValue};
use rental_core::delivery::Attempt;
use rental_core::webhook::{sign, sign_standard};
use rental_core::worker::DueDelivery;

use super::DispatchConfig;
use crate::outbound::Outbound;

/// The most of a receiver's answer that is read (and then dropped).
const MAX_ANSWER: usize = 1024 * 1024;

/// One attempt: sign and send; what happened, to be recorded.
pub(super) async fn attempt(
    outbound: &Outbound,
    config: &DispatchConfig,
    due: DueDelivery,
    at: DateTime<Utc>,
) -> (String, Attempt) {
    let body = Bytes::from(due.body);
    let headers = headers(&due.delivery, &due.secrets, at.timestamp(), &body);
    let started = Instant::now();
    let result = outbound.post(&due.url, &headers, body, config.timeout, MAX_ANSWER).await;
    let latency_ms = u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX);
    let attempt = match result {
        Ok(reply) => Attempt { at, status: Some(reply.status.as_u16()), latency_ms, error: None },
        Err(e) => Attempt { at, status: None, latency_ms, error: Some(e.to_string()) },
    };
    let (id, event) = (due.delivery.id, due.delivery.event);
    // The URL without its credentials and query: they are the receiver's secrets.
    let url = crate::log_safe::url(&due.url);
    tracing::info!(delivery = %id, %event, %url, status = ?attempt.status, error = ?attempt.error, latency_ms, "webhook attempt");
    (id, attempt)
}

/// The headers of docs/API.md sections 9 and 16, the signatures over the exact body bytes:
/// `X-SVC-Signature` with the current secret (the first), `webhook-signature` with each.
fn headers(
    delivery: &rental_core::delivery::Delivery,
    secrets: &[String],
    timestamp: i64,
    body: &[u8],
) -> Vec<(HeaderName, HeaderValue)> {
    let value = |s: &str| HeaderValue::from_str(s).unwrap_or_else(|_| HeaderValue::from_static("invalid"));
    let current = secrets.first().map_or("", String::as_str);
    let standard: Vec<String> = secrets.iter().map(|s| sign_standard(s, &delivery.id, timestamp, body)).collect();
    vec![
        (CONTENT_TYPE, HeaderValue::from_static("application/json")),
        (HeaderName::from_static("x-svc-event"), HeaderValue::from_static(delivery.event.as_str())),
        (HeaderName::from_static("x-svc-delivery"), value(&delivery.id)),
        (HeaderName::from_static("x-svc-signature"), value(&sign(current.as_bytes(), body))),
        (HeaderName::from_static("webhook-id"), value(&delivery.id)),
        (HeaderName::from_static("webhook-timestamp"), value(&timestamp.to_string())),
        (HeaderName::from_static("webhook-signature"), value(&standard.join(" "))),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_attempt_carries_both_schemes_and_a_standard_signature_per_active_secret() {
        use rental_core::webhook::{StandardHeaders, verify, verify_standard};

        let now: DateTime<Utc> = "2026-11-22T07:39:21Z".parse().unwrap();
        let delivery = rental_core::delivery::Delivery::new(
            "dlv_1".into(),
            "wh_1".into(),
            7,
            rental_core::EventName::BookingCreated,
            now,
        );
        let secrets = ["whsec_bmV3LXNlY3JldA==".to_owned(), "old-secret".to_owned()];
        let body = br#"{"event":"booking.created"}"#;
        let sent = headers(&delivery, &secrets, now.timestamp(), body);
        let get = |name: &str| sent.iter().find(|(n, _)| n == name).and_then(|(_, v)| v.to_str().ok()).unwrap();
        assert_eq!((get("x-svc-delivery"), get("webhook-id")), ("dlv_1", "dlv_1"));
        assert_eq!(get("webhook-timestamp"), now.timestamp().to_string());
        assert!(verify(secrets[0].as_bytes(), body, get("x-svc-signature")), "X-SVC-Signature: the current secret");
        assert!(!verify(secrets[1].as_bytes(), body, get("x-svc-signature")));
        assert_eq!(get("webhook-signature").split(' ').count(), 2);
        let standard =
            StandardHeaders { id: "dlv_1", timestamp: get("webhook-timestamp"), signature: get("webhook-signature") };
        for secret in &secrets {
            assert_eq!(verify_standard(secret, body, &standard, now), Ok(()), "{secret}");
        }
    }
}
