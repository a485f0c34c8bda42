//! `rental backup` and `rental restore` (docs/API.md section 22), with the real
//! binary: a backup through a server under write load holds every booking
//! acknowledged before it began and restores to a server that lists the same;
//! a backup of redb restores into PostgreSQL and back, record for record; a
//! damaged or cut-short file is refused and writes nothing; a file's event
//! numbers cost no work of their own, and a restore writes through no link.

mod common;

use std::collections::{BTreeMap, BTreeSet};
use std::net::SocketAddr;
use std::sync::{Arc, Mutex, PoisonError};
use std::thread;
use std::time::{Duration, Instant};

use common::{Sandbox, day, get, post};
use rental_core::keys::Scope;
use rental_core::store::PgStore;
use rental_core::webhook::Subscription;
use rental_core::{BookingQuery, Rental};
use rental_tests::postgres::PgCluster;
use rental_tests::tools;
use serde_json::{Value, json};

/// Every booking a server lists, by code, read with `key`.
fn listed(addr: SocketAddr, key: &str) -> BTreeMap<String, Value> {
    let mut out = BTreeMap::new();
    let mut path = "/api/v1/bookings?limit=200".to_owned();
    loop {
        let (status, page) = get(addr, &path, key);
        assert_eq!(status, 200, "{page}");
        for b in page["data"].as_array().unwrap() {
            out.insert(b["code"].as_str().unwrap().to_owned(), b.clone());
        }
        match page["nextCursor"].as_str() {
            Some(cursor) => path = format!("/api/v1/bookings?limit=200&cursor={cursor}"),
            None => return out,
        }
    }
}

/// Creations from 16 connections at once while `rental backup --url` runs.
#[test]
fn a_backup_under_write_load_holds_every_acknowledged_booking_and_restores_the_same_listings() {
    let (sandbox, key) = Sandbox::with_key();
    let backup_key = sandbox.library().admin().create_key("backups", &[Scope::Backup]).unwrap().secret;
    // No rate limit: 16 writers on one key would meet it, and this measures the backup, not the limiter.
    let base = ("RENTAL_BASE_URL", "https://stays.example");
    let server = sandbox.serve_with(&[("RENTAL_RATE_LIMIT", "0"), base]);
    let addr = server.addr;
    // Each acknowledged creation with when its answer came; each answer's status.
    let acked: Arc<Mutex<Vec<(Instant, String)>>> = Arc::default();
    let statuses: Arc<Mutex<BTreeMap<u16, usize>>> = Arc::default();
    let workers: Vec<_> = (0..16u64)
        .map(|t| {
            let (key, acked, statuses) = (key.clone(), Arc::clone(&acked), Arc::clone(&statuses));
            thread::spawn(move || {
                let property = ["sea-view", "harbour-loft", "alpine-cabin"][usize::try_from(t % 3).unwrap()];
                for i in 0..14u64 {
                    let from = 20 + (i * 6 + t / 3) * 5;
                    let body = json!({
                        "property": property, "checkIn": day(from).to_string(), "checkOut": day(from + 5).to_string(),
                        "guestName": "Ada Lovelace", "guestEmail": "ada@example.com", "guests": 2,
                    });
                    let (status, booking) = post(addr, "/api/v1/bookings", &key, &body);
                    *statuses.lock().unwrap_or_else(PoisonError::into_inner).entry(status).or_default() += 1;
                    if status == 201 {
                        let code = booking["code"].as_str().unwrap().to_owned();
                        acked.lock().unwrap_or_else(PoisonError::into_inner).push((Instant::now(), code));
                    }
                }
            })
        })
        .collect();
    // Into the load: a few dozen creations acknowledged, most still to come.
    let deadline = Instant::now() + Duration::from_secs(30);
    while acked.lock().unwrap_or_else(PoisonError::into_inner).len() < 30 {
        assert!(Instant::now() < deadline, "no load: {}", server.log());
        thread::sleep(Duration::from_millis(5));
    }
    let began = Instant::now();
    let file = sandbox.dir.path().join("under-load.backup");
    let file_arg = file.display().to_string();
    let url = server.url();
    let backed_up = sandbox.run(&["backup", "--to", &file_arg, "--url", &url, "--api-key", &backup_key]).ok();
    let took = began.elapsed();
    for w in workers {
        w.join().unwrap();
    }
    let statuses = statuses.lock().unwrap_or_else(PoisonError::into_inner).clone();
    let acked = acked.lock().unwrap_or_else(PoisonError::into_inner).clone();
    let before: BTreeSet<String> = acked.iter().filter(|(at, _)| *at < began).map(|(_, c)| c.clone()).collect();
    let during = acked.iter().filter(|(at, _)| *at >= began && *at <= began + took).count();
    eprintln!(
        "backup took {took:?}; {} acknowledged before it, {during} during it; answers {statuses:?}",
        before.len()
    );
    assert!(statuses.keys().all(|s| [201, 409].contains(s)), "every request answered: {statuses:?}");
    assert!(backed_up.stdout.contains("every count matches"), "{}", backed_up.stdout);
    let original = listed(addr, &key);
    let original_properties = get(addr, "/api/v1/properties", &key).1;
    drop(server);

    let restored_dir = Sandbox { dir: tempfile::tempdir().unwrap() };
    let file_arg = file.display().to_string();
    restored_dir.run(&["restore", &file_arg]).ok();
    // The page secret is kept beside the store, not in it: moved with the backup, guests' stay links live on.
    std::fs::copy(sandbox.data_dir().join("book-secret"), restored_dir.data_dir().join("book-secret")).unwrap();
    let restored_server = restored_dir.serve_with(&[base]);
    let restored = listed(restored_server.addr, &key);
    let missing: Vec<&String> = before.iter().filter(|c| !restored.contains_key(*c)).collect();
    assert!(missing.is_empty(), "acknowledged before the backup began, not restored: {missing:?}");
    for (code, booking) in &restored {
        assert_eq!(Some(booking), original.get(code), "{code} as restored and as the original lists it");
    }
    assert_eq!(get(restored_server.addr, "/api/v1/properties", &key).1, original_properties);
}

