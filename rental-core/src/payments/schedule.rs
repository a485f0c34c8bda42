//! When a booking pays and how much: its installments' amounts and
//! instants, and its deposit's hold and release, from the frozen terms.
//! Pure functions of their inputs; no store, no clock.

use chrono::{DateTime, Days, NaiveDate, Utc};
use chrono_tz::Tz;

use crate::basics::clock_time::ClockTime;
use crate::basics::money::Cents;
use crate::basics::stay::Stay;
use crate::bookings::pricing::basis_points;
use crate::properties::local_time::instant;
use crate::properties::payment_settings::{PaymentTerms, SecurityDeposit};
use crate::properties::property::Property;

/// Where "N days before check-in" and "N days after check-out" are counted:
/// the stay's dates at the property's check-in and check-out times, in its zone.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StayClock {
    /// The property's time zone.
    pub timezone: Tz,
    /// The first night.
    pub check_in: NaiveDate,
    /// The departure day.
    pub check_out: NaiveDate,
    /// Local arrival time.
    pub check_in_time: ClockTime,
    /// Local departure time.
    pub check_out_time: ClockTime,
}

impl StayClock {
    /// The clock of `stay` at `property`.
    pub fn of(property: &Property, stay: Stay) -> Self {
        StayClock {
            timezone: property.timezone,
            check_in: stay.check_in(),
            check_out: stay.check_out(),
            check_in_time: property.stay_rules.check_in_time,
            check_out_time: property.stay_rules.check_out_time,
        }
    }

    /// `days` before check-in, at the check-in time, in the property's zone (DST-correct).
    pub fn before_check_in(&self, days: u32) -> DateTime<Utc> {
        let date = self.check_in.checked_sub_days(Days::new(days.into())).unwrap_or(self.check_in);
        instant(self.timezone, date, self.check_in_time)
    }

    /// `days` after check-out, at the check-out time, in the property's zone (DST-correct).
    pub fn after_check_out(&self, days: u32) -> DateTime<Utc> {
        let date = self.check_out.checked_add_days(Days::new(days.into())).unwrap_or(self.check_out);
        instant(self.timezone, date, self.check_out_time)
    }
}

/// One installment of a booking's schedule.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PlannedInstallment {
    /// 1 for the first; consecutive.
    pub number: u32,
    /// In the currency's minor unit.
    pub amount: Cents,
    /// When it falls due: the booking's creation for the first.
    pub due_at: DateTime<Utc>,
}

/// The installments of a booking of `total` made at `now`, by `terms`.
///
/// Each but the last is `total × share / 10000` rounded half away from
/// zero; the last is the rest, so they sum to `total` exactly. The first is
/// due at `now`; a later one `daysBeforeCheckIn` before check-in, unless
/// that instant is not after `now`: then it joins the first.
///
/// ```
/// use rental_core::payments::schedule::{StayClock, installments};
/// use rental_core::property::PaymentTerms;
/// use rental_core::{ClockTime, Tz};
///
/// let clock = StayClock {
///     timezone: Tz::Europe__Lisbon,
///     check_in: "2027-07-10".parse().unwrap(),
///     check_out: "2027-07-17".parse().unwrap(),
///     check_in_time: "15:00".parse()?,
///     check_out_time: "11:00".parse()?,
/// };
/// let terms = PaymentTerms::split(&[(3_333, None), (3_333, Some(60)), (3_334, Some(30))], 48);
/// let now = "2027-01-05T09:00:00Z".parse().unwrap();
/// let plan = installments(100_015, &terms, &clock, now);
/// let amounts: Vec<i64> = plan.iter().map(|i| i.amount).collect();
/// assert_eq!(amounts, [33_335, 33_335, 33_345]); // 33,334.9995 rounds up; the last is the rest
/// assert_eq!(plan[2].due_at.to_rfc3339(), "2027-06-10T14:00:00+00:00"); // 15:00 in Lisbon's summer
/// # Ok::<(), rental_core::IdError>(())
/// ```
pub fn installments(
    total: Cents,
    terms: &PaymentTerms,
    clock: &StayClock,
    now: DateTime<Utc>,
) -> Vec<PlannedInstallment> {
    let count = terms.installments.len();
    let mut allotted = 0;
    let mut planned: Vec<PlannedInstallment> = Vec::with_capacity(count);
    for (i, installment) in terms.installments.iter().enumerate() {
        let amount = if i + 1 == count { total - allotted } else { basis_points(total, installment.share) };
        allotted += amount;
        let due_at = installment.days_before_check_in.map_or(now, |days| clock.before_check_in(days));
        match planned.first_mut() {
            Some(first) if due_at <= now => first.amount += amount,
            _ => planned.push(PlannedInstallment { number: 0, amount, due_at: due_at.max(now) }),
        }
    }
    for (number, installment) in (1..).zip(planned.iter_mut()) {
        installment.number = number;
    }
    planned
}

