//! `/admin/webhooks`: register (secret generated and shown once, or given),
//! rotate the secret, pause, resume, delete, send a test event, and each
//! webhook's recent deliveries with their attempts and a resend button.

use std::sync::Arc;

use chrono::{DateTime, Utc};
use maud::{Markup, html};
use rental_core::delivery::{Delivery, DeliveryStatus};
use rental_core::webhook::{AllEvents, Subscription, Webhook};
use rental_core::{EventName, Rental, Store};

use super::Act;
use super::page::{Page, Section, button_form, csrf_field, shell, when};
use super::session::{Flash, Session};
use crate::problem::Problem;
use crate::reply::blocking;

/// Deliveries shown per webhook.
pub const RECENT_DELIVERIES: usize = 10;

/// The webhooks page.
pub async fn page<S: Store + 'static>(rental: &Arc<Rental<S>>, session: &Session) -> Page {
    let now = rental.now();
    let listed = blocking(rental, |r| {
        let mut out = Vec::new();
        for webhook in r.admin().webhooks()? {
            let deliveries = r.admin().deliveries_of(&webhook.id, RECENT_DELIVERIES)?;
            out.push((webhook, deliveries));
        }
        Ok(out)
    })
    .await;
    let mut webhooks = match listed {
        Ok(webhooks) => webhooks,
        Err(p) => return super::page::message(p.status, "Error", &super::explain(&p)),
    };
    webhooks.sort_by(|(a, _), (b, _)| b.created_at.cmp(&a.created_at).then_with(|| a.id.cmp(&b.id)));
    let body = html! {
        (register_form(session))
        @if webhooks.is_empty() { section.card { p.muted { "No webhooks yet." } } }
        @for (webhook, deliveries) in &webhooks { (card(session, webhook, deliveries, now)) }
    };
    shell("Webhooks", Some(Section::Webhooks), Some(session), &body)
}

fn register_form(session: &Session) -> Markup {
    html! {
        section.card {
            h2 { "Register a webhook" }
            form method="post" action="/admin/webhooks" {
                (csrf_field(session))
                label for="wh-url" { "URL" }
                input #wh-url type="url" name="url" required placeholder="https://example.com/hooks/rental";
                label { "Events" }
                div {
                    label.check { input type="checkbox" name="events" value="*" checked; "all events (*)" }
                    @for e in EventName::ALL {
                        label.check { input type="checkbox" name="events" value=(e.as_str()); (e.as_str()) }
                    }
                }
                label for="wh-secret" { "Signing secret " span.muted { "(leave empty to generate one)" } }
                input #wh-secret type="text" name="secret" autocomplete="off" minlength="8";
                p { button type="submit" { "Register webhook" } }
            }
        }
    }
}

fn card(session: &Session, w: &Webhook, deliveries: &[Delivery], now: DateTime<Utc>) -> Markup {
    let base = format!("/admin/webhooks/{}", w.id);
    html! {
        section.card.webhook data-id=(w.id) {
            h2 { code { (w.url) } }
            dl {
                dt { "Id" } dd { code { (w.id) } }
                dt { "Events" } dd { (events(&w.events)) }
                dt { "State" } dd { @if w.active { span.badge.ok { "active" } } @else { span.badge.bad { "inactive" } } }
                dt { "Registered" } dd { (when(w.created_at)) }
                dt { "Signing" } dd.signing { (signing(w, now)) }
            }
            div.actions {
                @if w.active {
                    (button_form(session, &format!("{base}/test"), "Send test event", "", None))
                    (button_form(session, &format!("{base}/deactivate"), "Deactivate", "quiet", None))
                } @else {
                    (button_form(session, &format!("{base}/activate"), "Activate", "quiet", None))
                }
                (button_form(session, &format!("{base}/rotate"), "Rotate secret", "quiet",
                    Some("Give this webhook a new signing secret? The current one keeps signing beside it for 24 hours.")))
                (button_form(session, &format!("{base}/delete"), "Delete", "danger",
                    Some(&format!("Delete the webhook to {}? Its pending deliveries are given up.", w.url))))
            }
            h2 style="margin-top:1rem" { "Recent deliveries" }
            @if deliveries.is_empty() { p.muted { "None yet." } } @else {
                div.table { table.deliveries {
                    thead { tr { th { "Event" } th { "Status" } th { "Attempts" } th {} } }
                    tbody { @for d in deliveries { tr data-id=(d.id) {
                        td { (d.event.as_str()) br; code { (d.id) } br; span.muted { (when(d.created_at)) } }
                        td { (status(d)) }
                        td { (attempts(d)) }
                        td { @if w.active {
                            (button_form(session, &format!("/admin/deliveries/{}/resend", d.id), "Resend", "quiet", None))
                        } }
                    } } }
                } }
            }
        }
    }
}

