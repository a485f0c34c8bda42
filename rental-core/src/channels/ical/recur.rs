//! RRULE reading and expansion: FREQ DAILY/WEEKLY/MONTHLY/YEARLY with INTERVAL, COUNT, UNTIL,
//! BYDAY (with ordinals), BYMONTHDAY and BYMONTH, bounded so a hostile feed cannot explode.

use chrono::{Datelike, Days, Months, NaiveDate, NaiveDateTime, Weekday};

/// The most occurrences one rule yields, `DTSTART` included.
pub(crate) const MAX_OCCURRENCES: usize = 1_000;
/// How far a rule without `COUNT` or `UNTIL` runs past its start.
const OPEN_ENDED_YEARS: u32 = 10;
/// How far any rule runs past its start, whatever its `COUNT` or `UNTIL` say.
const HARD_LIMIT_YEARS: u32 = 100;
/// The most periods (days, weeks, months, years) one expansion walks through.
const MAX_PERIODS: u32 = 5_000;
/// The most distinct `BYDAY` entries a usable rule has.
const MAX_BY_DAY: usize = 64;
/// The periods a whole feed may walk through, all its rules together. It also
/// bounds how many occurrences (and so how much memory) rules can produce.
pub(crate) const FEED_BUDGET: u32 = 100_000;

/// How often a rule repeats.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum Freq {
    /// Every `INTERVAL` days.
    Daily,
    /// Every `INTERVAL` weeks.
    Weekly,
    /// Every `INTERVAL` months.
    Monthly,
    /// Every `INTERVAL` years.
    Yearly,
}

/// A recurrence rule as read from `RRULE`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) struct Rule {
    pub freq: Freq,
    pub interval: u32,
    pub count: Option<u32>,
    /// The raw `UNTIL` value; the caller reads it in the event's zone.
    pub until: Option<String>,
    /// Weekdays, each with an optional ordinal (`1MO`, `-1SU`).
    pub by_day: Vec<(Option<i32>, Weekday)>,
    pub by_month_day: Vec<i32>,
    pub by_month: Vec<u32>,
    pub week_start: Weekday,
    /// Rule parts understood by RFC 5545 but not applied here (`BYSETPOS`, ...).
    pub ignored: Vec<String>,
}

/// Reads an `RRULE` value; `Err` names what makes it unusable.
pub(crate) fn parse_rule(raw: &str) -> Result<Rule, String> {
    let mut rule = Rule {
        freq: Freq::Daily,
        interval: 1,
        count: None,
        until: None,
        by_day: Vec::new(),
        by_month_day: Vec::new(),
        by_month: Vec::new(),
        week_start: Weekday::Mon,
        ignored: Vec::new(),
    };
    let mut freq = None;
    for part in raw.split(';').filter(|p| !p.trim().is_empty()) {
        let (key, value) = part.split_once('=').ok_or_else(|| format!("rule part {part:?} has no value"))?;
        let value = value.trim();
        match key.trim().to_ascii_uppercase().as_str() {
            "FREQ" => freq = Some(parse_freq(value)?),
            "INTERVAL" => rule.interval = positive(value, "INTERVAL")?,
            "COUNT" => rule.count = Some(positive(value, "COUNT")?),
            "UNTIL" => rule.until = Some(value.to_owned()),
            "BYDAY" => rule.by_day = list(value, parse_by_day)?,
            "BYMONTHDAY" => rule.by_month_day = list(value, parse_month_day)?,
            "BYMONTH" => rule.by_month = list(value, parse_month)?,
            "WKST" => rule.week_start = parse_weekday(value).ok_or("bad WKST")?,
            other => rule.ignored.push(other.to_owned()),
        }
    }
    rule.freq = freq.ok_or("no FREQ")?;
    rule.by_day.sort_unstable_by_key(|&(n, day)| (n, day.num_days_from_monday()));
    rule.by_day.dedup();
    if rule.by_day.len() > MAX_BY_DAY {
        return Err("too many BYDAY values".to_owned());
    }
    rule.by_month_day.sort_unstable();
    rule.by_month_day.dedup();
    rule.by_month.sort_unstable();
    rule.by_month.dedup();
    Ok(rule)
}

