//! A simulated disk for the power-loss tests: each file's synced bytes plus the writes
//! since its last sync, of which a power loss keeps a random part, torn at 512 bytes.

use std::io;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use redb::{Builder, Database, StorageBackend};

use super::backend;
use super::disk::{Disk, LogFile, SyncPoint, Syncer, opening};
use crate::store::StoreResult;

/// redb's page cache on this disk: small, so that redb writes pages into
/// its file between checkpoints, as it does on a grown store.
const CACHE_BYTES: usize = 128 * 1024;

/// The size of the pieces a write may be torn into.
const SECTOR: u64 = 512;

/// Which of the store's two files.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum FileId {
    /// redb's file.
    Db,
    /// The redo log.
    Log,
    /// A new redb file, before it is renamed into place.
    Fresh,
}

/// A small seeded random source (splitmix64): the same seed, the same crash.
#[derive(Debug, Clone)]
pub(super) struct Rng(u64);

impl Rng {
    pub(super) fn new(seed: u64) -> Self {
        Rng(seed)
    }

    pub(super) fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A number below `n` (which is above 0).
    pub(super) fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }

    pub(super) fn coin(&mut self) -> bool {
        self.next() & 1 == 1
    }
}

#[derive(Debug)]
enum Op {
    Write(u64, Vec<u8>),
    SetLen(u64),
}

#[derive(Debug, Default)]
struct File {
    exists: bool,
    /// Whether the file's name survives a power loss (its directory was synced since it was created).
    named: bool,
    durable: Vec<u8>,
    /// What reads see: the durable bytes with the pending writes done.
    current: Vec<u8>,
    pending: Vec<Op>,
    fail_next_sync: bool,
}

fn apply(bytes: &mut Vec<u8>, op: &Op) {
    match op {
        Op::Write(at, data) => {
            let at = usize::try_from(*at).expect("small files");
            if bytes.len() < at + data.len() {
                bytes.resize(at + data.len(), 0);
            }
            bytes[at..at + data.len()].copy_from_slice(data);
        }
        Op::SetLen(len) => bytes.resize(usize::try_from(*len).expect("small files"), 0),
    }
}

impl File {
    fn create(&mut self) {
        if !self.exists {
            *self = File { exists: true, ..File::default() };
        }
    }

    fn sync(&mut self) -> io::Result<()> {
        let ops = std::mem::take(&mut self.pending);
        if std::mem::take(&mut self.fail_next_sync) {
            return Err(io::Error::other("simulated EIO: the pending writes are dropped"));
        }
        for op in &ops {
            apply(&mut self.durable, op);
        }
        Ok(())
    }

    /// Keeps the durable bytes and a random part of the pending writes.
    fn lose_power(&mut self, rng: &mut Rng) {
        for op in std::mem::take(&mut self.pending) {
            match op {
                Op::Write(at, data) => {
                    let mut from = at;
                    let end = at + data.len() as u64;
                    while from < end {
                        let to = ((from / SECTOR + 1) * SECTOR).min(end);
                        if rng.coin() {
                            let piece = &data
                                [usize::try_from(from - at).expect("small")..usize::try_from(to - at).expect("small")];
                            apply(&mut self.durable, &Op::Write(from, piece.to_vec()));
                        }
                        from = to;
                    }
                }
                Op::SetLen(_) if rng.coin() => apply(&mut self.durable, &op),
                Op::SetLen(_) => {}
            }
        }
        if !self.named && rng.coin() {
            *self = File::default();
        }
        self.current = self.durable.clone();
        self.fail_next_sync = false;
    }
}

#[derive(Debug, Default)]
struct State {
    files: [File; 3],
    /// Syncs left before the power goes (`None`: it stays on).
    syncs_left: Option<u64>,
    /// Whether the power is off: writes and syncs fail, and nothing reaches the disk.
    off: bool,
    syncs: u64,
    removed: Option<SyncPoint>,
    /// A file whose writes fail (EIO) until the power goes.
    failing: Option<FileId>,
}

impl State {
    fn file(&mut self, id: FileId) -> &mut File {
        &mut self.files[id as usize]
    }

    fn check_power(&self) -> io::Result<()> {
        if self.off { Err(io::Error::other("simulated power cut")) } else { Ok(()) }
    }

    fn write(&mut self, id: FileId, at: u64, data: &[u8]) -> io::Result<()> {
        self.check_power()?;
        if self.failing == Some(id) {
            return Err(io::Error::other("simulated EIO on write"));
        }
        let op = Op::Write(at, data.to_vec());
        let file = self.file(id);
        apply(&mut file.current, &op);
        file.pending.push(op);
        Ok(())
    }

    fn sync(&mut self, id: FileId) -> io::Result<()> {
        self.check_power()?;
        self.syncs += 1;
        let result = self.file(id).sync();
        if let Some(left) = self.syncs_left.as_mut() {
            *left = left.saturating_sub(1);
            self.off = *left == 0;
        }
        result
    }
}

/// It models what Linux and a disk promise and no more: a sync makes a file's
/// writes (and its length) durable; a new file's name is durable once its
/// directory is synced; a failed sync drops the writes it was to make
/// durable (the kernel marks the pages clean) while reads still see them.
///
/// The disk, shared by every handle on it.
#[derive(Debug, Clone, Default)]
pub(super) struct SimDisk(Arc<Mutex<State>>);

