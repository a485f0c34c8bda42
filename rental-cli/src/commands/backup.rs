//! `rental backup --to FILE` and `rental restore FILE` (docs/API.md section 22):
//! one checked file of the whole store, from a stopped data directory, a
//! PostgreSQL database or a running server (`--url`, a `backup` key), and back
//! into an empty data directory or database, whichever store it came from.

use std::io::{BufRead, Write};
use std::path::{Path, PathBuf};

use clap::Args;
use rental_core::backup::{self, Backup, BackupError, Counts};
use rental_core::store::{PgStore, Store};
use rental_core::{RedbStore, StoreError};

use super::sealed;
use crate::config::Config;
use crate::engine::with_engine;
use crate::error::CliError;
use crate::remote::{Remote, RemoteArgs};

/// The largest backup fetched from a server.
const MAX_REMOTE_BACKUP: usize = 4 * 1024 * 1024 * 1024;

/// Arguments of `rental backup`.
#[derive(Debug, Args)]
#[command(after_help = "The file holds every record (API key hashes, webhook secrets, feed URLs with
their tokens, door codes, guests' names and e-mails, the admin password hash):
it is written readable by its owner only. With --passphrase-file it is also
sealed (encrypted and authenticated, ChaCha20-Poly1305 under an argon2id key):
a copy kept elsewhere can be neither read nor changed without the passphrase.
A server goes on serving while its backup is taken.

Examples:
  rental backup --to rental.backup                          # a stopped data directory
  rental backup --to rental.backup --database postgres://rental@db/rental
  rental backup --to rental.backup --url http://127.0.0.1:8080 --api-key rk_...   # a key with the backup scope
  rental backup --to rental.backup --passphrase-file /etc/rental/backup-passphrase")]
pub struct BackupArgs {
    /// Write the backup to FILE (replaced only once the whole backup is written)
    #[arg(long, value_name = "FILE")]
    pub to: PathBuf,
    /// Seal the file under the passphrase on the first line of PASSFILE (12 characters or more)
    #[arg(long, value_name = "PASSFILE")]
    pub passphrase_file: Option<PathBuf>,
    #[command(flatten)]
    pub remote: RemoteArgs,
}

