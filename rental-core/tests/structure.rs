//! The shape of the source, read from the files themselves: the layers of
//! rental-core (docs/DESIGN.md, "Layers") and the figures `scripts/structure` prints.
//!
//! The layers test fails on a `crate::` path that points up the declared
//! order; the figures test prints every figure of issue 42 and fails on
//! those already met, so they stay met.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

/// rental-core's top-level modules, lowest first: a module may use those on
/// its own line and below, never one above. Written out in docs/DESIGN.md.
const LAYERS: &[&[&str]] = &[
    &["basics"],
    &["wording"],
    &["error"],
    &["properties"],
    &["channels"],
    &["bookings"],
    &["stays"],
    &["payments", "payment_provider"],
    &["admin"],
    &["outbox"],
    &["metrics"],
    &["store"],
    &["backup"],
    &["demo"],
    &["service"],
    &["conformance", "prelude", "worker", "lib"],
];

/// Upward uses not yet taken apart, as (file, module it reaches up to); each
/// has its reason in docs/DESIGN.md. The list may only shrink: a new upward
/// use fails the test, and so does an entry that no longer happens.
const NOT_YET_DOWN: &[(&str, &str)] = &[];

/// Issue 42's goals. Property's fields: the five of its identity and one per
/// area (pricing with its rules, stay rules, access with the stay page,
/// booking page, messages, feeds, payments): 12.
const MAX_PROPERTY_FIELDS: usize = 12;
const MAX_FACADE_METHODS: usize = 45;
const MAX_LONG_FILES: usize = 3;
const LONG_FILE: usize = 500;
const MAX_README_LINES: usize = 300;
/// The type whose public methods make the facade an embedder reads; the
/// workers' calls (`worker::Worker`) are counted apart.
const FACADE: &[&str] = &["Rental"];
/// One lease type (`basics/lease.rs`) for every worker's claims: deliveries,
/// messages, feed pulls and payments keep what they lease, not a lease of their own.
const MAX_LEASE_TYPES: usize = 1;
const WORKER: &[&str] = &["Worker", "Operations"];

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("rental-core sits in the workspace").to_owned()
}

/// Every `.rs` file under `dir`, by path relative to `dir`.
fn sources(dir: &Path) -> BTreeMap<String, String> {
    let mut files = BTreeMap::new();
    let mut stack = vec![dir.to_owned()];
    while let Some(d) = stack.pop() {
        for entry in fs::read_dir(&d).expect("readable source folder") {
            let path = entry.expect("readable entry").path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                let rel = path.strip_prefix(dir).expect("under dir").to_string_lossy().replace('\\', "/");
                files.insert(rel, fs::read_to_string(&path).expect("readable source"));
            }
        }
    }
    files
}

/// The part of a file that is not its `#[cfg(test)] mod tests { … }` block.
fn outside_tests(text: &str) -> &str {
    let mut offset = 0;
    let mut lines = text.split_inclusive('\n').peekable();
    while let Some(line) = lines.next() {
        if line.trim() == "#[cfg(test)]" && lines.peek().is_some_and(|next| next.trim_start().starts_with("mod ")) {
            let next = lines.peek().map_or("", |n| n.trim_end());
            if next.ends_with('{') {
                return &text[..offset];
            }
        }
        offset += line.len();
    }
    text
}

/// Files that are test modules of their own (`#[cfg(test)] mod name;` in the parent).
fn test_files(files: &BTreeMap<String, String>) -> BTreeSet<String> {
    let mut tests = BTreeSet::new();
    for (rel, text) in files {
        let lines: Vec<&str> = text.lines().map(str::trim).collect();
        for pair in lines.windows(2) {
            let Some(name) = pair[1].strip_prefix("mod ").and_then(|n| n.strip_suffix(';')) else { continue };
            if pair[0] == "#[cfg(test)]" {
                let dir = match rel.rsplit_once('/') {
                    _ if rel == "lib.rs" || rel == "main.rs" => String::new(),
                    Some((dir, "mod.rs")) => format!("{dir}/"),
                    Some(_) | None => format!("{}/", rel.trim_end_matches(".rs")),
                };
                tests.insert(format!("{dir}{name}.rs"));
                tests.insert(format!("{dir}{name}/mod.rs"));
            }
        }
    }
    tests
}

fn top_module(rel: &str) -> String {
    let first = rel.split('/').next().unwrap_or(rel);
    first.trim_end_matches(".rs").to_owned()
}

