//! The Standard Webhooks scheme (<https://www.standardwebhooks.com>): headers
//! `webhook-id`, `webhook-timestamp` and `webhook-signature`, signing "{id}.{timestamp}.{body}".

use chrono::{DateTime, TimeDelta, Utc};

use super::signature::{hmac_sha256, same};
use crate::basics::base64;

/// How far a `webhook-timestamp` may be from the receiver's clock, either way.
pub const TOLERANCE: TimeDelta = TimeDelta::minutes(5);

/// The prefix of secrets in the Standard Webhooks form: `whsec_` and base64.
pub const SECRET_PREFIX: &str = "whsec_";

/// The three headers of a delivery, as received.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StandardHeaders<'a> {
    /// `webhook-id`: the delivery's id (also sent as `X-SVC-Delivery`).
    pub id: &'a str,
    /// `webhook-timestamp`: Unix seconds of the attempt.
    pub timestamp: &'a str,
    /// `webhook-signature`: space-separated `v1,<base64>` signatures, one per active secret.
    pub signature: &'a str,
}

/// Why a delivery failed the Standard check.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum StandardError {
    /// `webhook-timestamp` is not a whole number of seconds.
    #[error("webhook-timestamp is not Unix seconds")]
    Timestamp,
    /// The timestamp is more than [`TOLERANCE`] before the receiver's clock: a replay, or a clock that is off.
    #[error("webhook-timestamp is more than 5 minutes old")]
    TooOld,
    /// The timestamp is more than [`TOLERANCE`] after the receiver's clock.
    #[error("webhook-timestamp is more than 5 minutes in the future")]
    TooNew,
    /// No `v1` signature in `webhook-signature` matches the body under the secret.
    #[error("no signature matches")]
    Signature,
}

/// The HMAC key of `secret`: the bytes the base64 after `whsec_` stands for, or,
/// for any other secret, its UTF-8 bytes.
///
/// A `whsec_` secret whose rest is not base64 is refused at registration; one
/// stored before that rule is keyed by its UTF-8 bytes, whole.
pub fn standard_key(secret: &str) -> Vec<u8> {
    secret.strip_prefix(SECRET_PREFIX).and_then(base64::decode).unwrap_or_else(|| secret.as_bytes().to_vec())
}

/// True when `secret` can be given to a Standard Webhooks library as it is:
/// `whsec_` followed by base64, or anything that does not start with `whsec_`.
pub fn is_standard_secret(secret: &str) -> bool {
    secret.strip_prefix(SECRET_PREFIX).is_none_or(|rest| base64::decode(rest).is_some_and(|key| !key.is_empty()))
}

/// One `webhook-signature` entry: `v1,` and the base64 HMAC-SHA256 of
/// `{id}.{timestamp}.{body}` under [`standard_key`]`(secret)`.
///
/// A delivery signed with several secrets (during a rotation) carries these
/// joined by spaces.
///
/// ```
/// use rental_core::webhook::sign_standard;
///
/// // The Standard Webhooks specification's own example.
/// let body = br#"{"email":"test@example.com","username":"test_user"}"#;
/// let signature = sign_standard("whsec_C2FVsBQIhrscChlQIMV+b5sSYspob7oD", "msg_27UH4WbU6Z5A5EzD8u03UvzRbpk", 1649367553, body);
/// assert_eq!(signature, "v1,tZ1I4/hDygAJgO5TYxiSd6Sd0kDW6hPenDe+bTa3Kkw=");
/// ```
pub fn sign_standard(secret: &str, id: &str, timestamp: i64, body: &[u8]) -> String {
    let mac = hmac_sha256(&standard_key(secret), &[id.as_bytes(), b".", timestamp.to_string().as_bytes(), b".", body]);
    format!("v1,{}", base64::encode(&mac))
}