impl SimDisk {
    fn state(&self) -> MutexGuard<'_, State> {
        self.0.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Makes the next sync of `file` fail with EIO, dropping its pending writes.
    pub(super) fn fail_next_sync(&self, file: FileId) {
        self.state().file(file).fail_next_sync = true;
    }

    /// Makes every write to `file` fail with EIO until the power goes.
    pub(super) fn fail_writes(&self, file: FileId) {
        self.state().failing = Some(file);
    }

    /// Cuts the power right after the `n`th sync from now (every write and
    /// sync after it fails, and reaches nothing).
    pub(super) fn cut_after_syncs(&self, n: u64) {
        let mut state = self.state();
        state.syncs_left = Some(n.max(1));
    }

    /// Cuts the power now.
    pub(super) fn cut(&self) {
        self.state().off = true;
    }

    /// How many syncs the disk has done.
    pub(super) fn syncs(&self) -> u64 {
        self.state().syncs
    }

    /// Removes one sync from the store's code (see [`SyncPoint`]).
    pub(super) fn remove(&self, point: SyncPoint) {
        self.state().removed = Some(point);
    }

    /// What the disk holds when the power comes back: the durable bytes and a
    /// random part of the pending writes, chosen by `seed`. The power is on again.
    pub(super) fn lose_power(&self, seed: u64) {
        let mut rng = Rng::new(seed);
        let mut state = self.state();
        for file in &mut state.files {
            file.lose_power(&mut rng);
        }
        state.off = false;
        state.syncs_left = None;
        state.failing = None;
    }
}

impl Disk for SimDisk {
    fn open_db(&self, builder: &Builder) -> StoreResult<Database> {
        if !self.state().file(FileId::Db).exists {
            *self.state().file(FileId::Fresh) = File { exists: true, ..File::default() };
            drop(builder.create_with_backend(SimBackend(self.clone(), FileId::Fresh)).map_err(opening)?);
            let mut state = self.state();
            state.check_power().map_err(backend)?;
            let fresh = std::mem::take(state.file(FileId::Fresh));
            *state.file(FileId::Db) = File { named: false, ..fresh };
        }
        if !self.removed(SyncPoint::Dir) {
            self.sync_dir().map_err(backend)?;
        }
        builder.create_with_backend(SimBackend(self.clone(), FileId::Db)).map_err(opening)
    }

    fn open_log(&self) -> io::Result<Box<dyn LogFile>> {
        let mut state = self.state();
        state.check_power()?;
        state.file(FileId::Log).create();
        Ok(Box::new(SimLog(self.clone())))
    }

    fn db_syncer(&self) -> io::Result<Syncer> {
        let disk = self.clone();
        Ok(Arc::new(move || disk.state().sync(FileId::Db)))
    }

    fn sync_dir(&self) -> io::Result<()> {
        let mut state = self.state();
        state.check_power()?;
        for file in &mut state.files {
            file.named |= file.exists;
        }
        Ok(())
    }

    fn removed(&self, point: SyncPoint) -> bool {
        self.state().removed == Some(point)
    }

    fn cache_bytes(&self) -> usize {
        CACHE_BYTES
    }
}

/// redb's file on the simulated disk.
#[derive(Debug)]
struct SimBackend(SimDisk, FileId);

impl StorageBackend for SimBackend {
    fn len(&self) -> io::Result<u64> {
        Ok(self.0.state().file(self.1).current.len() as u64)
    }

    fn read(&self, offset: u64, out: &mut [u8]) -> io::Result<()> {
        let mut state = self.0.state();
        let bytes = &state.file(self.1).current;
        let from = usize::try_from(offset).map_err(io::Error::other)?;
        let piece = bytes.get(from..from + out.len()).ok_or_else(|| io::Error::other("read past the end"))?;
        out.copy_from_slice(piece);
        Ok(())
    }

    fn set_len(&self, len: u64) -> io::Result<()> {
        let mut state = self.0.state();
        state.check_power()?;
        let file = state.file(self.1);
        apply(&mut file.current, &Op::SetLen(len));
        file.pending.push(Op::SetLen(len));
        Ok(())
    }

    fn sync_data(&self) -> io::Result<()> {
        self.0.state().sync(self.1)
    }

    fn write(&self, offset: u64, data: &[u8]) -> io::Result<()> {
        self.0.state().write(self.1, offset, data)
    }
}

/// The redo log on the simulated disk.
#[derive(Debug)]
struct SimLog(SimDisk);

impl LogFile for SimLog {
    fn read_all(&mut self) -> io::Result<Vec<u8>> {
        Ok(self.0.state().file(FileId::Log).current.clone())
    }

    fn write_at(&mut self, at: u64, bytes: &[u8]) -> io::Result<()> {
        self.0.state().write(FileId::Log, at, bytes)
    }

    fn sync_data(&mut self) -> io::Result<()> {
        self.0.state().sync(FileId::Log)
    }

    fn sync_all(&mut self) -> io::Result<()> {
        self.0.state().sync(FileId::Log)
    }

    fn removed(&self, point: SyncPoint) -> bool {
        self.0.state().removed == Some(point)
    }
}
