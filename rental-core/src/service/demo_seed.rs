//! The demo data in a store: what `rental serve --demo` starts with.

use super::Rental;
use crate::demo;
use crate::error::Result;
use crate::store::Store;

impl<S: Store> Rental<S> {
    /// Fills an empty store with the sample properties and a few bookings around
    /// now: a confirmed guest arriving at Sea View today, a pending request at the
    /// Alpine Cabin, a confirmed stay and a block at the Harbour Loft. Returns
    /// false, writing nothing, when the store already has properties.
    pub fn seed_demo(&self) -> Result<bool> {
        if !self.all_properties()?.is_empty() {
            return Ok(false);
        }
        self.import_properties(&demo::with_booking_pages(demo::properties()))?;
        let now = self.now();
        let stays = [
            (demo::sea_view(), 0, 3, "Grace Hopper", 2, true),
            (demo::alpine_cabin(), 10, 5, "Alan Turing", 5, false),
            (demo::harbour_loft(), 3, 2, "Katherine Johnson", 2, true),
        ];
        for (property, in_days, nights, guest, guests, confirm) in stays {
            let today = crate::stays::occupancy::today_in(property.timezone, now);
            let check_in = today + chrono::Days::new(in_days);
            let request = crate::NewBooking {
                property: property.slug.clone(),
                check_in,
                check_out: check_in + chrono::Days::new(nights),
                guest_name: guest.into(),
                guest_email: format!("{}@example.com", guest.split(' ').next().unwrap_or("guest").to_lowercase()),
                guests,
                notes: None,
                source: None,
                children: 0,
                pets: 0,
                promo_code: None,
                locale: None,
            };
            let booking = self.create_booking(&request, None)?.booking;
            if confirm {
                self.update_booking(booking.code.as_str(), &crate::Action::Confirm)?;
            }
        }
        let loft_today = crate::stays::occupancy::today_in(chrono_tz::Pacific::Auckland, now);
        let block_start = loft_today + chrono::Days::new(20);
        let block = crate::stay::Stay::new(block_start, block_start + chrono::Days::new(4))
            .map_err(|e| crate::Error::invalid("block", "invalid", e.to_string()))?;
        self.calendars().add_block("harbour-loft", block, "window cleaning")?;
        Ok(true)
    }
}

#[cfg(test)]
mod tests {
    use crate::{MemoryStore, Rental};

    #[test]
    fn seeding_fills_an_empty_store_once() {
        let rental = Rental::new(MemoryStore::new());
        assert!(rental.seed_demo().unwrap());
        let summary = rental.summary().unwrap();
        assert_eq!(summary.totals.properties, 3);
        assert_eq!(summary.totals.occupied_tonight, 1, "the Sea View guest arrives today");
        assert_eq!(summary.totals.pending_bookings, 1);
        assert!(!rental.seed_demo().unwrap(), "a second seed writes nothing");
    }
}
