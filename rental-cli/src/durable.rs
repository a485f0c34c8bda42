//! Files the CLI keeps beside the store (the page secret, backups), written so that a
//! power cut leaves either no file or the whole one: a temporary file, synced, renamed, the directory synced.

use std::fs::{File, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};

/// The temporary name `path` is written under before it is renamed into place.
pub(crate) fn partial(path: &Path) -> PathBuf {
    let mut name = path.file_name().unwrap_or_default().to_owned();
    name.push(".partial");
    path.with_file_name(name)
}

/// Creates (or empties) `path` readable and writable by its owner only.
pub(crate) fn create_private(path: &Path) -> io::Result<File> {
    let mut options = OpenOptions::new();
    options.write(true).create(true).truncate(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    options.open(path)
}

/// Renames the synced `partial` to `path` and syncs their directory, so the new name survives a power cut.
pub(crate) fn commit(partial: &Path, path: &Path) -> io::Result<()> {
    std::fs::rename(partial, path)?;
    let dir = match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir,
        _ => Path::new("."),
    };
    File::open(dir)?.sync_all()
}

/// Writes `bytes` to `path` (owner-only) as a whole: after a power cut the old file or the new one is there, never a part.
pub(crate) fn write(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let partial = partial(path);
    let mut file = create_private(&partial)?;
    file.write_all(bytes)?;
    file.sync_all()?;
    commit(&partial, path)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_written_file_is_whole_owner_only_and_leaves_no_partial() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("secret");
        write(&path, b"one").unwrap();
        write(&path, b"two").unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"two");
        assert!(!partial(&path).exists());
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            assert_eq!(std::fs::metadata(&path).unwrap().permissions().mode() & 0o777, 0o600);
        }
    }
}
