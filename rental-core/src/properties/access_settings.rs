//! A property's private arrival details: the door code and how it is given
//! out, how long a stay's code opens the door, the Wi-Fi, the notes, and what
//! the guest's stay page shows (house guide, address).

use serde::{Deserialize, Serialize};

use super::stay_page_settings::StayPageSettings;
use crate::error::FieldError;

/// The shortest and longest per-stay code.
pub const CODE_LENGTHS: std::ops::RangeInclusive<u8> = 4..=8;
/// The default per-stay code length.
pub const DEFAULT_CODE_LENGTH: u8 = 6;
/// The most minutes a window may open before check-in or close after check-out (a week).
pub const MAX_ACCESS_MINUTES: u32 = 7 * 24 * 60;
/// The longest `arrivalNotes`, in bytes.
const MAX_NOTES_BYTES: usize = 4_000;

/// Where a property's door code comes from.
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DoorCodeMode {
    /// The property's `doorCode`, for every stay.
    #[default]
    Static,
    /// A code of its own for each confirmed stay, valid only in its window.
    PerStay,
}

/// How guests get in (docs/API.md section 15). All of it is private: the
/// public view of a property shows none of it. The default is a static code
/// that is empty, 6 digits when per stay, open from check-in to check-out.
///
/// ```
/// use rental_core::property::{AccessSettings, DoorCodeMode};
///
/// let access = AccessSettings::default().per_stay_codes(8).window(30, 60).wifi("Cottage");
/// assert_eq!(access.door_code_mode, DoorCodeMode::PerStay);
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct AccessSettings {
    /// The door code given to arriving guests (the `static` mode's code).
    pub door_code: String,
    /// `static` (the `door_code` for every stay) or `per_stay` (a code of its own per stay).
    pub door_code_mode: DoorCodeMode,
    /// Digits of a per-stay code, 4 to 8.
    pub door_code_length: u8,
    /// Minutes a stay's code opens the door before its check-in time.
    pub access_before_minutes: u32,
    /// Minutes a stay's code opens the door after its check-out time.
    pub access_after_minutes: u32,
    /// The Wi-Fi network name.
    pub wifi_ssid: String,
    /// What arriving guests should know, sent with the check-in instructions. Lines break with `\n`.
    pub arrival_notes: String,
    /// The Wi-Fi password, shown with the door code.
    pub wifi_password: String,
    /// Hours before the access window opens from which a guest may see the
    /// door code, Wi-Fi and arrival notes (0 to 720; default 48).
    pub access_reveal_hours: u32,
    /// Whether everything due must be paid before they are shown; `None`
    /// follows whether a payment provider is configured.
    pub access_requires_payment: Option<bool>,
    /// What the guest's stay page shows behind the same gate (house guide,
    /// address): the stay page is how a guest with a stay finds the house.
    pub stay_page: StayPageSettings,
}

/// The default [`AccessSettings::access_reveal_hours`].
pub const DEFAULT_REVEAL_HOURS: u32 = 48;
/// The largest [`AccessSettings::access_reveal_hours`]: 30 days.
pub const MAX_REVEAL_HOURS: u32 = 720;

impl Default for AccessSettings {
    fn default() -> Self {
        AccessSettings {
            door_code: String::new(),
            door_code_mode: DoorCodeMode::Static,
            door_code_length: DEFAULT_CODE_LENGTH,
            access_before_minutes: 0,
            access_after_minutes: 0,
            wifi_ssid: String::new(),
            arrival_notes: String::new(),
            wifi_password: String::new(),
            access_reveal_hours: DEFAULT_REVEAL_HOURS,
            access_requires_payment: None,
            stay_page: StayPageSettings::default(),
        }
    }
}

impl AccessSettings {
    /// Sets one door code for every stay (the `static` mode).
    #[must_use]
    pub fn door_code(mut self, code: impl Into<String>) -> Self {
        (self.door_code, self.door_code_mode) = (code.into(), DoorCodeMode::Static);
        self
    }

    /// Gives each confirmed stay a code of its own, `digits` long (the `per_stay` mode).
    #[must_use]
    pub fn per_stay_codes(mut self, digits: u8) -> Self {
        (self.door_code_mode, self.door_code_length) = (DoorCodeMode::PerStay, digits);
        self
    }

    /// Opens a stay's code `before` minutes ahead of check-in until `after` minutes past check-out.
    #[must_use]
    pub fn window(mut self, before: u32, after: u32) -> Self {
        (self.access_before_minutes, self.access_after_minutes) = (before, after);
        self
    }

    /// Sets the Wi-Fi network name.
    #[must_use]
    pub fn wifi(mut self, ssid: impl Into<String>) -> Self {
        self.wifi_ssid = ssid.into();
        self
    }

    /// Sets the notes sent with the check-in instructions.
    #[must_use]
    pub fn arrival_notes(mut self, notes: impl Into<String>) -> Self {
        self.arrival_notes = crate::basics::text::paragraphs(&notes.into()).into_owned();
        self
    }

    /// Sets what the guest's stay page shows (house guide, address).
    #[must_use]
    pub fn stay_page(mut self, page: StayPageSettings) -> Self {
        self.stay_page = page;
        self
    }

    /// The faults of these settings, each naming its JSON field.
    pub(crate) fn faults(&self, errors: &mut Vec<FieldError>) {
        let mut check = |ok: bool, field: &str, message: &str| {
            if !ok {
                errors.push(FieldError::new(field, "invalid", message));
            }
        };
        check(CODE_LENGTHS.contains(&self.door_code_length), "doorCodeLength", "must be 4 to 8");
        check(self.access_before_minutes <= MAX_ACCESS_MINUTES, "accessBeforeMinutes", "must be 0 to 10080");
        check(self.access_after_minutes <= MAX_ACCESS_MINUTES, "accessAfterMinutes", "must be 0 to 10080");
        check(self.arrival_notes.len() <= MAX_NOTES_BYTES, "arrivalNotes", "must be at most 4000 bytes");
        check(self.access_reveal_hours <= MAX_REVEAL_HOURS, "accessRevealHours", "must be 0 to 720");
        check(self.wifi_password.len() <= 200, "wifiPassword", "must be at most 200 bytes");
        let texts =
            [("doorCode", &self.door_code), ("wifiSsid", &self.wifi_ssid), ("wifiPassword", &self.wifi_password)];
        errors.extend(texts.into_iter().filter_map(|(field, text)| crate::basics::text::field_error(field, text)));
        errors.extend(crate::basics::text::paragraph_field_error("arrivalNotes", &self.arrival_notes));
        self.stay_page.faults(errors);
    }
}
