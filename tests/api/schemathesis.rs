//! docs/API.md section 19: Schemathesis, with all its phases and checks, finds
//! nothing wrong between `/api/openapi.json` and what a demo server answers.
//!
//! `st` comes from `./scripts/test` (pinned in scripts/test-requirements.txt,
//! installed into target/test-venv); without it this test fails, never skips.
//! Settings are in `schemathesis.toml` next to this file; docs/schemathesis.md
//! says how to run the same by hand.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::Arc;

use rental_core::{MemoryStore, Rental};
use rental_server::ServerConfig;
use rental_tests::fixed_clock;
use rental_tests::http::TestServer;

/// Test cases per operation and phase: enough to reach every rule, bounded
/// so the run takes well under a minute on two shared cores.
const MAX_EXAMPLES: &str = "60";

/// A fixed seed keeps CI reproducible; drop `--seed` by hand to explore.
const SEED: &str = "20261122";

/// `st` on `PATH` (as `./scripts/test` arranges), else the one in target/test-venv;
/// `None` when neither is there (see `rental_tests::tools`).
fn schemathesis() -> Option<PathBuf> {
    let on_path = std::env::var_os("PATH")
        .map(|paths| std::env::split_paths(&paths).map(|dir| dir.join("st")).collect::<Vec<_>>())
        .unwrap_or_default();
    let venv = workspace().join("target/test-venv/bin/st");
    let found = on_path.into_iter().chain([venv]).find(|st| st.is_file());
    if found.is_none() {
        rental_tests::tools::missing(
            "Schemathesis (`st`)",
            "pip install -r scripts/test-requirements.txt into target/test-venv",
        );
    }
    found
}

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("tests/ sits in the workspace").to_path_buf()
}

/// A server on the demo data (three properties, bookings in every status, a
/// block) and a key with both scopes.
async fn demo_server() -> TestServer<MemoryStore> {
    let clock = fixed_clock();
    let rental = Rental::new(MemoryStore::new()).with_clock(clock.clone());
    assert!(rental.seed_demo().expect("the demo data loads"), "the store was empty");
    TestServer::serve(Arc::new(rental), clock, &ServerConfig::default()).await
}

fn run(st: &Path, url: &str, key: &str) -> Output {
    let config = workspace().join("tests/api/schemathesis.toml");
    let report = tempfile::tempdir().expect("a temporary directory");
    Command::new(st)
        .arg("--no-color")
        .arg("--config-file")
        .arg(config)
        .args(["run", url, "--header", &format!("Authorization: Bearer {key}")])
        .args(["--phases", "examples,coverage,fuzzing,stateful", "--checks", "all"])
        // Without a filter, st leaves out the operation that serves the document itself.
        .args(["--include-path-regex", "^/api/"])
        .args(["--max-examples", MAX_EXAMPLES, "--seed", SEED, "--workers", "2"])
        .args(["--output-sanitize", "false"])
        .arg("--report-dir")
        .arg(report.path())
        // st keeps a cache of crashes in `.schemathesis/` under its working directory.
        .current_dir(report.path())
        .output()
        .expect("st runs")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn schemathesis_finds_no_failure_in_any_phase() {
    let Some(st) = schemathesis() else { return };
    let s = demo_server().await;
    let url = format!("http://{}/api/openapi.json", s.addr);
    // The operations under /api/ (the filter below): not /healthz, /readyz and /metrics.
    let operations = rental_server::routes::all().filter(|route| route.path().starts_with("/api/")).count();
    let key = s.key.clone();
    let (out, text) = tokio::task::spawn_blocking(move || {
        let first = run(&st, &url, &key);
        let text = output_text(&first);
        // Once more only when st itself broke and found nothing (CPython's "AST constructor
        // recursion depth mismatch" inside hypothesis, seen once in a few hundred runs).
        if first.status.success() || !only_tool_errors(&text) {
            return (first, text);
        }
        let again = run(&st, &url, &key);
        let text = output_text(&again);
        (again, text)
    })
    .await
    .expect("st finishes");
    assert!(out.status.success(), "Schemathesis found failures:\n{text}");
    assert!(
        text.contains(&format!("Tested: {operations}")),
        "Schemathesis did not test all {operations} operations:\n{text}"
    );
    for phase in ["Examples", "Coverage", "Fuzzing", "Stateful"] {
        assert!(text.contains(&format!("✅ {phase}")), "the {phase} phase did not pass:\n{text}");
    }
    s.stop().await;
}

fn output_text(out: &Output) -> String {
    format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr))
}

/// Whether st's report holds errors of its own (a Python exception inside it,
/// "Runtime Error") and no failure: nothing it found about the server.
fn only_tool_errors(text: &str) -> bool {
    text.contains("Runtime Error") && !text.contains("= FAILURES =") && !text.contains("Network Error")
}

#[test]
fn only_a_report_of_st_breaking_and_finding_nothing_is_run_again() {
    let broke = "==== ERRORS ====\n____ GET /api/v1/calendar/{slug}.ics ____\nRuntime Error\n\nAST constructor recursion depth mismatch";
    assert!(only_tool_errors(broke));
    let found = format!("==== FAILURES ====\n____ GET /api/v1/properties ____\nServer error\n{broke}");
    assert!(!only_tool_errors(&found), "a failure about the server is never run again");
    assert!(!only_tool_errors("==== ERRORS ====\nNetwork Error\nConnection refused"));
}
