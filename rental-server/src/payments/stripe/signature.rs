//! `Stripe-Signature`: `t=<unix seconds>,v1=<hex HMAC-SHA256 of "{t}.{body}">` (several
//! `v1` while a secret rolls), checked in constant time within a 300 s tolerance.

use hmac::{Hmac, KeyInit, Mac};
use rental_core::payment_provider::WebhookError;
use sha2::Sha256;

/// How far a signature's timestamp may be from now, either way.
pub const TOLERANCE_SECONDS: i64 = 300;

/// The header value Stripe would send for `body` at `timestamp` with `secret` (tests sign
/// their own webhooks with it).
pub fn sign(secret: &[u8], timestamp: i64, body: &[u8]) -> String {
    format!("t={timestamp},v1={}", hex::encode(mac(secret, timestamp, body).finalize().into_bytes()))
}

fn mac(secret: &[u8], timestamp: i64, body: &[u8]) -> Hmac<Sha256> {
    let mut mac = <Hmac<Sha256> as KeyInit>::new_from_slice(secret).expect("HMAC takes a key of any length");
    mac.update(timestamp.to_string().as_bytes());
    mac.update(b".");
    mac.update(body);
    mac
}

/// Checks `header` for `body` at `now`: some `v1` must match, and `t` be within the tolerance.
pub(super) fn verify(secret: &[u8], header: &str, body: &[u8], now: i64) -> Result<(), WebhookError> {
    let mut timestamp = None;
    let mut signatures = Vec::new();
    for part in header.split(',') {
        match part.trim().split_once('=') {
            Some(("t", t)) => timestamp = t.parse::<i64>().ok(),
            Some(("v1", sig)) => signatures.extend(hex::decode(sig).ok()),
            _ => {}
        }
    }
    let timestamp = timestamp.ok_or(WebhookError::InvalidSignature)?;
    if secret.is_empty() || !signatures.iter().any(|sig| mac(secret, timestamp, body).verify_slice(sig).is_ok()) {
        return Err(WebhookError::InvalidSignature);
    }
    if (now - timestamp).abs() > TOLERANCE_SECONDS {
        return Err(WebhookError::Stale);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    const SECRET: &[u8] = b"whsec_test";
    const BODY: &[u8] = br#"{"id":"evt_1"}"#;
    const NOW: i64 = 1_800_000_000;

    type Case<'a> = (&'a str, &'a [u8], i64, Result<(), WebhookError>);

    #[test]
    fn signatures_are_checked_against_body_secret_and_time() {
        let good = sign(SECRET, NOW, BODY);
        let rolled = format!("{},v1={}", sign(b"whsec_old", NOW, BODY), &good[good.find("v1=").unwrap() + 3..]);
        let cases: [Case<'_>; 8] = [
            (&good, BODY, NOW, Ok(())),
            (&good, BODY, NOW + TOLERANCE_SECONDS, Ok(())),
            (&rolled, BODY, NOW, Ok(())),
            (&good, BODY, NOW + TOLERANCE_SECONDS + 1, Err(WebhookError::Stale)),
            (&good, BODY, NOW - 3600, Err(WebhookError::Stale)),
            (&good, br#"{"id":"evt_2"}"#, NOW, Err(WebhookError::InvalidSignature)),
            ("v1=00", BODY, NOW, Err(WebhookError::InvalidSignature)),
            ("t=1800000000,v1=zz", BODY, NOW, Err(WebhookError::InvalidSignature)),
        ];
        for (header, body, now, expected) in cases {
            assert_eq!(verify(SECRET, header, body, now), expected, "{header}");
        }
    }

    #[test]
    fn a_stale_signature_with_the_wrong_secret_is_invalid_not_stale() {
        let header = sign(b"other", NOW - 3600, BODY);
        assert_eq!(verify(SECRET, &header, BODY, NOW), Err(WebhookError::InvalidSignature));
    }
}
