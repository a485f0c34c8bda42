//! Drives the real `rental` binary against a temporary data directory:
//! output, JSON, exit codes, configuration and the busy-store message.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use chrono::{Days, Utc};
use rental_core::webhook::{sign, sign_standard};
use rental_core::{Booking, NewBooking, Property, RedbStore, Rental, demo};
use serde_json::Value;
use tempfile::TempDir;

/// A working directory with its own data directory.
struct Sandbox {
    dir: TempDir,
}

/// What one run of the binary did.
#[derive(Debug)]
struct Run {
    code: i32,
    stdout: String,
    stderr: String,
}

impl Run {
    fn ok(self) -> Self {
        assert_eq!(self.code, 0, "failed: {self:?}");
        self
    }

    fn json(&self) -> Value {
        serde_json::from_str(&self.stdout).unwrap_or_else(|e| panic!("not JSON ({e}): {}", self.stdout))
    }

    /// Asserts the exit code and that stderr is exactly one `error: ...` line; returns it.
    fn fails(&self, code: i32) -> &str {
        assert_eq!(self.code, code, "{self:?}");
        assert!(self.stderr.starts_with("error: "), "{self:?}");
        assert_eq!(self.stderr.trim_end().lines().count(), 1, "{self:?}");
        self.stderr.trim_end()
    }
}

impl Sandbox {
    fn new() -> Self {
        Sandbox { dir: tempfile::tempdir().unwrap() }
    }

    fn data_dir(&self) -> PathBuf {
        self.dir.path().join("rental-data")
    }

    /// Runs `rental ARGS` in the sandbox, on its data directory (the default
    /// `./rental-data`), with no `RENTAL_*` variables but those in `env`.
    fn run_with(&self, args: &[&str], env: &[(&str, &str)]) -> Run {
        finished(self.command(args, env).output().unwrap())
    }

    fn run(&self, args: &[&str]) -> Run {
        self.run_with(args, &[])
    }

    /// Runs `rental ARGS` with `input` on its stdin.
    fn run_fed(&self, args: &[&str], input: &[u8]) -> Run {
        let mut child = self
            .command(args, &[])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        child.stdin.take().unwrap().write_all(input).unwrap();
        finished(child.wait_with_output().unwrap())
    }

    fn command(&self, args: &[&str], env: &[(&str, &str)]) -> Command {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_rental"));
        cmd.args(args).current_dir(self.dir.path());
        for (name, _) in std::env::vars().filter(|(name, _)| name.starts_with("RENTAL_")) {
            cmd.env_remove(name);
        }
        cmd.envs(env.iter().copied());
        cmd
    }

    fn write(&self, name: &str, text: &str) -> PathBuf {
        let path = self.dir.path().join(name);
        std::fs::write(&path, text).unwrap();
        path
    }

    /// The demo properties and three pending sea-view stays, 30, 40 and 50
    /// days from now, made through the library (which then lets go of the store).
    fn with_bookings(&self) -> Vec<Booking> {
        let rental = Rental::new(RedbStore::open_dir(self.data_dir()).unwrap());
        rental.import_properties(&demo::properties()).unwrap();
        [(30, 7), (40, 7), (50, 4)]
            .into_iter()
            .map(|(from, nights)| rental.create_booking(&stay(from, nights), None).unwrap().booking)
            .collect()
    }
}

fn finished(out: Output) -> Run {
    Run {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8(out.stdout).unwrap(),
        stderr: String::from_utf8(out.stderr).unwrap(),
    }
}

fn stay(from_now: u64, nights: u64) -> NewBooking {
    let check_in = Utc::now().date_naive() + Days::new(from_now);
    NewBooking {
        property: "sea-view".parse().unwrap(),
        check_in,
        check_out: check_in + Days::new(nights),
        guest_name: "Ada Lovelace".into(),
        guest_email: "ada@example.com".into(),
        guests: 3,
        notes: Some("late arrival".into()),
        source: None,
        children: 0,
        pets: 0,
        promo_code: None,
        locale: None,
    }
}

fn example(name: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples").join(name).display().to_string()
}

fn by_slug(mut properties: Vec<Property>) -> Vec<Property> {
    properties.sort_by(|a, b| a.slug.cmp(&b.slug));
    properties
}

fn codes(page: &Value) -> Vec<String> {
    page["data"].as_array().unwrap().iter().map(|b| b["code"].as_str().unwrap().to_owned()).collect()
}

