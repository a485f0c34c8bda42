//! The property editor's guest messages (docs/API.md section 21): the reply
//! address, arrival notes, lead times and each kind's own wording; a preview
//! on the property's next stay (or a made-up one); and a test message sent now.

use std::sync::Arc;

use maud::{Markup, html};
use rental_core::message::template::Wording;
use rental_core::message::template::{self, MessageTemplate, Part};
use rental_core::message::test_message::{PER_HOUR, TestMessage, TestStatus};
use rental_core::message::{Lead, MessageKind};
use rental_core::{FieldError, Locale, Property, Rental, Store};

use super::Act;
use super::form::Form;
use super::page::{Page, csrf_field};
use super::session::Flash;
use crate::mail::compose::mailbox;
use crate::reply::blocking;

/// The fields inside the edit form.
pub fn fields(p: &Property, error: &dyn Fn(&str) -> Markup) -> Markup {
    html! {
        input type="hidden" name="messagesForm" value="yes";
        p.muted { "E-mails to guests. Leave a wording empty to keep the built-in one; write "
            code { "{{ guest_name }}" } " and the like for the booking's details." }
        div.grid2 {
            div {
                label for="contactEmail" { "Replies go to " span.muted { "(empty: the sender address)" } }
                input #contactEmail type="email" name="contactEmail" value=(p.messages.contact_email);
                (error("contactEmail"))
            }
            div {
                label for="checkInMessage" { "Send check-in instructions " span.muted { "(before the door code works, like 48h)" } }
                input #checkInMessage type="text" name="checkInMessage" value=(p.messages.check_in_lead);
                (error("checkInMessage"))
            }
            div {
                label for="checkOutMessage" { "Send the check-out reminder " span.muted { "(before check-out, like 16h)" } }
                input #checkOutMessage type="text" name="checkOutMessage" value=(p.messages.check_out_lead);
                (error("checkOutMessage"))
            }
        }
        label for="arrivalNotes" { "Arrival notes " span.muted { "(sent with the check-in instructions)" } }
        textarea #arrivalNotes name="arrivalNotes" rows="4" cols="60" { (p.access.arrival_notes) }
        (error("arrivalNotes"))
        @for kind in MessageKind::ALL {
            (kind_fields(p, kind, error))
        }
    }
}

fn kind_fields(p: &Property, kind: MessageKind, error: &dyn Fn(&str) -> Markup) -> Markup {
    let custom = p.messages.templates.get(&kind);
    let value = |part: Part| custom.and_then(|c| part_of(c, part)).unwrap_or_default().to_owned();
    let id = |part: &str| format!("m-{kind}-{part}");
    let field = |part: Part| format!("messages.{kind}.{}", part.as_str());
    let variables: Vec<&str> = {
        let mut v: Vec<&str> = template::variables_of(kind).into_iter().collect();
        v.sort_unstable();
        v
    };
    let open = custom.is_some() || Part::ALL.iter().any(|part| !error(&field(*part)).into_string().is_empty());
    html! {
        details.message-kind open[open] data-kind=(kind) {
            summary { code { (kind) } @if custom.is_some_and(|c| !c.enabled) { " (off)" } }
            label.check { input type="checkbox" name=(id("enabled")) value="yes" checked[custom.is_none_or(|c| c.enabled)]; "Send it" }
            label for=(id("subject")) { "Subject " span.muted { "(built in: " (template::builtin(kind, Part::Subject)) ")" } }
            input id=(id("subject")) type="text" name=(id("subject")) value=(value(Part::Subject));
            (error(&field(Part::Subject)))
            label for=(id("text")) { "Plain text" }
            textarea id=(id("text")) name=(id("text")) rows="5" cols="60" placeholder=(template::builtin(kind, Part::Text)) { (value(Part::Text)) }
            (error(&field(Part::Text)))
            label for=(id("html")) { "HTML " span.muted { "(values are escaped)" } }
            textarea id=(id("html")) name=(id("html")) rows="5" cols="60" placeholder=(template::builtin(kind, Part::Html)) { (value(Part::Html)) }
            (error(&field(Part::Html)))
            p.muted { "Variables: " @for (i, v) in variables.iter().enumerate() { @if i > 0 { ", " } code { (v) } } }
            @for locale in other_languages(p) {
                (locale_fields(custom, kind, locale, error))
            }
        }
    }
}

