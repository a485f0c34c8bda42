//! The calendar at 200 properties: every row and bar is there, and the page's
//! server time and size stay within bounds (figures in docs/PERFORMANCE.md).

use std::time::{Duration, Instant};

use rental_core::{Slug, Stay, demo};
use rental_tests::d;

use crate::client::{Client, server};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_calendar_of_200_properties_shows_every_row_quickly() {
    let s = server().await;
    let properties: Vec<_> = (0..200)
        .map(|i| {
            let mut p = demo::sea_view();
            p.slug = Slug::parse(&format!("house-{i:03}")).unwrap();
            p.name = format!("House {i:03}");
            p
        })
        .collect();
    s.rental.import_properties(&properties).unwrap();
    for i in 0..200 {
        let slug = format!("house-{i:03}");
        for (from, to) in [("2026-11-24", "2026-11-27"), ("2026-12-05", "2026-12-09")] {
            s.rental.create_booking(&rental_tests::new_booking(&slug, from, to, 2), None).unwrap();
        }
        s.rental.calendars().add_block(&slug, Stay::new(d("2026-12-15"), d("2026-12-18")).unwrap(), "owner").unwrap();
    }
    let admin = Client::logged_in(&s.http).await;
    let mut timings = Vec::new();
    let mut size = 0;
    for _ in 0..5 {
        let started = Instant::now();
        let page = admin.get("/admin/calendar?from=2026-11-22&nights=60").await;
        timings.push(started.elapsed());
        assert_eq!(page.status, 200);
        let html = page.text();
        assert_eq!(html.matches("class=\"cal-row\" data-slug=\"house-").count(), 200);
        assert_eq!(html.matches("class=\"stay pending src-direct\" href=").count(), 400);
        assert_eq!(html.matches("class=\"stay block\" style=").count(), 200);
        size = html.len();
    }
    timings.sort();
    let median = timings[timings.len() / 2];
    println!("calendar, 200 properties x 60 nights: median {median:?}, {size} bytes");
    assert!(median < Duration::from_secs(3), "median {median:?}");
    assert!(size < 4_000_000, "{size} bytes");
}
