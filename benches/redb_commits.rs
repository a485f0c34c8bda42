//! The raw redb commit loop that `benches/growth.sh` compares durable HTTP
//! bookings with: one writer, one write transaction per row, each inserting
//! one `u64` -> 500-byte value into one table and committing with redb's
//! default durability (`Immediate`: one `fdatasync` per commit). The same
//! shape as the criterion bench's raw commit (`benches/core.rs`).
//!
//! Usage: `redb-commits DIR [SECONDS]` (default 5 s). Creates a fresh
//! `redb-commits.redb` in `DIR` (so it runs on the same filesystem as the
//! server's store), removes it at the end, and prints one line:
//! `RESULT commits_per_s=N commits=N seconds=S`.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use redb::{Database, TableDefinition};

const ROWS: TableDefinition<u64, &[u8]> = TableDefinition::new("rows");

fn main() -> ExitCode {
    let mut args = std::env::args().skip(1);
    let Some(dir) = args.next().map(PathBuf::from) else {
        eprintln!("usage: redb-commits DIR [SECONDS]");
        return ExitCode::from(2);
    };
    let seconds: f64 = match args.next().map(|s| s.parse()) {
        None => 5.0,
        Some(Ok(s)) if s > 0.0 => s,
        Some(_) => {
            eprintln!("SECONDS must be a positive number");
            return ExitCode::from(2);
        }
    };
    match run(&dir, Duration::from_secs_f64(seconds)) {
        Ok((commits, elapsed)) => {
            let secs = elapsed.as_secs_f64();
            println!("RESULT commits_per_s={:.0} commits={commits} seconds={secs:.2}", f64::from(commits) / secs);
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("redb-commits: {e}");
            ExitCode::FAILURE
        }
    }
}

fn run(dir: &std::path::Path, length: Duration) -> Result<(u32, Duration), Box<dyn std::error::Error>> {
    let path = dir.join("redb-commits.redb");
    let _ = std::fs::remove_file(&path);
    let db = Database::create(&path)?;
    let value = [7u8; 500];
    let start = Instant::now();
    let mut commits = 0u32;
    while start.elapsed() < length {
        let tx = db.begin_write()?;
        tx.open_table(ROWS)?.insert(u64::from(commits), value.as_slice())?;
        tx.commit()?;
        commits += 1;
    }
    let elapsed = start.elapsed();
    drop(db);
    std::fs::remove_file(&path)?;
    Ok((commits, elapsed))
}
