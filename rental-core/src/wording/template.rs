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

    fn of(self, template: &MessageTemplate) -> Option<&str> {
        match self {
            Part::Subject => template.subject.as_deref(),
            Part::Text => template.text.as_deref(),
            Part::Html => template.html.as_deref(),
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

/// The built-in template of `kind`'s `part`.
pub fn builtin(kind: MessageKind, part: Part) -> &'static str {
    let [subject, text, html] = builtins(kind);
    match part {
        Part::Subject => subject,
        Part::Text => text,
        Part::Html => html,
    }
}

fn builtins(kind: MessageKind) -> [&'static str; 3] {
    match kind {
        MessageKind::RequestReceived => [
            "We received your request for {{ property_name }}",
            "Hello {{ guest_name }},\n\nthank you for your request to stay at {{ property_name }} from {{ check_in }} to {{ check_out }} ({{ nights }} night{% if nights != 1 %}s{% endif %}, {{ guests }} guest{% if guests != 1 %}s{% endif %}, {{ total }}). Your booking code is {{ booking_code }}.\n\nThe host will confirm it shortly; we will write again then.\n{% if stay_url %}\nYour stay page, with everything about your booking: {{ stay_url }}\n{% endif %}",
            "<p>Hello {{ guest_name }},</p><p>thank you for your request to stay at <b>{{ property_name }}</b> from {{ check_in }} to {{ check_out }} ({{ nights }} night{% if nights != 1 %}s{% endif %}, {{ guests }} guest{% if guests != 1 %}s{% endif %}, {{ total }}). Your booking code is <b>{{ booking_code }}</b>.</p><p>The host will confirm it shortly; we will write again then.</p>{% if stay_url %}<p>Your stay page, with everything about your booking: <a href=\"{{ stay_url }}\">{{ stay_url }}</a></p>{% endif %}",
        ],
        MessageKind::HostRequest => [
            "New request {{ booking_code }} for {{ property_name }}",
            "A new request for {{ property_name }} came in ({{ source }}):\n\n{{ guest_name }} <{{ guest_email }}>\n{{ check_in }} to {{ check_out }}, {{ nights }} night{% if nights != 1 %}s{% endif %}, {{ guests }} guest{% if guests != 1 %}s{% endif %}, {{ total }}\nCode {{ booking_code }}\n{% if notes %}Notes: {{ notes }}\n{% endif %}",
            "<p>A new request for <b>{{ property_name }}</b> came in ({{ source }}):</p><p>{{ guest_name }} &lt;{{ guest_email }}&gt;<br>{{ check_in }} to {{ check_out }}, {{ nights }} night{% if nights != 1 %}s{% endif %}, {{ guests }} guest{% if guests != 1 %}s{% endif %}, {{ total }}<br>Code <b>{{ booking_code }}</b></p>{% if notes %}<p>Notes: {{ notes }}</p>{% endif %}",
        ],
        MessageKind::HostRequestExpiring => [
            "Request {{ booking_code }} for {{ property_name }} lapses in two hours",
            "The request {{ booking_code }} for {{ property_name }} ({{ source }}) has no answer yet:\n\n{{ check_in }} to {{ check_out }}, {{ nights }} night{% if nights != 1 %}s{% endif %}, {{ guests }} guest{% if guests != 1 %}s{% endif %}, {{ total }}\n\nIn two hours it lapses and its nights are free again. Confirm or decline it in the admin's pending requests before then.\n",
            "<p>The request <b>{{ booking_code }}</b> for <b>{{ property_name }}</b> ({{ source }}) has no answer yet:</p><p>{{ check_in }} to {{ check_out }}, {{ nights }} night{% if nights != 1 %}s{% endif %}, {{ guests }} guest{% if guests != 1 %}s{% endif %}, {{ total }}</p><p>In two hours it lapses and its nights are free again. Confirm or decline it in the admin's pending requests before then.</p>",
        ],
        MessageKind::Confirmed => [
            "Your stay at {{ property_name }} is confirmed",
            "Hello {{ guest_name }},\n\nyour stay at {{ property_name }} from {{ check_in }} to {{ check_out }} is confirmed ({{ nights }} night{% if nights != 1 %}s{% endif %}, {{ guests }} guest{% if guests != 1 %}s{% endif %}, {{ total }}). Booking code: {{ booking_code }}.\n\nCheck-in is from {{ check_in_time }}, check-out by {{ check_out_time }}. We will send the arrival details before you come.\n{% if stay_url %}\nYour stay page, with everything about your booking: {{ stay_url }}\n{% endif %}",
            "<p>Hello {{ guest_name }},</p><p>your stay at <b>{{ property_name }}</b> from {{ check_in }} to {{ check_out }} is confirmed ({{ nights }} night{% if nights != 1 %}s{% endif %}, {{ guests }} guest{% if guests != 1 %}s{% endif %}, {{ total }}). Booking code: <b>{{ booking_code }}</b>.</p><p>Check-in is from {{ check_in_time }}, check-out by {{ check_out_time }}. We will send the arrival details before you come.</p>{% if stay_url %}<p>Your stay page, with everything about your booking: <a href=\"{{ stay_url }}\">{{ stay_url }}</a></p>{% endif %}",
        ],
        MessageKind::Changed => [
            "Your booking {{ booking_code }} has changed",
            "Hello {{ guest_name }},\n\nyour booking at {{ property_name }} now reads: {{ check_in }} to {{ check_out }}, {{ nights }} night{% if nights != 1 %}s{% endif %}, {{ guests }} guest{% if guests != 1 %}s{% endif %}, {{ total }}.\n{% if stay_url %}\nYour stay page, with everything about your booking: {{ stay_url }}\n{% endif %}",
            "<p>Hello {{ guest_name }},</p><p>your booking at <b>{{ property_name }}</b> now reads: {{ check_in }} to {{ check_out }}, {{ nights }} night{% if nights != 1 %}s{% endif %}, {{ guests }} guest{% if guests != 1 %}s{% endif %}, {{ total }}.</p>{% if stay_url %}<p>Your stay page, with everything about your booking: <a href=\"{{ stay_url }}\">{{ stay_url }}</a></p>{% endif %}",
        ],
        MessageKind::Cancelled => [
            "{% if expired %}Your request {{ booking_code }} has lapsed{% else %}Your booking {{ booking_code }} is cancelled{% endif %}",
            "Hello {{ guest_name }},\n\n{% if expired %}your request to stay at {{ property_name }} from {{ check_in }} to {{ check_out }} lapsed: the host did not answer it in time, and the nights are free again. You are welcome to ask again.{% else %}your booking at {{ property_name }} from {{ check_in }} to {{ check_out }} is cancelled.{% if cancel_reason %} Reason: {{ cancel_reason }}{% endif %}{% endif %}\n{% if stay_url %}\nYour stay page, with everything about your booking: {{ stay_url }}\n{% endif %}",
            "<p>Hello {{ guest_name }},</p><p>{% if expired %}your request to stay at <b>{{ property_name }}</b> from {{ check_in }} to {{ check_out }} lapsed: the host did not answer it in time, and the nights are free again. You are welcome to ask again.{% else %}your booking at <b>{{ property_name }}</b> from {{ check_in }} to {{ check_out }} is cancelled.{% if cancel_reason %} Reason: {{ cancel_reason }}{% endif %}{% endif %}</p>{% if stay_url %}<p>Your stay page, with everything about your booking: <a href=\"{{ stay_url }}\">{{ stay_url }}</a></p>{% endif %}",
        ],
        MessageKind::CheckInInstructions => [
            "Arriving at {{ property_name }}: your door code",
            "Hello {{ guest_name }},\n\nyou arrive at {{ property_name }} on {{ check_in }}; check-in is from {{ check_in_time }}.\n\nDoor code: {{ door_code }}\nIt opens the door from {{ access_from }} until {{ access_until }}.\n{% if wifi_name %}Wi-Fi: {{ wifi_name }}\n{% endif %}{% if arrival_notes %}\n{{ arrival_notes }}\n{% endif %}\nSafe travels!\n{% if stay_url %}\nYour stay page, with everything about your booking: {{ stay_url }}\n{% endif %}",
            "<p>Hello {{ guest_name }},</p><p>you arrive at <b>{{ property_name }}</b> on {{ check_in }}; check-in is from {{ check_in_time }}.</p><p>Door code: <b>{{ door_code }}</b><br>It opens the door from {{ access_from }} until {{ access_until }}.</p>{% if wifi_name %}<p>Wi-Fi: {{ wifi_name }}</p>{% endif %}{% if arrival_notes %}<p style=\"white-space: pre-line\">{{ arrival_notes }}</p>{% endif %}<p>Safe travels!</p>{% if stay_url %}<p>Your stay page, with everything about your booking: <a href=\"{{ stay_url }}\">{{ stay_url }}</a></p>{% endif %}",
        ],
        MessageKind::CheckOutReminder => [
            "Check-out on {{ check_out }} by {{ check_out_time }}",
            "Hello {{ guest_name }},\n\na reminder that check-out from {{ property_name }} is on {{ check_out }} by {{ check_out_time }}. Thank you for staying with us!\n{% if stay_url %}\nYour stay page, with everything about your booking: {{ stay_url }}\n{% endif %}",
            "<p>Hello {{ guest_name }},</p><p>a reminder that check-out from <b>{{ property_name }}</b> is on {{ check_out }} by {{ check_out_time }}. Thank you for staying with us!</p>{% if stay_url %}<p>Your stay page, with everything about your booking: <a href=\"{{ stay_url }}\">{{ stay_url }}</a></p>{% endif %}",
        ],
        MessageKind::PaymentFailed => [
            "Your payment for {{ property_name }} did not go through",
            "Hello {{ guest_name }},\n\nwe could not take the payment due for your stay at {{ property_name }} from {{ check_in }} to {{ check_out }} (booking {{ booking_code }}): your bank refused it. {{ balance_due }} is still to pay.\n\nPlease pay it on your stay page, with this card or another one; a booking left unpaid is cancelled under its cancellation policy.\n{% if stay_url %}\nYour stay page: {{ stay_url }}\n{% endif %}",
            "<p>Hello {{ guest_name }},</p><p>we could not take the payment due for your stay at <b>{{ property_name }}</b> from {{ check_in }} to {{ check_out }} (booking <b>{{ booking_code }}</b>): your bank refused it. {{ balance_due }} is still to pay.</p><p>Please pay it on your stay page, with this card or another one; a booking left unpaid is cancelled under its cancellation policy.</p>{% if stay_url %}<p>Your stay page: <a href=\"{{ stay_url }}\">{{ stay_url }}</a></p>{% endif %}",
        ],
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
        for part in Part::ALL {
            let Some(source) = part.of(template) else { continue };
            let field = format!("messages.{kind}.{}", part.as_str());
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

/// Renders `kind` with `context`: each part from the property's template
/// (`custom`) where it has one, else the built-in one. The subject comes out
/// as one line of at most 250 characters. Each template is compiled once
/// per process (a property's own once per source).
pub fn render(
    kind: MessageKind,
    custom: Option<&MessageTemplate>,
    context: &BTreeMap<&'static str, serde_json::Value>,
) -> Result<Rendered, TemplateError> {
    let value = Value::from(Serde(context));
    Ok(Rendered {
        subject: one_line(&render_part(kind, Part::Subject, custom, &value)?),
        text: render_part(kind, Part::Text, custom, &value)?,
        html: render_part(kind, Part::Html, custom, &value)?,
    })
}

/// The subject alone of [`render`]: what a message records when it is made.
pub fn subject(
    kind: MessageKind,
    custom: Option<&MessageTemplate>,
    context: &BTreeMap<&'static str, serde_json::Value>,
) -> Result<String, TemplateError> {
    Ok(one_line(&render_part(kind, Part::Subject, custom, &Value::from(Serde(context)))?))
}

fn render_part(
    kind: MessageKind,
    part: Part,
    custom: Option<&MessageTemplate>,
    value: &Value,
) -> Result<String, TemplateError> {
    let out = compiled::render_part(kind, part, custom.and_then(|c| part.of(c)), value).map_err(|e| TemplateError {
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
    let spaced: String =
        s.chars().map(|c| if c.is_control() || crate::basics::text::is_refused(c) { ' ' } else { c }).collect();
    let words: Vec<&str> = spaced.split(' ').filter(|w| !w.is_empty()).collect();
    words.join(" ").chars().take(MAX_SUBJECT_CHARS).collect()
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
        MessageTemplate { subject: opt(subject), text: opt(text), html: opt(html), enabled: true }
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
