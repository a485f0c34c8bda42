//! Writing JSON bytes directly, for the answers on the hot path (availability,
//! quotes, the summary): serde escapes every key of every element.

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

/// A JSON string, escaped by `serde_json` when it needs it (rarely: these are names and codes).
pub(crate) fn push_json_str(out: &mut Vec<u8>, s: &str) {
    // serde_json escapes only quotes, backslashes and control characters.
    if s.bytes().all(|b| b >= 0x20 && b != b'"' && b != b'\\') {
        out.push(b'"');
        out.extend_from_slice(s.as_bytes());
        out.push(b'"');
    } else {
        out.extend_from_slice(serde_json::to_string(s).unwrap_or_default().as_bytes());
    }
}

/// A JSON date string, `"YYYY-MM-DD"`; false (nothing written) for years chrono writes otherwise.
pub(crate) fn push_date(out: &mut Vec<u8>, date: chrono::NaiveDate) -> bool {
    let Some(ymd) = crate::basics::date_json::ymd(date) else { return false };
    out.push(b'"');
    out.extend_from_slice(&ymd);
    out.push(b'"');
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strings_are_written_as_serde_json_writes_them() {
        for s in ["sea-view", "Sea View Cottage", "3:00 PM", "Zoë", "a\"b", "back\\slash", "tab\t", "/", "\u{7f}"] {
            let mut out = Vec::new();
            push_json_str(&mut out, s);
            assert_eq!(String::from_utf8(out).unwrap(), serde_json::to_string(s).unwrap(), "{s:?}");
        }
    }

    #[test]
    fn integers_are_written_as_serde_json_writes_them() {
        for n in [0, 7, -7, 134_288, i64::MIN, i64::MAX] {
            let mut out = Vec::new();
            push_int(&mut out, n);
            assert_eq!(String::from_utf8(out).unwrap(), n.to_string());
        }
    }
}
