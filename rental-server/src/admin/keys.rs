//! `/admin/api-keys`: every key with its scopes and last use; create one (its
//! secret shown once, with a copy button), revoke one after a confirmation.

use std::sync::Arc;

use maud::html;
use rental_core::keys::Scope;
use rental_core::{Rental, Store};

use super::Act;
use super::page::{Page, Section, button_form, csrf_field, shell, when};
use super::session::{Flash, Session};
use crate::reply::blocking;

/// The keys page.
pub async fn page<S: Store + 'static>(rental: &Arc<Rental<S>>, session: &Session) -> Page {
    let mut keys = match blocking(rental, |r: &Rental<_>| r.admin().keys()).await {
        Ok(keys) => keys,
        Err(p) => return super::page::message(p.status, "Error", &super::explain(&p)),
    };
    keys.sort_by(|a, b| b.created_at.cmp(&a.created_at).then_with(|| a.id.cmp(&b.id)));
    let body = html! {
        section.card {
            h2 { "Create a key" }
            form method="post" action="/admin/api-keys" {
                (csrf_field(session))
                label for="key-name" { "Name" }
                input #key-name type="text" name="name" required maxlength="100" placeholder="website";
                div {
                    label.check { input type="checkbox" name="scope" value="read" checked; "read" }
                    label.check { input type="checkbox" name="scope" value="write"; "write (create and change bookings)" }
                    label.check { input type="checkbox" name="scope" value="guests"; "guests (with read: identity document numbers from the check-in form)" }
                }
                p { button type="submit" { "Create key" } }
            }
        }
        section.card {
            h2 { "Keys (" (keys.len()) ")" }
            @if keys.is_empty() { p.muted { "No keys yet." } } @else {
                div.table { table #keys {
                    thead { tr { th { "Name" } th { "Scopes" } th { "Created" } th { "Last used" } th { "State" } th {} } }
                    tbody { @for k in &keys { tr data-id=(k.id) {
                        td { strong { (k.name) } br; code { (k.id) } }
                        td { (k.scopes.iter().map(ToString::to_string).collect::<Vec<_>>().join(", ")) }
                        td { (when(k.created_at)) }
                        td { (k.last_used_at.map_or_else(|| "never".to_owned(), when)) }
                        td { @match k.revoked_at {
                            Some(at) => { span.badge.bad { "revoked" } br; span.muted { (when(at)) } },
                            None => span.badge.ok { "active" },
                        } }
                        td { @if k.revoked_at.is_none() {
                            (button_form(session, &format!("/admin/api-keys/{}/revoke", k.id), "Revoke", "danger",
                                Some(&format!("Revoke the key {}? Programs using it will be refused at once.", k.name))))
                        } }
                    } } }
                } }
            }
        }
    };
    shell("API keys", Some(Section::Keys), Some(session), &body)
}

/// `POST /admin/api-keys`: name and scopes.
pub async fn create<S: Store + 'static>(act: &Act<'_, S>) -> Page {
    let name = act.form.get("name").to_owned();
    let scopes: Vec<Scope> = act.form.all("scope").into_iter().filter_map(|s| s.parse().ok()).collect();
    let result = blocking(act.rental(), move |r| r.admin().create_key(&name, &scopes)).await;
    act.done(result, "/admin/api-keys", |new| Flash {
        secret: Some(("Key:".to_owned(), new.secret)),
        ..Flash::done(format!("Key {} created.", new.key.name))
    })
    .await
}

/// `POST /admin/api-keys/{id}/revoke`.
pub async fn revoke<S: Store + 'static>(act: &Act<'_, S>, id: &str) -> Page {
    let id = id.to_owned();
    let result = blocking(act.rental(), move |r| r.admin().revoke_key(&id)).await;
    act.done(result, "/admin/api-keys", |key| Flash::done(format!("Key {} revoked.", key.name))).await
}
