//! A property's channel feeds: its list (the private `icalFeeds`) edited one
//! feed at a time, as the admin dashboard does, and each feed's freshness.

use crate::basics::ids::Source;
use crate::channels::feed_status::{self, SyncStatus};
use crate::channels::pull::FeedState;
use crate::error::{Error, NotFound, Result};
use crate::properties::property::{IcalFeed, Property};
use crate::store::{ReadRecords, ReadTx, Store};

impl<S: Store> crate::service::Calendars<'_, S> {
    /// Adds a feed named `name` (it becomes the source of the bookings it
    /// brings) fetched from `url`, to a property, active or not.
    pub fn add_ical_feed(&self, slug: &str, name: &str, url: &str) -> Result<Property> {
        let name = Source::parse(name.trim()).map_err(|e| Error::invalid("name", "invalid", e.to_string()))?;
        let url = url.trim();
        if !(url.starts_with("http://") || url.starts_with("https://")) || url.len() > 2_000 {
            return Err(Error::invalid("url", "invalid_url", "must be an http or https URL"));
        }
        self.edit_feeds(slug, |feeds| {
            if feeds.iter().any(|f| f.name == name) {
                return Err(Error::invalid("name", "duplicate", format!("a feed named {} exists", name.as_str())));
            }
            feeds.push(IcalFeed { name: name.clone(), url: url.to_owned(), reservation_patterns: Vec::new() });
            Ok(())
        })
    }

    /// Removes the feed named `name` from a property.
    pub fn remove_ical_feed(&self, slug: &str, name: &str) -> Result<Property> {
        self.edit_feeds(slug, |feeds| {
            let before = feeds.len();
            feeds.retain(|f| f.name.as_str() != name);
            if feeds.len() == before {
                return Err(Error::invalid("name", "unknown_feed", format!("no feed named {name:?}")));
            }
            Ok(())
        })
    }

    /// Every configured channel feed of every active property, with its
    /// freshness (`GET /api/v1/sync/status`), by property then feed.
    pub fn sync_status(&self) -> Result<SyncStatus> {
        let now = self.now();
        let properties = self.properties()?;
        let states = self.store.read()?.list_all::<FeedState>("")?;
        let feeds = properties
            .iter()
            .flat_map(|p| p.feeds.ical_feeds.iter().map(move |f| (p, f)))
            .map(|(p, f)| {
                let state = states.iter().find(|s| s.property == p.slug && s.feed == f.name);
                feed_status::status(&p.slug, &f.name, state, now, self.settings.sync_interval)
            })
            .collect();
        Ok(SyncStatus { feeds })
    }

    fn edit_feeds(self, slug: &str, edit: impl Fn(&mut Vec<IcalFeed>) -> Result<()>) -> Result<Property> {
        self.write(|tx| {
            let mut property =
                tx.property(slug)?.ok_or_else(|| Error::NotFound(NotFound::Property(slug.to_owned())))?;
            edit(&mut property.feeds.ical_feeds)?;
            property.validate()?;
            tx.put_property(&property)?;
            Ok(property)
        })
    }
}
