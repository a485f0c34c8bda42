//! Guest messages across a crash of the real `rental serve`: a message whose
//! send is cut by SIGKILL goes out again after a restart with the same
//! `Message-ID`, and nothing else is sent twice or lost (docs/API.md section 21);
//! `bookings messages` and `bookings payments` locally and through a server.

mod common;

use std::time::Duration;

use common::{Sandbox, get, post};
use rental_tests::smtp::SmtpServer;
use serde_json::json;

#[tokio::test(flavor = "multi_thread")]
async fn a_send_cut_by_sigkill_is_sent_again_with_the_same_message_id_and_nothing_is_lost() {
    let Some(smtp) = SmtpServer::start() else { return };
    let (sandbox, key) = Sandbox::with_key();
    let ca = smtp.ca_file();
    let env = [
        ("RENTAL_SMTP_URL", smtp.url()),
        ("RENTAL_SMTP_CA_FILE", ca.display().to_string()),
        ("RENTAL_MAIL_FROM", "Sea View <stay@example.com>".to_owned()),
        ("RENTAL_MAIL_LEASE", "2s".to_owned()),
    ];
    let env: Vec<(&str, &str)> = env.iter().map(|(k, v)| (*k, v.as_str())).collect();
    let server = sandbox.serve_with(&env);
    let body = |check_in: u64| {
        json!({"property": "sea-view", "checkIn": common::day(check_in).to_string(),
               "checkOut": common::day(check_in + 3).to_string(), "guestName": "Ada Lovelace",
               "guestEmail": "ada@example.com", "guests": 2})
    };
    let (status, first) = post(server.addr, "/api/v1/bookings", &key, &body(30));
    assert_eq!(status, 201, "{first}");
    smtp.wait_for(1, Duration::from_secs(20)).await;

    smtp.script(&["hang 6"]);
    let (status, second) = post(server.addr, "/api/v1/bookings", &key, &body(40));
    assert_eq!(status, 201, "{second}");
    let held = smtp.wait_hanging(Duration::from_secs(20)).await;
    assert!(held.contains(second["code"].as_str().unwrap()), "the second booking's message is on the wire");
    server.kill();

    let server = sandbox.serve_with(&env);
    // The cut send's lease lapses after 2 s and the restarted server sends it again. The mail
    // server drops the held copy when its connection dies (it never answered 250): a receiver
    // gets the message once, or twice at worst, always under the record's one Message-ID.
    let until = std::time::Instant::now() + Duration::from_secs(30);
    while smtp.received().len() < 2 {
        assert!(std::time::Instant::now() < until, "{} messages: {}", smtp.received().len(), server.log());
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    tokio::time::sleep(Duration::from_secs(7)).await; // past the held copy's 6 s
    let got = smtp.received();
    let (first_code, second_code) = (first["code"].as_str().unwrap(), second["code"].as_str().unwrap());
    assert_eq!(got.iter().filter(|r| code_in(r, first_code)).count(), 1, "the first message went once");
    let held_id = held
        .lines()
        .find_map(|l| l.strip_prefix("Message-ID: "))
        .expect("the held copy has a Message-ID")
        .trim()
        .to_owned();
    let copies: Vec<&str> = got.iter().filter(|r| code_in(r, second_code)).map(|r| r.header("Message-ID")).collect();
    assert!((1..=2).contains(&copies.len()), "{copies:?}");
    assert!(copies.iter().all(|id| *id == held_id), "the cut send's Message-ID: {copies:?} vs {held_id}");
    let (status, list) = get(server.addr, &format!("/api/v1/bookings/{second_code}/messages"), &key);
    assert_eq!(status, 200);
    assert_eq!(list["data"][0]["status"], "sent", "{list}");
}

fn code_in(r: &rental_tests::smtp::Received, code: &str) -> bool {
    r.text.as_deref().is_some_and(|t| t.contains(code))
}

#[test]
fn bookings_messages_lists_a_bookings_messages_locally_and_through_a_server() {
    let (sandbox, key) = Sandbox::with_key();
    let code = sandbox.with_bookings()[0].code.to_string();
    let local = sandbox.run(&["bookings", "messages", &code]).ok();
    assert!(local.stdout.starts_with("KIND"), "{}", local.stdout);
    assert!(local.stdout.contains("request_received") && local.stdout.contains("ada@example.com"), "{}", local.stdout);
    let json = sandbox.run(&["bookings", "messages", &code, "--json"]).ok().json();
    assert_eq!(json["data"][0]["kind"], "request_received");
    assert_eq!(json["data"][0]["status"], "scheduled", "no server has run: nothing sent yet");
    let server = sandbox.serve();
    let remote =
        sandbox.run(&["bookings", "messages", &code, "--json", "--url", &server.url(), "--api-key", &key]).ok().json();
    assert_eq!(remote["data"][0]["kind"], "request_received");
    // Times on the property's own clock, its zone named, locally and through the server alike.
    let table = sandbox.run(&["bookings", "messages", &code, "--url", &server.url(), "--api-key", &key]).ok();
    for stdout in [&local.stdout, &table.stdout] {
        assert!(stdout.contains("Lisbon time") && !stdout.contains("UTC"), "{stdout}");
    }
    sandbox.run(&["bookings", "messages", "BK-NOPE22"]).fails(1);
}

#[test]
fn bookings_payments_lists_a_bookings_ledger_locally_and_through_a_server() {
    let (sandbox, key) = Sandbox::with_key();
    let code = sandbox.with_bookings()[0].code.to_string();
    let local = sandbox.run(&["bookings", "payments", &code]).ok();
    assert!(local.stdout.starts_with("KIND"), "{}", local.stdout);
    let row = local.stdout.lines().nth(1).unwrap_or_default();
    assert!(row.starts_with("installment") && row.contains(" due ") && row.contains('$'), "{}", local.stdout);
    assert!(row.contains("Lisbon time") && !row.contains("UTC"), "on the property's clock: {row}");
    let json = sandbox.run(&["bookings", "payments", &code, "--json"]).ok().json();
    assert_eq!((&json["data"][0]["kind"], &json["data"][0]["number"]), (&json!("installment"), &json!(1)));
    let server = sandbox.serve();
    let remote =
        sandbox.run(&["bookings", "payments", &code, "--json", "--url", &server.url(), "--api-key", &key]).ok().json();
    assert_eq!(remote, json, "the same ledger through the server");
    sandbox.run(&["bookings", "payments", "BK-NOPE22"]).fails(1);
}

#[test]
fn bookings_refund_goes_through_the_servers_provider_only() {
    let (sandbox, key) = Sandbox::with_key();
    let code = sandbox.with_bookings()[0].code.to_string();
    let local = sandbox.run(&["bookings", "refund", &code, "5000"]);
    assert!(local.fails(2).contains("--url"), "{local:?}");
    let server = sandbox.serve();
    let remote = sandbox.run(&["bookings", "refund", &code, "5000", "--url", &server.url(), "--api-key", &key]);
    let message = remote.fails(1).to_owned();
    assert!(message.contains("no payment provider is configured"), "{message}");
    let clap = sandbox.run(&["bookings", "refund", &code, "fifty"]);
    assert!(clap.code == 2 && clap.stderr.contains("invalid value 'fifty'"), "{clap:?}");
}
