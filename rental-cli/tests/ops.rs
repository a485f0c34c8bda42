//! Running it unattended (docs/API.md section 22), against the real binary:
//! a real Prometheus scrapes `/metrics` with a `metrics` key and promtool
//! accepts the exposition; `logFormat json` writes one line a request, and
//! no line of a run that used every secret holds one; `systemd-analyze verify`
//! accepts examples/systemd/rental.service.

mod common;

use std::process::{Child, Command, Stdio};
use std::thread;
use std::time::{Duration, Instant};

use common::{Sandbox, day, get, post, request, round_trip};
use rental_core::keys::Scope;
use rental_core::webhook::Subscription;
use rental_tests::ports::free_port;
use rental_tests::tools;
use serde_json::{Value, json};

/// A three-night stay at `property`, `from` days from now.
fn stay(property: &str, from: u64) -> Value {
    json!({
        "property": property, "checkIn": day(from).to_string(), "checkOut": day(from + 3).to_string(),
        "guestName": "Ada Lovelace", "guestEmail": "ada@example.com", "guests": 2,
    })
}

/// The body of an HTTP response given as text.
fn body(response: &str) -> &str {
    response.split_once("\r\n\r\n").map_or("", |(_, body)| body)
}

/// A Prometheus server, killed when dropped.
struct Prometheus(Child);

