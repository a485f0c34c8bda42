//! Who the client is: the TCP peer's address, or, when the peer is a trusted
//! reverse proxy, the address it names in `X-Forwarded-For`.
//!
//! Anyone can send `X-Forwarded-For`, so it is read only from peers listed in
//! [`TrustedProxies`] (off by default). The list is read from the right, the
//! end the nearest proxy wrote: the first address that is not itself a
//! trusted proxy is the client. A chain of trusted proxies works; an entry
//! that is not an address ends the walk at the last trusted proxy.
//!
//! ```
//! use rental_server::client_addr::TrustedProxies;
//!
//! let proxies: TrustedProxies = "10.0.0.0/8, ::1".parse()?;
//! let mut headers = http::HeaderMap::new();
//! headers.insert("x-forwarded-for", "203.0.113.7, 10.0.0.2".parse()?);
//! let client = proxies.client("10.0.0.1".parse()?, &headers);
//! assert_eq!(client.to_string(), "203.0.113.7");
//! // From an untrusted peer the header is ignored.
//! assert_eq!(proxies.client("198.51.100.9".parse()?, &headers).to_string(), "198.51.100.9");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::fmt;
use std::net::{IpAddr, SocketAddr};
use std::str::FromStr;

use http::HeaderMap;

/// The header a reverse proxy appends the address of its own client to.
const X_FORWARDED_FOR: &str = "x-forwarded-for";

/// What every per-client count counts by (the connection cap, the login and
/// booking-page throttles): an IPv4 address, or an IPv6 /64, since one
/// subscriber usually holds a whole /64 and could rotate through it. A
/// v4-mapped IPv6 address is its IPv4 address.
///
/// ```
/// use rental_server::client_addr::ClientGroup;
///
/// let a = ClientGroup::of("2001:db8:1:2::1".parse()?);
/// assert_eq!(a, ClientGroup::of("2001:db8:1:2:ffff::9".parse()?));
/// assert_eq!(a.to_string(), "2001:db8:1:2::/64");
/// assert_eq!(ClientGroup::of("::ffff:192.0.2.7".parse()?).to_string(), "192.0.2.7");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ClientGroup(IpAddr);

impl ClientGroup {
    /// The group `ip` belongs to.
    pub fn of(ip: IpAddr) -> Self {
        match ip.to_canonical() {
            IpAddr::V4(v4) => ClientGroup(IpAddr::V4(v4)),
            IpAddr::V6(v6) => ClientGroup(IpAddr::V6((v6.to_bits() & !u128::from(u64::MAX)).into())),
        }
    }
}

impl fmt::Display for ClientGroup {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            IpAddr::V4(v4) => write!(f, "{v4}"),
            IpAddr::V6(v6) => write!(f, "{v6}/64"),
        }
    }
}

/// One trusted address or network: an address and how many leading bits must match.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Network {
    addr: IpAddr,
    prefix: u8,
}

impl Network {
    fn contains(self, ip: IpAddr) -> bool {
        match (self.addr, ip.to_canonical()) {
            (IpAddr::V4(net), IpAddr::V4(ip)) => {
                masked(u128::from(net.to_bits()), 32, self.prefix) == masked(u128::from(ip.to_bits()), 32, self.prefix)
            }
            (IpAddr::V6(net), IpAddr::V6(ip)) => {
                masked(net.to_bits(), 128, self.prefix) == masked(ip.to_bits(), 128, self.prefix)
            }
            _ => false,
        }
    }
}

/// The first `prefix` of `width` bits of `bits`.
fn masked(bits: u128, width: u32, prefix: u8) -> u128 {
    let drop = width - u32::from(prefix);
    bits.checked_shr(drop).unwrap_or(0)
}

impl FromStr for Network {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        let bad = || format!("{s:?} is not an IP address or a network like 10.0.0.0/8");
        let (addr, prefix) = match s.split_once('/') {
            Some((addr, prefix)) => (addr, Some(prefix)),
            None => (s, None),
        };
        let addr = addr.parse::<IpAddr>().map_err(|_| bad())?.to_canonical();
        let width = if addr.is_ipv4() { 32 } else { 128 };
        let prefix = match prefix {
            Some(p) => p.parse::<u8>().ok().filter(|p| *p <= width).ok_or_else(bad)?,
            None => width,
        };
        Ok(Network { addr, prefix })
    }
}

impl fmt::Display for Network {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.addr, self.prefix)
    }
}

/// The reverse proxies whose `X-Forwarded-For` is believed; empty by default,
/// when the client is always the TCP peer.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TrustedProxies {
    networks: Vec<Network>,
}

impl TrustedProxies {
    /// True when `ip` is a trusted proxy.
    pub fn trusts(&self, ip: IpAddr) -> bool {
        self.networks.iter().any(|n| n.contains(ip))
    }

    /// True when no proxy is trusted.
    pub fn is_empty(&self) -> bool {
        self.networks.is_empty()
    }