fn parse_freq(value: &str) -> Result<Freq, String> {
    match value.to_ascii_uppercase().as_str() {
        "DAILY" => Ok(Freq::Daily),
        "WEEKLY" => Ok(Freq::Weekly),
        "MONTHLY" => Ok(Freq::Monthly),
        "YEARLY" => Ok(Freq::Yearly),
        other => Err(format!("FREQ={other} is not expanded")),
    }
}

fn positive(value: &str, what: &str) -> Result<u32, String> {
    value.parse::<u32>().ok().filter(|&n| n > 0).ok_or_else(|| format!("bad {what} {value:?}"))
}

fn list<T>(value: &str, item: impl Fn(&str) -> Option<T>) -> Result<Vec<T>, String> {
    value.split(',').map(|v| item(v.trim()).ok_or_else(|| format!("bad rule value {v:?}"))).collect()
}

fn parse_weekday(value: &str) -> Option<Weekday> {
    Some(match value.to_ascii_uppercase().as_str() {
        "MO" => Weekday::Mon,
        "TU" => Weekday::Tue,
        "WE" => Weekday::Wed,
        "TH" => Weekday::Thu,
        "FR" => Weekday::Fri,
        "SA" => Weekday::Sat,
        "SU" => Weekday::Sun,
        _ => return None,
    })
}

fn parse_by_day(value: &str) -> Option<(Option<i32>, Weekday)> {
    let split = value.len().checked_sub(2)?;
    let day = parse_weekday(value.get(split..)?)?;
    let ordinal = value.get(..split)?;
    if ordinal.is_empty() {
        return Some((None, day));
    }
    let n: i32 = ordinal.strip_prefix('+').unwrap_or(ordinal).parse().ok()?;
    (n != 0 && n.abs() <= 53).then_some((Some(n), day))
}

fn parse_month_day(value: &str) -> Option<i32> {
    let n: i32 = value.strip_prefix('+').unwrap_or(value).parse().ok()?;
    (n != 0 && n.abs() <= 31).then_some(n)
}

fn parse_month(value: &str) -> Option<u32> {
    value.parse().ok().filter(|m| (1..=12).contains(m))
}

/// The start of every occurrence of `rule` from `start`, `start` first, up to
/// `until` (inclusive, wall-clock), `COUNT`, and the expansion bounds.
///
/// `budget` is the feed's remaining allowance of periods; each period walked
/// uses one, and an exhausted budget ends the expansion early.
pub(crate) fn expand(
    rule: &Rule,
    start: NaiveDateTime,
    until: Option<NaiveDateTime>,
    budget: &mut u32,
) -> Vec<NaiveDateTime> {
    let years = if until.is_some() || rule.count.is_some() { HARD_LIMIT_YEARS } else { OPEN_ENDED_YEARS };
    let bound = start.checked_add_months(Months::new(12 * years)).unwrap_or(NaiveDateTime::MAX);
    let last = until.map_or(bound, |until| until.min(bound));
    let wanted = rule.count.map_or(MAX_OCCURRENCES, |n| (n as usize).min(MAX_OCCURRENCES));
    let mut out = vec![start];
    for period in 0..MAX_PERIODS {
        if out.len() >= wanted || *budget == 0 {
            break;
        }
        *budget -= 1;
        let Some((first_day, mut days)) = period_days(rule, start.date(), period) else { break };
        if first_day > last.date() {
            break;
        }
        days.sort_unstable();
        days.dedup();
        for day in days {
            let at = day.and_time(start.time());
            if at > start && at <= last && out.len() < wanted {
                out.push(at);
            }
        }
    }
    out
}