/// What each name re-exported at the crate root stands for: the top-level
/// module it comes from (`booking` → `bookings`, `Rental` → `service`).
fn root_names(lib: &str, tops: &BTreeSet<String>) -> BTreeMap<String, String> {
    let mut names = BTreeMap::new();
    let flat = lib.replace('\n', " ");
    for statement in flat.split(';') {
        let Some(rest) = statement.trim().strip_prefix("pub use ") else { continue };
        let (path, items) = match rest.split_once("::{") {
            Some((path, items)) => (path, items.trim_end_matches('}').split(',').collect::<Vec<_>>()),
            None => match rest.rsplit_once("::") {
                Some((path, item)) => (path, vec![item]),
                None => continue,
            },
        };
        let first = path.split("::").next().unwrap_or(path).trim().to_owned();
        for item in items {
            let item = item.split(" as ").last().unwrap_or(item).trim();
            if !item.is_empty() {
                names.insert(item.to_owned(), first.clone());
            }
        }
    }
    // Resolve names that come through another name (`property::Property` → `properties`).
    let mut resolved = BTreeMap::new();
    for (name, mut via) in names.clone() {
        for _ in 0..4 {
            if tops.contains(&via) {
                break;
            }
            via = names.get(&via).cloned().unwrap_or(via);
        }
        if tops.contains(&via) {
            resolved.insert(name, via);
        }
    }
    resolved
}

/// Every `crate::` path outside comments and tests, as (file, top-level module reached).
fn crate_uses() -> BTreeSet<(String, String)> {
    let src = workspace().join("rental-core/src");
    let files = sources(&src);
    let tests = test_files(&files);
    let tops: BTreeSet<String> = files.keys().map(|f| top_module(f)).collect();
    let names = root_names(&files["lib.rs"], &tops);
    let mut uses = BTreeSet::new();
    for (rel, text) in &files {
        if tests.contains(rel) {
            continue;
        }
        let me = top_module(rel);
        for line in outside_tests(text).lines().filter(|l| !l.trim_start().starts_with("//")) {
            for (i, _) in line.match_indices("crate::") {
                let rest = &line[i + "crate::".len()..];
                let segments: Vec<&str> = match rest.strip_prefix('{') {
                    Some(group) => group.split('}').next().unwrap_or("").split(',').collect(),
                    None => vec![rest],
                };
                for segment in segments {
                    let name: String =
                        segment.trim().chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
                    let target = if tops.contains(&name) { Some(name) } else { names.get(&name).cloned() };
                    if let Some(target) = target.filter(|t| *t != me) {
                        uses.insert((rel.clone(), target));
                    }
                }
            }
        }
    }
    uses
}

fn layer_of(module: &str) -> usize {
    LAYERS.iter().position(|layer| layer.contains(&module)).unwrap_or_else(|| {
        panic!("rental-core/src/{module} is in no layer: add it to LAYERS here and to docs/DESIGN.md")
    })
}

fn upward_uses() -> BTreeSet<(String, String)> {
    crate_uses().into_iter().filter(|(file, target)| layer_of(target) > layer_of(&top_module(file))).collect()
}

/// Modules of rental-core's top level that sit in an import circle.
fn modules_in_circles() -> BTreeSet<String> {
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (file, target) in crate_uses() {
        graph.entry(top_module(&file)).or_default().insert(target);
    }
    let reaches = |from: &str, to: &str| {
        let (mut seen, mut stack) = (BTreeSet::new(), vec![from.to_owned()]);
        while let Some(m) = stack.pop() {
            for next in graph.get(&m).into_iter().flatten() {
                if next == to {
                    return true;
                }
                if seen.insert(next.clone()) {
                    stack.push(next.clone());
                }
            }
        }
        false
    };
    graph.keys().filter(|m| reaches(m, m)).cloned().collect()
}

fn property_fields() -> usize {
    let text = fs::read_to_string(workspace().join("rental-core/src/properties/property.rs")).expect("property.rs");
    let body = text.split("pub struct Property {").nth(1).expect("Property is defined in property.rs");
    let body = body.split("\n}").next().unwrap_or("");
    body.lines().filter(|l| l.starts_with("    pub ")).count()
}

/// Public methods in `impl` blocks of `types`, anywhere in rental-core.
fn public_methods(types: &[&str]) -> usize {
    let files = sources(&workspace().join("rental-core/src"));
    let mut count = 0;
    for text in files.values() {
        let mut inside = false;
        for line in outside_tests(text).lines() {
            if line.starts_with("impl") {
                let header = line.split(" for ").last().unwrap_or(line);
                inside = types
                    .iter()
                    .any(|t| header.split(|c: char| !c.is_alphanumeric() && c != '_').any(|word| word == *t));
            } else if line.starts_with('}') {
                inside = false;
            } else if inside && (line.starts_with("    pub fn ") || line.starts_with("    pub async fn ")) {
                count += 1;
            }
        }
    }
    count
}

fn deref_escapes() -> usize {
    let files = sources(&workspace().join("rental-core/src"));
    files.values().map(|t| t.matches("&mut **").count()).sum()
}

/// Ways a use case could write past what a write causes (docs/DESIGN.md, "One
/// write path"): a `DerefMut` in `service/` (its transaction, `UseCaseTx`,
/// derefs to the store's for reading only) or the `Recorder` it replaced.
fn write_escapes() -> usize {
    let files = sources(&workspace().join("rental-core/src/service"));
    files
        .values()
        .map(|t| outside_tests(t))
        .map(|t| t.matches("DerefMut").count() + t.matches("Recorder").count())
        .sum()
}

