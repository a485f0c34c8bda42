//! The property editor's payment settings (docs/API.md, Payments): instant
//! booking, the installments, the deposit and the cancellation policy, with
//! a worked example of what a cancellation would refund.

use chrono::Days;
use maud::{Markup, html};
use rental_core::payments::refund::{Cancellation, kept, refund_owed, refund_share};
use rental_core::property::{CancellationPolicy, Installment, PaymentTerms, SecurityDeposit};
use rental_core::{FieldError, Property, format_amount, parse_amount, plain_amount};

use super::form::Form;

/// Rows of installments and of refund checkpoints the form offers.
const ROWS: usize = 4;

/// The fields inside the edit form.
pub fn fields(p: &Property, errors: &[FieldError]) -> Markup {
    let pay = &p.payments;
    let cur = p.currency.as_str();
    let faults = |prefix: &str| -> Markup {
        let of: Vec<String> = errors
            .iter()
            .filter(|e| e.field.starts_with(prefix))
            .map(|e| format!("{}: {}", e.field, e.message))
            .collect();
        html! { @for m in &of { span.field-error data-field=(prefix) role="alert" { (m) } } }
    };
    let installments = &pay.terms.installments;
    let refunds = &pay.cancellation_policy.refunds;
    let deposit = pay.security_deposit;
    html! {
        input type="hidden" name="paymentsForm" value="yes";
        div.grid2 {
            div { label.check { input type="checkbox" name="instantBooking" value="yes" checked[pay.instant_booking];
                "Instant booking: confirm a booking when its first payment succeeds (else the host confirms requests)" } }
        }
        h3 { "Installments" }
        p.muted { "Shares in %, summing to 100; the first is due at booking, each later one some days before check-in (fewer each time)." }
        (faults("paymentTerms"))
        div.table { table #installments {
            thead { tr { th { "#" } th { "Share (%)" } th { "Days before check-in" } } }
            tbody { @for i in 0..ROWS {
                @let row = installments.get(i);
                tr {
                    td { (i + 1) }
                    td { input id=(format!("inst-{i}-share")) type="text" name="inst.share" aria-label="Share"
                        value=(row.map(|r| percent(r.share)).unwrap_or_default()); }
                    td { @if i == 0 { "at booking" input type="hidden" name="inst.days" value=""; } @else {
                        input id=(format!("inst-{i}-days")) type="text" name="inst.days" aria-label="Days before check-in"
                            value=(row.and_then(|r| r.days_before_check_in).map(|d| d.to_string()).unwrap_or_default()); } }
                }
            } }
        } }
        div.grid2 { div {
            label for="graceHours" { "Hours to pay a refused installment " span.muted { "(then the booking is cancelled)" } }
            input #graceHours type="text" name="graceHours" value=(pay.terms.grace_hours);
        } }
        h3 { "Security deposit" }
        (faults("securityDeposit"))
        div.grid2 {
            div { label for="depositAmount" { "Card hold " span.muted { (format!("({cur}; empty: none)")) } }
                input #depositAmount type="text" name="depositAmount" value=(deposit.map(|d| plain_amount(d.amount, cur)).unwrap_or_default()); }
            div { label for="depositHoldDays" { "Held, days before check-in" }
                input #depositHoldDays type="text" name="depositHoldDays" value=(deposit.map_or(2, |d| d.hold_days_before_check_in)); }
            div { label for="depositReleaseDays" { "Released, days after check-out" }
                input #depositReleaseDays type="text" name="depositReleaseDays" value=(deposit.map_or(2, |d| d.release_days_after_check_out)); }
        }
        h3 { "Cancellation policy" }
        p.muted { "From so many days before check-in on, a guest's cancellation refunds this % of the total; a host's refunds everything paid." }
        (faults("cancellationPolicy"))
        div.table { table #refunds {
            thead { tr { th { "Days before check-in (at least)" } th { "Refund (%)" } } }
            tbody { @for i in 0..ROWS.max(refunds.len()) {
                @let row = refunds.get(i);
                tr {
                    td { input id=(format!("refund-{i}-days")) type="text" name="refund.days" aria-label="Days before check-in"
                        value=(row.map(|r| r.days_before_check_in.to_string()).unwrap_or_default()); }
                    td { input id=(format!("refund-{i}-share")) type="text" name="refund.share" aria-label="Refund"
                        value=(row.map(|r| percent(r.share)).unwrap_or_default()); }
                }
            } }
        } }
        div.grid2 {
            div { label for="refundGraceHours" { "Full refund within hours of booking " span.muted { "(empty: none)" } }
                input #refundGraceHours type="text" name="refundGraceHours" value=(opt(pay.cancellation_policy.grace_hours)); }
            div { label for="refundGraceMinDays" { "…when check-in is at least days away" }
                input #refundGraceMinDays type="text" name="refundGraceMinDays" value=(opt(pay.cancellation_policy.grace_min_days_before_check_in)); }
        }
        (worked_example(p))
    }
}

/// What the saved policy refunds of a week at the nightly rate, paid in full,
/// cancelled by the guest 30, 10 and 1 days before check-in.
fn worked_example(p: &Property) -> Markup {
    let total = p.pricing.nightly_rate * 7 + p.pricing.cleaning_fee;
    let created_at = "2026-01-01T00:00:00Z".parse().unwrap_or_default();
    let check_in = chrono::NaiveDate::from_ymd_opt(2027, 1, 1).unwrap_or_default();
    let refund = |days: u64| {
        let cancel_day = check_in.checked_sub_days(Days::new(days)).unwrap_or(check_in);
        let at = cancel_day.and_hms_opt(12, 0, 0).map_or(created_at, |t| t.and_utc());
        let c = Cancellation { created_at, at, check_in, timezone: rental_core::Tz::UTC };
        refund_owed(total, 0, kept(total, refund_share(&p.payments.cancellation_policy, &c)))
    };
    html! {
        div #worked-example.muted {
            p { "For example, a week at the nightly rate with cleaning, " (format_amount(total, &p.currency)) ", paid in full:" }
            ul { @for days in [30, 10, 1] {
                li { "cancelled " (days) (if days == 1 { " day" } else { " days" }) " before: refund "
                    strong { (format_amount(refund(days), &p.currency)) } }
            } }
        }
    }
}

fn percent(share: u32) -> String {
    let s = format!("{}.{:02}", share / 100, share % 100);
    s.trim_end_matches('0').trim_end_matches('.').to_owned()
}

fn opt(v: Option<u32>) -> String {
    v.map(|v| v.to_string()).unwrap_or_default()
}

/// Basis points from a percentage like `50` or `33.33`.
fn basis_points(s: &str) -> Option<u32> {
    parse_amount(s, "USD").and_then(|v| u32::try_from(v).ok())
}

/// Reads the payment fields onto `p`; what cannot be read is reported by
/// field, and the library checks the rest on save. A form without them
/// (posted by hand) leaves them as they are.
pub fn read(form: &Form, p: &mut Property, errors: &mut Vec<FieldError>) {
    if form.get("paymentsForm") != "yes" {
        return;
    }
    let mut bad = |field: &str, message: &str| errors.push(FieldError::new(field, "invalid", message));
    p.payments.instant_booking = form.get("instantBooking") == "yes";
    let (shares, days) = (form.all("inst.share"), form.all("inst.days"));
    let mut installments = Vec::new();
    for (i, share) in shares.iter().map(|s| s.trim()).enumerate() {
        if share.is_empty() {
            continue;
        }
        let Some(share) = basis_points(share) else {
            bad("paymentTerms.installments.share", "must be a percentage like 50 or 33.33");
            continue;
        };
        match days.get(i).map_or("", |d| d.trim()) {
            "" => installments.push(Installment::at_booking(share)),
            d => match d.parse() {
                Ok(d) => installments.push(Installment::before_check_in(share, d)),
                Err(_) => bad("paymentTerms.installments.daysBeforeCheckIn", "must be a whole number of days"),
            },
        }
    }
    let mut terms = PaymentTerms::default();
    terms.installments = installments;
    match form.get("graceHours").trim().parse() {
        Ok(h) => terms.grace_hours = h,
        Err(_) => bad("paymentTerms.graceHours", "must be a whole number of hours"),
    }
    p.payments.terms = terms;
    p.payments.security_deposit = match form.get("depositAmount").trim() {
        "" => None,
        amount => {
            let amount = parse_amount(amount, &p.currency);
            let hold = form.get("depositHoldDays").trim().parse();
            let release = form.get("depositReleaseDays").trim().parse();
            match (amount, hold, release) {
                (Some(a), Ok(h), Ok(r)) => Some(SecurityDeposit::new(a).days(h, r)),
                (None, ..) => {
                    bad("securityDeposit.amount", "must be an amount, or empty for none");
                    None
                }
                _ => {
                    bad("securityDeposit.holdDaysBeforeCheckIn", "days must be whole numbers");
                    None
                }
            }
        }
    };
    let (days, shares) = (form.all("refund.days"), form.all("refund.share"));
    let mut checkpoints = Vec::new();
    for (i, d) in days.iter().map(|d| d.trim()).enumerate() {
        let share = shares.get(i).map_or("", |s| s.trim());
        if d.is_empty() && share.is_empty() {
            continue;
        }
        match (d.parse(), basis_points(share)) {
            (Ok(days_before_check_in), Some(share)) => checkpoints.push((days_before_check_in, share)),
            _ => bad("cancellationPolicy.refunds", "each row needs whole days and a percentage"),
        }
    }
    let mut policy = CancellationPolicy::checkpoints(&checkpoints);
    let number = |field: &str| form.get(field).trim().parse::<u32>().ok();
    match (form.get("refundGraceHours").trim(), number("refundGraceHours")) {
        ("", _) => {}
        (_, Some(hours)) => policy = policy.grace(hours, number("refundGraceMinDays").unwrap_or(0)),
        (_, None) => bad("cancellationPolicy.graceHours", "must be a whole number of hours, or empty"),
    }
    p.payments.cancellation_policy = policy;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentages_are_written_without_trailing_zeros() {
        assert_eq!(
            (percent(10_000), percent(5_000), percent(3_333), percent(2_550)),
            ("100".into(), "50".into(), "33.33".into(), "25.5".into())
        );
        assert_eq!(basis_points("33.33"), Some(3_333));
    }
}
