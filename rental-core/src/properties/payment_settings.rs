//! A property's payment settings: instant booking or requests, the
//! installment terms, the security deposit and the cancellation policy.

use serde::{Deserialize, Serialize};

use crate::basics::money::{Cents, MAX_AMOUNT};
use crate::error::FieldError;

/// Basis points of a whole: shares are out of 10000.
pub const WHOLE: u32 = 10_000;
/// The most installments a booking may be paid in.
pub const MAX_INSTALLMENTS: usize = 4;
/// The most days before check-in an installment, hold or checkpoint may be.
pub const MAX_DAYS: u32 = 365;
/// The most cancellation checkpoints.
pub const MAX_CHECKPOINTS: usize = 8;
/// The longest grace, in hours (30 days).
pub const MAX_GRACE_HOURS: u32 = 720;

/// How guests pay for a stay at this property (docs/API.md, Payments). The
/// default takes the whole total at booking as a request the host confirms,
/// with no deposit and a full refund up to check-in.
///
/// ```
/// use rental_core::property::{CancellationPolicy, PaymentSettings, PaymentTerms, SecurityDeposit};
///
/// let settings = PaymentSettings::default()
///     .terms(PaymentTerms::split(&[(5_000, None), (5_000, Some(30))], 48))
///     .deposit(SecurityDeposit::new(30_000))
///     .policy(CancellationPolicy::checkpoints(&[(30, 10_000), (7, 5_000)]));
/// assert!(settings.fault().is_none());
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Default)]
#[non_exhaustive]
pub struct PaymentSettings {
    /// `true`: a booking is confirmed when its first payment succeeds;
    /// `false`: a request, whose first payment is a card hold captured when the host confirms.
    pub instant_booking: bool,
    /// The installments and the grace before an unpaid one cancels.
    pub terms: PaymentTerms,
    /// A card hold around the stay, if any.
    pub security_deposit: Option<SecurityDeposit>,
    /// What a guest's cancellation refunds.
    pub cancellation_policy: CancellationPolicy,
}

impl PaymentSettings {
    /// Confirms bookings on their first payment instead of taking requests.
    #[must_use]
    pub fn instant(mut self, instant: bool) -> Self {
        self.instant_booking = instant;
        self
    }

    /// Sets the installment terms.
    #[must_use]
    pub fn terms(mut self, terms: PaymentTerms) -> Self {
        self.terms = terms;
        self
    }

    /// Sets the security deposit.
    #[must_use]
    pub fn deposit(mut self, deposit: SecurityDeposit) -> Self {
        self.security_deposit = Some(deposit);
        self
    }

    /// Sets the cancellation policy.
    #[must_use]
    pub fn policy(mut self, policy: CancellationPolicy) -> Self {
        self.cancellation_policy = policy;
        self
    }

    /// The first fault of these settings, naming its JSON field.
    pub fn fault(&self) -> Option<FieldError> {
        let mut errors = Vec::new();
        self.faults(&mut errors);
        errors.into_iter().next()
    }

    /// The faults of these settings, each naming its JSON field.
    pub(crate) fn faults(&self, errors: &mut Vec<FieldError>) {
        self.terms.faults(errors);
        if let Some(deposit) = &self.security_deposit {
            deposit.faults(errors);
        }
        self.cancellation_policy.faults(errors);
    }
}

/// When a booking pays its total: up to 4 installments whose shares sum to
/// 10000 basis points, the first at booking and each later one a number of
/// days before check-in, strictly fewer each time.
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[non_exhaustive]
pub struct PaymentTerms {
    /// The installments, the one due at booking first.
    pub installments: Vec<Installment>,
    /// Hours after an installment's instant before, unpaid, it cancels the booking.
    #[serde(default = "default_grace_hours")]
    pub grace_hours: u32,
}

fn default_grace_hours() -> u32 {
    48
}

impl Default for PaymentTerms {
    fn default() -> Self {
        PaymentTerms { installments: vec![Installment::at_booking(WHOLE)], grace_hours: default_grace_hours() }
    }
}

