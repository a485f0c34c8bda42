//! The property editor's stay and price rules (docs/API.md section 25):
//! weekdays, notice, window, preparation, discounts, promo codes, taxes, pets.

use maud::{Markup, html};
use rental_core::property::{
    EarlyBirdDiscount, GapFill, LeadTimeAdjustment, LengthOfStayDiscount, PriceRules, PromoCode, TouristTax, Weekdays,
};
use rental_core::{FieldError, Property, parse_amount, parse_date, plain_amount};

use super::form::Form;

/// Empty rows the lists offer beyond those already set.
const SPARE_ROWS: usize = 2;
/// Monday first, as `Weekdays` names them, with the words the form shows.
const DAYS: [(&str, &str); 7] =
    [("mon", "Mon"), ("tue", "Tue"), ("wed", "Wed"), ("thu", "Thu"), ("fri", "Fri"), ("sat", "Sat"), ("sun", "Sun")];

/// The stay rules beyond nights and times, inside the edit form.
pub fn stay_fields(p: &Property, error: &dyn Fn(&str) -> Markup) -> Markup {
    let r = &p.stay_rules;
    html! {
        input type="hidden" name="rulesForm" value="yes";
        (weekday_boxes("checkInDays", "Check-in on", r.check_in_days))
        (error("checkInDays"))
        (weekday_boxes("checkOutDays", "Check-out on", r.check_out_days))
        (error("checkOutDays"))
        div.grid2 {
            (text("advanceNoticeHours", "Advance notice", &r.advance_notice_hours.to_string(), "(hours before check-in)", error))
            (text("bookingWindowDays", "Booking window", &opt(r.booking_window_days), "(days ahead; empty: up to the horizon)", error))
            (text("preparationNights", "Preparation nights", &r.preparation_nights.to_string(), "(kept free before and after each stay)", error))
        }
    }
}

