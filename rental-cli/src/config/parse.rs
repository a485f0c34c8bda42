//! The parsers of single setting values (durations, URLs, rates, booleans) and
//! the line-and-column form of a TOML error.

use std::time::Duration;

use crate::duration;

/// A duration where `0` turns the setting off.
pub(super) fn parse_duration(s: &str) -> Result<Option<Duration>, String> {
    let d = duration::parse(s).map_err(|e| e.to_string())?;
    Ok(Some(d).filter(|d| !d.is_zero()))
}

/// A duration that cannot be off: `0` is refused.
pub(super) fn parse_positive(s: &str) -> Result<Duration, String> {
    parse_duration(s)?.ok_or_else(|| format!("{s:?} must be longer than 0"))
}

pub(super) fn parse_base_url(s: &str) -> Result<String, String> {
    let s = s.trim();
    if (s.starts_with("http://") || s.starts_with("https://")) && !s.contains(char::is_whitespace) {
        Ok(s.trim_end_matches('/').to_owned())
    } else {
        Err(format!("{s:?} is not an http or https URL"))
    }
}

/// Requests per second, where `0` turns limiting off.
pub(super) fn parse_rate(s: &str) -> Result<Option<u32>, String> {
    let n: u32 =
        s.trim().parse().map_err(|_| format!("{s:?} is not a whole number of requests per second (0 for no limit)"))?;
    Ok(Some(n).filter(|n| *n > 0))
}

/// A PostgreSQL URL, or nothing (empty) for the redb store in the data directory.
pub(super) fn parse_database(s: &str) -> Result<Option<String>, String> {
    let s = s.trim();
    if s.is_empty() {
        Ok(None)
    } else if s.starts_with("postgres://") || s.starts_with("postgresql://") {
        Ok(Some(s.to_owned()))
    } else {
        Err("must be a postgres:// or postgresql:// URL, or empty for the redb store in dataDir".to_owned())
    }
}

pub(super) fn parse_bool(s: &str) -> Result<bool, String> {
    match s.trim().to_ascii_lowercase().as_str() {
        "true" | "1" | "yes" => Ok(true),
        "false" | "0" | "no" => Ok(false),
        _ => Err(format!("{s:?} is not true or false")),
    }
}

/// A TOML error on one line: the message and where it is.
pub fn toml_message(text: &str, error: &toml::de::Error) -> String {
    let message = error.message().trim().replace('\n', " ");
    match error.span() {
        Some(span) => {
            let (line, column) = line_and_column(text, span.start);
            format!("line {line}, column {column}: {message}")
        }
        None => message,
    }
}

fn line_and_column(text: &str, offset: usize) -> (usize, usize) {
    let before = &text[..offset.min(text.len())];
    let line = before.matches('\n').count() + 1;
    let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    (line, column)
}
