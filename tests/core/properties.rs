//! Property-based checks of the invariants, with modest case counts so the
//! whole run stays quick on two cores.

use std::collections::BTreeMap;

use chrono::{DateTime, Days, NaiveDate, TimeDelta, Utc};
use proptest::prelude::*;
use rental_core::availability::NightStatus;
use rental_core::lifecycle::Party;
use rental_core::pricing::{self, Problem, basis_points};
use rental_core::property::SeasonalRate;
use rental_core::{
    Action, Booking, BookingQuery, Error, MemoryStore, NewBooking, Property, QuoteRequest, Rental, Status, Stay, Store,
    demo, webhook,
};
use rental_tests::{d, fixed_clock, list_all, new_booking, open_redb, rental_with_demo};

// ---------------------------------------------------------------------------
// (a) No two held or booked stays of a property ever overlap.

/// The two properties the operations use: a 2-night minimum, and a 1-night
/// minimum whose season (from 2026-12-20) asks for 2.
const SLUGS: [&str; 2] = ["sea-view", "harbour-loft"];
/// The first night of the window the operations book in.
const WINDOW_START: &str = "2026-12-01";
const WINDOW_NIGHTS: u64 = 30;

#[derive(Debug, Clone)]
enum Op {
    Create {
        property: usize,
        start: u64,
        nights: u64,
    },
    Confirm {
        pick: usize,
    },
    Cancel {
        pick: usize,
    },
    Authorize {
        pick: usize,
    },
    /// Moves the clock forward by `hours` and expires what is due.
    Expire {
        hours: i64,
    },
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        5 => (0..SLUGS.len(), 0..WINDOW_NIGHTS - 1, 1..6u64)
            .prop_map(|(property, start, nights)| Op::Create { property, start, nights }),
        2 => any::<usize>().prop_map(|pick| Op::Confirm { pick }),
        2 => any::<usize>().prop_map(|pick| Op::Cancel { pick }),
        1 => any::<usize>().prop_map(|pick| Op::Authorize { pick }),
        1 => (1..30i64).prop_map(|hours| Op::Expire { hours }),
    ]
}

/// What the model expects of a booking.
#[derive(Debug, Clone)]
struct Expected {
    property: usize,
    stay: Stay,
    status: Status,
    authorized: bool,
    created_at: DateTime<Utc>,
}

/// Applies `ops` through `rental`, checking each result against a simple
/// model, and the invariants after every step.
fn run_ops<S: Store>(rental: &Rental<S>, clock: &rental_core::ManualClock, ops: &[Op]) -> Result<(), TestCaseError> {
    let mut model: BTreeMap<String, Expected> = BTreeMap::new();
    let mut codes: Vec<String> = Vec::new();
    for op in ops {
        match *op {
            Op::Create { property, start, nights } => {
                let check_in = d(WINDOW_START) + Days::new(start);
                let request = NewBooking {
                    check_in,
                    check_out: check_in + Days::new(nights),
                    ..new_booking(SLUGS[property], WINDOW_START, "2026-12-02", 2)
                };
                let stay = Stay::new(request.check_in, request.check_out).unwrap();
                let quote = rental.quote(&QuoteRequest {
                    property: request.property.clone(),
                    check_in: request.check_in,
                    check_out: request.check_out,
                    guests: 2,
                    children: 0,
                    pets: 0,
                    promo_code: None,
                })?;
                let rule_broken = quote.problems.iter().any(|p| !matches!(p, Problem::NightsTaken { .. }));
                let taken: Vec<NaiveDate> = stay
                    .dates()
                    .filter(|night| {
                        model
                            .values()
                            .any(|e| e.property == property && e.status != Status::Cancelled && e.stay.contains(*night))
                    })
                    .collect();
                match rental.create_booking(&request, None) {
                    Ok(created) => {
                        prop_assert!(!rule_broken && taken.is_empty(), "{request:?} was accepted over {taken:?}");
                        let expected = Expected {
                            property,
                            stay,
                            status: Status::Pending,
                            authorized: false,
                            created_at: rental.now(),
                        };
                        codes.push(created.booking.code.to_string());
                        model.insert(created.booking.code.to_string(), expected);
                    }
                    Err(Error::Validation(_)) => prop_assert!(rule_broken, "{request:?} refused as invalid"),
                    Err(Error::DatesUnavailable { dates }) => {
                        prop_assert!(!rule_broken);
                        prop_assert_eq!(dates, taken);
                    }
                    Err(other) => return Err(TestCaseError::fail(format!("{request:?}: {other}"))),
                }
            }
            Op::Confirm { pick } | Op::Cancel { pick } | Op::Authorize { pick } if !codes.is_empty() => {
                let code = &codes[pick % codes.len()];
                let expected = model.get_mut(code).unwrap();
                let action = match op {
                    Op::Confirm { .. } => Action::Confirm,
                    Op::Cancel { .. } => Action::Cancel { by: Party::Host, reason: None },
                    _ => Action::Authorize,
                };
                let got = rental.update_booking(code, &action);
                let allowed = match (&action, expected.status) {
                    (Action::Confirm, Status::Cancelled)
                    | (Action::Authorize, Status::Confirmed | Status::Cancelled) => false,
                    // The window is in the future: no stay has ended, so a cancel is always allowed.
                    _ => true,
                };
                prop_assert_eq!(got.is_ok(), allowed, "{:?} on {:?}: {:?}", action, expected, got);
                if let Ok(b) = got {
                    match action {
                        Action::Confirm => expected.status = Status::Confirmed,
                        Action::Cancel { .. } => expected.status = Status::Cancelled,
                        _ => expected.authorized = true,
                    }
                    prop_assert_eq!(b.status, expected.status);
                }
            }
            Op::Expire { hours } => {
                clock.advance(TimeDelta::hours(hours));
                let now = rental.now();
                let mut due: Vec<String> = model
                    .iter()
                    .filter(|(_, e)| {
                        e.status == Status::Pending && !e.authorized && e.created_at + TimeDelta::hours(24) <= now
                    })
                    .map(|(code, _)| code.clone())
                    .collect();
                let mut expired: Vec<String> =
                    rental.worker().expire_due()?.into_iter().map(|b| b.code.to_string()).collect();
                due.sort();
                expired.sort();
                prop_assert_eq!(&expired, &due);
                for code in due {
                    model.get_mut(&code).unwrap().status = Status::Cancelled;
                }
            }
            _ => {}
        }
        check_invariants(rental, &model)?;
    }
    Ok(())
}

