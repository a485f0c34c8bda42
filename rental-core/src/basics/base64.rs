//! Base64 with the standard alphabet and `=` padding (RFC 4648 section 4), for
//! Standard Webhooks secrets and signatures. Decoding is strict, as the reference verifiers are.

const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/// `bytes` in base64, padded to a multiple of four characters.
pub(crate) fn encode(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let b = [chunk[0], chunk.get(1).copied().unwrap_or(0), chunk.get(2).copied().unwrap_or(0)];
        let n = u32::from(b[0]) << 16 | u32::from(b[1]) << 8 | u32::from(b[2]);
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(char::from(ALPHABET[(n >> (18 - 6 * i) & 63) as usize]));
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// The bytes of padded base64 text; `None` for anything else: a length that is
/// not a multiple of four, a character outside the alphabet, misplaced padding,
/// or unused bits that are not zero (so each byte string has one spelling).
pub(crate) fn decode(text: &str) -> Option<Vec<u8>> {
    let text = text.as_bytes();
    if !text.len().is_multiple_of(4) {
        return None;
    }
    let mut out = Vec::with_capacity(text.len() / 4 * 3);
    let quads = text.chunks(4);
    let last = quads.len().saturating_sub(1);
    for (i, quad) in quads.enumerate() {
        let pad = quad.iter().rev().take_while(|&&c| c == b'=').count();
        if pad > 2 || (pad > 0 && i != last) {
            return None;
        }
        let mut n = 0u32;
        for &c in &quad[..4 - pad] {
            n = n << 6 | u32::from(value(c)?);
        }
        n <<= 6 * pad;
        let bytes = [(n >> 16) as u8, (n >> 8) as u8, n as u8];
        let kept = 3 - pad;
        if bytes[kept..].iter().any(|&b| b != 0) {
            return None;
        }
        out.extend_from_slice(&bytes[..kept]);
    }
    Some(out)
}

fn value(c: u8) -> Option<u8> {
    match c {
        b'A'..=b'Z' => Some(c - b'A'),
        b'a'..=b'z' => Some(c - b'a' + 26),
        b'0'..=b'9' => Some(c - b'0' + 52),
        b'+' => Some(62),
        b'/' => Some(63),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_rfc_4648_vectors_encode_and_decode() {
        let vectors = [
            ("", ""),
            ("f", "Zg=="),
            ("fo", "Zm8="),
            ("foo", "Zm9v"),
            ("foob", "Zm9vYg=="),
            ("fooba", "Zm9vYmE="),
            ("foobar", "Zm9vYmFy"),
        ];
        for (plain, coded) in vectors {
            assert_eq!(encode(plain.as_bytes()), coded, "{plain:?}");
            assert_eq!(decode(coded).as_deref(), Some(plain.as_bytes()), "{coded:?}");
        }
    }

    #[test]
    fn every_byte_value_round_trips() {
        let all: Vec<u8> = (0..=255).collect();
        for len in [0, 1, 2, 3, 31, 32, 33, 256] {
            let bytes = &all[..len.min(256)];
            assert_eq!(decode(&encode(bytes)).as_deref(), Some(bytes), "{len}");
        }
        assert!(encode(&all).contains('+') && encode(&all).contains('/'));
    }

    #[test]
    fn malformed_text_is_refused() {
        let cases = [
            "Zg",        // unpadded
            "Zg=",       // short padding
            "Zg===",     // a length that is not a multiple of four
            "Z===",      // three padding characters
            "Zg==Zg==",  // padding before the end
            "Zh==",      // unused bits set
            "Zm8_",      // URL-safe alphabet
            "Zm8-",      //
            "Zm 9",      // whitespace
            "the_tests", // an ordinary word with an underscore
        ];
        for text in cases {
            assert_eq!(decode(text), None, "{text:?}");
        }
    }

    proptest::proptest! {
        #[test]
        fn decoding_undoes_encoding_and_every_accepted_text_is_the_one_spelling(
            bytes in proptest::collection::vec(proptest::num::u8::ANY, 0..80),
            text in "[A-Za-z0-9+/=]{0,24}",
        ) {
            proptest::prop_assert_eq!(decode(&encode(&bytes)), Some(bytes));
            if let Some(decoded) = decode(&text) {
                proptest::prop_assert_eq!(encode(&decoded), text);
            }
        }
    }
}
