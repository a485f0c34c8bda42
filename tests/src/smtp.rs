//! A real mail server for the guest-message tests: `tests/smtp/smtp_server.py`
//! (aiosmtpd) on 127.0.0.1, with STARTTLS on a throwaway CA's certificate and
//! AUTH (`rental` / `s3cret`), writing each message it accepts as a JSON line
//! that [`SmtpServer::received`] reads back, headers and parts parsed by
//! Python's `email` package, a reader that is not ours.
//!
//! [`SmtpServer::script`] makes it refuse (`451`, `550`) or hang (`hang 5`)
//! at the next DATA commands; [`SmtpServer::stop`] and [`SmtpServer::restart`]
//! take it away and bring it back on the same port.

use std::io::BufRead;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;
use tempfile::TempDir;

/// The account the server accepts.
pub const USER: &str = "rental";
/// Its password.
pub const PASSWORD: &str = "s3cret";

/// One message the server accepted.
#[derive(Debug, Clone)]
pub struct Received {
    /// The envelope's recipients.
    pub rcpt_tos: Vec<String>,
    /// Every header in order, duplicates kept, as `(name, value)` (values decoded).
    pub headers: Vec<(String, String)>,
    /// The top-level content type.
    pub content_type: String,
    /// The `text/plain` part.
    pub text: Option<String>,
    /// The `text/html` part.
    pub html: Option<String>,
    /// The message as it came over the wire.
    pub raw: String,
    /// Sent after STARTTLS.
    pub tls: bool,
    /// Sent after a successful AUTH.
    pub authenticated: bool,
}

impl Received {
    /// The values of every header called `name` (any case).
    pub fn all(&self, name: &str) -> Vec<&str> {
        self.headers.iter().filter(|(n, _)| n.eq_ignore_ascii_case(name)).map(|(_, v)| v.as_str()).collect()
    }

    /// The one value of header `name`; panics when it is missing or repeated.
    pub fn header(&self, name: &str) -> &str {
        match self.all(name).as_slice() {
            [one] => one,
            other => panic!("header {name}: {other:?} in {:?}", self.headers),
        }
    }

    fn from_json(v: &Value) -> Self {
        let strings =
            |v: &Value| v.as_array().into_iter().flatten().filter_map(Value::as_str).map(str::to_owned).collect();
        let headers = v["headers"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|pair| {
                (pair[0].as_str().unwrap_or_default().to_owned(), pair[1].as_str().unwrap_or_default().to_owned())
            })
            .collect();
        Received {
            rcpt_tos: strings(&v["rcptTos"]),
            headers,
            content_type: v["contentType"].as_str().unwrap_or_default().to_owned(),
            text: v["text"].as_str().map(str::to_owned),
            html: v["html"].as_str().map(str::to_owned),
            raw: v["raw"].as_str().unwrap_or_default().to_owned(),
            tls: v["tls"].as_bool().unwrap_or(false),
            authenticated: v["authenticated"].as_bool().unwrap_or(false),
        }
    }
}

/// A running aiosmtpd and its directory.
#[derive(Debug)]
pub struct SmtpServer {
    dir: TempDir,
    child: Option<Child>,
    plain: bool,
    /// The port it listens on (kept across [`SmtpServer::restart`]).
    pub port: u16,
}

impl SmtpServer {
    /// Starts one with STARTTLS and AUTH required; `None` (after
    /// [`crate::tools::missing`]) when aiosmtpd or openssl is not installed.
    pub fn start() -> Option<SmtpServer> {
        Self::start_with(false)
    }

    /// Starts one that speaks plain SMTP without AUTH (a local relay).
    pub fn start_plain() -> Option<SmtpServer> {
        Self::start_with(true)
    }

    fn start_with(plain: bool) -> Option<SmtpServer> {
        if !crate::tools::python_modules("aiosmtpd") {
            return None;
        }
        let dir = tempfile::tempdir().expect("a temporary directory");
        let child = spawn(dir.path(), plain, 0);
        let port = wait_for_port(dir.path());
        Some(SmtpServer { dir, child: Some(child), plain, port })
    }