/// The price rules, inside the edit form.
pub fn price_fields(p: &Property, errors: &[FieldError], error: &dyn Fn(&str) -> Markup) -> Markup {
    let rules = &p.pricing.rules;
    let cur = p.currency.as_str();
    let gap = rules.gap_fill;
    let early = rules.early_bird_discount;
    let tax = rules.tourist_tax;
    let lead = &rules.lead_time_adjustments;
    let stays = rules.length_of_stay_discounts.as_deref().unwrap_or_default();
    html! {
        h3 { "Short gaps" }
        p.muted { "A stay that exactly fills a free gap between taken nights may be shorter than the minimum. Empty: off." }
        div.grid2 {
            (text("gapFill.maxGapNights", "Gaps of at most", &opt(gap.map(|g| g.max_gap_nights)), "(nights)", error))
            (text("gapFill.minNights", "May be as short as", &opt(gap.map(|g| g.min_nights)), "(nights)", error))
            (text("gapFill.discount", "Gap discount", &gap.map(|g| percent(g.discount)).unwrap_or_default(), "(%)", error))
        }
        h3 { "Lead time" }
        p.muted { "Added to each night's price by how soon check-in is (-25 lowers it by a quarter); the first row that matches applies." }
        (faults(errors, "leadTimeAdjustments"))
        div.table { table #lead-times {
            thead { tr { th { "Check-in" } th { "Days from today" } th { "Change (%)" } } }
            tbody { @for i in 0..lead.len() + SPARE_ROWS {
                @let row = lead.get(i);
                tr {
                    td { select id=(format!("lead-{i}-kind")) name="lead.kind" aria-label="Check-in" {
                        option value="within" selected[row.is_some_and(|r| r.within_days.is_some())] { "within" }
                        option value="beyond" selected[row.is_some_and(|r| r.beyond_days.is_some())] { "at least" }
                    } }
                    td { input id=(format!("lead-{i}-days")) type="text" name="lead.days" aria-label="Days from today"
                        value=(row.map(|r| opt(r.within_days.or(r.beyond_days))).unwrap_or_default()); }
                    td { input id=(format!("lead-{i}-adjust")) type="text" name="lead.adjust" aria-label="Change"
                        value=(row.map(|r| signed_percent(r.adjust)).unwrap_or_default()); }
                }
            } }
        } }
        h3 { "Longer stays" }
        p.muted { "The largest discount whose nights the stay reaches. No rows: the weekly and monthly discounts above." }
        (faults(errors, "lengthOfStayDiscounts"))
        div.table { table #stay-discounts {
            thead { tr { th { "From nights" } th { "Discount (%)" } } }
            tbody { @for i in 0..stays.len() + SPARE_ROWS {
                @let row = stays.get(i);
                tr {
                    td { input id=(format!("los-{i}-nights")) type="text" name="los.nights" aria-label="From nights"
                        value=(row.map(|r| r.min_nights.to_string()).unwrap_or_default()); }
                    td { input id=(format!("los-{i}-discount")) type="text" name="los.discount" aria-label="Discount"
                        value=(row.map(|r| percent(r.discount)).unwrap_or_default()); }
                }
            } }
        } }
        h3 { "Early booking" }
        div.grid2 {
            (text("earlyBirdDiscount.minDaysBefore", "Check-in at least", &opt(early.map(|e| e.min_days_before)), "(days from today; empty: none)", error))
            (text("earlyBirdDiscount.discount", "Early-booking discount", &early.map(|e| percent(e.discount)).unwrap_or_default(), "(%)", error))
        }
        p.muted { "Of the short-gap, longer-stay, early-booking and promo discounts only the largest applies." }
        h3 { "Promo codes" }
        (faults(errors, "promoCodes"))
        (promo_table(&rules.promo_codes))
        h3 { "Tourist tax and pets" }
        div.grid2 {
            (text("touristTax.perPersonPerNight", "Tourist tax", &tax.map(|t| plain_amount(t.per_person_per_night, cur)).unwrap_or_default(), &format!("({cur} per adult per night; empty: none)"), error))
            (text("touristTax.maxNights", "Taxed nights at most", &opt(tax.and_then(|t| t.max_nights)), "(empty: every night)", error))
            (text("touristTax.exemptUnderAge", "Children exempt under", &opt(tax.and_then(|t| t.exempt_under_age)), "(years)", error))
            (text("petFee", "Pet fee", &plain_amount(rules.pet_fee, cur), &format!("({cur} per stay)"), error))
            (text("maxPets", "Most pets", &rules.max_pets.to_string(), "(0: none)", error))
        }
    }
}

fn promo_table(codes: &[PromoCode]) -> Markup {
    let date = |d: Option<rental_core::NaiveDate>| d.map(|d| d.to_string()).unwrap_or_default();
    html! {
        div.table.seasons { table #promo-codes {
            thead { tr { th { "Code" } th { "Discount (%)" } th { "Usable from" } th { "to" } th { "Stays from" } th { "to" } th { "Min nights" } th { "Uses" } } }
            tbody { @for i in 0..codes.len() + SPARE_ROWS {
                @let c = codes.get(i);
                tr {
                    td { input id=(format!("promo-{i}-code")) type="text" name="promo.code" aria-label="Code" value=(c.map(|c| c.code.clone()).unwrap_or_default()); }
                    td { input id=(format!("promo-{i}-discount")) type="text" name="promo.discount" aria-label="Discount" value=(c.map(|c| percent(c.discount)).unwrap_or_default()); }
                    td { input id=(format!("promo-{i}-validFrom")) type="date" name="promo.validFrom" aria-label="Usable from" value=(date(c.and_then(|c| c.valid_from))); }
                    td { input id=(format!("promo-{i}-validTo")) type="date" name="promo.validTo" aria-label="Usable to" value=(date(c.and_then(|c| c.valid_to))); }
                    td { input id=(format!("promo-{i}-stayFrom")) type="date" name="promo.stayFrom" aria-label="Stays from" value=(date(c.and_then(|c| c.stay_from))); }
                    td { input id=(format!("promo-{i}-stayTo")) type="date" name="promo.stayTo" aria-label="Stays to" value=(date(c.and_then(|c| c.stay_to))); }
                    td { input id=(format!("promo-{i}-minNights")) type="text" name="promo.minNights" aria-label="Min nights" value=(opt(c.and_then(|c| c.min_nights))); }
                    td { input id=(format!("promo-{i}-maxUses")) type="text" name="promo.maxUses" aria-label="Uses" value=(opt(c.and_then(|c| c.max_uses))); }
                }
            } }
        } }
    }
}

