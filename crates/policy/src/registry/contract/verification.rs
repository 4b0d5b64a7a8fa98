//! The contract of a verification policy: its `PROJECT` (one manifest, optionally in a
//! directory, or a glob of manifests) and its `REQUIREMENTS`, each an exact command with the
//! `affects` function that decides which changes need it.

use super::command::{code_point, trim_command, unsafe_command_char};
use super::constants::{map_fields, required, string};
use super::functions::Functions;
use super::problems::Problems;
use super::spec::{ProjectSpec, Requirement, VerificationSpec};
use crate::registry::literal::{Literal, Value};
use std::collections::{BTreeMap, HashSet};

/// The verification part of a contract, or `None` after recording why not.
pub(super) fn verification_spec(
    consts: &BTreeMap<String, Literal>,
    functions: &Functions<'_>,
    problems: &mut Problems,
) -> Option<VerificationSpec> {
    let project = required(consts, "PROJECT", problems).and_then(|l| project(l, problems));
    let requirements = required(consts, "REQUIREMENTS", problems)
        .and_then(|literal| requirements(literal, functions, problems));
    Some(VerificationSpec {
        project: project?,
        requirements: requirements?,
    })
}

/// `REQUIREMENTS`: a non-empty array of requirement maps with distinct ids. Reading stops at the
/// first entry that is not a map or lacks a usable `id`, `command` or `affects`.
fn requirements(
    literal: &Literal,
    functions: &Functions<'_>,
    problems: &mut Problems,
) -> Option<Vec<Requirement>> {
    match &literal.value {
        Value::Array(items) if !items.is_empty() => {
            let mut seen = HashSet::new();
            let mut requirements = Vec::new();
            for item in items {
                requirements.push(requirement(item, &mut seen, functions, problems)?);
            }
            (requirements.len() == items.len()).then_some(requirements)
        }
        Value::Array(_) => {
            problems.at(
                literal.line,
                "`REQUIREMENTS` must list at least one requirement",
            );
            None
        }
        other => {
            problems.at(
                literal.line,
                format!(
                    "`REQUIREMENTS` must be an array of maps, not {}",
                    other.type_name()
                ),
            );
            None
        }
    }
}

/// One entry of `REQUIREMENTS`, `#{ id, command, affects }` with an optional `dir`; `seen` holds
/// the ids of the entries before it.
fn requirement(
    item: &Literal,
    seen: &mut HashSet<String>,
    functions: &Functions<'_>,
    problems: &mut Problems,
) -> Option<Requirement> {
    let [id, command, affects, dir] = map_fields(
        item,
        "requirement",
        &["id", "command", "affects", "dir"],
        1,
        problems,
    )?;
    let dir = match dir {
        Some(dir) => Some(directory(dir, "requirement `dir`", problems)?),
        None => None,
    };
    let id = string(id?, "requirement `id`", problems)?;
    if !seen.insert(id.clone()) {
        problems.at(item.line, format!("duplicate requirement id {id:?}"));
    }
    let command_literal = command?;
    let command = string(command_literal, "requirement `command`", problems)?;
    let command = trim_command(&command).to_owned();
    if let Some((index, c)) = unsafe_command_char(&command) {
        problems.at(
            command_literal.line,
            format!(
                "requirement `command` {command:?} contains {} at character {}: only ASCII \
                 spaces, tabs and newlines may separate its words, and no other control, space or \
                 invisible character may appear (bash does not split on them, so a run could not \
                 be told apart from a different command); retype it",
                code_point(c),
                index + 1
            ),
        );
    }
    let affects_literal = affects?;
    let affects = string(affects_literal, "requirement `affects`", problems)?;
    functions.require(
        &affects,
        1,
        &format!("{affects}(path)"),
        affects_literal.line,
        problems,
    );
    Some(Requirement {
        id,
        command,
        affects,
        dir,
    })
}

