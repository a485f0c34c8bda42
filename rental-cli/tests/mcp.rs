//! `rental mcp` end to end: the official MCP Python SDK drives it against a
//! real `rental serve` (`--url`), and raw JSON-RPC lines drive it on the
//! local store. Both need nothing but the binary and, for the first,
//! `./scripts/test` installs it.

mod common;

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::thread;
use std::time::Duration;

use common::{Sandbox, day, finished, send, tests_dir};
use rental_core::BookingQuery;
use serde_json::{Value, json};

/// `python3` when it has the MCP SDK; `None` otherwise (see `rental_tests::tools`).
fn python_with_mcp() -> Option<&'static str> {
    rental_tests::tools::python_modules("mcp").then_some("python3")
}

#[test]
fn an_mcp_client_lists_quotes_books_and_gets_a_tool_error_for_taken_dates() {
    let Some(python) = python_with_mcp() else { return };
    let (s, key) = Sandbox::with_key();
    drop(s.library()); // the demo properties
    let server = s.serve();
    let (check_in, check_out) = (day(60).to_string(), day(64).to_string());
    let script = tests_dir().join("mcp_client.py");
    let run = finished(
        Command::new(python)
            .arg(&script)
            .args([&check_in, &check_out, "--"])
            .args([env!("CARGO_BIN_EXE_rental"), "mcp", "--url", &server.url(), "--api-key", &key])
            .current_dir(s.dir.path())
            .output()
            .unwrap(),
    );
    assert_eq!(run.code, 0, "the client failed: {run:?}\nserver log: {}", server.log());
    let out: Value = serde_json::from_str(&run.stdout).unwrap_or_else(|e| panic!("{e}: {run:?}"));

    assert_eq!(out["serverName"], "rental");
    let tools = out["tools"].as_object().unwrap();
    let mut names: Vec<&str> = tools.keys().map(String::as_str).collect();
    names.sort_unstable();
    assert_eq!(names, ["check_availability", "create_booking", "get_quote", "list_properties"]);
    assert_eq!(tools["get_quote"]["inputSchema"]["required"], json!(["property", "checkIn", "checkOut"]));
    assert!(tools["create_booking"]["inputSchema"]["properties"].get("source").is_none());
    assert_eq!(tools["create_booking"]["inputSchema"]["properties"]["idempotencyKey"]["type"], "string");

    let slugs: Vec<&str> =
        out["properties"]["json"]["data"].as_array().unwrap().iter().map(|p| p["slug"].as_str().unwrap()).collect();
    assert!(slugs.contains(&"sea-view"), "{slugs:?}");
    let nights = out["availability"]["json"]["nights"].as_array().unwrap();
    assert_eq!(nights.len(), 4);
    assert!(nights.iter().all(|n| n["status"] == "available"), "{nights:?}");

    let quote = &out["quote"]["json"];
    assert_eq!((&quote["available"], &quote["nights"]), (&json!(true), &json!(4)));
    let booking = &out["booking"];
    assert_eq!(booking["isError"], false, "{booking}");
    let booking = &booking["json"];
    assert_eq!(
        (&booking["source"], &booking["status"], &booking["paymentStatus"]),
        (&json!("agent"), &json!("pending"), &json!("unpaid"))
    );
    assert_eq!(booking["total"], quote["total"], "the booking costs what the quote said");
    assert_eq!(booking["checkIn"], check_in.as_str());

    // A retry with the same idempotency key gets the same booking back, not a refusal.
    let retry = &out["retry"];
    assert_eq!(retry["isError"], false, "{retry}");
    assert_eq!(retry["json"], *booking, "the retry returns the first call's booking");
    let reused = &out["reused"];
    assert_eq!(reused["isError"], true, "{reused}");
    assert_eq!(reused["text"], "idempotency key was already used with a different request");

    let again = &out["again"];
    assert_eq!(again["isError"], true, "{again}");
    let detail = again["text"].as_str().unwrap();
    assert!(detail.starts_with("dates unavailable: ") && detail.contains(&check_in), "{detail}");
    assert_eq!(out["badDate"]["isError"], true);
    assert!(out["badDate"]["text"].as_str().unwrap().contains("checkIn"), "{}", out["badDate"]);
    assert_eq!(out["unknownProperty"]["text"], r#"property "nowhere" not found"#);

    // The server really holds the booking the agent made.
    let listed = s
        .run(&["bookings", "list", "--source", "agent", "--json", "--url", &server.url(), "--api-key", &key])
        .ok()
        .json();
    assert_eq!(listed["data"][0]["code"], booking["code"]);
    assert_eq!(listed["data"].as_array().map(Vec::len), Some(1), "the retry made no second booking");
}

/// Reads JSON-RPC lines from the child's stdout until every id in `ids` has an answer.
fn answers(lines: &mpsc::Receiver<String>, ids: &[u64]) -> Vec<Value> {
    let mut got: Vec<Option<Value>> = vec![None; ids.len()];
    while got.iter().any(Option::is_none) {
        let line = lines.recv_timeout(Duration::from_secs(20)).expect("an answer within 20 s");
        let message: Value =
            serde_json::from_str(&line).unwrap_or_else(|e| panic!("stdout is not JSON-RPC ({e}): {line}"));
        // Answers may come in any order (CRATES.md gotcha 7): match them by id.
        if let Some(i) = message["id"].as_u64().and_then(|id| ids.iter().position(|&want| want == id)) {
            got[i] = Some(message);
        }
    }
    got.into_iter().map(Option::unwrap).collect()
}

fn call(id: u64, tool: &str, arguments: &Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": tool, "arguments": arguments}})
}

#[test]
fn rental_mcp_works_on_the_local_store_and_its_bookings_have_source_agent() {
    let (s, _key) = Sandbox::with_key();
    drop(s.library());
    let mut child =
        s.command(&["mcp"], &[]).stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let stdout = BufReader::new(child.stdout.take().unwrap());
    let (tx, lines) = mpsc::channel();
    thread::spawn(move || stdout.lines().map_while(Result::ok).try_for_each(|line| tx.send(line)));

    send(
        &mut stdin,
        &[json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "test", "version": "0"}}})],
    );
    let [init] = <[Value; 1]>::try_from(answers(&lines, &[1])).unwrap();
    assert_eq!(init["result"]["serverInfo"]["name"], "rental", "{init}");

    let stay = json!({"property": "sea-view", "checkIn": day(70).to_string(), "checkOut": day(75).to_string(),
        "guests": 2, "guestName": "Grace Hopper", "guestEmail": "grace@example.com", "source": "api"});
    send(
        &mut stdin,
        &[
            json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
            json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}),
            call(3, "create_booking", &stay),
        ],
    );
    let [list, created] = <[Value; 2]>::try_from(answers(&lines, &[2, 3])).unwrap();
    assert_eq!(list["result"]["tools"].as_array().map(Vec::len), Some(4), "{list}");
    assert_eq!(created["result"]["isError"], false, "{created}");
    let booking: Value = serde_json::from_str(created["result"]["content"][0]["text"].as_str().unwrap()).unwrap();
    assert_eq!(
        (&booking["source"], &booking["status"]),
        (&json!("agent"), &json!("pending")),
        "an agent's source wins"
    );

    send(
        &mut stdin,
        &[
            call(4, "create_booking", &stay),
            call(
                5,
                "get_quote",
                &json!({"property": "sea-view", "checkIn": day(70).to_string(), "checkOut": day(75).to_string()}),
            ),
            call(
                6,
                "check_availability",
                &json!({"property": "sea-view", "from": day(75).to_string(), "to": day(70).to_string()}),
            ),
            call(7, "list_properties", &json!({})),
        ],
    );
    let [again, quote, backwards, properties] = <[Value; 4]>::try_from(answers(&lines, &[4, 5, 6, 7])).unwrap();
    assert_eq!(again["result"]["isError"], true, "{again}");
    assert!(again["result"]["content"][0]["text"].as_str().unwrap().starts_with("dates unavailable: "), "{again}");
    let quote: Value = serde_json::from_str(quote["result"]["content"][0]["text"].as_str().unwrap()).unwrap();
    assert_eq!((&quote["available"], &quote["problems"][0]["code"]), (&json!(false), &json!("dates_unavailable")));
    assert_eq!(backwards["result"]["isError"], true, "a refused range is a tool error, not a crash: {backwards}");
    assert_eq!(properties["result"]["isError"], false, "{properties}");

    drop(stdin); // the client goes away: the server ends cleanly and lets go of the store
    let status = child.wait().unwrap();
    assert!(status.success(), "rental mcp exited with {status}");
    let mut stderr = String::new();
    std::io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut stderr).unwrap();
    assert!(!stderr.contains("panicked"), "{stderr}");

    let page = s.library().bookings(&BookingQuery { limit: 10, ..BookingQuery::default() }).unwrap();
    assert_eq!(page.data.len(), 1);
    assert_eq!(page.data[0].source.as_str(), "agent");
}