/// Source files of the crates over [`LONG_FILE`] lines outside their tests.
fn long_files() -> Vec<(String, usize)> {
    let mut long = Vec::new();
    for krate in ["rental-core", "rental-server", "rental-cli", "rental-sqlite"] {
        let files = sources(&workspace().join(krate).join("src"));
        let tests = test_files(&files);
        for (rel, text) in &files {
            let lines = outside_tests(text).lines().count();
            if !tests.contains(rel) && lines > LONG_FILE {
                long.push((format!("{krate}/src/{rel}"), lines));
            }
        }
    }
    long
}

/// Types named `…Lease` defined in the crates' sources outside tests, as "file: name".
fn lease_types() -> Vec<String> {
    let mut found = Vec::new();
    for krate in ["rental-core", "rental-server", "rental-cli", "rental-sqlite"] {
        let files = sources(&workspace().join(krate).join("src"));
        let tests = test_files(&files);
        for (rel, text) in files.iter().filter(|(rel, _)| !tests.contains(*rel)) {
            for line in outside_tests(text).lines().filter(|l| !l.trim_start().starts_with("//")) {
                let words: Vec<&str> = line.split(|c: char| !c.is_alphanumeric() && c != '_').collect();
                for pair in words.windows(2) {
                    let defines = ["struct", "enum", "type", "trait"].contains(&pair[0]);
                    if defines && pair[1].ends_with("Lease") {
                        found.push(format!("{krate}/src/{rel}: {}", pair[1]));
                    }
                }
            }
        }
    }
    found
}

fn readme_lines() -> usize {
    fs::read_to_string(workspace().join("README.md")).expect("README.md").lines().count()
}

#[test]
fn no_module_of_rental_core_uses_one_above_it() {
    let upward = upward_uses();
    let known: BTreeSet<(String, String)> =
        NOT_YET_DOWN.iter().map(|(f, m)| ((*f).to_owned(), (*m).to_owned())).collect();
    let new: Vec<_> = upward.difference(&known).collect();
    assert!(new.is_empty(), "these files use a module above their own (docs/DESIGN.md, Layers): {new:?}");
    let gone: Vec<_> = known.difference(&upward).collect();
    assert!(gone.is_empty(), "these upward uses are gone: take them off NOT_YET_DOWN: {gone:?}");
}

#[test]
fn the_figures_already_met_stay_met() {
    let fields = property_fields();
    let circles = modules_in_circles();
    let long = long_files();
    let leases = lease_types();
    let figures = [
        ("Property's top-level public fields", fields, MAX_PROPERTY_FIELDS),
        ("public methods on the facade (Rental)", public_methods(FACADE), MAX_FACADE_METHODS),
        ("`&mut **` in rental-core", deref_escapes(), 0),
        ("`DerefMut` or `Recorder` in service/", write_escapes(), 0),
        ("rental-core top-level modules in an import circle", circles.len(), 0),
        ("source files over 500 lines outside tests", long.len(), MAX_LONG_FILES),
        ("README lines", readme_lines(), MAX_README_LINES),
        ("lease types (named `*Lease`) outside tests", leases.len(), MAX_LEASE_TYPES),
    ];
    for (name, value, goal) in figures {
        let mark = if value <= goal { "met" } else { "not yet" };
        eprintln!("{name}: {value} (goal <= {goal}, {mark})");
    }
    eprintln!("public methods of the workers' calls (worker::Worker): {}", public_methods(WORKER));
    eprintln!("modules in a circle: {circles:?}");
    for (file, lines) in &long {
        eprintln!("  {lines:>5} {file}");
    }
    // Only the figures already met are held here; the rest are printed until they are.
    assert!(fields <= MAX_PROPERTY_FIELDS, "Property has {fields} top-level fields: group new ones into an area");
    let facade = public_methods(FACADE);
    assert!(
        facade <= MAX_FACADE_METHODS,
        "Rental has {facade} public methods: put new ones on an area's view (admin(), calendars(), check_ins()) or the worker"
    );
    assert!(circles.is_empty(), "rental-core's modules {circles:?} import each other: see docs/DESIGN.md, Layers");
    assert_eq!(deref_escapes(), 0, "a `&mut **` reaches past the write path");
    assert_eq!(
        write_escapes(),
        0,
        "a use case's transaction offers the store's writes past UseCaseTx: write a booking, property or block through its methods"
    );
    assert!(
        long.len() <= MAX_LONG_FILES,
        "{} source files are over {LONG_FILE} lines outside tests: split the new one by what it holds: {long:?}",
        long.len()
    );
    let readme = readme_lines();
    assert!(readme <= MAX_README_LINES, "README.md has {readme} lines: move reference parts into docs/");
    assert!(
        leases.len() <= MAX_LEASE_TYPES,
        "a second lease type: {leases:?}; a worker's claim keeps a `lease::Lease` (docs/DESIGN.md, Leases)"
    );
}
