//! Text held in place when it is short: a calendar entry's booking code and
//! guest name, which the read cache keeps for every stay ahead, without a heap allocation each.

use std::borrow::Borrow;
use std::fmt;
use std::hash::{Hash, Hasher};
use std::ops::Deref;

/// The longest text held in place; longer text goes on the heap.
pub const INLINE_BYTES: usize = 22;

/// Immutable text in the 24 bytes of a `String`: up to [`INLINE_BYTES`]
/// bytes in place (every booking code and block id, most guest names), longer on the heap.
///
/// ```
/// use rental_core::short_text::ShortText;
///
/// let code = ShortText::from("BK-7QX2MF");
/// assert_eq!(code, "BK-7QX2MF");
/// assert_eq!(code.len(), 9);
/// assert_eq!(ShortText::from("a name longer than twenty-two bytes").as_str(), "a name longer than twenty-two bytes");
/// ```
#[derive(Clone)]
pub struct ShortText(Repr);

#[derive(Clone)]
enum Repr {
    Inline { len: u8, bytes: [u8; INLINE_BYTES] },
    Heap(Box<str>),
}

impl ShortText {
    /// A copy of `text`.
    pub fn new(text: &str) -> Self {
        if text.len() > INLINE_BYTES {
            return ShortText(Repr::Heap(text.into()));
        }
        let mut bytes = [0; INLINE_BYTES];
        bytes[..text.len()].copy_from_slice(text.as_bytes());
        ShortText(Repr::Inline { len: text.len() as u8, bytes })
    }

    /// The text.
    pub fn as_str(&self) -> &str {
        match &self.0 {
            // The bytes are a whole `&str` copied in `new`, so they are UTF-8.
            Repr::Inline { len, bytes } => std::str::from_utf8(&bytes[..usize::from(*len)]).unwrap_or_default(),
            Repr::Heap(text) => text,
        }
    }

    fn as_bytes(&self) -> &[u8] {
        match &self.0 {
            Repr::Inline { len, bytes } => &bytes[..usize::from(*len)],
            Repr::Heap(text) => text.as_bytes(),
        }
    }
}

impl Default for ShortText {
    fn default() -> Self {
        ShortText::new("")
    }
}

impl Deref for ShortText {
    type Target = str;

    fn deref(&self) -> &str {
        self.as_str()
    }
}

impl AsRef<str> for ShortText {
    fn as_ref(&self) -> &str {
        self.as_str()
    }
}

impl Borrow<str> for ShortText {
    fn borrow(&self) -> &str {
        self.as_str()
    }
}

impl From<&str> for ShortText {
    fn from(text: &str) -> Self {
        ShortText::new(text)
    }
}

impl From<String> for ShortText {
    fn from(text: String) -> Self {
        ShortText::new(&text)
    }
}

impl From<&String> for ShortText {
    fn from(text: &String) -> Self {
        ShortText::new(text)
    }
}

impl From<ShortText> for String {
    fn from(text: ShortText) -> Self {
        text.as_str().to_owned()
    }
}

impl PartialEq for ShortText {
    fn eq(&self, other: &Self) -> bool {
        self.as_bytes() == other.as_bytes()
    }
}

impl Eq for ShortText {}

impl PartialEq<str> for ShortText {
    fn eq(&self, other: &str) -> bool {
        self.as_bytes() == other.as_bytes()
    }
}

impl PartialEq<&str> for ShortText {
    fn eq(&self, other: &&str) -> bool {
        self.as_bytes() == other.as_bytes()
    }
}

impl PartialEq<String> for ShortText {
    fn eq(&self, other: &String) -> bool {
        self.as_bytes() == other.as_bytes()
    }
}

impl PartialOrd for ShortText {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for ShortText {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.as_bytes().cmp(other.as_bytes())
    }
}

impl Hash for ShortText {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.as_str().hash(state);
    }
}

impl fmt::Debug for ShortText {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.as_str(), f)
    }
}

impl fmt::Display for ShortText {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn it_takes_no_more_room_than_a_string() {
        assert_eq!(size_of::<ShortText>(), size_of::<String>());
    }

    #[test]
    fn text_at_and_past_the_inline_limit_reads_back_the_same() {
        for text in [
            "",
            "BK-7QX2MF",
            "blk_0123456789ab",
            "Zoë Ångström-Łukasz",
            "x".repeat(22).as_str(),
            "y".repeat(23).as_str(),
        ] {
            let short = ShortText::from(text);
            assert_eq!(short.as_str(), text);
            assert_eq!(short, text);
            assert_eq!(String::from(short.clone()), text);
            assert_eq!(short.to_string(), text);
        }
        assert!(matches!(ShortText::from("x".repeat(22)).0, Repr::Inline { .. }));
        assert!(matches!(ShortText::from("y".repeat(23)).0, Repr::Heap(_)));
    }

    #[test]
    fn it_orders_and_compares_as_its_text_does() {
        let a = ShortText::from("BK-AAAAAA");
        let long = ShortText::from("BK-AAAAAA but much longer than inline");
        assert!(a < long);
        let b = ShortText::from("BK-B");
        assert!(b > long);
        assert_ne!(a, long);
        assert_eq!(ShortText::default(), "");
    }
}