/// The latest occurrence of `rule` from `start` not after `at` (nor `until`):
/// when a `VTIMEZONE` observance last began. Yearly rules, the usual case, are
/// answered from the two years around `at` without expanding from the start.
pub(crate) fn latest_before(
    rule: &Rule,
    start: NaiveDateTime,
    until: Option<NaiveDateTime>,
    at: NaiveDateTime,
) -> Option<NaiveDateTime> {
    let limit = until.map_or(at, |until| until.min(at));
    if limit < start {
        return None;
    }
    if rule.freq == Freq::Yearly && rule.interval == 1 && rule.count.is_none() {
        for year in [limit.year(), limit.year() - 1] {
            let found = year_days(rule, start.date(), year)
                .into_iter()
                .map(|day| day.and_time(start.time()))
                .filter(|&onset| onset >= start && onset <= limit)
                .max();
            if found.is_some() {
                return found;
            }
        }
    }
    let mut budget = MAX_PERIODS;
    expand(rule, start, Some(limit), &mut budget).into_iter().filter(|&onset| onset <= limit).max()
}

/// The first day of period number `k` and the candidate days the rule picks in it.
fn period_days(rule: &Rule, start: NaiveDate, k: u32) -> Option<(NaiveDate, Vec<NaiveDate>)> {
    let step = k.checked_mul(rule.interval)?;
    match rule.freq {
        Freq::Daily => {
            let day = start.checked_add_days(Days::new(u64::from(step)))?;
            let keep = month_ok(rule, day) && month_day_ok(rule, day) && weekday_ok(rule, day);
            Some((day, if keep { vec![day] } else { Vec::new() }))
        }
        Freq::Weekly => {
            let back = (7 + start.weekday().num_days_from_monday() - rule.week_start.num_days_from_monday()) % 7;
            let week =
                start.checked_sub_days(Days::new(u64::from(back)))?.checked_add_days(Days::new(7 * u64::from(step)))?;
            let weekdays: Vec<Weekday> = if rule.by_day.is_empty() {
                vec![start.weekday()]
            } else {
                rule.by_day.iter().map(|&(_, day)| day).collect()
            };
            let days = weekdays
                .into_iter()
                .filter_map(|day| {
                    let offset = (7 + day.num_days_from_monday() - rule.week_start.num_days_from_monday()) % 7;
                    week.checked_add_days(Days::new(u64::from(offset)))
                })
                .filter(|&day| month_ok(rule, day))
                .collect();
            Some((week, days))
        }
        Freq::Monthly => {
            let month = first_of_month(start).checked_add_months(Months::new(step))?;
            let days = if month_ok(rule, month) { month_days(rule, start, month) } else { Vec::new() };
            Some((month, days))
        }
        Freq::Yearly => {
            let year = start.year().checked_add(i32::try_from(step).ok()?)?;
            let january = NaiveDate::from_ymd_opt(year, 1, 1)?;
            Some((january, year_days(rule, start, year)))
        }
    }
}

fn year_days(rule: &Rule, start: NaiveDate, year: i32) -> Vec<NaiveDate> {
    if rule.by_month.is_empty() && rule.by_month_day.is_empty() && !rule.by_day.is_empty() {
        let (Some(first), Some(last)) = (NaiveDate::from_ymd_opt(year, 1, 1), NaiveDate::from_ymd_opt(year, 12, 31))
        else {
            return Vec::new();
        };
        return weekdays_between(&rule.by_day, first, last);
    }
    let months = if rule.by_month.is_empty() { vec![start.month()] } else { rule.by_month.clone() };
    months
        .into_iter()
        .filter_map(|m| NaiveDate::from_ymd_opt(year, m, 1))
        .flat_map(|month| month_days(rule, start, month))
        .collect()
}

/// The days the rule picks in the month beginning on `month`.
fn month_days(rule: &Rule, start: NaiveDate, month: NaiveDate) -> Vec<NaiveDate> {
    let Some(last) = last_of_month(month) else { return Vec::new() };
    let by_month_day: Vec<NaiveDate> = rule
        .by_month_day
        .iter()
        .filter_map(|&n| {
            let day = if n > 0 { n } else { last.day() as i32 + 1 + n };
            u32::try_from(day).ok().and_then(|d| month.with_day(d))
        })
        .collect();
    let by_day = weekdays_between(&rule.by_day, month, last);
    match (rule.by_month_day.is_empty(), rule.by_day.is_empty()) {
        (false, false) => by_month_day.into_iter().filter(|d| by_day.contains(d)).collect(),
        (false, true) => by_month_day,
        (true, false) => by_day,
        (true, true) => month.with_day(start.day()).into_iter().collect(),
    }
}

