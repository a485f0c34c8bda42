//! `rental webhook verify`: checks a delivery's signature against its body, by
//! either scheme, without opening the store (so it works while a server runs).

use std::io::{self, Read};
use std::path::{Path, PathBuf};

use chrono::Utc;
use clap::Args;
use rental_core::webhook::{self, StandardError, StandardHeaders};

use crate::commands::Printed;
use crate::error::CliError;

/// Arguments of `rental webhook verify`.
#[derive(Debug, Args)]
pub struct VerifyArgs {
    /// The webhook's secret (with --id and --timestamp, any of its active secrets)
    #[arg(long, value_name = "SECRET")]
    secret: String,
    /// The X-SVC-Signature header (sha256=...), or with --id and --timestamp the webhook-signature header (v1,...)
    #[arg(long, value_name = "SIGNATURE", value_parser = parse_signature)]
    signature: Signature,
    /// The webhook-id header: check the Standard Webhooks signature instead
    #[arg(long, value_name = "ID", requires = "timestamp")]
    id: Option<String>,
    /// The webhook-timestamp header (Unix seconds); refused when more than 5 minutes from now
    #[arg(long, value_name = "SECONDS", requires = "id", allow_hyphen_values = true)]
    timestamp: Option<i64>,
    /// The body, byte for byte as received (default, or -: stdin)
    #[arg(value_name = "FILE")]
    file: Option<PathBuf>,
}

pub(super) const VERIFY_HELP: &str = "Two schemes, both on every delivery:
- X-SVC-Signature: give --secret and --signature 'sha256=...'.
- Standard Webhooks: give --secret, --id (webhook-id), --timestamp (webhook-timestamp)
  and --signature (webhook-signature, one or more space-separated v1,... entries).
  The timestamp must be within 5 minutes of this machine's clock.

The body must be the raw bytes that were POSTed: a copy that was re-indented,
re-encoded or had a newline added no longer matches. This command does not
open the store, so it works while a server runs.

Examples:
  rental webhook verify --secret \"$SECRET\" --signature \"$SIGNATURE\" body.json
  rental webhook verify --secret \"$SECRET\" --signature \"$SIGNATURE\" < body.json
  rental webhook verify --secret \"$SECRET\" --id \"$WEBHOOK_ID\" --timestamp \"$WEBHOOK_TIMESTAMP\" \\
    --signature \"$WEBHOOK_SIGNATURE\" body.json";

/// A signature header as given: which scheme its form belongs to.
#[derive(Debug, Clone)]
enum Signature {
    /// `sha256=` and 64 hex digits.
    Svc(String),
    /// Space-separated `v<n>,<base64>` entries.
    Standard(String),
}

/// What to check, once the arguments agree on a scheme.
enum Check<'a> {
    Svc(&'a str),
    Standard(StandardHeaders<'a>),
}

/// Checks the signature of the body in the file or on stdin: `valid`, or
/// an invalid signature (exit 1), or a scheme mismatch (a usage error, exit 2).
pub fn verify(args: &VerifyArgs) -> Result<Printed, CliError> {
    let timestamp = args.timestamp.map(|t| t.to_string());
    let check = match (&args.signature, args.id.as_deref(), timestamp.as_deref()) {
        (Signature::Svc(header), None, None) => Check::Svc(header),
        (Signature::Standard(signature), Some(id), Some(timestamp)) => {
            Check::Standard(StandardHeaders { id, timestamp, signature })
        }
        (Signature::Svc(_), _, _) => {
            return Err(usage("with --id and --timestamp, --signature is the webhook-signature header: v1,<base64>"));
        }
        (Signature::Standard(_), _, _) => {
            return Err(usage("a webhook-signature (v1,...) needs --id and --timestamp from the same delivery"));
        }
    };
    let body = read_body(args.file.as_deref())?;
    match check {
        Check::Svc(header) if webhook::verify(args.secret.as_bytes(), &body, header) => Ok(valid()),
        Check::Svc(_) => Err(CliError::InvalidSignature),
        Check::Standard(headers) => match webhook::verify_standard(&args.secret, &body, &headers, Utc::now()) {
            Ok(()) => Ok(valid()),
            Err(StandardError::Signature) => Err(CliError::InvalidSignature),
            Err(e) => Err(CliError::Invalid(e.to_string())),
        },
    }
}

fn valid() -> Printed {
    "valid\n".to_owned().into()
}

fn usage(message: &str) -> CliError {
    CliError::Usage(message.to_owned())
}

fn read_body(file: Option<&Path>) -> Result<Vec<u8>, CliError> {
    match file {
        None => read_stdin(),
        Some(path) if path == Path::new("-") => read_stdin(),
        Some(path) => std::fs::read(path)
            .map_err(|e| CliError::Input { path: path.to_owned(), message: format!("cannot read: {e}") }),
    }
}

fn read_stdin() -> Result<Vec<u8>, CliError> {
    let mut body = Vec::new();
    io::stdin()
        .lock()
        .read_to_end(&mut body)
        .map_err(|e| CliError::Input { path: "<stdin>".into(), message: format!("cannot read: {e}") })?;
    Ok(body)
}

/// `sha256=` and 64 hex digits (X-SVC-Signature), or space-separated
/// `v<n>,<text>` entries (webhook-signature); whether it matches is for `verify` to say.
fn parse_signature(s: &str) -> Result<Signature, String> {
    let s = s.trim();
    if let Some(hex) = s.strip_prefix("sha256=") {
        if hex.len() == 64 && hex.bytes().all(|b| b.is_ascii_hexdigit()) {
            return Ok(Signature::Svc(s.to_owned()));
        }
    } else if !s.is_empty() && s.split_whitespace().all(is_versioned) {
        return Ok(Signature::Standard(s.to_owned()));
    }
    Err("expected the X-SVC-Signature header (sha256= followed by 64 hex digits) \
         or the webhook-signature header (v1,<base64>, space-separated)"
        .to_owned())
}

/// `v` and digits, a comma, then something.
fn is_versioned(entry: &str) -> bool {
    entry.split_once(',').is_some_and(|(version, sig)| {
        version.len() > 1
            && version.starts_with('v')
            && version[1..].bytes().all(|b| b.is_ascii_digit())
            && !sig.is_empty()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_signature_must_look_like_one_of_the_two_headers() {
        let good = webhook::sign(b"k", b"{}");
        let standard = webhook::sign_standard("whsec_Zm9vYmFy", "dlv_1", 1_700_000_000, b"{}");
        let cases = [
            (good.as_str(), Some("svc")),
            ("sha256=5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843", Some("svc")),
            (standard.as_str(), Some("standard")),
            (&format!("{standard} v1,b3RoZXI="), Some("standard")),
            ("5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843", None),
            ("sha256=5bdcc146", None),
            ("sha256=zzdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843", None),
            ("v1,", None),
            ("v,abc", None),
            ("", None),
        ];
        for (signature, want) in cases {
            let got = parse_signature(signature).ok().map(|s| match s {
                Signature::Svc(_) => "svc",
                Signature::Standard(_) => "standard",
            });
            assert_eq!(got, want, "{signature:?}");
        }
    }
}
