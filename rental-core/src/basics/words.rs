//! Words for people: a count with its noun in the right number (`1 night`,
//! `3 nights`), so that e-mails, the admin and the CLI say it alike.

/// `n` followed by `noun`, with an `s` unless `n` is 1.
///
/// ```
/// use rental_core::words::count;
///
/// assert_eq!(count(1u32, "night"), "1 night");
/// assert_eq!(count(3u32, "guest"), "3 guests");
/// ```
pub fn count(n: impl Into<u64>, noun: &str) -> String {
    let n = n.into();
    if n == 1 { format!("1 {noun}") } else { format!("{n} {noun}s") }
}