/// The languages built in other than the property's: each kind's wording for bookings in them.
fn other_languages(p: &Property) -> impl Iterator<Item = Locale> + '_ {
    Locale::ALL.into_iter().filter(move |l| *l != p.messages.language)
}

/// One kind's wording in `locale` (`messages.{kind}.locales.{tag}`): empty keeps that language's built-in one.
fn locale_fields(
    custom: Option<&MessageTemplate>,
    kind: MessageKind,
    locale: Locale,
    error: &dyn Fn(&str) -> Markup,
) -> Markup {
    let tag = locale.as_str();
    let own = custom.and_then(|c| c.locales.get(&locale));
    let value = |part: Part| own.and_then(|w| wording_part(w, part)).unwrap_or_default().to_owned();
    let id = |part: &str| format!("m-{kind}-{tag}-{part}");
    let field = |part: Part| format!("messages.{kind}.locales.{tag}.{}", part.as_str());
    let open = own.is_some() || Part::ALL.iter().any(|part| !error(&field(*part)).into_string().is_empty());
    html! {
        details.message-locale open[open] data-locale=(tag) {
            summary { "For guests who read " code { (tag) } }
            input type="hidden" name=(id("form")) value="yes";
            label for=(id("subject")) { "Subject " span.muted { "(built in: " (template::builtin_in(locale, kind, Part::Subject)) ")" } }
            input id=(id("subject")) type="text" name=(id("subject")) value=(value(Part::Subject));
            (error(&field(Part::Subject)))
            label for=(id("text")) { "Plain text" }
            textarea id=(id("text")) name=(id("text")) rows="5" cols="60" placeholder=(template::builtin_in(locale, kind, Part::Text)) { (value(Part::Text)) }
            (error(&field(Part::Text)))
            label for=(id("html")) { "HTML " span.muted { "(values are escaped)" } }
            textarea id=(id("html")) name=(id("html")) rows="5" cols="60" placeholder=(template::builtin_in(locale, kind, Part::Html)) { (value(Part::Html)) }
            (error(&field(Part::Html)))
        }
    }
}

fn wording_part(w: &Wording, part: Part) -> Option<&str> {
    match part {
        Part::Subject => w.subject.as_deref(),
        Part::Text => w.text.as_deref(),
        Part::Html => w.html.as_deref(),
    }
}

fn part_of(t: &MessageTemplate, part: Part) -> Option<&str> {
    match part {
        Part::Subject => t.subject.as_deref(),
        Part::Text => t.text.as_deref(),
        Part::Html => t.html.as_deref(),
    }
}

/// Reads the message fields onto `p`; lead times that cannot be read are
/// reported. A form without them (posted by hand) leaves them as they are.
pub fn read(form: &Form, p: &mut Property, errors: &mut Vec<FieldError>) {
    if form.get("messagesForm") != "yes" {
        return;
    }
    form.get("contactEmail").trim().clone_into(&mut p.messages.contact_email);
    form.get("arrivalNotes").replace("\r\n", "\n").trim_end().clone_into(&mut p.access.arrival_notes);
    for (field, target) in
        [("checkInMessage", &mut p.messages.check_in_lead), ("checkOutMessage", &mut p.messages.check_out_lead)]
    {
        match Lead::parse(form.get(field).trim()) {
            Some(lead) => *target = lead,
            None => errors.push(FieldError::new(field, "invalid", "must be a time like 48h, 90m or 2d (at most 30d)")),
        }
    }
    // Each language's wording is read when the form holds its fields; a form
    // posted without them (by hand) keeps what was saved.
    let mut before = std::mem::take(&mut p.messages.templates);
    let others: Vec<Locale> = other_languages(p).collect();
    for kind in MessageKind::ALL {
        let get = |part: &str| {
            let v = form.get(&format!("m-{kind}-{part}")).replace("\r\n", "\n");
            (!v.trim().is_empty()).then_some(v)
        };
        let mut locales = before.remove(&kind).map(|t| t.locales).unwrap_or_default();
        for locale in others.iter().filter(|l| get(&format!("{}-form", l.as_str())).is_some()) {
            let tag = locale.as_str();
            let w = Wording {
                subject: get(&format!("{tag}-subject")).map(|s| s.trim().to_owned()),
                text: get(&format!("{tag}-text")),
                html: get(&format!("{tag}-html")),
            };
            if w == Wording::default() {
                locales.remove(locale);
            } else {
                locales.insert(*locale, w);
            }
        }
        let t = MessageTemplate {
            subject: get("subject").map(|s| s.trim().to_owned()),
            text: get("text"),
            html: get("html"),
            enabled: form.get(&format!("m-{kind}-enabled")) == "yes",
            locales,
        };
        if t.subject.is_some() || t.text.is_some() || t.html.is_some() || !t.enabled || !t.locales.is_empty() {
            p.messages.templates.insert(kind, t);
        }
    }
}

