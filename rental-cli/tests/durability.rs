//! Every booking the server acknowledged is on disk: a server killed right
//! after answering (SIGKILL, no shutdown) loses none of them, although
//! concurrent creations share their durable commits (group commit).

mod common;

use std::thread;

use common::{Sandbox, post, stay};
use rental_core::Store;
use rental_core::store::ReadTx;

#[test]
fn bookings_acknowledged_before_a_crash_are_all_there_after_it() {
    let (sandbox, key) = Sandbox::with_key();
    let server = sandbox.serve();
    let addr = server.addr;
    let clients: Vec<_> = (0..8u64)
        .map(|client| {
            let key = key.clone();
            thread::spawn(move || {
                (0..12u64)
                    .map(|i| {
                        let request = serde_json::to_value(stay(30 + 7 * (client * 12 + i), 7)).unwrap();
                        let (status, booking) = post(addr, "/api/v1/bookings", &key, &request);
                        assert_eq!(status, 201, "{booking}");
                        booking["code"].as_str().unwrap().to_owned()
                    })
                    .collect::<Vec<String>>()
            })
        })
        .collect();
    let acknowledged: Vec<String> = clients.into_iter().flat_map(|c| c.join().unwrap()).collect();
    server.kill();
    let library = sandbox.library();
    let read = library.store().read().unwrap();
    let missing: Vec<&String> = acknowledged.iter().filter(|code| read.booking(code).unwrap().is_none()).collect();
    assert!(
        missing.is_empty(),
        "{} of {} acknowledged bookings are gone: {missing:?}",
        missing.len(),
        acknowledged.len()
    );
}

/// The booking page's secret signs every form token and link: a power cut right
/// after the first start must not lose it. Seen through the system calls `rental serve`
/// makes (strace): written under another name, synced, renamed, its directory synced.
#[test]
fn the_page_secret_is_synced_renamed_and_its_directory_synced_at_first_start() {
    // `./scripts/test` installs strace; a plain `cargo test` without it skips this, as with the other tools.
    if std::process::Command::new("strace").arg("-V").output().is_err() {
        eprintln!("skipped: no strace");
        return;
    }
    let (sandbox, _) = Sandbox::with_key();
    let trace = sandbox.data_dir().with_file_name("serve.strace");
    let mut strace = std::process::Command::new("strace");
    strace.args(["-f", "-y", "-qq", "-e", "trace=openat,fsync,fdatasync,rename,renameat,renameat2", "-o"]);
    strace.arg(&trace).arg(env!("CARGO_BIN_EXE_rental"));
    let server = sandbox.serve_through(strace);
    let secret = sandbox.data_dir().join("book-secret");
    // The port is bound before the secret is made: an answer means the secret is whole and synced.
    assert_eq!(common::get(server.addr, "/healthz", "").0, 200);
    assert_eq!(std::fs::read_to_string(&secret).unwrap().trim().len(), 64, "a 32-byte secret in hex");
    server.kill();
    let calls = std::fs::read_to_string(&trace).unwrap();
    let partial = format!("{}.partial", secret.display());
    let at = |what: &dyn Fn(&str) -> bool| calls.lines().position(what);
    let synced = at(&|l| l.contains("fsync(") && l.contains(&format!("<{partial}>")));
    // The server names files relative to its working directory, so the rename is matched by name.
    let renamed = at(&|l| {
        l.contains("rename")
            && l.contains("book-secret.partial\", ")
            && l.contains("book-secret\")")
            && l.ends_with("= 0")
    });
    let dir_synced = renamed.and_then(|r| {
        let dir = format!("<{}>)", sandbox.data_dir().display());
        calls.lines().skip(r).position(|l| l.contains("fsync(") && l.contains(&dir)).map(|p| p + r)
    });
    assert!(
        matches!((synced, renamed, dir_synced), (Some(s), Some(r), Some(d)) if s < r && r <= d),
        "want fsync(partial) < rename < fsync(dir): {synced:?} {renamed:?} {dir_synced:?}\n{calls}"
    );
}
