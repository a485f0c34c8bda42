//! Creates bookings through a redb store in groups of 16, as a busy server's
//! group commits do, and exits: under `valgrind --tool=callgrind` its instruction
//! count compares two builds of the write path on a machine too noisy for timings.
//!
//! `cargo build --release -p rental-benches --bin creations`, then
//! `valgrind --tool=callgrind target/release/creations [bookings, default 2000]`.

use rental_benches as data;
use rental_core::{NewBooking, Property};

const PROPERTIES: usize = 200;
const GROUP: usize = 16;

fn main() {
    let count: u64 = std::env::args().nth(1).map_or(2_000, |n| n.parse().expect("a number of bookings"));
    let dir = tempfile::tempdir().expect("a temp dir");
    let rental = data::open_rental(dir.path());
    let fleet: Vec<Property> = (0..PROPERTIES).map(data::fleet_property).collect();
    rental.import_properties(&fleet).expect("import");
    let today = data::now().date_naive();
    let requests: Vec<(NewBooking, Option<String>)> = (0..count)
        .map(|k| {
            let (p, stay) = data::booking_slot(k, PROPERTIES as u64, today);
            (data::request(fleet[p].slug.as_str(), stay), None)
        })
        .collect();
    let worker = rental.worker();
    let mut created = 0;
    for group in requests.chunks(GROUP) {
        created += worker.create_bookings(group).iter().filter(|r| r.is_ok()).count();
    }
    println!("{created} of {count} bookings created");
}
