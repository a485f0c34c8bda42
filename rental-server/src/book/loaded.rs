//! What a property's booking page shows, read in one go: the property (if its
//! page is on), its months from the asked month, and the quote of the asked stay.

use chrono::{Days, NaiveDate};
use rental_core::occupancy::today_in;
use rental_core::stay::last_check_in;
use rental_core::{Error, Locale, NotFound, Property, QuoteRequest, Rental, Store, parse_date};

use super::calendar::{self, MONTHS_SHOWN, Month, add_months, lookahead, month_of};
use super::form::Entered;
use super::view::{Asked, Quoted};
use super::words;
use crate::request::Query;

/// What the page of a property shows, read in one go.
pub(super) struct Loaded {
    pub(super) property: Property,
    pub(super) months: Vec<Month>,
    pub(super) prev: Option<NaiveDate>,
    pub(super) next: Option<NaiveDate>,
    pub(super) quoted: Option<Quoted>,
}

/// The property, if its page is on.
pub(super) fn listed<S: Store>(r: &Rental<S>, slug: &str) -> rental_core::Result<Property> {
    let property = r.property(slug)?;
    if property.booking_page.enabled { Ok(property) } else { Err(Error::NotFound(NotFound::Property(slug.to_owned()))) }
}

/// Reads the property, its months from `month` (or the stay's, or today's) and the stay's quote.
pub(super) fn load<S: Store>(
    r: &Rental<S>,
    slug: &str,
    month: Option<NaiveDate>,
    asked: &Asked,
    accept: Option<Locale>,
) -> rental_core::Result<Loaded> {
    let property = listed(r, slug)?;
    let lang = accept.unwrap_or(property.messages.language);
    let today = today_in(property.timezone, r.now());
    let last = last_check_in(today);
    let (earliest, latest) = (month_of(today), month_of(last));
    let first = month.or(asked.check_in_date.map(month_of)).unwrap_or(earliest).clamp(earliest, latest);
    let end = add_months(first, MONTHS_SHOWN) + Days::new(u64::from(lookahead(&property)));
    let to = end.min(first + Days::new(u64::from(rental_core::stay::MAX_NIGHTS)));
    let availability = r.availability(slug, Some(first), Some(to))?;
    let bounds = calendar::Bounds { today, last_check_in: last };
    let months =
        calendar::months(&property, first, &availability.nights, bounds, (asked.check_in_date, asked.check_out_date));
    let prev = (first > earliest)
        .then(|| first.checked_sub_months(chrono::Months::new(MONTHS_SHOWN)).unwrap_or(earliest).max(earliest));
    let next = (add_months(first, MONTHS_SHOWN) <= latest).then(|| add_months(first, MONTHS_SHOWN));
    let quoted = quote(r, slug, asked, property.pricing.base_guests, lang)?;
    Ok(Loaded { property, months, prev, next, quoted })
}

/// The quote of the stay asked about, once both dates are given (for `base_guests` when no number is).
pub(super) fn quote<S: Store>(
    r: &Rental<S>,
    slug: &str,
    asked: &Asked,
    base_guests: u32,
    lang: Locale,
) -> rental_core::Result<Option<Quoted>> {
    if asked.check_in.is_empty() || asked.check_out.is_empty() {
        return Ok(None);
    }
    let mut unreadable = Vec::new();
    let [check_in, check_out, guests_words] = crate::lang::words(lang).unreadable;
    if asked.check_in_date.is_none() {
        unreadable.push(check_in.to_owned());
    }
    if asked.check_out_date.is_none() {
        unreadable.push(check_out.to_owned());
    }
    let guests = asked.guests.trim().parse::<u32>().ok().filter(|g| *g >= 1);
    if !asked.guests.is_empty() && guests.is_none() {
        unreadable.push(guests_words.to_owned());
    }
    let (Some(check_in), Some(check_out)) = (asked.check_in_date, asked.check_out_date) else {
        return Ok(Some(Quoted::Unreadable(unreadable)));
    };
    if !unreadable.is_empty() {
        return Ok(Some(Quoted::Unreadable(unreadable)));
    }
    let guests = guests.unwrap_or(base_guests);
    let count = |typed: &str| typed.trim().parse::<u32>().unwrap_or(0);
    let request = QuoteRequest {
        children: count(&asked.children),
        pets: count(&asked.pets),
        promo_code: Some(asked.promo_code.clone()).filter(|c| !c.is_empty()),
        ..QuoteRequest::new(slug.parse()?, check_in, check_out, guests)
    };
    match r.quote(&request) {
        Ok(q) => Ok(Some(Quoted::Priced(q))),
        Err(Error::Validation(errors)) => {
            Ok(Some(Quoted::Unreadable(errors.iter().map(|e| words::for_guest(e, "", lang)).collect())))
        }
        Err(e) => Err(e),
    }
}

impl Asked {
    /// The stay in the page's query.
    pub(super) fn of(query: &Query) -> Self {
        let get = |name: &str| query.get(name).unwrap_or_default().trim().to_owned();
        let (check_in, check_out, guests) = (get("checkIn"), get("checkOut"), get("guests"));
        Asked {
            check_in_date: parse_date(&check_in),
            check_out_date: parse_date(&check_out),
            check_in,
            check_out,
            guests,
            children: get("children"),
            pets: get("pets"),
            promo_code: get("promoCode"),
        }
    }

    /// The stay of a posted form.
    pub(super) fn entered(e: &Entered) -> Self {
        let (check_in, check_out) = (e.check_in.trim().to_owned(), e.check_out.trim().to_owned());
        Asked {
            check_in_date: parse_date(&check_in),
            check_out_date: parse_date(&check_out),
            check_in,
            check_out,
            guests: e.guests.trim().to_owned(),
            children: e.children.trim().to_owned(),
            pets: e.pets.trim().to_owned(),
            promo_code: e.promo_code.trim().to_owned(),
        }
    }
}