fn weekday_boxes(name: &str, legend: &str, days: Weekdays) -> Markup {
    let on = days.names();
    html! {
        fieldset.days data-field=(name) {
            legend { (legend) }
            @for (value, label) in DAYS {
                label.check { input type="checkbox" name=(name) value=(value) checked[on.contains(&value)]; (label) }
            }
        }
    }
}

fn text(id: &str, label: &str, value: &str, hint: &str, error: &dyn Fn(&str) -> Markup) -> Markup {
    html! { div {
        label for=(id) { (label) " " span.muted { (hint) } }
        input id=(id) type="text" name=(id) value=(value);
        (error(id))
    } }
}

/// Each fault of a list, shown above it.
fn faults(errors: &[FieldError], prefix: &str) -> Markup {
    html! {
        @for e in errors.iter().filter(|e| e.field.starts_with(prefix)) {
            span.field-error data-field=(prefix) role="alert" { (e.field) ": " (e.message) }
        }
    }
}

fn opt(v: Option<u32>) -> String {
    v.map(|v| v.to_string()).unwrap_or_default()
}

/// Basis points as a percentage without trailing zeros (`25`, `12.5`).
fn percent(bp: u32) -> String {
    let s = format!("{}.{:02}", bp / 100, bp % 100);
    s.trim_end_matches('0').trim_end_matches('.').to_owned()
}

fn signed_percent(bp: i32) -> String {
    let sign = if bp < 0 { "-" } else { "" };
    format!("{sign}{}", percent(bp.unsigned_abs()))
}

/// Basis points from `12.5`; `None` when it is not a percentage.
fn basis_points(s: &str) -> Option<u32> {
    parse_amount(s.trim(), "USD").and_then(|v| u32::try_from(v).ok())
}

/// Signed basis points from `-25` or `+20`.
fn signed_basis_points(s: &str) -> Option<i32> {
    let s = s.trim();
    let (negative, digits) = match s.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, s.strip_prefix('+').unwrap_or(s)),
    };
    let bp = i32::try_from(basis_points(digits)?).ok()?;
    Some(if negative { -bp } else { bp })
}

/// Reads the rules onto `p`; what cannot be read is reported by field, and
/// the library checks the rest (and their contradictions) on save. A form
/// without them (posted by hand) leaves them as they are.
pub fn read(form: &Form, p: &mut Property, errors: &mut Vec<FieldError>) {
    if form.get("rulesForm") != "yes" {
        return;
    }
    let mut bad = |field: &str, message: &str| errors.push(FieldError::new(field, "invalid", message));
    let days = |name: &str| form.all(name).into_iter().filter_map(Weekdays::day).collect::<Weekdays>();
    p.stay_rules.check_in_days = days("checkInDays");
    p.stay_rules.check_out_days = days("checkOutDays");
    let whole = |field: &str| form.get(field).trim().parse::<u32>().ok();
    let optional = |field: &str| -> Result<Option<u32>, ()> {
        match form.get(field).trim() {
            "" => Ok(None),
            v => v.parse().map(Some).map_err(|_| ()),
        }
    };
    match whole("advanceNoticeHours") {
        Some(h) => p.stay_rules.advance_notice_hours = h,
        None => bad("advanceNoticeHours", "must be a whole number of hours"),
    }
    match optional("bookingWindowDays") {
        Ok(d) => p.stay_rules.booking_window_days = d,
        Err(()) => bad("bookingWindowDays", "must be a whole number of days, or empty"),
    }
    match whole("preparationNights") {
        Some(n) => p.stay_rules.preparation_nights = n,
        None => bad("preparationNights", "must be a whole number of nights"),
    }
    let mut rules = PriceRules::default();
    rules.gap_fill = read_gap_fill(form, &mut bad);
    rules.lead_time_adjustments = read_lead_times(form, &mut bad);
    rules.length_of_stay_discounts = read_stay_discounts(form, &mut bad);
    rules.early_bird_discount = read_early_bird(form, &mut bad);
    rules.promo_codes = read_promo_codes(form, &mut bad);
    rules.tourist_tax = read_tourist_tax(form, &p.currency, &mut bad);
    match parse_amount(form.get("petFee").trim(), &p.currency) {
        Some(fee) => rules.pet_fee = fee,
        None if form.get("petFee").trim().is_empty() => {}
        None => bad("petFee", "must be an amount"),
    }
    match whole("maxPets") {
        Some(n) => rules.max_pets = n,
        None => bad("maxPets", "must be a whole number"),
    }
    p.pricing.rules = rules;
}

