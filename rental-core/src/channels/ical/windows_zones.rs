//! Windows time zone names (what Outlook and Exchange put in `TZID`) mapped to IANA zones.
//! The mapping is CLDR's `windowsZones.xml` "001" (primary) territory, for the zones rentals are in.

use chrono_tz::Tz;

/// Windows name → IANA zone, from CLDR's primary mapping.
const WINDOWS_ZONES: &[(&str, Tz)] = &[
    ("AUS Central Standard Time", Tz::Australia__Darwin),
    ("AUS Eastern Standard Time", Tz::Australia__Sydney),
    ("Alaskan Standard Time", Tz::America__Anchorage),
    ("Arab Standard Time", Tz::Asia__Riyadh),
    ("Arabian Standard Time", Tz::Asia__Dubai),
    ("Argentina Standard Time", Tz::America__Argentina__Buenos_Aires),
    ("Atlantic Standard Time", Tz::America__Halifax),
    ("Azores Standard Time", Tz::Atlantic__Azores),
    ("Bangladesh Standard Time", Tz::Asia__Dhaka),
    ("Canada Central Standard Time", Tz::America__Regina),
    ("Cape Verde Standard Time", Tz::Atlantic__Cape_Verde),
    ("Cen. Australia Standard Time", Tz::Australia__Adelaide),
    ("Central America Standard Time", Tz::America__Guatemala),
    ("Central Europe Standard Time", Tz::Europe__Budapest),
    ("Central European Standard Time", Tz::Europe__Warsaw),
    ("Central Standard Time", Tz::America__Chicago),
    ("Central Standard Time (Mexico)", Tz::America__Mexico_City),
    ("China Standard Time", Tz::Asia__Shanghai),
    ("E. Africa Standard Time", Tz::Africa__Nairobi),
    ("E. Australia Standard Time", Tz::Australia__Brisbane),
    ("E. Europe Standard Time", Tz::Europe__Chisinau),
    ("E. South America Standard Time", Tz::America__Sao_Paulo),
    ("Eastern Standard Time", Tz::America__New_York),
    ("Egypt Standard Time", Tz::Africa__Cairo),
    ("FLE Standard Time", Tz::Europe__Kyiv),
    ("GMT Standard Time", Tz::Europe__London),
    ("GTB Standard Time", Tz::Europe__Bucharest),
    ("Greenwich Standard Time", Tz::Atlantic__Reykjavik),
    ("Hawaiian Standard Time", Tz::Pacific__Honolulu),
    ("India Standard Time", Tz::Asia__Kolkata),
    ("Iran Standard Time", Tz::Asia__Tehran),
    ("Israel Standard Time", Tz::Asia__Jerusalem),
    ("Jordan Standard Time", Tz::Asia__Amman),
    ("Korea Standard Time", Tz::Asia__Seoul),
    ("Middle East Standard Time", Tz::Asia__Beirut),
    ("Morocco Standard Time", Tz::Africa__Casablanca),
    ("Mountain Standard Time", Tz::America__Denver),
    ("Mountain Standard Time (Mexico)", Tz::America__Mazatlan),
    ("Nepal Standard Time", Tz::Asia__Kathmandu),
    ("New Zealand Standard Time", Tz::Pacific__Auckland),
    ("Newfoundland Standard Time", Tz::America__St_Johns),
    ("Pacific SA Standard Time", Tz::America__Santiago),
    ("Pacific Standard Time", Tz::America__Los_Angeles),
    ("Pacific Standard Time (Mexico)", Tz::America__Tijuana),
    ("Pakistan Standard Time", Tz::Asia__Karachi),
    ("Romance Standard Time", Tz::Europe__Paris),
    ("Russian Standard Time", Tz::Europe__Moscow),
    ("SA Eastern Standard Time", Tz::America__Cayenne),
    ("SA Pacific Standard Time", Tz::America__Bogota),
    ("SA Western Standard Time", Tz::America__La_Paz),
    ("SE Asia Standard Time", Tz::Asia__Bangkok),
    ("Singapore Standard Time", Tz::Asia__Singapore),
    ("South Africa Standard Time", Tz::Africa__Johannesburg),
    ("Sri Lanka Standard Time", Tz::Asia__Colombo),
    ("Taipei Standard Time", Tz::Asia__Taipei),
    ("Tasmania Standard Time", Tz::Australia__Hobart),
    ("Tokyo Standard Time", Tz::Asia__Tokyo),
    ("Turkey Standard Time", Tz::Europe__Istanbul),
    ("US Eastern Standard Time", Tz::America__Indiana__Indianapolis),
    ("US Mountain Standard Time", Tz::America__Phoenix),
    ("UTC", Tz::UTC),
    ("Venezuela Standard Time", Tz::America__Caracas),
    ("W. Australia Standard Time", Tz::Australia__Perth),
    ("W. Central Africa Standard Time", Tz::Africa__Lagos),
    ("W. Europe Standard Time", Tz::Europe__Berlin),
    ("West Asia Standard Time", Tz::Asia__Tashkent),
];

/// The IANA zone for a Windows zone name, ignoring case.
pub(crate) fn windows_zone(name: &str) -> Option<Tz> {
    WINDOWS_ZONES.iter().find(|(windows, _)| windows.eq_ignore_ascii_case(name)).map(|&(_, tz)| tz)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn common_windows_names_map_to_their_cities() {
        assert_eq!(windows_zone("W. Europe Standard Time"), Some(Tz::Europe__Berlin));
        assert_eq!(windows_zone("romance standard time"), Some(Tz::Europe__Paris));
        assert_eq!(windows_zone("GMT Standard Time"), Some(Tz::Europe__London));
        assert_eq!(windows_zone("Nowhere Standard Time"), None);
    }
}