/// When a deposit is held and released for a stay: `holdDaysBeforeCheckIn`
/// before check-in (or at `now`, if that has passed) and
/// `releaseDaysAfterCheckOut` after check-out.
pub fn deposit_instants(
    deposit: &SecurityDeposit,
    clock: &StayClock,
    now: DateTime<Utc>,
) -> (DateTime<Utc>, DateTime<Utc>) {
    (
        clock.before_check_in(deposit.hold_days_before_check_in).max(now),
        clock.after_check_out(deposit.release_days_after_check_out),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn clock(tz: Tz, check_in: &str, check_out: &str) -> StayClock {
        StayClock {
            timezone: tz,
            check_in: check_in.parse().unwrap(),
            check_out: check_out.parse().unwrap(),
            check_in_time: ClockTime::parse("15:00").unwrap(),
            check_out_time: ClockTime::parse("11:00").unwrap(),
        }
    }

    fn t(s: &str) -> DateTime<Utc> {
        s.parse().unwrap()
    }

    #[test]
    fn the_default_terms_take_the_total_at_booking() {
        let now = t("2026-11-22T08:00:00Z");
        let plan = installments(
            134_288,
            &PaymentTerms::default(),
            &clock(Tz::Europe__Lisbon, "2026-12-20", "2026-12-27"),
            now,
        );
        assert_eq!(plan, [PlannedInstallment { number: 1, amount: 134_288, due_at: now }]);
    }

    #[test]
    fn each_share_rounds_half_away_from_zero_and_the_last_takes_the_rest() {
        let terms = PaymentTerms::split(&[(5_000, None), (2_500, Some(60)), (2_500, Some(30))], 48);
        let c = clock(Tz::UTC, "2027-06-01", "2027-06-08");
        let plan = installments(1_001, &terms, &c, t("2026-11-22T08:00:00Z"));
        // 500.5 → 501, 250.25 → 250, and the rest 250.
        assert_eq!(plan.iter().map(|i| i.amount).collect::<Vec<_>>(), [501, 250, 250]);
        assert_eq!(plan[1].due_at, t("2027-04-02T15:00:00Z"));
    }

    #[test]
    fn installments_already_due_join_the_first() {
        let terms = PaymentTerms::split(&[(3_000, None), (3_000, Some(60)), (4_000, Some(14))], 48);
        let c = clock(Tz::UTC, "2026-12-20", "2026-12-27");
        // 28 days ahead: the 60-day installment is due already, the 14-day one is not.
        let plan = installments(10_000, &terms, &c, t("2026-11-22T08:00:00Z"));
        assert_eq!(plan.iter().map(|i| (i.number, i.amount)).collect::<Vec<_>>(), [(1, 6_000), (2, 4_000)]);
        // Booked 3 days ahead: all at once.
        let plan = installments(10_000, &terms, &c, t("2026-12-17T08:00:00Z"));
        assert_eq!(plan.iter().map(|i| (i.number, i.amount)).collect::<Vec<_>>(), [(1, 10_000)]);
    }

    #[test]
    fn instants_are_local_check_in_and_check_out_times_across_daylight_saving() {
        // New York: 2027-03-14 springs forward. 30 days before a 2027-04-10 check-in is
        // 2027-03-11, still standard time (UTC-5); 7 days before is daylight time (UTC-4).
        let c = clock(Tz::America__New_York, "2027-04-10", "2027-04-17");
        assert_eq!(c.before_check_in(30), t("2027-03-11T20:00:00Z"));
        assert_eq!(c.before_check_in(7), t("2027-04-03T19:00:00Z"));
        let deposit = SecurityDeposit::new(30_000).days(2, 3);
        let (hold, release) = deposit_instants(&deposit, &c, t("2026-11-22T08:00:00Z"));
        assert_eq!((hold, release), (t("2027-04-08T19:00:00Z"), t("2027-04-20T15:00:00Z")));
        // A hold whose instant has passed is taken at once.
        let now = t("2027-04-09T12:00:00Z");
        assert_eq!(deposit_instants(&deposit, &c, now).0, now);
    }
}