/// The days from `first` to `last` that `by_day` names, ordinals counted within that span.
fn weekdays_between(by_day: &[(Option<i32>, Weekday)], first: NaiveDate, last: NaiveDate) -> Vec<NaiveDate> {
    let mut by_weekday: [Vec<NaiveDate>; 7] = Default::default();
    if !by_day.is_empty() {
        for day in first.iter_days().take_while(|d| *d <= last) {
            by_weekday[day.weekday().num_days_from_monday() as usize].push(day);
        }
    }
    let mut out = Vec::new();
    for &(ordinal, weekday) in by_day {
        let all = &by_weekday[weekday.num_days_from_monday() as usize];
        match ordinal {
            None => out.extend_from_slice(all),
            Some(n) if n > 0 => out.extend(all.get(n as usize - 1).copied()),
            Some(n) => out.extend(all.len().checked_sub(n.unsigned_abs() as usize).and_then(|i| all.get(i)).copied()),
        }
    }
    out
}

fn month_ok(rule: &Rule, day: NaiveDate) -> bool {
    rule.by_month.is_empty() || rule.by_month.contains(&day.month())
}

fn month_day_ok(rule: &Rule, day: NaiveDate) -> bool {
    let Some(last) = last_of_month(day) else { return false };
    let from_end = day.day() as i32 - last.day() as i32 - 1;
    rule.by_month_day.is_empty() || rule.by_month_day.iter().any(|&n| n == day.day() as i32 || n == from_end)
}

fn weekday_ok(rule: &Rule, day: NaiveDate) -> bool {
    rule.by_day.is_empty() || rule.by_day.iter().any(|&(_, weekday)| weekday == day.weekday())
}

fn first_of_month(day: NaiveDate) -> NaiveDate {
    day.with_day(1).unwrap_or(day)
}

