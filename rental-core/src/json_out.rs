//! Writing JSON bytes directly, for the answers on the hot path (availability,
//! quotes): serde escapes every key of every element, which is most of their cost.

/// A JSON integer.
pub(crate) fn push_int(out: &mut Vec<u8>, n: i64) {
    if n < 0 {
        out.push(b'-');
    }
    let mut digits = [0u8; 20];
    let mut rest = n.unsigned_abs();
    let mut start = digits.len();
    loop {
        start -= 1;
        digits[start] = b'0' + (rest % 10) as u8;
        rest /= 10;
        if rest == 0 {
            break;
        }
    }
    out.extend_from_slice(&digits[start..]);
}

/// A JSON string, escaped by `serde_json` when it needs it (these are short, and rarely do).
pub(crate) fn push_json_str(out: &mut Vec<u8>, s: &str) {
    if s.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b' ') {
        out.push(b'"');
        out.extend_from_slice(s.as_bytes());
        out.push(b'"');
    } else {
        out.extend_from_slice(serde_json::to_string(s).unwrap_or_default().as_bytes());
    }
}
