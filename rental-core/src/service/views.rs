//! The facade's areas beside the bookings: [`Admin`] (API keys, webhooks and
//! their deliveries, the admin password, the event log) and [`Calendars`]
//! (blocked nights, the channel calendars imported and the one exported).

use super::Rental;

/// What the operator of a service sets up, from [`Rental::admin`]: API keys,
/// webhooks and their deliveries, the admin dashboard's password, and the
/// event log a dispatcher reads. A program that embeds only the bookings
/// needs none of it.
///
/// It derefs to the [`Rental`], so every use case is reachable from it too.
///
/// ```
/// use rental_core::{MemoryStore, Rental, Scope};
///
/// let rental = Rental::new(MemoryStore::new());
/// let made = rental.admin().create_key("front desk", &[Scope::Read])?;
/// assert_eq!(rental.admin().authenticate(&made.secret)?.map(|k| k.name), Some("front desk".to_owned()));
/// # Ok::<(), rental_core::Error>(())
/// ```
#[derive(Debug)]
pub struct Admin<'r, S>(pub(super) &'r Rental<S>);

/// A property's calendar beside its bookings, from [`Rental::calendars`]:
/// the nights the host blocks, the channel calendars (iCal feeds) it imports
/// and how their pulls went, and the calendar it exports to channels.
///
/// It derefs to the [`Rental`], so every use case is reachable from it too.
///
/// ```
/// use rental_core::{MemoryStore, Rental, demo};
///
/// let rental = Rental::new(MemoryStore::new());
/// rental.import_properties(&[demo::sea_view()])?;
/// let stay = rental_core::stay::Stay::new("2026-12-20".parse()?, "2026-12-23".parse()?)?;
/// let block = rental.calendars().add_block("sea-view", stay, "painting")?;
/// assert_eq!(rental.calendars().blocks("sea-view", None, None)?, vec![block]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug)]
pub struct Calendars<'r, S>(pub(super) &'r Rental<S>);

macro_rules! borrowed_view {
    ($($view:ident),*) => {$(
        impl<S> Clone for $view<'_, S> {
            fn clone(&self) -> Self {
                *self
            }
        }

        impl<S> Copy for $view<'_, S> {}

        impl<S> std::ops::Deref for $view<'_, S> {
            type Target = Rental<S>;
            fn deref(&self) -> &Rental<S> {
                self.0
            }
        }
    )*};
}
borrowed_view!(Admin, Calendars);