fn last_of_month(day: NaiveDate) -> Option<NaiveDate> {
    first_of_month(day).checked_add_months(Months::new(1))?.pred_opt()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(y: i32, m: u32, d: u32) -> NaiveDateTime {
        NaiveDate::from_ymd_opt(y, m, d).and_then(|d| d.and_hms_opt(10, 0, 0)).expect("a date")
    }

    fn run(rule: &str, start: NaiveDateTime) -> Vec<String> {
        let rule = parse_rule(rule).expect("a rule");
        expand(&rule, start, None, &mut { FEED_BUDGET }).iter().map(|d| d.date().to_string()).collect()
    }

    fn run_until(rule: &str, start: NaiveDateTime, until: NaiveDateTime) -> Vec<String> {
        let rule = parse_rule(rule).expect("a rule");
        expand(&rule, start, Some(until), &mut { FEED_BUDGET }).iter().map(|d| d.date().to_string()).collect()
    }

    #[test]
    fn daily_with_interval_and_count() {
        assert_eq!(run("FREQ=DAILY;INTERVAL=2;COUNT=3", at(2026, 1, 30)), ["2026-01-30", "2026-02-01", "2026-02-03"]);
    }

    #[test]
    fn weekly_count_two() {
        assert_eq!(run("FREQ=WEEKLY;COUNT=2", at(2026, 12, 14)), ["2026-12-14", "2026-12-21"]);
    }

    #[test]
    fn weekly_by_day_until_inclusive() {
        // 2026-06-01 is a Monday.
        assert_eq!(
            run_until("FREQ=WEEKLY;BYDAY=MO,FR", at(2026, 6, 1), at(2026, 6, 12)),
            ["2026-06-01", "2026-06-05", "2026-06-08", "2026-06-12"]
        );
    }

    #[test]
    fn monthly_by_month_day_skips_short_months() {
        assert_eq!(run("FREQ=MONTHLY;COUNT=3", at(2026, 1, 31)), ["2026-01-31", "2026-03-31", "2026-05-31"]);
        assert_eq!(
            run("FREQ=MONTHLY;BYMONTHDAY=-1;COUNT=3", at(2026, 1, 31)),
            ["2026-01-31", "2026-02-28", "2026-03-31"]
        );
    }

    #[test]
    fn monthly_ordinal_weekdays() {
        assert_eq!(run("FREQ=MONTHLY;BYDAY=1MO;COUNT=3", at(2026, 1, 5)), ["2026-01-05", "2026-02-02", "2026-03-02"]);
        assert_eq!(run("FREQ=MONTHLY;BYDAY=-1SU;COUNT=2", at(2026, 1, 25)), ["2026-01-25", "2026-02-22"]);
    }

    #[test]
    fn yearly_last_sunday_of_march() {
        assert_eq!(
            run("FREQ=YEARLY;BYMONTH=3;BYDAY=-1SU;COUNT=3", at(2026, 3, 29)),
            ["2026-03-29", "2027-03-28", "2028-03-26"]
        );
    }

    #[test]
    fn yearly_on_a_leap_day_only_in_leap_years() {
        assert_eq!(run("FREQ=YEARLY;COUNT=2", at(2024, 2, 29)), ["2024-02-29", "2028-02-29"]);
    }

    #[test]
    fn daily_filtered_by_month_and_weekday() {
        // Weekends of February 2026 only, until the end of February.
        let days = run_until("FREQ=DAILY;BYMONTH=2;BYDAY=SA,SU", at(2026, 1, 31), at(2026, 2, 28));
        assert_eq!(days.len(), 9, "{days:?}");
        assert_eq!(days[1], "2026-02-01");
    }

    #[test]
    fn open_ended_rules_stop_at_the_bound() {
        assert_eq!(run("FREQ=DAILY", at(2026, 1, 1)).len(), MAX_OCCURRENCES);
        assert_eq!(run("FREQ=YEARLY", at(2026, 1, 1)).len(), 11, "10 years after the start, start included");
        assert_eq!(run("FREQ=DAILY;COUNT=999999", at(2026, 1, 1)).len(), MAX_OCCURRENCES);
    }

    #[test]
    fn impossible_rules_end_quickly_with_only_the_start() {
        assert_eq!(run("FREQ=YEARLY;BYMONTH=2;BYMONTHDAY=30;COUNT=5", at(2026, 1, 1)), ["2026-01-01"]);
        assert_eq!(run_until("FREQ=DAILY;BYMONTHDAY=31;BYMONTH=2", at(2026, 1, 1), NaiveDateTime::MAX).len(), 1);
    }

    #[test]
    fn an_exhausted_budget_ends_the_expansion() {
        let rule = parse_rule("FREQ=DAILY").expect("a rule");
        let mut budget = 5;
        // The first period holds the start itself, so five periods give five occurrences.
        assert_eq!(expand(&rule, at(2026, 1, 1), None, &mut budget).len(), 5);
        assert_eq!(budget, 0);
        assert_eq!(expand(&rule, at(2026, 1, 1), None, &mut budget).len(), 1);
    }

    #[test]
    fn bad_rules_are_errors() {
        assert!(parse_rule("FREQ=HOURLY").is_err());
        assert!(parse_rule("COUNT=2").is_err());
        assert!(parse_rule("FREQ=DAILY;INTERVAL=0").is_err());
        assert!(parse_rule("FREQ=DAILY;BYDAY=XX").is_err());
        assert!(parse_rule("FREQ=MONTHLY;BYDAY=0MO").is_err());
        assert_eq!(parse_rule("FREQ=MONTHLY;BYSETPOS=-1;BYDAY=MO").map(|r| r.ignored), Ok(vec!["BYSETPOS".to_owned()]));
    }
}
