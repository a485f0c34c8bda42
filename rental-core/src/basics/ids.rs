//! Identifiers that are checked once at the edge: property slugs, booking
//! codes and sources. Past the edge, a value of these types is valid.

use std::fmt;

use serde::{Deserialize, Serialize};

use crate::basics::clock::{Entropy, random_string};

/// A property's URL-safe identifier: 1 to 64 of `a-z`, `0-9` and `-`, not starting or ending with `-`.
///
/// ```
/// use rental_core::Slug;
///
/// let slug: Slug = "sea-view".parse()?;
/// assert_eq!(slug.as_str(), "sea-view");
/// assert!(Slug::parse("Sea View").is_err());
/// # Ok::<(), rental_core::IdError>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct Slug(String);

impl Slug {
    /// Checks `s` and wraps it.
    pub fn parse(s: &str) -> Result<Self, IdError> {
        let ok_char = |c: char| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-';
        let ok = (1..=64).contains(&s.len()) && s.chars().all(ok_char) && !s.starts_with('-') && !s.ends_with('-');
        if ok { Ok(Slug(s.to_owned())) } else { Err(IdError::Slug(s.to_owned())) }
    }

    /// The slug as text.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// A booking's code, `<PREFIX>-<6 characters>` (docs/API.md section 6).
///
/// ```
/// use rental_core::BookingCode;
///
/// let code: BookingCode = "BK-7QX2MF".parse()?;
/// assert_eq!(code.to_string(), "BK-7QX2MF");
/// assert!(BookingCode::parse("BK-0O1IL").is_err(), "0, O, 1, I and L are never drawn");
/// # Ok::<(), rental_core::IdError>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct BookingCode(String);

/// The characters of a booking code's random part: no 0/O, 1/I/L confusion.
pub const CODE_ALPHABET: &[u8] = b"23456789ABCDEFGHJKMNPQRSTUVWXYZ";

impl BookingCode {
    /// A new random code with `prefix` (already checked by [`check_prefix`]).
    pub(crate) fn generate(prefix: &str, entropy: &dyn Entropy) -> Self {
        BookingCode(format!("{prefix}-{}", random_string(entropy, CODE_ALPHABET, 6)))
    }

    /// Checks that `s` has a code's shape, `<PREFIX>-<6 characters>`: a
    /// prefix as [`check_prefix`] takes, and six of [`CODE_ALPHABET`].
    pub fn parse(s: &str) -> Result<Self, IdError> {
        let shaped = s.split_once('-').is_some_and(|(prefix, random)| {
            check_prefix(prefix).is_ok() && random.len() == 6 && random.bytes().all(|b| CODE_ALPHABET.contains(&b))
        });
        if shaped { Ok(BookingCode(s.to_owned())) } else { Err(IdError::Code(s.to_owned())) }
    }

    /// The code as text.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// Checks a booking code prefix: 1 to 8 characters of `A-Z` and `0-9`.
pub fn check_prefix(prefix: &str) -> Result<(), IdError> {
    let ok = (1..=8).contains(&prefix.len()) && prefix.chars().all(|c| c.is_ascii_uppercase() || c.is_ascii_digit());
    if ok { Ok(()) } else { Err(IdError::Prefix(prefix.to_owned())) }
}

/// Where a booking came from: `api`, `admin`, `cli`, `agent`, `page`, or a channel feed's name.
/// 1 to 32 of `a-z`, `0-9`, `-` and `_`.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct Source(String);

impl Source {
    /// Checks `s` and wraps it.
    pub fn parse(s: &str) -> Result<Self, IdError> {
        let ok_char = |c: char| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-' || c == '_';
        if (1..=32).contains(&s.len()) && s.chars().all(ok_char) {
            Ok(Source(s.to_owned()))
        } else {
            Err(IdError::Source(s.to_owned()))
        }
    }

    /// Bookings made through the HTTP API.
    pub fn api() -> Self {
        Source("api".to_owned())
    }

    /// Bookings made with the `rental` command.
    pub fn cli() -> Self {
        Source("cli".to_owned())
    }

    /// Requests guests sent from a property's booking page (`/book/{slug}`).
    pub fn page() -> Self {
        Source("page".to_owned())
    }