/// The preview and test card, below the form: `kind` rendered with the
/// saved wording on the next stay (or a sample), and a form that sends it.
pub async fn card<S: Store + 'static>(
    rental: &Arc<Rental<S>>,
    session: &super::session::Session,
    p: &Property,
    kind: Option<MessageKind>,
    base: &str,
) -> Markup {
    let kind = kind.unwrap_or(MessageKind::CheckInInstructions);
    let (slug, base_owned) = (p.slug.to_string(), base.to_owned());
    let preview = blocking(rental, move |r| r.preview_message(&slug, kind, None, Some(&base_owned))).await;
    let slug = p.slug.to_string();
    let sent = blocking(rental, move |r| r.test_messages().recent(&slug, chrono::Duration::hours(24))).await;
    let action = format!("/admin/properties/{}/edit", p.slug);
    html! {
        section.card #message-preview {
            h2 { "Preview a message" }
            form method="get" action=(action) {
                label for="preview-kind" { "Kind" }
                select #preview-kind name="preview" {
                    @for k in MessageKind::ALL { option value=(k) selected[k == kind] { (k) } }
                }
                " " button.quiet type="submit" { "Preview" }
            }
            @match &preview {
                Ok((rendered, next)) => {
                    p.muted { @match next {
                        Some(b) => { "On the next stay: " (b.code) ", " (b.guest_name) ", " (b.check_in()) "." }
                        None => { "On a made-up stay: no confirmed stay is coming." }
                    } }
                    p { "Subject: " strong #preview-subject { (rendered.subject) } }
                    pre #preview-text { (rendered.text) }
                    iframe #preview-html title="The HTML part" sandbox="" srcdoc=(rendered.html) style="width:100%;height:14rem;border:1px solid #ccc" {}
                }
                Err(problem) => p.flash.error { (super::explain(problem)) }
            }
            form method="post" action=(format!("/admin/properties/{}/test-message", p.slug)) {
                (csrf_field(session))
                input type="hidden" name="kind" value=(kind);
                label for="test-to" { "Send this message as a test to" }
                input #test-to type="email" name="to" required value=(p.messages.contact_email);
                " " button type="submit" { "Send a test message" }
            }
            (test_log(p, sent.as_deref().unwrap_or_default()))
        }
    }
}

/// The test messages of the last 24 hours, newest first (at most 10 an hour go).
fn test_log(p: &Property, sent: &[TestMessage]) -> Markup {
    html! {
        h3 { "Test messages of the last 24 hours" }
        @if sent.is_empty() {
            p.muted #test-log { "None." }
        } @else {
            div.table { table #test-log {
                thead { tr { th { "Sent" } th { "Kind" } th { "To" } th { "Result" } } }
                tbody { @for m in sent.iter().rev() {
                    tr data-test-message=(m.id) {
                        td { (rental_core::local_moment(m.at, p.timezone)) }
                        td { code { (m.kind) } }
                        td { (m.to) }
                        td { @match m.status {
                            TestStatus::Sent => "sent",
                            TestStatus::Sending => "sending (no answer recorded)",
                            TestStatus::Failed => { "failed: " (m.error.as_deref().unwrap_or_default()) },
                        } }
                    }
                } }
            } }
        }
        p.muted { "At most " (PER_HOUR) " test messages an hour per property." }
    }
}

