//! Building a property in code: one call per area, checked once at the end,
//! as tokio's `runtime::Builder` and reqwest's `ClientBuilder` do.

use chrono_tz::Tz;

use super::access_settings::AccessSettings;
use super::booking_page::BookingPage;
use super::feed_settings::FeedSettings;
use super::message_settings::MessageSettings;
use super::payment_settings::PaymentSettings;
use super::property::Property;
use super::rates::Pricing;
use super::stay_page_settings::StayPageSettings;
use super::stay_rules::StayRules;
use crate::basics::ids::Slug;
use crate::error::{Error, FieldError};

/// A [`Property`] under construction, from [`Property::builder`].
///
/// The name, time zone and pricing are required, as in a JSON import; every
/// other area starts at its `Default`. [`build`](Self::build) reports every
/// fault at once, each naming its JSON field:
///
/// ```
/// use rental_core::{Error, Property, Tz};
///
/// let Err(Error::Validation(faults)) = Property::builder("Sea View").timezone(Tz::Europe__Lisbon).build() else {
///     panic!("built a property without a valid slug, a name or rates");
/// };
/// let fields: Vec<&str> = faults.iter().map(|f| f.field.as_str()).collect();
/// assert_eq!(fields, ["slug", "nightlyRate", "name"]);
/// ```
#[derive(Debug, Clone)]
#[must_use]
pub struct PropertyBuilder {
    slug: String,
    name: String,
    timezone: Option<Tz>,
    currency: String,
    active: bool,
    pricing: Option<Pricing>,
    stay_rules: StayRules,
    access: AccessSettings,
    booking_page: BookingPage,
    messages: MessageSettings,
    feeds: FeedSettings,
    payments: PaymentSettings,
}

impl PropertyBuilder {
    pub(super) fn new(slug: &str) -> Self {
        PropertyBuilder {
            slug: slug.to_owned(),
            name: String::new(),
            timezone: None,
            currency: "USD".to_owned(),
            active: true,
            pricing: None,
            stay_rules: StayRules::default(),
            access: AccessSettings::default(),
            booking_page: BookingPage::default(),
            messages: MessageSettings::default(),
            feeds: FeedSettings::default(),
            payments: PaymentSettings::default(),
        }
    }

    /// Sets the display name (required).
    pub fn name(mut self, name: impl Into<String>) -> Self {
        self.name = name.into();
        self
    }

    /// Sets the time zone the property's days are counted in (required).
    pub fn timezone(mut self, timezone: Tz) -> Self {
        self.timezone = Some(timezone);
        self
    }

    /// Sets the ISO 4217 code every amount is in (default `USD`; see [`crate::Currency`]).
    pub fn currency(mut self, code: &str) -> Self {
        code.clone_into(&mut self.currency);
        self
    }

    /// Lists the property (the default) or keeps it unlisted.
    pub fn active(mut self, active: bool) -> Self {
        self.active = active;
        self
    }

    /// Sets the rates, fees, tax, discounts and guests (required).
    pub fn pricing(mut self, pricing: Pricing) -> Self {
        self.pricing = Some(pricing);
        self
    }

    /// Sets the stay lengths and check-in and check-out times.
    pub fn stay_rules(mut self, rules: StayRules) -> Self {
        self.stay_rules = rules;
        self
    }

    /// Sets the door code, its window, the Wi-Fi name, the arrival notes and
    /// the stay page (the whole access area: call [`Self::stay_page`] after it).
    pub fn access(mut self, access: AccessSettings) -> Self {
        self.access = access;
        self
    }

    /// Sets what the guests' stay page shows (house guide, address), part of
    /// the access area ([`AccessSettings::stay_page`]).
    pub fn stay_page(mut self, page: StayPageSettings) -> Self {
        self.access.stay_page = page;
        self
    }

    /// Sets the booking page.
    pub fn booking_page(mut self, page: BookingPage) -> Self {
        self.booking_page = page;
        self
    }

    /// Sets the guest-message settings.
    pub fn messages(mut self, messages: MessageSettings) -> Self {
        self.messages = messages;
        self
    }

    /// Sets the channel calendars to import.
    pub fn feeds(mut self, feeds: FeedSettings) -> Self {
        self.feeds = feeds;
        self
    }

    /// Sets instant booking, the installments, the deposit and the cancellation policy.
    pub fn payments(mut self, payments: PaymentSettings) -> Self {
        self.payments = payments;
        self
    }

    /// The property, or [`Error::Validation`] naming every field at fault
    /// (a missing time zone or pricing is `required`).
    pub fn build(self) -> Result<Property, Error> {
        let mut missing = Vec::new();
        let slug = Slug::parse(&self.slug).map_err(|e| missing.push(FieldError::new("slug", "invalid", e.to_string())));
        if self.timezone.is_none() {
            missing.push(FieldError::new("timezone", "required", "is required"));
        }
        if self.pricing.is_none() {
            missing.push(FieldError::new("nightlyRate", "required", "is required"));
        }
        let (Ok(slug), Some(timezone), Some(pricing)) = (slug, self.timezone, self.pricing) else {
            let name_fault =
                self.name.trim().is_empty().then(|| FieldError::new("name", "invalid", "must be 1 to 200 characters"));
            missing.extend(name_fault);
            return Err(Error::Validation(missing));
        };
        let property = Property {
            slug,
            name: self.name,
            timezone,
            currency: self.currency,
            active: self.active,
            pricing,
            stay_rules: self.stay_rules,
            access: self.access,
            booking_page: self.booking_page,
            messages: self.messages,
            feeds: self.feeds,
            payments: self.payments,
        };
        property.validate()?;
        Ok(property)
    }
}
