//! Embeds every rule file of the repository's `rules/` directory in the built-in pack, so adding a
//! rule (with its fixtures) needs no change to Rust code.

use std::fmt::Write as _;
use std::path::Path;

fn main() {
    let manifest = std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR");
    let rules = Path::new(&manifest).join("../../rules");
    // A directory is scanned whole: a rule added, removed or edited runs this script again.
    println!("cargo::rerun-if-changed={}", rules.display());
    let mut names: Vec<String> = std::fs::read_dir(&rules)
        .unwrap_or_else(|error| panic!("{}: {error}", rules.display()))
        .map(|entry| entry.expect("a rules/ entry").file_name())
        .map(|name| {
            name.into_string()
                .unwrap_or_else(|name| panic!("rules/{}: not a UTF-8 name", name.display()))
        })
        .filter(|name| {
            Path::new(name)
                .extension()
                .is_some_and(|extension| extension == "yml")
        })
        .collect();
    names.sort();
    let mut list = String::from("&[\n");
    for name in &names {
        let path = rules.join(name);
        writeln!(
            list,
            "    ({name:?}, include_str!({:?})),",
            path.display().to_string()
        )
        .expect("writing to a String");
    }
    list.push_str("]\n");
    let out = std::env::var("OUT_DIR").expect("cargo sets OUT_DIR");
    std::fs::write(Path::new(&out).join("rule_files.rs"), list).expect("OUT_DIR is writable");
}
