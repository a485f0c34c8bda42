//! docs/API.md section 16 on every store: generated secrets in the Standard
//! Webhooks form, and rotation: the replaced secret signs for 24 h more, then is dropped.

use chrono::TimeDelta;
use rental_core::webhook::{OVERLAP, Subscription, Webhook, sign_standard};
use rental_core::{Error, Store};
use rental_tests::{Harness, store_suite};

store_suite!(
    a_generated_secret_is_whsec_and_the_base64_of_32_bytes_that_a_standard_library_takes,
    a_rotated_secret_signs_beside_the_new_one_for_24_hours_then_is_dropped,
    two_rotations_in_a_day_sign_with_three_secrets,
    a_rotation_with_a_bad_or_reused_secret_or_an_unknown_webhook_changes_nothing,
    a_secret_in_the_whsec_form_must_be_base64_to_register,
);

fn hook<S: Store>(h: &Harness<S>, secret: Option<&str>) -> Webhook {
    h.rental
        .admin()
        .add_webhook("https://a.example/h", Subscription::parse("*").unwrap(), secret.map(str::to_owned))
        .unwrap()
}

/// The secrets that sign the webhook's deliveries now, the current one first:
/// a test event made due, after a dispatcher poll's fan-out.
fn signing<S: Store>(h: &Harness<S>, id: &str) -> Vec<String> {
    let test = h.rental.admin().send_test_event(id).unwrap();
    h.rental.worker().fan_out(100).unwrap();
    let due = h.rental.worker().due_deliveries(100).unwrap();
    due.into_iter().find(|d| d.delivery.id == test.id).expect("the test event is due").secrets
}

fn stored_secrets<S: Store>(h: &Harness<S>, id: &str) -> Vec<String> {
    let webhook = h.rental.admin().webhooks().unwrap().into_iter().find(|w| w.id == id).unwrap();
    webhook.secrets.all().iter().map(|s| s.value.clone()).collect()
}

fn a_generated_secret_is_whsec_and_the_base64_of_32_bytes_that_a_standard_library_takes<S: Store>(h: &Harness<S>) {
    let (a, b) = (hook(h, None), hook(h, None));
    for secret in [a.secret(), b.secret()] {
        let base64 = secret.strip_prefix("whsec_").unwrap_or_else(|| panic!("{secret}"));
        assert_eq!(base64.len(), 44, "32 bytes are 44 base64 characters: {secret}");
        assert!(base64.ends_with('=') && !base64.ends_with("=="), "{secret}");
        let foreign = standardwebhooks::Webhook::new(secret).expect("the reference library reads the secret");
        let body = br#"{"event":"booking.created"}"#;
        assert_eq!(
            foreign.sign("dlv_1", 1_700_000_000, body).unwrap(),
            sign_standard(secret, "dlv_1", 1_700_000_000, body)
        );
    }
    assert_ne!(a.secret(), b.secret());
}

fn a_rotated_secret_signs_beside_the_new_one_for_24_hours_then_is_dropped<S: Store>(h: &Harness<S>) {
    let old = hook(h, Some("whsec_b2xkLXNlY3JldC1rZXk="));
    assert_eq!(signing(h, &old.id), [old.secret()]);

    let rotated = h.rental.admin().rotate_webhook_secret(&old.id, None).unwrap();
    let new = rotated.secret().to_owned();
    assert!(new.starts_with("whsec_") && new != old.secret(), "{new}");
    assert_eq!(rotated.secrets.overlap_ends(h.rental.now()), Some(h.rental.now() + OVERLAP));
    assert_eq!(signing(h, &old.id), [new.as_str(), old.secret()], "the new secret first, then the previous one");

    h.advance(OVERLAP - TimeDelta::milliseconds(1));
    assert_eq!(signing(h, &old.id), [new.as_str(), old.secret()], "a millisecond before 24 h both still sign");
    assert_eq!(stored_secrets(h, &old.id), [old.secret(), new.as_str()]);

    h.advance(TimeDelta::milliseconds(1));
    assert_eq!(signing(h, &old.id), [new.as_str()], "at 24 h only the new one signs");
    assert_eq!(stored_secrets(h, &old.id), [new.as_str()], "and the previous one is gone from the store");
}

fn two_rotations_in_a_day_sign_with_three_secrets<S: Store>(h: &Harness<S>) {
    let first = hook(h, Some("first-secret"));
    h.rental.admin().rotate_webhook_secret(&first.id, Some("second-secret".into())).unwrap();
    h.advance(TimeDelta::hours(3));
    h.rental.admin().rotate_webhook_secret(&first.id, Some("third-secret".into())).unwrap();
    assert_eq!(signing(h, &first.id), ["third-secret", "second-secret", "first-secret"]);
    h.advance(TimeDelta::hours(21));
    assert_eq!(signing(h, &first.id), ["third-secret", "second-secret"], "the first one's 24 h are over");
    h.advance(TimeDelta::hours(3));
    assert_eq!(signing(h, &first.id), ["third-secret"]);
}

fn a_rotation_with_a_bad_or_reused_secret_or_an_unknown_webhook_changes_nothing<S: Store>(h: &Harness<S>) {
    let webhook = hook(h, Some("first-secret"));
    h.rental.admin().rotate_webhook_secret(&webhook.id, Some("second-secret".into())).unwrap();
    let before = h.rental.admin().webhooks().unwrap();
    let refusals = [
        ("short", "invalid"),
        ("whsec_not_base64!", "invalid"),
        ("second-secret", "duplicate"),
        ("first-secret", "duplicate"),
    ];
    for (secret, code) in refusals {
        let faults = super::faults(h.rental.admin().rotate_webhook_secret(&webhook.id, Some(secret.into())));
        assert_eq!(faults, [("secret".to_owned(), code)], "{secret}");
    }
    assert!(matches!(h.rental.admin().rotate_webhook_secret("wh_nobody", None), Err(Error::NotFound(_))));
    assert_eq!(h.rental.admin().webhooks().unwrap(), before);
}

fn a_secret_in_the_whsec_form_must_be_base64_to_register<S: Store>(h: &Harness<S>) {
    let url = "https://a.example/h";
    let all = || Subscription::parse("*").unwrap();
    for secret in ["whsec_the_tests_own_secret", "whsec_Zm9vYmFy=", "whsec_"] {
        let faults = super::faults(h.rental.admin().add_webhook(url, all(), Some(secret.into())));
        assert_eq!(faults, [("secret".to_owned(), "invalid")], "{secret}");
    }
    assert!(h.rental.admin().webhooks().unwrap().is_empty());
    for secret in ["whsec_Zm9vYmFyYmF6", "a plain secret without the prefix"] {
        assert_eq!(h.rental.admin().add_webhook(url, all(), Some(secret.into())).unwrap().secret(), secret);
    }
}
