//! `rental bookings change` and `rental blocks add|list|remove`, on the local
//! store and through a running server (`--url`), with the same output.

mod common;

use common::{Sandbox, day};

#[test]
fn a_booking_changes_on_the_local_store_and_through_the_server() {
    let (s, key) = Sandbox::with_key();
    let made = s.with_bookings();
    let (first, second) = (made[0].code.to_string(), made[1].code.to_string());
    let (check_in, check_out) = (day(31).to_string(), day(36).to_string());

    let args = ["bookings", "change", &first, "--check-in", &check_in, "--check-out", &check_out, "--json"];
    let changed = s.run(&args).ok().json();
    assert_eq!(
        (&changed["checkIn"], &changed["checkOut"], &changed["nights"]),
        (&check_in.as_str().into(), &check_out.as_str().into(), &5.into())
    );
    let quote = [
        "quote",
        "--property",
        "sea-view",
        "--check-in",
        &check_in,
        "--check-out",
        &check_out,
        "--guests",
        "3",
        "--json",
    ];
    assert_eq!(changed["total"], s.run(&quote).ok().json()["total"], "re-priced as a quote of the new stay");

    let into_second = s.run(&["bookings", "change", &first, "--check-out", &day(41).to_string()]);
    assert!(into_second.fails(1).contains("dates unavailable"), "{into_second:?}");
    let nothing = s.run(&["bookings", "change", &first]);
    assert!(nothing.fails(1).contains("validation failed"), "{nothing:?}");

    let server = s.serve();
    let url = server.url();
    let remote = ["--url", url.as_str(), "--api-key", key.as_str()];
    let by_url: Vec<&str> = ["bookings", "change", &second, "--guests", "2"].into_iter().chain(remote).collect();
    let line = s.run(&by_url).ok().stdout;
    assert!(line.starts_with(&format!("{second}: ")) && line.contains("7 nights, 2 guests"), "{line}");
    let shown: Vec<&str> = ["bookings", "show", &second, "--json"].into_iter().chain(remote).collect();
    assert_eq!(s.run(&shown).ok().json()["guests"], 2);
    let into_first = day(33).to_string();
    let refused: Vec<&str> =
        ["bookings", "change", &second, "--check-in", &into_first].into_iter().chain(remote).collect();
    assert!(s.run(&refused).fails(1).contains("dates unavailable"));
}

#[test]
fn blocks_are_added_listed_and_removed_locally_and_through_the_server() {
    let (s, key) = Sandbox::with_key();
    s.with_bookings();
    let (from, to) = (day(60).to_string(), day(62).to_string());
    let added =
        s.run(&["blocks", "add", "sea-view", "--from", &from, "--to", &to, "--note", "painting", "--json"]).ok().json();
    let id = added["id"].as_str().unwrap().to_owned();
    assert_eq!(
        (&added["source"], &added["note"], &added["startDate"]),
        (&"manual".into(), &"painting".into(), &from.as_str().into())
    );
    let over_a_stay =
        s.run(&["blocks", "add", "sea-view", "--from", &day(31).to_string(), "--to", &day(33).to_string()]);
    assert!(over_a_stay.fails(1).contains("dates unavailable"), "{over_a_stay:?}");

    let list_args = ["blocks", "list", "sea-view", "--from", &day(55).to_string(), "--to", &day(70).to_string()];
    let table = s.run(&list_args).ok().stdout;
    assert!(table.contains(&id) && table.contains("painting") && table.contains("manual"), "{table}");
    let local_json: Vec<&str> = list_args.into_iter().chain(["--json"]).collect();
    let local = s.run(&local_json).ok().stdout;

    let server = s.serve();
    let url = server.url();
    let remote = ["--url", url.as_str(), "--api-key", key.as_str()];
    let remote_list: Vec<&str> = local_json.iter().copied().chain(remote).collect();
    assert_eq!(s.run(&remote_list).ok().stdout, local, "the same list through the server");
    let remote_table: Vec<&str> = list_args.into_iter().chain(remote).collect();
    assert_eq!(s.run(&remote_table).ok().stdout, table);

    let removal: Vec<&str> = ["blocks", "remove", "sea-view", &id].into_iter().chain(remote).collect();
    assert_eq!(s.run(&removal).ok().stdout, format!("{id}: removed, its nights are open again\n"));
    assert_eq!(s.run(&remote_list).ok().json()["data"], serde_json::json!([]));
    assert_eq!(s.run(&removal).fails(1), format!("error: block {id:?} not found"));
    let added: Vec<&str> =
        ["blocks", "add", "sea-view", "--from", &from, "--to", &to].into_iter().chain(remote).collect();
    assert!(s.run(&added).ok().stdout.contains(&format!("sea-view closed from {from} to {to}")));
}