/// Checks a delivery's Standard Webhooks headers against its raw body, at `now`.
///
/// The timestamp must be within [`TOLERANCE`] of `now` (either way), and any one
/// of the space-separated `v1` signatures must match; each is compared in
/// constant time. Entries of other versions are ignored.
///
/// ```
/// use rental_core::webhook::{sign_standard, verify_standard, StandardError, StandardHeaders};
///
/// let (secret, body) = ("whsec_C2FVsBQIhrscChlQIMV+b5sSYspob7oD", br#"{"event":"booking.created"}"#);
/// let now: chrono::DateTime<chrono::Utc> = "2026-11-22T07:39:21Z".parse().unwrap();
/// let timestamp = now.timestamp().to_string();
/// let signature = format!("v1,b3RoZXI= {}", sign_standard(secret, "dlv_1", now.timestamp(), body));
/// let headers = StandardHeaders { id: "dlv_1", timestamp: &timestamp, signature: &signature };
/// assert_eq!(verify_standard(secret, body, &headers, now), Ok(()));
/// assert_eq!(verify_standard(secret, b"tampered", &headers, now), Err(StandardError::Signature));
/// let later = now + chrono::TimeDelta::minutes(6);
/// assert_eq!(verify_standard(secret, body, &headers, later), Err(StandardError::TooOld));
/// ```
pub fn verify_standard(
    secret: &str,
    body: &[u8],
    headers: &StandardHeaders<'_>,
    now: DateTime<Utc>,
) -> Result<(), StandardError> {
    let timestamp: i64 = headers.timestamp.trim().parse().map_err(|_| StandardError::Timestamp)?;
    let age = now.timestamp().saturating_sub(timestamp);
    if age > TOLERANCE.num_seconds() {
        return Err(StandardError::TooOld);
    }
    if age < -TOLERANCE.num_seconds() {
        return Err(StandardError::TooNew);
    }
    let expected = sign_standard(secret, headers.id, timestamp, body);
    // Every entry is compared, so the time taken does not tell which one matched.
    let matched = headers
        .signature
        .split_whitespace()
        .fold(false, |found, given| found | same(expected.as_bytes(), given.as_bytes()));
    if matched { Ok(()) } else { Err(StandardError::Signature) }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SECRET: &str = "whsec_C2FVsBQIhrscChlQIMV+b5sSYspob7oD";

    fn at(s: i64) -> DateTime<Utc> {
        DateTime::from_timestamp(s, 0).unwrap()
    }

    #[test]
    fn keys_are_the_decoded_base64_of_whsec_secrets_and_the_bytes_of_others() {
        assert_eq!(standard_key("whsec_Zm9vYmFy"), b"foobar");
        assert_eq!(standard_key("plain secret"), b"plain secret");
        assert_eq!(standard_key("whsec_not_base64"), b"whsec_not_base64", "stored before the rule: the whole string");
        let cases = [("whsec_Zm9vYmFy", true), ("anything else", true), ("whsec_not_base64", false), ("whsec_", false)];
        for (secret, ok) in cases {
            assert_eq!(is_standard_secret(secret), ok, "{secret:?}");
        }
    }

    #[test]
    fn the_timestamp_may_be_five_minutes_off_either_way_and_no_more() {
        let (body, t) = (b"{}".as_slice(), 1_700_000_000);
        let ts = t.to_string();
        let signature = sign_standard(SECRET, "dlv_1", t, body);
        let headers = StandardHeaders { id: "dlv_1", timestamp: &ts, signature: &signature };
        let cases = [
            (t, Ok(())),
            (t + 300, Ok(())),
            (t - 300, Ok(())),
            (t + 301, Err(StandardError::TooOld)),
            (t - 301, Err(StandardError::TooNew)),
        ];
        for (now, want) in cases {
            assert_eq!(verify_standard(SECRET, body, &headers, at(now)), want, "now {now}");
        }
        let garbled = StandardHeaders { timestamp: "17e8", ..headers };
        assert_eq!(verify_standard(SECRET, body, &garbled, at(t)), Err(StandardError::Timestamp));
    }

    #[test]
    fn any_one_matching_v1_signature_is_enough_and_nothing_else_is() {
        let (body, t) = (b"{\"a\":1}".as_slice(), 1_700_000_000);
        let ts = t.to_string();
        let good = sign_standard(SECRET, "dlv_1", t, body);
        let old = sign_standard("whsec_Zm9vYmFy", "dlv_1", t, body);
        let cases = [
            (good.clone(), true),
            (format!("{old} {good}"), true),
            (format!("{good} {old}"), true),
            (format!("v1a,xyz {good}"), true),
            (old.clone(), false),
            (good.replace("v1,", "v2,"), false),
            (good[..good.len() - 1].to_owned(), false),
            ("v1,".to_owned(), false),
            (String::new(), false),
        ];
        for (signature, ok) in cases {
            let headers = StandardHeaders { id: "dlv_1", timestamp: &ts, signature: &signature };
            assert_eq!(verify_standard(SECRET, body, &headers, at(t)).is_ok(), ok, "{signature:?}");
        }
        let other_id = StandardHeaders { id: "dlv_2", timestamp: &ts, signature: &good };
        assert_eq!(verify_standard(SECRET, body, &other_id, at(t)), Err(StandardError::Signature));
    }

    proptest::proptest! {
        #[test]
        fn a_signature_verifies_its_own_body_and_no_body_changed_in_one_byte(
            key in proptest::collection::vec(proptest::num::u8::ANY, 1..64),
            body in proptest::collection::vec(proptest::num::u8::ANY, 1..200),
            index in 0usize..200,
            flip in 1u8..=255,
        ) {
            let secret = format!("whsec_{}", base64::encode(&key));
            let t = 1_700_000_000;
            let (ts, signature) = (t.to_string(), sign_standard(&secret, "dlv_p", t, &body));
            let headers = StandardHeaders { id: "dlv_p", timestamp: &ts, signature: &signature };
            proptest::prop_assert_eq!(verify_standard(&secret, &body, &headers, at(t)), Ok(()));
            let mut changed = body.clone();
            let i = index % changed.len();
            changed[i] ^= flip;
            proptest::prop_assert_eq!(verify_standard(&secret, &changed, &headers, at(t)), Err(StandardError::Signature));
        }
    }
}
