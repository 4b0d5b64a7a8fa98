//! The functions a contract requires: `fn evaluate(snapshot)` of a diagnostic policy and each
//! requirement's `fn <affects>(path)`, looked up by name and arity in the compiled script.

use super::problems::Problems;
use rhai::AST;
use std::collections::BTreeMap;

/// The script's functions by name, with their arities and definition lines.
pub(super) struct Functions<'s> {
    arities: BTreeMap<String, Vec<usize>>,
    source: &'s str,
}

impl<'s> Functions<'s> {
    pub(super) fn of(ast: &AST, source: &'s str) -> Self {
        let mut arities: BTreeMap<String, Vec<usize>> = BTreeMap::new();
        for function in ast.iter_functions() {
            arities
                .entry(function.name.to_owned())
                .or_default()
                .push(function.params.len());
        }
        Self { arities, source }
    }

    /// Checks that `fn name(..)` exists with `arity` parameters; `line` is where it is required.
    pub(super) fn require(
        &self,
        name: &str,
        arity: usize,
        signature: &str,
        line: usize,
        problems: &mut Problems,
    ) {
        match self.arities.get(name) {
            Some(arities) if arities.contains(&arity) => {}
            Some(arities) => problems.at(
                self.line_of(name).unwrap_or(line),
                format!(
                    "`fn {name}` takes {} parameter(s); expected `fn {signature}`",
                    arities[0]
                ),
            ),
            None => problems.at(line, format!("missing function `fn {signature}`")),
        }
    }

    fn line_of(&self, name: &str) -> Option<usize> {
        self.source
            .lines()
            .position(|text| {
                let text = text.trim_start();
                let text = text.strip_prefix("private ").unwrap_or(text);
                text.strip_prefix("fn ")
                    .and_then(|rest| rest.trim_start().strip_prefix(name))
                    .is_some_and(|rest| rest.trim_start().starts_with('('))
            })
            .map(|index| index + 1)
    }
}
