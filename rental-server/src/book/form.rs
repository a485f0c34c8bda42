//! The request form as a guest filled it: kept as typed, to show it again
//! beside what is wrong, and read into the library's booking request.

use rental_core::{FieldError, NewBooking, Source, parse_date};

use crate::admin::form::Form;

/// The hidden field people leave empty; a script that fills every field does not.
pub const HONEYPOT: &str = "reference";

/// What the guest typed, as typed.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Entered {
    /// `checkIn`.
    pub check_in: String,
    /// `checkOut`.
    pub check_out: String,
    /// `guests`.
    pub guests: String,
    /// `guestName`.
    pub guest_name: String,
    /// `guestEmail`.
    pub guest_email: String,
    /// `notes`.
    pub notes: String,
    /// The form's token.
    pub token: String,
    /// The honeypot field.
    pub honeypot: String,
    /// The origin of the site framing the page, if any (set by embed.js).
    pub embed: String,
    /// `children` (of the guests); empty means none.
    pub children: String,
    /// `pets`; empty means none.
    pub pets: String,
    /// `promoCode`; empty means none.
    pub promo_code: String,
}

impl Entered {
    /// The fields of a posted form.
    pub fn from_form(form: &Form) -> Self {
        let field = |name: &str| form.get(name).to_owned();
        Entered {
            check_in: field("checkIn"),
            check_out: field("checkOut"),
            guests: field("guests"),
            guest_name: field("guestName"),
            guest_email: field("guestEmail"),
            notes: field("notes"),
            token: field("token"),
            honeypot: field(HONEYPOT),
            embed: field("embed"),
            children: field("children"),
            pets: field("pets"),
            promo_code: field("promoCode"),
        }
    }

    /// What was typed in the form's field `field` (empty for another name).
    pub fn typed(&self, field: &str) -> &str {
        match field {
            "checkIn" => &self.check_in,
            "checkOut" => &self.check_out,
            "guests" => &self.guests,
            "guestName" => &self.guest_name,
            "guestEmail" => &self.guest_email,
            "notes" => &self.notes,
            _ => "",
        }
    }

    /// The booking request for property `slug`, or each field that cannot be read.
    /// The library checks the rest (name, address, stay rules) as for the API.
    pub fn request(&self, slug: &str) -> Result<NewBooking, Vec<FieldError>> {
        let mut errors = Vec::new();
        let mut date = |field: &str, value: &str| {
            let date = parse_date(value.trim());
            if date.is_none() {
                errors.push(FieldError::new(field, "invalid_date", "pick a date"));
            }
            date
        };
        let (check_in, check_out) = (date("checkIn", &self.check_in), date("checkOut", &self.check_out));
        let guests = self.guests.trim().parse::<u32>().ok().filter(|g| *g >= 1);
        if guests.is_none() {
            errors.push(FieldError::new("guests", "invalid", "must be a number of guests"));
        }
        let (Some(check_in), Some(check_out), Some(guests)) = (check_in, check_out, guests) else {
            return Err(errors);
        };
        let count = |field: &'static str, typed: &str, errors: &mut Vec<FieldError>| {
            let typed = typed.trim();
            let n = if typed.is_empty() { Some(0) } else { typed.parse::<u32>().ok() };
            if n.is_none() {
                errors.push(FieldError::new(field, "invalid", "must be a number"));
            }
            n.unwrap_or(0)
        };
        let (children, pets) = (count("children", &self.children, &mut errors), count("pets", &self.pets, &mut errors));
        if !errors.is_empty() {
            return Err(errors);
        }
        let promo = self.promo_code.trim();
        let notes = self.notes.trim();
        let property = slug
            .parse()
            .map_err(|e: rental_core::IdError| vec![FieldError::new(e.field(), "invalid", e.to_string())])?;
        Ok(NewBooking {
            property,
            check_in,
            check_out,
            guest_name: self.guest_name.clone(),
            guest_email: self.guest_email.clone(),
            guests,
            notes: (!notes.is_empty()).then(|| notes.to_owned()),
            source: Some(Source::page()),
            children,
            pets,
            promo_code: (!promo.is_empty()).then(|| promo.to_owned()),
            locale: None,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_filled_form_becomes_a_request_from_the_page() {
        let form = Form::parse(
            "checkIn=2026-12-20&checkOut=2026-12-23&guests=2&guestName=Ada+L&guestEmail=ada%40example.com&notes=+late+&token=t",
        )
        .unwrap();
        let req = Entered::from_form(&form).request("sea-view").unwrap();
        assert_eq!((req.guests, req.notes.as_deref()), (2, Some("late")));
        assert_eq!(req.source, Some(Source::page()));
        assert_eq!(req.check_in.to_string(), "2026-12-20");
    }

    #[test]
    fn unreadable_dates_and_guests_are_named_by_field() {
        let form = Form::parse("checkIn=soon&checkOut=&guests=0").unwrap();
        let errors = Entered::from_form(&form).request("sea-view").unwrap_err();
        let fields: Vec<&str> = errors.iter().map(|e| e.field.as_str()).collect();
        assert_eq!(fields, ["checkIn", "checkOut", "guests"]);
    }
}
