//! What the remote-mode and MCP tests share: a sandbox directory with the
//! demo properties and a key, the real `rental` binary, and a real
//! `rental serve` on a free loopback port that holds the sandbox's store.

#![allow(dead_code)] // each test binary uses its own part

use std::io::{BufRead, BufReader, Write};
use std::net::{SocketAddr, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc;
use std::thread;
use std::time::Duration;

use chrono::{Days, NaiveDate, Utc};
use rental_core::keys::Scope;
use rental_core::{Booking, NewBooking, RedbStore, Rental, demo};
use serde_json::Value;
use tempfile::TempDir;

/// A working directory whose `./rental-data` is the store.
pub struct Sandbox {
    pub dir: TempDir,
}

/// What one run of the binary did.
#[derive(Debug)]
pub struct Run {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

impl Run {
    pub fn ok(self) -> Self {
        assert_eq!(self.code, 0, "failed: {self:?}");
        self
    }

    pub fn json(&self) -> Value {
        serde_json::from_str(&self.stdout).unwrap_or_else(|e| panic!("not JSON ({e}): {}", self.stdout))
    }

    /// Asserts the exit code, empty stdout and exactly one `error: ...` line on stderr; returns that line.
    pub fn fails(&self, code: i32) -> &str {
        assert_eq!(self.code, code, "{self:?}");
        assert!(self.stdout.is_empty(), "{self:?}");
        assert!(self.stderr.starts_with("error: "), "{self:?}");
        assert_eq!(self.stderr.trim_end().lines().count(), 1, "{self:?}");
        self.stderr.trim_end()
    }
}

/// A night `days` from today (UTC), as the tests book them.
pub fn day(days: u64) -> NaiveDate {
    Utc::now().date_naive() + Days::new(days)
}

impl Sandbox {
    /// A sandbox with the demo properties and a read+write key; returns it and the key.
    pub fn with_key() -> (Self, String) {
        let s = Sandbox { dir: tempfile::tempdir().unwrap() };
        let key = s.library().admin().create_key("test", &[Scope::Read, Scope::Write]).unwrap().secret;
        (s, key)
    }

    pub fn data_dir(&self) -> PathBuf {
        self.dir.path().join("rental-data")
    }

    /// The library on the sandbox's store (the demo properties imported); drop it before starting a server.
    pub fn library(&self) -> Rental<RedbStore> {
        let rental = Rental::new(RedbStore::open_dir(self.data_dir()).unwrap());
        rental.import_properties(&demo::properties()).unwrap();
        rental
    }

    /// Pending sea-view stays of 7, 7 and 4 nights, 30, 40 and 50 days from now, made through the library.
    pub fn with_bookings(&self) -> Vec<Booking> {
        let rental = self.library();
        [(30, 7), (40, 7), (50, 4)]
            .into_iter()
            .map(|(from, nights)| rental.create_booking(&stay(from, nights), None).unwrap().booking)
            .collect()
    }

    /// `rental ARGS` in the sandbox with no `RENTAL_*` variables but those in `env`.
    pub fn command(&self, args: &[&str], env: &[(&str, &str)]) -> Command {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_rental"));
        cmd.args(args).current_dir(self.dir.path());
        for (name, _) in std::env::vars().filter(|(name, _)| name.starts_with("RENTAL_")) {
            cmd.env_remove(name);
        }
        cmd.envs(env.iter().copied());
        cmd
    }

    pub fn run_with(&self, args: &[&str], env: &[(&str, &str)]) -> Run {
        finished(self.command(args, env).stdin(Stdio::null()).output().unwrap())
    }

    pub fn run(&self, args: &[&str]) -> Run {
        self.run_with(args, &[])
    }

    /// `rental serve` on the sandbox's store, on a free port.
    pub fn serve(&self) -> Server {
        Server::start(self, &[])
    }

    /// A running `rental serve` on the sandbox's store, with these `RENTAL_*` variables.
    pub fn serve_with(&self, env: &[(&str, &str)]) -> Server {
        Server::start(self, env)
    }

    /// `rental serve` started by `wrapper` (such as strace), whose last argument is the `rental` binary.
    pub fn serve_through(&self, mut wrapper: Command) -> Server {
        for (name, _) in std::env::vars().filter(|(name, _)| name.starts_with("RENTAL_")) {
            wrapper.env_remove(name);
        }
        Server::start_with(self, wrapper)
    }
}

pub fn stay(from_now: u64, nights: u64) -> NewBooking {
    NewBooking {
        property: "sea-view".parse().unwrap(),
        check_in: day(from_now),
        check_out: day(from_now + nights),
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

/// Numbers the servers' log files within a test binary.
static SERVERS: AtomicUsize = AtomicUsize::new(0);

/// The address a `rental serve` started with its stdout piped says it listens on, in the
/// banner's first line; `None` if that line does not come `within` (or the server ends first).
/// The rest of its stdout is read and dropped, so the server never blocks on a full pipe.
pub fn listening_address(child: &mut Child, within: Duration) -> Option<SocketAddr> {
    let stdout = child.stdout.take()?;
    let (tx, rx) = mpsc::channel();
    thread::spawn(move || {
        let mut lines = BufReader::new(stdout).lines();
        if let Some(Ok(first)) = lines.next() {
            let _ = tx.send(first);
        }
        lines.for_each(drop);
    });
    listening_on(&rx.recv_timeout(within).ok()?)
}

/// Ends a server that did not say where it listens, with what it logged.
pub fn never_listened(child: &mut Child, log: &str) -> ! {
    let exited = child.try_wait().unwrap();
    let _ = child.kill();
    let _ = child.wait();
    panic!("rental serve did not say where it listens (exited: {exited:?}): {log}")
}

/// The address in the banner's first line, `rental is listening on http://ADDR...`.
pub fn listening_on(banner: &str) -> Option<SocketAddr> {
    let rest = banner.split_once("listening on http://")?.1;
    rest.split([',', ' ']).next()?.parse().ok()
}

pub fn finished(out: Output) -> Run {
    Run {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8(out.stdout).unwrap(),
        stderr: String::from_utf8(out.stderr).unwrap(),
    }
}

/// A running `rental serve`, killed and reaped when dropped.
pub struct Server {
    child: Child,
    pub addr: SocketAddr,
    log: PathBuf,
}

impl Server {
    fn start(sandbox: &Sandbox, env: &[(&str, &str)]) -> Self {
        Self::start_with(sandbox, sandbox.command(&[], env))
    }

    /// Starts `serve` on `127.0.0.1:0` and learns the port from its banner: a port picked
    /// here and passed on could be taken by a concurrent test's server before this one binds it.
    fn start_with(sandbox: &Sandbox, mut command: Command) -> Self {
        let log = sandbox.dir.path().join(format!("serve-{}.log", SERVERS.fetch_add(1, Ordering::Relaxed)));
        let mut child = command
            .args(["serve", "--listen", "127.0.0.1:0"])
            .current_dir(sandbox.dir.path())
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(std::fs::File::create(&log).unwrap())
            .spawn()
            .expect("rental serve starts");
        let Some(addr) = listening_address(&mut child, Duration::from_secs(20)) else {
            never_listened(&mut child, &std::fs::read_to_string(&log).unwrap_or_default())
        };
        Server { child, addr, log }
    }

    pub fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    pub fn log(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }

    /// Ends the server as a crash would (SIGKILL on Unix): nothing is shut down.
    /// Started through a wrapper, the server is the wrapper's child, killed first.
    pub fn kill(mut self) {
        let pid = self.child.id();
        let children = std::fs::read_to_string(format!("/proc/{pid}/task/{pid}/children")).unwrap_or_default();
        for child in children.split_whitespace() {
            let _ = Command::new("kill").args(["-KILL", child]).status();
        }
        self.child.kill().expect("the server can be killed");
        self.child.wait().expect("the server is reaped");
    }
}

/// `POST path` with a JSON body and a bearer key over a fresh connection; the status and the body.
pub fn post(addr: SocketAddr, path: &str, key: &str, body: &Value) -> (u16, Value) {
    exchange(addr, "POST", path, key, "", &body.to_string())
}

/// [`post`] with an `Idempotency-Key`, so that sending it again, to any server, creates nothing twice.
pub fn post_once(addr: SocketAddr, path: &str, key: &str, idempotency_key: &str, body: &Value) -> (u16, Value) {
    exchange(addr, "POST", path, key, &format!("Idempotency-Key: {idempotency_key}\r\n"), &body.to_string())
}

/// `PATCH path` with a JSON body and a bearer key over a fresh connection; the status and the body.
pub fn patch(addr: SocketAddr, path: &str, key: &str, body: &Value) -> (u16, Value) {
    exchange(addr, "PATCH", path, key, "", &body.to_string())
}

/// `GET path` with a bearer key over a fresh connection; the status and the body.
pub fn get(addr: SocketAddr, path: &str, key: &str) -> (u16, Value) {
    exchange(addr, "GET", path, key, "", "")
}

fn exchange(addr: SocketAddr, method: &str, path: &str, key: &str, headers: &str, body: &str) -> (u16, Value) {
    let response = request_with(addr, method, path, key, headers, body);
    let (head, body) = response.split_once("\r\n\r\n").unwrap_or_else(|| panic!("not HTTP: {response}"));
    let status = head.split(' ').nth(1).and_then(|s| s.parse().ok()).unwrap_or_else(|| panic!("no status: {head}"));
    (status, serde_json::from_str(body).unwrap_or(Value::Null))
}

/// `method path` with a JSON body and a bearer key over a fresh connection; the response as text.
pub fn request(addr: SocketAddr, method: &str, path: &str, key: &str, body: &str) -> String {
    request_with(addr, method, path, key, "", body)
}

/// [`request`] with more `headers`: whole lines, each ending in CRLF.
fn request_with(addr: SocketAddr, method: &str, path: &str, key: &str, headers: &str, body: &str) -> String {
    round_trip(
        addr,
        &format!(
            "{method} {path} HTTP/1.1\r\nHost: {addr}\r\nAuthorization: Bearer {key}\r\n{headers}\
             Content-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
            body.len()
        ),
    )
}

/// Sends `request` (a whole HTTP/1.1 request that says `Connection: close`)
/// over a fresh connection; the response as text.
pub fn round_trip(addr: SocketAddr, request: &str) -> String {
    use std::io::Read;
    let mut stream = TcpStream::connect(addr).expect("the server accepts");
    stream.set_read_timeout(Some(Duration::from_secs(10))).expect("a read timeout");
    stream.write_all(request.as_bytes()).expect("the request is sent");
    let mut response = Vec::new();
    stream.read_to_end(&mut response).expect("the response is read");
    String::from_utf8_lossy(&response).into_owned()
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Writes `lines` to a child's stdin, one JSON value per line.
pub fn send(stdin: &mut impl Write, lines: &[Value]) {
    for line in lines {
        writeln!(stdin, "{line}").unwrap();
    }
    stdin.flush().unwrap();
}

/// The directory of this crate's test files.
pub fn tests_dir() -> &'static Path {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/tests"))
}