#[test]
fn a_redb_backup_restores_into_postgres_and_back_record_for_record() {
    if !tools::postgres() {
        return;
    }
    let (sandbox, key) = Sandbox::with_key();
    let bookings = sandbox.with_bookings();
    {
        let rental = sandbox.library();
        rental.admin().add_webhook("https://hooks.example.com/in", Subscription::parse("*").unwrap(), None).unwrap();
        rental.worker().fan_out(100).unwrap();
        rental.admin().set_admin_password("a long admin password").unwrap();
    }
    let first = sandbox.dir.path().join("from-redb.backup").display().to_string();
    sandbox.run(&["backup", "--to", &first]).ok();

    let url = PgCluster::shared().database();
    sandbox.run(&["restore", &first, "--database", &url]).ok();
    let in_pg = Rental::new(PgStore::open(&url).unwrap());
    assert_eq!(
        in_pg.bookings(&BookingQuery { limit: 100, ..BookingQuery::default() }).unwrap().data.len(),
        bookings.len()
    );
    assert!(in_pg.worker().verify_admin_password("a long admin password").unwrap());
    drop(in_pg);
    let second = sandbox.dir.path().join("from-postgres.backup").display().to_string();
    sandbox.run(&["backup", "--to", &second, "--database", &url]).ok();

    let back = Sandbox { dir: tempfile::tempdir().unwrap() };
    back.run(&["restore", &second]).ok();
    let third = back.dir.path().join("back-in-redb.backup").display().to_string();
    back.run(&["backup", "--to", &third]).ok();
    let records = |file: &str| -> Vec<String> {
        let text = std::fs::read_to_string(file).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        // Without the header (its time) and the trailer (its checksum covers the header);
        // sorted, as each store lists the records of its bookings in its own order.
        let mut records: Vec<String> = lines[1..lines.len() - 1].iter().map(|l| (*l).to_owned()).collect();
        records.sort();
        records
    };
    assert_eq!(records(&first), records(&second), "redb -> PostgreSQL keeps every record");
    assert_eq!(records(&first), records(&third), "and back to redb");

    // The restored data directory serves the same bookings to the same key (its hash came along).
    let server = back.serve();
    assert_eq!(listed(server.addr, &key).len(), bookings.len());
}

