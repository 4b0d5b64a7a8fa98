//! Rhai's errors made actionable for a policy author: where the problem is, and which known name
//! an unknown variable or property probably meant.
//!
//! Position: Rhai reports a missing token (`Expecting ';' to terminate this statement`, an
//! unclosed `(`) at the token it found instead, which is often the first token of the next
//! statement, lines later. For those errors the position is moved to just after the last token
//! before it, where the missing token belongs. Every other error keeps Rhai's position.
//!
//! Suggestions: an undefined variable (a compile error under strict variables) is compared with
//! the script's own variable-like identifiers (every identifier that is neither a property after
//! `.` nor a function name before `(`); an unknown property of `Snapshot` or `Finding` with the
//! getters [`rhai_api::PROPERTIES`] lists. Properties of maps are not checked: Rhai returns `()`
//! for a missing map key.

use crate::sandbox::rhai_api;
use pi_native_hooks_base::{closest, did_you_mean};
use rhai::{Engine, EvalAltResult, ParseErrorType, Position, Token};
use std::fmt::Write as _;

/// A 1-based line and column in a policy file.
pub(crate) type LineColumn = (Option<usize>, Option<u32>);

fn line_column(position: Position) -> LineColumn {
    (
        position.line(),
        position.position().and_then(|c| u32::try_from(c).ok()),
    )
}

/// Where a compile error is: just after the previous token for a missing token, Rhai's position
/// otherwise.
pub(crate) fn compile_position(
    engine: &Engine,
    source: &str,
    error: &ParseErrorType,
    position: Position,
) -> LineColumn {
    let reported = line_column(position);
    if !matches!(
        error,
        ParseErrorType::MissingToken(..) | ParseErrorType::MissingSymbol(..)
    ) {
        return reported;
    }
    let (Some(line), column) = reported else {
        return reported;
    };
    let at = (line, column.map_or(0, |c| c as usize));
    let previous = tokens(engine, source)
        .into_iter()
        .take_while(|(_, pos)| (pos.line().unwrap_or(0), pos.position().unwrap_or(0)) < at)
        .last();
    let Some((token, pos)) = previous else {
        return reported;
    };
    let (Some(prev_line), Some(prev_column)) = (pos.line(), pos.position()) else {
        return reported;
    };
    let Some(text) = source.lines().nth(prev_line - 1) else {
        return reported;
    };
    (
        Some(prev_line),
        u32::try_from(token_end(text, prev_column - 1, &token) + 1).ok(),
    )
}

/// The did-you-mean suffix for a compile error (empty when there is none).
pub(crate) fn compile_hint(engine: &Engine, source: &str, error: &ParseErrorType) -> String {
    match error {
        ParseErrorType::VariableUndefined(name) => {
            let all = tokens(engine, source);
            let names = variable_names(&all);
            let consts = top_level_consts(&all);
            let mut hint = did_you_mean(name, names.iter().map(String::as_str));
            let meant = closest(name, names.iter().map(String::as_str)).unwrap_or(name);
            if consts.iter().any(|c| c == meant) {
                let _ = write!(
                    hint,
                    " (top-level constants such as `{meant}` are not visible inside a function: \
                     a Rhai function sees only its parameters and its own variables)"
                );
            }
            hint
        }
        _ => String::new(),
    }
}

/// The did-you-mean suffix for a run-time error (empty when there is none).
pub(crate) fn runtime_hint(error: &EvalAltResult) -> String {
    match error {
        EvalAltResult::ErrorDotExpr(message, _) => {
            unknown_property(message).map_or_else(String::new, |(property, type_name)| {
                rhai_api::PROPERTIES
                    .iter()
                    .find(|(name, _)| *name == type_name)
                    .map(|(_, properties)| did_you_mean(property, properties.iter().copied()))
                    .unwrap_or_default()
            })
        }
        _ => String::new(),
    }
}

/// Rhai's message without the ` (line N, position M)` it appends when the error has a position:
/// the position is reported in its own fields.
pub(crate) fn without_position(message: String, position: Position) -> String {
    if position.is_none() {
        return message;
    }
    let suffix = format!(" ({position})");
    match message.strip_suffix(&suffix) {
        Some(stripped) => stripped.to_owned(),
        None => message,
    }
}

/// `("lin", "Finding")` from Rhai's `Unknown property 'lin' - a getter is not registered for type
/// 'Finding'`.
fn unknown_property(message: &str) -> Option<(&str, &str)> {
    let rest = message.strip_prefix("Unknown property '")?;
    let (property, rest) = rest.split_once('\'')?;
    let rest = rest.strip_prefix(" - a getter is not registered for type '")?;
    let (type_name, _) = rest.split_once('\'')?;
    Some((property, type_name))
}

fn tokens(engine: &Engine, source: &str) -> Vec<(Token, Position)> {
    let inputs = [source];
    let (tokens, _) = engine.lex(&inputs);
    tokens
        .take_while(|(token, _)| *token != Token::EOF)
        .collect()
}

/// The names declared by `const` outside every block and map literal.
fn top_level_consts(all: &[(Token, Position)]) -> Vec<String> {
    let mut depth = 0usize;
    let mut names = Vec::new();
    for (index, (token, _)) in all.iter().enumerate() {
        match token {
            Token::LeftBrace | Token::MapStart => depth += 1,
            Token::RightBrace => depth = depth.saturating_sub(1),
            Token::Const if depth == 0 => {
                if let Some((Token::Identifier(name), _)) = all.get(index + 1) {
                    names.push(name.to_string());
                }
            }
            _ => {}
        }
    }
    names
}

