//! Throwaway PostgreSQL clusters for the tests: Debian's server binaries,
//! `initdb` into a temporary directory, one free loopback port, stopped by
//! `pg_ctl stop -m immediate` when dropped (the shared one: when the test
//! process ends, by a watchdog that waits for it).
//!
//! No PostgreSQL is a failure with a message saying how to install it, never a skip.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::OnceLock;
use std::sync::atomic::{AtomicU32, Ordering};

use rental_core::store::PgStore;
use tempfile::TempDir;

/// Where Debian installs the server binaries, one directory per major version.
const DEBIAN_BINARIES: &str = "/usr/lib/postgresql";

/// A running cluster in a temporary directory.
#[derive(Debug)]
pub struct PgCluster {
    dir: TempDir,
    bin: PathBuf,
    port: u16,
    as_root: bool,
    databases: AtomicU32,
    template: OnceLock<String>,
    /// What `postgres` is started with: port, socket directory, settings.
    server: String,
    /// The shared cluster's watchdog (see [`PgCluster::shared`]), which outlives this process by design.
    watchdog: Option<Child>,
}

/// The directory of `initdb`, `pg_ctl` and `postgres`: `RENTAL_PG_BIN`, or the
/// newest version under /usr/lib/postgresql. Panics with how to install it when there is none.
pub fn binaries() -> PathBuf {
    find_binaries().unwrap_or_else(|| {
        panic!(
            "PostgreSQL is not installed: no {DEBIAN_BINARIES}/*/bin/initdb. \
             Run scripts/test (it installs Debian's postgresql package) or `apt-get install postgresql`, \
             or set RENTAL_PG_BIN to the directory of initdb and pg_ctl."
        )
    })
}

/// The directory of `initdb`, `pg_ctl` and `postgres`, if PostgreSQL is installed.
pub fn find_binaries() -> Option<PathBuf> {
    if let Some(dir) = std::env::var_os("RENTAL_PG_BIN") {
        return Some(PathBuf::from(dir));
    }
    let mut found: Vec<(u32, PathBuf)> = std::fs::read_dir(DEBIAN_BINARIES)
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| {
            let version = e.file_name().to_str()?.parse().ok()?;
            let bin = e.path().join("bin");
            bin.join("initdb").exists().then_some((version, bin))
        })
        .collect();
    found.sort();
    found.pop().map(|(_, bin)| bin)
}

impl PgCluster {
    /// Starts a cluster tuned for tests (no fsync: a crash of the machine is not what they test).
    pub fn start() -> Self {
        Self::start_with(&["-c fsync=off", "-c synchronous_commit=off", "-c full_page_writes=off"])
    }

    /// Starts a cluster that makes every commit durable, as a production one does.
    pub fn start_durable() -> Self {
        Self::start_with(&[])
    }

    fn start_with(options: &[&str]) -> Self {
        let bin = binaries();
        let dir = tempfile::tempdir().expect("a temporary directory");
        let as_root = is_root();
        if as_root {
            // initdb refuses to run as root: the cluster belongs to the postgres user.
            set_mode(dir.path(), 0o755);
            run(Command::new("chown").arg("postgres").arg(dir.path()), "chown the cluster directory");
        }
        let port = crate::ports::free_port();
        let mut cluster = PgCluster {
            dir,
            bin,
            port,
            as_root,
            databases: AtomicU32::new(0),
            template: OnceLock::new(),
            server: String::new(),
            watchdog: None,
        };
        let data = cluster.data().display().to_string();
        cluster.run_tool("initdb", &["-D", &data, "-A", "trust", "-U", "postgres", "-E", "UTF8", "--locale=C"]);
        let mut server = format!(
            "-p {port} -k {} -c listen_addresses=127.0.0.1 -c max_connections=300",
            cluster.dir.path().display()
        );
        for option in options {
            server.push(' ');
            server.push_str(option);
        }
        cluster.server = server;
        cluster.restart();
        cluster
    }

