//! The crate graph is the layer order of `docs/architecture.md`: every engine crate's
//! `Cargo.toml` names exactly the engine crates its row in the "Crates are the layers" table
//! lists, and each of those sits above it in the table. The compiler then refuses any `use`
//! against the order, since a crate can only name what it depends on.

use crate::support::checkout;
use std::collections::BTreeSet;

/// The text of `docs/architecture.md` from `marker` to the next `## ` heading.
fn architecture_from(marker: &str) -> String {
    let doc = std::fs::read_to_string(checkout().join("docs/architecture.md"))
        .expect("docs/architecture.md is readable");
    let after = doc
        .split(marker)
        .nth(1)
        .unwrap_or_else(|| panic!("docs/architecture.md has no {marker:?}"));
    after.split("\n## ").next().unwrap_or(after).to_owned()
}

/// The engine crates of the architecture table, in table order, each with the crates its row
/// says it depends on.
fn documented_layers() -> Vec<(String, BTreeSet<String>)> {
    architecture_from("## Crates are the layers")
        .lines()
        .filter_map(|line| {
            let cells: Vec<&str> = line.split('|').map(str::trim).collect();
            let name = cells
                .get(1)?
                .strip_prefix("`pi-native-hooks-")?
                .strip_suffix('`')?;
            let depends = cells
                .get(2)?
                .split(',')
                .map(str::trim)
                .filter(|crate_name| !crate_name.is_empty())
                .map(str::to_owned)
                .collect();
            Some((name.to_owned(), depends))
        })
        .collect()
}

/// The engine crates a crate's manifest depends on (normal dependencies), without the
/// `pi-native-hooks-` prefix.
fn manifest_layers(krate: &str) -> BTreeSet<String> {
    let path = checkout().join("crates").join(krate).join("Cargo.toml");
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|error| panic!("{}: {error}", path.display()));
    let manifest: toml::Table =
        toml::from_str(&text).unwrap_or_else(|error| panic!("{}: {error}", path.display()));
    manifest
        .get("dependencies")
        .and_then(toml::Value::as_table)
        .map(|dependencies| {
            dependencies
                .keys()
                .filter_map(|name| name.strip_prefix("pi-native-hooks-"))
                .map(str::to_owned)
                .collect()
        })
        .unwrap_or_default()
}

/// The crates under `crates/` that the "Beside the engine crates" table lists (`crates/fuzz`):
/// not layers, nothing of the engine depends on them.
fn documented_beside() -> BTreeSet<String> {
    architecture_from("Beside the engine crates:")
        .lines()
        .filter_map(|line| {
            let cell = line.split('|').nth(1)?.trim();
            let path = cell.strip_prefix("`crates/")?;
            Some(path.split('`').next()?.to_owned())
        })
        .collect()
}

#[test]
fn every_crate_depends_only_on_the_layers_above_it_as_documented() {
    let layers = documented_layers();
    let names: Vec<&str> = layers.iter().map(|(name, _)| name.as_str()).collect();
    let beside = documented_beside();
    assert_eq!(beside, BTreeSet::from(["fuzz".to_owned()]));
    let on_disk: BTreeSet<String> = std::fs::read_dir(checkout().join("crates"))
        .expect("crates/ is readable")
        .map(|entry| {
            entry
                .expect("a crates/ entry")
                .file_name()
                .to_string_lossy()
                .into_owned()
        })
        .filter(|name| !beside.contains(name))
        .collect();
    assert_eq!(
        on_disk,
        names
            .iter()
            .map(|name| (*name).to_owned())
            .collect::<BTreeSet<_>>(),
        "every directory under crates/ has a row in the table of docs/architecture.md (or in the \
         table beside it), and no more"
    );
    for (position, (name, documented)) in layers.iter().enumerate() {
        let above: BTreeSet<String> = names[..position].iter().map(|n| (*n).to_owned()).collect();
        let below: Vec<&String> = documented.difference(&above).collect();
        assert!(
            below.is_empty(),
            "the table lets `{name}` depend on {below:?}, not above it"
        );
        assert_eq!(
            &manifest_layers(name),
            documented,
            "crates/{name}/Cargo.toml depends on other engine crates than its row in \
             docs/architecture.md lists"
        );
    }
}

/// The most a row's "owns" cell says: one sentence a newcomer reads at a glance. The detail is the
/// crate's own, in its `lib.rs`.
const MAX_ROW_CHARS: usize = 320;

#[test]
fn each_crate_is_said_in_one_sentence() {
    let rows: Vec<(String, String)> = architecture_from("## Crates are the layers")
        .lines()
        .filter_map(|line| {
            let cells: Vec<&str> = line.split('|').map(str::trim).collect();
            let name = cells.get(1)?.strip_prefix("`pi-native-hooks-")?;
            Some((
                name.trim_end_matches('`').to_owned(),
                (*cells.get(3)?).to_owned(),
            ))
        })
        .collect();
    assert!(rows.len() >= 10, "{rows:?}");
    for (name, owns) in rows {
        let sentences = owns
            .char_indices()
            .filter(|(at, c)| {
                *c == '.'
                    && owns[at + 1..]
                        .strip_prefix(' ')
                        .is_some_and(|rest| rest.starts_with(char::is_uppercase))
            })
            .count();
        assert!(
            owns.ends_with('.') && sentences == 0,
            "the row of `{name}` is one sentence, ending in a period: {owns}"
        );
        assert!(
            owns.chars().count() <= MAX_ROW_CHARS,
            "the row of `{name}` says more than {MAX_ROW_CHARS} characters; the detail belongs in \
             the crate's lib.rs: {owns}"
        );
    }
}

#[test]
fn the_table_is_read_whole() {
    // Guards the parser above: a table it misread would make the check vacuous.
    let layers = documented_layers();
    assert_eq!(layers.first().map(|(name, _)| name.as_str()), Some("base"));
    assert_eq!(layers.last().map(|(name, _)| name.as_str()), Some("cli"));
    assert!(layers.len() >= 10, "{layers:?}");
    assert!(
        layers[0].1.is_empty(),
        "the base crate depends on no other engine crate"
    );
}
