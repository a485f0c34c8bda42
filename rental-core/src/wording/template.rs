//! The wording of messages: a built-in subject, text and HTML for each kind,
//! and a property's own (`messages`), written in a sandboxed template language.
//! (The variables a booking gives a template are `message::template::context`.)
//!
//! Host-written templates run in minijinja with a fuel limit (no loop can run
//! away), strict undefined variables (a misspelt name is an error) and no
//! loader (no file is ever read). They are checked when the property is
//! saved, each variable against the list of its kind, so a send never fails
//! on wording. HTML parts escape every value; a subject is made one line
//! after rendering, so no input can add a header line.

use std::collections::{BTreeMap, HashSet};
use std::fmt::Write as _;

use minijinja::value::{Serde, Value};
use serde::{Deserialize, Serialize};

use crate::basics::field_error::FieldError;
use crate::basics::locale::Locale;

use super::{MessageKind, compiled, sample};

/// The longest template part accepted, in bytes.
pub const MAX_TEMPLATE_BYTES: usize = 20_000;
/// The most one rendered part may hold, in bytes: a message, not a payload.
const MAX_OUTPUT_BYTES: usize = 1_000_000;
/// The longest subject sent, in characters.
const MAX_SUBJECT_CHARS: usize = 250;

/// A property's own wording for one kind (property field `messages`); a part
/// left out keeps the built-in one.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct MessageTemplate {
    /// The subject line.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub subject: Option<String>,
    /// The plain-text part (line breaks as sent become LF).
    #[serde(default, skip_serializing_if = "Option::is_none", deserialize_with = "paragraphs")]
    pub text: Option<String>,
    /// The HTML part (values are escaped; line breaks as sent become LF).
    #[serde(default, skip_serializing_if = "Option::is_none", deserialize_with = "paragraphs")]
    pub html: Option<String>,
    /// False: this kind is not sent for the property (recorded `skipped`, `disabled`).
    #[serde(default = "yes")]
    pub enabled: bool,
    /// The wording for bookings in other languages than the property's
    /// (`{"de": {"subject": …}}`); the parts above are the property's language's.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub locales: BTreeMap<Locale, Wording>,
}

/// A property's own wording of one kind in one language (`messages.{kind}.locales.{tag}`);
/// a part left out is the built-in one of that language.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Wording {
    /// The subject line.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub subject: Option<String>,
    /// The plain-text part (line breaks as sent become LF).
    #[serde(default, skip_serializing_if = "Option::is_none", deserialize_with = "paragraphs")]
    pub text: Option<String>,
    /// The HTML part (values are escaped; line breaks as sent become LF).
    #[serde(default, skip_serializing_if = "Option::is_none", deserialize_with = "paragraphs")]
    pub html: Option<String>,
}

/// The host's parts of one kind in one language, as a message renders them;
/// `None`: the built-in part of that language.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Parts<'a> {
    /// The subject's template.
    pub subject: Option<&'a str>,
    /// The plain text's template.
    pub text: Option<&'a str>,
    /// The HTML's template.
    pub html: Option<&'a str>,
}

impl MessageTemplate {
    /// The parts for a booking in `locale` at a property whose language is
    /// `language`: the top parts in that language, those under `locales` in another.
    pub fn parts(&self, locale: Locale, language: Locale) -> Parts<'_> {
        if locale == language {
            return Parts { subject: self.subject.as_deref(), text: self.text.as_deref(), html: self.html.as_deref() };
        }
        self.locales.get(&locale).map(Wording::parts).unwrap_or_default()
    }
}

impl Wording {
    fn parts(&self) -> Parts<'_> {
        Parts { subject: self.subject.as_deref(), text: self.text.as_deref(), html: self.html.as_deref() }
    }
}

fn yes() -> bool {
    true
}

/// A body as a browser's text area or a client sends it, CRLF and CR made LF.
fn paragraphs<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<String>, D::Error> {
    let body = Option::<String>::deserialize(d)?;
    Ok(body.map(|b| crate::basics::text::paragraphs(&b).into_owned()))
}

/// One part of a message.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Part {
    /// The subject line.
    Subject,
    /// The plain-text body.
    Text,
    /// The HTML body.
    Html,
}

