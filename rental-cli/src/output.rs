//! Output for people (aligned tables, money as `$1,234.56` in its currency, dates with their
//! weekday) and for programs (the library's JSON, as serde writes it).
//!
//! Text for people goes through [`rental_core::text::visible`]: a control or
//! bidirectional character in a name or note is shown as `\u{9b}`, never obeyed
//! by the terminal.

use chrono::{DateTime, NaiveDate, Utc};
pub use rental_core::text::visible;
use serde::Serialize;

/// `$1,234.56`, `€1,234.56`, `¥123,456`; `-$111.00` below zero: the
/// library's money format for the amount's currency, shared with the messages and the pages.
pub use rental_core::format_amount as money;

/// `Sun 2026-12-20`.
pub fn day(date: NaiveDate) -> String {
    date.format("%a %Y-%m-%d").to_string()
}

/// `2026-11-22 07:39 UTC`.
pub fn when(t: DateTime<Utc>) -> String {
    t.format("%Y-%m-%d %H:%M UTC").to_string()
}

/// An optional timestamp; `-` when absent.
pub fn when_or_dash(t: Option<DateTime<Utc>>) -> String {
    t.map_or_else(|| "-".to_owned(), when)
}

/// `value` as indented JSON, with a final newline.
pub fn json(value: &impl Serialize) -> String {
    // Serializing the library's own types into a String cannot fail: they
    // have string keys and no fallible `Serialize` impls.
    let mut text = serde_json::to_string_pretty(value).unwrap_or_default();
    text.push('\n');
    text
}

/// How a column lines up.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Align {
    /// Text.
    Left,
    /// Numbers and money.
    Right,
}

/// A table with a title row, columns separated by two spaces.
#[derive(Debug)]
pub struct Table {
    columns: Vec<(&'static str, Align)>,
    rows: Vec<Vec<String>>,
}

impl Table {
    /// A table with these column titles.
    pub fn new(columns: &[(&'static str, Align)]) -> Self {
        Table { columns: columns.to_vec(), rows: Vec::new() }
    }

    /// Adds a row: one cell per column, each shown [`visible`].
    pub fn row(&mut self, cells: Vec<String>) {
        debug_assert_eq!(cells.len(), self.columns.len());
        let shown = cells.into_iter().map(|cell| match visible(&cell) {
            std::borrow::Cow::Borrowed(_) => cell,
            std::borrow::Cow::Owned(escaped) => escaped,
        });
        self.rows.push(shown.collect());
    }

    /// The table as text, a newline after each row.
    pub fn render(&self) -> String {
        let titles: Vec<String> = self.columns.iter().map(|(t, _)| (*t).to_owned()).collect();
        let widths: Vec<usize> = (0..self.columns.len())
            .map(|i| self.rows.iter().chain([&titles]).map(|r| r[i].chars().count()).max().unwrap_or(0))
            .collect();
        let mut out = String::new();
        for row in [&titles].into_iter().chain(&self.rows) {
            out.push_str(self.line(row, &widths).trim_end());
            out.push('\n');
        }
        out
    }

    fn line(&self, row: &[String], widths: &[usize]) -> String {
        let cells: Vec<String> = row
            .iter()
            .zip(widths)
            .zip(&self.columns)
            .map(|((cell, &width), (_, align))| match align {
                Align::Left => format!("{cell:<width$}"),
                Align::Right => format!("{cell:>width$}"),
            })
            .collect();
        cells.join("  ")
    }
}

/// Label-value lines, the labels padded to one width, the values shown [`visible`].
pub fn fields(pairs: &[(&str, String)]) -> String {
    let width = pairs.iter().map(|(label, _)| label.chars().count()).max().unwrap_or(0) + 1;
    let lines: Vec<String> = pairs
        .iter()
        .map(|(label, value)| format!("{:<width$} {}\n", format!("{label}:"), visible(value), width = width))
        .collect();
    lines.concat()
}

/// Label-amount lines: labels to the left, amounts lined up on the right.
pub fn ledger(lines: &[(String, String)]) -> String {
    let label_width = lines.iter().map(|(l, _)| l.chars().count()).max().unwrap_or(0);
    let amount_width = lines.iter().map(|(_, a)| a.chars().count()).max().unwrap_or(0);
    let lines: Vec<String> =
        lines.iter().map(|(label, amount)| format!("  {label:<label_width$}  {amount:>amount_width$}\n")).collect();
    lines.concat()
}

/// `1 feed`, `2 feeds`: a count with its noun.
pub fn count(n: usize, noun: &str) -> String {
    if n == 1 { format!("1 {noun}") } else { format!("{n} {noun}s") }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_show_their_weekday() {
        assert_eq!(day("2026-12-20".parse().unwrap()), "Sun 2026-12-20");
        assert_eq!(when("2026-11-22T07:39:21.123Z".parse().unwrap()), "2026-11-22 07:39 UTC");
    }

    #[test]
    fn tables_align_text_left_and_numbers_right() {
        let mut t = Table::new(&[("SLUG", Align::Left), ("RATE", Align::Right)]);
        t.row(vec!["sea-view".into(), "$150.00".into()]);
        t.row(vec!["loft".into(), "$1,120.00".into()]);
        assert_eq!(t.render(), "SLUG           RATE\nsea-view    $150.00\nloft      $1,120.00\n");
    }

    #[test]
    fn a_cell_s_control_and_bidi_characters_are_shown_not_obeyed() {
        let mut t = Table::new(&[("GUEST", Align::Left), ("NOTE", Align::Left)]);
        t.row(vec!["A\u{9b}31mB".into(), "one\r\ntwo\u{202e}".into()]);
        assert_eq!(t.render(), "GUEST        NOTE\nA\\u{9b}31mB  one\\u{d}\\u{a}two\\u{202e}\n");
        assert_eq!(fields(&[("Guest", "\u{1b}[2J".into())]), "Guest: \\u{1b}[2J\n");
    }

    #[test]
    fn ledger_lines_put_amounts_in_a_column() {
        let lines = [("Taxes".to_owned(), "$143.88".to_owned()), ("Total".to_owned(), "$1,342.88".to_owned())];
        assert_eq!(ledger(&lines), "  Taxes    $143.88\n  Total  $1,342.88\n");
    }

    #[test]
    fn fields_line_up_their_values() {
        assert_eq!(fields(&[("Code", "BK-1".into()), ("Status", "pending".into())]), "Code:   BK-1\nStatus: pending\n");
    }
}
