//! Money: amounts in US cents, their largest accepted value, and the one way
//! every page, message and CLI line writes them.

/// Money in US cents.
pub type Cents = i64;

/// The largest nightly rate or fee accepted: $1,000,000.00. It keeps every
/// total of a 366-night stay far from overflowing.
pub const MAX_AMOUNT: Cents = 100_000_000;

/// An amount as people read it: dollars with thousands separators and two
/// decimals, the sign in front. Messages, the admin and booking pages and the
/// CLI all write money this way.
///
/// ```
/// use rental_core::format_money;
///
/// assert_eq!(format_money(134_288), "$1,342.88");
/// assert_eq!(format_money(5), "$0.05");
/// assert_eq!(format_money(-2_500), "-$25.00");
/// ```
pub fn format_money(cents: Cents) -> String {
    let sign = if cents < 0 { "-" } else { "" };
    let cents = cents.unsigned_abs();
    let dollars = (cents / 100).to_string();
    let mut grouped = String::with_capacity(dollars.len() + dollars.len() / 3);
    for (i, c) in dollars.chars().enumerate() {
        if i > 0 && (dollars.len() - i).is_multiple_of(3) {
            grouped.push(',');
        }
        grouped.push(c);
    }
    format!("{sign}${grouped}.{:02}", cents % 100)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn money_is_dollars_with_thousands_separators() {
        let cases = [
            (0, "$0.00"),
            (5, "$0.05"),
            (134_288, "$1,342.88"),
            (99_999, "$999.99"),
            (100_000, "$1,000.00"),
            (100_000_000, "$1,000,000.00"),
            (12_345_678_900, "$123,456,789.00"),
            (-2500, "-$25.00"),
            (i64::MIN, "-$92,233,720,368,547,758.08"),
        ];
        for (cents, want) in cases {
            assert_eq!(format_money(cents), want);
        }
    }
}