/// A test of `kind` in `property`'s wording, on made-up data: a sample guest
/// and stay, and a sample door code, Wi-Fi and arrival notes, since it goes
/// to whatever address was typed. Its subject starts with `[Test]`.
fn test_message(
    property: &Property,
    kind: MessageKind,
    base: &str,
    now: chrono::DateTime<chrono::Utc>,
) -> Result<template::Rendered, template::TemplateError> {
    let mut sample = property.clone();
    "000000".clone_into(&mut sample.access.door_code);
    "Sample-WiFi".clone_into(&mut sample.access.wifi_ssid);
    "(Your arrival notes appear here.)".clone_into(&mut sample.access.arrival_notes);
    let today = rental_core::occupancy::today_in(property.timezone, now);
    let mut booking = rental_core::demo::sample_booking(&sample, today + chrono::Days::new(14));
    booking.visit.access = None;
    let stay_url = format!("{base}/stay/{}.sample", booking.code);
    let facts =
        template::Facts { booking: &booking, property: &sample, base_url: Some(base), stay_url: Some(&stay_url) };
    let mut rendered = template::render_for(kind, facts)?;
    rendered.subject = template::one_line(&format!("[Test] {}", rendered.subject));
    Ok(rendered)
}

/// `POST /admin/properties/{slug}/test-message` (`kind`, `to`): renders the
/// kind on made-up data ([`test_message`]) and sends it now through the mail
/// server, outside the message records; the flash says what the server answered.
pub async fn send_test<S: Store + 'static>(act: &Act<'_, S>, slug: &str) -> Page {
    let back = format!("/admin/properties/{slug}/edit");
    let fail = |message: String| {
        act.done::<()>(Err(crate::problem::Problem::invalid_parameter("to", message)), &back, |()| Flash::done(""))
    };
    let Ok(kind) = act.form.get("kind").parse::<MessageKind>() else {
        return fail("unknown message kind".to_owned()).await;
    };
    let to = match mailbox(None, act.form.get("to").trim()) {
        Ok(to) => to,
        Err(e) => return fail(e.to_string()).await,
    };
    let mail = act.state.mail();
    let (Some(smtp), Some(sender)) = (&mail.smtp, &mail.sender) else {
        return fail("no mail server is set (smtp): nothing can be sent".to_owned()).await;
    };
    let (slug_owned, base) = (slug.to_owned(), act.base.to_owned());
    let loaded = blocking(act.rental(), move |r| {
        let property = r.property(&slug_owned)?;
        let rendered = test_message(&property, kind, &base, r.now())
            .map_err(|e| rental_core::Error::invalid(&format!("messages.{kind}"), "invalid_template", e.to_string()))?;
        Ok((rendered, property))
    })
    .await;
    let (rendered, property) = match loaded {
        Ok(loaded) => loaded,
        Err(p) => return act.done::<()>(Err(p), &back, |()| Flash::done("")).await,
    };
    let (slug_owned, address) = (slug.to_owned(), to.email.to_string());
    let begun = blocking(act.rental(), move |r| r.test_messages().begin(&slug_owned, kind, &address)).await;
    let record = match begun {
        Ok(Ok(record)) => record,
        Ok(Err(over)) => {
            let next = rental_core::local_moment(over.next_at, property.timezone);
            let words = format!(
                "At most {PER_HOUR} test messages an hour are sent for a property: the next can go at {next}. Nothing was sent."
            );
            super::session::set_flash(act.state, act.session, Flash::failed(words)).await;
            return super::page::redirect(&back);
        }
        Err(p) => return act.done::<()>(Err(p), &back, |()| Flash::done("")).await,
    };
    let id = format!("<test.{}.{}@{}>", record.property, record.id, sender.domain());
    let outcome = match sender.build(to.clone(), None, &property, &id, &rendered) {
        Ok(email) => match smtp.send(email).await {
            rental_core::message::Outcome::Sent => Ok(()),
            rental_core::message::Outcome::Transient(e) | rental_core::message::Outcome::Permanent(e) => {
                Err(format!("the mail server refused the test message: {e}"))
            }
        },
        Err(e) => Err(e.to_string()),
    };
    let finished = outcome.clone();
    if let Err(p) = blocking(act.rental(), move |r| r.test_messages().finish(&record, finished)).await {
        tracing::warn!(detail = %p.detail, "the test message's outcome could not be recorded");
    }
    match outcome {
        Ok(()) => {
            act.done::<()>(Ok(()), &back, |()| Flash::done(format!("A test {kind} message went to {}.", to.email)))
                .await
        }
        Err(e) => fail(e).await,
    }
}
