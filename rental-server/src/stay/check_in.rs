//! The stay page's online check-in (docs/API.md section 24): the form the
//! property's `checkInForm` asks for, which works without script, and its
//! post, guarded like cancelling (a signed form used once, the link's limit).

use std::sync::Arc;

use http::StatusCode;
use maud::{Markup, html};
use rental_core::check_in::{CheckIn, CheckInInput};
use rental_core::property::{CheckInField, FieldRule};
use rental_core::{Booking, FieldError, Property, Status, Store};

use super::shell;
use crate::AppState;
use crate::book::page::Page;
use crate::book::token::FORM_LIFETIME;
use crate::connection::body::Body;
use crate::lang::{Words, words};
use crate::reply::blocking;

/// What the form shows besides the fields: the values to fill in, the faults
/// of the last post, and why it was refused as a whole.
#[derive(Debug, Default)]
pub struct Filled {
    /// The values: the last post's, or those given before.
    pub input: CheckInInput,
    /// Each field's faults.
    pub errors: Vec<FieldError>,
    /// A refusal of the whole form, in words (too many posts, an old form).
    pub alert: Option<String>,
}

impl Filled {
    /// The form filled with what was given before, if anything.
    pub fn from_given(given: Option<&CheckIn>) -> Self {
        let mut input = CheckInInput::default();
        if let Some(a) = given.map(|c| &c.answers) {
            input.email = a.email.clone().unwrap_or_default();
            input.phone = a.phone.clone().unwrap_or_default();
            input.arrival_time = a.arrival_time.map(|t| t.to_string()).unwrap_or_default();
            input.guest_names = a.guest_names.clone().unwrap_or_default();
            input.address = a.address.clone().unwrap_or_default();
            // Never written back to a page: the number goes one way, to the host.
        }
        Filled { input, ..Filled::default() }
    }

    fn errors(&self, field: CheckInField) -> Vec<&str> {
        self.errors.iter().filter(|e| e.field == field.name()).map(|e| e.message.as_str()).collect()
    }
}

/// The form's token scope: checking in this booking.
pub fn scope(code: &str) -> String {
    format!("stay-check-in:{code}")
}

/// True when the page shows the form: the booking is live and the property asks something of it.
pub fn shown(b: &Booking, p: &Property) -> bool {
    b.status != Status::Cancelled && !p.access.stay_page.check_in_form.asked(!b.guest_email.is_empty()).is_empty()
}

/// The check-in section: what was given and when, and the form.
pub fn section(
    b: &Booking,
    p: &Property,
    given: Option<&CheckIn>,
    filled: &Filled,
    token: &str,
    action: &str,
) -> Markup {
    let asked = p.access.stay_page.check_in_form.asked(!b.guest_email.is_empty());
    let (lang, w) = (b.locale, words(b.locale));
    html! {
        section.box #online-check-in aria-labelledby="check-in-title" {
            h2 #check-in-title { (w.online_check_in) }
            @if let Some(alert) = &filled.alert {
                div.alert role="alert" { (alert) }
            } @else if !filled.errors.is_empty() {
                div.alert role="alert" { (w.check_fields) }
            }
            @match given {
                Some(c) => p #check-in-done { ((w.check_in_received)(&super::access::moment(c.given_at, p, lang))) },
                None => p.hint { (w.check_in_hint) },
            }
            form method="post" action=(action) novalidate {
                input type="hidden" name="token" value=(token);
                @for (field, rule) in &asked { (input(*field, *rule, filled, given, w)) }
                button type="submit" { (w.send_details) }
            }
        }
    }
}