impl PaymentTerms {
    /// Terms of `(share, daysBeforeCheckIn)` pairs (`None`: at booking) and a grace in hours.
    pub fn split(installments: &[(u32, Option<u32>)], grace_hours: u32) -> Self {
        let installments = installments
            .iter()
            .map(|&(share, days)| match days {
                None => Installment::at_booking(share),
                Some(days) => Installment::before_check_in(share, days),
            })
            .collect();
        PaymentTerms { installments, grace_hours }
    }

    fn faults(&self, errors: &mut Vec<FieldError>) {
        let mut fault = |field: &str, message: String| {
            errors.push(FieldError::new(&format!("paymentTerms.{field}"), "invalid", message));
        };
        let n = self.installments.len();
        if n == 0 || n > MAX_INSTALLMENTS {
            fault("installments", format!("must be 1 to {MAX_INSTALLMENTS} installments"));
        }
        let sum: u64 = self.installments.iter().map(|i| u64::from(i.share)).sum();
        if sum != u64::from(WHOLE) {
            fault("installments.share", format!("shares must sum to {WHOLE} (they sum to {sum})"));
        }
        if self.installments.iter().any(|i| i.share == 0) {
            fault("installments.share", "each share must be 1 to 10000".into());
        }
        let mut last = u32::MAX;
        for (i, installment) in self.installments.iter().enumerate() {
            let number = i + 1;
            match (i, installment.due, installment.days_before_check_in) {
                (0, _, None) => {}
                (0, _, Some(_)) => fault("installments.due", "the first installment is due at booking".into()),
                (_, Some(Due::Booking), _) | (_, _, None) => fault(
                    "installments.daysBeforeCheckIn",
                    format!("installment {number}: a later installment needs daysBeforeCheckIn"),
                ),
                (_, None, Some(days)) if !(1..=MAX_DAYS).contains(&days) => {
                    fault("installments.daysBeforeCheckIn", format!("installment {number}: must be 1 to {MAX_DAYS}"));
                }
                (_, None, Some(days)) if days >= last => fault(
                    "installments.daysBeforeCheckIn",
                    format!("installment {number}: must be fewer days than the installment before"),
                ),
                (_, None, Some(days)) => last = days,
            }
        }
        if self.grace_hours > MAX_GRACE_HOURS {
            fault("graceHours", format!("must be 0 to {MAX_GRACE_HOURS}"));
        }
    }
}

/// One installment: a share of the total, due at booking or some days before check-in.
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[non_exhaustive]
pub struct Installment {
    /// Basis points of the total, 1 to 10000.
    pub share: u32,
    /// `"booking"` for the first installment.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub due: Option<Due>,
    /// For a later installment: due this many days before check-in, at
    /// `checkInTime` in the property's zone (1 to 365).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub days_before_check_in: Option<u32>,
}

impl Installment {
    /// `share` basis points due when the booking is made.
    pub fn at_booking(share: u32) -> Self {
        Installment { share, due: Some(Due::Booking), days_before_check_in: None }
    }

    /// `share` basis points due `days` before check-in.
    pub fn before_check_in(share: u32, days: u32) -> Self {
        Installment { share, due: None, days_before_check_in: Some(days) }
    }
}

/// When an installment is due, where it is not a number of days before check-in.
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Due {
    /// When the booking is made.
    Booking,
}

/// A card hold around the stay: taken some days before check-in, released
/// some days after check-out unless the host claims part of it.
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[non_exhaustive]
pub struct SecurityDeposit {
    /// The hold, in the property's currency's minor unit.
    pub amount: Cents,
    /// Held this many days before check-in, at `checkInTime` (0 to 365).
    #[serde(default = "two")]
    pub hold_days_before_check_in: u32,
    /// Released this many days after check-out, at `checkOutTime` (0 to 365).
    #[serde(default = "two")]
    pub release_days_after_check_out: u32,
}

fn two() -> u32 {
    2
}

impl SecurityDeposit {
    /// A hold of `amount`, 2 days before check-in to 2 days after check-out.
    pub fn new(amount: Cents) -> Self {
        SecurityDeposit { amount, hold_days_before_check_in: 2, release_days_after_check_out: 2 }
    }

    /// Sets when the hold is taken and released.
    #[must_use]
    pub fn days(mut self, hold_before_check_in: u32, release_after_check_out: u32) -> Self {
        (self.hold_days_before_check_in, self.release_days_after_check_out) =
            (hold_before_check_in, release_after_check_out);
        self
    }

