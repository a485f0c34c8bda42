//! The CLI's remote mode: `quote` and `bookings` through a real `rental
//! serve` with `--url`/`--api-key` (or `RENTAL_URL`/`RENTAL_API_KEY`) print
//! what the same commands print on the local store, and fail with the API
//! problem's detail (exit 1) or as usage errors (exit 2).

mod common;

use common::{Sandbox, day};
use rental_core::keys::Scope;

fn quote_args(check_in: &str, check_out: &str) -> Vec<String> {
    ["quote", "--property", "sea-view", "--check-in", check_in, "--check-out", check_out, "--guests", "3"]
        .map(str::to_owned)
        .to_vec()
}

fn with<'a>(args: &'a [String], extra: &[&'a str]) -> Vec<&'a str> {
    args.iter().map(String::as_str).chain(extra.iter().copied()).collect()
}

#[test]
fn quote_and_bookings_print_the_same_through_the_server_as_on_the_local_store() {
    let (s, key) = Sandbox::with_key();
    let made = s.with_bookings();
    let code = made[0].code.to_string();
    // Nights 30..37 are held by the first booking: the quote lists them as taken.
    let quote = quote_args(&day(33).to_string(), &day(40).to_string());
    let commands: Vec<Vec<&str>> = vec![
        with(&quote, &[]),
        with(&quote, &["--json"]),
        vec!["bookings", "list"],
        vec!["bookings", "list", "--json", "--limit", "2"],
        vec!["bookings", "list", "--status", "pending", "--property", "sea-view", "--from", "2020-01-01", "--json"],
        vec!["bookings", "show", &code],
        vec!["bookings", "show", &code, "--json"],
    ];
    // One base URL for both, so that the stay page links they print are the same.
    let base = [("RENTAL_BASE_URL", "https://stays.example")];
    let local: Vec<String> = commands.iter().map(|args| s.run_with(args, &base).ok().stdout).collect();
    assert!(local[0].contains("Not available:") && local[0].contains("dates_unavailable"), "{}", local[0]);

    let server = s.serve_with(&base);
    let url = server.url();
    for (args, want) in commands.iter().zip(&local) {
        let remote: Vec<&str> =
            args.iter().copied().chain(["--url", url.as_str(), "--api-key", key.as_str()]).collect();
        assert_eq!(&s.run(&remote).ok().stdout, want, "rental {remote:?}");
        let by_env = s.run_with(args, &[("RENTAL_URL", &url), ("RENTAL_API_KEY", &key)]).ok();
        assert_eq!(&by_env.stdout, want, "rental {args:?} with RENTAL_URL");
    }
    // The page note on stderr names the next cursor in both modes.
    let paged = s.run(&["bookings", "list", "--limit", "2", "--url", &url, "--api-key", &key]).ok();
    assert!(paged.stderr.contains("--cursor "), "{paged:?}");
}

#[test]
fn bookings_are_confirmed_and_cancelled_through_the_server() {
    let (s, key) = Sandbox::with_key();
    let code = s.with_bookings()[0].code.to_string();
    let server = s.serve();
    let env = [("RENTAL_URL", server.url()), ("RENTAL_API_KEY", key.clone())];
    let env: Vec<(&str, &str)> = env.iter().map(|(k, v)| (*k, v.as_str())).collect();

    let confirmed = s.run_with(&["bookings", "confirm", &code.to_lowercase()], &env).ok().stdout;
    assert_eq!(confirmed, format!("{code}: confirmed, payment paid\n"));
    assert_eq!(s.run_with(&["bookings", "confirm", &code], &env).ok().stdout, confirmed, "a repeat is a no-op");
    let args = ["bookings", "cancel", &code, "--by", "guest", "--reason", "flight cancelled", "--json"];
    let cancelled = s.run_with(&args, &env).ok().json();
    assert_eq!(
        (&cancelled["status"], &cancelled["paymentStatus"], &cancelled["cancelledBy"], &cancelled["cancelReason"]),
        (&"cancelled".into(), &"refunded".into(), &"guest".into(), &"flight cancelled".into())
    );
    let listed = s.run_with(&["bookings", "list", "--status", "cancelled", "--json"], &env).ok().json();
    assert_eq!(listed["data"][0]["code"], code.as_str());

    // Refusals are the API problem's detail, on one line, exit 1.
    let refused = s.run_with(&["bookings", "confirm", &code], &env);
    assert_eq!(refused.fails(1), "error: cannot confirm a booking that is cancelled");
    let missing = s.run_with(&["bookings", "show", "BK-NOPE22"], &env);
    assert_eq!(missing.fails(1), r#"error: booking "BK-NOPE22" not found"#);
    let unknown =
        s.run_with(&["quote", "--property", "nowhere", "--check-in", "2031-01-01", "--check-out", "2031-01-05"], &env);
    assert_eq!(unknown.fails(1), r#"error: property "nowhere" not found"#);
}

#[test]
fn a_write_only_key_confirms_through_the_server_and_is_told_the_booking_is_not_shown() {
    let (s, key) = Sandbox::with_key();
    let code = s.with_bookings()[0].code.to_string();
    let writer = s.library().admin().create_key("writer", &[Scope::Write]).unwrap().secret;
    let server = s.serve();
    let url = server.url();

    let done = s.run(&["bookings", "confirm", &code, "--url", &url, "--api-key", &writer]).ok();
    assert_eq!(done.stdout, format!("{code}: done\n"));
    assert!(done.stderr.contains("read scope"), "{done:?}");
    let quiet = s.run(&["bookings", "confirm", &code, "--json", "--url", &url, "--api-key", &writer]).ok();
    assert_eq!(quiet.stdout, "", "no booking to print");
    let shown = s.run(&["bookings", "show", &code, "--json", "--url", &url, "--api-key", &key]).ok().json();
    assert_eq!(shown["status"], "confirmed");
}

#[test]
fn keys_without_the_scope_or_unknown_keys_are_refused_with_the_servers_words() {
    let (s, key) = Sandbox::with_key();
    let code = s.with_bookings()[0].code.to_string();
    let read_only = s.library().admin().create_key("reader", &[Scope::Read]).unwrap().secret;
    let server = s.serve();
    let url = server.url();

    s.run(&["bookings", "show", &code, "--url", &url, "--api-key", &read_only]).ok();
    let denied = s.run(&["bookings", "confirm", &code, "--url", &url, "--api-key", &read_only]);
    assert!(denied.fails(1).contains("write"), "names the missing scope: {denied:?}");
    let unknown = s.run(&["bookings", "list", "--url", &url, "--api-key", "rk_notakeyatallnotakeyatallnotakey"]);
    assert!(unknown.fails(1).starts_with("error: "), "{unknown:?}");
    drop(key);
}

#[test]
fn a_server_that_does_not_answer_is_a_failed_operation() {
    let (s, key) = Sandbox::with_key();
    // A port that was free a moment ago: nothing listens there.
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let url = format!("http://127.0.0.1:{port}");
    let run = s.run(&["bookings", "list", "--url", &url, "--api-key", &key]);
    let line = run.fails(1);
    assert!(line.contains("cannot reach the server at") && line.contains(&url), "{line}");
}

#[test]
fn a_bad_url_or_a_missing_key_is_a_usage_error() {
    let (s, key) = Sandbox::with_key();
    let no_key = s.run(&["bookings", "list", "--url", "http://127.0.0.1:9"]);
    assert!(no_key.fails(2).contains("RENTAL_API_KEY"), "{no_key:?}");
    let bad = s.run(&[
        "quote",
        "--url",
        "ftp://example.com",
        "--api-key",
        &key,
        "--property",
        "sea-view",
        "--check-in",
        "2031-01-01",
        "--check-out",
        "2031-01-05",
    ]);
    assert!(bad.fails(2).contains("http:// or https://"), "{bad:?}");
    let env_no_key = s.run_with(&["mcp"], &[("RENTAL_URL", "http://127.0.0.1:9")]);
    assert!(env_no_key.fails(2).contains("--api-key"), "{env_no_key:?}");
    // --url belongs to the commands that can talk to a server.
    let keys = s.run(&["keys", "list", "--url", "http://127.0.0.1:9"]);
    assert_eq!(keys.code, 2, "{keys:?}");
}

#[test]
fn every_local_command_says_the_store_is_busy_and_names_url_while_the_server_runs() {
    let (s, _key) = Sandbox::with_key();
    let code = s.with_bookings()[0].code.to_string();
    let _server = s.serve();
    let commands: [&[&str]; 9] = [
        &["bookings", "list"],
        &["bookings", "show", &code],
        &["bookings", "confirm", &code],
        &["bookings", "cancel", &code],
        &["quote", "--property", "sea-view", "--check-in", "2031-01-01", "--check-out", "2031-01-05"],
        &["mcp"],
        &["property", "list"],
        &["keys", "list"],
        &["webhook", "list"],
    ];
    for args in commands {
        let run = s.run(args);
        let line = run.fails(1);
        assert!(line.contains("in use by a running server") && line.contains("--url"), "{args:?}: {line}");
    }
}