    /// The cluster shared by every test of this process, started on first use
    /// and stopped by a watchdog once the process is gone.
    pub fn shared() -> &'static PgCluster {
        static SHARED: OnceLock<PgCluster> = OnceLock::new();
        SHARED.get_or_init(|| {
            let mut cluster = PgCluster::start();
            cluster.stop_when_gone(std::process::id());
            cluster
        })
    }

    /// The URL of database `name`.
    pub fn url(&self, name: &str) -> String {
        format!("postgres://postgres@127.0.0.1:{}/{name}", self.port)
    }

    /// A new empty database (no schema); returns its URL.
    pub fn empty_database(&self) -> String {
        let name = format!("t{}_{}", std::process::id(), self.databases.fetch_add(1, Ordering::SeqCst));
        self.admin(&format!("CREATE DATABASE {name}"));
        self.url(&name)
    }

    /// A new database with the schema in place, copied from a migrated template; returns its URL.
    pub fn database(&self) -> String {
        let template = self.template.get_or_init(|| {
            let url = self.empty_database();
            PgStore::open(&url).expect("the migrations apply to an empty database");
            url.rsplit('/').next().expect("a database name").to_owned()
        });
        let name = format!("t{}_{}", std::process::id(), self.databases.fetch_add(1, Ordering::SeqCst));
        self.admin(&format!("CREATE DATABASE {name} TEMPLATE {template}"));
        self.url(&name)
    }

    /// Runs `sql` as the superuser in database `postgres`.
    pub fn admin(&self, sql: &str) {
        let mut client = postgres::Client::connect(&self.url("postgres"), postgres::NoTls)
            .unwrap_or_else(|e| panic!("cannot connect to the test cluster: {e}\n{}", self.log()));
        client.batch_execute(sql).unwrap_or_else(|e| panic!("{sql}: {e}"));
    }

    /// Stops the server at once (as a crash would); [`PgCluster::restart`] brings it back.
    pub fn stop(&self) {
        let data = self.data().display().to_string();
        self.run_tool("pg_ctl", &["-D", &data, "-m", "immediate", "-w", "stop"]);
    }

    /// Starts the server (again, after [`PgCluster::stop`]) on its port.
    pub fn restart(&self) {
        let data = self.data().display().to_string();
        let log = self.dir.path().join("server.log").display().to_string();
        self.run_tool("pg_ctl", &["-D", &data, "-o", &self.server, "-l", &log, "-w", "-t", "60", "start"]);
    }

    /// The server's log, for failure messages.
    pub fn log(&self) -> String {
        std::fs::read_to_string(self.dir.path().join("server.log")).unwrap_or_default()
    }

    fn data(&self) -> PathBuf {
        self.dir.path().join("data")
    }

    /// Runs one of the server's tools, as the postgres user when this is root.
    fn run_tool(&self, tool: &str, args: &[&str]) {
        let path = self.bin.join(tool);
        let mut command = if self.as_root {
            let mut c = Command::new("runuser");
            c.args(["-u", "postgres", "--"]).arg(&path);
            c
        } else {
            Command::new(&path)
        };
        command.args(args).current_dir(self.dir.path());
        run(&mut command, tool);
    }

    /// Leaves a watchdog that stops the server and removes its directory once `pid` has exited.
    fn stop_when_gone(&mut self, pid: u32) {
        let pg_ctl = self.bin.join("pg_ctl").display().to_string();
        let as_user = if self.as_root { "runuser -u postgres -- " } else { "" };
        let (data, dir) = (self.data().display().to_string(), self.dir.path().display().to_string());
        let script = format!(
            "while kill -0 {pid} 2>/dev/null; do sleep 0.5; done; \
             {as_user}{pg_ctl} -D '{data}' -m immediate stop >/dev/null 2>&1; rm -rf '{dir}'"
        );
        let watchdog = Command::new("sh")
            .args(["-c", &script])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("the cluster's watchdog starts");
        self.watchdog = Some(watchdog);
    }
}

impl Drop for PgCluster {
    fn drop(&mut self) {
        let data = self.data().display().to_string();
        let path = self.bin.join("pg_ctl");
        let mut command = if self.as_root {
            let mut c = Command::new("runuser");
            c.args(["-u", "postgres", "--"]).arg(&path);
            c
        } else {
            Command::new(&path)
        };
        let _ =
            command.args(["-D", &data, "-m", "immediate", "stop"]).stdout(Stdio::null()).stderr(Stdio::null()).status();
    }
}

fn run(command: &mut Command, what: &str) {
    let out = command.output().unwrap_or_else(|e| panic!("cannot run {what}: {e}"));
    assert!(
        out.status.success(),
        "{what} failed: {}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

fn is_root() -> bool {
    let out = Command::new("id").arg("-u").output().expect("id -u runs");
    String::from_utf8_lossy(&out.stdout).trim() == "0"
}

fn set_mode(path: &Path, mode: u32) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).expect("chmod the cluster directory");
}
