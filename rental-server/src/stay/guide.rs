//! A host's free text on the stay page (the house guide, the address, the
//! arrival notes): paragraphs and links, nothing else rendered.
//!
//! The text is split into paragraphs at blank lines and lines at line
//! breaks; inside, `http://` and `https://` addresses become links and every
//! other character is text, escaped by maud. No markup a host types is ever
//! rendered, and no other scheme (`javascript:`, `data:`) is ever linked.

use maud::{Markup, html};

/// `text` as paragraphs with their links.
pub fn render(text: &str) -> Markup {
    let normalized = text.replace("\r\n", "\n");
    let paragraphs = normalized.split("\n\n").map(str::trim).filter(|p| !p.is_empty());
    html! {
        @for paragraph in paragraphs {
            p {
                @for (i, line) in paragraph.lines().enumerate() {
                    @if i > 0 { br; }
                    (linked(line))
                }
            }
        }
    }
}

/// One line with its web addresses as links.
fn linked(line: &str) -> Markup {
    html! {
        @for piece in pieces(line) {
            @match piece {
                Piece::Text(t) => (t),
                Piece::Link(url) => a href=(url) rel="noopener noreferrer nofollow" { (url) },
            }
        }
    }
}

/// A run of text or a web address.
#[derive(Debug, PartialEq, Eq)]
enum Piece<'a> {
    Text(&'a str),
    Link(&'a str),
}

/// `line` cut into text and web addresses. An address runs from `http://`
/// or `https://` to the next space, less trailing punctuation that ends a
/// sentence rather than the address.
fn pieces(line: &str) -> Vec<Piece<'_>> {
    let mut out = Vec::new();
    let mut rest = line;
    while let Some(start) = next_address(rest) {
        let tail = &rest[start..];
        let end = tail.find(char::is_whitespace).unwrap_or(tail.len());
        let url = tail[..end].trim_end_matches(['.', ',', ';', ':', '!', '?', ')', '\'', '"']);
        let scheme = if url.starts_with("https://") { 8 } else { 7 };
        if url.len() <= scheme {
            out.push(Piece::Text(&rest[..start + end]));
            rest = &rest[start + end..];
            continue;
        }
        if start > 0 {
            out.push(Piece::Text(&rest[..start]));
        }
        out.push(Piece::Link(url));
        rest = &rest[start + url.len()..];
    }
    if !rest.is_empty() {
        out.push(Piece::Text(rest));
    }
    out
}

/// Where the next `http://` or `https://` starts in `s`.
fn next_address(s: &str) -> Option<usize> {
    match (s.find("https://"), s.find("http://")) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paragraphs_lines_and_links_and_nothing_else() {
        let cases = [
            ("Bins out Tuesdays.", "<p>Bins out Tuesdays.</p>"),
            ("One\n\nTwo\nlines", "<p>One</p><p>Two<br>lines</p>"),
            ("<b>bold</b> & co", "<p>&lt;b&gt;bold&lt;/b&gt; &amp; co</p>"),
            (
                "Map: https://maps.example/x?a=1&b=2.",
                "<p>Map: <a href=\"https://maps.example/x?a=1&amp;b=2\" rel=\"noopener noreferrer nofollow\">https://maps.example/x?a=1&amp;b=2</a>.</p>",
            ),
            ("javascript:alert(1) data:text/html,x", "<p>javascript:alert(1) data:text/html,x</p>"),
            ("see http://", "<p>see http://</p>"),
            (
                "\"https://a.example/\"onmouseover=x",
                "<p>&quot;<a href=\"https://a.example/&quot;onmouseover=x\" rel=\"noopener noreferrer nofollow\">https://a.example/&quot;onmouseover=x</a></p>",
            ),
            ("\r\n\r\n", ""),
        ];
        for (text, want) in cases {
            assert_eq!(render(text).into_string(), want, "{text:?}");
        }
    }
}