    /// The `smtp` setting for it: STARTTLS required with the account, or plain.
    pub fn url(&self) -> String {
        if self.plain {
            format!("smtp://127.0.0.1:{}", self.port)
        } else {
            format!("smtp://{USER}:{PASSWORD}@127.0.0.1:{}?tls=required", self.port)
        }
    }

    /// The throwaway CA that signed its certificate, as PEM.
    pub fn ca_pem(&self) -> Vec<u8> {
        std::fs::read(self.dir.path().join("ca.pem")).expect("the CA certificate")
    }

    /// The CA's file.
    pub fn ca_file(&self) -> PathBuf {
        self.dir.path().join("ca.pem")
    }

    /// Scripts the answers to the next DATA commands (`451`, `550`, `hang 5`), then 250.
    pub fn script(&self, replies: &[&str]) {
        let text: String = replies.iter().flat_map(|r| [r, "\n"]).collect();
        std::fs::write(self.dir.path().join("replies"), text).expect("the replies file");
    }

    /// Every message accepted so far, in order.
    pub fn received(&self) -> Vec<Received> {
        let Ok(file) = std::fs::File::open(self.dir.path().join("received.jsonl")) else { return Vec::new() };
        std::io::BufReader::new(file)
            .lines()
            .map_while(Result::ok)
            .filter_map(|line| serde_json::from_str::<Value>(&line).ok())
            .map(|v| Received::from_json(&v))
            .collect()
    }

    /// How many messages were accepted so far (lines counted, nothing parsed: cheap to poll).
    pub fn received_count(&self) -> usize {
        std::fs::read(self.dir.path().join("received.jsonl")).map_or(0, |b| String::from_utf8_lossy(&b).lines().count())
    }

    /// Waits until at least `n` messages were accepted (at most `within`); returns them all.
    pub async fn wait_for(&self, n: usize, within: Duration) -> Vec<Received> {
        let until = Instant::now() + within;
        loop {
            let got = self.received();
            if got.len() >= n {
                return got;
            }
            assert!(Instant::now() < until, "{} of {n} messages arrived within {within:?}: {got:#?}", got.len());
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }

    /// Waits until a `hang` reply has begun (the client is waiting for the answer to its DATA);
    /// returns the message being held.
    pub async fn wait_hanging(&self, within: Duration) -> String {
        let until = Instant::now() + within;
        loop {
            if let Ok(text) = std::fs::read_to_string(self.dir.path().join("hanging")) {
                return text;
            }
            assert!(Instant::now() < until, "no DATA was held within {within:?}");
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }

    /// Stops it; connections are refused until [`SmtpServer::restart`].
    pub fn stop(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
        let _ = std::fs::remove_file(self.dir.path().join("port"));
    }

    /// Starts it again on the same port, with the same certificate and received messages.
    pub fn restart(&mut self) {
        self.stop();
        self.child = Some(spawn(self.dir.path(), self.plain, self.port));
        wait_for_port(self.dir.path());
    }
}

impl Drop for SmtpServer {
    fn drop(&mut self) {
        self.stop();
    }
}

fn spawn(dir: &Path, plain: bool, port: u16) -> Child {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("smtp/smtp_server.py");
    let mut command = Command::new("python3");
    // aiosmtpd warns of its own deprecations on every AUTH: not the test's business.
    command.args(["-W", "ignore"]).arg(script).arg(dir).args(["--port", &port.to_string()]);
    if plain {
        command.arg("--plain");
    }
    command.stdin(Stdio::piped()).stdout(Stdio::null()).stderr(Stdio::inherit());
    command.spawn().expect("python3 starts the SMTP server")
}

fn wait_for_port(dir: &Path) -> u16 {
    let until = Instant::now() + Duration::from_secs(30);
    loop {
        if let Some(port) = std::fs::read_to_string(dir.join("port")).ok().and_then(|p| p.trim().parse().ok()) {
            return port;
        }
        assert!(Instant::now() < until, "the SMTP server did not start within 30 s");
        std::thread::sleep(Duration::from_millis(20));
    }
}
