//! The programs some tests need besides cargo (PostgreSQL, chromium, Python
//! packages, Home Assistant, Prometheus, systemd-analyze), and what a test does when one is missing.
//!
//! `./scripts/test` installs them all and sets [`REQUIRE_ENV`]: there, a
//! missing tool fails its test, so CI never passes by skipping. A plain
//! `cargo test` on a machine without them skips those tests instead, each
//! printing `SKIPPED:` with what is missing and how to get it.

use std::path::Path;
use std::process::Command;

/// Set (to anything but `0`) by `./scripts/test`: a missing tool is a failure.
pub const REQUIRE_ENV: &str = "RENTAL_TEST_REQUIRE_TOOLS";

/// Reports that `what` is missing: panics with `how` when tools are
/// required, else prints that the test is skipped. The caller then returns.
pub fn missing(what: &str, how: &str) {
    let required = std::env::var_os(REQUIRE_ENV).is_some_and(|v| v != "0");
    assert!(!required, "{what} is missing: {how}");
    eprintln!("SKIPPED: {what} is missing ({how}; ./scripts/test installs it)");
}

/// True when PostgreSQL's server binaries are installed; else see [`missing`].
pub fn postgres() -> bool {
    let found = crate::postgres::find_binaries().is_some();
    if !found {
        missing(
            "PostgreSQL (initdb, pg_ctl)",
            "apt-get install postgresql, or set RENTAL_PG_BIN to the directory of initdb",
        );
    }
    found
}

/// True when Debian's chromium and chromedriver are installed; else see [`missing`].
pub fn chromium() -> bool {
    let found = ["/usr/bin/chromium", "/usr/bin/chromedriver"].iter().all(|tool| Path::new(tool).exists());
    if !found {
        missing("chromium and chromedriver", "apt-get install chromium chromium-driver");
    }
    found
}

/// True when `python3` can import every module in `modules`; else see [`missing`].
pub fn python_modules(modules: &str) -> bool {
    let probe = Command::new("python3").args(["-c", &format!("import {modules}")]).output();
    let found = probe.is_ok_and(|out| out.status.success());
    if !found {
        missing(
            &format!("the Python modules {modules}"),
            "pip install -r scripts/test-requirements.txt (into target/test-venv, first on PATH)",
        );
    }
    found
}

/// True when `program` runs from `PATH` (`program --version` starts); else see [`missing`] with `how`.
pub fn program(program: &str, how: &str) -> bool {
    let found = Command::new(program).arg("--version").output().is_ok();
    if !found {
        missing(program, how);
    }
    found
}

/// True when Debian's Prometheus server and `promtool` are installed; else see [`missing`].
pub fn prometheus() -> bool {
    program("prometheus", "apt-get install prometheus") && program("promtool", "apt-get install prometheus")
}

/// True when `systemd-analyze` is installed; else see [`missing`].
pub fn systemd_analyze() -> bool {
    program("systemd-analyze", "apt-get install systemd")
}
