//! One content line, `NAME;PARAM=VALUE;PARAM="QUOTED":VALUE`, split into its parts, and TEXT unescaping.
//! Names are case-insensitive, so they are upper-cased here; values are trimmed.

use std::borrow::Cow;

/// A property as read from one logical line, borrowing from it where it can.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Property<'a> {
    /// The property name, upper-cased.
    pub name: Cow<'a, str>,
    /// Parameters in order: upper-cased name, value without its quotes.
    pub params: Vec<(Cow<'a, str>, Cow<'a, str>)>,
    /// The raw value, trimmed, still escaped.
    pub value: Cow<'a, str>,
}

impl Property<'_> {
    /// The value of parameter `name` (upper-case), if present.
    pub fn param(&self, name: &str) -> Option<&str> {
        self.params.iter().find(|(key, _)| key == name).map(|(_, value)| &**value)
    }

    /// The same property, owning its text.
    pub fn into_owned(self) -> Property<'static> {
        let own = |text: Cow<'_, str>| Cow::Owned(text.into_owned());
        Property {
            name: own(self.name),
            params: self.params.into_iter().map(|(key, value)| (own(key), own(value))).collect(),
            value: own(self.value),
        }
    }
}

/// `text` upper-cased, borrowed when it already is (as names nearly always are).
pub(crate) fn upper(text: &str) -> Cow<'_, str> {
    if text.bytes().any(|b| b.is_ascii_lowercase()) {
        Cow::Owned(text.to_ascii_uppercase())
    } else {
        Cow::Borrowed(text)
    }
}

/// The upper-cased name of a content line, read without parsing the rest.
pub(crate) fn name_of(line: &str) -> Cow<'_, str> {
    let end = line.find([';', ':']).unwrap_or(line.len());
    upper(line[..end].trim_ascii())
}

/// Splits a decoded line, borrowing from it when it is borrowed from the body.
pub(crate) fn parse_text(text: Cow<'_, str>) -> Option<Property<'_>> {
    match text {
        Cow::Borrowed(line) => parse_line(line),
        Cow::Owned(line) => parse_line(&line).map(Property::into_owned),
    }
}

/// Splits a content line; `None` when it has no `:` outside quotes (not a property).
pub(crate) fn parse_line(line: &str) -> Option<Property<'_>> {
    let name_end = memchr::memchr2(b';', b':', line.as_bytes())?;
    let name = upper(line[..name_end].trim_ascii());
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
    Some(Property { name, params, value: Cow::Borrowed(value.trim_ascii()) })
}

/// A parameter's name and value.
type Param<'a> = (Cow<'a, str>, Cow<'a, str>);

/// One `NAME=VALUE` parameter at the start of `text`; returns it and what follows it.
fn split_param(text: &str) -> Option<(Param<'_>, &str)> {
    let eq = memchr::memchr3(b'=', b';', b':', text.as_bytes())?;
    let key = upper(text[..eq].trim_ascii());
    if text.as_bytes()[eq] != b'=' {
        return Some(((key, Cow::Borrowed("")), &text[eq..]));
    }
    let mut value: Option<Cow<'_, str>> = None;
    let mut rest = &text[eq + 1..];
    loop {
        let part;
        if let Some(quoted) = rest.strip_prefix('"') {
            let close = memchr::memchr(b'"', quoted.as_bytes())?;
            part = &quoted[..close];
            rest = &quoted[close + 1..];
        } else {
            let end = rest.bytes().position(|b| matches!(b, b';' | b':' | b',')).unwrap_or(rest.len());
            part = rest[..end].trim_ascii();
            rest = &rest[end..];
        }
        value = Some(match value {
            None => Cow::Borrowed(part),
            Some(before) => {
                let mut joined = before.into_owned();
                joined.push(',');
                joined.push_str(part);
                Cow::Owned(joined)
            }
        });
        match rest.strip_prefix(',') {
            Some(next) => rest = next,
            None => break,
        }
    }
    Some(((key, value.unwrap_or_default()), rest))
}

/// A TEXT value with its escapes (`\\` `\,` `\;` `\n` `\N`) resolved, then trimmed.
pub(crate) fn unescape_text(raw: &str) -> String {
    if !raw.contains('\\') {
        return raw.trim().to_owned();
    }
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

    fn prop(line: &str) -> Property<'_> {
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
    fn a_parameter_with_very_many_values_is_read_in_linear_time() {
        let line = format!("X;MEMBER={}:v", "a,".repeat(500_000));
        assert_eq!(prop(&line).param("MEMBER").map(str::len), Some(1_000_000));
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
