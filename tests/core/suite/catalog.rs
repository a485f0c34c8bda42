//! docs/API.md section 3 as the library keeps it: properties, active or not.

use rental_core::{Error, NotFound, QuoteRequest, Slug, Store, demo};
use rental_tests::{Harness, d, new_booking, store_suite};

store_suite!(
    an_inactive_property_is_not_found_for_any_use,
    an_inactive_property_is_still_kept,
    import_upserts_by_slug_and_counts_the_new_ones,
);

fn is_not_found<T: std::fmt::Debug>(got: &Result<T, Error>) -> bool {
    matches!(got, Err(Error::NotFound(NotFound::Property(s))) if s == "sea-view")
}

fn an_inactive_property_is_not_found_for_any_use<S: Store>(h: &Harness<S>) {
    h.import_properties(&[{
        let mut edited = demo::sea_view();
        edited.active = false;
        edited
    }])
    .unwrap();
    let quote = QuoteRequest {
        property: "sea-view".parse().unwrap(),
        check_in: d("2026-12-20"),
        check_out: d("2026-12-27"),
        guests: 2,
        children: 0,
        pets: 0,
        promo_code: None,
    };
    assert!(is_not_found(&h.property("sea-view")));
    assert!(is_not_found(&h.availability("sea-view", None, None)));
    assert!(is_not_found(&h.quote(&quote)));
    assert!(is_not_found(&h.create_booking(&new_booking("sea-view", "2026-12-20", "2026-12-27", 2), None)));
    let stay = rental_core::Stay::new(d("2026-12-20"), d("2026-12-27")).unwrap();
    assert!(is_not_found(&h.calendars().add_block("sea-view", stay, "x")));
    let listed: Vec<String> = h.properties().unwrap().iter().map(|p| p.slug.to_string()).collect();
    assert_eq!(listed, ["alpine-cabin", "harbour-loft"]);
}

fn an_inactive_property_is_still_kept<S: Store>(h: &Harness<S>) {
    h.import_properties(&[{
        let mut edited = demo::sea_view();
        edited.active = false;
        edited
    }])
    .unwrap();
    let all: Vec<(String, bool)> = h.all_properties().unwrap().iter().map(|p| (p.slug.to_string(), p.active)).collect();
    assert_eq!(all, [("alpine-cabin".into(), true), ("harbour-loft".into(), true), ("sea-view".into(), false)]);
    h.import_properties(&[demo::sea_view()]).unwrap();
    assert_eq!(h.property("sea-view").unwrap(), demo::sea_view(), "reactivated as imported");
}

fn import_upserts_by_slug_and_counts_the_new_ones<S: Store>(h: &Harness<S>) {
    let renamed = {
        let mut edited = demo::sea_view();
        edited.name = "Sea View".into();
        edited
    };
    let lake = {
        let mut edited = demo::sea_view();
        edited.slug = Slug::parse("lake-house").unwrap();
        edited.name = "Lake House".into();
        edited
    };
    assert_eq!(h.import_properties(&[renamed, lake.clone()]).unwrap(), 1);
    assert_eq!(h.property("sea-view").unwrap().name, "Sea View");
    assert_eq!(h.property("lake-house").unwrap(), lake);
    assert_eq!(h.properties().unwrap().len(), 4);
}