impl Part {
    /// Every part.
    pub const ALL: [Part; 3] = [Part::Subject, Part::Text, Part::Html];

    /// The field's name in JSON.
    pub fn as_str(self) -> &'static str {
        match self {
            Part::Subject => "subject",
            Part::Text => "text",
            Part::Html => "html",
        }
    }

    fn of(self, parts: Parts<'_>) -> Option<&str> {
        match self {
            Part::Subject => parts.subject,
            Part::Text => parts.text,
            Part::Html => parts.html,
        }
    }
}

/// A message's three parts, rendered.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rendered {
    /// One line, no control characters.
    pub subject: String,
    /// The plain-text part.
    pub text: String,
    /// The HTML part.
    pub html: String,
}

/// Why a template did not render: only a template saved before these checks
/// existed, or one that ran out of fuel on real data, can get here.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("the {kind} {part} template failed: {detail}")]
pub struct TemplateError {
    /// The kind.
    pub kind: MessageKind,
    /// The part.
    pub part: &'static str,
    /// What the engine said.
    pub detail: String,
}

/// The variables every kind's templates may use.
pub const COMMON_VARIABLES: [&str; 15] = [
    "guest_name",
    "guest_email",
    "booking_code",
    "property_name",
    "check_in",
    "check_out",
    "check_in_time",
    "check_out_time",
    "nights",
    "guests",
    "total",
    "contact_email",
    "booking_page_url",
    "status",
    "stay_url",
];

/// The variables a kind's templates may use beyond [`COMMON_VARIABLES`].
pub fn kind_variables(kind: MessageKind) -> &'static [&'static str] {
    match kind {
        MessageKind::HostRequest => &["notes", "source"],
        MessageKind::HostRequestExpiring => &["source"],
        MessageKind::Cancelled => &["cancel_reason", "expired"],
        MessageKind::PaymentFailed => &["balance_due"],
        MessageKind::CheckInInstructions => &["door_code", "access_from", "access_until", "wifi_name", "arrival_notes"],
        _ => &[],
    }
}

/// True when `kind`'s templates may use `name`.
pub fn allows(kind: MessageKind, name: &str) -> bool {
    COMMON_VARIABLES.contains(&name) || kind_variables(kind).contains(&name)
}

/// The built-in English template of `kind`'s `part` (see [`builtin_in`]).
pub fn builtin(kind: MessageKind, part: Part) -> &'static str {
    builtin_in(Locale::En, kind, part)
}

/// The built-in template of `kind`'s `part` in `locale`.
pub fn builtin_in(locale: Locale, kind: MessageKind, part: Part) -> &'static str {
    let [subject, text, html] = match locale {
        Locale::En => super::builtin_en::wording(kind),
        Locale::De => super::builtin_de::wording(kind),
    };
    match part {
        Part::Subject => subject,
        Part::Text => text,
        Part::Html => html,
    }
}
/// The name a part is checked under: a name ending in `.html` escapes.
fn template_name(part: Part) -> &'static str {
    match part {
        Part::Html => "part.html",
        Part::Subject | Part::Text => "part.txt",
    }
}

