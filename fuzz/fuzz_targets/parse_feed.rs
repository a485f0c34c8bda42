//! Fuzzes `rental_core::ical::parse_feed`: any body, in a few property zones, must come back as
//! a feed or an error, never a panic, and a feed read must keep its promises.

#![no_main]

use std::collections::HashSet;

use libfuzzer_sys::fuzz_target;
use rental_core::Tz;
use rental_core::ical::parse_feed;

/// Zones with DST in either hemisphere, a far-east offset, and UTC.
const ZONES: [Tz; 4] = [Tz::UTC, Tz::Europe__Paris, Tz::Pacific__Auckland, Tz::America__Los_Angeles];

fuzz_target!(|data: &[u8]| {
    let Some((&selector, body)) = data.split_first() else { return };
    let zone = ZONES[usize::from(selector) % ZONES.len()];
    if let Ok(feed) = parse_feed(body, zone) {
        let mut keys = HashSet::new();
        for event in &feed.events {
            assert!(event.end > event.start, "an event ends after it starts: {event:?}");
            assert!(keys.insert(event.uid.as_str()), "keys are unique: {}", event.uid);
        }
    }
});