    /// The client's address: `peer`, or when `peer` is trusted, the right-most
    /// `X-Forwarded-For` entry that is not a trusted proxy.
    pub fn client(&self, peer: IpAddr, headers: &HeaderMap) -> IpAddr {
        let mut client = peer.to_canonical();
        if !self.trusts(client) {
            return client;
        }
        let values = headers.get_all(X_FORWARDED_FOR).iter().filter_map(|v| v.to_str().ok());
        let entries: Vec<&str> = values.flat_map(|v| v.split(',')).collect();
        for entry in entries.iter().rev() {
            let Some(ip) = forwarded_ip(entry.trim()) else { break };
            client = ip;
            if !self.trusts(ip) {
                break;
            }
        }
        client
    }
}

/// An `X-Forwarded-For` entry: an address, perhaps with a port (`1.2.3.4:80`, `[::1]:80`).
fn forwarded_ip(entry: &str) -> Option<IpAddr> {
    let ip = entry.parse::<IpAddr>().ok().or_else(|| entry.parse::<SocketAddr>().ok().map(|s| s.ip()))?;
    Some(ip.to_canonical())
}

impl FromStr for TrustedProxies {
    type Err = String;

    /// A comma-separated list of addresses and networks (`10.0.0.0/8, ::1`); empty for none.
    fn from_str(s: &str) -> Result<Self, String> {
        let entries = s.split(',').map(str::trim).filter(|e| !e.is_empty());
        Ok(TrustedProxies { networks: entries.map(str::parse).collect::<Result<_, _>>()? })
    }
}

impl fmt::Display for TrustedProxies {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let list: Vec<String> = self.networks.iter().map(ToString::to_string).collect();
        f.write_str(&list.join(","))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn headers(xff: &[&str]) -> HeaderMap {
        let mut headers = HeaderMap::new();
        for value in xff {
            headers.append(X_FORWARDED_FOR, value.parse().unwrap());
        }
        headers
    }

    #[test]
    fn networks_contain_the_addresses_their_prefix_covers() {
        let cases = [
            ("10.0.0.0/8", "10.255.1.2", true),
            ("10.0.0.0/8", "11.0.0.1", false),
            ("192.168.1.5", "192.168.1.5", true),
            ("192.168.1.5", "192.168.1.6", false),
            ("0.0.0.0/0", "203.0.113.1", true),
            ("0.0.0.0/0", "::1", false),
            ("::1", "::1", true),
            ("fd00::/8", "fd12:3456::1", true),
            ("fd00::/8", "fe80::1", false),
            ("127.0.0.1", "::ffff:127.0.0.1", true),
        ];
        for (network, ip, want) in cases {
            let trusted: TrustedProxies = network.parse().unwrap();
            assert_eq!(trusted.trusts(ip.parse().unwrap()), want, "{network} {ip}");
        }
    }

    #[test]
    fn bad_entries_are_refused_with_the_entry() {
        for bad in ["10.0.0.0/33", "::1/129", "localhost", "10.0.0/8", "10.0.0.1/x"] {
            let err = bad.parse::<TrustedProxies>().unwrap_err();
            assert!(err.contains(bad), "{err}");
        }
        assert!("".parse::<TrustedProxies>().unwrap().is_empty());
        assert_eq!(" 10.0.0.0/8 ,::1".parse::<TrustedProxies>().unwrap().to_string(), "10.0.0.0/8,::1/128");
    }

    #[test]
    fn the_client_is_the_right_most_untrusted_forwarded_address_from_a_trusted_peer_only() {
        let proxies: TrustedProxies = "10.0.0.0/8".parse().unwrap();
        let cases: [(&str, &[&str], &str); 9] = [
            ("10.0.0.1", &["203.0.113.7"], "203.0.113.7"),
            ("10.0.0.1", &["198.51.100.1, 203.0.113.7"], "203.0.113.7"),
            ("10.0.0.1", &["203.0.113.7, 10.0.0.2"], "203.0.113.7"),
            ("10.0.0.1", &["203.0.113.7", "10.0.0.2"], "203.0.113.7"),
            ("10.0.0.1", &["10.0.0.3, 10.0.0.2"], "10.0.0.3"),
            ("10.0.0.1", &[], "10.0.0.1"),
            ("10.0.0.1", &["203.0.113.7:4711"], "203.0.113.7"),
            ("10.0.0.1", &["203.0.113.7, unknown"], "10.0.0.1"),
            ("198.51.100.9", &["203.0.113.7"], "198.51.100.9"),
        ];
        for (peer, xff, want) in cases {
            let got = proxies.client(peer.parse().unwrap(), &headers(xff));
            assert_eq!(got.to_string(), want, "{peer} {xff:?}");
        }
        let nobody = TrustedProxies::default();
        assert_eq!(nobody.client("10.0.0.1".parse().unwrap(), &headers(&["203.0.113.7"])).to_string(), "10.0.0.1");
    }
}