/// The identifiers of `all` that can be variables: not a property (after `.` or `?.`), not a
/// function name (before `(`), sorted and deduplicated.
fn variable_names(all: &[(Token, Position)]) -> Vec<String> {
    let all: Vec<&Token> = all.iter().map(|(token, _)| token).collect();
    let mut names: Vec<String> = all
        .iter()
        .enumerate()
        .filter_map(|(index, token)| {
            let Token::Identifier(name) = token else {
                return None;
            };
            let after_dot = index
                .checked_sub(1)
                .and_then(|i| all.get(i))
                .is_some_and(|t| matches!(t, Token::Period | Token::Elvis));
            let before_call = matches!(all.get(index + 1), Some(&&Token::LeftParen));
            (!after_dot && !before_call).then(|| name.to_string())
        })
        .collect();
    names.sort();
    names.dedup();
    names
}

/// The 0-based character column just after `token`, which starts at character `start` of `line`.
fn token_end(line: &str, start: usize, token: &Token) -> usize {
    let chars: Vec<char> = line.chars().collect();
    let scan_literal = || {
        let quote = chars.get(start).copied();
        let mut index = start + 1;
        while let Some(&c) = chars.get(index) {
            if c == '\\' {
                index += 2;
            } else if Some(c) == quote {
                return index + 1;
            } else {
                index += 1;
            }
        }
        // A literal that continues on the next line: point at its start.
        start
    };
    match token {
        Token::Identifier(name) => start + name.chars().count(),
        Token::StringConstant(_) | Token::InterpolatedString(_) | Token::CharConstant(_) => {
            scan_literal()
        }
        Token::IntegerConstant(_) | Token::FloatConstant(_) => {
            start
                + chars[start.min(chars.len())..]
                    .iter()
                    .take_while(|c| c.is_alphanumeric() || **c == '_' || **c == '.')
                    .count()
        }
        other => start + other.literal_syntax().chars().count().max(1),
    }
}

#[cfg(test)]
mod tests {
    use crate::{RunError, Sandbox};

    fn compile_error(script: &str) -> RunError {
        Sandbox::default().compile(script).unwrap_err()
    }

    fn at(error: &RunError) -> (Option<usize>, Option<u32>) {
        match error {
            RunError::Script { line, column, .. } => (*line, *column),
            other => panic!("not a script error: {other:?}"),
        }
    }

    #[test]
    fn a_missing_semicolon_is_reported_after_the_statement_that_lacks_it() {
        // Rhai reports it at `fn`, two lines later.
        let error = compile_error(
            "const ID = \"x\";\nconst RULES = [\"a\", 'b', 1]\n\nfn evaluate(s) {\n  []\n}\n",
        );
        assert_eq!(at(&error), (Some(2), Some(28)), "{error:?}");
        let error = compile_error("const A = \"a\\\"b\" // a comment\nconst B = 1;\n");
        assert_eq!(at(&error), (Some(1), Some(17)), "{error:?}");
        let error = compile_error("fn f(foo) {\n  let x = foo\n  x\n}\n");
        assert_eq!(at(&error), (Some(2), Some(14)), "{error:?}");
        // An unclosed call: Rhai names the `}` on the next line.
        let error = compile_error(
            "fn evaluate(snapshot) {\n    snapshot.findings.map(|f| f.to_diagnostic(\"x\")\n}",
        );
        assert_eq!(at(&error), (Some(2), Some(51)), "{error:?}");
    }

    #[test]
    fn other_errors_keep_rhais_position() {
        let error = compile_error("const ID = ;\n");
        assert_eq!(at(&error), (Some(1), Some(12)), "{error:?}");
    }

    #[test]
    fn an_undefined_variable_suggests_a_similar_name() {
        let error = compile_error(
            "fn evaluate(snapshot) {\n  let found = snapshot.findings;\n  fond.len()\n}\n",
        );
        let RunError::Script { message, .. } = &error else {
            panic!("{error:?}")
        };
        assert_eq!(message, "Undefined variable: fond; did you mean `found`?");
        assert_eq!(at(&error), (Some(3), Some(3)));
        // Properties and function names are not variables.
        let error =
            compile_error("fn evaluate(snapshot) {\n  snapshot.findings.len() + findin\n}\n");
        let RunError::Script { message, .. } = &error else {
            panic!("{error:?}")
        };
        assert_eq!(message, "Undefined variable: findin");
    }

    #[test]
    fn a_top_level_constant_used_in_a_function_is_explained() {
        let error = compile_error(
            "const RULES = [\"a\"];\nfn evaluate(snapshot) {\n  let r = RULE;\n  r\n}\n",
        );
        let RunError::Script { message, .. } = &error else {
            panic!("{error:?}")
        };
        assert_eq!(
            message,
            "Undefined variable: RULE; did you mean `RULES`? (top-level constants such as `RULES` \
             are not visible inside a function: a Rhai function sees only its parameters and its \
             own variables)"
        );
    }

    #[test]
    fn an_unknown_property_suggests_the_getter() {
        let message = "Unknown property 'lin' - a getter is not registered for type 'Finding'";
        assert_eq!(
            super::runtime_hint(&rhai::EvalAltResult::ErrorDotExpr(
                message.to_owned(),
                rhai::Position::NONE
            )),
            "; did you mean `line`?"
        );
        assert_eq!(super::unknown_property("something else"), None);
    }
}
