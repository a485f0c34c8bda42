//! `/admin/properties/{slug}/edit`: name, rates, weekend rate, seasons (add,
//! remove, reorder), fees, taxes, discounts, stay rules, times, access, guest
//! messages (with a preview and a test message) and active.

use std::sync::Arc;

use maud::{Markup, html};
use rental_core::calendar::Block;
use rental_core::property::{ClockTime, SeasonalRate};
use rental_core::{FieldError, Property, Rental, Store};

use super::calendar::blocks_table;
use super::form::Form;
use super::page::{Page, Section, csrf_field, shell};
use super::rules_preview::{self, Preview};
use super::session::{Flash, Session};
use super::{Act, property_messages, property_rules};
use crate::reply::blocking;

/// The edit page.
pub async fn page<S: Store + 'static>(
    rental: &Arc<Rental<S>>,
    session: &Session,
    slug: &str,
    base: &str,
    preview: Option<&str>,
) -> Page {
    let slug = slug.to_owned();
    let loaded = blocking(rental, move |r| {
        let property = r
            .all_properties()?
            .into_iter()
            .find(|p| p.slug.as_str() == slug)
            .ok_or_else(|| rental_core::Error::NotFound(rental_core::NotFound::Property(slug.clone())))?;
        let blocks = if property.active { r.blocks(&slug, None, None)? } else { Vec::new() };
        Ok((property, blocks))
    })
    .await;
    match loaded {
        Ok((property, blocks)) => {
            let kind = preview.and_then(|k| k.parse().ok());
            let card = property_messages::card(rental, session, &property, kind, base).await;
            render(&property, &blocks, session, &[], base, Some(card), &Preview::none())
        }
        Err(p) => super::page::message(p.status, "Not found", &super::explain(&p)),
    }
}

/// Hundredths written as `150.00` (percent from basis points).
fn hundredths(n: i64) -> String {
    let sign = if n < 0 { "-" } else { "" };
    format!("{sign}{}.{:02}", n.unsigned_abs() / 100, n.unsigned_abs() % 100)
}

/// `150`, `150.5` or `150.25` as hundredths; `None` for anything else.
fn parse_hundredths(s: &str) -> Option<i64> {
    let s = s.trim();
    let (whole, frac) = s.split_once('.').unwrap_or((s, ""));
    if whole.is_empty()
        || !whole.bytes().all(|b| b.is_ascii_digit())
        || frac.len() > 2
        || !frac.bytes().all(|b| b.is_ascii_digit())
    {
        return None;
    }
    let frac = format!("{frac:0<2}");
    whole.parse::<i64>().ok()?.checked_mul(100)?.checked_add(frac.parse::<i64>().ok()?)
}

