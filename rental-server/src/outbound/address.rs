//! Which addresses an outbound call may not reach: [`blocked_range`] names
//! the non-public range an address is in (docs/API.md section 10).

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

/// The kind of non-public range `ip` is in, or `None` for a public address. IPv4-mapped,
/// IPv4-compatible, NAT64 and 6to4 IPv6 addresses are judged by the IPv4 address they carry.
pub fn blocked_range(ip: IpAddr) -> Option<&'static str> {
    match ip {
        IpAddr::V4(ip) => blocked_v4(ip),
        IpAddr::V6(ip) => blocked_v6(ip),
    }
}

fn blocked_v4(ip: Ipv4Addr) -> Option<&'static str> {
    let range = match ip.octets() {
        [255, 255, 255, 255] => "broadcast",
        [0, 0, 0, 0] => "unspecified",
        [0, ..] => "this-network",
        [127, ..] => "loopback",
        [10, ..] | [172, 16..=31, ..] | [192, 168, ..] => "private",
        [169, 254, ..] => "link-local",
        [100, 64..=127, ..] => "shared (cgnat)",
        [192, 0, 2, _] | [198, 51, 100, _] | [203, 0, 113, _] => "documentation",
        [198, 18..=19, ..] => "benchmarking",
        [224..=239, ..] => "multicast",
        [192, 0, 0, _] | [240..=255, ..] => "reserved",
        _ => return None,
    };
    Some(range)
}

fn blocked_v6(ip: Ipv6Addr) -> Option<&'static str> {
    let v4 = |hi: u16, lo: u16| Ipv4Addr::from((u32::from(hi) << 16) | u32::from(lo));
    let range = match ip.segments() {
        [0, 0, 0, 0, 0, 0, 0, 0] => "unspecified",
        [0, 0, 0, 0, 0, 0, 0, 1] => "loopback",
        [0, 0, 0, 0, 0, 0xffff | 0, hi, lo] | [0x64, 0xff9b, 0, 0, 0, 0, hi, lo] | [0x2002, hi, lo, ..] => {
            return blocked_v4(v4(hi, lo));
        }
        [0x64, 0xff9b, 1, ..] => "private (local nat64)",
        [0x100, 0, 0, 0, ..] => "discard",
        [0x2001, 0, ..] => "teredo",
        [0x2001, 2, 0, ..] => "benchmarking",
        [0x2001, 0xdb8, ..] => "documentation",
        [0x3fff, second, ..] if second & 0xf000 == 0 => "documentation",
        [first, ..] if first & 0xfe00 == 0xfc00 => "unique-local",
        [first, ..] if first & 0xffc0 == 0xfe80 => "link-local",
        [first, ..] if first & 0xffc0 == 0xfec0 => "site-local",
        [first, ..] if first & 0xff00 == 0xff00 => "multicast",
        [first, ..] if first & 0xe000 != 0x2000 => "reserved",
        _ => return None,
    };
    Some(range)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classifier_names_each_range() {
        let cases: &[(&str, Option<&str>)] = &[
            ("8.8.8.8", None),
            ("1.1.1.1", None),
            ("172.15.255.255", None),
            ("172.32.0.1", None),
            ("100.63.255.255", None),
            ("100.128.0.1", None),
            ("192.169.0.1", None),
            ("0.0.0.0", Some("unspecified")),
            ("0.1.2.3", Some("this-network")),
            ("127.0.0.1", Some("loopback")),
            ("127.255.255.254", Some("loopback")),
            ("10.0.0.1", Some("private")),
            ("172.16.0.1", Some("private")),
            ("172.31.255.255", Some("private")),
            ("192.168.1.1", Some("private")),
            ("169.254.169.254", Some("link-local")),
            ("100.64.0.1", Some("shared (cgnat)")),
            ("100.127.255.255", Some("shared (cgnat)")),
            ("192.0.2.1", Some("documentation")),
            ("198.51.100.7", Some("documentation")),
            ("203.0.113.9", Some("documentation")),
            ("198.18.0.1", Some("benchmarking")),
            ("224.0.0.1", Some("multicast")),
            ("239.255.255.250", Some("multicast")),
            ("192.0.0.8", Some("reserved")),
            ("240.0.0.1", Some("reserved")),
            ("255.255.255.255", Some("broadcast")),
            ("2606:4700:4700::1111", None),
            ("2001:4860:4860::8888", None),
            ("::ffff:8.8.8.8", None),
            ("::", Some("unspecified")),
            ("::1", Some("loopback")),
            ("::ffff:127.0.0.1", Some("loopback")),
            ("::ffff:10.1.2.3", Some("private")),
            ("::ffff:169.254.169.254", Some("link-local")),
            ("::ffff:0.0.0.0", Some("unspecified")),
            ("::127.0.0.1", Some("loopback")),
            ("::192.168.0.1", Some("private")),
            ("64:ff9b::7f00:1", Some("loopback")),
            ("64:ff9b:1::1", Some("private (local nat64)")),
            ("2002:a00:1::1", Some("private")),
            ("2002:808:808::1", None),
            ("100::1", Some("discard")),
            ("2001::1", Some("teredo")),
            ("2001:2::1", Some("benchmarking")),
            ("2001:db8::1", Some("documentation")),
            ("3fff::1", Some("documentation")),
            ("3fff:1000::1", None),
            ("fc00::1", Some("unique-local")),
            ("fd12:3456::1", Some("unique-local")),
            ("fe80::1", Some("link-local")),
            ("febf::1", Some("link-local")),
            ("fec0::1", Some("site-local")),
            ("ff02::1", Some("multicast")),
            ("4000::1", Some("reserved")),
        ];
        for &(ip, expected) in cases {
            let parsed: IpAddr = ip.parse().unwrap();
            assert_eq!(blocked_range(parsed), expected, "{ip}");
        }
    }
}