#[test]
fn a_damaged_or_cut_short_backup_is_refused_and_writes_nothing() {
    let (sandbox, file) = backed_up();
    let good = std::fs::read(&file).unwrap();

    let cut = sandbox.dir.path().join("cut.backup");
    std::fs::write(&cut, &good[..good.len() * 2 / 3]).unwrap();
    let at_a_line = sandbox.dir.path().join("cut-at-a-line.backup");
    let last_line = good[..good.len() - 1].iter().rposition(|b| *b == b'\n').unwrap() + 1;
    std::fs::write(&at_a_line, &good[..last_line]).unwrap();
    let changed = sandbox.dir.path().join("changed.backup");
    let text = String::from_utf8(good.clone()).unwrap().replacen("Ada Lovelace", "Ada Lovelacf", 1);
    std::fs::write(&changed, text).unwrap();
    let newer = sandbox.dir.path().join("newer.backup");
    std::fs::write(&newer, "{\"format\":\"rental-backup\",\"version\":99}\n").unwrap();

    for (file, says) in
        [(&cut, "cut short"), (&at_a_line, "cut short"), (&changed, "checksum does not match"), (&newer, "unusable")]
    {
        let target = tempfile::tempdir().unwrap();
        let data_dir = target.path().join("data");
        let run = sandbox.run(&["restore", &file.display().to_string(), "--data-dir", &data_dir.display().to_string()]);
        assert!(run.fails(1).contains(says), "{}: {}", file.display(), run.stderr);
        assert!(!data_dir.exists(), "nothing written for {}", file.display());
    }
}

/// A sandbox with three bookings, and its backup file.
fn backed_up() -> (Sandbox, std::path::PathBuf) {
    let (sandbox, _) = Sandbox::with_key();
    sandbox.with_bookings();
    let file = sandbox.dir.path().join("good.backup");
    sandbox.run(&["backup", "--to", &file.display().to_string()]).ok();
    (sandbox, file)
}

/// A backup file's lines as JSON values.
fn lines_of(file: &std::path::Path) -> Vec<Value> {
    std::fs::read_to_string(file).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect()
}

/// A backup's lines with the trailer made anew for them, as anyone can.
fn with_trailer(mut lines: Vec<Value>) -> Vec<u8> {
    use sha2::Digest;
    let mut trailer = lines.pop().unwrap();
    let mut body = Vec::new();
    for line in &lines {
        body.extend(serde_json::to_vec(line).unwrap());
        body.push(b'\n');
    }
    trailer["sha256"] = json!(hex::encode(sha2::Sha256::digest(&body)));
    body.extend(serde_json::to_vec(&trailer).unwrap());
    body.push(b'\n');
    body
}

#[test]
fn an_event_numbered_far_past_the_others_restores_at_once_under_its_number() {
    let (sandbox, file) = backed_up();
    let mut lines = lines_of(&file);
    let far = 1_000_000_000_000_u64;
    let last_event = lines.iter_mut().rev().find(|l| l["kind"] == "event").expect("the backup holds events");
    last_event["doc"]["seq"] = json!(far);
    let forged = sandbox.dir.path().join("far.backup");
    std::fs::write(&forged, with_trailer(lines)).unwrap();

    // A placeholder per missing number would never finish: the restore is one step per record.
    let target = tempfile::tempdir().unwrap();
    let data_dir = target.path().join("data");
    sandbox.run(&["restore", &forged.display().to_string(), "--data-dir", &data_dir.display().to_string()]).ok();
    let restored = Rental::new(rental_core::RedbStore::open_dir(&data_dir).unwrap());
    let events = restored.admin().events_after(far - 1, 10).unwrap();
    assert_eq!(events.iter().map(|e| e.seq).collect::<Vec<_>>(), [far]);
}

#[test]
fn events_out_of_order_are_refused_and_write_nothing() {
    let (sandbox, file) = backed_up();
    let mut lines = lines_of(&file);
    let first = lines.iter().position(|l| l["kind"] == "event").unwrap();
    lines[first]["doc"]["seq"] = json!(1_000);
    let forged = sandbox.dir.path().join("unordered.backup");
    std::fs::write(&forged, with_trailer(lines)).unwrap();

    let target = tempfile::tempdir().unwrap();
    let data_dir = target.path().join("data");
    let run = sandbox.run(&["restore", &forged.display().to_string(), "--data-dir", &data_dir.display().to_string()]);
    assert!(run.fails(1).contains("out of order"), "{}", run.stderr);
    assert!(!data_dir.exists());
}