/// Arguments of `rental restore`.
#[derive(Debug, Args)]
#[command(after_help = "The target must be empty: a new data directory (--data-dir), or a new
PostgreSQL database (--database). The whole file is checked first; a file cut
short or changed is refused and nothing is written. The counts are checked after.
A sealed file needs --passphrase-file; with it, a file that is not sealed is
refused (a plain file's checksum finds damage, not a change made on purpose).

Examples:
  rental restore rental.backup --data-dir /var/lib/rental-new
  rental restore rental.backup --database postgres://rental@db/rental_new
  rental restore rental.backup --data-dir /var/lib/rental-new --passphrase-file /etc/rental/backup-passphrase")]
pub struct RestoreArgs {
    /// The backup file
    #[arg(value_name = "FILE")]
    pub file: PathBuf,
    /// Open a sealed file with the passphrase on the first line of PASSFILE; refuse a plain one
    #[arg(long, value_name = "PASSFILE")]
    pub passphrase_file: Option<PathBuf>,
}

/// `rental backup` on the local store (a data directory no server holds, or the database).
pub fn run(args: &BackupArgs, config: &Config) -> Result<String, CliError> {
    let counts = match passphrase(args.passphrase_file.as_deref())? {
        None => with_engine!(config, |engine| write_file(&args.to, None, |out| engine.backup(out).map(|_| ()))?),
        Some(passphrase) => {
            let mut plain = Vec::new();
            let counts = with_engine!(config, |engine| engine.backup(&mut plain).map_err(failed)?);
            write_sealed(&args.to, &plain, &passphrase)?;
            counts
        }
    };
    Ok(summary("backed up", &args.to, &counts))
}

/// `rental backup --url`: the running server's backup, checked whole before it is kept.
pub fn run_remote(args: &BackupArgs, remote: &Remote) -> Result<String, CliError> {
    let bytes = remote
        .clone()
        .with_timeout(std::time::Duration::from_secs(3600))
        .get_bytes("/api/v1/backup", MAX_REMOTE_BACKUP)?;
    let checked = backup::read(&bytes).map_err(failed)?;
    match passphrase(args.passphrase_file.as_deref())? {
        None => write_file(&args.to, None, |out| out.write_all(&bytes).map_err(BackupError::Io))?,
        Some(passphrase) => write_sealed(&args.to, &bytes, &passphrase)?,
    };
    Ok(summary("backed up", &args.to, &checked.counts))
}

/// `rental restore FILE` into the configured store, which must be empty. A
/// plain file is checked as it is read, then read again as it is restored
/// (constant memory, whatever its size); a sealed one is opened whole (its
/// seal authenticates the whole file at once).
pub fn restore(args: &RestoreArgs, config: &Config) -> Result<String, CliError> {
    let refused = |message: String| CliError::Input { path: args.file.clone(), message };
    let open = || {
        std::fs::File::open(&args.file)
            .map(|f| std::io::BufReader::with_capacity(1 << 16, f))
            .map_err(|e| refused(format!("cannot read it: {e}")))
    };
    let mut first = Vec::new();
    open()?.read_until(b'\n', &mut first).map_err(|e| refused(format!("cannot read it: {e}")))?;
    let source = match (passphrase(args.passphrase_file.as_deref())?, sealed::is_sealed(&first)) {
        (Some(passphrase), true) => {
            let bytes = std::fs::read(&args.file).map_err(|e| refused(format!("cannot read it: {e}")))?;
            let bytes = sealed::open(&bytes, &passphrase).map_err(|e| refused(e.to_string()))?;
            Source::Whole(backup::read(&bytes).map_err(|e| refused(e.to_string()))?)
        }
        (None, true) => return Err(refused("it is sealed: give its passphrase with --passphrase-file".into())),
        (Some(_), false) => {
            return Err(refused(
                "it is not sealed, so nothing shows it unchanged: refused with --passphrase-file".into(),
            ));
        }
        (None, false) => {
            backup::check(open()?).map_err(|e| refused(e.to_string()))?;
            Source::Streamed(open()?)
        }
    };
    let counts = if let Some(url) = &config.database {
        into(&PgStore::open(url)?, source)?
    } else {
        let busy = |e: StoreError| match e {
            StoreError::Locked => CliError::Busy { data_dir: config.data_dir.clone() },
            other => other.into(),
        };
        // Refused before the store is opened for writing: a store that is not empty stays as it was, byte for byte.
        if let Some(held) = RedbStore::held_in_dir(&config.data_dir).map_err(busy)? {
            return Err(failed(BackupError::NotEmpty(held.to_owned())));
        }
        into(&RedbStore::open_dir(&config.data_dir).map_err(busy)?, source)?
    };
    Ok(summary("restored", &args.file, &counts))
}

/// A checked backup to restore: read whole (a sealed file), or to be read again as it is written.
enum Source {
    Whole(Backup),
    Streamed(std::io::BufReader<std::fs::File>),
}

/// The passphrase on the first line of `file`, when one is given.
fn passphrase(file: Option<&Path>) -> Result<Option<String>, CliError> {
    let Some(file) = file else { return Ok(None) };
    let text = std::fs::read_to_string(file)
        .map_err(|e| CliError::Input { path: file.to_owned(), message: format!("cannot read it: {e}") })?;
    let line = text.lines().next().unwrap_or_default().to_owned();
    if line.chars().count() < sealed::MIN_PASSPHRASE {
        let message = format!("its first line must be a passphrase of {} characters or more", sealed::MIN_PASSPHRASE);
        return Err(CliError::Input { path: file.to_owned(), message });
    }
    Ok(Some(line))
}

/// `plain` sealed under `passphrase`, written as [`write_file`] writes.
fn write_sealed(path: &Path, plain: &[u8], passphrase: &str) -> Result<Counts, CliError> {
    let sealed = sealed::seal(plain, passphrase)
        .map_err(|e| CliError::Input { path: path.to_owned(), message: e.to_string() })?;
    write_file(path, Some(passphrase), |out| out.write_all(&sealed).map_err(BackupError::Io))
}

fn into(store: &impl Store, source: Source) -> Result<Counts, CliError> {
    match source {
        Source::Whole(checked) => backup::restore(store, &checked),
        Source::Streamed(file) => backup::restore_from(store, file),
    }
    .map_err(failed)
}

/// Writes `FILE.partial` (owner-only), syncs it, checks it, then renames it to `path`
/// and syncs the directory: a failed backup never leaves a file that looks whole.
fn write_file(
    path: &Path,
    sealed_with: Option<&str>,
    fill: impl FnOnce(&mut std::io::BufWriter<std::fs::File>) -> Result<(), BackupError>,
) -> Result<Counts, CliError> {
    let partial = crate::durable::partial(path);
    let failed_io =
        |e: std::io::Error| CliError::Input { path: path.to_owned(), message: format!("cannot write the backup: {e}") };
    let mut out = std::io::BufWriter::new(crate::durable::create_private(&partial).map_err(failed_io)?);
    let written = fill(&mut out).map_err(failed).and_then(|()| {
        let written = out.into_inner().map_err(|e| failed_io(e.into_error()))?;
        written.sync_all().map_err(failed_io)
    });
    if let Err(e) = written {
        let _ = std::fs::remove_file(&partial);
        return Err(e);
    }
    // Read back and checked: what is kept restores. A plain file is checked as it is read (constant memory).
    let counts = if let Some(passphrase) = sealed_with {
        let bytes = std::fs::read(&partial).map_err(failed_io)?;
        let bytes = sealed::open(&bytes, passphrase).map_err(|e| failed_io(std::io::Error::other(e)))?;
        backup::read(&bytes).map_err(failed)?.counts
    } else {
        let written = std::fs::File::open(&partial).map_err(failed_io)?;
        backup::check(std::io::BufReader::with_capacity(1 << 16, written)).map_err(failed)?.counts
    };
    crate::durable::commit(&partial, path).map_err(failed_io)?;
    Ok(counts)
}

fn failed(e: BackupError) -> CliError {
    match e {
        BackupError::Store(e) => e.into(),
        other => CliError::Backup(other.to_string()),
    }
}

fn summary(done: &str, file: &Path, counts: &Counts) -> String {
    let lines: Vec<String> = counts.iter().map(|(kind, n)| format!("{kind:<14} {n:>8}")).collect();
    format!("{done} {}; every count matches:\n{}\n", file.display(), lines.join("\n"))
}