/// No overlap among active stays, statuses as the model says, and availability agreeing with the bookings.
fn check_invariants<S: Store>(rental: &Rental<S>, model: &BTreeMap<String, Expected>) -> Result<(), TestCaseError> {
    let bookings = list_all(rental, BookingQuery { limit: 7, ..BookingQuery::default() });
    prop_assert_eq!(bookings.len(), model.len());
    for b in &bookings {
        prop_assert_eq!(b.status, model[b.code.as_str()].status, "{}", b.code);
    }
    for slug in SLUGS {
        let active: Vec<&Booking> = bookings.iter().filter(|b| b.property.as_str() == slug && b.is_active()).collect();
        for (i, a) in active.iter().enumerate() {
            for b in &active[i + 1..] {
                prop_assert!(!a.stay.overlaps(b.check_in(), b.check_out()), "{} overlaps {}", a.code, b.code);
            }
        }
        let from = d(WINDOW_START);
        let nights = rental.availability(slug, Some(from), Some(from + Days::new(WINDOW_NIGHTS + 5)))?.nights;
        for n in nights {
            let holder = active.iter().find(|b| b.stay.contains(n.date));
            let want = match holder.map(|b| b.status) {
                _ if n.status == NightStatus::Past => NightStatus::Past,
                Some(Status::Confirmed) => NightStatus::Booked,
                Some(_) => NightStatus::Held,
                None => NightStatus::Available,
            };
            prop_assert_eq!(n.status, want, "{} on {}", slug, n.date);
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, ..ProptestConfig::default() })]

    #[test]
    fn active_stays_never_overlap_whatever_the_operations_in_memory(ops in prop::collection::vec(op(), 1..40)) {
        let clock = fixed_clock();
        let rental = rental_with_demo(MemoryStore::new(), clock.clone());
        run_ops(&rental, &clock, &ops)?;
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 32, ..ProptestConfig::default() })]

    #[test]
    fn active_stays_never_overlap_whatever_the_operations_on_redb(ops in prop::collection::vec(op(), 1..30)) {
        let dir = tempfile::tempdir().unwrap();
        let clock = fixed_clock();
        let rental = rental_with_demo(open_redb(dir.path()), clock.clone());
        run_ops(&rental, &clock, &ops)?;
    }
}

// ---------------------------------------------------------------------------
// (b) A quote's lines always add up.

fn season() -> impl Strategy<Value = SeasonalRate> {
    (0..420u64, 0..120u64, 0..100_000i64, prop::option::of(0..100_000i64), prop::option::of(1..5u32)).prop_map(
        |(start, len, nightly_rate, weekend_rate, min_nights)| {
            let start_date = d("2027-01-01") + Days::new(start);
            SeasonalRate {
                name: "Season".into(),
                start_date,
                end_date: start_date + Days::new(len),
                nightly_rate,
                weekend_rate,
                min_nights,
                max_nights: None,
            }
        },
    )
}