type Bad<'a> = dyn FnMut(&str, &str) + 'a;

fn read_gap_fill(form: &Form, bad: &mut Bad<'_>) -> Option<GapFill> {
    let fields = ["gapFill.maxGapNights", "gapFill.minNights", "gapFill.discount"];
    let [max, min, discount] = fields.map(|f| form.get(f).trim());
    if [max, min, discount].iter().all(|v| v.is_empty()) {
        return None;
    }
    match (max.parse(), min.parse(), basis_points(discount)) {
        (Ok(max_gap_nights), Ok(min_nights), Some(discount)) => Some(GapFill { max_gap_nights, min_nights, discount }),
        (Err(_), ..) => fail(bad, fields[0], "must be a whole number of nights"),
        (_, Err(_), _) => fail(bad, fields[1], "must be a whole number of nights"),
        _ => fail(bad, fields[2], "must be a percentage like 20"),
    }
}

fn fail<T>(bad: &mut Bad<'_>, field: &str, message: &str) -> Option<T> {
    bad(field, message);
    None
}

fn read_lead_times(form: &Form, bad: &mut Bad<'_>) -> Vec<LeadTimeAdjustment> {
    let (kinds, days, adjusts) = (form.all("lead.kind"), form.all("lead.days"), form.all("lead.adjust"));
    let mut out = Vec::new();
    for (i, d) in days.iter().map(|d| d.trim()).enumerate() {
        let adjust = adjusts.get(i).map_or("", |a| a.trim());
        if d.is_empty() && adjust.is_empty() {
            continue;
        }
        let (Ok(n), Some(adjust)) = (d.parse::<u32>(), signed_basis_points(adjust)) else {
            bad("leadTimeAdjustments", &format!("row {}: needs whole days and a percentage like -25", i + 1));
            continue;
        };
        let beyond = kinds.get(i).is_some_and(|k| *k == "beyond");
        let (within_days, beyond_days) = if beyond { (None, Some(n)) } else { (Some(n), None) };
        out.push(LeadTimeAdjustment { within_days, beyond_days, adjust });
    }
    out
}

fn read_stay_discounts(form: &Form, bad: &mut Bad<'_>) -> Option<Vec<LengthOfStayDiscount>> {
    let (nights, discounts) = (form.all("los.nights"), form.all("los.discount"));
    let mut out = Vec::new();
    for (i, n) in nights.iter().map(|n| n.trim()).enumerate() {
        let discount = discounts.get(i).map_or("", |d| d.trim());
        if n.is_empty() && discount.is_empty() {
            continue;
        }
        match (n.parse(), basis_points(discount)) {
            (Ok(min_nights), Some(discount)) => out.push(LengthOfStayDiscount { min_nights, discount }),
            _ => bad("lengthOfStayDiscounts", &format!("row {}: needs whole nights and a percentage", i + 1)),
        }
    }
    (!out.is_empty()).then_some(out)
}