#[test]
fn the_example_files_import_as_the_demo_properties() {
    let s = Sandbox::new();
    let toml = s.run(&["property", "import", &example("demo-properties.toml")]).ok();
    assert_eq!(toml.stdout, "imported 3 properties: 3 created, 0 updated\n");
    let json = s.run(&["property", "import", &example("demo-properties.json"), "--json"]).ok();
    assert_eq!(json.json(), serde_json::json!({"created": 0, "updated": 3}));

    let listed: Vec<Property> = serde_json::from_str(&s.run(&["property", "list", "--json"]).ok().stdout).unwrap();
    assert_eq!(listed, by_slug(demo::properties()));
    let table = s.run(&["property", "list"]).ok().stdout;
    let lines: Vec<&str> = table.lines().collect();
    assert_eq!(lines.len(), 4, "{table}");
    assert!(lines[0].starts_with("SLUG") && lines[0].contains("NIGHTLY RATE"), "{table}");
    assert!(lines[3].starts_with("sea-view") && lines[3].contains("Europe/Lisbon") && lines[3].contains("$150.00"));
}

#[test]
fn a_single_json_object_imports_and_a_second_import_updates_it() {
    let s = Sandbox::new();
    let mut loft = demo::harbour_loft();
    let file = s.write("loft.json", &serde_json::to_string(&loft).unwrap());
    assert_eq!(
        s.run(&["property", "import", file.to_str().unwrap()]).ok().stdout,
        "imported 1 property: 1 created, 0 updated\n"
    );
    loft.active = false;
    let file = s.write("loft.json", &serde_json::to_string(&loft).unwrap());
    s.run(&["property", "import", file.to_str().unwrap()]).ok();
    let table = s.run(&["property", "list"]).ok().stdout;
    assert!(table.lines().nth(1).unwrap().contains(" no "), "{table}");
}

#[test]
fn a_property_name_with_a_line_break_or_a_terminal_escape_is_refused_by_import() {
    let s = Sandbox::new();
    for evil in ["Evil\r\nBEGIN:VEVENT\r\nSUMMARY:Injected", "A\u{9b}31mB", "Sea \u{202e}weiV"] {
        let loft = {
            let mut edited = demo::harbour_loft();
            edited.name = evil.to_owned();
            edited
        };
        let file = s.write("evil.json", &serde_json::to_string(&loft).unwrap());
        let err = s.run(&["property", "import", file.to_str().unwrap()]);
        let line = err.fails(1);
        assert!(line.contains("name") && line.contains("control characters"), "{evil:?}: {line}");
        assert!(!line.contains(['\r', '\u{9b}', '\u{202e}']), "the error does not echo the name: {line:?}");
    }
    assert_eq!(s.run(&["property", "list", "--json"]).ok().json(), serde_json::json!([]));
    let odd = {
        let mut edited = demo::harbour_loft();
        edited.name = "Zoë's \"loft\"; 日本 🏠\tby the sea".to_owned();
        edited
    };
    let file = s.write("odd.json", &serde_json::to_string(&odd).unwrap());
    s.run(&["property", "import", file.to_str().unwrap()]).ok();
    let table = s.run(&["property", "list"]).ok().stdout;
    assert!(table.contains("Zoë's \"loft\"; 日本 🏠\\u{9}by the sea"), "a tab is shown, not obeyed: {table}");
    assert_eq!(table.lines().count(), 2, "{table}");
}

#[test]
fn a_file_with_one_bad_property_imports_nothing() {
    let s = Sandbox::new();
    let mut bad = demo::properties();
    bad[2].pricing.max_guests = 0;
    let file = s.write("bad.json", &serde_json::to_string(&bad).unwrap());
    let err = s.run(&["property", "import", file.to_str().unwrap()]);
    assert!(err.fails(1).contains("[2].maxGuests"), "{err:?}");
    let garbled = s.write("garbled.toml", "[[property]]\nslug = \"x\"\nrooms = 3\n");
    let err = s.run(&["property", "import", garbled.to_str().unwrap()]);
    assert!(err.fails(1).contains("unknown field `rooms`"), "{err:?}");
    let missing = s.run(&["property", "import", "no-such-file.json"]);
    assert!(missing.fails(1).contains("no-such-file.json: cannot read"), "{missing:?}");
    assert_eq!(s.run(&["property", "list", "--json"]).ok().json(), serde_json::json!([]));
}

