//! Property-based checks of the money math (docs/API.md, Payments):
//! installments always sum to the total, refunds never exceed what was
//! paid, and zero-decimal currencies stay in their own minor unit.

use chrono::{DateTime, Days, NaiveDate, TimeDelta, Utc};
use proptest::prelude::*;
use rental_core::payments::refund::{Cancellation, kept, refund_owed, refund_share};
use rental_core::payments::schedule::{StayClock, installments};
use rental_core::property::{CancellationPolicy, PaymentTerms};
use rental_core::{ClockTime, Tz, format_amount};

/// Valid terms: 1 to 4 positive shares summing to 10000, later ones on strictly fewer days.
fn terms() -> impl Strategy<Value = PaymentTerms> {
    (1..=4usize, prop::collection::vec(1..=9_999u32, 3), prop::collection::btree_set(1..=365u32, 3)).prop_map(
        |(count, cuts, days)| {
            let mut cuts: Vec<u32> = cuts.into_iter().take(count - 1).collect();
            cuts.sort_unstable();
            cuts.dedup();
            let mut bounds = vec![0];
            bounds.extend(cuts);
            bounds.push(10_000);
            let shares: Vec<u32> = bounds.windows(2).map(|w| w[1] - w[0]).collect();
            let days: Vec<u32> = days.into_iter().rev().collect();
            let split: Vec<(u32, Option<u32>)> =
                shares.iter().enumerate().map(|(i, &s)| (s, if i == 0 { None } else { Some(days[i - 1]) })).collect();
            PaymentTerms::split(&split, 48)
        },
    )
}

fn zone() -> impl Strategy<Value = Tz> {
    prop::sample::select(vec![
        Tz::UTC,
        Tz::Europe__Lisbon,
        Tz::America__New_York,
        Tz::Asia__Tokyo,
        Tz::Australia__Lord_Howe,
    ])
}

fn stay_clock(tz: Tz, check_in: NaiveDate) -> StayClock {
    StayClock {
        timezone: tz,
        check_in,
        check_out: check_in + Days::new(7),
        check_in_time: ClockTime::parse("15:00").unwrap(),
        check_out_time: ClockTime::parse("11:00").unwrap(),
    }
}

fn now() -> DateTime<Utc> {
    "2026-11-22T08:00:00Z".parse().unwrap()
}

proptest! {
    #[test]
    fn installments_always_sum_to_the_total_and_fall_due_in_order(
        total in 0..=40_000_000_000i64, terms in terms(), tz in zone(), ahead in 0..500u64,
    ) {
        let check_in = NaiveDate::from_ymd_opt(2026, 11, 22).unwrap() + Days::new(ahead);
        let plan = installments(total, &terms, &stay_clock(tz, check_in), now());
        prop_assert_eq!(plan.iter().map(|i| i.amount).sum::<i64>(), total);
        prop_assert!(!plan.is_empty() && plan.len() <= terms.installments.len());
        prop_assert_eq!(plan[0].due_at, now(), "the first is due at booking");
        for (n, pair) in plan.windows(2).enumerate() {
            prop_assert!(pair[0].due_at < pair[1].due_at, "installment {} falls due before the next", n + 1);
            prop_assert_eq!(pair[1].number, pair[0].number + 1);
        }
        prop_assert!(plan.iter().all(|i| i.amount >= 0));
    }

    #[test]
    fn a_refund_never_exceeds_what_was_paid_and_not_refunded(
        total in 0..=40_000_000_000i64, paid_share in 0..=10_000i64, refunded_share in 0..=10_000i64,
        checkpoints in prop::collection::btree_map(0..=365u32, 0..=10_000u32, 0..5),
        grace in prop::option::of((0..=720u32, 0..=365u32)), days_ahead in -5..400i64, hours_after in 0..2_000i64,
    ) {
        let mut policy = CancellationPolicy::checkpoints(&checkpoints.into_iter().collect::<Vec<_>>());
        if let Some((hours, min_days)) = grace {
            policy = policy.grace(hours, min_days);
        }
        let at = now() + TimeDelta::hours(hours_after);
        let check_in = at.date_naive().checked_add_signed(TimeDelta::days(days_ahead)).unwrap();
        let c = Cancellation { created_at: now(), at, check_in, timezone: Tz::UTC };
        let share = refund_share(&policy, &c);
        prop_assert!(share <= 10_000);
        let paid = total * paid_share / 10_000;
        let refunded = paid * refunded_share / 10_000;
        let refund = refund_owed(paid, refunded, kept(total, share));
        prop_assert!(refund >= 0 && refund <= paid - refunded, "refund {} of {} paid, {} refunded", refund, paid, refunded);
        if share == 10_000 {
            prop_assert_eq!(refund, paid - refunded, "a full refund gives back all that is left");
        }
    }

    #[test]
    fn yen_are_scheduled_and_written_in_whole_yen(total in 0..=1_000_000_000i64, terms in terms()) {
        let plan = installments(total, &terms, &stay_clock(Tz::Asia__Tokyo, NaiveDate::from_ymd_opt(2027, 12, 1).unwrap()), now());
        prop_assert_eq!(plan.iter().map(|i| i.amount).sum::<i64>(), total);
        for i in &plan {
            let shown = format_amount(i.amount, "JPY");
            prop_assert!(shown.starts_with('¥') && !shown.contains('.'), "{}", shown);
            prop_assert_eq!(shown[2..].replace(',', "").parse::<i64>().unwrap(), i.amount, "{} is the amount in yen", shown);
        }
    }
}

#[test]
fn a_backup_carries_the_ledger_and_a_restore_brings_it_back() {
    use rental_core::property::SecurityDeposit;
    use rental_core::{MemoryStore, ReadTx as _, Rental, Store as _, backup};
    use rental_tests::{fixed_clock, new_booking, rental_with_demo};

    let rental = rental_with_demo(MemoryStore::new(), fixed_clock());
    rental
        .edit_property("sea-view", |p| {
            p.payments.terms = PaymentTerms::split(&[(5_000, None), (5_000, Some(10))], 48);
            p.payments.security_deposit = Some(SecurityDeposit::new(30_000));
        })
        .unwrap();
    let code =
        rental.create_booking(&new_booking("sea-view", "2026-12-20", "2026-12-27", 3), None).unwrap().booking.code;
    let ledger = rental.payments(code.as_str()).unwrap();
    assert_eq!(ledger.len(), 3);
    let mut out = Vec::new();
    backup::write(&rental.store().read().unwrap(), now(), &mut out).unwrap();
    let restored_store = MemoryStore::new();
    backup::restore(&restored_store, &backup::read(&out).unwrap()).unwrap();
    assert!(restored_store.read().unwrap().booking(code.as_str()).unwrap().is_some());
    let restored = Rental::new(restored_store);
    assert_eq!(restored.payments(code.as_str()).unwrap(), ledger, "every record, as it was");
    let text = String::from_utf8(out).unwrap();
    // The frozen plan rides on the first installment's record.
    assert!(
        text.contains("\"plan\":{") && text.contains("paymentTerms") && text.contains("pay_"),
        "plan and records are in the file"
    );
}
