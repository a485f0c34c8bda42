//! Property files for `rental property import`: JSON (an array of property
//! objects, or one object) or, for `.toml` files, one `[[property]]` table each.

use std::path::Path;

use rental_core::Property;

use crate::config::toml_message;
use crate::error::CliError;

/// The properties in the file at `path`, read as TOML when it ends in `.toml`, else as JSON.
pub fn read(path: &Path) -> Result<Vec<Property>, CliError> {
    let input_error = |message: String| CliError::Input { path: path.to_owned(), message };
    let text = std::fs::read_to_string(path).map_err(|e| input_error(format!("cannot read: {e}")))?;
    let is_toml = path.extension().is_some_and(|ext| ext.eq_ignore_ascii_case("toml"));
    if is_toml { from_toml(&text) } else { from_json(&text) }.map_err(input_error)
}

/// A JSON array of properties, or a single property object.
pub fn from_json(text: &str) -> Result<Vec<Property>, String> {
    let result = if text.trim_start().starts_with('[') {
        serde_json::from_str(text)
    } else {
        serde_json::from_str(text).map(|p| vec![p])
    };
    result.map_err(|e| format!("not a property file: {e}"))
}

/// `[[property]]` tables with the JSON's camelCase keys. Dates and times may
/// be TOML literals (`startDate = 2026-06-01`, `checkInTime = 15:00`) or strings.
pub fn from_toml(text: &str) -> Result<Vec<Property>, String> {
    let mut table: toml::Table = toml::from_str(text).map_err(|e| toml_message(text, &e))?;
    let items = table.remove("property").ok_or("no [[property]] tables")?;
    if let Some(key) = table.keys().next() {
        return Err(format!("unknown top-level key `{key}`: a property file holds only [[property]] tables"));
    }
    let toml::Value::Array(items) = items else {
        return Err("`property` must be [[property]] tables".to_owned());
    };
    items.into_iter().enumerate().map(|(i, item)| property_from_toml(i, item)).collect()
}

fn property_from_toml(index: usize, mut value: toml::Value) -> Result<Property, String> {
    dates_to_text(&mut value);
    let name = match value.get("slug").and_then(toml::Value::as_str) {
        Some(slug) => format!("[[property]] {} ({slug:?})", index + 1),
        None => format!("[[property]] {}", index + 1),
    };
    value.try_into().map_err(|e: toml::de::Error| format!("{name}: {}", e.message().trim().replace('\n', " ")))
}

/// Turns TOML date and time literals into the text the JSON form uses.
fn dates_to_text(value: &mut toml::Value) {
    match value {
        toml::Value::Datetime(dt) => {
            let text = datetime_text(dt);
            *value = toml::Value::String(text);
        }
        toml::Value::Array(items) => items.iter_mut().for_each(dates_to_text),
        toml::Value::Table(table) => table.iter_mut().for_each(|(_, v)| dates_to_text(v)),
        _ => {}
    }
}

/// `2026-06-01` for a date; `15:00` for a time on the minute.
fn datetime_text(dt: &toml::value::Datetime) -> String {
    match (dt.date, dt.time, dt.offset) {
        (None, Some(t), None) if t.second.unwrap_or(0) == 0 && t.nanosecond.unwrap_or(0) == 0 => {
            format!("{:02}:{:02}", t.hour, t.minute)
        }
        _ => dt.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use rental_core::demo;

    use super::*;

    const SEA_VIEW_TOML: &str = r#"
        [[property]]
        slug = "sea-view"
        name = "Sea View Cottage"
        timezone = "Europe/Lisbon"
        maxGuests = 4
        baseGuests = 2
        extraGuestFee = 2000
        nightlyRate = 15000
        weekendRate = 18000
        cleaningFee = 6000
        taxRate = 1200
        minNights = 2
        maxNights = 28
        weeklyDiscount = 1000
        monthlyDiscount = 2000
        checkInTime = 15:00:00
        checkOutTime = "11:00"
        doorCode = "4821"
        wifiSsid = "SeaView-Guest"

        [[property.seasonalRates]]
        name = "Summer"
        startDate = 2026-06-01
        endDate = "2026-08-31"
        nightlyRate = 22000
        weekendRate = 25000
        minNights = 3
    "#;

    #[test]
    fn toml_tables_read_like_json_objects_with_date_and_time_literals() {
        assert_eq!(from_toml(SEA_VIEW_TOML).unwrap(), vec![demo::sea_view()]);
    }

    #[test]
    fn the_booking_page_settings_read_from_toml_and_json() {
        let toml = format!(
            "{SEA_VIEW_TOML}\n        [property.bookingPage]\n        enabled = true\n        embedOrigins = [\"https://my-cottage.example\"]\n"
        );
        let read = from_toml(&toml).unwrap();
        assert!(read[0].booking_page.enabled);
        assert_eq!(read[0].booking_page.embed_origins, ["https://my-cottage.example"]);
        let json = serde_json::to_string(&read).unwrap();
        assert!(json.contains(r#""bookingPage":{"enabled":true,"embedOrigins":["https://my-cottage.example"]}"#));
        assert_eq!(from_json(&json).unwrap(), read, "what is listed imports again");
    }

    #[test]
    fn json_is_an_array_or_one_object() {
        let one = serde_json::to_string(&demo::sea_view()).unwrap();
        let all = serde_json::to_string(&demo::properties()).unwrap();
        assert_eq!(from_json(&one).unwrap(), vec![demo::sea_view()]);
        assert_eq!(from_json(&all).unwrap(), demo::properties());
        assert_eq!(from_json(" []").unwrap(), vec![]);
    }

    #[test]
    fn faults_are_named_on_one_line() {
        let cases = [
            (from_toml("[[property]]\nslug = \"a\"\nsize = 3\n"), "[[property]] 1 (\"a\"): unknown field `size`"),
            (from_toml("[[property]]\nslug = \n"), "line 2, column 8: "),
            (from_toml("title = \"x\"\n[[property]]\nslug = \"a\"\n"), "unknown top-level key `title`"),
            (from_toml(""), "no [[property]] tables"),
            (from_toml("property = 3"), "`property` must be [[property]] tables"),
            (from_json("{\"slug\": \"a\"}"), "not a property file: missing field `name` at line 1"),
            (from_json("[{]"), "not a property file: key must be a string at line 1 column 3"),
        ];
        for (result, want) in cases {
            let got = result.unwrap_err();
            assert!(got.starts_with(want) && !got.contains('\n'), "{got}");
        }
    }
}