#[test]
fn a_quote_reads_as_a_breakdown_or_as_the_api_json() {
    let s = Sandbox::new();
    s.run(&["property", "import", &example("demo-properties.json")]).ok();
    let args =
        ["quote", "--property", "sea-view", "--check-in", "2026-12-20", "--check-out", "2026-12-27", "--guests", "3"];
    let human = s.run(&args).ok().stdout;
    for want in
        ["Sea View Cottage (sea-view)", "Sun 2026-12-20 to Sun 2026-12-27: 7 nights, 3 guests", "Fri 2026-12-25"]
    {
        assert!(human.contains(want), "{want} missing from\n{human}");
    }
    let line = |label: &str| human.lines().find(|l| l.trim_start().starts_with(label)).unwrap().to_owned();
    assert!(line("Accommodation").ends_with("$1,110.00"), "{human}");
    assert!(line("Discount").ends_with("-$111.00"), "{human}");
    assert!(line("Extra guest fee").ends_with("$140.00"), "{human}");
    assert!(line("Taxes").ends_with("$143.88"), "{human}");
    assert!(line("Total").ends_with("$1,342.88"), "{human}");

    let json = s.run(&[&args[..], &["--json"]].concat()).ok().json();
    assert_eq!(json["total"], 134_288);
    assert_eq!(json["accommodation"], 111_000);
    assert_eq!(json["nightly"].as_array().unwrap().len(), 7);
    assert_eq!(json["nightly"][5], serde_json::json!({"date": "2026-12-25", "base": 18000, "price": 18000}));
}

#[test]
fn a_quote_for_taken_nights_lists_its_problems_and_still_succeeds() {
    let s = Sandbox::new();
    let first = &s.with_bookings()[0];
    let (check_in, check_out) = (first.check_in().to_string(), first.check_out().to_string());
    let args = ["quote", "--property", "sea-view", "--check-in", &check_in, "--check-out", &check_out, "--guests", "9"];
    let human = s.run(&args).ok().stdout;
    assert!(human.contains("Not available:"), "{human}");
    assert!(human.contains("dates_unavailable: already taken: "), "{human}");
    assert!(human.contains("max_guests: at most 4 guests"), "{human}");
    let json = s.run(&[&args[..], &["--json"]].concat()).ok().json();
    assert_eq!(json["available"], false);
    assert_eq!(json["problems"][0]["dates"].as_array().unwrap().len(), 7);
}

