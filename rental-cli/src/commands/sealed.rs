//! Sealed backups: a backup file encrypted and authenticated under a
//! passphrase, so that a copy kept elsewhere can be neither read nor changed.
//!
//! The file is one JSON header line (the format, the argon2id parameters, the
//! salt and the nonce), then the plain backup sealed with ChaCha20-Poly1305
//! under a key derived from the passphrase, the header line as associated
//! data: a changed byte anywhere, or a wrong passphrase, fails the tag.

use argon2::{Algorithm, Argon2, Params, Version};
use ring::aead::{Aad, CHACHA20_POLY1305, LessSafeKey, NONCE_LEN, Nonce, UnboundKey};
use ring::rand::{SecureRandom, SystemRandom};
use serde::{Deserialize, Serialize};

/// The `format` a sealed file's header names.
const FORMAT: &str = "rental-backup-sealed";
/// The shortest passphrase accepted.
pub const MIN_PASSPHRASE: usize = 12;

/// Why a sealed file could not be made or opened.
#[derive(Debug, thiserror::Error)]
pub enum SealError {
    /// The passphrase is too short to guard a backup.
    #[error("the passphrase must be at least {MIN_PASSPHRASE} characters")]
    ShortPassphrase,
    /// The header is not a sealed backup's, or its parameters are unusable.
    #[error("it is not a sealed rental backup: {0}")]
    Header(String),
    /// The tag does not match: another passphrase, or a changed file.
    #[error("it cannot be opened: the passphrase is wrong or the file was changed")]
    Tag,
    /// The system's random source failed.
    #[error("no random bytes for the seal")]
    Random,
}

#[derive(Debug, Serialize, Deserialize)]
struct Header {
    format: String,
    version: u32,
    kdf: String,
    memory_kib: u32,
    iterations: u32,
    lanes: u32,
    salt: String,
    nonce: String,
}

/// True when `bytes` start like a sealed backup.
pub fn is_sealed(bytes: &[u8]) -> bool {
    let first = bytes.split(|b| *b == b'\n').next().unwrap_or_default();
    serde_json::from_slice::<Header>(first).is_ok_and(|h| h.format == FORMAT)
}

/// `plain` sealed under `passphrase`, with a fresh salt and nonce.
pub fn seal(plain: &[u8], passphrase: &str) -> Result<Vec<u8>, SealError> {
    if passphrase.chars().count() < MIN_PASSPHRASE {
        return Err(SealError::ShortPassphrase);
    }
    let random = SystemRandom::new();
    let (mut salt, mut nonce) = ([0u8; 16], [0u8; NONCE_LEN]);
    random.fill(&mut salt).map_err(|_| SealError::Random)?;
    random.fill(&mut nonce).map_err(|_| SealError::Random)?;
    let params = Params::default();
    let header = Header {
        format: FORMAT.to_owned(),
        version: 1,
        kdf: "argon2id".to_owned(),
        memory_kib: params.m_cost(),
        iterations: params.t_cost(),
        lanes: params.p_cost(),
        salt: hex::encode(salt),
        nonce: hex::encode(nonce),
    };
    let mut line = serde_json::to_vec(&header).map_err(|e| SealError::Header(e.to_string()))?;
    line.push(b'\n');
    let key = key(&header, passphrase)?;
    let mut sealed = plain.to_vec();
    key.seal_in_place_append_tag(Nonce::assume_unique_for_key(nonce), Aad::from(&line), &mut sealed)
        .map_err(|_| SealError::Tag)?;
    line.extend(sealed);
    Ok(line)
}

/// The plain backup inside `bytes`, checked by its tag.
pub fn open(bytes: &[u8], passphrase: &str) -> Result<Vec<u8>, SealError> {
    let at = bytes.iter().position(|b| *b == b'\n').ok_or_else(|| SealError::Header("no header line".into()))? + 1;
    let (line, body) = bytes.split_at(at);
    let header: Header = serde_json::from_slice(line).map_err(|e| SealError::Header(e.to_string()))?;
    if header.format != FORMAT || header.version != 1 || header.kdf != "argon2id" {
        return Err(SealError::Header(format!("{} version {} ({})", header.format, header.version, header.kdf)));
    }
    let nonce: [u8; NONCE_LEN] = hex::decode(&header.nonce)
        .ok()
        .and_then(|n| n.try_into().ok())
        .ok_or_else(|| SealError::Header("a nonce of the wrong length".into()))?;
    let key = key(&header, passphrase)?;
    let mut body = body.to_vec();
    let plain = key
        .open_in_place(Nonce::assume_unique_for_key(nonce), Aad::from(line), &mut body)
        .map_err(|_| SealError::Tag)?;
    Ok(plain.to_vec())
}

/// The key of `header`'s parameters and salt for `passphrase`.
fn key(header: &Header, passphrase: &str) -> Result<LessSafeKey, SealError> {
    // Bounded, so a forged header cannot make the opener spend gigabytes or hours.
    if header.memory_kib > 1 << 20 || header.iterations > 16 || header.lanes > 8 {
        return Err(SealError::Header("key parameters out of bounds".into()));
    }
    let params = Params::new(header.memory_kib, header.iterations, header.lanes, Some(32))
        .map_err(|e| SealError::Header(e.to_string()))?;
    let salt = hex::decode(&header.salt).map_err(|e| SealError::Header(e.to_string()))?;
    let mut key = [0u8; 32];
    Argon2::new(Algorithm::Argon2id, Version::V0x13, params)
        .hash_password_into(passphrase.as_bytes(), &salt, &mut key)
        .map_err(|e| SealError::Header(e.to_string()))?;
    let unbound = UnboundKey::new(&CHACHA20_POLY1305, &key).map_err(|_| SealError::Header("no key".into()))?;
    Ok(LessSafeKey::new(unbound))
}

#[cfg(test)]
mod tests {
    use super::*;

    const PASS: &str = "correct horse battery";

    #[test]
    fn a_sealed_file_opens_with_its_passphrase_only_and_unchanged_only() {
        let sealed = seal(b"{\"format\":\"rental-backup\"}\n", PASS).unwrap();
        assert!(is_sealed(&sealed));
        assert_eq!(open(&sealed, PASS).unwrap(), b"{\"format\":\"rental-backup\"}\n");
        assert!(matches!(open(&sealed, "another passphrase"), Err(SealError::Tag)));
        let mut changed = sealed.clone();
        *changed.last_mut().unwrap() ^= 1;
        assert!(matches!(open(&changed, PASS), Err(SealError::Tag)));
        let header_changed = String::from_utf8_lossy(&sealed).replacen("\"version\":1", "\"version\":1 ", 1);
        assert!(open(header_changed.as_bytes(), PASS).is_err());
        assert!(matches!(seal(b"x", "short"), Err(SealError::ShortPassphrase)));
    }
}