    fn faults(&self, errors: &mut Vec<FieldError>) {
        let mut check = |ok: bool, field: &str, message: String| {
            if !ok {
                errors.push(FieldError::new(&format!("securityDeposit.{field}"), "invalid", message));
            }
        };
        check((1..=MAX_AMOUNT).contains(&self.amount), "amount", format!("must be 1 to {MAX_AMOUNT}"));
        check(self.hold_days_before_check_in <= MAX_DAYS, "holdDaysBeforeCheckIn", format!("must be 0 to {MAX_DAYS}"));
        check(
            self.release_days_after_check_out <= MAX_DAYS,
            "releaseDaysAfterCheckOut",
            format!("must be 0 to {MAX_DAYS}"),
        );
    }
}

/// What a guest's cancellation refunds: checkpoints of days before
/// check-in with the share of the total refunded from then on, and an
/// optional grace (a full refund soon after booking, for stays far enough away).
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[non_exhaustive]
pub struct CancellationPolicy {
    /// The checkpoints, any order; days are distinct.
    pub refunds: Vec<RefundCheckpoint>,
    /// A full refund within this many hours of the booking's creation...
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub grace_hours: Option<u32>,
    /// ...when check-in is at least this many days away (default 0).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub grace_min_days_before_check_in: Option<u32>,
}

impl Default for CancellationPolicy {
    fn default() -> Self {
        CancellationPolicy::checkpoints(&[(0, WHOLE)])
    }
}

impl CancellationPolicy {
    /// A policy of `(daysBeforeCheckIn, share)` checkpoints and no grace.
    pub fn checkpoints(refunds: &[(u32, u32)]) -> Self {
        let refunds = refunds
            .iter()
            .map(|&(days_before_check_in, share)| RefundCheckpoint { days_before_check_in, share })
            .collect();
        CancellationPolicy { refunds, grace_hours: None, grace_min_days_before_check_in: None }
    }

    /// Adds the grace: a full refund within `hours` of booking when check-in is at least `min_days` away.
    #[must_use]
    pub fn grace(mut self, hours: u32, min_days: u32) -> Self {
        (self.grace_hours, self.grace_min_days_before_check_in) = (Some(hours), Some(min_days));
        self
    }

    fn faults(&self, errors: &mut Vec<FieldError>) {
        let mut fault = |field: &str, message: String| {
            errors.push(FieldError::new(&format!("cancellationPolicy.{field}"), "invalid", message));
        };
        if self.refunds.len() > MAX_CHECKPOINTS {
            fault("refunds", format!("at most {MAX_CHECKPOINTS} checkpoints"));
        }
        if self.refunds.iter().any(|r| r.share > WHOLE) {
            fault("refunds.share", format!("each share must be 0 to {WHOLE}"));
        }
        if self.refunds.iter().any(|r| r.days_before_check_in > MAX_DAYS) {
            fault("refunds.daysBeforeCheckIn", format!("must be 0 to {MAX_DAYS}"));
        }
        let mut days: Vec<u32> = self.refunds.iter().map(|r| r.days_before_check_in).collect();
        days.sort_unstable();
        if days.windows(2).any(|w| w[0] == w[1]) {
            fault("refunds.daysBeforeCheckIn", "two checkpoints have the same days".into());
        }
        if self.grace_hours.is_some_and(|h| h > MAX_GRACE_HOURS) {
            fault("graceHours", format!("must be 0 to {MAX_GRACE_HOURS}"));
        }
        if self.grace_min_days_before_check_in.is_some_and(|d| d > MAX_DAYS) {
            fault("graceMinDaysBeforeCheckIn", format!("must be 0 to {MAX_DAYS}"));
        }
        if self.grace_min_days_before_check_in.is_some() && self.grace_hours.is_none() {
            fault("graceHours", "is required with graceMinDaysBeforeCheckIn".into());
        }
    }
}

