//! Time and randomness as inputs: the library never reads the wall clock or
//! the OS random source directly, so tests can fix both.

use std::sync::Mutex;

use chrono::{DateTime, TimeDelta, Utc};

/// A source of "now".
pub trait Clock: Send + Sync {
    /// The current instant.
    fn now(&self) -> DateTime<Utc>;
}

/// The real clock.
#[derive(Debug, Clone, Copy, Default)]
pub struct SystemClock;

impl Clock for SystemClock {
    fn now(&self) -> DateTime<Utc> {
        Utc::now()
    }
}

/// A clock that says what it is told; for tests and simulations.
#[derive(Debug)]
pub struct ManualClock(Mutex<DateTime<Utc>>);

impl ManualClock {
    /// A clock stopped at `at`.
    pub fn new(at: DateTime<Utc>) -> Self {
        ManualClock(Mutex::new(at))
    }

    /// Moves the clock to `at`.
    pub fn set(&self, at: DateTime<Utc>) {
        *self.0.lock().unwrap_or_else(std::sync::PoisonError::into_inner) = at;
    }

    /// Moves the clock forward by `by`.
    pub fn advance(&self, by: TimeDelta) {
        let mut now = self.0.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        *now += by;
    }
}

impl Clock for ManualClock {
    fn now(&self) -> DateTime<Utc> {
        *self.0.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

/// A source of random bytes, for booking codes, key secrets and ids.
pub trait Entropy: Send + Sync {
    /// Fills `buf` with random bytes.
    fn fill(&self, buf: &mut [u8]);
}

/// The operating system's random source.
#[derive(Debug, Clone, Copy, Default)]
pub struct OsEntropy;

impl Entropy for OsEntropy {
    fn fill(&self, buf: &mut [u8]) {
        // The OS source failing means the machine cannot make secrets at all;
        // continuing with predictable bytes would be worse than stopping.
        getrandom::fill(buf).expect("the operating system's random source failed");
    }
}

/// Draws `len` characters uniformly from `alphabet` (at most 256 characters),
/// rejecting bytes that would bias the draw.
pub(crate) fn random_string(entropy: &dyn Entropy, alphabet: &[u8], len: usize) -> String {
    let limit = 256 - 256 % alphabet.len();
    let mut out = String::with_capacity(len);
    let mut buf = [0u8; 64];
    while out.len() < len {
        entropy.fill(&mut buf);
        for &b in &buf {
            if usize::from(b) < limit && out.len() < len {
                out.push(char::from(alphabet[usize::from(b) % alphabet.len()]));
            }
        }
    }
    out
}

/// Letters and digits, for key secrets and ids.
pub(crate) const BASE62: &[u8] = b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn random_strings_use_only_the_alphabet_and_have_the_length_asked_for() {
        let s = random_string(&OsEntropy, b"ABC", 100);
        assert_eq!(s.len(), 100);
        assert!(s.chars().all(|c| "ABC".contains(c)));
    }

    #[test]
    fn a_manual_clock_moves_only_when_told() {
        let t0 = DateTime::parse_from_rfc3339("2026-11-22T07:00:00Z").unwrap().to_utc();
        let clock = ManualClock::new(t0);
        assert_eq!(clock.now(), t0);
        clock.advance(TimeDelta::hours(2));
        assert_eq!(clock.now(), t0 + TimeDelta::hours(2));
    }
}
