//! The languages guests read pages and messages in (`en`, `de`): a BCP 47 tag
//! or an `Accept-Language` header read into one of them, and dates and money
//! written as each language writes them.

use std::fmt::{self, Write as _};

use chrono::{Datelike, NaiveDate};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use super::currency::{Currency, grouped_with};

/// A language built in: pages and messages are worded in it, dates and money
/// written its way (docs/API.md section 24).
///
/// ```
/// use rental_core::Locale;
///
/// assert_eq!(Locale::from_tag("de-AT"), Ok(Some(Locale::De)));
/// assert_eq!(Locale::from_tag("fr"), Ok(None), "well formed, not built in");
/// assert!(Locale::from_tag("german!").is_err());
/// assert_eq!(Locale::negotiate("fr;q=1, de-DE;q=0.9, en;q=0.8"), Some(Locale::De));
/// assert_eq!(Locale::De.long_date("2026-12-12".parse().unwrap()), "Samstag, 12. Dezember 2026");
/// assert_eq!(Locale::De.money(123_450, "EUR"), "1.234,50 €");
/// assert_eq!(Locale::En.money(123_450, "EUR"), "€1,234.50");
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[non_exhaustive]
pub enum Locale {
    /// English: the default, and the language of bookings stored before `locale`.
    #[default]
    En,
    /// German.
    De,
}

/// A tag that is not a BCP 47 language tag (`en`, `de-DE`, `zh-Hant-TW`).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0:?} is not a language tag like en or de-DE")]
pub struct MalformedTag(pub String);

/// The longest tag read: BCP 47 asks every reader to take 35 characters.
const MAX_TAG: usize = 35;

impl Locale {
    /// Every language built in.
    pub const ALL: [Locale; 2] = [Locale::En, Locale::De];

