//! Did-you-mean: the known name closest to an unknown one, for policy ids, Rhai variables and
//! properties, fixture keys and settings keys. Only a likely typo is suggested; an unrelated name
//! gets nothing.

/// How similar a candidate must be to count as a likely typo, as normalized Damerau-Levenshtein
/// similarity (1 minus edits over the longer length): `RULE`/`RULES` and `fils`/`files` score 0.8,
/// `lin`/`line` 0.75, `typescript-no-debuger`/`typescript-no-debugger` 0.95, while
/// `typescript-no-dynamic-import`/`typescript-no-explicit-any` score 0.5. (Jaro-Winkler rewards a
/// shared prefix, which every `typescript-no-` id has, so it is not used.)
pub const MIN_SIMILARITY: f64 = 0.7;

/// The candidate most similar to `unknown` (case-insensitively), when it is at least
/// [`MIN_SIMILARITY`] similar; `unknown` itself is never suggested. Ties go to the first.
pub fn closest<'a>(
    unknown: &str,
    candidates: impl IntoIterator<Item = &'a str>,
) -> Option<&'a str> {
    let wanted = unknown.to_lowercase();
    let mut best: Option<(f64, &str)> = None;
    for candidate in candidates {
        if candidate == unknown {
            continue;
        }
        let score = strsim::normalized_damerau_levenshtein(&wanted, &candidate.to_lowercase());
        if score >= MIN_SIMILARITY && best.is_none_or(|(top, _)| score > top) {
            best = Some((score, candidate));
        }
    }
    best.map(|(_, name)| name)
}

/// `"; did you mean `NAME`?"` for the [`closest`] candidate, else an empty string: appended to a
/// message that names `unknown`.
pub fn did_you_mean<'a>(unknown: &str, candidates: impl IntoIterator<Item = &'a str>) -> String {
    closest(unknown, candidates)
        .map(|name| format!("; did you mean `{name}`?"))
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn suggests_likely_typos_only() {
        assert_eq!(closest("RULE", ["ID", "KIND", "RULES"]), Some("RULES"));
        assert_eq!(closest("lin", ["path", "line", "column"]), Some("line"));
        assert_eq!(closest("fils", ["name", "files", "expect"]), Some("files"));
        assert_eq!(
            closest(
                "typescript-no-debuger",
                ["typescript-no-debugger", "typescript-no-any"]
            ),
            Some("typescript-no-debugger")
        );
        assert_eq!(closest("lien", ["path", "line"]), Some("line"));
        assert_eq!(
            closest(
                "typescript-no-dynamic-import",
                ["typescript-no-explicit-any"]
            ),
            None
        );
        assert_eq!(closest("zzz", ["path", "line"]), None);
        assert_eq!(closest("line", ["line"]), None, "never the name itself");
        assert_eq!(closest("x", std::iter::empty()), None);
    }

    #[test]
    fn did_you_mean_is_empty_without_a_suggestion() {
        assert_eq!(did_you_mean("RULE", ["RULES"]), "; did you mean `RULES`?");
        assert_eq!(did_you_mean("qqq", ["RULES"]), "");
    }
}