#[test]
fn a_restore_into_a_store_that_is_not_empty_is_refused_and_changes_none_of_its_files() {
    let (sandbox, file) = backed_up();
    let files = |dir: &std::path::Path| -> BTreeMap<String, (Vec<u8>, std::time::SystemTime)> {
        std::fs::read_dir(dir)
            .unwrap()
            .map(|entry| {
                let path = entry.unwrap().path();
                let modified = std::fs::metadata(&path).unwrap().modified().unwrap();
                (path.display().to_string(), (std::fs::read(&path).unwrap(), modified))
            })
            .collect()
    };
    let before = files(&sandbox.data_dir());
    assert!(before.keys().any(|f| f.ends_with("rental.redb")), "{:?}", before.keys());
    let run = sandbox.run(&["restore", &file.display().to_string()]);
    assert!(run.fails(1).contains("not empty: it holds"), "{}", run.stderr);
    assert!(files(&sandbox.data_dir()) == before, "the target's files changed");
}

#[test]
fn a_restore_writes_through_no_symbolic_link_in_the_data_directory() {
    let (sandbox, file) = backed_up();

    for name in ["rental.redb", "rental.redb.redo"] {
        let target = tempfile::tempdir().unwrap();
        let victim = target.path().join("precious.txt");
        std::fs::write(&victim, "the host's own file").unwrap();
        let data_dir = target.path().join("data");
        std::fs::create_dir(&data_dir).unwrap();
        std::os::unix::fs::symlink(&victim, data_dir.join(name)).unwrap();
        let run = sandbox.run(&["restore", &file.display().to_string(), "--data-dir", &data_dir.display().to_string()]);
        assert!(run.fails(1).contains("symbolic link"), "{name}: {}", run.stderr);
        assert_eq!(std::fs::read_to_string(&victim).unwrap(), "the host's own file", "{name}");
    }
}

#[test]
fn a_sealed_backup_hides_guests_and_restores_with_its_passphrase_only_and_unchanged_only() {
    let (sandbox, key) = Sandbox::with_key();
    let bookings = sandbox.with_bookings();
    let pass = sandbox.dir.path().join("passphrase");
    std::fs::write(&pass, "correct horse battery staple\n").unwrap();
    let pass = pass.display().to_string();
    let file = sandbox.dir.path().join("sealed.backup");
    let file_arg = file.display().to_string();
    sandbox.run(&["backup", "--to", &file_arg, "--passphrase-file", &pass]).ok();
    let sealed = std::fs::read(&file).unwrap();
    let guest = bookings[0].guest_email.as_bytes();
    assert!(!sealed.windows(guest.len()).any(|w| w == guest), "a guest's e-mail in clear");

    let wrong = sandbox.dir.path().join("wrong");
    std::fs::write(&wrong, "not the passphrase at all").unwrap();
    let mut changed = sealed.clone();
    let middle = changed.len() / 2;
    changed[middle] ^= 1;
    let changed_file = sandbox.dir.path().join("changed.backup");
    std::fs::write(&changed_file, &changed).unwrap();
    let plain = sandbox.dir.path().join("plain.backup");
    sandbox.run(&["backup", "--to", &plain.display().to_string()]).ok();
    let wrong = wrong.display().to_string();
    let changed_arg = changed_file.display().to_string();
    let plain_arg = plain.display().to_string();
    let refusals: [(&[&str], &str); 4] = [
        (&[&file_arg], "it is sealed"),
        (&[&file_arg, "--passphrase-file", &wrong], "passphrase is wrong or the file was changed"),
        (&[&changed_arg, "--passphrase-file", &pass], "passphrase is wrong or the file was changed"),
        (&[&plain_arg, "--passphrase-file", &pass], "not sealed"),
    ];
    for (args, says) in refusals {
        let target = tempfile::tempdir().unwrap();
        let data_dir = target.path().join("data").display().to_string();
        let run = sandbox.run(&[&["restore"], args, &["--data-dir", &data_dir]].concat());
        assert!(run.fails(1).contains(says), "{args:?}: {}", run.stderr);
        assert!(!target.path().join("data").exists(), "nothing written for {args:?}");
    }

    let back = Sandbox { dir: tempfile::tempdir().unwrap() };
    back.run(&["restore", &file_arg, "--passphrase-file", &pass]).ok();
    let server = back.serve();
    assert_eq!(listed(server.addr, &key).len(), bookings.len());
}
