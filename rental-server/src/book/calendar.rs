//! The page's calendar, as data: months of nights, each free or taken with its
//! price, and which days can begin a stay (or, once one is picked, end it).

use chrono::{Datelike, Days, Months, NaiveDate};
use rental_core::availability::{Night, NightStatus};
use rental_core::property::{Cents, Property};

/// How many months the page shows at once.
pub const MONTHS_SHOWN: u32 = 2;

/// What a guest can do with a day.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pick {
    /// Nothing: taken, past, or no valid stay starts (or ends) here.
    None,
    /// A stay can begin here.
    CheckIn,
    /// The picked stay can end here.
    CheckOut,
}

/// Why a free day cannot be picked, or what is special about one that can
/// (docs/API.md section 25); the page says it in words.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Why {
    /// Not a weekday a stay may start on.
    CheckInDay,
    /// Not a weekday a stay may end on.
    CheckOutDay,
    /// Sooner than the advance notice allows.
    Notice,
    /// Further ahead than the booking window (or the horizon).
    Window,
    /// Free, but kept free to prepare for a neighbouring stay or block.
    Preparation,
    /// Fewer nights are free from here than the stay minimum, this many.
    TooShort(u32),
    /// The picked stay would be shorter than its minimum, this many nights.
    MinNights(u32),
    /// The picked stay would be longer than its maximum, this many nights.
    MaxNights(u32),
    /// Pickable: a short gap between stays, bookable from this many nights.
    Gap(u32),
}

/// One day of the grid.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Day {
    /// The date (the night that starts on it).
    pub date: NaiveDate,
    /// The night's rate before discounts, fees and taxes.
    pub price: Cents,
    /// The night is free to book (not past, held, booked or blocked).
    pub free: bool,
    /// The day is before the property's today: shown as past, without a price.
    pub past: bool,
    /// What picking it does.
    pub pick: Pick,
    /// Inside the picked stay (check-in up to the last night).
    pub chosen: bool,
    /// Why it cannot be picked, or what is special about it.
    pub why: Option<Why>,
}

/// The property's today and the last day a stay may start on (the horizon).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Bounds {
    /// The property's today.
    pub today: NaiveDate,
    /// The booking horizon's last check-in.
    pub last_check_in: NaiveDate,
}

/// A month of days in weeks from Monday; `None` pads the first and last week.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Month {
    /// The first of the month.
    pub first: NaiveDate,
    /// Weeks of seven.
    pub weeks: Vec<[Option<Day>; 7]>,
}

/// The first of the month of `date`.
pub fn month_of(date: NaiveDate) -> NaiveDate {
    date.with_day(1).unwrap_or(date)
}

/// The first of the month `n` months after `first`.
pub fn add_months(first: NaiveDate, n: u32) -> NaiveDate {
    first.checked_add_months(Months::new(n)).unwrap_or(first)
}

/// The nights past the shown months a check-in needs to be judged: the longest minimum stay.
pub fn lookahead(property: &Property) -> u32 {
    let seasons = property.pricing.seasonal_rates.iter().filter_map(|s| s.min_nights);
    seasons.chain([property.stay_rules.min_nights]).max().unwrap_or(1)
}