#[test]
fn keys_are_created_listed_and_revoked() {
    let s = Sandbox::new();
    let secret = s.run(&["keys", "create", "--name", "website", "--scope", "read"]).ok().stdout;
    let secret = secret.strip_suffix('\n').unwrap();
    assert!(secret.starts_with("rk_") && secret.len() == 35, "{secret:?}");
    assert!(secret[3..].chars().all(|c| c.is_ascii_alphanumeric()), "{secret:?}");

    let created = s.run(&["keys", "create", "--name", "channel", "--scope", "read,write", "--json"]).ok().json();
    let id = created["id"].as_str().unwrap().to_owned();
    assert!(id.starts_with("key_") && created["key"].as_str().unwrap().starts_with("rk_"), "{created}");
    assert_eq!(created["name"], "channel");
    assert_eq!(created["scopes"], serde_json::json!(["read", "write"]));
    assert!(created["createdAt"].as_str().unwrap().ends_with('Z'), "{created}");
    assert_eq!(created.as_object().unwrap().len(), 5, "{created}");

    let table = s.run(&["keys", "list"]).ok().stdout;
    assert!(table.starts_with("ID") && table.contains("LAST USED") && table.contains("read,write"), "{table}");
    assert!(!table.contains("rk_"), "a secret leaked into the list: {table}");

    assert!(s.run(&["keys", "revoke", "website"]).ok().stdout.starts_with("revoked key_"));
    assert_eq!(s.run(&["keys", "revoke", &id, "--json"]).ok().json()["name"], "channel");
    let keys = s.run(&["keys", "list", "--json"]).ok().json();
    assert!(keys.as_array().unwrap().iter().all(|k| k["revokedAt"].is_string()), "{keys}");
    let unknown = s.run(&["keys", "revoke", "website"]);
    assert_eq!(unknown.fails(1), r#"error: api key "website" not found"#);
}

#[test]
fn webhooks_are_added_listed_and_removed_and_a_secret_is_shown_only_when_added() {
    let s = Sandbox::new();
    let added = s.run(&["webhook", "add", "--url", "https://example.com/hooks/all"]).ok();
    let field = |label: &str| {
        let line = added.stdout.lines().find(|l| l.starts_with(label)).unwrap_or_else(|| panic!("{added:?}"));
        line[label.len()..].trim().to_owned()
    };
    let (first, secret) = (field("Id:"), field("Secret:"));
    assert!(first.starts_with("wh_") && secret.starts_with("whsec_"), "{added:?}");
    assert_eq!(field("Events:"), "*", "all events by default");
    assert!(added.stderr.contains("shown only this once"), "{added:?}");

    let args =
        ["webhook", "add", "--url", "https://example.com/hooks/some", "--events", "booking.created,calendar.synced"];
    let created = s.run(&[&args[..], &["--secret", "my-own-secret", "--json"]].concat()).ok().json();
    let keys: Vec<&str> = created.as_object().unwrap().keys().map(String::as_str).collect();
    assert_eq!(keys.len(), 6, "{created}");
    for key in ["id", "url", "events", "secret", "active", "createdAt"] {
        assert!(keys.contains(&key), "{key} missing from {created}");
    }
    assert_eq!(created["secret"], "my-own-secret");
    assert_eq!(created["events"], serde_json::json!(["booking.created", "calendar.synced"]));
    assert_eq!(created["active"], true);
    let second = created["id"].as_str().unwrap().to_owned();

    let table = s.run(&["webhook", "list"]).ok().stdout;
    let rows: Vec<&str> = table.lines().collect();
    assert_eq!(rows.len(), 3, "{table}");
    assert!(rows[0].starts_with("ID") && rows[0].contains("EVENTS") && rows[0].contains("CREATED"), "{table}");
    assert!(table.contains("booking.created,calendar.synced") && table.contains("https://example.com/hooks/all"));
    let listed = s.run(&["webhook", "list", "--json"]).ok();
    for text in [&table, &listed.stdout] {
        assert!(!text.contains(&secret) && !text.contains("my-own-secret"), "a secret leaked: {text}");
    }
    let listed = listed.json();
    assert!(listed.as_array().unwrap().iter().all(|w| w.as_object().unwrap().len() == 5 && w["secret"].is_null()));

    assert_eq!(s.run(&["webhook", "remove", &first]).ok().stdout, format!("removed {first}\n"));
    let left = s.run(&["webhook", "list", "--json"]).ok().json();
    assert_eq!(left.as_array().unwrap().len(), 1);
    assert_eq!(left[0]["id"], second.as_str());
    let again = s.run(&["webhook", "remove", &first]);
    assert_eq!(again.fails(1), format!("error: webhook {first:?} not found"));
}

#[test]
fn an_unknown_event_is_a_usage_error_that_names_the_events() {
    let s = Sandbox::new();
    let run =
        s.run(&["webhook", "add", "--url", "https://example.com/hooks", "--events", "booking.created,booking.nope"]);
    assert_eq!(run.code, 2, "{run:?}");
    assert!(run.stdout.is_empty(), "{run:?}");
    assert!(run.stderr.contains(r#""booking.nope" is not an event name"#), "{run:?}");
    assert!(run.stderr.contains("booking.payment_authorized") && run.stderr.contains("* for all"), "{run:?}");
    assert_eq!(s.run(&["webhook", "list", "--json"]).ok().json(), serde_json::json!([]));
}

#[test]
fn a_webhook_with_a_bad_url_or_short_secret_is_refused() {
    let s = Sandbox::new();
    let ftp = s.run(&["webhook", "add", "--url", "ftp://example.com/hooks"]);
    assert!(ftp.fails(1).contains("url: must be an http or https URL"), "{ftp:?}");
    let short = s.run(&["webhook", "add", "--url", "https://example.com/hooks", "--secret", "short"]);
    assert!(short.fails(1).contains("secret: must be at least 8 characters"), "{short:?}");
}

/// A delivery body as the server sends it, with bytes a text round trip would change.
const BODY: &[u8] =
    b"{\"data\":{\"code\":\"BK-7QX2MF\",\"guestName\":\"Jos\xc3\xa9\"},\"event\":\"booking.created\"}\r\n";

#[test]
fn a_signed_body_is_valid_from_a_file_or_from_stdin() {
    let s = Sandbox::new();
    let signature = sign(b"whsec_test", BODY);
    let file = s.dir.path().join("body.json");
    std::fs::write(&file, BODY).unwrap();
    let args = ["webhook", "verify", "--secret", "whsec_test", "--signature", &signature];

    let from_file = s.run(&[&args[..], &[file.to_str().unwrap()]].concat()).ok();
    assert_eq!((from_file.stdout.as_str(), from_file.stderr.as_str()), ("valid\n", ""));
    assert_eq!(s.run_fed(&args, BODY).ok().stdout, "valid\n");
    assert_eq!(s.run_fed(&[&args[..], &["-"]].concat(), BODY).ok().stdout, "valid\n");
    let empty = ["webhook", "verify", "--secret", "whsec_test", "--signature", &sign(b"whsec_test", b"")];
    assert_eq!(s.run_fed(&empty, b"").ok().stdout, "valid\n");
}

#[test]
fn a_tampered_body_or_a_wrong_secret_is_invalid() {
    let s = Sandbox::new();
    let signature = sign(b"whsec_test", BODY);
    let trimmed = &BODY[..BODY.len() - 2];
    let cases: [(&str, &[u8]); 3] = [
        ("whsec_test", trimmed),                 // the line end dropped
        ("whsec_test", &[BODY, b"\n"].concat()), // a newline added
        ("whsec_other", BODY),                   // the wrong secret
    ];
    for (secret, body) in cases {
        let run = s.run_fed(&["webhook", "verify", "--secret", secret, "--signature", &signature], body);
        assert!(run.fails(1).starts_with("error: invalid"), "{run:?}");
        assert!(run.stdout.is_empty(), "{run:?}");
    }
    let missing = s.run(&["webhook", "verify", "--secret", "whsec_test", "--signature", &signature, "nowhere.json"]);
    assert!(missing.fails(1).contains("nowhere.json: cannot read"), "{missing:?}");
}

#[test]
fn verify_works_while_a_server_holds_the_store() {
    let s = Sandbox::new();
    let _held = RedbStore::open_dir(s.data_dir()).unwrap();
    s.write("rental.toml", "timezone = \"Nowhere/Land\"\n");
    let args = ["webhook", "verify", "--secret", "whsec_test", "--signature", &sign(b"whsec_test", BODY)];
    assert_eq!(s.run_fed(&args, BODY).ok().stdout, "valid\n");
    assert!(s.run(&["webhook", "list"]).fails(2).contains("config:"), "other commands still read the configuration");
}

#[test]
fn a_standard_signature_is_verified_with_its_id_and_timestamp() {
    let s = Sandbox::new();
    let (secret, id, now) = ("whsec_Y2xpIHRlc3Qgc2VjcmV0", "dlv_cli", Utc::now().timestamp());
    let signed = |at: i64, body: &[u8]| sign_standard(secret, id, at, body);
    let args = |at: i64, signature: &str| -> Vec<String> {
        ["webhook", "verify", "--secret", secret, "--id", id, "--timestamp", &at.to_string(), "--signature", signature]
            .map(str::to_owned)
            .to_vec()
    };
    let run = |args: Vec<String>, body: &[u8]| s.run_fed(&args.iter().map(String::as_str).collect::<Vec<_>>(), body);

    assert_eq!(run(args(now, &signed(now, BODY)), BODY).ok().stdout, "valid\n");
    let rotating = format!("{} {}", sign_standard("whsec_b2xkIHNlY3JldA==", id, now, BODY), signed(now, BODY));
    assert_eq!(run(args(now, &rotating), BODY).ok().stdout, "valid\n", "any one of several signatures");

    let tampered = run(args(now, &signed(now, BODY)), &BODY[1..]);
    assert!(tampered.fails(1).starts_with("error: invalid"), "{tampered:?}");
    let old = now - 6 * 60;
    let stale = run(args(old, &signed(old, BODY)), BODY);
    assert_eq!(stale.fails(1), "error: invalid: webhook-timestamp is more than 5 minutes old");
    let ahead = now + 6 * 60;
    let future = run(args(ahead, &signed(ahead, BODY)), BODY);
    assert_eq!(future.fails(1), "error: invalid: webhook-timestamp is more than 5 minutes in the future");

    // Usage errors stop before the body is read, so these get no stdin.
    let usage = |args: Vec<String>| s.run(&args.iter().map(String::as_str).collect::<Vec<_>>());
    let svc_with_id = usage(args(now, &sign(secret.as_bytes(), BODY)));
    assert!(svc_with_id.fails(2).contains("webhook-signature"), "{svc_with_id:?}");
    let without_id = s.run(&["webhook", "verify", "--secret", secret, "--signature", &signed(now, BODY)]);
    assert!(without_id.fails(2).contains("needs --id and --timestamp"), "{without_id:?}");
    let no_timestamp = s.run(&["webhook", "verify", "--secret", secret, "--id", id, "--signature", &signed(now, BODY)]);
    assert_eq!(no_timestamp.code, 2, "{no_timestamp:?}");
}

#[test]
fn a_rotated_secret_is_printed_once_and_the_previous_one_signs_for_a_day_more() {
    let s = Sandbox::new();
    let added = s.run(&["webhook", "add", "--url", "https://example.com/hooks", "--json"]).ok().json();
    let (id, first) = (added["id"].as_str().unwrap(), added["secret"].as_str().unwrap());

    let rotated = s.run(&["webhook", "rotate-secret", id]).ok();
    let line = rotated.stdout.lines().find(|l| l.starts_with("Secret:")).unwrap_or_else(|| panic!("{rotated:?}"));
    let second = line["Secret:".len()..].trim().to_owned();
    assert!(second.starts_with("whsec_") && second != first, "{rotated:?}");
    assert!(
        rotated.stdout.contains("Previous until:") && rotated.stderr.contains("shown only this once"),
        "{rotated:?}"
    );

    let given = s.run(&["webhook", "rotate-secret", id, "--secret", "my-third-secret", "--json"]).ok().json();
    let keys: Vec<&str> = given.as_object().unwrap().keys().map(String::as_str).collect();
    assert_eq!(keys, ["id", "previousSecretUntil", "secret", "url"], "{given}");
    assert_eq!((given["id"].as_str(), given["secret"].as_str()), (Some(id), Some("my-third-secret")));
    let until = chrono::DateTime::parse_from_rfc3339(given["previousSecretUntil"].as_str().unwrap()).unwrap();
    let hours = (until.to_utc() - Utc::now()).num_minutes();
    assert!((23 * 60..=24 * 60).contains(&hours), "24 h from now: {given}");

    let reused = s.run(&["webhook", "rotate-secret", id, "--secret", &second]);
    assert!(reused.fails(1).contains("already one of the webhook's secrets"), "{reused:?}");
    let bad = s.run(&["webhook", "rotate-secret", id, "--secret", "whsec_not base64"]);
    assert!(bad.fails(1).contains("must continue with base64"), "{bad:?}");
    let unknown = s.run(&["webhook", "rotate-secret", "wh_nobody"]);
    assert_eq!(unknown.fails(1), r#"error: webhook "wh_nobody" not found"#);
    let listed = s.run(&["webhook", "list", "--json"]).ok().stdout;
    assert!(!listed.contains(first) && !listed.contains(&second) && !listed.contains("my-third"), "{listed}");

    let rental = Rental::new(RedbStore::open_dir(s.data_dir()).unwrap());
    let webhook = rental.admin().webhooks().unwrap().remove(0);
    assert_eq!(webhook.secrets.active(rental.now()), ["my-third-secret", second.as_str(), first]);
}

#[test]
fn bookings_are_listed_in_check_in_order_and_filtered_and_paged() {
    let s = Sandbox::new();
    let made = s.with_bookings();
    let all: Vec<String> = made.iter().map(|b| b.code.to_string()).collect();

    let table = s.run(&["bookings", "list"]).ok().stdout;
    let rows: Vec<&str> = table.lines().collect();
    assert_eq!(rows.len(), 4, "{table}");
    assert!(rows[0].starts_with("CODE") && rows[0].contains("CHECK-IN"), "{table}");
    for (row, code) in rows[1..].iter().zip(&all) {
        assert!(row.starts_with(code.as_str()) && row.contains("pending") && row.contains("Ada Lovelace"), "{table}");
    }
    let total = dollars(made[0].total);
    assert!(rows[1].contains(&total), "{total} not in {table}");

    let page = s.run(&["bookings", "list", "--limit", "2", "--json"]).ok();
    let page = page.json();
    assert_eq!(codes(&page), all[..2]);
    let cursor = page["nextCursor"].as_str().unwrap();
    let rest = s.run(&["bookings", "list", "--limit", "2", "--cursor", cursor, "--json"]).ok().json();
    assert_eq!(codes(&rest), all[2..]);
    assert!(rest["nextCursor"].is_null());
    let paged = s.run(&["bookings", "list", "--limit", "2"]).ok();
    assert!(paged.stderr.contains(&format!("--cursor {cursor}")), "{paged:?}");

    let from = made[1].check_in().to_string();
    let late = s.run(&["bookings", "list", "--from", &from, "--status", "pending,confirmed", "--json"]).ok().json();
    assert_eq!(codes(&late), all[1..]);
    let none = s.run(&["bookings", "list", "--status", "cancelled", "--source", "airbnb", "--json"]).ok().json();
    assert_eq!(none, serde_json::json!({"data": [], "nextCursor": null}));
}

/// `$1,342.88` from cents, written out independently of the binary's formatter.
fn dollars(cents: i64) -> String {
    let dollars = cents / 100;
    let grouped =
        if dollars >= 1000 { format!("{},{:03}", dollars / 1000, dollars % 1000) } else { dollars.to_string() };
    format!("${grouped}.{:02}", cents % 100)
}

#[test]
fn bookings_show_prints_the_stay_page_signed_with_the_server_s_page_secret() {
    let s = Sandbox::new();
    let code = s.with_bookings()[0].code.to_string();
    let secret = "5e".repeat(32);
    std::fs::write(s.data_dir().join("book-secret"), &secret).unwrap();
    let signature = rental_core::stay_link::StayLinks::new(secret.as_bytes()).signature(&code, 0);
    let url = format!("http://127.0.0.1:8080/stay/{code}.{signature}");
    let shown = s.run(&["bookings", "show", &code]).ok().stdout;
    assert!(shown.contains("Stay page:") && shown.contains(&url), "{url} missing from\n{shown}");
    let json = s.run(&["bookings", "show", &code, "--json"]).ok().json();
    assert_eq!(json["stayUrl"], url.as_str());
    let based =
        s.run_with(&["bookings", "show", &code, "--json"], &[("RENTAL_BASE_URL", "https://stay.example")]).ok().json();
    assert_eq!(based["stayUrl"], format!("https://stay.example/stay/{code}.{signature}").as_str(), "from baseUrl");
}

#[test]
fn a_booking_is_shown_confirmed_and_cancelled() {
    let s = Sandbox::new();
    let code = s.with_bookings()[0].code.to_string();

    let shown = s.run(&["bookings", "show", &code]).ok().stdout;
    for want in ["Code:".to_owned(), code.clone(), "Sea View Cottage (sea-view)".into(), "ada@example.com".into()] {
        assert!(shown.contains(&want), "{want} missing from\n{shown}");
    }
    assert!(shown.contains("Note:") && shown.contains("late arrival"), "{shown}");
    let json = s.run(&["bookings", "show", &code.to_lowercase(), "--json"]).ok().json();
    assert_eq!((json["code"].as_str(), json["status"].as_str()), (Some(code.as_str()), Some("pending")));

    let confirmed = s.run(&["bookings", "confirm", &code]).ok().stdout;
    assert_eq!(confirmed, format!("{code}: confirmed, payment paid\n"));
    assert_eq!(s.run(&["bookings", "confirm", &code]).ok().stdout, confirmed, "a repeat is a no-op");

    let args = ["bookings", "cancel", &code, "--by", "guest", "--reason", "flight cancelled", "--json"];
    let cancelled = s.run(&args).ok().json();
    assert_eq!(cancelled["status"], "cancelled");
    assert_eq!(cancelled["paymentStatus"], "refunded");
    assert_eq!(cancelled["cancelledBy"], "guest");
    assert_eq!(cancelled["cancelReason"], "flight cancelled");

    let refused = s.run(&["bookings", "confirm", &code]);
    assert_eq!(refused.fails(1), "error: cannot confirm a booking that is cancelled");
    let missing = s.run(&["bookings", "show", "BK-NOPE22"]);
    assert_eq!(missing.fails(1), r#"error: booking "BK-NOPE22" not found"#);
}

#[test]
fn usage_errors_exit_2() {
    let s = Sandbox::new();
    let cases: [&[&str]; 14] = [
        &[],
        &["frobnicate"],
        &["bookings", "list", "--limit", "0"],
        &["bookings", "list", "--cursor", "not-a-cursor"],
        &["bookings", "cancel", "BK-AAAAAA", "--by", "system"],
        &["quote", "--property", "sea-view", "--check-in", "20/12/2026", "--check-out", "2026-12-27"],
        &["keys", "create", "--name", "x"],
        &["keys", "create", "--name", "x", "--scope", "admin"],
        &["webhook", "add", "--events", "*"],
        &["webhook", "verify", "--secret", "whsec_x", "--signature", "5bdcc146bf60754e6a04"],
        &["webhook", "verify", "--signature", &sign(b"k", b"{}")],
        &["completions"],
        &["completions", "tcsh"],
        &["keys", "list", "--url", "http://127.0.0.1:9"],
    ];
    for args in cases {
        let run = s.run(args);
        assert_eq!(run.code, 2, "{args:?}: {run:?}");
        assert!(run.stdout.is_empty(), "{args:?}: {run:?}");
    }
}

#[test]
fn help_shows_examples_and_exits_0() {
    let s = Sandbox::new();
    for args in [
        &["--help"][..],
        &["quote", "--help"],
        &["bookings", "cancel", "--help"],
        &["property", "import", "--help"],
        &["webhook", "--help"],
        &["webhook", "verify", "--help"],
        &["mcp", "--help"],
        &["completions", "--help"],
        &["bookings", "list", "--help"],
    ] {
        let run = s.run(args).ok();
        assert!(run.stdout.contains("Example"), "{args:?}: {}", run.stdout);
    }
    assert!(s.run(&["property", "import", "--help"]).ok().stdout.contains("[[property]]"));
}

#[test]
fn completions_cover_the_command_tree_for_each_shell() {
    let s = Sandbox::new();
    for (shell, marker) in [("bash", "complete -F"), ("zsh", "#compdef rental"), ("fish", "complete -c rental")] {
        let script = s.run(&["completions", shell]).ok().stdout;
        assert!(script.contains(marker), "{shell}: {script}");
        for word in ["bookings", "quote", "mcp", "api-key"] {
            assert!(script.contains(word), "{shell} completes {word}");
        }
    }
    assert!(!s.data_dir().exists(), "printing completions does not touch the store");
}

#[test]
fn the_remote_commands_document_url_and_the_environment() {
    let s = Sandbox::new();
    for args in [&["quote", "--help"][..], &["bookings", "show", "--help"], &["mcp", "--help"]] {
        let help = s.run(args).ok().stdout;
        assert!(help.contains("--url <URL>") && help.contains("RENTAL_URL"), "{args:?}: {help}");
        assert!(help.contains("--api-key <KEY>") && help.contains("RENTAL_API_KEY"), "{args:?}: {help}");
    }
    let secret = s.run_with(&["quote", "--help"], &[("RENTAL_API_KEY", "rk_secret")]).ok().stdout;
    assert!(!secret.contains("rk_secret"), "help never shows the key");
}

#[test]
fn configuration_comes_from_the_file_then_the_environment_then_flags() {
    let s = Sandbox::new();
    s.write("rental.toml", "dataDir = \"from-file\"\n");
    s.run(&["property", "import", &example("demo-properties.json")]).ok();
    assert!(s.dir.path().join("from-file").is_dir(), "./rental.toml is read when present");

    s.run_with(&["keys", "create", "--name", "k", "--scope", "read"], &[("RENTAL_DATA_DIR", "from-env")]).ok();
    assert!(s.dir.path().join("from-env").is_dir());
    s.run_with(&["keys", "list", "--data-dir", "from-flag"], &[("RENTAL_DATA_DIR", "from-env")]).ok();
    assert!(s.dir.path().join("from-flag").is_dir());

    let other = s.write("other.toml", "timezone = \"UTC\"\nlisten = \"127.0.0.1:9\"\ncheckout_ttl = \"1h\"\n");
    let bad_file = s.run(&["--config", other.to_str().unwrap(), "keys", "list"]);
    assert!(bad_file.fails(2).contains("line 3, column 1: unknown field `checkout_ttl`"), "{bad_file:?}");
    let bad_env = s.run_with(&["keys", "list"], &[("RENTAL_CHECKOUT_TTL", "a while")]);
    assert!(bad_env.fails(2).contains("RENTAL_CHECKOUT_TTL"), "{bad_env:?}");
    let missing = s.run(&["--config", "nowhere.toml", "keys", "list"]);
    assert!(missing.fails(2).contains("cannot read config file nowhere.toml"), "{missing:?}");
}

#[test]
fn a_store_held_by_a_server_is_reported_in_one_line_that_names_url() {
    let s = Sandbox::new();
    let _held = RedbStore::open_dir(s.data_dir()).unwrap();
    let run = s.run(&["bookings", "list"]);
    let line = run.fails(1);
    assert!(line.contains("in use by a running server") && line.contains("--url"), "{line}");
    assert!(line.contains("rental-data"), "names the directory: {line}");
    assert!(run.stdout.is_empty());
}

#[test]
fn lapsed_checkouts_are_expired_before_a_command_runs() {
    let s = Sandbox::new();
    let code = s.with_bookings()[0].code.to_string();
    let pending = s.run(&["bookings", "show", &code, "--json"]).ok().json();
    assert_eq!(pending["status"], "pending", "the default checkoutTtl is 24h");
    std::thread::sleep(std::time::Duration::from_millis(1_100));
    let booking = s.run_with(&["bookings", "show", &code, "--json"], &[("RENTAL_CHECKOUT_TTL", "1s")]).ok().json();
    assert_eq!((booking["status"].as_str(), booking["paymentStatus"].as_str()), (Some("cancelled"), Some("expired")));
    assert_eq!(booking["cancelledBy"], "system");
}

#[test]
fn a_reader_that_goes_away_does_not_fail_a_command_that_was_done() {
    let s = Sandbox::new();
    for _ in 0..20 {
        // As `rental webhook add ... 2>&1 | head -0`: both ends are closed before a byte is written.
        let mut child = s
            .command(&["webhook", "add", "--url", "https://example.com/hooks"], &[])
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        drop((child.stdout.take(), child.stderr.take()));
        let status = child.wait().unwrap();
        assert_eq!(status.code(), Some(0), "the webhook was added, so the command succeeded");
    }
    let listed = s.run(&["webhook", "list", "--json"]).ok();
    assert_eq!(listed.json().as_array().unwrap().len(), 20, "each run added exactly one");
}
