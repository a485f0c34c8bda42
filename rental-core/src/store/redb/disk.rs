//! The files under the redb store (redb's file, the redo log, their directory) behind
//! a small trait: production uses `std::fs`, the power-loss tests a simulated disk.

use std::fmt::Debug;
use std::fs::{File, OpenOptions};
use std::io::{self, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use redb::{Builder, Database, DatabaseError};

use super::backend;
use crate::store::{StoreError, StoreResult};

/// A sync of redb's file, shared with the flusher's thread.
pub(crate) type Syncer = Arc<dyn Fn() -> io::Result<()> + Send + Sync>;

/// Where the store keeps its two files.
pub(crate) trait Disk: Send + Sync + Debug {
    /// Opens (or creates) redb's file with `builder`. A new file is made
    /// whole under another name and renamed into place: redb writes a new
    /// file's header in two syncs, and a file cut between them does not open.
    fn open_db(&self, builder: &Builder) -> StoreResult<Database>;
    /// Opens (or creates) the redo log.
    fn open_log(&self) -> io::Result<Box<dyn LogFile>>;
    /// Something that syncs redb's file, for the flusher.
    fn db_syncer(&self) -> io::Result<Syncer>;
    /// Syncs the directory holding both files, so that their names survive a power loss.
    fn sync_dir(&self) -> io::Result<()>;
    /// Whether a test removed this sync from the code (see [`SyncPoint`]).
    #[cfg(test)]
    fn removed(&self, _sync: SyncPoint) -> bool {
        false
    }
    /// redb's page cache: a small one makes redb write pages between checkpoints.
    #[cfg(test)]
    fn cache_bytes(&self) -> usize {
        super::CACHE_BYTES
    }
}

/// The redo log's file.
pub(crate) trait LogFile: Send + Debug {
    /// The whole file.
    fn read_all(&mut self) -> io::Result<Vec<u8>>;
    /// Writes `bytes` at `at`, growing the file if needed.
    fn write_at(&mut self, at: u64, bytes: &[u8]) -> io::Result<()>;
    /// `fdatasync`: the data, and the length when it changed.
    fn sync_data(&mut self) -> io::Result<()>;
    /// `fsync`: the data and all metadata.
    fn sync_all(&mut self) -> io::Result<()>;
    /// Whether a test removed this sync from the code (see [`SyncPoint`]).
    #[cfg(test)]
    fn removed(&self, _sync: SyncPoint) -> bool {
        false
    }
}

/// Every sync (and the flusher's error latch) that the log's promise rests
/// on, each of which a test removes in turn (docs/DESIGN.md, "The power-loss harness").
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(not(test), allow(dead_code))]
pub(crate) enum SyncPoint {
    /// The `fdatasync` of a record before its commit returns.
    Record,
    /// The sync of the zeros that take back a record whose redb commit failed.
    TakeBack,
    /// The directory's sync after opening (and perhaps creating) the files.
    Dir,
    /// The checkpoint's durable redb commit (removed: a commit without durability).
    Checkpoint,
    /// The flusher's latch of a failed sync (removed: the error is dropped).
    FlusherLatch,
}

/// Refuses a store file that is a symbolic link: a data directory prepared
/// by someone else must not make a restore or a start write through it.
fn refuse_link(path: &Path) -> io::Result<()> {
    match std::fs::symlink_metadata(path) {
        Ok(meta) if meta.file_type().is_symlink() => Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("{} is a symbolic link; rental opens only files of its own", path.display()),
        )),
        _ => Ok(()),
    }
}

/// The real file system: `path` is redb's file, the log is beside it.
#[derive(Debug)]
pub(crate) struct OsDisk {
    path: PathBuf,
}

impl OsDisk {
    /// The files at `path` and beside it.
    pub(crate) fn new(path: &Path) -> Self {
        OsDisk { path: path.to_owned() }
    }
}

impl Disk for OsDisk {
    fn open_db(&self, builder: &Builder) -> StoreResult<Database> {
        refuse_link(&self.path).map_err(backend)?;
        if !self.path.exists() {
            let fresh = with_suffix(&self.path, ".new");
            // Never a store's: a creation that was cut short, or nothing.
            if fresh.exists() {
                std::fs::remove_file(&fresh).map_err(backend)?;
            }
            drop(builder.create(&fresh).map_err(opening)?);
            std::fs::rename(&fresh, &self.path).map_err(backend)?;
            sync_dir_of(&self.path).map_err(backend)?;
        }
        builder.create(&self.path).map_err(opening)
    }

    fn open_log(&self) -> io::Result<Box<dyn LogFile>> {
        let path = with_suffix(&self.path, ".redo");
        refuse_link(&path)?;
        let file = OpenOptions::new().read(true).write(true).create(true).truncate(false).open(path)?;
        Ok(Box::new(file))
    }

    fn db_syncer(&self) -> io::Result<Syncer> {
        let file = File::open(&self.path)?;
        Ok(Arc::new(move || file.sync_data()))
    }

    fn sync_dir(&self) -> io::Result<()> {
        sync_dir_of(&self.path)
    }
}

/// `path` with `suffix` added to its name.
pub(crate) fn with_suffix(path: &Path, suffix: &str) -> PathBuf {
    let mut name = path.as_os_str().to_owned();
    name.push(suffix);
    PathBuf::from(name)
}

/// What a failed open of redb's file means for the store.
pub(crate) fn opening(e: DatabaseError) -> StoreError {
    match e {
        DatabaseError::DatabaseAlreadyOpen => StoreError::Locked,
        other => backend(other),
    }
}

/// Syncs the directory that holds `path`, so that a name created in it survives a power loss.
pub(crate) fn sync_dir_of(path: &Path) -> io::Result<()> {
    let dir = match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir,
        _ => Path::new("."),
    };
    File::open(dir)?.sync_all()
}

impl LogFile for File {
    fn read_all(&mut self) -> io::Result<Vec<u8>> {
        let mut bytes = Vec::new();
        self.seek(SeekFrom::Start(0))?;
        self.read_to_end(&mut bytes)?;
        Ok(bytes)
    }

    fn write_at(&mut self, at: u64, bytes: &[u8]) -> io::Result<()> {
        self.seek(SeekFrom::Start(at))?;
        self.write_all(bytes)
    }

    fn sync_data(&mut self) -> io::Result<()> {
        File::sync_data(self)
    }

    fn sync_all(&mut self) -> io::Result<()> {
        File::sync_all(self)
    }
}
