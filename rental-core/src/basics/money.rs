//! Money: amounts in the minor unit of a property's currency and their
//! largest accepted value; the currencies and their formatting are in `currency`.

pub use super::currency::format_amount;

/// Money in the minor unit of the property's currency (cents for USD and
/// EUR, yen for JPY: see [`crate::Currency`]). The name is older than the currencies.
pub type Cents = i64;

/// The largest nightly rate or fee accepted: 1,000,000.00 in a currency with cents. It keeps every
/// total of a 366-night stay far from overflowing.
pub const MAX_AMOUNT: Cents = 100_000_000;

/// An amount in US dollars as people read it: [`format_amount`] of `USD`
/// (`$1,342.88`), for callers that know no other currency.
///
/// ```
/// use rental_core::format_money;
///
/// assert_eq!(format_money(134_288), "$1,342.88");
/// assert_eq!(format_money(5), "$0.05");
/// assert_eq!(format_money(-2_500), "-$25.00");
/// ```
pub fn format_money(cents: Cents) -> String {
    format_amount(cents, "USD")
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
