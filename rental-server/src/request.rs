//! Reading a request: the bearer key, the query string and the JSON body,
//! each bounded and each failing as a [`Problem`] with its documented code.

use bytes::Bytes;
use http::{HeaderMap, StatusCode, header};
use http_body_util::{BodyExt, Limited};
use serde::de::DeserializeOwned;

use crate::connection::body::{Body, is_timeout};
use crate::problem::Problem;

/// The largest request body accepted.
pub const MAX_BODY_BYTES: usize = 64 * 1024;

/// The bearer token of the `Authorization` header, if there is one.
pub fn bearer(headers: &HeaderMap) -> Option<&str> {
    let value = headers.get(header::AUTHORIZATION)?.to_str().ok()?;
    let (scheme, token) = value.split_once(' ')?;
    scheme.eq_ignore_ascii_case("bearer").then(|| token.trim())
}

/// Reads the whole body, refusing more than [`MAX_BODY_BYTES`] (413) and any
/// content type but JSON (415).
pub async fn body(headers: &HeaderMap, body: Body) -> Result<Bytes, Problem> {
    let too_large = || {
        Problem::new(
            StatusCode::PAYLOAD_TOO_LARGE,
            "payload_too_large",
            format!("bodies are at most {MAX_BODY_BYTES} bytes"),
        )
    };
    let declared = headers.get(header::CONTENT_LENGTH).and_then(|v| v.to_str().ok()?.parse::<usize>().ok());
    if declared.is_some_and(|n| n > MAX_BODY_BYTES) {
        return Err(too_large());
    }
    let is_json = headers.get(header::CONTENT_TYPE).and_then(|v| v.to_str().ok()).is_some_and(|ct| {
        let media = ct.split(';').next().unwrap_or_default().trim();
        media.eq_ignore_ascii_case("application/json")
    });
    let bytes = match Limited::new(body, MAX_BODY_BYTES).collect().await {
        Ok(collected) => collected.to_bytes(),
        Err(e) if e.is::<http_body_util::LengthLimitError>() => return Err(too_large()),
        Err(e) if is_timeout(&*e) => return Err(Problem::request_timeout()),
        Err(_) => {
            return Err(Problem::new(StatusCode::BAD_REQUEST, "invalid_json", "the request body could not be read"));
        }
    };
    if !is_json && !bytes.is_empty() {
        return Err(Problem::new(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            "unsupported_media_type",
            "send the body as Content-Type: application/json",
        ));
    }
    Ok(bytes)
}

/// Decodes a JSON object into `T`: not JSON or not an object is 400
/// `invalid_json`; well-formed JSON of the wrong shape is 422 `validation_failed`.
pub fn json<T: DeserializeOwned>(bytes: &[u8]) -> Result<T, Problem> {
    let invalid = |detail: String| Problem::new(StatusCode::BAD_REQUEST, "invalid_json", detail);
    match bytes.iter().find(|b| !b.is_ascii_whitespace()) {
        None => return Err(invalid("a JSON object body is required".into())),
        Some(b'{') => {}
        Some(_) => return Err(invalid("the body must be a JSON object".into())),
    }
    let mut deserializer = serde_json::Deserializer::from_slice(bytes);
    let decoded = serde_path_to_error::deserialize(&mut deserializer);
    if let (Ok(_), Err(trailing)) = (&decoded, deserializer.end()) {
        return Err(invalid(format!("the body is not valid JSON: {trailing}")));
    }
    decoded.map_err(|e| {
        // A shape error may come before a syntax error further on: bad JSON is 400 whatever else is wrong.
        if let Err(syntax) = serde_json::from_slice::<serde::de::IgnoredAny>(bytes) {
            return invalid(format!("the body is not valid JSON: {syntax}"));
        }
        let field_error = field_error(&e);
        let message = e.into_inner().to_string();
        Problem {
            errors: field_error.into_iter().collect(),
            ..Problem::new(
                StatusCode::UNPROCESSABLE_ENTITY,
                "validation_failed",
                format!("the body is not valid: {message}"),
            )
        }
    })
}

/// The field at fault in a decoding error, named as the client wrote it.
///
/// The path tracker knows where decoding stopped; a missing field is named
/// only in serde's message ("missing field `guestName`"), and a bad action
/// tag sits on `action`.
fn field_error(e: &serde_path_to_error::Error<serde_json::Error>) -> Option<rental_core::FieldError> {
    let message = e.inner().to_string();
    let path = e.path().to_string();
    let (field, code) = if let Some(missing) = message.strip_prefix("missing field `") {
        let name = missing.split('`').next().unwrap_or_default();
        let parent = if path == "." { String::new() } else { format!("{path}.") };
        (format!("{parent}{name}"), "required")
    } else if path != "." {
        let is_date = path.ends_with("checkIn") || path.ends_with("checkOut");
        (path, if is_date { "invalid_date" } else { "invalid" })
    } else if message.contains("variant") || message.contains("tag") {
        ("action".to_owned(), "invalid")
    } else {
        return None;
    };
    Some(rental_core::FieldError::new(&field, code, message))
}

