//! Guest messages drained: 10,000 messages due at once (5,000 pending
//! requests, each with its `request_received` and `host_request`), sent by
//! the real server's sender to a local aiosmtpd (plain SMTP, the test
//! harness's), on a durable redb store. Prints the rate and the process's
//! peak RSS (the server runs in this process; the harness adds little).
//!
//! Usage: `messages-drain [BOOKINGS, default 5000]` (needs `python3` with
//! aiosmtpd: `pip install -r scripts/test-requirements.txt`). Prints one line:
//! `RESULT messages=N seconds=S messages_per_s=R peak_rss_mib=M`.

use std::process::ExitCode;
use std::sync::Arc;
use std::time::{Duration, Instant};

use chrono::{Days, Utc};
use rental_core::{NewBooking, Property, RedbStore, Rental, Settings, Slug, demo};
use rental_server::mail::compose::parse_mailbox;
use rental_server::mail::{MailConfig, Sender, Smtp};
use rental_server::{AppState, ServerConfig};
use rental_tests::smtp::SmtpServer;

const PROPERTIES: usize = 50;

fn main() -> ExitCode {
    let bookings: usize = std::env::args().nth(1).and_then(|n| n.parse().ok()).unwrap_or(5_000);
    let Some(smtp) = SmtpServer::start_plain() else {
        eprintln!("aiosmtpd is missing: pip install -r scripts/test-requirements.txt");
        return ExitCode::FAILURE;
    };
    let dir = tempfile::tempdir().expect("a temporary directory");
    let settings = Settings { host_email: "host@example.com".into(), checkout_ttl: None, ..Settings::default() };
    let rental =
        Rental::new(RedbStore::open_dir(dir.path()).expect("a store")).with_settings(settings).expect("settings");
    seed(&rental, bookings);
    let expected = bookings * 2;
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build().expect("a runtime");
    let (seconds, peak) = runtime.block_on(drain(rental, &smtp, expected));
    println!(
        "RESULT messages={expected} seconds={seconds:.2} messages_per_s={:.0} peak_rss_mib={:.1}",
        f64::from(u32::try_from(expected).unwrap_or(u32::MAX)) / seconds,
        f64::from(u32::try_from(peak).unwrap_or(u32::MAX)) / 1024.0
    );
    ExitCode::SUCCESS
}

/// `bookings` one-night requests over [`PROPERTIES`] properties, made before the server starts.
fn seed(rental: &Rental<RedbStore>, bookings: usize) {
    let properties: Vec<Property> = (0..PROPERTIES)
        .map(|i| {
            let mut p = demo::sea_view();
            p.slug = Slug::parse(&format!("house-{i}")).expect("a slug");
            p.stay_rules.min_nights = 1;
            p.timezone = chrono_tz::UTC;
            p
        })
        .collect();
    rental.import_properties(&properties).expect("the properties");
    let start = Utc::now().date_naive() + Days::new(2);
    let requests: Vec<NewBooking> = (0..bookings)
        .map(|n| {
            let night = start + Days::new((n / PROPERTIES) as u64);
            NewBooking {
                property: Slug::parse(&format!("house-{}", n % PROPERTIES)).expect("a slug"),
                check_in: night,
                check_out: night + Days::new(1),
                guest_name: format!("Guest {n}"),
                guest_email: format!("guest{n}@example.com"),
                guests: 2,
                notes: None,
                source: None,
                children: 0,
                pets: 0,
                promo_code: None,
                locale: None,
            }
        })
        .collect();
    for request in &requests {
        rental.create_booking(request, None).expect("a booking");
    }
}

/// Serves until every message is sent; the seconds it took and the peak RSS in KiB.
async fn drain(rental: Rental<RedbStore>, smtp: &SmtpServer, expected: usize) -> (f64, u64) {
    let mail = MailConfig {
        smtp: Some(Smtp::new(&smtp.url(), None, Duration::from_secs(30)).expect("a transport")),
        sender: Some(Sender { from: parse_mailbox("Bench <bench@example.com>").expect("an address"), base_url: None }),
        ..MailConfig::default()
    };
    let rental = Arc::new(rental);
    let state = AppState::new(Arc::clone(&rental), &ServerConfig { mail, ..ServerConfig::default() });
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("a port");
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let started = Instant::now();
    let serving = tokio::spawn(rental_server::serve(listener, state, async {
        let _ = stopped.await;
    }));
    let mut peak = 0;
    loop {
        peak = peak.max(rss_kib());
        if smtp.received_count() >= expected {
            break;
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    let seconds = started.elapsed().as_secs_f64();
    let _ = stop.send(());
    let _ = serving.await;
    (seconds, peak)
}

/// This process's resident set size, in KiB.
fn rss_kib() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or(0)
}