/// The faults of a property's `messages`, each on its field
/// (`messages.check_in_instructions.subject`): a refused character, a part
/// too long, a syntax error, a variable the kind does not have, or an error
/// when rendered with sample data.
pub fn check(messages: &BTreeMap<MessageKind, MessageTemplate>) -> Vec<FieldError> {
    let env = compiled::sandbox();
    let mut errors = Vec::new();
    for (kind, template) in messages {
        let sample = sample::context(*kind);
        let top = (
            "",
            Parts {
                subject: template.subject.as_deref(),
                text: template.text.as_deref(),
                html: template.html.as_deref(),
            },
        );
        let others = template.locales.iter().map(|(l, w)| (l.as_str(), w.parts()));
        for ((locale, parts), part) in std::iter::once(top).chain(others).flat_map(|lp| Part::ALL.map(|p| (lp, p))) {
            let Some(source) = part.of(parts) else { continue };
            let field = match locale {
                "" => format!("messages.{kind}.{}", part.as_str()),
                tag => format!("messages.{kind}.locales.{tag}.{}", part.as_str()),
            };
            if let Some(e) = check_characters(&field, part, source) {
                errors.push(e);
                continue;
            }
            if source.len() > MAX_TEMPLATE_BYTES {
                errors.push(FieldError::new(&field, "invalid", format!("must be at most {MAX_TEMPLATE_BYTES} bytes")));
                continue;
            }
            let compiled = match env.template_from_named_str(template_name(part), source) {
                Ok(t) => t,
                Err(e) => {
                    errors.push(FieldError::new(&field, "invalid_template", describe(&e)));
                    continue;
                }
            };
            let globals: HashSet<&str> = env.globals().map(|(name, _)| name).collect();
            let mut unknown: Vec<String> = compiled
                .undeclared_variables(false)
                .into_iter()
                .filter(|v| !allows(*kind, v) && !globals.contains(v.as_str()))
                .collect();
            unknown.sort();
            if let Some(name) = unknown.first() {
                let message = format!("unknown variable {name:?} for {kind}; known: {}", known(*kind));
                errors.push(FieldError::new(&field, "unknown_variable", message));
                continue;
            }
            match compiled.render(Value::from(Serde(&sample))) {
                Err(e) => errors.push(FieldError::new(&field, "invalid_template", describe(&e))),
                Ok(out) if out.len() > MAX_OUTPUT_BYTES => {
                    errors.push(FieldError::new(&field, "invalid_template", "renders to more than 1 MB"));
                }
                Ok(_) => {}
            }
        }
    }
    errors
}

/// A subject is one line; bodies may break lines with `\n` (a body read from
/// JSON has its CRLF made LF already). Neither takes any
/// other character the free-text rule refuses ([`crate::text`]).
fn check_characters(field: &str, part: Part, source: &str) -> Option<FieldError> {
    match part {
        Part::Subject => crate::basics::text::field_error(field, source),
        Part::Text | Part::Html => source.chars().any(|c| c != '\n' && crate::basics::text::is_refused(c)).then(|| {
            FieldError::new(
                field,
                crate::basics::text::CONTROL_CHARACTER,
                "must not contain control characters other than tab and line feed",
            )
        }),
    }
}

fn known(kind: MessageKind) -> String {
    COMMON_VARIABLES.iter().chain(kind_variables(kind)).copied().collect::<Vec<_>>().join(", ")
}

fn describe(e: &minijinja::Error) -> String {
    let mut s = e.kind().to_string();
    if let Some(detail) = e.detail() {
        s.push_str(": ");
        s.push_str(detail);
    }
    if let Some(line) = e.line() {
        let _ = write!(s, " (line {line})");
    }
    s
}

/// Renders `kind` in `locale` with `context`: each part from the property's
/// template of that language (`custom`, see [`MessageTemplate::parts`]) where
/// it has one, else the built-in one of `locale`. The subject comes out as
/// one line of at most 250 characters. Each template is compiled once per
/// process (a property's own once per source).
pub fn render(
    locale: Locale,
    kind: MessageKind,
    custom: Option<Parts<'_>>,
    context: &BTreeMap<&'static str, serde_json::Value>,
) -> Result<Rendered, TemplateError> {
    let value = Value::from(Serde(context));
    let custom = custom.unwrap_or_default();
    Ok(Rendered {
        subject: one_line(&render_part(locale, kind, Part::Subject, custom, |_| value.clone())?),
        text: render_part(locale, kind, Part::Text, custom, |_| value.clone())?,
        html: render_part(locale, kind, Part::Html, custom, |_| value)?,
    })
}

/// The subject alone of [`render`]: what a message records when it is made.
pub fn subject(
    locale: Locale,
    kind: MessageKind,
    custom: Option<Parts<'_>>,
    context: &BTreeMap<&'static str, serde_json::Value>,
) -> Result<String, TemplateError> {
    let value = Value::from(Serde(context));
    Ok(one_line(&render_part(locale, kind, Part::Subject, custom.unwrap_or_default(), |_| value)?))
}

