//! `rental admin set-password`: sets the admin dashboard's password, read
//! from stdin (the first line), so it never appears in the process list or shell history.

use std::io::{BufRead, IsTerminal};

use clap::Subcommand;
use rental_core::{Rental, Store};

use crate::error::CliError;

/// `rental admin ...`.
#[derive(Debug, Subcommand)]
pub enum AdminCommand {
    /// Set the password of the admin dashboard (/admin), read from stdin; at least 8 characters
    #[command(after_help = SET_PASSWORD_HELP)]
    SetPassword,
}

const SET_PASSWORD_HELP: &str = "Reads the first line of stdin; only an argon2id hash of it is stored.
Logged-in sessions of a running server stay valid until they expire or log out.

Examples:
  rental admin set-password < password.txt
  printf '%s\\n' \"$ADMIN_PASSWORD\" | rental admin set-password";

/// Runs an admin command, reading the password from `input`.
pub fn run(command: &AdminCommand, engine: &Rental<impl Store>, input: &mut dyn BufRead) -> Result<String, CliError> {
    match command {
        AdminCommand::SetPassword => {
            let password = read_password(input)?;
            engine.admin().set_admin_password(&password)?;
            Ok("admin password set; log in at /admin/login\n".to_owned())
        }
    }
}

/// The first line of `input`, without its line ending.
fn read_password(input: &mut dyn BufRead) -> Result<String, CliError> {
    if std::io::stdin().is_terminal() {
        eprint!("New admin password (it will be shown as you type; or pipe it in): ");
    }
    let mut line = String::new();
    input.read_line(&mut line).map_err(|e| CliError::Input { path: "stdin".into(), message: e.to_string() })?;
    Ok(line.trim_end_matches(['\r', '\n']).to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_password_is_the_first_line_without_its_ending() {
        let cases: [(&[u8], &str); 4] = [
            (b"s3cret pass\n", "s3cret pass"),
            (b"crlf line\r\nnext\n", "crlf line"),
            (b"no newline", "no newline"),
            (b"", ""),
        ];
        for (input, want) in cases {
            assert_eq!(read_password(&mut &input[..]).unwrap(), want);
        }
    }
}
