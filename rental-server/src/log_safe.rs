//! What a log line may hold of what others send: a client's method bounded
//! and escaped, a URL without its credentials or query, no e-mail address.
//!
//! Logs are read by more people than the data they describe, and a client
//! can make a field of a log line as long as the server accepts.

use std::borrow::Cow;

use http::Method;

/// The longest method written to a log; longer ones are cut and marked.
pub const MAX_METHOD: usize = 16;

/// `method` as a log line may hold it: the standard ones as they are, any
/// other cut to [`MAX_METHOD`] characters with anything but visible ASCII escaped.
pub fn method(method: &Method) -> Cow<'_, str> {
    let text = method.as_str();
    if text.len() <= MAX_METHOD && text.bytes().all(|b| b.is_ascii_graphic()) {
        return Cow::Borrowed(text);
    }
    let mut cut: String = text.chars().take(MAX_METHOD).flat_map(char::escape_default).collect();
    if text.chars().count() > MAX_METHOD {
        cut.push_str("...");
    }
    Cow::Owned(cut)
}

/// `url` without the user and password before its host, its query and its
/// fragment, where tokens live: `https://hooks.example.com/in/{…}` stays
/// readable while `https://u:p@hooks.example.com/in?token=t` loses `u:p@` and `?token=t`.
pub fn url(url: &str) -> String {
    let (scheme, rest) = url.split_once("://").unwrap_or(("", url));
    let end = rest.find(['?', '#']).unwrap_or(rest.len());
    let rest = &rest[..end];
    let authority_end = rest.find('/').unwrap_or(rest.len());
    let (authority, path) = rest.split_at(authority_end);
    let host = authority.rsplit_once('@').map_or(authority, |(_, host)| host);
    let mut out = if scheme.is_empty() { String::new() } else { format!("{scheme}://") };
    if authority.contains('@') {
        out.push_str("[redacted]@");
    }
    out.push_str(host);
    out.push_str(path);
    if url.contains(['?', '#']) {
        out.push_str("?[redacted]");
    }
    out
}

/// `text` with every word that holds an `@` (an e-mail address, as a mail
/// server quotes a refused recipient) replaced by `[address]`.
pub fn without_addresses(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut word = String::new();
    let flush = |word: &mut String, out: &mut String| {
        if word.contains('@') {
            out.push_str("[address]");
        } else {
            out.push_str(word);
        }
        word.clear();
    };
    for c in text.chars() {
        if c.is_whitespace() || matches!(c, '<' | '>' | '"' | '\'' | '(' | ')' | ',' | ';' | '[' | ']') {
            flush(&mut word, &mut out);
            out.push(c);
        } else {
            word.push(c);
        }
    }
    flush(&mut word, &mut out);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_long_or_odd_method_is_cut_and_escaped() {
        assert_eq!(method(&Method::GET), "GET");
        let long: Method = "A".repeat(300_000).parse().unwrap();
        assert_eq!(method(&long), format!("{}...", "A".repeat(MAX_METHOD)));
        assert_eq!(method(&"PROPFIND".parse().unwrap()), "PROPFIND");
    }

    #[test]
    fn urls_lose_credentials_and_queries() {
        let cases = [
            ("https://hooks.example.com/in", "https://hooks.example.com/in"),
            (
                "https://u:p4ss@hooks.example.com:8443/in?token=t0k#frag",
                "https://[redacted]@hooks.example.com:8443/in?[redacted]",
            ),
            ("http://127.0.0.1:9/hooks?key=abc", "http://127.0.0.1:9/hooks?[redacted]"),
            ("https://tok@example.com", "https://[redacted]@example.com"),
        ];
        for (given, logged) in cases {
            assert_eq!(url(given), logged, "{given}");
        }
    }

    #[test]
    fn addresses_are_taken_out_of_a_mail_server_s_answer() {
        let answer = "permanent error (550): 5.1.1 <ada.guest@example.com>: mailbox unavailable";
        assert_eq!(without_addresses(answer), "permanent error (550): 5.1.1 <[address]>: mailbox unavailable");
        assert_eq!(without_addresses("no address here"), "no address here");
    }
}