fn property() -> impl Strategy<Value = Property> {
    let rates = (0..200_000i64, prop::option::of(0..250_000i64), 0..10_000i64, 0..50_000i64);
    let percentages = (0..=3_000u32, 0..=5_000u32, 0..=5_000u32);
    let guests = (1..=10u32).prop_flat_map(|max| (Just(max), 1..=max));
    let rules = (1..=3u32, 28..=366u32);
    (rates, percentages, guests, rules, prop::collection::vec(season(), 0..3)).prop_map(
        |(
            (nightly, weekend, extra, cleaning),
            (tax, weekly, monthly),
            (max_guests, base_guests),
            (min, max),
            seasons,
        )| {
            let mut edited = demo::sea_view();
            edited.pricing.nightly_rate = nightly;
            edited.pricing.weekend_rate = weekend;
            edited.pricing.extra_guest_fee = extra;
            edited.pricing.cleaning_fee = cleaning;
            edited.pricing.tax_rate = tax;
            edited.pricing.weekly_discount = weekly;
            edited.pricing.monthly_discount = monthly;
            edited.pricing.max_guests = max_guests;
            edited.pricing.base_guests = base_guests;
            edited.stay_rules.min_nights = min;
            edited.stay_rules.max_nights = max;
            edited.pricing.seasonal_rates = seasons;
            edited
        },
    )
}

/// `amount * bp / 10000`, rounded half away from zero, computed independently of the library.
fn percent(amount: i64, bp: u32) -> i64 {
    let scaled = i128::from(amount) * i128::from(bp);
    let rounded = (scaled.abs() * 2 + 10_000) / 20_000 * scaled.signum();
    i64::try_from(rounded).unwrap()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 128, ..ProptestConfig::default() })]

    #[test]
    fn a_quote_total_is_the_sum_of_its_lines(
        property in property(),
        start in 0..450u64,
        nights in 1..60u64,
        guests in 1..12u32,
    ) {
        prop_assert!(property.validate().is_ok(), "the generator makes valid properties");
        let check_in = d("2027-01-01") + Days::new(start);
        let stay = Stay::new(check_in, check_in + Days::new(nights)).unwrap();
        let facts = pricing::Facts { now: rental_core::Clock::now(&*fixed_clock()), calendar: &[], promo_uses: 0 };
        let q = pricing::quote(&property, &pricing::Asked::stay(stay, guests), &facts);

        prop_assert_eq!(q.total, q.accommodation - q.discount + q.extra_guest_fee + q.cleaning_fee + q.taxes);
        prop_assert_eq!(q.accommodation, q.nightly.iter().map(|n| n.price).sum::<i64>());
        let dates: Vec<NaiveDate> = q.nightly.iter().map(|n| n.date).collect();
        prop_assert_eq!(dates, stay.dates().collect::<Vec<_>>());
        for n in &q.nightly {
            prop_assert_eq!(n.price, property.rate_on(n.date).price);
        }
        let discount_bp = match nights { 28.. => property.pricing.monthly_discount, 7.. => property.pricing.weekly_discount, _ => 0 };
        prop_assert_eq!(q.discount, percent(q.accommodation, discount_bp));
        prop_assert_eq!(q.discount, basis_points(q.accommodation, discount_bp));
        let extra = i64::from(guests.saturating_sub(property.pricing.base_guests));
        prop_assert_eq!(q.extra_guest_fee, property.pricing.extra_guest_fee * extra * i64::try_from(nights).unwrap());
        prop_assert_eq!(q.cleaning_fee, property.pricing.cleaning_fee);
        let taxable = q.accommodation - q.discount + q.extra_guest_fee + q.cleaning_fee;
        prop_assert_eq!(q.taxes, percent(taxable, property.pricing.tax_rate));
        prop_assert!(q.discount >= 0 && q.discount <= q.accommodation && q.taxes >= 0);
        prop_assert_eq!(q.available, q.problems.is_empty());
        prop_assert_eq!(q.problems.iter().any(|p| p.code() == "max_guests"), guests > property.pricing.max_guests);

        // The engine prices the same way once the property is imported.
        let rental = Rental::new(MemoryStore::new()).with_clock(fixed_clock());
        rental.import_properties(std::slice::from_ref(&property))?;
        let request = QuoteRequest { property: "sea-view".parse().unwrap(), check_in, check_out: stay.check_out(), guests, children: 0, pets: 0, promo_code: None };
        prop_assert_eq!(rental.quote(&request)?, q);
    }
}

// ---------------------------------------------------------------------------
// (c) Webhook signatures.

proptest! {
    #![proptest_config(ProptestConfig { cases: 128, ..ProptestConfig::default() })]

    #[test]
    fn a_signed_body_verifies_and_any_changed_byte_does_not(
        secret in prop::collection::vec(any::<u8>(), 1..64),
        body in prop::collection::vec(any::<u8>(), 1..512),
        at in any::<prop::sample::Index>(),
        flip in 1..=255u8,
    ) {
        let header = webhook::sign(&secret, &body);
        prop_assert!(header.starts_with("sha256=") && header.len() == 7 + 64);
        prop_assert!(webhook::verify(&secret, &body, &header));
        let mut tampered = body.clone();
        let i = at.index(tampered.len());
        tampered[i] ^= flip;
        prop_assert!(!webhook::verify(&secret, &tampered, &header), "byte {} changed and still verified", i);
        let mut other_secret = secret.clone();
        other_secret[0] ^= flip;
        prop_assert!(!webhook::verify(&other_secret, &body, &header));
        let mut longer = body.clone();
        longer.push(b' ');
        prop_assert!(!webhook::verify(&secret, &longer, &header));
    }
}