/// [`subject`] from only the variables its template reads: `context` is
/// asked for each by name (a message records its subject in the booking's
/// write, where building and converting every variable was most of its cost).
/// Should that fail, the subject is rendered again with every variable, so
/// the outcome is [`subject`]'s.
pub(crate) fn subject_with(
    locale: Locale,
    kind: MessageKind,
    custom: Option<Parts<'_>>,
    context: impl Fn(&dyn Fn(&str) -> bool) -> BTreeMap<&'static str, serde_json::Value>,
) -> Result<String, TemplateError> {
    let custom = custom.unwrap_or_default();
    let read = |names: &HashSet<String>| Value::from(Serde(context(&|name| names.contains(name))));
    match render_part(locale, kind, Part::Subject, custom, read) {
        Ok(out) => Ok(one_line(&out)),
        Err(_) => subject(locale, kind, Some(custom), &context(&|_| true)),
    }
}

fn render_part(
    locale: Locale,
    kind: MessageKind,
    part: Part,
    custom: Parts<'_>,
    value: impl FnOnce(&HashSet<String>) -> Value,
) -> Result<String, TemplateError> {
    let out = compiled::render_part(locale, kind, part, part.of(custom), value).map_err(|e| TemplateError {
        kind,
        part: part.as_str(),
        detail: describe(&e),
    })?;
    if out.len() > MAX_OUTPUT_BYTES {
        return Err(TemplateError { kind, part: part.as_str(), detail: "renders to more than 1 MB".into() });
    }
    Ok(out)
}

/// `s` as one header-safe line: every control character, line or paragraph
/// separator and bidirectional mark becomes a space, runs of spaces become
/// one, and it is cut to 250 characters.
///
/// ```
/// use rental_core::message::template::one_line;
/// assert_eq!(one_line("Sea\r\nBcc: x@y\u{2028}z  "), "Sea Bcc: x@y z");
/// ```
pub fn one_line(s: &str) -> String {
    let breaks = |c: char| c == ' ' || c.is_control() || crate::basics::text::is_refused(c);
    let mut out = String::with_capacity(s.len());
    for word in s.split(breaks).filter(|w| !w.is_empty()) {
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(word);
    }
    if let Some((cut, _)) = out.char_indices().nth(MAX_SUBJECT_CHARS) {
        out.truncate(cut);
    }
    out
}

/// Which names a template reads, for the admin's list of variables.
pub fn variables_of(kind: MessageKind) -> HashSet<&'static str> {
    COMMON_VARIABLES.iter().chain(kind_variables(kind)).copied().collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn custom(subject: &str, text: &str, html: &str) -> MessageTemplate {
        let opt = |s: &str| (!s.is_empty()).then(|| s.to_owned());
        MessageTemplate {
            subject: opt(subject),
            text: opt(text),
            html: opt(html),
            enabled: true,
            locales: BTreeMap::new(),
        }
    }

    #[test]
    fn a_fault_is_refused_on_its_field_naming_what_is_wrong() {
        let cases = [
            (
                MessageKind::Confirmed,
                custom("Hi {{ guest_nam }}", "", ""),
                "messages.confirmed.subject",
                "unknown_variable",
            ),
            (MessageKind::Confirmed, custom("", "{{ door_code }}", ""), "messages.confirmed.text", "unknown_variable"),
            (MessageKind::Changed, custom("", "", "{% if %}"), "messages.changed.html", "invalid_template"),
            (MessageKind::Changed, custom("a\nb", "", ""), "messages.changed.subject", "control_character"),
            (MessageKind::Changed, custom("", "a\r\nBcc: x", ""), "messages.changed.text", "control_character"),
            (
                MessageKind::Changed,
                custom("", "{% for i in range(100000) %}{{ i }}{% endfor %}", ""),
                "messages.changed.text",
                "invalid_template",
            ),
            (MessageKind::Changed, custom("", "{{ 'x' * 5000000 }}", ""), "messages.changed.text", "invalid_template"),
        ];
        for (kind, template, field, code) in cases {
            let errors = check(&BTreeMap::from([(kind, template)]));
            assert_eq!(errors.len(), 1, "{field}: {errors:?}");
            assert_eq!((errors[0].field.as_str(), errors[0].code), (field, code), "{errors:?}");
        }
        let ok = custom("Door {{ door_code }}", "Notes:\n{{ arrival_notes }}\n", "");
        assert!(check(&BTreeMap::from([(MessageKind::CheckInInstructions, ok)])).is_empty());
    }
}