    /// The tag: `en`, `de`.
    pub fn as_str(self) -> &'static str {
        match self {
            Locale::En => "en",
            Locale::De => "de",
        }
    }

    /// The language of `tag`, matched on its primary subtag (`de-CH` is
    /// German); `Ok(None)` for a well-formed tag of a language not built in,
    /// an error for anything that is not a language tag.
    pub fn from_tag(tag: &str) -> Result<Option<Locale>, MalformedTag> {
        if !well_formed(tag) {
            return Err(MalformedTag(tag.to_owned()));
        }
        let primary = tag.split('-').next().unwrap_or_default();
        Ok(Locale::ALL.into_iter().find(|l| l.as_str().eq_ignore_ascii_case(primary)))
    }

    /// The built-in language an `Accept-Language` header prefers most: the
    /// highest quality first (`q=0` never), the header's order among equals,
    /// `*` or none built in: `None`.
    pub fn negotiate(header: &str) -> Option<Locale> {
        let mut best: Option<(u16, Locale)> = None;
        for item in header.split(',').take(32) {
            let mut parts = item.split(';');
            let tag = parts.next().unwrap_or_default().trim();
            let quality = parts.find_map(|p| p.trim().strip_prefix("q=")).map_or(Some(1000), quality);
            let (Some(q), Ok(Some(locale))) = (quality, Locale::from_tag(tag)) else { continue };
            if q > 0 && best.is_none_or(|(b, _)| q > b) {
                best = Some((q, locale));
            }
        }
        best.map(|(_, l)| l)
    }

    /// `Sunday 20 December 2026`, `Sonntag, 20. Dezember 2026`.
    pub fn long_date(self, date: NaiveDate) -> String {
        let mut out = String::with_capacity(32);
        self.write_date(&mut out, date, true);
        out
    }

    /// `Sun 20 Dec 2026`, `So., 20. Dez. 2026`.
    pub fn short_date(self, date: NaiveDate) -> String {
        let mut out = String::with_capacity(20);
        self.write_date(&mut out, date, false);
        out
    }

    /// [`Locale::long_date`] (or [`Locale::short_date`]) appended to `out`,
    /// from tables rather than chrono's `format`, which parses its pattern on
    /// every call (a seventh of a booking page view's CPU).
    pub fn write_date(self, out: &mut String, date: NaiveDate, long: bool) {
        let (weekday, month) = (date.weekday().num_days_from_monday() as usize, date.month0() as usize);
        let (d, y) = (date.day(), date.year());
        let _ = match (self, long) {
            (Locale::En, true) => write!(out, "{} {d} {} {y}", EN_WEEKDAYS[weekday], EN_MONTHS[month]),
            (Locale::En, false) => write!(out, "{} {d} {} {y}", &EN_WEEKDAYS[weekday][..3], &EN_MONTHS[month][..3]),
            (Locale::De, true) => write!(out, "{}, {d}. {} {y}", DE_WEEKDAYS[weekday], DE_MONTHS[month]),
            (Locale::De, false) => write!(out, "{}, {d}. {} {y}", DE_SHORT_WEEKDAYS[weekday], DE_SHORT_MONTHS[month]),
        };
    }

    /// `20 December`, `20. Dezember`.
    pub fn day_month(self, date: NaiveDate) -> String {
        match self {
            Locale::En => format!("{} {}", date.day(), EN_MONTHS[date.month0() as usize]),
            Locale::De => format!("{}. {}", date.day(), DE_MONTHS[date.month0() as usize]),
        }
    }

    /// `December 2026`, `Dezember 2026`.
    pub fn month_year(self, date: NaiveDate) -> String {
        let months = if self == Locale::De { &DE_MONTHS } else { &EN_MONTHS };
        format!("{} {}", months[date.month0() as usize], date.year())
    }

    /// The weekday's name, Monday first: `Monday`, `Montag`.
    pub fn weekday(self, days_from_monday: usize) -> &'static str {
        let days = if self == Locale::De { &DE_WEEKDAYS } else { &EN_WEEKDAYS };
        days[days_from_monday % 7]
    }

    /// An amount in the minor unit of `currency`: in English as
    /// [`crate::format_amount`] writes it (`$1,342.88`), in German with a
    /// point between thousands, a decimal comma and the sign or code after
    /// (`1.342,88 €`, `1.342,88 CHF`).
    pub fn money(self, amount: i64, currency: &str) -> String {
        match self {
            Locale::En => super::currency::format_amount(amount, currency),
            Locale::De => {
                let found = Currency::find(currency);
                let sign = if amount < 0 { "-" } else { "" };
                let number = grouped_with(amount.unsigned_abs(), found.map_or(2, |c| c.exponent), '.', ',');
                format!("{sign}{number} {}", found.and_then(|c| c.symbol).unwrap_or(currency))
            }
        }
    }

    /// A time of day on the property's clock: English as the property's
    /// country reads it ([`crate::ClockTime::in_zone`]), German on 24 hours.
    pub fn time(self, time: super::clock_time::ClockTime, zone: chrono_tz::Tz) -> String {
        match self {
            Locale::En => time.in_zone(zone),
            Locale::De => format!("{time} Uhr"),
        }
    }
}

/// True for a BCP 47 tag's shape: a primary language of 2 to 3 or 5 to 8
/// letters (or `x`/`i` and private use), then subtags of 1 to 8 letters or
/// digits, at most 35 characters in all.
fn well_formed(tag: &str) -> bool {
    if tag.is_empty() || tag.len() > MAX_TAG {
        return false;
    }
    let mut subtags = tag.split('-');
    let primary = subtags.next().unwrap_or_default();
    let letters = primary.bytes().all(|b| b.is_ascii_alphabetic());
    let primary_ok = letters && (matches!(primary.len(), 2 | 3 | 5..=8) || primary.eq_ignore_ascii_case("x"));
    primary_ok && subtags.all(|s| (1..=8).contains(&s.len()) && s.bytes().all(|b| b.is_ascii_alphanumeric()))
}

/// `0.9` as 900; `None` for anything but a quality of RFC 9110 (0 to 1, three decimals).
fn quality(q: &str) -> Option<u16> {
    let (whole, frac) = q.split_once('.').unwrap_or((q, ""));
    if frac.len() > 3 || !frac.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let thousandths: u16 = format!("{frac:0<3}").parse().ok()?;
    match whole {
        "0" => Some(thousandths),
        "1" if thousandths == 0 => Some(1000),
        _ => None,
    }
}

