//! The admin dashboard's password: kept in the store as an argon2id hash (a
//! PHC string), set by `rental admin set-password` and checked at each login.

use argon2::{Argon2, PasswordHash, PasswordHasher, PasswordVerifier};

use crate::error::{Error, Result};
use crate::store::{AdminPassword, ReadRecords, Store, StoreError};

/// The shortest admin password accepted.
pub const MIN_PASSWORD_CHARS: usize = 8;
/// The longest admin password accepted (argon2 takes any length; this bounds the work).
pub const MAX_PASSWORD_BYTES: usize = 1024;

impl<S: Store> super::Admin<'_, S> {
    /// Sets the admin password, replacing any earlier one. Only its argon2id
    /// hash, with a fresh random salt, is stored.
    pub fn set_admin_password(&self, password: &str) -> Result<()> {
        check_password(password)?;
        let mut salt = [0u8; 16];
        self.entropy.fill(&mut salt);
        let phc = Argon2::default()
            .hash_password_with_salt(password.as_bytes(), &salt)
            .map_err(|e| StoreError::Backend(format!("cannot hash the password: {e}").into()))?
            .to_string();
        self.write(|tx| Ok(tx.put(&AdminPassword { phc: phc.clone() })?))
    }

    /// True once an admin password has been set.
    pub fn has_admin_password(&self) -> Result<bool> {
        Ok(self.store.read()?.get::<AdminPassword>(AdminPassword::KEY)?.is_some())
    }
}

/// A password is 8 to 1024 bytes, not only blanks.
fn check_password(password: &str) -> Result<()> {
    if password.chars().count() < MIN_PASSWORD_CHARS || password.trim().is_empty() {
        return Err(Error::invalid(
            "password",
            "too_short",
            format!("must be at least {MIN_PASSWORD_CHARS} characters"),
        ));
    }
    if password.len() > MAX_PASSWORD_BYTES {
        return Err(Error::invalid("password", "too_long", format!("must be at most {MAX_PASSWORD_BYTES} bytes")));
    }
    Ok(())
}

impl<S: Store> super::Worker<'_, S> {
    /// True when `password` is the admin password; false when it is not or
    /// when none was ever set. It takes argon2's time on purpose: call it
    /// off any async runtime.
    pub fn verify_admin_password(&self, password: &str) -> Result<bool> {
        let Some(AdminPassword { phc }) = self.store.read()?.get(AdminPassword::KEY)? else { return Ok(false) };
        if password.len() > MAX_PASSWORD_BYTES {
            return Ok(false);
        }
        let hash = PasswordHash::new(&phc).map_err(|e| StoreError::Corrupt(format!("admin password hash: {e}")))?;
        Ok(Argon2::default().verify_password(password.as_bytes(), &hash).is_ok())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{MemoryStore, Rental};

    #[test]
    fn only_the_password_set_verifies_and_it_is_stored_as_argon2id() {
        let rental = Rental::new(MemoryStore::new());
        assert!(!rental.admin().has_admin_password().unwrap());
        assert!(!rental.worker().verify_admin_password("anything at all").unwrap());
        rental.admin().set_admin_password("correct horse battery").unwrap();
        assert!(rental.worker().verify_admin_password("correct horse battery").unwrap());
        assert!(!rental.worker().verify_admin_password("correct horse battery ").unwrap());
        let phc = rental.store().read().unwrap().get::<AdminPassword>(AdminPassword::KEY).unwrap().unwrap().phc;
        assert!(phc.starts_with("$argon2id$"), "{phc}");
        assert!(!phc.contains("correct horse"));
    }

    #[test]
    fn short_or_blank_passwords_are_refused() {
        let rental = Rental::new(MemoryStore::new());
        for bad in ["", "short", "        ", &"x".repeat(MAX_PASSWORD_BYTES + 1)] {
            assert!(matches!(rental.admin().set_admin_password(bad), Err(Error::Validation(_))), "{bad:?}");
        }
        assert!(!rental.admin().has_admin_password().unwrap());
    }
}
