//! The server's page secret in the data directory (`book-secret`): it signs
//! the booking page's tokens and the guests' stay page links.

use rental_core::clock::{Entropy, OsEntropy};

use crate::error::CliError;

/// The booking page's signing secret, kept in the data directory (`book-secret`,
/// readable by its owner only) so form tokens and confirmation links outlive a
/// restart and a power cut; made on first start, and written whole (see [`crate::durable`]). Servers sharing one PostgreSQL store share it by copying the file.
/// It also signs the guests' stay page links, which `rental bookings show` prints.
pub fn load_or_make(data_dir: &std::path::Path) -> Result<Vec<u8>, CliError> {
    let path = data_dir.join("book-secret");
    let failed =
        |e: std::io::Error| CliError::Serve(format!("cannot keep the booking page secret in {}: {e}", path.display()));
    match std::fs::read_to_string(&path) {
        Ok(text) if text.trim().len() >= 32 => return Ok(text.trim().as_bytes().to_vec()),
        Ok(_) => {}
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(e) => return Err(failed(e)),
    }
    let mut bytes = [0u8; 32];
    OsEntropy.fill(&mut bytes);
    let secret = bytes.iter().fold(String::with_capacity(64), |mut hex, b| {
        let _ = std::fmt::Write::write_fmt(&mut hex, format_args!("{b:02x}"));
        hex
    });
    std::fs::create_dir_all(data_dir).map_err(failed)?;
    crate::durable::write(&path, secret.as_bytes()).map_err(failed)?;
    Ok(secret.into_bytes())
}