impl Drop for Prometheus {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Asks Prometheus's HTTP API for `query`; the value of its first sample, if any.
fn query(port: u16, query: &str) -> Option<f64> {
    let addr: std::net::SocketAddr = format!("127.0.0.1:{port}").parse().unwrap();
    let encoded: String = query
        .bytes()
        .map(|b| if b.is_ascii_alphanumeric() || b == b'_' { char::from(b).to_string() } else { format!("%{b:02X}") })
        .collect();
    // Not round_trip: Prometheus may not listen yet.
    let mut stream = std::net::TcpStream::connect(addr).ok()?;
    stream.set_read_timeout(Some(Duration::from_secs(5))).ok()?;
    let ask = format!("GET /api/v1/query?query={encoded} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n");
    std::io::Write::write_all(&mut stream, ask.as_bytes()).ok()?;
    let mut response = String::new();
    std::io::Read::read_to_string(&mut stream, &mut response).ok()?;
    let answer: Value = serde_json::from_str(body(&response)).ok()?;
    answer["data"]["result"][0]["value"][1].as_str()?.parse().ok()
}

#[test]
fn a_real_prometheus_scrapes_with_a_metrics_key_and_counts_the_bookings() {
    if !tools::prometheus() {
        return;
    }
    let (sandbox, key) = Sandbox::with_key();
    let metrics_key = sandbox.library().admin().create_key("prometheus", &[Scope::Metrics]).unwrap().secret;
    let server = sandbox.serve();
    let created: u32 = 7;
    for i in 0..created {
        let (status, booking) = post(server.addr, "/api/v1/bookings", &key, &stay("sea-view", 30 + 4 * u64::from(i)));
        assert_eq!(status, 201, "{booking}");
    }
    // A conflict is counted apart, not as a creation.
    assert_eq!(post(server.addr, "/api/v1/bookings", &key, &stay("sea-view", 30)).0, 409);

    // The metrics key reads /metrics and nothing else; the API key does not read /metrics.
    assert_eq!(get(server.addr, "/api/v1/properties", &metrics_key).0, 403);
    assert_eq!(get(server.addr, "/metrics", &key).0, 403);
    assert_eq!(get(server.addr, "/metrics", "").0, 401);

    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("prometheus.yml");
    std::fs::write(
        &config,
        format!(
            "global:\n  scrape_interval: 1s\nscrape_configs:\n  - job_name: rental\n    \
             authorization:\n      type: Bearer\n      credentials: {metrics_key}\n    \
             static_configs:\n      - targets: ['{}']\n",
            server.addr
        ),
    )
    .unwrap();
    let port = free_port();
    let prometheus = Prometheus(
        Command::new("prometheus")
            .arg(format!("--config.file={}", config.display()))
            .arg(format!("--storage.tsdb.path={}", dir.path().join("data").display()))
            .arg(format!("--web.listen-address=127.0.0.1:{port}"))
            .stdout(Stdio::null())
            .stderr(std::fs::File::create(dir.path().join("prometheus.log")).unwrap())
            .spawn()
            .expect("prometheus starts"),
    );
    let deadline = Instant::now() + Duration::from_secs(60);
    let counted = loop {
        let up = query(port, "up{job=\"rental\"}");
        let counted = query(port, "sum(rental_bookings_created_total)");
        if up == Some(1.0) && counted.is_some() {
            break counted;
        }
        let log = std::fs::read_to_string(dir.path().join("prometheus.log")).unwrap_or_default();
        assert!(Instant::now() < deadline, "up {up:?}, created {counted:?} after 60 s: {log}");
        thread::sleep(Duration::from_millis(250));
    };
    assert_eq!(counted, Some(f64::from(created)));
    assert_eq!(query(port, "sum(rental_booking_conflicts_total)"), Some(1.0));
    assert_eq!(query(port, "rental_bookings_created_total{source=\"api\"}"), Some(f64::from(created)));
    drop(prometheus);

    let exposition = request(server.addr, "GET", "/metrics", &metrics_key, "");
    assert!(exposition.contains("text/plain; version=0.0.4"), "{exposition}");
    let mut promtool = Command::new("promtool")
        .args(["check", "metrics"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("promtool runs");
    std::io::Write::write_all(&mut promtool.stdin.take().unwrap(), body(&exposition).as_bytes()).unwrap();
    let checked = promtool.wait_with_output().unwrap();
    assert!(
        checked.status.success(),
        "promtool: {}{}\n{}",
        String::from_utf8_lossy(&checked.stdout),
        String::from_utf8_lossy(&checked.stderr),
        body(&exposition)
    );
    for family in [
        "rental_build_info{version=",
        "rental_http_requests_total{method=\"POST\",route=\"/api/v1/bookings\",status=\"201\"} 7",
        "rental_http_request_duration_seconds_bucket{method=\"POST\",route=\"/api/v1/bookings\",le=",
        "rental_store_commit_duration_seconds_count",
        "rental_webhook_deliveries_total{outcome=\"delivered\"}",
        "rental_webhook_pending 0",
        "rental_webhook_oldest_pending_seconds",
        "rental_feed_pulls_total{outcome=\"ok\"}",
        "process_resident_memory_bytes",
        "process_cpu_seconds_total",
        "process_open_fds",
        "process_start_time_seconds",
    ] {
        assert!(exposition.contains(family), "no {family} in {exposition}");
    }
}

/// A dashboard or an alert built on a family sees it from the first scrape:
/// every family of docs/API.md section 22 (but the per-feed ages) is there
/// before anything has happened, with zero series for its known labels.
#[test]
fn the_first_scrape_of_a_fresh_server_has_every_family() {
    let (sandbox, _) = Sandbox::with_key();
    let metrics_key = sandbox.library().admin().create_key("prometheus", &[Scope::Metrics]).unwrap().secret;
    let server = sandbox.serve();
    let exposition = request(server.addr, "GET", "/metrics", &metrics_key, "");
    for family in [
        "rental_build_info{",
        "rental_http_requests_total{method=\"GET\",route=\"/metrics\",status=\"200\"} 0",
        "rental_http_request_duration_seconds_count{method=\"GET\",route=\"/metrics\"} 0",
        "rental_bookings_created_total{source=\"page\"} 0",
        "rental_bookings_created_total{source=\"other\"} 0",
        "rental_booking_conflicts_total 0",
        "rental_store_commit_duration_seconds_count",
        "rental_webhook_deliveries_total{outcome=\"retry\"} 0",
        "rental_webhook_pending 0",
        "rental_webhook_oldest_pending_seconds",
        "rental_feed_pulls_total{outcome=\"failed\"} 0",
        "rental_messages_total{kind=\"check_in_instructions\",outcome=\"sent\"} 0",
        "rental_messages_total{kind=\"host_request\",outcome=\"skipped\"} 0",
    ] {
        assert!(exposition.contains(family), "no {family} in {exposition}");
    }
}

#[test]
fn metrics_listen_serves_the_exposition_without_a_key_and_nothing_else() {
    let (sandbox, _) = Sandbox::with_key();
    let port = free_port();
    let listen = format!("127.0.0.1:{port}");
    let server = sandbox.serve_with(&[("RENTAL_METRICS_LISTEN", listen.as_str())]);
    let addr = listen.parse().unwrap();
    let deadline = Instant::now() + Duration::from_secs(10);
    while std::net::TcpStream::connect(addr).is_err() {
        assert!(Instant::now() < deadline, "nothing listens on {listen}: {}", server.log());
        thread::sleep(Duration::from_millis(50));
    }
    let open = request(addr, "GET", "/metrics", "", "");
    assert!(open.starts_with("HTTP/1.1 200"), "{open}");
    assert!(body(&open).contains("rental_build_info"), "{open}");
    assert!(request(addr, "GET", "/api/v1/properties", "", "").starts_with("HTTP/1.1 404"));
    // The main listener still wants a key.
    assert_eq!(get(server.addr, "/metrics", "").0, 401);
}

/// The secrets of the logging test: each must never appear in a log line.
const WEBHOOK_SECRET: &str = "whsec_bG9nIHRlc3Qgd2ViaG9vayBzZWNyZXQ=";
const ADMIN_PASSWORD: &str = "correct-horse-battery-staple-17";
const WRONG_PASSWORD: &str = "tr0ub4dor-and-3-wrong";
const DOOR_CODE: &str = "73915864";
/// The receiver's own secrets in its URL: a password and a query token.
const HOOK_PASSWORD: &str = "hookpass-9f3e1c";
const HOOK_TOKEN: &str = "hooktoken-77ab20";

#[test]
fn json_logs_have_a_line_a_request_and_no_secret_in_any_line() {
    let (sandbox, key) = Sandbox::with_key();
    let read_key = {
        let rental = sandbox.library();
        let mut property = rental.property("sea-view").unwrap();
        property.access.door_code = DOOR_CODE.to_owned();
        rental.import_properties(&[property]).unwrap();
        rental.admin().set_admin_password(ADMIN_PASSWORD).unwrap();
        // Nobody listens there: each attempt, signed with the secret, is refused at once.
        let url = format!("http://hooks:{HOOK_PASSWORD}@127.0.0.1:{}/hooks?token={HOOK_TOKEN}", free_port());
        rental.admin().add_webhook(&url, Subscription::parse("*").unwrap(), Some(WEBHOOK_SECRET.to_owned())).unwrap();
        rental.admin().create_key("reader", &[Scope::Read]).unwrap().secret
    };
    let server = sandbox.serve_with(&[
        ("RENTAL_LOG_FORMAT", "json"),
        ("RUST_LOG", "debug"),
        ("RENTAL_ALLOW_PRIVATE_TARGETS", "true"),
        ("RENTAL_WEBHOOK_RETRIES", "1s,1s"),
    ]);

    // The API key, a booking confirmed (its door code in the summary and the booking), a refusal.
    let (status, booking) = post(server.addr, "/api/v1/bookings", &key, &stay("sea-view", 1));
    assert_eq!(status, 201, "{booking}");
    let code = booking["code"].as_str().unwrap().to_owned();
    let confirmed = request(server.addr, "PATCH", &format!("/api/v1/bookings/{code}"), &key, r#"{"action":"confirm"}"#);
    assert!(confirmed.starts_with("HTTP/1.1 200"), "{confirmed}");
    let summary = request(server.addr, "GET", "/api/v1/ha/summary", &read_key, "");
    assert!(summary.contains(DOOR_CODE), "the door code is in use: {summary}");
    assert_eq!(get(server.addr, "/api/v1/properties", "rk_not-a-real-key-but-secret-looking").0, 401);
    // A method of 20,000 letters is answered, and logged cut short.
    let long_method = "M".repeat(20_000);
    let answer = request(server.addr, &long_method, "/api/v1/properties", &key, "");
    assert!(answer.starts_with("HTTP/1.1 4"), "{answer}");

    // The admin password, wrong and right.
    for password in [WRONG_PASSWORD, ADMIN_PASSWORD] {
        let form = request(server.addr, "GET", "/admin/login", "", "");
        let token = form
            .lines()
            .find_map(|l| {
                l.strip_prefix("set-cookie: rental_login=").or_else(|| l.strip_prefix("Set-Cookie: rental_login="))
            })
            .and_then(|v| v.split(';').next())
            .unwrap_or_else(|| panic!("a login cookie: {form}"))
            .to_owned();
        let body = format!("_csrf={token}&password={password}");
        let addr = server.addr;
        let answer = round_trip(
            addr,
            &format!(
                "POST /admin/login HTTP/1.1\r\nHost: {addr}\r\nOrigin: http://{addr}\r\nCookie: rental_login={token}\r\n\
                 Content-Type: application/x-www-form-urlencoded\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                body.len()
            ),
        );
        let expected = if password == ADMIN_PASSWORD { "HTTP/1.1 303" } else { "HTTP/1.1 401" };
        assert!(answer.starts_with(expected), "{answer}");
    }
    // Let the dispatcher try the webhook (signed with its secret) and fail.
    thread::sleep(Duration::from_millis(1500));
    let log = server.log();
    drop(server);
    let rental = sandbox.library();
    let webhook = rental.admin().webhooks().unwrap().remove(0);
    let tried = rental.admin().deliveries_of(&webhook.id, 10).unwrap().iter().map(|d| d.attempts.len()).sum::<usize>();
    assert!(tried > 0, "the webhook was tried, its secret used: {log}");
    check_log(&log, &[&key, &read_key, "rk_not-a-real-key-but-secret-looking", HOOK_PASSWORD, HOOK_TOKEN]);
    assert!(log.contains("127.0.0.1") && log.contains("/hooks"), "the receiver is still named: {log}");
    assert!(!log.contains(&"M".repeat(100)), "a client's method is logged cut short");
    assert!(log.lines().all(|l| l.len() < 4000), "no line is as long as what a client sent");
}

/// Every line of `log` is a JSON object, each request has one with its fields, and no
/// line holds any of `keys` or the other secrets of the run.
fn check_log(log: &str, keys: &[&str]) {
    let lines: Vec<Value> = log
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("not one JSON object a line ({e}): {l}")))
        .collect();
    for line in &lines {
        assert!(line["time"].is_string() && line["level"].is_string() && line["message"].is_string(), "{line}");
    }
    let requests: Vec<&Value> = lines.iter().filter(|l| l["target"] == "rental::access").collect();
    assert!(requests.len() >= 8, "{log}");
    for r in &requests {
        assert!(r["requestId"].as_str().is_some_and(|id| id.starts_with("req_")), "{r}");
        for field in ["method", "route", "status", "durationMs"] {
            assert!(!r[field].is_null(), "{field} in {r}");
        }
    }
    let created = requests.iter().find(|r| r["method"] == "POST" && r["route"] == "/api/v1/bookings").unwrap();
    assert_eq!(created["status"], 201);
    assert!(created["keyId"].as_str().is_some_and(|id| id.starts_with("key_")), "{created}");
    for secret in keys.iter().chain(&[WEBHOOK_SECRET, ADMIN_PASSWORD, WRONG_PASSWORD, DOOR_CODE]) {
        let found: Vec<&str> = log.lines().filter(|l| l.contains(secret)).collect();
        assert!(found.is_empty(), "{secret} is in the log: {found:?}");
    }
}

#[test]
fn the_systemd_unit_is_hardened_and_systemd_analyze_verify_accepts_it() {
    let unit =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../examples/systemd/rental.service")).unwrap();
    for directive in [
        "DynamicUser=yes",
        "StateDirectory=rental",
        "ProtectSystem=strict",
        "NoNewPrivileges=yes",
        "Restart=on-failure",
        "ExecStart=/usr/local/bin/rental serve",
    ] {
        assert!(unit.lines().any(|l| l.starts_with(directive)), "no {directive} in the unit");
    }
    if !tools::systemd_analyze() {
        return;
    }
    // verify checks that ExecStart names an executable: this build's binary stands in for the installed one.
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("rental.service");
    std::fs::write(&file, unit.replace("/usr/local/bin/rental", env!("CARGO_BIN_EXE_rental"))).unwrap();
    let out = Command::new("systemd-analyze").arg("verify").arg(&file).output().expect("systemd-analyze runs");
    let said = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(out.status.success() && said.trim().is_empty(), "systemd-analyze verify: {said}");
}

/// The Stripe keys of `rental serve` (docs/API.md section 23) in no log line or answer, even
/// when the provider cannot be reached and a webhook comes with a wrong signature.
#[test]
fn the_stripe_secret_key_and_webhook_secret_appear_in_no_log_line_or_answer() {
    const STRIPE_KEY: &str = "sk_test_leakcheck_7c1d9e";
    const STRIPE_HOOK: &str = "whsec_leakcheck_2b8f41";
    let (sandbox, key) = Sandbox::with_key();
    let api_base = format!("http://127.0.0.1:{}", free_port());
    let server = sandbox.serve_with(&[
        ("RENTAL_LOG_FORMAT", "json"),
        ("RUST_LOG", "debug"),
        ("RENTAL_PAYMENTS_PROVIDER", "stripe"),
        ("RENTAL_STRIPE_SECRET_KEY", STRIPE_KEY),
        ("RENTAL_STRIPE_PUBLISHABLE_KEY", "pk_test_leakcheck"),
        ("RENTAL_STRIPE_WEBHOOK_SECRET", STRIPE_HOOK),
        ("RENTAL_STRIPE_API_BASE", &api_base),
    ]);
    let (status, booking) = post(server.addr, "/api/v1/bookings", &key, &stay("sea-view", 1));
    assert_eq!(status, 201, "{booking}");
    let code = booking["code"].as_str().unwrap();
    let mut answers = Vec::new();
    for path in ["checkout", "checkout/complete"] {
        answers.push(request(server.addr, "POST", &format!("/api/v1/bookings/{code}/{path}"), &key, "{}"));
    }
    answers.push(request(server.addr, "POST", "/payments/stripe/webhook", "", r#"{"id":"evt_1"}"#));
    answers.push(request(server.addr, "GET", "/api/openapi.json", "", ""));
    assert!(answers[0].starts_with("HTTP/1.1 503"), "the provider is down: {}", answers[0]);
    assert!(answers[2].starts_with("HTTP/1.1 400"), "unsigned: {}", answers[2]);
    let log = server.log();
    server.kill();
    for text in answers.iter().chain([&log]) {
        assert!(!text.contains(STRIPE_KEY) && !text.contains(STRIPE_HOOK), "a Stripe secret in: {text}");
    }
    assert!(log.contains("payment provider"), "the failure is logged: {log}");
}
