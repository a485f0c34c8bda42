//! Currencies: the ISO 4217 codes a property may price in, each with the
//! digits of its minor unit, and the one way amounts in them are written.

/// A currency a property may price in: an ISO 4217 code the payment
/// provider charges in, with its minor unit.
///
/// ```
/// use rental_core::Currency;
///
/// assert_eq!(Currency::find("EUR").map(|c| c.exponent), Some(2));
/// assert_eq!(Currency::find("JPY").map(|c| c.exponent), Some(0));
/// assert!(Currency::find("eur").is_none(), "codes are upper case");
/// assert!(Currency::find("XXX").is_none());
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct Currency {
    /// The ISO 4217 code, upper case: `EUR`.
    pub code: &'static str,
    /// Digits after the decimal point: amounts are integers in units of
    /// `10^-exponent` of the currency (2 for cents, 0 for yen).
    pub exponent: u8,
    /// The sign written before an amount, for the few currencies whose sign
    /// names them alone (`$` is the US dollar's: `CA$` would be a guess); the
    /// others are written with their code after the amount.
    pub symbol: Option<&'static str>,
}

impl Currency {
    /// The currency of `code` (upper case), if a property may price in it.
    pub fn find(code: &str) -> Option<Currency> {
        CURRENCIES.binary_search_by(|c| c.code.cmp(code)).ok().map(|i| CURRENCIES[i])
    }

    /// Every currency a property may price in, by code.
    pub fn all() -> &'static [Currency] {
        CURRENCIES
    }
}

const fn c(code: &'static str, exponent: u8) -> Currency {
    Currency { code, exponent, symbol: None }
}

const fn s(code: &'static str, exponent: u8, symbol: &'static str) -> Currency {
    Currency { code, exponent, symbol: Some(symbol) }
}

/// The currencies Stripe charges in (its list of 2026), by code, with the
/// digits of the unit it charges in: Stripe's zero-decimal currencies have 0
/// (MGA among them, which ISO gives fifths). Left out on purpose: ISK (zero
/// decimals that Stripe nevertheless wants sent times 100) and the
/// three-decimal currencies (BHD, JOD, KWD, OMR, TND: Stripe wants their last
/// digit 0), whose rounded amounts a provider could refuse.
#[rustfmt::skip]
static CURRENCIES: &[Currency] = &[
    c("AED", 2), c("AFN", 2), c("ALL", 2), c("AMD", 2), c("ANG", 2), c("AOA", 2), c("ARS", 2),
    c("AUD", 2), c("AWG", 2), c("AZN", 2), c("BAM", 2), c("BBD", 2), c("BDT", 2), c("BGN", 2),
    c("BIF", 0), c("BMD", 2), c("BND", 2), c("BOB", 2), c("BRL", 2), c("BSD", 2), c("BWP", 2),
    c("BYN", 2), c("BZD", 2), c("CAD", 2), c("CDF", 2), c("CHF", 2), c("CLP", 0), c("CNY", 2),
    c("COP", 2), c("CRC", 2), c("CVE", 2), c("CZK", 2), c("DJF", 0), c("DKK", 2), c("DOP", 2),
    c("DZD", 2), c("EGP", 2), c("ETB", 2), s("EUR", 2, "€"), c("FJD", 2), c("FKP", 2), s("GBP", 2, "£"),
    c("GEL", 2), c("GIP", 2), c("GMD", 2), c("GNF", 0), c("GTQ", 2), c("GYD", 2), c("HKD", 2),
    c("HNL", 2), c("HTG", 2), c("HUF", 2), c("IDR", 2), c("ILS", 2), c("INR", 2), c("JMD", 2),
    s("JPY", 0, "¥"), c("KES", 2), c("KGS", 2), c("KHR", 2), c("KMF", 0), c("KRW", 0), c("KYD", 2),
    c("KZT", 2), c("LAK", 2), c("LBP", 2), c("LKR", 2), c("LRD", 2), c("LSL", 2), c("MAD", 2),
    c("MDL", 2), c("MGA", 0), c("MKD", 2), c("MMK", 2), c("MNT", 2), c("MOP", 2), c("MUR", 2),
    c("MVR", 2), c("MWK", 2), c("MXN", 2), c("MYR", 2), c("MZN", 2), c("NAD", 2), c("NGN", 2),
    c("NIO", 2), c("NOK", 2), c("NPR", 2), c("NZD", 2), c("PAB", 2), c("PEN", 2), c("PGK", 2),
    c("PHP", 2), c("PKR", 2), c("PLN", 2), c("PYG", 0), c("QAR", 2), c("RON", 2), c("RSD", 2),
    c("RWF", 0), c("SAR", 2), c("SBD", 2), c("SCR", 2), c("SEK", 2), c("SGD", 2), c("SHP", 2),
    c("SLE", 2), c("SOS", 2), c("SRD", 2), c("SZL", 2), c("THB", 2), c("TJS", 2), c("TOP", 2),
    c("TRY", 2), c("TTD", 2), c("TWD", 2), c("TZS", 2), c("UAH", 2), c("UGX", 0), s("USD", 2, "$"),
    c("UYU", 2), c("UZS", 2), c("VND", 0), c("VUV", 0), c("WST", 2), c("XAF", 0), c("XCD", 2),
    c("XOF", 0), c("XPF", 0), c("YER", 2), c("ZAR", 2), c("ZMW", 2),
];

