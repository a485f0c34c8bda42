//! Loopback ports for the programs the tests start (localstripe, chromedriver, PostgreSQL,
//! Home Assistant, a second listener of `rental serve`), each handed out once per test binary.
//!
//! A port the system picked for a moment (`bind 127.0.0.1:0`, then closed) may be picked again
//! for a concurrent test before the program it was meant for binds it. These ports come from
//! below the system's ephemeral range instead, which it never hands out on its own.

use std::net::TcpListener;
use std::sync::atomic::{AtomicU32, Ordering};

/// The ports handed out: 20000 to 31999, below Linux's default ephemeral range (32768-60999).
const FIRST: u32 = 20_000;
const COUNT: u32 = 12_000;

/// How many ports this test binary has handed out so far.
static HANDED_OUT: AtomicU32 = AtomicU32::new(0);

/// A loopback port no other caller in this test binary gets, free when it was handed out.
/// Each binary starts at its own place (by process id), so one that runs beside it rarely meets it.
pub fn free_port() -> u16 {
    let start = std::process::id().wrapping_mul(7_919) % COUNT;
    loop {
        let n = HANDED_OUT.fetch_add(1, Ordering::Relaxed);
        assert!(n < COUNT, "every test port was handed out");
        let port = u16::try_from(FIRST + (start + n) % COUNT).expect("below 32000");
        if TcpListener::bind(("127.0.0.1", port)).is_ok() {
            return port;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_port_is_handed_out_twice_and_each_is_free_and_below_the_ephemeral_range() {
        let ports: Vec<u16> = (0..200).map(|_| free_port()).collect();
        let distinct: std::collections::BTreeSet<u16> = ports.iter().copied().collect();
        assert_eq!(distinct.len(), ports.len());
        assert!(ports.iter().all(|&p| (20_000..32_000).contains(&p)), "{ports:?}");
        assert!(ports.iter().all(|&p| TcpListener::bind(("127.0.0.1", p)).is_ok()));
    }
}
