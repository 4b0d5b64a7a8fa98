//! The bodies of the fuzz targets, one function per target taking the fuzzer's bytes: every parser
//! of user-controlled input (`settings.toml`, policy fixtures, rule YAML through the engine's
//! loader, Rhai policies through load and contract validation, the `package.json` and
//! `Cargo.toml` readers), the diagnostic block renderer fed arbitrary findings and budgets, and
//! two differential checks against ast-grep's own `CombinedScan` (incremental re-analysis after
//! edits, and the suppression comments a full analysis derives).
//!
//! A body returns quietly for input the engine rejects (a rejection is the engine's answer, and
//! its message is rendered, so a panic while naming the problem is found too); it panics only
//! when an invariant breaks, which is what the fuzzer reports. `fuzz/` (a cargo-fuzz project of
//! its own, on nightly) runs each under libFuzzer; this crate's tests run each over its
//! committed seed corpus, the regressions of every crash found, and a few hundred deterministic
//! mutations of them, so `cargo test` smoke-tests every target in seconds
//! ([docs/fuzzing.md](../../../docs/fuzzing.md)).

mod block;
mod config_files;
mod differential;
pub mod mutate;

pub use block::render;
pub use config_files::{fixture, manifest, policy, rule, settings};
pub use differential::{EDIT_SNIPPETS, reanalysis, suppressions};

/// One of `listed` with probability `ratio`, else arbitrary text of at most `max_chars`
/// characters: hostile or meaningful text the fuzzer would take long to find, mixed with what it
/// finds.
pub(crate) fn listed_or_arbitrary(
    u: &mut arbitrary::Unstructured<'_>,
    listed: &[&str],
    ratio: (u8, u8),
    max_chars: usize,
) -> arbitrary::Result<String> {
    if u.ratio(ratio.0, ratio.1)? {
        Ok((*u.choose(listed)?).to_owned())
    } else {
        let text: &str = u.arbitrary()?;
        Ok(text.chars().take(max_chars).collect())
    }
}

/// One fuzz target: the name of its libFuzzer binary (`fuzz/fuzz_targets/<name>.rs`) and of its
/// corpus folder (`fuzz/corpus/<name>/`), and its body.
#[derive(Clone, Copy, Debug)]
pub struct Target {
    /// The target's name.
    pub name: &'static str,
    /// Runs one input.
    pub run: fn(&[u8]),
}

/// Every target, in the order `docs/fuzzing.md` lists them.
pub const TARGETS: &[Target] = &[
    Target {
        name: "settings",
        run: settings,
    },
    Target {
        name: "fixture",
        run: fixture,
    },
    Target {
        name: "rule",
        run: rule,
    },
    Target {
        name: "policy",
        run: policy,
    },
    Target {
        name: "manifest",
        run: manifest,
    },
    Target {
        name: "render",
        run: render,
    },
    Target {
        name: "reanalysis",
        run: reanalysis,
    },
    Target {
        name: "suppressions",
        run: suppressions,
    },
];
