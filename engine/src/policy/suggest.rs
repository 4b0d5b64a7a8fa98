//! Did-you-mean: the known name closest to an unknown one, for policy ids, Rhai variables and
//! properties, and fixture keys. Only a likely typo is suggested; an unrelated name gets nothing.

/// How similar (Jaro-Winkler, 0 to 1) a candidate must be to count as a likely typo: `RULE` and
/// `RULES` score 0.96, `lin` and `line` 0.93, `fils` and `files` 0.95, while unrelated names such
/// as `path` and `line` score 0.5.
pub const MIN_SIMILARITY: f64 = 0.8;

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
        let score = strsim::jaro_winkler(&wanted, &candidate.to_lowercase());
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
