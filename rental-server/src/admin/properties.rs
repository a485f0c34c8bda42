//! `/admin/properties`: each property with its door code, Wi-Fi name and
//! channel calendar feeds (added, removed, their last pull, and "import now").

use std::sync::Arc;

use maud::html;
use rental_core::{Rental, Slug, Source, Store};

use super::Act;
use super::page::{Page, Section, button_form, csrf_field, shell};
use super::session::{Flash, Session};
use crate::problem::Problem;
use crate::reply::blocking;

/// The properties page.
pub async fn page<S: Store + 'static>(rental: &Arc<Rental<S>>, session: &Session) -> Page {
    let loaded = blocking(rental, |r| Ok((r.all_properties()?, r.worker().feed_states()?))).await;
    let (properties, states) = match loaded {
        Ok(loaded) => loaded,
        Err(p) => return super::page::message(p.status, "Error", &super::explain(&p)),
    };
    let last_pull = |slug: &Slug, feed: &Source| {
        states
            .iter()
            .find(|s| &s.property == slug && &s.feed == feed)
            .and_then(|s| Some((s.last_pull_at?, s.last_result.clone()?)))
    };
    let body = html! {
        @if properties.is_empty() {
            section.card { p.muted { "No properties yet. Import some with " code { "rental property import FILE" } "." } }
        }
        @for p in &properties {
            section.card.property data-slug=(p.slug) {
                h2 { (p.name) " " @if !p.active { span.badge.bad { "inactive" } } " "
                    a.edit href=(format!("/admin/properties/{}/edit", p.slug)) { "Edit rates, seasons and rules" } }
                dl {
                    dt { "Slug" } dd { code { (p.slug) } }
                    dt { "Time zone" } dd { (p.timezone.name()) }
                    dt { "Door code" } dd { @if p.access.door_code.is_empty() { span.muted { "none" } } @else { code { (p.access.door_code) } } }
                    dt { "Wi-Fi" } dd { @if p.access.wifi_ssid.is_empty() { span.muted { "none" } } @else { (p.access.wifi_ssid) } }
                }
                h2 { "Channel calendars (iCal)" }
                @if p.feeds.ical_feeds.is_empty() { p.muted { "No feeds." } } @else {
                    div.table { table.feeds {
                        thead { tr { th { "Name" } th { "URL" } th { "Last pull" } th {} } }
                        tbody { @for f in &p.feeds.ical_feeds { tr {
                            td { (f.name.as_str()) }
                            td { code { (f.url) } }
                            td.last-pull { @match last_pull(&p.slug, &f.name) {
                                None => span.muted { "not pulled yet" },
                                Some((at, r)) => {
                                    @if r.ok { span.badge.ok { "ok" } } @else { span.badge.bad { "failed" } }
                                    " " (rental_core::timestamp::format(&at)) br;
                                    @if r.ok {
                                        span.muted { (count(r.events, "event")) "; " (r.created) " created, " (r.updated) " updated, "
                                            (r.cancelled) " cancelled, " (count(r.conflicts, "conflict")) }
                                    } @else { span.muted { (r.error.unwrap_or_default()) } }
                                },
                            } }
                            td { (button_form(session, &format!("/admin/properties/{}/feeds/{}/remove", p.slug, f.name.as_str()),
                                "Remove", "danger", Some(&format!("Stop importing the {} calendar?", f.name.as_str())))) }
                        } } }
                    } }
                }
                @if !p.feeds.ical_feeds.is_empty() && p.active {
                    (button_form(session, &format!("/admin/properties/{}/sync", p.slug), "Import channel calendars now", "", None))
                }
                form method="post" action=(format!("/admin/properties/{}/feeds", p.slug)) {
                    (csrf_field(session))
                    label for=(format!("feed-name-{}", p.slug)) { "Feed name " span.muted { "(airbnb, vrbo...)" } }
                    input id=(format!("feed-name-{}", p.slug)) type="text" name="name" required maxlength="32" pattern="[a-z0-9_-]+";
                    label for=(format!("feed-url-{}", p.slug)) { "Feed URL" }
                    input id=(format!("feed-url-{}", p.slug)) type="url" name="url" required;
                    p { button type="submit" { "Add feed" } }
                }
            }
        }
    };
    shell("Properties", Some(Section::Properties), Some(session), &body)
}

/// `POST /admin/properties/{slug}/feeds`: name and URL.
pub async fn add_feed<S: Store + 'static>(act: &Act<'_, S>, slug: &str) -> Page {
    let (slug, name, url) = (slug.to_owned(), act.form.get("name").to_owned(), act.form.get("url").to_owned());
    let result = blocking(act.rental(), move |r| r.calendars().add_ical_feed(&slug, &name, &url)).await;
    act.done(result, "/admin/properties", |p| Flash::done(format!("Feed added to {}.", p.name))).await
}

/// `POST /admin/properties/{slug}/sync`: pulls the property's feeds now and says how it went.
pub async fn sync<S: Store + 'static>(act: &Act<'_, S>, slug: &str) -> Page {
    let result = act.state.feed_puller().sync(Some(slug.to_owned()), |_| {}).await.map_err(Problem::from);
    act.done(result, "/admin/properties", |r| {
        let summary = format!(
            "Pulled {}: {} created, {} updated, {} cancelled, {}.",
            count(r.feeds, "feed"),
            r.created,
            r.updated,
            r.cancelled,
            count(r.conflicts, "conflict")
        );
        if r.failed == 0 {
            Flash::done(summary)
        } else {
            let errors: Vec<String> = r
                .results
                .iter()
                .filter(|f| !f.ok)
                .map(|f| format!("{}: {}", f.feed, f.error.as_deref().unwrap_or("")))
                .collect();
            Flash::failed(format!("{summary} {} failed ({}).", r.failed, errors.join("; ")))
        }
    })
    .await
}

/// `POST /admin/properties/{slug}/feeds/{name}/remove`.
pub async fn remove_feed<S: Store + 'static>(act: &Act<'_, S>, slug: &str, name: &str) -> Page {
    let (slug, name) = (slug.to_owned(), name.to_owned());
    let result = blocking(act.rental(), move |r| r.calendars().remove_ical_feed(&slug, &name)).await;
    act.done(result, "/admin/properties", |p| Flash::done(format!("Feed removed from {}.", p.name))).await
}

/// `1 feed`, `2 feeds`.
fn count(n: usize, noun: &str) -> String {
    if n == 1 { format!("1 {noun}") } else { format!("{n} {noun}s") }
}