/// `PROJECT = #{ manifest, name }`, optionally with `dir`, or a glob of manifests.
fn project(literal: &Literal, problems: &mut Problems) -> Option<ProjectSpec> {
    if let Value::Map(entries) = &literal.value
        && entries.iter().any(|(key, _, _)| key == "manifests")
    {
        return manifests_project(literal, problems);
    }
    let [manifest, name, dir] = map_fields(
        literal,
        "`PROJECT`",
        &["manifest", "name", "dir"],
        1,
        problems,
    )?;
    let dir = match dir {
        Some(dir) => Some(directory(dir, "`PROJECT.dir`", problems)?),
        None => None,
    };
    let manifest = string(manifest?, "`PROJECT.manifest`", problems)?;
    if manifest.contains('/') || manifest.contains('\\') || manifest == ".." {
        problems.at(
            literal.line,
            format!("`PROJECT.manifest` must be a file name at the project root, not {manifest:?}"),
        );
        return None;
    }
    Some(ProjectSpec {
        manifest,
        name: string(name?, "`PROJECT.name`", problems)?,
        dir,
        manifests: None,
    })
}

/// `PROJECT = #{ manifests: "packages/*/package.json" }`, optionally with `name`: the glob must
/// compile, stay inside the repository (relative, `/`-separated, no `.` or `..` components) and
/// end in a literal manifest file name.
fn manifests_project(literal: &Literal, problems: &mut Problems) -> Option<ProjectSpec> {
    let [manifests, name] = map_fields(literal, "`PROJECT`", &["manifests", "name"], 1, problems)?;
    let name = match name {
        Some(name) => string(name, "`PROJECT.name`", problems)?,
        None => String::new(),
    };
    let glob = string(manifests?, "`PROJECT.manifests`", problems)?;
    let fault = |what: String| {
        format!(
            "`PROJECT.manifests` must be a glob of manifest paths relative to the repository \
             root, such as \"packages/*/package.json\": {what}"
        )
    };
    let components: Vec<&str> = glob.split('/').collect();
    if let Some(component) = components.iter().find(|component| {
        component.is_empty()
            || **component == "."
            || **component == ".."
            || component.contains('\\')
            || component.chars().any(char::is_control)
    }) {
        problems.at(
            literal.line,
            fault(format!("{glob:?} has the component {component:?}")),
        );
        return None;
    }
    let manifest = components.last().copied().unwrap_or_default();
    if manifest.contains(['*', '?', '[', '{']) {
        problems.at(
            literal.line,
            fault(format!(
                "{glob:?} ends in a pattern; end it in the manifest's file name"
            )),
        );
        return None;
    }
    if let Err(error) = globset::GlobBuilder::new(&glob)
        .literal_separator(true)
        .build()
    {
        problems.at(
            literal.line,
            fault(format!("{glob:?} is not a valid glob: {error}")),
        );
        return None;
    }
    Some(ProjectSpec {
        manifest: manifest.to_owned(),
        name,
        dir: None,
        manifests: Some(glob),
    })
}

/// A directory relative to the repository (or project) root: `/`-separated normal components
/// only, so it can neither leave the root nor name it twice (`a/./b`, `a//b`, `a/`).
fn directory(literal: &Literal, what: &str, problems: &mut Problems) -> Option<String> {
    let dir = string(literal, what, problems)?;
    let bad = dir.split('/').find(|component| {
        component.is_empty()
            || *component == "."
            || *component == ".."
            || component.contains('\\')
            || component.chars().any(char::is_control)
    });
    if let Some(component) = bad {
        problems.at(
            literal.line,
            format!(
                "{what} must be a relative directory such as \"packages/app\" (`/`-separated, no \
                 leading or trailing `/`, no `.` or `..`), not {dir:?} (component {component:?}); \
                 leave it out for the root"
            ),
        );
        return None;
    }
    if unsafe_command_char(&dir).is_some() {
        problems.at(
            literal.line,
            format!("{what} {dir:?} contains a space, control or invisible character other than an ASCII space"),
        );
        return None;
    }
    Some(dir)
}
