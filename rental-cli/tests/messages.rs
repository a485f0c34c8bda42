//! Guest messages across a crash of the real `rental serve`: a message whose
//! send is cut by SIGKILL goes out again after a restart with the same
//! `Message-ID`, and nothing else is sent twice or lost (docs/API.md section 21);
//! `bookings messages` and `bookings payments` locally and through a server;
//! `bookings refund` through a server's provider (localstripe), and a payment whose
//! answer a SIGKILL cut off, found by reconciliation after the restart (section 23).

mod common;

use std::time::Duration;

use common::{Sandbox, get, post};
use rental_tests::smtp::SmtpServer;
use serde_json::{Value, json};

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

/// The server's Stripe settings for `stripe` (its API at `api_base`).
fn stripe_env(api_base: &str) -> Vec<(&'static str, String)> {
    use rental_tests::localstripe::{PUBLISHABLE_KEY, SECRET_KEY, WEBHOOK_SECRET};
    vec![
        ("RENTAL_PAYMENTS_PROVIDER", "stripe".to_owned()),
        ("RENTAL_STRIPE_SECRET_KEY", SECRET_KEY.to_owned()),
        ("RENTAL_STRIPE_PUBLISHABLE_KEY", PUBLISHABLE_KEY.to_owned()),
        ("RENTAL_STRIPE_WEBHOOK_SECRET", WEBHOOK_SECRET.to_owned()),
        ("RENTAL_STRIPE_API_BASE", api_base.to_owned()),
    ]
}

fn serve_paying(sandbox: &Sandbox, api_base: &str) -> common::Server {
    let env = stripe_env(api_base);
    sandbox.serve_with(&env.iter().map(|(k, v)| (*k, v.as_str())).collect::<Vec<_>>())
}

/// A request at Sea View whose guest saved `card` with localstripe (as Stripe.js would); its code.
async fn with_saved_card(
    server: &common::Server,
    key: &str,
    stripe: &rental_tests::localstripe::LocalStripe,
    card: &str,
) -> String {
    let body = json!({"property": "sea-view", "checkIn": common::day(30).to_string(),
        "checkOut": common::day(33).to_string(), "guestName": "Ada Lovelace", "guestEmail": "ada@example.com", "guests": 2});
    let (status, booking) = post(server.addr, "/api/v1/bookings", key, &body);
    assert_eq!(status, 201, "{booking}");
    let code = booking["code"].as_str().unwrap().to_owned();
    let (status, started) = post(server.addr, &format!("/api/v1/bookings/{code}/checkout"), key, &json!({}));
    assert_eq!(status, 200, "{started}");
    stripe.save_card(started["setupClientSecret"].as_str().unwrap(), card).await.expect(200);
    code
}

#[tokio::test(flavor = "multi_thread")]
async fn bookings_refund_through_a_server_with_a_provider_gives_money_back_once() {
    use rental_tests::localstripe::{LocalStripe, cards};
    let Some(stripe) = LocalStripe::start() else { return };
    let (sandbox, key) = Sandbox::with_key();
    let server = serve_paying(&sandbox, &stripe.api_base());
    let code = with_saved_card(&server, &key, &stripe, cards::OK).await;
    let complete = format!("/api/v1/bookings/{code}/checkout/complete");
    assert_eq!(post(server.addr, &complete, &key, &json!({})).1["status"], "authorized");
    let (status, confirmed) =
        common::patch(server.addr, &format!("/api/v1/bookings/{code}"), &key, &json!({"action": "confirm"}));
    assert_eq!((status, confirmed["paymentStatus"].as_str()), (200, Some("paid")), "{confirmed}");

    let args = ["bookings", "refund", &code, "5000", "--reason", "the heating failed", "--url", &server.url()];
    let run = sandbox.run(&[&args[..], &["--api-key", &key]].concat()).ok();
    let row = run.stdout.lines().nth(1).unwrap_or_default();
    assert!(row.starts_with("refund") && row.contains("$50.00") && row.contains("succeeded"), "{}", run.stdout);
    let (_, booking) = get(server.addr, &format!("/api/v1/bookings/{code}"), &key);
    assert_eq!(
        (booking["amountRefunded"].as_i64(), booking["paymentStatus"].as_str()),
        (Some(5000), Some("partially_refunded"))
    );
    let (_, ledger) = get(server.addr, &format!("/api/v1/bookings/{code}/payments"), &key);
    let refunds: Vec<&Value> = ledger["data"].as_array().unwrap().iter().filter(|p| p["kind"] == "refund").collect();
    assert_eq!(refunds.len(), 1, "{ledger}");
    let intent = ledger["data"][0]["providerRef"].as_str().unwrap();
    let made = stripe.get(&format!("/v1/refunds?payment_intent={intent}")).await;
    assert_eq!(made["data"].as_array().unwrap().len(), 1, "{made}");
    assert_eq!(
        (made["data"][0]["amount"].as_i64(), made["data"][0]["id"].as_str()),
        (Some(5000), refunds[0]["providerRef"].as_str())
    );
    // More than is left to give back: refused, nothing refunded.
    let too_much = sandbox
        .run(&[&["bookings", "refund", &code, "999999", "--url", &server.url()][..], &["--api-key", &key]].concat());
    assert!(too_much.fails(1).contains("amount"), "{too_much:?}");
    assert_eq!(stripe.get(&format!("/v1/refunds?payment_intent={intent}")).await["data"].as_array().unwrap().len(), 1);
}

