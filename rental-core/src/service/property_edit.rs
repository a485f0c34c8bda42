//! Editing a property's settings (rates, seasons, fees, rules, access) in one
//! write, checked as an import checks it; the admin dashboard's property form.

use super::Rental;
use crate::error::{Error, NotFound, Result};
use crate::property::Property;
use crate::store::{ReadTx, Store};

impl<S: Store> Rental<S> {
    /// Reads property `slug` (active or not), lets `edit` change it (again, if
    /// the store asks for the write to be retried), checks the
    /// result with [`Property::validate`] and stores it, all in one write
    /// transaction. The slug cannot change. A refused edit writes nothing.
    pub fn edit_property(&self, slug: &str, edit: impl Fn(&mut Property)) -> Result<Property> {
        self.write(|tx| {
            let mut property =
                tx.property(slug)?.ok_or_else(|| Error::NotFound(NotFound::Property(slug.to_owned())))?;
            let slug = property.slug.clone();
            edit(&mut property);
            property.slug = slug;
            property.validate()?;
            tx.put_property(&property)?;
            Ok(property)
        })
    }
}