/// One field: its label (saying whether it is optional), input and faults.
fn input(field: CheckInField, rule: FieldRule, filled: &Filled, given: Option<&CheckIn>, w: &Words) -> Markup {
    let name = field.name();
    let errors = filled.errors(field);
    let described = (!errors.is_empty()).then(|| format!("{name}-err"));
    let invalid = (!errors.is_empty()).then_some("true");
    let required = rule == FieldRule::Required;
    let value = filled.input.get(field);
    let [email, phone, arrival, names, address, document] = w.check_in_labels;
    let label = match field {
        CheckInField::Email => email,
        CheckInField::Phone => phone,
        CheckInField::ArrivalTime => arrival,
        CheckInField::GuestNames => names,
        CheckInField::Address => address,
        CheckInField::DocumentNumber => document,
    };
    let document_kept =
        field == CheckInField::DocumentNumber && given.is_some_and(|c| c.answers.document_number.is_some());
    html! {
        div {
            label for=(name) { (label) @if !required { (w.optional_suffix) } }
            @match field {
                CheckInField::GuestNames | CheckInField::Address => {
                    textarea #(name) name=(name) rows="3" maxlength="1000" required[required]
                        aria-invalid=[invalid] aria-describedby=[described.as_deref()] { (value) }
                }
                _ => {
                    input #(name) name=(name) value=(value) type=(input_type(field)) autocomplete=[autocomplete(field)]
                        required[required] aria-invalid=[invalid] aria-describedby=[described.as_deref()];
                }
            }
            @if document_kept { p.hint { (w.document_kept) } }
            @if let Some(id) = &described {
                p.err id=(id) { @for (i, e) in errors.iter().enumerate() { @if i > 0 { " " } (e) "." } }
            }
        }
    }
}

fn input_type(field: CheckInField) -> &'static str {
    match field {
        CheckInField::Email => "email",
        CheckInField::Phone => "tel",
        CheckInField::ArrivalTime => "time",
        _ => "text",
    }
}

fn autocomplete(field: CheckInField) -> Option<&'static str> {
    match field {
        CheckInField::Email => Some("email"),
        CheckInField::Phone => Some("tel"),
        CheckInField::DocumentNumber | CheckInField::ArrivalTime => Some("off"),
        _ => None,
    }
}

/// The post of the form: within the link's limit and with a good token, the
/// check-in is recorded and the guest sent back to the page; otherwise the
/// page again, with what was typed kept and why it was refused.
pub async fn post<S: Store + 'static>(
    state: &Arc<AppState<S>>,
    b: Booking,
    p: &Property,
    link: &str,
    body: Body,
) -> Page {
    let now = state.rental().now();
    let limited = state.stay.posts.check(state.rental(), b.code.as_str()).await;
    let form = crate::admin::form::Form::read(body).await;
    let mut filled = Filled::default();
    if let Some(form) = &form {
        for field in CheckInField::ALL {
            filled.input.set(field, form.get(field.name()));
        }
    }
    let w = words(b.locale);
    if let Err(wait) = limited {
        filled.alert = Some((w.too_many_attempts)(wait.div_ceil(60)));
        return super::page_again(state, &b, p, link, &filled, StatusCode::TOO_MANY_REQUESTS, Some(wait)).await;
    }
    let token = form.as_ref().map_or("", |f| f.get("token"));
    if state.stay.forms.check_form_token(token, &scope(b.code.as_str()), now, FORM_LIFETIME).is_err() {
        filled.alert = Some(w.form_too_old.into());
        return super::page_again(state, &b, p, link, &filled, StatusCode::UNPROCESSABLE_ENTITY, None).await;
    }
    let email = filled.input.email.trim();
    if !email.is_empty() && !crate::mail::compose::can_send_to(email) {
        // An address the mailer would refuse: the guest's messages would never arrive.
        filled.errors = vec![FieldError::new("email", "invalid_email", "must be an e-mail address")];
        return super::page_again(state, &b, p, link, &filled, StatusCode::UNPROCESSABLE_ENTITY, None).await;
    }
    let form_id = token.split('.').nth(1).unwrap_or_default().to_owned();
    let (code, input) = (b.code.to_string(), filled.input.clone());
    match blocking(state.rental(), move |r| r.check_ins().submit(&code, &input, &form_id)).await {
        Ok(_) => shell::private(crate::book::page::see_other(&format!("{link}#online-check-in"))),
        Err(problem) if problem.code == "validation_failed" => {
            if problem.errors.iter().any(|e| e.field == "form") {
                filled.alert = Some(w.form_sent_already.into());
            } else {
                filled.errors = problem.errors;
            }
            super::page_again(state, &b, p, link, &filled, StatusCode::UNPROCESSABLE_ENTITY, None).await
        }
        // Cancelled meanwhile: the page says so.
        Err(problem) if problem.status.is_client_error() => shell::private(crate::book::page::see_other(link)),
        Err(problem) => shell::unavailable(&problem),
    }
}