/// A stand-in in front of `stripe` that passes every call on, and when a payment intent has
/// been made, tells `made` and keeps the answer from the server (which the test then kills).
async fn cut_after_the_charge(stripe: std::net::SocketAddr, made: tokio::sync::mpsc::Sender<()>) -> String {
    use http_body_util::{BodyExt, Full};
    use hyper::service::service_fn;
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move {
        loop {
            let Ok((stream, _)) = listener.accept().await else { return };
            let made = made.clone();
            let service = service_fn(move |req: http::Request<hyper::body::Incoming>| {
                let made = made.clone();
                async move {
                    let (parts, body) = req.into_parts();
                    let body = body.collect().await.map(http_body_util::Collected::to_bytes).unwrap_or_default();
                    let upstream = rental_tests::http::Http::new(stripe);
                    let path = parts.uri.path_and_query().map_or("/", |p| p.as_str()).to_owned();
                    let mut request = upstream.request(parts.method.clone(), &path, "");
                    for (name, value) in &parts.headers {
                        if name != http::header::HOST {
                            request = request.header(name, value);
                        }
                    }
                    let reply = upstream.send(request.body(Full::new(body)).unwrap()).await;
                    if parts.method == http::Method::POST && path == "/v1/payment_intents" {
                        let _ = made.send(()).await;
                        tokio::time::sleep(Duration::from_secs(60)).await;
                    }
                    let mut response = http::Response::new(Full::new(reply.bytes.clone()));
                    *response.status_mut() = http::StatusCode::from_u16(reply.status).unwrap();
                    Ok::<_, std::convert::Infallible>(response)
                }
            });
            tokio::spawn(async move {
                let io = hyper_util::rt::TokioIo::new(stream);
                let _ = hyper::server::conn::http1::Builder::new().serve_connection(io, service).await;
            });
        }
    });
    format!("http://{addr}")
}

#[tokio::test(flavor = "multi_thread")]
async fn a_hold_whose_answer_a_sigkill_cut_off_is_found_by_reconciliation_after_the_restart() {
    use rental_tests::localstripe::{LocalStripe, cards};
    let Some(stripe) = LocalStripe::start() else { return };
    let (made_tx, mut made) = tokio::sync::mpsc::channel(1);
    let cutting = cut_after_the_charge(stripe.addr, made_tx).await;
    let (sandbox, key) = Sandbox::with_key();
    let server = serve_paying(&sandbox, &cutting);
    let code = with_saved_card(&server, &key, &stripe, cards::OK).await;
    let (addr, path, k) = (server.addr, format!("/api/v1/bookings/{code}/checkout/complete"), key.clone());
    let asking = tokio::task::spawn_blocking(move || common::request(addr, "POST", &path, &k, "{}"));
    // The provider made the hold; the server is killed before its answer reaches our commit.
    tokio::time::timeout(Duration::from_secs(20), made.recv()).await.expect("the hold is made").unwrap();
    server.kill();
    let cut = asking.await.unwrap();
    assert!(!cut.contains("authorized"), "no answer reached the client: {cut}");
    let intents = stripe.get("/v1/payment_intents?limit=100").await;
    let intent = intents["data"][0].clone();
    assert_eq!((intents["data"].as_array().unwrap().len(), intent["status"].as_str()), (1, Some("requires_capture")));
    let ledger = sandbox.library().payments(&code).unwrap();
    assert_eq!(ledger[0].provider_ref, None, "nothing of the hold was committed");

    // Restarted (straight to the provider): reconciliation at start finds the hold by its key.
    let server = serve_paying(&sandbox, &stripe.api_base());
    let deadline = std::time::Instant::now() + Duration::from_secs(20);
    let booking = loop {
        let (_, booking) = get(server.addr, &format!("/api/v1/bookings/{code}"), &key);
        if booking["paymentStatus"] == "authorized" || std::time::Instant::now() > deadline {
            break booking;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    assert_eq!(booking["paymentStatus"], "authorized", "{booking}");
    let (_, ledger) = get(server.addr, &format!("/api/v1/bookings/{code}/payments"), &key);
    let first = &ledger["data"][0];
    assert_eq!((first["status"].as_str(), first["providerRef"].as_str()), (Some("authorized"), intent["id"].as_str()));
    assert_eq!(first["amount"], intent["amount"], "the ledger matches the provider's");
    assert_eq!(intent["metadata"]["booking"], code.as_str());
    // Completing now answers with that hold and takes no second one.
    let complete = format!("/api/v1/bookings/{code}/checkout/complete");
    assert_eq!(post(server.addr, &complete, &key, &json!({})).1["status"], "authorized");
    assert_eq!(stripe.get("/v1/payment_intents?limit=100").await["data"].as_array().unwrap().len(), 1);
}