const EN_WEEKDAYS: [&str; 7] = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"];
const EN_MONTHS: [&str; 12] = [
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
];
const DE_WEEKDAYS: [&str; 7] = ["Montag", "Dienstag", "Mittwoch", "Donnerstag", "Freitag", "Samstag", "Sonntag"];
const DE_SHORT_WEEKDAYS: [&str; 7] = ["Mo.", "Di.", "Mi.", "Do.", "Fr.", "Sa.", "So."];
const DE_MONTHS: [&str; 12] = [
    "Januar",
    "Februar",
    "März",
    "April",
    "Mai",
    "Juni",
    "Juli",
    "August",
    "September",
    "Oktober",
    "November",
    "Dezember",
];
const DE_SHORT_MONTHS: [&str; 12] =
    ["Jan.", "Feb.", "März", "Apr.", "Mai", "Juni", "Juli", "Aug.", "Sept.", "Okt.", "Nov.", "Dez."];

impl fmt::Display for Locale {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl std::str::FromStr for Locale {
    type Err = MalformedTag;
    /// A built-in language's tag exactly (`en`, `de`), as stored.
    fn from_str(s: &str) -> Result<Self, MalformedTag> {
        Locale::ALL.into_iter().find(|l| l.as_str() == s).ok_or_else(|| MalformedTag(s.to_owned()))
    }
}

impl Serialize for Locale {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for Locale {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let s = <std::borrow::Cow<'de, str>>::deserialize(deserializer)?;
        s.parse().map_err(|_| serde::de::Error::custom(format!("{s:?} is not a language built in (en, de)")))
    }
}

/// `en` or `de`.
#[cfg(feature = "schemars")]
impl schemars::JsonSchema for Locale {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Locale".into()
    }

    fn inline_schema() -> bool {
        true
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({"type": "string", "enum": ["en", "de"], "examples": ["de"]})
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tags_read_into_a_language_built_in_or_none_or_a_fault() {
        let cases = [
            ("en", Ok(Some(Locale::En))),
            ("EN-us", Ok(Some(Locale::En))),
            ("de", Ok(Some(Locale::De))),
            ("de-DE-1996", Ok(Some(Locale::De))),
            ("fr", Ok(None)),
            ("zh-Hant-TW", Ok(None)),
            ("x-private", Ok(None)),
        ];
        for (tag, want) in cases {
            assert_eq!(Locale::from_tag(tag), want, "{tag}");
        }
        for bad in ["", "d", "de_DE", "de-", "-de", "deutsch!", "1de", "de-toolongsubtag", &"a".repeat(36)] {
            assert!(Locale::from_tag(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn accept_language_picks_the_best_quality_built_in() {
        let cases = [
            ("de-DE,de;q=0.9,en;q=0.8", Some(Locale::De)),
            ("en-GB,en;q=0.9,de;q=0.8", Some(Locale::En)),
            ("fr-FR, fr;q=0.9, de;q=0.5, en;q=0.4", Some(Locale::De)),
            ("en;q=0.5, de", Some(Locale::De)),
            ("de;q=0, en;q=0.1", Some(Locale::En)),
            ("fr, it", None),
            ("*", None),
            ("", None),
            ("de;q=2, en", Some(Locale::En)),
        ];
        for (header, want) in cases {
            assert_eq!(Locale::negotiate(header), want, "{header}");
        }
    }

    #[test]
    fn dates_and_money_are_written_the_language_s_way() {
        let d: NaiveDate = "2026-12-20".parse().unwrap();
        assert_eq!(Locale::En.long_date(d), "Sunday 20 December 2026");
        assert_eq!(Locale::En.short_date(d), "Sun 20 Dec 2026");
        assert_eq!(Locale::De.long_date(d), "Sonntag, 20. Dezember 2026");
        assert_eq!(Locale::De.short_date(d), "So., 20. Dez. 2026");
        assert_eq!(Locale::De.day_month(d), "20. Dezember");
        assert_eq!(Locale::De.month_year(d), "Dezember 2026");
        let money = [
            (123_450, "EUR", "1.234,50 €"),
            (5, "USD", "0,05 $"),
            (134_288, "CHF", "1.342,88 CHF"),
            (134_288, "JPY", "134.288 ¥"),
            (-100_000_000, "EUR", "-1.000.000,00 €"),
        ];
        for (amount, currency, want) in money {
            assert_eq!(Locale::De.money(amount, currency), want);
        }
        assert_eq!(Locale::En.money(123_450, "EUR"), "€1,234.50");
        let t = super::super::clock_time::ClockTime::parse("15:00").unwrap();
        assert_eq!(Locale::De.time(t, chrono_tz::America::New_York), "15:00 Uhr");
        assert_eq!(Locale::En.time(t, chrono_tz::America::New_York), "3:00 PM");
    }
}
