//! docs/API.md section 2 as the library keeps it: API keys.

use chrono::TimeDelta;
use rental_core::keys::Scope;
use rental_core::{Error, NotFound, Store};
use rental_tests::{Harness, NOW, at, store_suite};

use super::faults;

store_suite!(
    a_new_key_has_the_contract_shape_and_authenticates,
    authenticating_notes_the_last_use_about_once_a_minute,
    a_revoked_key_authenticates_nothing,
    a_key_can_be_revoked_by_its_name,
    unknown_and_malformed_secrets_authenticate_nothing,
    a_key_needs_a_name_and_a_scope,
    revoking_an_unknown_key_is_not_found,
);

fn a_new_key_has_the_contract_shape_and_authenticates<S: Store>(h: &Harness<S>) {
    let new = h.admin().create_key("website", &[Scope::Write, Scope::Read, Scope::Read]).unwrap();
    let random = new.secret.strip_prefix("rk_").unwrap_or_else(|| panic!("{} lacks rk_", new.secret));
    assert_eq!(random.len(), 32);
    assert!(random.bytes().all(|b| b.is_ascii_alphanumeric()), "{}", new.secret);
    let id = new.key.id.strip_prefix("key_").unwrap();
    assert!(id.len() == 12 && id.bytes().all(|b| b.is_ascii_alphanumeric()), "{}", new.key.id);
    assert_eq!((new.key.name.as_str(), new.key.scopes.as_slice()), ("website", &[Scope::Read, Scope::Write][..]));
    assert_eq!((new.key.created_at, new.key.last_used_at, new.key.revoked_at), (at(NOW), None, None));

    let found = h.admin().authenticate(&new.secret).unwrap().expect("the new key authenticates");
    assert_eq!((found.id.as_str(), found.last_used_at), (new.key.id.as_str(), Some(at(NOW))));
    assert!(found.allows(Scope::Read) && found.allows(Scope::Write));
    let listed = h.admin().keys().unwrap();
    assert_eq!(listed.len(), 1);
    assert_eq!(listed[0].last_used_at, Some(at(NOW)), "the last use is stored");
    assert_ne!(h.admin().create_key("other", &[Scope::Read]).unwrap().secret, new.secret);
}

fn authenticating_notes_the_last_use_about_once_a_minute<S: Store>(h: &Harness<S>) {
    let new = h.admin().create_key("poller", &[Scope::Read]).unwrap();
    h.admin().authenticate(&new.secret).unwrap().unwrap();
    h.advance(TimeDelta::seconds(30));
    assert_eq!(h.admin().authenticate(&new.secret).unwrap().unwrap().last_used_at, Some(at(NOW)));
    h.advance(TimeDelta::seconds(31));
    let later = h.admin().authenticate(&new.secret).unwrap().unwrap();
    assert_eq!(later.last_used_at, Some(h.now()));
    assert_eq!(h.admin().keys().unwrap()[0].last_used_at, Some(h.now()));
}

fn a_revoked_key_authenticates_nothing<S: Store>(h: &Harness<S>) {
    let new = h.admin().create_key("website", &[Scope::Read]).unwrap();
    let kept = h.admin().create_key("kept", &[Scope::Read]).unwrap();
    let revoked = h.admin().revoke_key(&new.key.id).unwrap();
    assert_eq!(revoked.revoked_at, Some(at(NOW)));
    assert!(!revoked.allows(Scope::Read));
    assert_eq!(h.admin().authenticate(&new.secret).unwrap(), None);
    assert!(h.admin().authenticate(&kept.secret).unwrap().is_some(), "other keys still work");
    assert_eq!(h.admin().revoke_key(&new.key.id).unwrap().revoked_at, Some(at(NOW)), "revoking again changes nothing");
}

fn a_key_can_be_revoked_by_its_name<S: Store>(h: &Harness<S>) {
    let new = h.admin().create_key("laptop", &[Scope::Write]).unwrap();
    assert_eq!(h.admin().revoke_key("laptop").unwrap().id, new.key.id);
    assert_eq!(h.admin().authenticate(&new.secret).unwrap(), None);
}

fn unknown_and_malformed_secrets_authenticate_nothing<S: Store>(h: &Harness<S>) {
    let new = h.admin().create_key("website", &[Scope::Read]).unwrap();
    let mut other = new.secret.clone();
    other.replace_range(3..4, if &new.secret[3..4] == "A" { "B" } else { "A" });
    for secret in [other.as_str(), "", "rk_short", &new.secret[..34], &format!("{}x", new.secret), &new.key.id] {
        assert_eq!(h.admin().authenticate(secret).unwrap(), None, "{secret:?}");
    }
}

fn a_key_needs_a_name_and_a_scope<S: Store>(h: &Harness<S>) {
    assert_eq!(faults(h.admin().create_key("  ", &[Scope::Read])), [("name".to_owned(), "invalid")]);
    assert_eq!(faults(h.admin().create_key("ok", &[])), [("scopes".to_owned(), "required")]);
    assert!(h.admin().keys().unwrap().is_empty());
}

fn revoking_an_unknown_key_is_not_found<S: Store>(h: &Harness<S>) {
    assert!(matches!(h.admin().revoke_key("key_nope"), Err(Error::NotFound(NotFound::Key(_)))));
}