/// The months from `first`, given `nights` (from `first` on, at least through
/// the shown months plus [`lookahead`]), today and the last check-in date, and the stay
/// picked so far (`check_in`, and `check_out` once both are picked).
pub fn months(
    property: &Property,
    first: NaiveDate,
    nights: &[Night],
    bounds: Bounds,
    picked: (Option<NaiveDate>, Option<NaiveDate>),
) -> Vec<Month> {
    let last_check_in = bounds.last_check_in;
    let free = |date: NaiveDate| night(nights, date).is_some_and(|n| n.status == NightStatus::Available);
    let all_free = |from: NaiveDate, count: u32| (0..u64::from(count)).all(|i| free(from + Days::new(i)));
    // A night's `checkIn` and `checkOut` carry the weekday, notice and window
    // rules, its `minNights` the gap relief (docs/API.md section 25).
    let can_begin = |date: NaiveDate| {
        date <= last_check_in
            && night(nights, date).is_some_and(|n| n.check_in && free(date) && all_free(date, n.min_nights))
    };
    let can_end = |check_in: NaiveDate, date: NaiveDate| {
        let rate = property.rate_on(check_in);
        let min = night(nights, check_in).map_or(rate.min_nights, |n| n.min_nights);
        let stay = (date - check_in).num_days();
        stay > 0
            && (i64::from(min)..=i64::from(rate.max_nights)).contains(&stay)
            && night(nights, date).is_none_or(|n| n.check_out)
            && all_free(check_in, stay as u32)
    };
    let day = |date: NaiveDate| {
        let pick = match picked {
            (Some(check_in), None) if can_end(check_in, date) => Pick::CheckOut,
            (Some(check_in), None) if date <= check_in && can_begin(date) => Pick::CheckIn,
            (Some(_), None) => Pick::None,
            _ if can_begin(date) => Pick::CheckIn,
            _ => Pick::None,
        };
        let chosen = match picked {
            (Some(ci), Some(co)) => ci <= date && date < co,
            (Some(ci), None) => ci == date,
            _ => false,
        };
        let past = night(nights, date).is_some_and(|n| n.status == NightStatus::Past);
        let why = why(property, nights, bounds, picked, date, pick);
        Day { date, price: property.rate_on(date).price, free: free(date), past, pick, chosen, why }
    };
    (0..MONTHS_SHOWN).map(|i| month(add_months(first, i), &day)).collect()
}

/// Why `date` is not offered (or, offered as a check-in, that it opens a short
/// gap). Taken and past days say nothing; nor does a check-out past a taken night.
fn why(
    property: &Property,
    nights: &[Night],
    bounds: Bounds,
    picked: (Option<NaiveDate>, Option<NaiveDate>),
    date: NaiveDate,
    pick: Pick,
) -> Option<Why> {
    let n = night(nights, date)?;
    let rules = &property.stay_rules;
    let rate = property.rate_on(date);
    match (pick, n.status) {
        (Pick::CheckIn, _) => (n.min_nights < rate.min_nights).then_some(Why::Gap(n.min_nights)),
        (Pick::None, NightStatus::Preparation) => Some(Why::Preparation),
        (Pick::None, NightStatus::Available) => match picked {
            (Some(check_in), None) if date > check_in => {
                let min = night(nights, check_in).map_or(rate.min_nights, |c| c.min_nights);
                let stay = u32::try_from((date - check_in).num_days()).unwrap_or(u32::MAX);
                let max = property.rate_on(check_in).max_nights;
                let free = (0..u64::from(stay)).all(|i| {
                    night(nights, check_in + Days::new(i)).is_some_and(|x| x.status == NightStatus::Available)
                });
                if stay > max {
                    Some(Why::MaxNights(max))
                } else if !free {
                    None
                } else if stay < min {
                    Some(Why::MinNights(min))
                } else {
                    (!n.check_out).then_some(Why::CheckOutDay)
                }
            }
            _ if !n.check_in => {
                let window = rules.booking_window_days.and_then(|d| bounds.today.checked_add_days(Days::new(d.into())));
                if date > bounds.last_check_in || window.is_some_and(|last| date > last) {
                    Some(Why::Window)
                } else if !rules.check_in_days.contains(date.weekday()) {
                    Some(Why::CheckInDay)
                } else {
                    Some(Why::Notice)
                }
            }
            _ if date > bounds.last_check_in => Some(Why::Window),
            _ => Some(Why::TooShort(n.min_nights)),
        },
        // Taken and past days say nothing; a check-out needs nothing said.
        (Pick::CheckOut | Pick::None, _) => None,
    }
}

fn night(nights: &[Night], date: NaiveDate) -> Option<&Night> {
    let first = nights.first()?.date;
    let i = usize::try_from((date - first).num_days()).ok()?;
    nights.get(i).filter(|n| n.date == date)
}