/// The query string as decoded `(name, value)` pairs.
pub fn query(uri: &http::Uri) -> Result<Vec<(String, String)>, Problem> {
    let Some(q) = uri.query() else { return Ok(Vec::new()) };
    q.split('&')
        .filter(|pair| !pair.is_empty())
        .map(|pair| {
            let (name, value) = pair.split_once('=').unwrap_or((pair, ""));
            let name = percent_decode(name).ok_or_else(|| Problem::invalid_parameter(name, "bad percent-encoding"))?;
            let value =
                percent_decode(value).ok_or_else(|| Problem::invalid_parameter(&name, "bad percent-encoding"))?;
            Ok((name, value))
        })
        .collect()
}

pub(crate) fn percent_decode(s: &str) -> Option<String> {
    let mut out = Vec::with_capacity(s.len());
    let mut bytes = s.bytes();
    while let Some(b) = bytes.next() {
        match b {
            b'%' => {
                let hi = char::from(bytes.next()?).to_digit(16)?;
                let lo = char::from(bytes.next()?).to_digit(16)?;
                out.push((hi * 16 + lo) as u8);
            }
            b'+' => out.push(b' '),
            b => out.push(b),
        }
    }
    String::from_utf8(out).ok()
}

/// Typed access to query parameters, each failing as 400 `invalid_parameter`.
#[derive(Debug)]
pub struct Query(Vec<(String, String)>);

impl Query {
    /// Parses the query string of `uri`.
    pub fn of(uri: &http::Uri) -> Result<Self, Problem> {
        query(uri).map(Query)
    }

    /// The last value of `name`, if given. A parameter given with an empty
    /// value (`?to=`) is given: typed parameters refuse it as malformed.
    pub fn get(&self, name: &str) -> Option<&str> {
        self.0.iter().rev().find(|(n, _)| n == name).map(|(_, v)| v.as_str())
    }

    /// `name` parsed as `T`, if given.
    pub fn parse<T: std::str::FromStr>(&self, name: &str, expected: &str) -> Result<Option<T>, Problem> {
        self.get(name)
            .map(|v| v.parse().map_err(|_| Problem::invalid_parameter(name, format!("{v:?} is not {expected}"))))
            .transpose()
    }

    /// `name` as a `YYYY-MM-DD` date ([`rental_core::parse_date`]), if given.
    pub fn date(&self, name: &str) -> Result<Option<chrono::NaiveDate>, Problem> {
        self.get(name)
            .map(|v| {
                rental_core::parse_date(v).ok_or_else(|| {
                    Problem::invalid_parameter(
                        name,
                        format!("{v:?} is not a date written YYYY-MM-DD (years 0001 to 9999)"),
                    )
                })
            })
            .transpose()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn query_values_are_percent_decoded() {
        let uri: http::Uri = "/x?status=pending%2Cconfirmed&name=Ada+L&empty=&flag".parse().unwrap();
        let q = Query::of(&uri).unwrap();
        assert_eq!(q.get("status"), Some("pending,confirmed"));
        assert_eq!(q.get("name"), Some("Ada L"));
        assert_eq!(q.get("empty"), Some(""));
        assert_eq!(q.get("flag"), Some(""));
        assert_eq!(q.get("absent"), None);
        assert!(Query::of(&"/x?a=%zz".parse().unwrap()).is_err());
    }

    #[test]
    fn json_failures_are_400_for_syntax_and_422_for_shape() {
        #[derive(serde::Deserialize, Debug)]
        #[allow(dead_code)]
        struct T {
            n: u32,
        }
        let cases: [(&[u8], u16); 9] = [
            (b"{", 400),
            (b"", 400),
            (b"[1]", 400),
            (b"{\"n\": 1} trailing", 400),
            (b"{\"n\": \"x\", ", 400), // a shape error before a syntax error is still bad JSON
            (b"{\"n\": -1}", 422),
            (b"{}", 422),
            (b"{\"n\": \"x\"}", 422),
            (b" {\"n\": 3} ", 200),
        ];
        for (body, status) in cases {
            let got = json::<T>(body).map_or_else(|p| p.status.as_u16(), |_| 200);
            assert_eq!(got, status, "{}", String::from_utf8_lossy(body));
        }
        assert_eq!(json::<T>(b"{}").unwrap_err().errors[0].field, "n");
    }
}