/// How many secrets sign, and until when the replaced ones do.
fn signing(w: &Webhook, now: DateTime<Utc>) -> Markup {
    let active = w.secrets.active(now).len();
    html! {
        @match w.secrets.overlap_ends(now) {
            Some(until) if active == 2 => { "2 secrets: the current one, and the replaced one until " (when(until)) }
            Some(until) => { (active) " secrets: the current one, and replaced ones until " (when(until)) " at the latest" }
            None => "one secret",
        }
    }
}

fn events(s: &Subscription) -> String {
    match s {
        Subscription::All(_) => "* (all events)".to_owned(),
        Subscription::Named(names) => names.iter().map(|n| n.as_str()).collect::<Vec<_>>().join(", "),
    }
}

fn status(d: &Delivery) -> Markup {
    html! { @match d.status {
        DeliveryStatus::Delivered => span.badge.ok { "delivered" },
        DeliveryStatus::Failed => span.badge.bad { "failed" },
        DeliveryStatus::Pending => {
            span.badge.wait { "pending" }
            @if let Some(at) = d.next_attempt_at { br; span.muted { "next " (when(at)) } }
        },
    } }
}

fn attempts(d: &Delivery) -> Markup {
    html! {
        @if d.attempts.is_empty() { span.muted { "none yet" } }
        @for a in &d.attempts {
            div.attempt {
                @match a.status {
                    Some(code) if (200..300).contains(&code) => span.badge.ok { (code) },
                    Some(code) => span.badge.bad { (code) },
                    None => span.badge.bad { "no answer" },
                }
                " " (a.latency_ms) " ms · " span.muted { (when(a.at)) }
                @if let Some(error) = &a.error { br; span.muted { (error) } }
            }
        }
    }
}

/// `POST /admin/webhooks`: URL, events, optional secret.
pub async fn register<S: Store + 'static>(act: &Act<'_, S>) -> Page {
    let url = act.form.get("url").trim().to_owned();
    let secret = Some(act.form.get("secret").trim().to_owned()).filter(|s| !s.is_empty());
    let chosen = act.form.all("events");
    let events = if chosen.contains(&"*") {
        Ok(Subscription::All(AllEvents::Star))
    } else {
        Subscription::parse(&chosen.join(",")).map_err(|_| {
            Problem::from(rental_core::Error::invalid("events", "required", "choose at least one event, or all (*)"))
        })
    };
    let result = match events {
        Ok(events) => blocking(act.rental(), move |r| r.admin().add_webhook(&url, events, secret)).await,
        Err(problem) => Err(problem),
    };
    act.done(result, "/admin/webhooks", |w| Flash {
        secret: Some(("Signing secret:".to_owned(), w.secret().to_owned())),
        ..Flash::done(format!("Webhook to {} registered.", w.url))
    })
    .await
}

/// `POST /admin/webhooks/{id}/test|rotate|activate|deactivate|delete`.
pub async fn act<S: Store + 'static>(act: &Act<'_, S>, id: &str, action: &str) -> Page {
    let id = id.to_owned();
    let back = "/admin/webhooks";
    match action {
        "test" => {
            let result = blocking(act.rental(), move |r| r.admin().send_test_event(&id)).await;
            act.done(result, back, |d| Flash::done(format!("Test event sent (delivery {}).", d.id))).await
        }
        "rotate" => {
            let result = blocking(act.rental(), move |r| r.admin().rotate_webhook_secret(&id, None)).await;
            let now = act.rental().now();
            act.done(result, back, |w| {
                let until = w.secrets.overlap_ends(now).map(when).unwrap_or_default();
                Flash {
                    secret: Some(("New signing secret:".to_owned(), w.secret().to_owned())),
                    ..Flash::done(format!(
                        "The webhook to {} has a new secret; the previous one keeps signing until {until}.",
                        w.url
                    ))
                }
            })
            .await
        }
        "activate" | "deactivate" => {
            let active = action == "activate";
            let result = blocking(act.rental(), move |r| r.admin().set_webhook_active(&id, active)).await;
            act.done(result, back, |w| Flash::done(format!("Webhook to {} is now {action}d.", w.url))).await
        }
        "delete" => {
            let result = blocking(act.rental(), move |r| r.admin().remove_webhook(&id)).await;
            act.done(result, back, |()| Flash::done("Webhook deleted.")).await
        }
        _ => super::page::message(http::StatusCode::NOT_FOUND, "Not found", "There is no such action."),
    }
}

/// `POST /admin/deliveries/{id}/resend`.
pub async fn resend<S: Store + 'static>(act: &Act<'_, S>, id: &str) -> Page {
    let id = id.to_owned();
    let result = blocking(act.rental(), move |r| r.admin().resend_delivery(&id)).await;
    act.done(result, "/admin/webhooks", |d| Flash::done(format!("Delivery {} will be sent again now.", d.id))).await
}