#[test]
fn on_the_local_store_a_retried_create_booking_with_its_idempotency_key_returns_the_first_booking() {
    let (s, _key) = Sandbox::with_key();
    drop(s.library());
    let mut child =
        s.command(&["mcp"], &[]).stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::null()).spawn().unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let stdout = BufReader::new(child.stdout.take().unwrap());
    let (tx, lines) = mpsc::channel();
    thread::spawn(move || stdout.lines().map_while(Result::ok).try_for_each(|line| tx.send(line)));
    send(
        &mut stdin,
        &[json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "test", "version": "0"}}})],
    );
    answers(&lines, &[1]);
    let stay = json!({"property": "sea-view", "checkIn": day(90).to_string(), "checkOut": day(93).to_string(),
        "guests": 2, "guestName": "Grace Hopper", "guestEmail": "grace@example.com", "idempotencyKey": "retry-1"});
    send(
        &mut stdin,
        &[json!({"jsonrpc": "2.0", "method": "notifications/initialized"}), call(2, "create_booking", &stay)],
    );
    let first = &answers(&lines, &[2])[0]["result"];
    assert_eq!(first["isError"], false, "{first}");
    let mut other = stay.clone();
    other["guests"] = json!(3);
    let mut bad = stay.clone();
    bad["idempotencyKey"] = json!(42);
    send(&mut stdin, &[call(3, "create_booking", &stay), call(4, "create_booking", &other)]);
    let [retry, reused] = <[Value; 2]>::try_from(answers(&lines, &[3, 4])).unwrap();
    assert_eq!(retry["result"]["content"], first["content"], "the same booking, once: {retry}");
    assert_eq!(reused["result"]["isError"], true, "{reused}");
    send(&mut stdin, &[call(5, "create_booking", &bad)]);
    let bad = &answers(&lines, &[5])[0]["result"];
    assert_eq!(bad["isError"], true, "{bad}");
    assert!(bad["content"][0]["text"].as_str().unwrap().contains("idempotencyKey"), "{bad}");
    drop(stdin);
    assert!(child.wait().unwrap().success());
    let page = s.library().bookings(&BookingQuery { limit: 10, ..BookingQuery::default() }).unwrap();
    assert_eq!(page.data.len(), 1, "the retry made no second booking");
}

