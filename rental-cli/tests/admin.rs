//! `rental admin set-password` and `rental serve --demo` against the real
//! binary: the password read from stdin (or printed by `--demo`) is the one
//! the running server's `/admin/login` accepts, and no other; a session
//! outlives a restart.
//!
//! Plain std only: a tiny HTTP/1.1 client over `TcpStream`.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

mod common;

/// `rental ARGS` in `dir`, with no `RENTAL_*` variables.
fn rental(dir: &Path, args: &[&str]) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_rental"));
    cmd.args(args).current_dir(dir);
    for (name, _) in std::env::vars().filter(|(name, _)| name.starts_with("RENTAL_")) {
        cmd.env_remove(name);
    }
    cmd
}

/// Runs `rental ARGS` with `input` on stdin: exit code, stdout, stderr.
fn run_fed(dir: &Path, args: &[&str], input: &[u8]) -> (i32, String, String) {
    let mut child = rental(dir, args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary runs");
    child.stdin.take().unwrap().write_all(input).unwrap();
    let out = child.wait_with_output().unwrap();
    let text = |b: Vec<u8>| String::from_utf8(b).unwrap();
    (out.status.code().unwrap_or(-1), text(out.stdout), text(out.stderr))
}

/// A running `rental serve`, killed and reaped when dropped.
struct Server {
    child: Child,
    addr: SocketAddr,
}

impl Server {
    /// `rental serve [extra]` on a port the system picks, learnt from the banner, whose lines it returns too.
    fn start(dir: &Path, extra: &[&str]) -> (Server, Vec<String>) {
        let mut args = vec!["serve", "--listen", "127.0.0.1:0"];
        args.extend_from_slice(extra);
        let mut child = rental(dir, &args)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("rental serve starts");
        let mut lines = Vec::new();
        let mut stdout = BufReader::new(child.stdout.take().unwrap());
        let mut line = String::new();
        while stdout.read_line(&mut line).unwrap_or(0) > 0 && !line.contains("Stop with Ctrl-C") {
            lines.push(std::mem::take(&mut line));
        }
        let addr = lines.first().and_then(|first| common::listening_on(first));
        let addr = addr.unwrap_or_else(|| panic!("rental serve did not say where it listens: {lines:?}"));
        (Server { child, addr }, lines)
    }

    /// Fetches the login form, posts `password` with its token; the status and `Location`.
    fn login(&self, password: &str) -> (u16, Option<String>) {
        let reply = self.login_reply(password);
        (status(&reply), header(&reply, "location").map(str::to_owned))
    }

    /// Fetches the login form and posts `password` with its token; the whole reply.
    fn login_reply(&self, password: &str) -> String {
        let form = self.request("GET /admin/login", "", "");
        let cookie = header(&form, "set-cookie").unwrap().split(';').next().unwrap().to_owned();
        let token = form.split(r#"name="_csrf" value=""#).nth(1).unwrap().split('"').next().unwrap().to_owned();
        let body = format!("_csrf={token}&password={}", password.replace(' ', "+"));
        self.request("POST /admin/login", &cookie, &body)
    }

    fn request(&self, line: &str, cookie: &str, body: &str) -> String {
        let mut stream = TcpStream::connect(self.addr).unwrap();
        stream.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
        let request = format!(
            "{line} HTTP/1.1\r\nHost: {}\r\nCookie: {cookie}\r\nContent-Type: application/x-www-form-urlencoded\r\n\
             Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
            self.addr,
            body.len()
        );
        stream.write_all(request.as_bytes()).unwrap();
        let mut response = String::new();
        stream.read_to_string(&mut response).unwrap();
        response
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn status(response: &str) -> u16 {
    response.split(' ').nth(1).unwrap().parse().unwrap()
}

fn header<'r>(response: &'r str, name: &str) -> Option<&'r str> {
    let head = response.split("\r\n\r\n").next().unwrap();
    head.lines().find_map(|l| l.split_once(':').filter(|(n, _)| n.eq_ignore_ascii_case(name)).map(|(_, v)| v.trim()))
}

#[test]
fn the_password_set_from_stdin_is_the_one_the_server_accepts() {
    let dir = tempfile::tempdir().unwrap();
    let (code, stdout, stderr) = run_fed(dir.path(), &["admin", "set-password"], b"a long admin secret\n");
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.contains("admin password set"), "{stdout}");

    let (server, _) = Server::start(dir.path(), &[]);
    assert_eq!(server.login("a long admin secret extra"), (401, None));
    assert_eq!(server.login("a long admin secret"), (303, Some("/admin".to_owned())));
}

#[test]
fn a_short_password_is_refused_in_one_line_and_nothing_is_set() {
    let dir = tempfile::tempdir().unwrap();
    let (code, stdout, stderr) = run_fed(dir.path(), &["admin", "set-password"], b"short\n");
    assert_eq!(code, 1, "{stdout}{stderr}");
    assert!(stderr.starts_with("error: ") && stderr.contains("at least 8 characters"), "{stderr}");
    assert_eq!(stderr.trim_end().lines().count(), 1, "{stderr}");
    let (server, _) = Server::start(dir.path(), &[]);
    assert_eq!(server.login("short").0, 401);
}

#[test]
fn serve_demo_prints_an_admin_password_that_logs_in() {
    let dir = tempfile::tempdir().unwrap();
    let (server, banner) = Server::start(dir.path(), &["--demo"]);
    let line = banner.iter().find(|l| l.contains("Admin dashboard:")).unwrap_or_else(|| panic!("{banner:?}"));
    let password = line.split("shown once: ").nth(1).unwrap().trim_end().trim_end_matches(')');
    assert_eq!(password.len(), 20, "{line}");
    assert!(line.contains(&format!("http://{}/admin", server.addr)), "{line}");
    assert_eq!(server.login(password), (303, Some("/admin".to_owned())));
}

#[test]
fn an_admin_session_outlives_a_restart_of_the_server() {
    let dir = tempfile::tempdir().unwrap();
    let (code, _, stderr) = run_fed(dir.path(), &["admin", "set-password"], b"a long admin secret\n");
    assert_eq!(code, 0, "{stderr}");
    let (server, _) = Server::start(dir.path(), &[]);
    let reply = server.login_reply("a long admin secret");
    let session = header(&reply, "set-cookie").unwrap().split(';').next().unwrap().to_owned();
    assert_eq!(status(&server.request("GET /admin", &session, "")), 200);
    drop(server);

    let (server, _) = Server::start(dir.path(), &[]);
    assert_eq!(status(&server.request("GET /admin", &session, "")), 200, "still logged in");
    assert_eq!(status(&server.request("GET /admin", "rental_admin=forged", "")), 303);
}
