//! What can make a command fail, and the exit code each failure gives:
//! 1 when the operation failed, 2 when the invocation or configuration is wrong.

use std::fmt;
use std::path::PathBuf;

use rental_core::StoreError;

use crate::config::ConfigError;
use crate::remote::{BadRemote, RemoteError};

/// A failed command.
#[derive(Debug)]
pub enum CliError {
    /// The configuration (file, environment) is unusable: a usage error.
    Config(ConfigError),
    /// The data directory is held by another process, normally a running server.
    Busy {
        /// The data directory.
        data_dir: PathBuf,
    },
    /// The library refused the operation or failed.
    Core(rental_core::Error),
    /// The server could not start or stopped with an error.
    Serve(String),
    /// An input file could not be read or understood.
    Input {
        /// The file.
        path: PathBuf,
        /// What is wrong with it, on one line.
        message: String,
    },
    /// `rental webhook verify`: the signature does not match the body under the secret.
    InvalidSignature,
    /// `rental webhook verify`: the Standard Webhooks headers fail for another reason (their timestamp).
    Invalid(String),
    /// The invocation is wrong in a way clap cannot see (such as `--url` without a key).
    Usage(String),
    /// The server (`--url`) refused the operation or could not be reached.
    Remote(RemoteError),
    /// A backup could not be made or restored (a damaged file, a target not empty).
    Backup(String),
}

impl CliError {
    /// The process exit code for this failure.
    pub fn exit_code(&self) -> u8 {
        match self {
            CliError::Config(_) | CliError::Usage(_) => 2,
            CliError::Busy { .. }
            | CliError::Core(_)
            | CliError::Input { .. }
            | CliError::Serve(_)
            | CliError::InvalidSignature
            | CliError::Invalid(_)
            | CliError::Remote(_)
            | CliError::Backup(_) => 1,
        }
    }
}

impl fmt::Display for CliError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CliError::Config(e) => write!(f, "config: {e}"),
            CliError::Busy { data_dir } => write!(
                f,
                "the data directory {} is in use by a running server; stop it, or use --url/RENTAL_URL to talk to it",
                data_dir.display()
            ),
            CliError::Core(e) => write!(f, "{e}"),
            CliError::Serve(message) => write!(f, "{message}"),
            CliError::Input { path, message } => write!(f, "{}: {message}", path.display()),
            CliError::InvalidSignature => {
                f.write_str("invalid: the signature does not match this body under this secret")
            }
            CliError::Invalid(reason) => write!(f, "invalid: {reason}"),
            CliError::Usage(message) | CliError::Backup(message) => f.write_str(message),
            CliError::Remote(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for CliError {}

impl From<ConfigError> for CliError {
    fn from(e: ConfigError) -> Self {
        CliError::Config(e)
    }
}

impl From<rental_core::Error> for CliError {
    fn from(e: rental_core::Error) -> Self {
        CliError::Core(e)
    }
}

impl From<RemoteError> for CliError {
    fn from(e: RemoteError) -> Self {
        CliError::Remote(e)
    }
}

impl From<BadRemote> for CliError {
    fn from(e: BadRemote) -> Self {
        CliError::Usage(e.0)
    }
}

impl From<StoreError> for CliError {
    fn from(e: StoreError) -> Self {
        CliError::Core(e.into())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn usage_problems_exit_2_and_failed_operations_exit_1() {
        let config = CliError::Config(ConfigError::Invalid { from: "RENTAL_TIMEZONE".into(), message: "bad".into() });
        let busy = CliError::Busy { data_dir: "./rental-data".into() };
        let missing = CliError::Core(rental_core::Error::NotFound(rental_core::NotFound::Property("nope".into())));
        assert_eq!((config.exit_code(), busy.exit_code(), missing.exit_code()), (2, 1, 1));
        assert_eq!(missing.to_string(), r#"property "nope" not found"#);
        assert!(busy.to_string().contains("./rental-data is in use by a running server"));
        let refused = CliError::Remote(RemoteError::Problem {
            status: 409,
            code: "dates_unavailable".into(),
            detail: "2030-12-24 is already booked".into(),
        });
        let usage = CliError::from(BadRemote("--url needs an API key".into()));
        assert_eq!((refused.exit_code(), usage.exit_code()), (1, 2));
        assert_eq!(refused.to_string(), "2030-12-24 is already booked", "a problem reads as its detail");
    }
}