/// From `daysBeforeCheckIn` days before check-in on, a cancellation refunds `share` of the total.
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct RefundCheckpoint {
    /// Whole days from the cancellation's date to the check-in date, at least (0 to 365).
    pub days_before_check_in: u32,
    /// Basis points of the total refunded (0 to 10000).
    pub share: u32,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fields(settings: &PaymentSettings) -> Vec<String> {
        let mut errors = Vec::new();
        settings.faults(&mut errors);
        errors.into_iter().map(|e| e.field).collect()
    }

    #[test]
    fn each_broken_rule_names_its_field() {
        let terms = |t: &[(u32, Option<u32>)]| PaymentSettings::default().terms(PaymentTerms::split(t, 48));
        let policy = |p: CancellationPolicy| PaymentSettings::default().policy(p);
        let cases: Vec<(PaymentSettings, &str)> = vec![
            (terms(&[(5_000, None), (4_000, Some(30))]), "paymentTerms.installments.share"),
            (
                terms(&[(5_000, None), (2_500, Some(10)), (2_500, Some(30))]),
                "paymentTerms.installments.daysBeforeCheckIn",
            ),
            (
                terms(&[(5_000, None), (2_500, Some(30)), (2_500, Some(30))]),
                "paymentTerms.installments.daysBeforeCheckIn",
            ),
            (
                terms(&[(2_000, None), (2_000, Some(40)), (2_000, Some(30)), (2_000, Some(20)), (2_000, Some(10))]),
                "paymentTerms.installments",
            ),
            (terms(&[(5_000, Some(60)), (5_000, Some(30))]), "paymentTerms.installments.due"),
            (terms(&[(5_000, None), (5_000, None)]), "paymentTerms.installments.daysBeforeCheckIn"),
            (terms(&[(5_000, None), (5_000, Some(400))]), "paymentTerms.installments.daysBeforeCheckIn"),
            (terms(&[(10_000, None), (0, Some(3))]), "paymentTerms.installments.share"),
            (terms(&[]), "paymentTerms.installments"),
            (PaymentSettings::default().terms(PaymentTerms::split(&[(10_000, None)], 721)), "paymentTerms.graceHours"),
            (PaymentSettings::default().deposit(SecurityDeposit::new(-1)), "securityDeposit.amount"),
            (
                PaymentSettings::default().deposit(SecurityDeposit::new(100).days(366, 2)),
                "securityDeposit.holdDaysBeforeCheckIn",
            ),
            (policy(CancellationPolicy::checkpoints(&[(30, 10_001)])), "cancellationPolicy.refunds.share"),
            (
                policy(CancellationPolicy::checkpoints(&[(30, 10_000), (30, 5_000)])),
                "cancellationPolicy.refunds.daysBeforeCheckIn",
            ),
            (policy(CancellationPolicy::checkpoints(&[(0, 10_000)]).grace(1_000, 7)), "cancellationPolicy.graceHours"),
        ];
        for (settings, want) in cases {
            assert_eq!(fields(&settings).first().map(String::as_str), Some(want), "{settings:?}");
        }
        let good = PaymentSettings::default()
            .terms(PaymentTerms::split(&[(3_000, None), (3_000, Some(60)), (4_000, Some(14))], 24))
            .deposit(SecurityDeposit::new(30_000).days(0, 0))
            .policy(CancellationPolicy::checkpoints(&[(7, 5_000), (30, 10_000)]).grace(48, 14));
        assert_eq!(fields(&good), Vec::<String>::new());
        assert_eq!(fields(&PaymentSettings::default()), Vec::<String>::new());
    }

    #[test]
    fn the_defaults_are_the_contracts_in_json() {
        let terms = serde_json::to_value(PaymentTerms::default()).unwrap();
        assert_eq!(terms, serde_json::json!({"installments": [{"share": 10000, "due": "booking"}], "graceHours": 48}));
        let policy = serde_json::to_value(CancellationPolicy::default()).unwrap();
        assert_eq!(policy, serde_json::json!({"refunds": [{"daysBeforeCheckIn": 0, "share": 10000}]}));
        let deposit: SecurityDeposit = serde_json::from_str(r#"{"amount": 30000}"#).unwrap();
        assert_eq!(deposit, SecurityDeposit::new(30_000));
        let later: Installment = serde_json::from_str(r#"{"share": 5000, "daysBeforeCheckIn": 30}"#).unwrap();
        assert_eq!(later, Installment::before_check_in(5_000, 30));
    }
}