fn render(
    p: &Property,
    blocks: &[Block],
    session: &Session,
    errors: &[FieldError],
    base: &str,
    messages_card: Option<Markup>,
    preview: &Preview,
) -> Page {
    let error = |field: &str| -> Markup {
        let messages: Vec<&str> = errors.iter().filter(|e| e.field == field).map(|e| e.message.as_str()).collect();
        html! { @if !messages.is_empty() { span.field-error data-field=(field) role="alert" { (messages.join("; ")) } } }
    };
    let text = |id: &str, label: &str, value: String, hint: &str| -> Markup {
        html! { div {
            label for=(id) { (label) " " @if !hint.is_empty() { span.muted { (hint) } } }
            input id=(id) type="text" name=(id) value=(value);
            (error(id))
        } }
    };
    // Amounts in the property's currency, with its decimals (none for JPY).
    let cur = p.currency.as_str();
    let amount = |v: i64| rental_core::plain_amount(v, cur);
    let opt_money = |v: Option<i64>| v.map(amount).unwrap_or_default();
    let unit = |extra: &str| format!("({cur}{extra})");
    let season_errors: Vec<&FieldError> = errors.iter().filter(|e| e.field.starts_with("seasonalRates")).collect();
    let back = format!("/admin/properties/{}/edit", p.slug);
    let body = html! {
        style { ".field-error{display:block;color:#b42318;font-size:.85rem;margin:.15rem 0 .3rem}#edit h2{margin-top:1.2rem}\
            .seasons td{padding:.3rem .25rem}.seasons input{width:100%;min-width:5.5rem}.seasons input[type=number]{min-width:3.5rem;width:4rem}\
            .seasons input[type=date]{min-width:9rem}.seasons input[type=checkbox]{min-width:0;width:auto}\
            @media (max-width:600px){.seasons table{display:table}.seasons thead{display:table-header-group}\
            .seasons tbody{display:table-row-group}.seasons tr{display:table-row}.seasons td{display:table-cell;width:auto}}" }
        @if !errors.is_empty() { div.flash.error role="alert" { "Nothing was saved: fix the fields marked below." } }
        @else if preview.is_priced() { div.flash role="status" { "Nothing was saved: " a href="#rules-preview" { "the preview" } " uses the settings below. Save to keep them." } }
        form.card #edit method="post" action=(format!("/admin/properties/{}/edit", p.slug)) {
            (csrf_field(session))
            h2 { "Listing" }
            div.grid2 {
                (text("name", "Name", p.name.clone(), ""))
                div { label.check { input type="checkbox" name="active" value="yes" checked[p.active]; "Active (bookable)" } }
            }
            h2 { "Rates and fees" }
            div.grid2 {
                (text("nightlyRate", "Nightly rate", amount(p.pricing.nightly_rate), &unit("")))
                (text("weekendRate", "Weekend rate", opt_money(p.pricing.weekend_rate), &unit(", Fri and Sat; empty = nightly")))
                (text("cleaningFee", "Cleaning fee", amount(p.pricing.cleaning_fee), &unit("")))
                (text("extraGuestFee", "Extra guest fee", amount(p.pricing.extra_guest_fee), &unit(" per guest per night")))
                (text("baseGuests", "Guests included", p.pricing.base_guests.to_string(), ""))
                (text("maxGuests", "Most guests", p.pricing.max_guests.to_string(), ""))
                (text("taxRate", "Tax", hundredths(p.pricing.tax_rate.into()), "(%)"))
                (text("weeklyDiscount", "Weekly discount", hundredths(p.pricing.weekly_discount.into()), "(%, 7+ nights)"))
                (text("monthlyDiscount", "Monthly discount", hundredths(p.pricing.monthly_discount.into()), "(%, 28+ nights)"))
            }
            h2 { "Stay rules and times" }
            div.grid2 {
                (text("minNights", "Fewest nights", p.stay_rules.min_nights.to_string(), ""))
                (text("maxNights", "Most nights", p.stay_rules.max_nights.to_string(), ""))
                (text("checkInTime", "Check-in from", p.stay_rules.check_in_time.to_string(), "(HH:MM)"))
                (text("checkOutTime", "Check-out by", p.stay_rules.check_out_time.to_string(), "(HH:MM)"))
            }
            (property_rules::stay_fields(p, &error))
            h2 { "Price rules" }
            (property_rules::price_fields(p, errors, &error))
            h2 { "Access" }
            div.grid2 {
                (text("doorCode", "Door code", p.access.door_code.clone(), ""))
                (text("wifiSsid", "Wi-Fi name", p.access.wifi_ssid.clone(), ""))
            }
            h2 { "Booking page" }
            (booking_page(p, base, &error))
            h2 { "Payments" }
            (super::property_payments::fields(p, errors))
            h2 { "Guest messages" }
            (property_messages::fields(p, &error))
            h2 { "Seasons" }
            p.muted { "Order sets the list's order; the last row adds a season. A night in two seasons takes the one that starts later." }
            @for e in &season_errors { span.field-error data-field=(e.field) role="alert" { (e.field) ": " (e.message) } }
            div.table.seasons { table {
                thead { tr { th { "Order" } th { "Name" } th { "From" } th { "To (last night)" } th { "Nightly " (cur) } th { "Weekend " (cur) } th { "Min" } th { "Max" } th { "Remove" } } }
                tbody {
                    @for (i, s) in p.pricing.seasonal_rates.iter().enumerate() {
                        (season_row(i, Some(s), cur))
                    }
                    (season_row(p.pricing.seasonal_rates.len(), None, cur))
                }
            } }
            p { button type="submit" { "Save" } }
            (rules_preview::render(preview, &error))
        }
        @if let Some(card) = messages_card { (card) }
        (blocks_section(p, blocks, session, &back))
    };
    let mut page = shell(&format!("Edit {}", p.name), Some(Section::Properties), Some(session), &body);
    if !errors.is_empty() {
        *page.status_mut() = http::StatusCode::UNPROCESSABLE_ENTITY;
    }
    page
}

