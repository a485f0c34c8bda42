//! One content line, `NAME;PARAM=VALUE;PARAM="QUOTED":VALUE`, split into its parts, and TEXT unescaping.
//! Names are case-insensitive, so they are upper-cased here; values are trimmed.

use std::borrow::Cow;

/// A property as read from one logical line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Property {
    /// The property name, upper-cased.
    pub name: String,
    /// Parameters in order: upper-cased name, value without its quotes.
    pub params: Vec<(String, String)>,
    /// The raw value, trimmed, still escaped.
    pub value: String,
}

impl Property {
    /// The value of parameter `name` (upper-case), if present.
    pub fn param(&self, name: &str) -> Option<&str> {
        self.params.iter().find(|(key, _)| key == name).map(|(_, value)| value.as_str())
    }
}

/// The upper-cased name of a content line, read without parsing the rest
/// (and without allocating when it is already upper case, as it nearly always is).
pub(crate) fn name_of(line: &str) -> Cow<'_, str> {
    let end = line.find([';', ':']).unwrap_or(line.len());
    let name = line[..end].trim();
    if name.bytes().any(|b| b.is_ascii_lowercase()) {
        Cow::Owned(name.to_ascii_uppercase())
    } else {
        Cow::Borrowed(name)
    }
}

/// Splits a content line; `None` when it has no `:` outside quotes (not a property).
pub(crate) fn parse_line(line: &str) -> Option<Property> {
    let name_end = line.find([';', ':'])?;
    let name = line[..name_end].trim().to_ascii_uppercase();
    if name.is_empty() {
        return None;
    }
    let mut params = Vec::new();
    let mut rest = &line[name_end..];
    while let Some(after) = rest.strip_prefix(';') {
        let (param, remaining) = split_param(after)?;
        params.push(param);
        rest = remaining;
    }
    let value = rest.strip_prefix(':')?;
    Some(Property { name, params, value: value.trim().to_owned() })
}

/// One `NAME=VALUE` parameter at the start of `text`; returns it and what follows it.
fn split_param(text: &str) -> Option<((String, String), &str)> {
    let eq = text.find(['=', ';', ':'])?;
    let key = text[..eq].trim().to_ascii_uppercase();
    if text.as_bytes()[eq] != b'=' {
        return Some(((key, String::new()), &text[eq..]));
    }
    let mut value = String::new();
    let mut rest = &text[eq + 1..];
    loop {
        if let Some(quoted) = rest.strip_prefix('"') {
            let close = quoted.find('"')?;
            value.push_str(&quoted[..close]);
            rest = &quoted[close + 1..];
        } else {
            let end = rest.find([';', ':', ',']).unwrap_or(rest.len());
            value.push_str(rest[..end].trim());
            rest = &rest[end..];
        }
        match rest.strip_prefix(',') {
            Some(next) => {
                value.push(',');
                rest = next;
            }
            None => break,
        }
    }
    Some(((key, value), rest))
}

/// A TEXT value with its escapes (`\\` `\,` `\;` `\n` `\N`) resolved, then trimmed.
pub(crate) fn unescape_text(raw: &str) -> String {
    let mut out = String::with_capacity(raw.len());
    let mut chars = raw.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('n' | 'N') => out.push('\n'),
            Some(other) => out.push(other),
            None => out.push('\\'),
        }
    }
    out.trim().to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn prop(line: &str) -> Property {
        parse_line(line).expect("a property")
    }

    #[test]
    fn names_and_parameter_names_are_upper_cased() {
        let p = prop("dtstart;value=date:20260101");
        assert_eq!(p.name, "DTSTART");
        assert_eq!(p.param("VALUE"), Some("date"));
        assert_eq!(p.value, "20260101");
    }

    #[test]
    fn quoted_parameter_values_may_hold_colons_and_semicolons() {
        let p = prop(r#"ATTENDEE;CN="Doe; John: the host";ROLE=CHAIR:mailto:j@example.com"#);
        assert_eq!(p.param("CN"), Some("Doe; John: the host"));
        assert_eq!(p.param("ROLE"), Some("CHAIR"));
        assert_eq!(p.value, "mailto:j@example.com");
    }

    #[test]
    fn a_quoted_tzid_loses_its_quotes() {
        assert_eq!(prop(r#"DTSTART;TZID="Europe/Paris":20260101T100000"#).param("TZID"), Some("Europe/Paris"));
    }

    #[test]
    fn multi_valued_parameters_are_kept_together() {
        assert_eq!(prop("X;MEMBER=\"a:b\",\"c\":v").param("MEMBER"), Some("a:b,c"));
    }

    #[test]
    fn the_value_is_trimmed_and_may_hold_colons() {
        assert_eq!(prop("SUMMARY;LANGUAGE=en-us: BOOKED ").value, "BOOKED");
        assert_eq!(prop("URL:https://example.com/a?b=c").value, "https://example.com/a?b=c");
    }

    #[test]
    fn lines_without_a_value_are_not_properties() {
        assert_eq!(parse_line("garbage"), None);
        assert_eq!(parse_line(":value"), None);
        assert_eq!(parse_line("X;P=\"unclosed:v"), None);
    }

    #[test]
    fn text_escapes_are_resolved() {
        assert_eq!(unescape_text(r"a\, b\; c\nd\\e\Nf"), "a, b; c\nd\\e\nf");
        assert_eq!(unescape_text(r"  Caf\,e  "), "Caf,e");
        assert_eq!(unescape_text("trailing\\"), "trailing\\");
    }

    #[test]
    fn name_of_reads_only_the_name() {
        assert_eq!(name_of("begin:vevent"), "BEGIN");
        assert_eq!(name_of("DTSTART;TZID=X:1"), "DTSTART");
    }
}