fn read_early_bird(form: &Form, bad: &mut Bad<'_>) -> Option<EarlyBirdDiscount> {
    let (days, discount) = (form.get("earlyBirdDiscount.minDaysBefore").trim(), form.get("earlyBirdDiscount.discount"));
    if days.is_empty() && discount.trim().is_empty() {
        return None;
    }
    match (days.parse(), basis_points(discount)) {
        (Ok(min_days_before), Some(discount)) => Some(EarlyBirdDiscount { min_days_before, discount }),
        (Err(_), _) => fail(bad, "earlyBirdDiscount.minDaysBefore", "must be a whole number of days"),
        _ => fail(bad, "earlyBirdDiscount.discount", "must be a percentage like 5"),
    }
}

fn read_promo_codes(form: &Form, bad: &mut Bad<'_>) -> Vec<PromoCode> {
    fn at<'f>(v: &[&'f str], i: usize) -> &'f str {
        v.get(i).map_or("", |s| s.trim())
    }
    let column = |name: &str| form.all(name);
    let codes = column("promo.code");
    let (discounts, mins, uses) = (column("promo.discount"), column("promo.minNights"), column("promo.maxUses"));
    let dates = ["promo.validFrom", "promo.validTo", "promo.stayFrom", "promo.stayTo"].map(column);
    let mut out = Vec::new();
    for (i, code) in codes.iter().map(|c| c.trim()).enumerate() {
        if code.is_empty() && at(&discounts, i).is_empty() {
            continue;
        }
        let row = i + 1;
        let Some(discount) = basis_points(at(&discounts, i)) else {
            bad("promoCodes.discount", &format!("row {row}: must be a percentage like 10"));
            continue;
        };
        let mut promo = PromoCode::new(code, discount);
        let [from, to, stay_from, stay_to] = dates.each_ref().map(|column| match at(column, i) {
            "" => Ok(None),
            v => parse_date(v).map(Some).ok_or(()),
        });
        let count = |v: &str| if v.is_empty() { Ok(None) } else { v.parse().map(Some).map_err(|_| ()) };
        match (from, to, stay_from, stay_to, count(at(&mins, i)), count(at(&uses, i))) {
            (Ok(f), Ok(t), Ok(sf), Ok(st), Ok(min), Ok(max)) => {
                (promo.valid_from, promo.valid_to, promo.stay_from, promo.stay_to) = (f, t, sf, st);
                (promo.min_nights, promo.max_uses) = (min, max);
                out.push(promo);
            }
            _ => bad("promoCodes", &format!("row {row}: dates like 2027-01-31 and whole numbers, or empty")),
        }
    }
    out
}

fn read_tourist_tax(form: &Form, currency: &str, bad: &mut Bad<'_>) -> Option<TouristTax> {
    let amount = form.get("touristTax.perPersonPerNight").trim();
    if amount.is_empty() {
        return None;
    }
    let Some(per_person_per_night) = parse_amount(amount, currency) else {
        return fail(bad, "touristTax.perPersonPerNight", "must be an amount, or empty for none");
    };
    let optional = |field: &str| match form.get(field).trim() {
        "" => Ok(None),
        v => v.parse().map(Some).map_err(|_| ()),
    };
    match (optional("touristTax.maxNights"), optional("touristTax.exemptUnderAge")) {
        (Ok(max_nights), Ok(exempt_under_age)) => {
            Some(TouristTax { per_person_per_night, max_nights, exempt_under_age })
        }
        (Err(()), _) => fail(bad, "touristTax.maxNights", "must be a whole number, or empty"),
        _ => fail(bad, "touristTax.exemptUnderAge", "must be a whole number, or empty"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentages_read_and_write_with_their_sign() {
        assert_eq!(
            (signed_basis_points("-25"), signed_basis_points("+20"), signed_basis_points("7.5")),
            (Some(-2_500), Some(2_000), Some(750))
        );
        assert_eq!((signed_basis_points("--5"), signed_basis_points("lots")), (None, None));
        assert_eq!(
            (signed_percent(-2_500), signed_percent(750), percent(10_000)),
            ("-25".into(), "7.5".into(), "100".into())
        );
    }
}