/// The blocks from today on and the form that adds one.
fn blocks_section(p: &Property, blocks: &[Block], session: &Session, back: &str) -> Markup {
    html! {
    section.card #property-blocks {
        h2 { "Blocks from today on (30 days)" }
        (blocks_table(blocks, session, back))
        @if p.active {
            form method="post" action="/admin/blocks" {
                (csrf_field(session))
                input type="hidden" name="property" value=(p.slug);
                input type="hidden" name="back" value=(back);
                div.grid2 {
                    div { label for="block-start" { "First night" } input #block-start type="date" name="startDate" required; }
                    div { label for="block-end" { "End (check-out day)" } input #block-end type="date" name="endDate" required; }
                    div { label for="block-note" { "Note" } input #block-note type="text" name="note" maxlength="500"; }
                }
                p { button type="submit" { "Block these nights" } " " a href="/admin/calendar" { "or on the calendar" } }
            }
        }
    }
    }
}

/// The page guests book on: on or off, the sites that may frame it, its link and the snippet to paste.
fn booking_page(p: &Property, base: &str, error: &dyn Fn(&str) -> Markup) -> Markup {
    let link = format!("{base}/book/{}", p.slug);
    let snippet = format!(
        "<div data-rental-property=\"{}\"></div>\n<script src=\"{base}/book/embed.js\" async></script>",
        p.slug
    );
    html! {
        div.grid2 {
            div { label.check { input type="checkbox" name="bookingPage" value="yes" checked[p.booking_page.enabled]; "Guests can ask to book on the page" } }
        }
        label for="embedOrigins" { "Sites that may show the page in a frame " span.muted { "(one per line, like https://example.com)" } }
        textarea #embedOrigins name="embedOrigins" rows="3" cols="50" { (p.booking_page.embed_origins.join("\n")) }
        (error("bookingPage.embedOrigins"))
        p { "Link: " a #booking-link href=(link) { (link) } " " button.quiet type="button" data-copy="booking-link" { "Copy" } }
        p { "To show it on your site, paste:" }
        pre { code #embed-snippet { (snippet) } }
        p { button.quiet type="button" data-copy="embed-snippet" { "Copy the snippet" } }
    }
}

fn season_row(i: usize, s: Option<&SeasonalRate>, currency: &str) -> Markup {
    let v = |f: &dyn Fn(&SeasonalRate) -> String| s.map(f).unwrap_or_default();
    let id = |name: &str| format!("season-{i}-{name}");
    html! {
        tr data-season=(i) {
            td { input id=(id("order")) type="number" name="s.order" value=(i + 1) aria-label="Order"; }
            td { input id=(id("name")) type="text" name="s.name" value=(v(&|s| s.name.clone())) aria-label="Name"; }
            td { input id=(id("start")) type="date" name="s.start" value=(v(&|s| s.start_date.to_string())) aria-label="From"; }
            td { input id=(id("end")) type="date" name="s.end" value=(v(&|s| s.end_date.to_string())) aria-label="To"; }
            td { input id=(id("rate")) type="text" name="s.rate" value=(v(&|s| rental_core::plain_amount(s.nightly_rate, currency))) aria-label="Nightly"; }
            td { input id=(id("weekend")) type="text" name="s.weekend" value=(v(&|s| s.weekend_rate.map(|r| rental_core::plain_amount(r, currency)).unwrap_or_default())) aria-label="Weekend"; }
            td { input id=(id("min")) type="text" name="s.min" value=(v(&|s| s.min_nights.map(|n| n.to_string()).unwrap_or_default())) aria-label="Min nights"; }
            td { input id=(id("max")) type="text" name="s.max" value=(v(&|s| s.max_nights.map(|n| n.to_string()).unwrap_or_default())) aria-label="Max nights"; }
            td { @if s.is_some() { input id=(id("remove")) type="checkbox" name="s.remove" value=(i) aria-label="Remove"; } }
        }
    }
}

/// Reads the form onto `p`, collecting the fields that cannot be read.
fn read_form(form: &Form, p: &mut Property) -> Vec<FieldError> {
    let mut errors = Vec::new();
    let currency = p.currency.clone();
    let example = format!("must be an amount like {}", rental_core::plain_amount(15_000, &currency));
    let mut bad = |field: &str, message: &str| errors.push(FieldError::new(field, "invalid", message));
    form.get("name").trim().clone_into(&mut p.name);
    p.active = form.get("active") == "yes";
    for (field, target) in [
        ("nightlyRate", &mut p.pricing.nightly_rate),
        ("cleaningFee", &mut p.pricing.cleaning_fee),
        ("extraGuestFee", &mut p.pricing.extra_guest_fee),
    ] {
        match rental_core::parse_amount(form.get(field), &currency) {
            Some(v) => *target = v,
            None => bad(field, &example),
        }
    }
    match form.get("weekendRate").trim() {
        "" => p.pricing.weekend_rate = None,
        v => match rental_core::parse_amount(v, &currency) {
            Some(v) => p.pricing.weekend_rate = Some(v),
            None => bad("weekendRate", &format!("{example}, or empty")),
        },
    }
    for (field, target) in [
        ("taxRate", &mut p.pricing.tax_rate),
        ("weeklyDiscount", &mut p.pricing.weekly_discount),
        ("monthlyDiscount", &mut p.pricing.monthly_discount),
    ] {
        match parse_hundredths(form.get(field)).and_then(|v| u32::try_from(v).ok()) {
            Some(v) => *target = v,
            None => bad(field, "must be a percentage like 12.5"),
        }
    }
    for (field, target) in [
        ("baseGuests", &mut p.pricing.base_guests),
        ("maxGuests", &mut p.pricing.max_guests),
        ("minNights", &mut p.stay_rules.min_nights),
        ("maxNights", &mut p.stay_rules.max_nights),
    ] {
        match form.get(field).trim().parse::<u32>() {
            Ok(v) => *target = v,
            Err(_) => bad(field, "must be a whole number"),
        }
    }
    for (field, target) in
        [("checkInTime", &mut p.stay_rules.check_in_time), ("checkOutTime", &mut p.stay_rules.check_out_time)]
    {
        match ClockTime::parse(form.get(field).trim()) {
            Ok(t) => *target = t,
            Err(_) => bad(field, "must be a time like 15:00"),
        }
    }
    p.booking_page.enabled = form.get("bookingPage") == "yes";
    p.booking_page.embed_origins =
        form.get("embedOrigins").lines().map(str::trim).filter(|o| !o.is_empty()).map(str::to_owned).collect();
    form.get("doorCode").trim().clone_into(&mut p.access.door_code);
    form.get("wifiSsid").trim().clone_into(&mut p.access.wifi_ssid);
    match read_seasons(form, &currency) {
        Ok(seasons) => p.pricing.seasonal_rates = seasons,
        Err(e) => errors.push(e),
    }
    property_messages::read(form, p, &mut errors);
    super::property_payments::read(form, p, &mut errors);
    property_rules::read(form, p, &mut errors);
    errors
}

/// The season rows, without those marked for removal and the empty new row, in the order given.
fn read_seasons(form: &Form, currency: &str) -> Result<Vec<SeasonalRate>, FieldError> {
    let column = |name: &str| form.all(name);
    let (orders, names, starts, ends) = (column("s.order"), column("s.name"), column("s.start"), column("s.end"));
    let (rates, weekends, mins, maxes) = (column("s.rate"), column("s.weekend"), column("s.min"), column("s.max"));
    let removed = column("s.remove");
    let at = |v: &[&str], i: usize| v.get(i).map_or("", |s| s.trim()).to_owned();
    let mut rows = Vec::new();
    for i in 0..names.len() {
        let (name, rate) = (at(&names, i), at(&rates, i));
        if removed.contains(&i.to_string().as_str())
            || (name.is_empty() && rate.is_empty() && at(&starts, i).is_empty())
        {
            continue;
        }
        let row = i + 1;
        let fail = |field: &str, message: &str| {
            FieldError::new(&format!("seasonalRates.{field}"), "invalid", format!("row {row}: {message}"))
        };
        let date = |v: String, field: &str| rental_core::parse_date(&v).ok_or_else(|| fail(field, "must be a date"));
        let nights = |v: String, field: &str| -> Result<Option<u32>, FieldError> {
            if v.is_empty() {
                Ok(None)
            } else {
                v.parse().map(Some).map_err(|_| fail(field, "must be a whole number or empty"))
            }
        };
        let weekend = at(&weekends, i);
        let season = SeasonalRate {
            name,
            start_date: date(at(&starts, i), "startDate")?,
            end_date: date(at(&ends, i), "endDate")?,
            nightly_rate: rental_core::parse_amount(&rate, currency)
                .ok_or_else(|| fail("nightlyRate", "must be an amount like 220.00"))?,
            weekend_rate: if weekend.is_empty() {
                None
            } else {
                Some(
                    rental_core::parse_amount(&weekend, currency)
                        .ok_or_else(|| fail("weekendRate", "must be an amount or empty"))?,
                )
            },
            min_nights: nights(at(&mins, i), "minNights")?,
            max_nights: nights(at(&maxes, i), "maxNights")?,
        };
        let order: i64 = at(&orders, i).parse().unwrap_or(i64::try_from(row).unwrap_or(i64::MAX));
        rows.push((order, season));
    }
    rows.sort_by_key(|(order, _)| *order);
    Ok(rows.into_iter().map(|(_, s)| s).collect())
}

/// `POST /admin/properties/{slug}/edit`: saved through the library, or the form again with each fault beside its field.
pub async fn save<S: Store + 'static>(act: &Act<'_, S>, slug: &str) -> Page {
    let slug_owned = slug.to_owned();
    let current = blocking(act.rental(), move |r| {
        r.all_properties()?
            .into_iter()
            .find(|p| p.slug.as_str() == slug_owned)
            .ok_or_else(|| rental_core::Error::NotFound(rental_core::NotFound::Property(slug_owned.clone())))
    })
    .await;
    let mut candidate = match current {
        Ok(p) => p,
        Err(p) => return super::page::message(p.status, "Not found", &super::explain(&p)),
    };
    let errors = read_form(act.form, &mut candidate);
    if !errors.is_empty() {
        return render(&candidate, &[], act.session, &errors, act.base, None, &Preview::none());
    }
    if act.form.get("intent") == "preview" {
        return preview(act, &candidate).await;
    }
    let edited = candidate.clone();
    let slug_owned = slug.to_owned();
    let saved = blocking(act.rental(), move |r| r.edit_property(&slug_owned, move |p| *p = edited.clone())).await;
    match saved {
        Ok(p) => {
            act.done::<Property>(Ok(p), &format!("/admin/properties/{slug}/edit"), |p| {
                Flash::done(format!("{} saved.", p.name))
            })
            .await
        }
        Err(problem) if !problem.errors.is_empty() => {
            render(&candidate, &[], act.session, &problem.errors, act.base, None, &Preview::none())
        }
        Err(problem) => {
            act.done::<Property>(Err(problem), &format!("/admin/properties/{slug}/edit"), |_| Flash::done("")).await
        }
    }
}

/// The form again with the quote of the stay its preview box asks, under the
/// settings as posted (checked as a save checks them), writing nothing.
async fn preview<S: Store + 'static>(act: &Act<'_, S>, candidate: &Property) -> Page {
    if let Err(rental_core::Error::Validation(errors)) = candidate.validate() {
        return render(candidate, &[], act.session, &errors, act.base, None, &Preview::none());
    }
    let (preview, errors) = rules_preview::quote(act.rental(), candidate, act.form).await;
    render(candidate, &[], act.session, &errors, act.base, None, &preview)
}
