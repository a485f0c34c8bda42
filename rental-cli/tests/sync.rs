//! `rental sync` on the local data directory, against a channel feed served
//! on 127.0.0.1: the table, the progress lines, `--json` and the failures.

mod common;

use std::io::{BufRead, BufReader, Write};
use std::net::TcpListener;
use std::process::{Command, Output};

use chrono::{Days, Utc};
use rental_core::ids::Source;
use rental_core::property::IcalFeed;
use rental_core::{RedbStore, Rental, demo};
use serde_json::Value;
use tempfile::TempDir;

/// A day `days` from now, as `YYYYMMDD` and as `YYYY-MM-DD`.
fn day(days: u64) -> (String, String) {
    let date = Utc::now().date_naive() + Days::new(days);
    (date.format("%Y%m%d").to_string(), date.to_string())
}

/// A reservation 60 to 64 days from now and a block 70 to 72 days from now.
fn feed() -> String {
    let event = |uid: &str, summary: &str, from: u64, to: u64| {
        format!(
            "BEGIN:VEVENT\r\nUID:{uid}\r\nDTSTART;VALUE=DATE:{}\r\nDTEND;VALUE=DATE:{}\r\nSUMMARY:{summary}\r\nEND:VEVENT\r\n",
            day(from).0,
            day(to).0
        )
    };
    format!(
        "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//Airbnb Inc//Hosting Calendar 1.0//EN\r\n{}{}END:VCALENDAR\r\n",
        event("a@airbnb.com", "Reserved", 60, 64),
        event("b@airbnb.com", "Airbnb (Not available)", 70, 72)
    )
}

/// Serves [`feed`] to every request on a loopback port, from a thread; returns the feed URL.
fn channel() -> String {
    let body = feed();
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/airbnb.ics", listener.local_addr().unwrap());
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            let mut reader = BufReader::new(&stream);
            let mut line = String::new();
            while reader.read_line(&mut line).is_ok_and(|n| n > 0) && line != "\r\n" {
                line.clear();
            }
            let head = format!(
                "HTTP/1.1 200 OK\r\nContent-Type: text/calendar\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
                body.len()
            );
            let _ = (&stream).write_all(head.as_bytes()).and_then(|()| (&stream).write_all(body.as_bytes()));
        }
    });
    url
}

/// A data directory with the demo properties, sea-view pulling `url` as `airbnb`.
fn sandbox(url: &str) -> TempDir {
    let dir = tempfile::tempdir().unwrap();
    let rental = Rental::new(RedbStore::open_dir(dir.path().join("rental-data")).unwrap());
    let mut properties = demo::properties();
    properties[0].feeds.ical_feeds =
        vec![IcalFeed { name: Source::parse("airbnb").unwrap(), url: url.to_owned(), reservation_patterns: vec![] }];
    rental.import_properties(&properties).unwrap();
    dir
}

fn rental(dir: &TempDir, args: &[&str], allow_private: bool) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_rental"));
    cmd.args(args).current_dir(dir.path());
    for (name, _) in std::env::vars().filter(|(name, _)| name.starts_with("RENTAL_")) {
        cmd.env_remove(name);
    }
    if allow_private {
        cmd.env("RENTAL_ALLOW_PRIVATE_TARGETS", "true");
    }
    cmd.output().unwrap()
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[test]
fn sync_imports_the_feeds_and_prints_a_table_with_progress() {
    let dir = sandbox(&channel());
    let out = rental(&dir, &["sync"], true);
    let (stdout, stderr) = (text(&out.stdout), text(&out.stderr));
    assert_eq!(out.status.code(), Some(0), "{stdout}{stderr}");
    assert!(stderr.contains("[1] sea-view/airbnb: ok, 2 events"), "{stderr}");
    let row = stdout.lines().find(|l| l.starts_with("sea-view")).unwrap_or_else(|| panic!("{stdout}"));
    let cells: Vec<&str> = row.split_whitespace().collect();
    assert_eq!(cells, ["sea-view", "airbnb", "ok", "2", "1", "0", "0", "0"]);
    assert!(stdout.contains("1 feed: 1 ok, 0 failed; 1 created"), "{stdout}");

    let bookings = rental(&dir, &["bookings", "list", "--json"], false);
    let listed: Value = serde_json::from_slice(&bookings.stdout).unwrap();
    let imported: Vec<&Value> = listed["data"].as_array().unwrap().iter().filter(|b| b["source"] == "airbnb").collect();
    assert_eq!(imported.len(), 1);
    assert_eq!((&imported[0]["checkIn"], &imported[0]["status"]), (&Value::from(day(60).1), &Value::from("confirmed")));
}

#[test]
fn sync_json_is_the_api_report_and_a_refused_feed_is_reported_not_fatal() {
    let dir = sandbox(&channel());
    // Without allowPrivateTargets, a loopback feed is refused (docs/API.md section 10).
    let out = rental(&dir, &["sync", "--json"], false);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!((&report["feeds"], &report["failed"]), (&Value::from(1), &Value::from(1)));
    let error = report["results"][0]["error"].as_str().unwrap_or_default();
    assert!(error.contains("refused target 127.0.0.1"), "{error}");
    assert!(text(&out.stderr).contains("1 of 1 feed failed"), "{}", text(&out.stderr));
}

#[test]
fn sync_of_an_unknown_property_fails_in_one_line() {
    let dir = sandbox(&channel());
    let out = rental(&dir, &["sync", "--property", "nowhere"], true);
    assert_eq!(out.status.code(), Some(1));
    let stderr = text(&out.stderr);
    assert_eq!(stderr.trim_end().lines().count(), 1, "{stderr}");
    assert!(stderr.starts_with("error: ") && stderr.contains("nowhere"), "{stderr}");
}

#[test]
fn sync_through_a_running_server_prints_the_same_report() {
    let (s, key) = common::Sandbox::with_key();
    let mut properties = rental_core::demo::properties();
    properties[0].feeds.ical_feeds =
        vec![IcalFeed { name: Source::parse("airbnb").unwrap(), url: channel(), reservation_patterns: vec![] }];
    s.library().import_properties(&properties).unwrap();
    // No schedule, so the pull below is the first.
    let server = s.serve_with(&[("RENTAL_ALLOW_PRIVATE_TARGETS", "true"), ("RENTAL_SYNC_INTERVAL", "0")]);
    let url = server.url();

    let out = s.run(&["sync", "--property", "sea-view", "--url", &url, "--api-key", &key]).ok();
    let row = out.stdout.lines().find(|l| l.starts_with("sea-view")).unwrap_or_else(|| panic!("{out:?}"));
    assert_eq!(row.split_whitespace().collect::<Vec<_>>(), ["sea-view", "airbnb", "ok", "2", "1", "0", "0", "0"]);
    let again = s.run(&["sync", "--json", "--url", &url, "--api-key", &key]).ok().json();
    assert_eq!((&again["feeds"], &again["created"], &again["succeeded"]), (&1.into(), &0.into(), &1.into()));

    let missing = s.run(&["sync", "--property", "nowhere", "--url", &url, "--api-key", &key]);
    assert_eq!(missing.fails(1), r#"error: property "nowhere" not found"#);
}