#[test]
fn on_the_local_store_a_lapsed_request_frees_its_nights_during_the_session() {
    let (s, _key) = Sandbox::with_key();
    drop(s.library());
    let mut child = s
        .command(&["mcp"], &[("RENTAL_CHECKOUT_TTL", "1s")])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let stdout = BufReader::new(child.stdout.take().unwrap());
    let (tx, lines) = mpsc::channel();
    thread::spawn(move || stdout.lines().map_while(Result::ok).try_for_each(|line| tx.send(line)));
    send(
        &mut stdin,
        &[json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "test", "version": "0"}}})],
    );
    answers(&lines, &[1]);
    let stay = json!({"property": "sea-view", "checkIn": day(80).to_string(), "checkOut": day(84).to_string(),
        "guests": 2, "guestName": "Grace Hopper", "guestEmail": "grace@example.com"});
    send(
        &mut stdin,
        &[json!({"jsonrpc": "2.0", "method": "notifications/initialized"}), call(2, "create_booking", &stay)],
    );
    assert_eq!(answers(&lines, &[2])[0]["result"]["isError"], false);

    thread::sleep(Duration::from_millis(1_200)); // the unpaid request lapses (checkoutTtl 1s)
    send(&mut stdin, &[call(3, "create_booking", &stay)]);
    let rebooked = &answers(&lines, &[3])[0];
    assert_eq!(rebooked["result"]["isError"], false, "the lapsed request no longer holds the nights: {rebooked}");
    drop(stdin);
    assert!(child.wait().unwrap().success());
}

#[test]
fn the_agent_tools_see_blocked_nights_as_blocked_and_taken() {
    let (s, _key) = Sandbox::with_key();
    let stay = rental_core::Stay::new(day(80), day(82)).unwrap();
    s.library().calendars().add_block("sea-view", stay, "owner stay").unwrap();
    let mut child =
        s.command(&["mcp"], &[]).stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::null()).spawn().unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let stdout = BufReader::new(child.stdout.take().unwrap());
    let (tx, lines) = mpsc::channel();
    thread::spawn(move || stdout.lines().map_while(Result::ok).try_for_each(|line| tx.send(line)));
    send(
        &mut stdin,
        &[
            json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
                "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "test", "version": "0"}}}),
            json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
            call(
                2,
                "check_availability",
                &json!({"property": "sea-view", "from": day(79).to_string(), "to": day(83).to_string()}),
            ),
            call(
                3,
                "get_quote",
                &json!({"property": "sea-view", "checkIn": day(78).to_string(), "checkOut": day(81).to_string()}),
            ),
        ],
    );
    let [_, nights, quote] = <[Value; 3]>::try_from(answers(&lines, &[1, 2, 3])).unwrap();
    let nights: Value = serde_json::from_str(nights["result"]["content"][0]["text"].as_str().unwrap()).unwrap();
    let statuses: Vec<&str> =
        nights["nights"].as_array().unwrap().iter().map(|n| n["status"].as_str().unwrap()).collect();
    assert_eq!(statuses, ["available", "blocked", "blocked", "available"], "{nights}");
    let quote: Value = serde_json::from_str(quote["result"]["content"][0]["text"].as_str().unwrap()).unwrap();
    assert_eq!(quote["problems"], json!([{"code": "dates_unavailable", "dates": [day(80).to_string()]}]));
    drop(stdin);
    assert!(child.wait().unwrap().success());
}
