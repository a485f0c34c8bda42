//! The `X-SVC-Signature` scheme of docs/API.md section 9: `sha256=` and the hex
//! HMAC-SHA256 of the raw body, keyed by the secret string's UTF-8 bytes.

use hmac::{Hmac, KeyInit, Mac};
use sha2::Sha256;
use subtle::ConstantTimeEq;

/// The `X-SVC-Signature` value of `body` under `secret`: `sha256=` and the hex HMAC-SHA256.
///
/// ```
/// let header = rental_core::webhook::sign(b"whsec_test", br#"{"event":"booking.created"}"#);
/// assert!(header.starts_with("sha256="));
/// assert!(rental_core::webhook::verify(b"whsec_test", br#"{"event":"booking.created"}"#, &header));
/// ```
pub fn sign(secret: &[u8], body: &[u8]) -> String {
    format!("sha256={}", hex::encode(hmac_sha256(secret, &[body])))
}

/// True when `header` is exactly the signature of `body` under `secret`.
///
/// Compares the full header value, lengths first, in constant time, as
/// docs/API.md section 9 asks of receivers. Pass the raw body bytes as received,
/// before any JSON parsing.
///
/// ```
/// use rental_core::webhook::{sign, verify};
///
/// let body = br#"{"data":{},"event":"calendar.synced","timestamp":"2026-11-22T07:39:21.123Z"}"#;
/// let header = sign(b"s3cret", body);
/// assert!(verify(b"s3cret", body, &header));
/// assert!(!verify(b"other", body, &header));
/// assert!(!verify(b"s3cret", b"tampered", &header));
/// assert!(!verify(b"s3cret", body, "sha256=00"));
/// ```
pub fn verify(secret: &[u8], body: &[u8], header: &str) -> bool {
    let expected = sign(secret, body);
    same(expected.as_bytes(), header.trim().as_bytes())
}

/// True when `a` and `b` are equal: lengths first, then the bytes in constant time.
pub(super) fn same(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && bool::from(a.ct_eq(b))
}

/// HMAC-SHA256 under `key` of the concatenation of `parts`.
pub(super) fn hmac_sha256(key: &[u8], parts: &[&[u8]]) -> [u8; 32] {
    // HMAC accepts keys of any length, so this cannot fail.
    let mut mac =
        <Hmac<Sha256> as KeyInit>::new_from_slice(key).unwrap_or_else(|_| unreachable!("hmac takes any key length"));
    for part in parts {
        mac.update(part);
    }
    mac.finalize().into_bytes().into()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_signature_is_the_rfc_4231_hmac_in_hex() {
        // RFC 4231 test case 2.
        let header = sign(b"Jefe", b"what do ya want for nothing?");
        assert_eq!(header, "sha256=5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");
    }

    #[test]
    fn verify_refuses_anything_but_the_exact_header() {
        let body = b"{}";
        let good = sign(b"k", body);
        let cases = [
            (good.clone(), true),
            (format!(" {good} "), true), // surrounding whitespace of a header value
            (good.to_uppercase(), false),
            (good.replace("sha256=", ""), false),
            (good[..good.len() - 1].to_owned(), false),
            (String::new(), false),
        ];
        for (header, want) in cases {
            assert_eq!(verify(b"k", body, &header), want, "{header:?}");
        }
    }
}