    /// The source as text.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// Why a text is not a valid identifier.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum IdError {
    /// Not a valid property slug.
    #[error("{0:?} is not a valid slug (1-64 of a-z, 0-9 and -)")]
    Slug(String),
    /// Not a valid booking source.
    #[error("{0:?} is not a valid source (1-32 of a-z, 0-9, - and _)")]
    Source(String),
    /// Not a valid booking code prefix.
    #[error("{0:?} is not a valid code prefix (1-8 of A-Z and 0-9)")]
    Prefix(String),
    /// Not a booking code's shape.
    #[error("{0:?} is not a booking code (like BK-7QX2MF)")]
    Code(String),
    /// Not a time of day.
    #[error("{0:?} is not a time like 15:00")]
    Time(String),
}

impl IdError {
    /// The field a value of this kind is sent as, in JSON (`slug`, `source`, ...).
    pub fn field(&self) -> &'static str {
        match self {
            IdError::Slug(_) => "slug",
            IdError::Source(_) => "source",
            IdError::Prefix(_) => "codePrefix",
            IdError::Code(_) => "code",
            IdError::Time(_) => "time",
        }
    }
}

macro_rules! text_id {
    ($t:ident) => {
        impl fmt::Display for $t {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(&self.0)
            }
        }
        impl From<$t> for String {
            fn from(v: $t) -> String {
                v.0
            }
        }
        impl AsRef<str> for $t {
            fn as_ref(&self) -> &str {
                &self.0
            }
        }
    };
}
text_id!(Slug);
text_id!(BookingCode);
text_id!(Source);

impl TryFrom<String> for Slug {
    type Error = IdError;
    fn try_from(s: String) -> Result<Self, IdError> {
        Slug::parse(&s)
    }
}

/// `JsonSchema` for an identifier: an inline string schema with the pattern its parser checks.
#[cfg(feature = "schemars")]
macro_rules! string_schema {
    ($t:ident, $pattern:literal) => {
        impl schemars::JsonSchema for $t {
            fn schema_name() -> std::borrow::Cow<'static, str> {
                stringify!($t).into()
            }

            fn inline_schema() -> bool {
                true
            }

            fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
                schemars::json_schema!({"type": "string", "pattern": $pattern})
            }
        }
    };
}
#[cfg(feature = "schemars")]
string_schema!(Slug, "^[a-z0-9]([a-z0-9-]{0,62}[a-z0-9])?$");
#[cfg(feature = "schemars")]
string_schema!(BookingCode, "^[A-Z0-9]{1,8}-[23456789ABCDEFGHJKMNPQRSTUVWXYZ]{6}$");
#[cfg(feature = "schemars")]
string_schema!(Source, "^[a-z0-9_-]{1,32}$");

impl TryFrom<String> for Source {
    type Error = IdError;
    fn try_from(s: String) -> Result<Self, IdError> {
        Source::parse(&s)
    }
}

impl std::str::FromStr for Slug {
    type Err = IdError;
    fn from_str(s: &str) -> Result<Self, IdError> {
        Slug::parse(s)
    }
}

impl std::str::FromStr for Source {
    type Err = IdError;
    fn from_str(s: &str) -> Result<Self, IdError> {
        Source::parse(s)
    }
}

impl std::str::FromStr for BookingCode {
    type Err = IdError;
    fn from_str(s: &str) -> Result<Self, IdError> {
        BookingCode::parse(s)
    }
}

/// Wraps `s` unchecked: for codes read back from a store, which were
/// checked when made. Use [`BookingCode::parse`] on input.
impl From<&str> for BookingCode {
    fn from(s: &str) -> Self {
        BookingCode(s.to_owned())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::basics::clock::OsEntropy;

    #[test]
    fn slugs_are_lowercase_words_joined_by_hyphens() {
        for ok in ["sea-view", "a", "cabin-42"] {
            assert!(Slug::parse(ok).is_ok(), "{ok}");
        }
        for bad in ["", "Sea-View", "sea view", "-sea", "sea-", "sea/view", &"x".repeat(65)] {
            assert!(Slug::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn booking_codes_have_the_prefix_and_six_unambiguous_characters() {
        let code = BookingCode::generate("BK", &OsEntropy);
        let (prefix, rest) = code.as_str().split_once('-').unwrap();
        assert_eq!(prefix, "BK");
        assert_eq!(rest.len(), 6);
        assert!(rest.bytes().all(|b| CODE_ALPHABET.contains(&b)));
        assert_eq!(BookingCode::parse(code.as_str()), Ok(code));
        for bad in ["", "BK", "BK-", "BK-7QX2M", "BK-7QX2MFF", "bk-7QX2MF", "BK-7QX2M0", "BK_7QX2MF"] {
            assert!(bad.parse::<BookingCode>().is_err(), "{bad}");
        }
    }

    #[test]
    fn prefixes_and_sources_are_checked() {
        assert!(check_prefix("BK").is_ok());
        assert!(check_prefix("bk").is_err());
        assert!(check_prefix("").is_err());
        assert!(Source::parse("airbnb").is_ok());
        assert!(Source::parse("Airbnb").is_err());
    }
}
