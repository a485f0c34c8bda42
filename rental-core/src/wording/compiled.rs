//! Message templates compiled once: the built-in ones when first used, a
//! property's own the first time each source is rendered, kept until it changes.
//!
//! Compiling was most of a message's cost (a subject recorded with each
//! booking compiled three templates and rendered all of them); a compiled
//! template renders in a few microseconds. A property's template is kept
//! under its source, so an edited template is a new entry and the old one is
//! never used again; the cache is emptied when it holds
//! [`MAX_CUSTOM`] of them, so edits cannot grow it without bound. Each
//! template is kept with the names it reads, so a caller can build only those.

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, OnceLock, PoisonError, RwLock};

use minijinja::value::Value;
use minijinja::{AutoEscape, Environment, Template, UndefinedBehavior};

use super::MessageKind;
use super::template::{Part, builtin_in};
use crate::basics::locale::Locale;

/// How much work one template may do: ample for any wording, far too little for a runaway loop.
const FUEL: u64 = 20_000;

/// The most property templates kept compiled before the cache starts again.
pub const MAX_CUSTOM: usize = 512;

/// The sandbox every template runs in: strict undefined variables, fuel, no
/// loader. A name ending in `.html` escapes every value; any other does not.
pub(super) fn sandbox() -> Environment<'static> {
    let mut env = Environment::new();
    env.set_undefined_behavior(UndefinedBehavior::Strict);
    env.set_fuel(Some(FUEL));
    env.set_recursion_limit(20);
    // The names are ours (see `extension`), always lower case.
    env.set_auto_escape_callback(|name| {
        if std::path::Path::new(name).extension().is_some_and(|e| e == "html") {
            AutoEscape::Html
        } else {
            AutoEscape::None
        }
    });
    env
}

/// The suffix that decides a part's escaping.
fn extension(part: Part) -> &'static str {
    match part {
        Part::Html => ".html",
        Part::Subject | Part::Text => ".txt",
    }
}

/// The top-level names a template reads, found once when it is compiled.
type Names = Arc<HashSet<String>>;

/// The names `template` reads.
fn names_of(template: &Template<'_, '_>) -> Names {
    Arc::new(template.undeclared_variables(false))
}

/// The built-in templates, every kind and part, compiled on first use, each with its names.
fn builtins() -> &'static (Environment<'static>, HashMap<String, Names>) {
    static BUILTINS: OnceLock<(Environment<'static>, HashMap<String, Names>)> = OnceLock::new();
    BUILTINS.get_or_init(|| {
        let mut env = sandbox();
        for locale in Locale::ALL {
            for kind in MessageKind::ALL {
                for part in Part::ALL {
                    // The built-ins are tested to compile (template.rs): a failure here is a bug in this crate.
                    env.add_template_owned(builtin_name(locale, kind, part), builtin_in(locale, kind, part))
                        .unwrap_or_else(|e| panic!("built-in {locale} {kind} {} template: {e}", part.as_str()));
                }
            }
        }
        let names = env.templates().map(|(name, template)| (name.to_owned(), names_of(&template))).collect();
        (env, names)
    })
}

fn builtin_name(locale: Locale, kind: MessageKind, part: Part) -> String {
    format!("{locale}.{kind}.{}{}", part.as_str(), extension(part))
}

/// The property templates compiled so far, each named by its part and source, with their names.
struct Custom {
    env: Environment<'static>,
    names: HashMap<String, Names>,
}

fn custom() -> &'static RwLock<Custom> {
    static CUSTOM: OnceLock<RwLock<Custom>> = OnceLock::new();
    CUSTOM.get_or_init(|| RwLock::new(Custom { env: sandbox(), names: HashMap::new() }))
}

/// `part` of `kind` rendered with the value `value` makes of the names the
/// template reads: from `source` (a property's own template) when given,
/// else the built-in one of `locale`. The error is minijinja's.
pub(super) fn render_part(
    locale: Locale,
    kind: MessageKind,
    part: Part,
    source: Option<&str>,
    value: impl FnOnce(&HashSet<String>) -> Value,
) -> Result<String, minijinja::Error> {
    let Some(source) = source else {
        let (env, names) = builtins();
        let name = builtin_name(locale, kind, part);
        let template = env.get_template(&name)?;
        return template.render(value(names.get(&name).map_or(&HashSet::new(), |n| n)));
    };
    // The source is the name: equal sources share one compiled template, and an edit misses.
    let name = format!("{source}\u{0}{}", extension(part));
    {
        let custom = custom().read().unwrap_or_else(PoisonError::into_inner);
        if let (Ok(template), Some(names)) = (custom.env.get_template(&name), custom.names.get(&name)) {
            return template.render(value(names));
        }
    }
    let mut custom = custom().write().unwrap_or_else(PoisonError::into_inner);
    let Custom { env, names } = &mut *custom;
    if env.templates().count() >= MAX_CUSTOM {
        env.clear_templates();
        names.clear();
    }
    env.add_template_owned(name.clone(), source.to_owned())?;
    let template = env.get_template(&name)?;
    let read = names.entry(name).or_insert_with(|| names_of(&template));
    template.render(value(read))
}

#[cfg(test)]
mod tests {
    use minijinja::value::Serde;

    use super::*;

    #[test]
    fn a_property_template_is_compiled_once_and_an_edit_is_a_new_one() {
        let value = Value::from(Serde(serde_json::json!({"guest_name": "Ada <a>"})));
        let value = |_: &HashSet<String>| value.clone();
        let html =
            render_part(Locale::En, MessageKind::Confirmed, Part::Html, Some("<p>{{ guest_name }} once</p>"), value);
        assert_eq!(html.unwrap(), "<p>Ada &lt;a&gt; once</p>");
        let text =
            render_part(Locale::En, MessageKind::Confirmed, Part::Text, Some("<p>{{ guest_name }} once</p>"), value);
        assert_eq!(text.unwrap(), "<p>Ada <a> once</p>", "the same source as text is not escaped");
        let edited =
            render_part(Locale::En, MessageKind::Confirmed, Part::Subject, Some("{{ guest_name }} again"), value);
        assert_eq!(edited.unwrap(), "Ada <a> again");
    }

    #[test]
    fn the_cache_starts_again_once_full() {
        let value = Value::from(Serde(serde_json::json!({"n": 1})));
        for i in 0..=MAX_CUSTOM {
            let source = format!("{{{{ n }}}} of {i} in a full cache");
            let out =
                render_part(Locale::En, MessageKind::Changed, Part::Subject, Some(&source), |_| value.clone()).unwrap();
            assert_eq!(out, format!("1 of {i} in a full cache"));
        }
        assert!(custom().read().unwrap().env.templates().count() <= MAX_CUSTOM);
    }
}