/// An amount in the minor unit of `currency` as people read it: thousands
/// separated by commas, the currency's own decimals, the sign in front; the
/// symbol before the number where the currency has one, else its code after.
/// A code not in the table is written with two decimals and its code.
/// Pages, messages, the admin and the CLI all write money this way.
///
/// ```
/// use rental_core::format_amount;
///
/// assert_eq!(format_amount(134_288, "USD"), "$1,342.88");
/// assert_eq!(format_amount(134_288, "EUR"), "€1,342.88");
/// assert_eq!(format_amount(134_288, "JPY"), "¥134,288");
/// assert_eq!(format_amount(134_288, "CHF"), "1,342.88 CHF");
/// assert_eq!(format_amount(-2_500, "USD"), "-$25.00");
/// ```
pub fn format_amount(amount: i64, currency: &str) -> String {
    let found = Currency::find(currency);
    let exponent = found.map_or(2, |c| c.exponent);
    let sign = if amount < 0 { "-" } else { "" };
    let number = grouped(amount.unsigned_abs(), exponent);
    match found.and_then(|c| c.symbol) {
        Some(symbol) => format!("{sign}{symbol}{number}"),
        None => format!("{sign}{number} {currency}"),
    }
}

/// `units` written with `exponent` decimals and commas between thousands.
fn grouped(units: u64, exponent: u8) -> String {
    grouped_with(units, exponent, ',', '.')
}

/// `units` written with `exponent` decimals after `decimal` and `thousands` between thousands.
pub(crate) fn grouped_with(units: u64, exponent: u8, thousands: char, decimal: char) -> String {
    let scale = 10u64.pow(u32::from(exponent));
    let whole = (units / scale).to_string();
    let mut out = String::with_capacity(whole.len() + whole.len() / 3 + 4);
    for (i, c) in whole.chars().enumerate() {
        if i > 0 && (whole.len() - i).is_multiple_of(3) {
            out.push(thousands);
        }
        out.push(c);
    }
    if exponent > 0 {
        out.push(decimal);
        let decimals = (units % scale).to_string();
        out.extend(std::iter::repeat_n('0', usize::from(exponent) - decimals.len()));
        out.push_str(&decimals);
    }
    out
}

/// An amount in the minor unit of `currency` as a plain decimal for a form
/// field: `150.00` for 15000 cents, `15000` for 15000 yen; no separators, no sign.
pub fn plain_amount(amount: i64, currency: &str) -> String {
    let exponent = Currency::find(currency).map_or(2, |c| c.exponent);
    let sign = if amount < 0 { "-" } else { "" };
    let scale = 10u64.pow(u32::from(exponent));
    let units = amount.unsigned_abs();
    if exponent == 0 {
        format!("{sign}{units}")
    } else {
        format!("{sign}{}.{:0width$}", units / scale, units % scale, width = usize::from(exponent))
    }
}

/// A plain decimal typed into a form (`150`, `150.5`, `150.25`) as an amount
/// in the minor unit of `currency`; `None` when it has more decimals than the
/// currency, anything but digits and one point, or does not fit.
///
/// ```
/// use rental_core::parse_amount;
///
/// assert_eq!(parse_amount("150.5", "EUR"), Some(15_050));
/// assert_eq!(parse_amount("15000", "JPY"), Some(15_000));
/// assert_eq!(parse_amount("150.5", "JPY"), None);
/// ```
pub fn parse_amount(text: &str, currency: &str) -> Option<i64> {
    let exponent = usize::from(Currency::find(currency).map_or(2, |c| c.exponent));
    let text = text.trim();
    let (whole, frac) = text.split_once('.').unwrap_or((text, ""));
    let digits = |s: &str| s.bytes().all(|b| b.is_ascii_digit());
    if whole.is_empty()
        || !digits(whole)
        || !digits(frac)
        || frac.len() > exponent
        || (exponent == 0 && text.contains('.'))
    {
        return None;
    }
    let padded = format!("{whole}{frac:0<exponent$}");
    padded.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_is_sorted_upper_case_and_unique() {
        for pair in CURRENCIES.windows(2) {
            assert!(pair[0].code < pair[1].code, "{} before {}", pair[0].code, pair[1].code);
        }
        assert!(CURRENCIES.iter().all(|c| c.code.len() == 3 && c.code.bytes().all(|b| b.is_ascii_uppercase())));
    }

    #[test]
    fn each_amount_is_written_with_its_currency_decimals_and_sign() {
        let cases = [
            (0, "USD", "$0.00"),
            (5, "USD", "$0.05"),
            (99_999, "USD", "$999.99"),
            (100_000_000, "USD", "$1,000,000.00"),
            (i64::MIN, "USD", "-$92,233,720,368,547,758.08"),
            (15_050, "EUR", "€150.50"),
            (-2_500, "GBP", "-£25.00"),
            (5, "JPY", "¥5"),
            (1_234_567, "KRW", "1,234,567 KRW"),
            (1_234_567, "SEK", "12,345.67 SEK"),
            (-1_000, "CHF", "-10.00 CHF"),
            (1_234, "ZZZ", "12.34 ZZZ"),
        ];
        for (amount, currency, want) in cases {
            assert_eq!(format_amount(amount, currency), want, "{amount} {currency}");
        }
    }

    #[test]
    fn form_amounts_round_trip_in_each_currency() {
        let cases = [
            ("150", "USD", Some(15_000)),
            ("150.5", "USD", Some(15_050)),
            ("150.25", "EUR", Some(15_025)),
            ("150.255", "EUR", None),
            ("15000", "JPY", Some(15_000)),
            ("150.0", "JPY", None),
            ("-5", "USD", None),
            ("", "USD", None),
            ("1e3", "USD", None),
            (".5", "USD", None),
        ];
        for (text, currency, want) in cases {
            assert_eq!(parse_amount(text, currency), want, "{text:?} {currency}");
        }
        assert_eq!(plain_amount(15_050, "EUR"), "150.50");
        assert_eq!(plain_amount(15_000, "JPY"), "15000");
        assert_eq!(plain_amount(-5, "USD"), "-0.05");
    }
}
