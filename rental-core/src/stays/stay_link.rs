//! The guest's private stay link (docs/API.md section 24): `/stay/{code}.{signature}`,
//! where the signature is an HMAC of the booking code and its link generation.
//!
//! Nothing is stored for a link but the generation on the booking
//! ([`crate::Booking::stay_link_rotations`]): rotating it increments that
//! number, so every link signed before is refused by every server that reads
//! the booking from the shared store, at once. The secret is the server's page
//! secret; servers sharing a database must share it, as for the booking page.

use hmac::{Hmac, KeyInit, Mac};
use sha2::Sha256;
use subtle::ConstantTimeEq;

use crate::bookings::booking::Booking;

/// The bytes of the MAC kept in a link: 128 bits, 32 hex digits.
const MAC_BYTES: usize = 16;

/// The path every stay page lives under.
pub const PREFIX: &str = "/stay/";

/// Signs and checks stay links with one secret.
///
/// ```
/// use rental_core::stay_link::StayLinks;
///
/// let links = StayLinks::new(b"the server's page secret");
/// let sig = links.signature("BK-7QX2MF", 0);
/// assert!(links.verify(Some(("BK-7QX2MF", 0)), "BK-7QX2MF", &sig));
/// assert!(!links.verify(Some(("BK-7QX2MF", 1)), "BK-7QX2MF", &sig), "rotated");
/// assert!(!links.verify(None, "BK-7QX2MF", &sig), "no such booking");
/// ```
#[derive(Clone)]
pub struct StayLinks {
    secret: Vec<u8>,
}

impl std::fmt::Debug for StayLinks {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("StayLinks(..)")
    }
}

impl StayLinks {
    /// Links signed with `secret` (any length; 32 random bytes are plenty).
    pub fn new(secret: &[u8]) -> Self {
        StayLinks { secret: secret.to_vec() }
    }

    /// The signature of booking `code`'s link in its `generation`: 32 hex digits.
    pub fn signature(&self, code: &str, generation: u32) -> String {
        let mut mac =
            <Hmac<Sha256> as KeyInit>::new_from_slice(&self.secret).unwrap_or_else(|_| unreachable!("any key length"));
        // A domain apart from the booking page's tokens, which share the secret.
        for part in [&b"stay"[..], code.as_bytes(), generation.to_string().as_bytes()] {
            mac.update(part);
            mac.update(b"|");
        }
        hex::encode(&mac.finalize().into_bytes()[..MAC_BYTES])
    }

    /// The path of `booking`'s page: `/stay/{code}.{signature}`.
    pub fn path(&self, booking: &Booking) -> String {
        format!("{PREFIX}{}.{}", booking.code, self.signature(booking.code.as_str(), booking.stay_link_rotations))
    }

    /// The absolute address of `booking`'s page under `base_url` (no trailing slash needed).
    pub fn url(&self, base_url: &str, booking: &Booking) -> String {
        format!("{}{}", base_url.trim_end_matches('/'), self.path(booking))
    }

    /// True when `signature` is the current one of the booking `found`
    /// (its code and generation; `None` when no booking has `code`).
    ///
    /// The MAC is computed and compared in constant time whether or not a
    /// booking was found, so that an unknown code, another booking's code, a
    /// wrong, truncated or rotated signature all take the same time.
    pub fn verify(&self, found: Option<(&str, u32)>, code: &str, signature: &str) -> bool {
        let (signed_code, generation) = found.unwrap_or((code, u32::MAX));
        let want = self.signature(signed_code, generation);
        // Padded to the same length, so a short signature is not answered sooner.
        let mut given = [0u8; 2 * MAC_BYTES];
        let bytes = signature.as_bytes();
        let n = bytes.len().min(given.len());
        given[..n].copy_from_slice(&bytes[..n]);
        let same = bool::from(want.as_bytes().ct_eq(&given)) & (bytes.len() == given.len());
        // Bitwise, not lazy: every part is computed whatever the others are.
        #[allow(clippy::needless_bitwise_bool)]
        let ok = found.is_some() & (signed_code == code) & same;
        ok
    }
}

/// The code and signature of a page's last path segment `{code}.{signature}`.
pub fn split(segment: &str) -> Option<(&str, &str)> {
    let (code, signature) = segment.rsplit_once('.')?;
    (!code.is_empty() && code.len() <= 40).then_some((code, signature))
}

#[cfg(test)]
mod tests {
    use super::*;

    type Case<'a> = (Option<(&'a str, u32)>, &'a str, &'a str, bool);

    #[test]
    fn a_link_holds_for_its_booking_and_generation_alone() {
        let links = StayLinks::new(b"secret");
        let sig = links.signature("BK-7QX2MF", 3);
        let cases: [Case<'_>; 7] = [
            (Some(("BK-7QX2MF", 3)), "BK-7QX2MF", &sig, true),
            (Some(("BK-7QX2MF", 4)), "BK-7QX2MF", &sig, false),
            (Some(("BK-7QX2MG", 3)), "BK-7QX2MG", &sig, false),
            (None, "BK-7QX2MF", &sig, false),
            (Some(("BK-7QX2MF", 3)), "BK-7QX2MF", &sig[..31], false),
            (Some(("BK-7QX2MF", 3)), "BK-7QX2MF", &format!("{sig}0"), false),
            (Some(("BK-7QX2MF", 3)), "BK-7QX2MF", "", false),
        ];
        for (found, code, given, ok) in cases {
            assert_eq!(links.verify(found, code, given), ok, "{found:?} {code} {given}");
        }
        assert_ne!(StayLinks::new(b"other").signature("BK-7QX2MF", 3), sig);
        assert_eq!(sig.len(), 32);
    }

    #[test]
    fn a_segment_splits_at_its_last_dot() {
        assert_eq!(split("BK-7QX2MF.abc"), Some(("BK-7QX2MF", "abc")));
        assert_eq!(split("BK-7QX2MF"), None);
        assert_eq!(split(".abc"), None);
    }
}