fn month(first: NaiveDate, day: &impl Fn(NaiveDate) -> Day) -> Month {
    let next = add_months(first, 1);
    let mut weeks = Vec::new();
    let mut week = [None; 7];
    let mut date = first;
    while date < next {
        let col = date.weekday().num_days_from_monday() as usize;
        week[col] = Some(day(date));
        if col == 6 {
            weeks.push(std::mem::take(&mut week));
        }
        date = date + Days::new(1);
    }
    if week.iter().any(Option::is_some) {
        weeks.push(week);
    }
    Month { first, weeks }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rental_core::availability::nights;
    use rental_core::calendar::{CalendarEntry, EntryKind};
    use rental_core::{Stay, demo};

    fn d(s: &str) -> NaiveDate {
        s.parse().unwrap()
    }

    fn grid(taken: &[(&str, &str)], picked: (Option<&str>, Option<&str>)) -> Vec<Day> {
        grid_of(&demo::sea_view(), taken, picked) // 2 nights at least, 28 at most
    }

    fn grid_of(p: &Property, taken: &[(&str, &str)], picked: (Option<&str>, Option<&str>)) -> Vec<Day> {
        let calendar: Vec<CalendarEntry> = taken
            .iter()
            .map(|(a, b)| CalendarEntry {
                holder: "x".into(),
                stay: Stay::new(d(a), d(b)).unwrap(),
                kind: EntryKind::Booked,
                guest_name: rental_core::short_text::ShortText::default(),
                guests: 2,
            })
            .collect();
        let range = Stay::new(d("2026-12-01"), d("2027-02-05")).unwrap();
        let a = nights(p, range, "2026-12-03T12:00:00Z".parse().unwrap(), &calendar);
        let picked = (picked.0.map(d), picked.1.map(d));
        let bounds = Bounds { today: d("2026-12-03"), last_check_in: d("2029-12-03") };
        let months = months(p, d("2026-12-01"), &a.nights, bounds, picked);
        months.iter().flat_map(|m| m.weeks.iter().flatten().flatten().copied()).collect()
    }

    fn pick(days: &[Day], date: &str) -> Pick {
        days.iter().find(|x| x.date == d(date)).unwrap().pick
    }

    #[test]
    fn two_months_start_on_mondays_and_past_days_cannot_be_picked() {
        let days = grid(&[], (None, None));
        assert_eq!(days.len(), 31 + 31);
        assert_eq!(pick(&days, "2026-12-02"), Pick::None, "before today");
        assert_eq!(pick(&days, "2026-12-03"), Pick::CheckIn);
        let bounds = Bounds { today: d("2026-12-03"), last_check_in: d("2029-01-01") };
        let m = &months(&demo::sea_view(), d("2026-12-01"), &[], bounds, (None, None))[0];
        assert_eq!(m.weeks[0][0], None, "December 2026 begins on a Tuesday");
        assert!(m.weeks[0][1].is_some());
    }

    #[test]
    fn a_free_day_before_a_taken_night_cannot_begin_a_two_night_stay() {
        let days = grid(&[("2026-12-20", "2026-12-23")], (None, None));
        assert_eq!(pick(&days, "2026-12-18"), Pick::CheckIn);
        assert_eq!(pick(&days, "2026-12-19"), Pick::None, "its second night is taken");
        assert_eq!(pick(&days, "2026-12-20"), Pick::None, "taken");
        assert!(!days.iter().find(|x| x.date == d("2026-12-21")).unwrap().free);
        assert_eq!(pick(&days, "2026-12-23"), Pick::CheckIn);
    }

    #[test]
    fn after_a_check_in_the_days_that_end_a_valid_stay_are_offered() {
        let days = grid(&[("2026-12-20", "2026-12-23")], (Some("2026-12-15"), None));
        assert_eq!(pick(&days, "2026-12-16"), Pick::None, "one night is too short");
        assert_eq!(pick(&days, "2026-12-17"), Pick::CheckOut);
        assert_eq!(pick(&days, "2026-12-20"), Pick::CheckOut, "leaving the morning the next stay arrives");
        assert_eq!(pick(&days, "2026-12-21"), Pick::None, "a taken night inside");
        assert_eq!(pick(&days, "2026-12-10"), Pick::CheckIn, "an earlier day starts over");
    }

    #[test]
    fn a_weekday_rule_and_a_gap_show_in_the_calendar() {
        use rental_core::property::{GapFill, PriceRules};
        let mut p = demo::sea_view();
        p.stay_rules.check_in_days = serde_json::from_str(r#"["sat"]"#).unwrap();
        p.pricing.rules = PriceRules::default().gap_fill(GapFill { max_gap_nights: 1, min_nights: 1, discount: 1_000 });
        // Saturday 19 December is a one-night gap between two stays.
        let days = grid_of(&p, &[("2026-12-14", "2026-12-19"), ("2026-12-20", "2026-12-24")], (None, None));
        assert_eq!(pick(&days, "2026-12-12"), Pick::CheckIn, "a Saturday");
        assert_eq!(pick(&days, "2026-12-11"), Pick::None, "a Friday");
        assert_eq!(pick(&days, "2026-12-19"), Pick::CheckIn, "the one-night gap, relieved of the 2-night minimum");
        let picked =
            grid_of(&p, &[("2026-12-14", "2026-12-19"), ("2026-12-20", "2026-12-24")], (Some("2026-12-19"), None));
        assert_eq!(pick(&picked, "2026-12-20"), Pick::CheckOut, "one night fills the gap");
    }

    fn why_of(days: &[Day], date: &str) -> Option<Why> {
        days.iter().find(|x| x.date == d(date)).unwrap().why
    }

    #[test]
    fn each_day_that_cannot_be_picked_knows_why() {
        let mut p = demo::sea_view(); // 2 nights at least
        p.stay_rules.check_in_days = serde_json::from_str(r#"["mon","tue","wed","thu","sat","sun"]"#).unwrap();
        p.stay_rules.check_out_days = serde_json::from_str(r#"["mon","tue","wed","thu","fri","sat"]"#).unwrap();
        p.stay_rules.advance_notice_hours = 72; // today is Thursday 3 December, 12:00 UTC
        p.stay_rules.booking_window_days = Some(40);
        p.stay_rules.preparation_nights = 1;
        let taken = [("2026-12-14", "2026-12-19"), ("2026-12-22", "2026-12-24")];
        let days = grid_of(&p, &taken, (None, None));
        let cases = [
            ("2026-12-05", Some(Why::Notice)),     // Saturday 15:00 is 51 hours away
            ("2026-12-11", Some(Why::CheckInDay)), // a Friday
            ("2026-12-13", Some(Why::Preparation)),
            ("2026-12-19", Some(Why::Preparation)),
            ("2026-12-20", Some(Why::TooShort(2))), // the 20th alone is free between two preparation nights
            ("2026-12-12", Some(Why::TooShort(2))), // the 13th is kept to prepare
            ("2027-01-13", Some(Why::Window)),
            ("2026-12-10", None), // pickable, nothing special
            ("2026-12-02", None), // past
            ("2026-12-15", None), // taken says nothing
        ];
        for (date, why) in cases {
            assert_eq!(why_of(&days, date), why, "{date}");
        }
        let picked = grid_of(&p, &taken, (Some("2026-12-28"), None));
        assert_eq!(why_of(&picked, "2026-12-29"), Some(Why::MinNights(2)));
        assert_eq!(why_of(&picked, "2027-01-03"), Some(Why::CheckOutDay), "a Sunday");
        p.pricing.rules = rental_core::property::PriceRules::default().gap_fill(rental_core::property::GapFill {
            max_gap_nights: 2,
            min_nights: 1,
            discount: 0,
        });
        p.stay_rules.preparation_nights = 0;
        let days = grid_of(&p, &[("2026-12-14", "2026-12-19"), ("2026-12-20", "2026-12-24")], (None, None));
        assert_eq!(why_of(&days, "2026-12-19"), Some(Why::Gap(1)), "a one-night gap, bookable");
    }
}
