//! How many connections each client address holds, and the cap on it: one
//! host must not take the connection slots every client shares.
//!
//! An IPv6 client usually has a whole /64 to itself, so its /64 is what counts.
//! Trusted reverse proxies are not counted: all their clients arrive from them.

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::{Arc, Mutex, PoisonError};

use crate::client_addr::{ClientGroup as Client, TrustedProxies};

/// The open connections of each client address, up to a cap.
#[derive(Debug)]
pub struct AddressSlots {
    cap: usize,
    uncounted: TrustedProxies,
    open: Mutex<HashMap<Client, usize>>,
}

impl AddressSlots {
    /// Allows `cap` connections to each client (0 counts as 1) but `uncounted`.
    pub fn new(cap: usize, uncounted: TrustedProxies) -> Arc<Self> {
        Arc::new(AddressSlots { cap: cap.max(1), uncounted, open: Mutex::new(HashMap::new()) })
    }

    /// A slot for one more connection from `ip`, or `None` when it holds the cap.
    pub fn take(self: &Arc<Self>, ip: IpAddr) -> Option<AddressSlot> {
        if self.uncounted.trusts(ip) {
            return Some(AddressSlot { slots: Arc::clone(self), client: None });
        }
        let client = Client::of(ip);
        let mut open = self.open.lock().unwrap_or_else(PoisonError::into_inner);
        let count = open.entry(client).or_insert(0);
        if *count >= self.cap {
            return None;
        }
        *count += 1;
        Some(AddressSlot { slots: Arc::clone(self), client: Some(client) })
    }

    /// How many connections `ip`'s client holds.
    pub fn held(&self, ip: IpAddr) -> usize {
        let open = self.open.lock().unwrap_or_else(PoisonError::into_inner);
        open.get(&Client::of(ip)).copied().unwrap_or(0)
    }
}

/// One connection's place in its client's count, given back when dropped.
#[derive(Debug)]
pub struct AddressSlot {
    slots: Arc<AddressSlots>,
    /// `None` for an uncounted (trusted proxy's) connection.
    client: Option<Client>,
}

impl AddressSlot {
    /// The client this slot counts against; `None` for a trusted proxy.
    pub fn client(&self) -> Option<Client> {
        self.client
    }
}

impl Drop for AddressSlot {
    fn drop(&mut self) {
        let Some(client) = self.client else { return };
        let mut open = self.slots.open.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(count) = open.get_mut(&client) {
            *count -= 1;
            if *count == 0 {
                open.remove(&client);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ip(s: &str) -> IpAddr {
        s.parse().unwrap()
    }

    #[test]
    fn a_client_holds_at_most_the_cap_and_gets_a_slot_back_when_one_closes() {
        let slots = AddressSlots::new(2, TrustedProxies::default());
        let first = slots.take(ip("192.0.2.1")).unwrap();
        let _second = slots.take(ip("192.0.2.1")).unwrap();
        assert!(slots.take(ip("192.0.2.1")).is_none());
        assert!(slots.take(ip("192.0.2.2")).is_some(), "another address has its own count");
        drop(first);
        assert_eq!(slots.held(ip("192.0.2.1")), 1);
        assert!(slots.take(ip("192.0.2.1")).is_some());
    }

    #[test]
    fn an_ipv6_64_counts_as_one_client_and_a_mapped_ipv4_as_its_ipv4() {
        let slots = AddressSlots::new(1, TrustedProxies::default());
        let _a = slots.take(ip("2001:db8:1:2::1")).unwrap();
        assert!(slots.take(ip("2001:db8:1:2:ffff::9")).is_none(), "same /64");
        assert!(slots.take(ip("2001:db8:1:3::1")).is_some(), "another /64");
        let _b = slots.take(ip("192.0.2.7")).unwrap();
        assert!(slots.take(ip("::ffff:192.0.2.7")).is_none());
    }

    #[test]
    fn closing_every_connection_forgets_the_client() {
        let slots = AddressSlots::new(3, TrustedProxies::default());
        drop(slots.take(ip("192.0.2.1")));
        assert!(slots.open.lock().unwrap().is_empty());
    }

    #[test]
    fn a_trusted_proxy_is_not_capped() {
        let slots = AddressSlots::new(1, "10.0.0.1".parse().unwrap());
        let held: Vec<_> = (0..5).map(|_| slots.take(ip("10.0.0.1")).expect("a proxy is never refused")).collect();
        assert_eq!((held.len(), slots.held(ip("10.0.0.1"))), (5, 0));
    }
}
