//! Reading an HTML form post: an `application/x-www-form-urlencoded` body,
//! bounded in size, as decoded `(name, value)` pairs.

use bytes::Bytes;
use http_body_util::{BodyExt, Limited};

use crate::connection::body::Body;
use crate::request::{MAX_BODY_BYTES, percent_decode};

/// The fields of a posted form.
#[derive(Debug, Default)]
pub struct Form(Vec<(String, String)>);

impl Form {
    /// Reads and decodes the body; `None` when it is too large, unreadable or malformed.
    pub async fn read(body: Body) -> Option<Form> {
        let bytes: Bytes = Limited::new(body, MAX_BODY_BYTES).collect().await.ok()?.to_bytes();
        Form::parse(std::str::from_utf8(&bytes).ok()?)
    }

    /// Decodes `a=1&b=x+y`.
    pub fn parse(text: &str) -> Option<Form> {
        text.split('&')
            .filter(|pair| !pair.is_empty())
            .map(|pair| {
                let (name, value) = pair.split_once('=').unwrap_or((pair, ""));
                Some((percent_decode(name)?, percent_decode(value)?))
            })
            .collect::<Option<Vec<_>>>()
            .map(Form)
    }

    /// The first value of `name`, or "".
    pub fn get(&self, name: &str) -> &str {
        self.0.iter().find(|(n, _)| n == name).map_or("", |(_, v)| v.as_str())
    }

    /// Every value of `name` (checkboxes).
    pub fn all(&self, name: &str) -> Vec<&str> {
        self.0.iter().filter(|(n, _)| n == name).map(|(_, v)| v.as_str()).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_are_decoded_and_repeated_names_kept() {
        let form = Form::parse("name=Sea+View%21&scope=read&scope=write&empty=").unwrap();
        assert_eq!(form.get("name"), "Sea View!");
        assert_eq!(form.all("scope"), vec!["read", "write"]);
        assert_eq!((form.get("empty"), form.get("missing")), ("", ""));
        assert!(Form::parse("bad=%zz").is_none());
    }
}
