//! The booking form's token and the confirmation page's address: HMAC-signed,
//! so the server keeps nothing for them; time is an input, so lapses are testable.
//!
//! A form token is `{issued}.{nonce}.{mac}`: the Unix second it was issued, 16
//! random bytes, and an HMAC-SHA256 (first 16 bytes) over the property, the
//! issue time and the nonce. It proves the form came from this server for this
//! property and when; it is single-use because the booking it creates is keyed
//! by it (an idempotency key), so a second submit replays the first.
//! The confirmation address carries the booking code and an HMAC of it.

use chrono::{DateTime, TimeDelta, Utc};
use hmac::{Hmac, KeyInit, Mac};
use sha2::Sha256;
use subtle::ConstantTimeEq;

/// How long a form token is accepted after it was issued, by default.
pub const FORM_LIFETIME: TimeDelta = TimeDelta::hours(2);

/// How far in the future an issue time may lie (another server's clock running ahead).
const CLOCK_SKEW: TimeDelta = TimeDelta::minutes(1);

/// The bytes of a MAC that are kept: 128 bits.
const MAC_BYTES: usize = 16;

/// Why a form token is refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum TokenError {
    /// Missing or not in the token's shape.
    #[error("the form is incomplete")]
    Malformed,
    /// Not signed by this server for this property.
    #[error("the form did not come from this page")]
    Forged,
    /// Issued longer ago than the token's lifetime.
    #[error("the form has expired")]
    Lapsed,
}

/// Signs and checks tokens with one secret.
#[derive(Clone)]
pub struct Signer {
    secret: Vec<u8>,
}

impl std::fmt::Debug for Signer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Signer(..)")
    }
}

impl Signer {
    /// A signer over `secret` (any length; 32 random bytes are plenty).
    pub fn new(secret: &[u8]) -> Self {
        Signer { secret: secret.to_vec() }
    }

    fn mac(&self, parts: &[&[u8]]) -> String {
        let mut mac =
            <Hmac<Sha256> as KeyInit>::new_from_slice(&self.secret).unwrap_or_else(|_| unreachable!("any key length"));
        for part in parts {
            mac.update(part);
            mac.update(b"|");
        }
        hex::encode(&mac.finalize().into_bytes()[..MAC_BYTES])
    }

    /// A form token for property `slug`, issued at `now` with `nonce` (random bytes).
    pub fn form_token(&self, slug: &str, now: DateTime<Utc>, nonce: &[u8]) -> String {
        let (issued, nonce) = (now.timestamp().to_string(), hex::encode(nonce));
        let mac = self.mac(&[b"form", slug.as_bytes(), issued.as_bytes(), nonce.as_bytes()]);
        format!("{issued}.{nonce}.{mac}")
    }

    /// Checks a form token for `slug` at `now`, accepted for `lifetime` after issue.
    pub fn check_form_token(
        &self,
        token: &str,
        slug: &str,
        now: DateTime<Utc>,
        lifetime: TimeDelta,
    ) -> Result<(), TokenError> {
        let mut parts = token.split('.');
        let (Some(issued), Some(nonce), Some(mac), None) = (parts.next(), parts.next(), parts.next(), parts.next())
        else {
            return Err(TokenError::Malformed);
        };
        let at =
            issued.parse::<i64>().ok().and_then(|s| DateTime::from_timestamp(s, 0)).ok_or(TokenError::Malformed)?;
        if nonce.is_empty() || nonce.len() > 64 || !nonce.bytes().all(|b| b.is_ascii_hexdigit()) {
            return Err(TokenError::Malformed);
        }
        let want = self.mac(&[b"form", slug.as_bytes(), issued.as_bytes(), nonce.as_bytes()]);
        if !bool::from(want.as_bytes().ct_eq(mac.as_bytes())) {
            return Err(TokenError::Forged);
        }
        if at > now + CLOCK_SKEW || now - at > lifetime { Err(TokenError::Lapsed) } else { Ok(()) }
    }

    /// The confirmation page's token for booking `code`: `{code}.{mac}`.
    pub fn confirmation(&self, code: &str) -> String {
        format!("{code}.{}", self.mac(&[b"requested", code.as_bytes()]))
    }

    /// The token of booking `code`'s e-mail check link: `{code}.{mac}`, signed apart from the confirmation's.
    pub fn verification(&self, code: &str) -> String {
        format!("{code}.{}", self.mac(&[b"verify", code.as_bytes()]))
    }

    /// The booking code a verification token names, if this server signed it.
    pub fn check_verification<'t>(&self, token: &'t str) -> Option<&'t str> {
        let (code, mac) = token.rsplit_once('.')?;
        let want = self.mac(&[b"verify", code.as_bytes()]);
        bool::from(want.as_bytes().ct_eq(mac.as_bytes())).then_some(code)
    }

    /// The booking code a confirmation token names, if this server signed it.
    pub fn check_confirmation<'t>(&self, token: &'t str) -> Option<&'t str> {
        let (code, mac) = token.rsplit_once('.')?;
        let want = self.mac(&[b"requested", code.as_bytes()]);
        bool::from(want.as_bytes().ct_eq(mac.as_bytes())).then_some(code)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(s: &str) -> DateTime<Utc> {
        s.parse().unwrap()
    }

    #[test]
    fn a_form_token_holds_for_two_hours_for_its_property_only() {
        let signer = Signer::new(b"secret");
        let issued = at("2026-11-22T08:00:00Z");
        let token = signer.form_token("sea-view", issued, &[7; 16]);
        let check = |t: &str, slug: &str, now: &str| signer.check_form_token(t, slug, at(now), FORM_LIFETIME);
        assert_eq!(check(&token, "sea-view", "2026-11-22T09:59:59Z"), Ok(()));
        assert_eq!(check(&token, "sea-view", "2026-11-22T10:00:01Z"), Err(TokenError::Lapsed));
        assert_eq!(check(&token, "sea-view", "2026-11-22T07:50:00Z"), Err(TokenError::Lapsed), "from the future");
        assert_eq!(check(&token, "alpine-cabin", "2026-11-22T08:00:00Z"), Err(TokenError::Forged));
        let other = Signer::new(b"another secret").form_token("sea-view", issued, &[7; 16]);
        assert_eq!(check(&other, "sea-view", "2026-11-22T08:00:00Z"), Err(TokenError::Forged));
        for bad in ["", "x", "1.2", "a.b.c", "1.zz.c", "1.2.3.4"] {
            assert_eq!(check(bad, "sea-view", "2026-11-22T08:00:00Z"), Err(TokenError::Malformed), "{bad}");
        }
    }

    #[test]
    fn a_confirmation_token_names_its_code_and_cannot_be_made_for_another() {
        let signer = Signer::new(b"secret");
        let token = signer.confirmation("BK-7QX2MF");
        assert_eq!(signer.check_confirmation(&token), Some("BK-7QX2MF"));
        let (_, mac) = token.rsplit_once('.').unwrap();
        assert_eq!(signer.check_confirmation(&format!("BK-7QX2MG.{mac}")), None);
        assert_eq!(signer.check_confirmation("BK-7QX2MF"), None);
        assert_eq!(mac.len(), 32, "128 bits");
        assert_eq!(signer.check_verification(&token), None, "a confirmation does not verify an e-mail");
    }
}
