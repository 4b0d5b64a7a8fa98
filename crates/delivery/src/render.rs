//! Owns the model-facing block: one short text appended to the carrier's tool result. It says
//! plainly that the call's own result stands, then groups the new diagnostics by rule: one header
//! per rule (rule id, severity, its message once), the rule's locations compactly in natural path
//! order, each diagnostic whose message differs from the header's on a line of its own, and the
//! guidance once with the suppression form. It adds one warning line whenever the check was
//! incomplete, so a short or empty list is never mistaken for a clean scan.
//!
//! The block is bounded in model tokens ([`super::tokens`]), counted only when its length in bytes
//! exceeds the budget (a token is at least a byte): every finding's location is listed before any
//! guidance, guidance before the per-file counts of pre-existing findings, and what does not fit
//! is named in a closing line (how many findings, in which files, and that they are listed again
//! when a later step changes those files), never cut silently. The header, that closing line and
//! the warning are always shown.
//!
//! Nothing in the block is taken raw: file names, rule ids and the tool name are escaped
//! ([`pi_native_hooks_base::text`]) so a name cannot start a line of its own; messages and guidance have their
//! whitespace collapsed to single spaces (a diagnostic is one line) and any other control or
//! bidirectional character escaped; every line is cut at a character cap.

use super::tokens::{self, TokenCount};
use pi_native_hooks_analysis::PolicyDiagnostic;
use pi_native_hooks_analysis::is_type_error_rule;
use pi_native_hooks_base::{Escaped, escape};
use std::cmp::Ordering;
use std::collections::BTreeMap;
use std::fmt::Write;

/// Bounds on the block.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RenderLimits {
    /// `o200k_base` tokens in the whole block. The header, the line naming what was left out and
    /// the warning are shown even when they alone exceed it.
    pub max_tokens: usize,
    /// Characters per line; longer messages and guidance are cut with `…`.
    pub max_line_chars: usize,
}

impl Default for RenderLimits {
    fn default() -> Self {
        Self {
            max_tokens: 1_000,
            max_line_chars: 400,
        }
    }
}

/// The call whose result carries the block.
#[derive(Clone, Copy, Debug)]
pub struct CarrierInfo<'a> {
    /// The tool's name, e.g. `write`.
    pub tool: &'a str,
    /// Whether the tool's own result is an error (the block never changes that).
    pub is_error: bool,
}

/// What made a wave's check incomplete. Any non-zero count adds the warning line.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Warnings {
    /// Diagnostic policies that failed.
    pub policy_failures: usize,
    /// Analyzer runs that failed as a whole or in part.
    pub analyzer_failures: usize,
    /// Files that were skipped (too large, binary, over the file limit, unreadable) or whose
    /// findings were truncated.
    pub files_not_analyzed: usize,
    /// Files whose type check did not answer in time, has no server, or was cut by the
    /// dependents bound.
    pub files_not_type_checked: usize,
    /// Problems coordinating the wave (missing events, timeouts, failed snapshots).
    pub coordinator_failures: usize,
}

impl Warnings {
    /// True when the check was complete.
    pub fn is_empty(&self) -> bool {
        *self == Self::default()
    }

    fn line(&self) -> Option<String> {
        let mut parts = Vec::new();
        let mut count = |n: usize, one: &str, many: &str| {
            if n > 0 {
                parts.push(format!("{n} {}", if n == 1 { one } else { many }));
            }
        };
        count(self.policy_failures, "policy failed", "policies failed");
        count(
            self.analyzer_failures,
            "analyzer run failed",
            "analyzer runs failed",
        );
        count(
            self.files_not_analyzed,
            "file not fully analyzed",
            "files not fully analyzed",
        );
        count(
            self.files_not_type_checked,
            "file not type-checked",
            "files not type-checked",
        );
        count(
            self.coordinator_failures,
            "wave coordination problem",
            "wave coordination problems",
        );
        (!parts.is_empty()).then(|| {
            format!(
                "Warning: this check is incomplete ({}); missing diagnostics do not mean clean \
                 code. Details are in the pi-native-hooks status.",
                parts.join(", ")
            )
        })
    }
}

/// What [`render`] gives to append to the carrier's result.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Block {
    /// The text to append to the carrier's content.
    pub text: String,
    /// Indices (into the rendered slice) of the diagnostics the text lists, in the order listed.
    pub shown: Vec<usize>,
    /// How many diagnostics were left out by the token budget.
    pub omitted: usize,
    /// The text's size in `o200k_base` tokens: exact when the text is longer in bytes than the
    /// budget (it had to be counted), else its byte length as a bound.
    pub tokens: TokenCount,
}

/// The most files the closing line names; the others are counted.
const NAMED_LEFT_OUT_FILES: usize = 5;

/// Renders `diagnostics` (already selected as new) for `carrier`. `None` when there is nothing
/// to say: no diagnostic and a complete check.
///
/// `pre_existing` lists, per file, how many diagnostics were left out because the file already
/// held those findings before the wave; each becomes one `+N pre-existing findings in <file> not
/// shown` line while the budget allows, the rest sharing one line. They never make a block on
/// their own.
pub fn render(
    carrier: CarrierInfo<'_>,
    diagnostics: &[&PolicyDiagnostic],
    pre_existing: &[(&str, usize)],
    warnings: &Warnings,
    limits: RenderLimits,
) -> Option<Block> {
    render_for(Some(carrier), diagnostics, pre_existing, warnings, limits)
}

/// [`render`] for diagnostics that arrived after the tool results of their wave were shown (a
/// type check that outlasted the wave's wait), delivered at the settle in a message of their
/// own rather than on a tool result.
pub fn render_late(
    diagnostics: &[&PolicyDiagnostic],
    pre_existing: &[(&str, usize)],
    warnings: &Warnings,
    limits: RenderLimits,
) -> Option<Block> {
    render_for(None, diagnostics, pre_existing, warnings, limits)
}

fn render_for(
    carrier: Option<CarrierInfo<'_>>,
    diagnostics: &[&PolicyDiagnostic],
    pre_existing: &[(&str, usize)],
    warnings: &Warnings,
    limits: RenderLimits,
) -> Option<Block> {
    let warning = warnings.line();
    if diagnostics.is_empty() && warning.is_none() {
        return None;
    }
    let mut pre_existing: Vec<(&str, usize)> = pre_existing
        .iter()
        .copied()
        .filter(|(_, n)| *n > 0)
        .collect();
    pre_existing.sort_by(|a, b| natural_cmp(a.0, b.0));
    let layout = Layout {
        carrier,
        diagnostics,
        groups: groups(diagnostics),
        pre_existing,
        warning,
        width: limits.max_line_chars.max(40),
    };
    let units = layout.units();
    // The most units that fit, by bisection over whole renders, each measured against the budget
    // (counted exactly only when longer in bytes than the budget, so the answer is the exact
    // count's). A block with more units is longer but for the closing lines it sheds (a few
    // tokens), so the prefix found may be a unit short of the longest that fits; it never exceeds
    // the budget.
    let fits = |k: usize| {
        let text = layout.text(k);
        let tokens = tokens::measure(&text, limits.max_tokens);
        tokens.fits(limits.max_tokens).then_some((text, tokens))
    };
    let (mut low, mut high) = (0, units.min(limits.max_tokens));
    // The common case, everything fits, costs one render.
    if fits(high).is_some() {
        low = high;
    }
    while low < high {
        let mid = low + (high - low).div_ceil(2);
        if fits(mid).is_some() {
            low = mid;
        } else {
            high = mid - 1;
        }
    }
    let (text, tokens) = loop {
        if let Some(found) = fits(low) {
            break found;
        }
        if low == 0 {
            let text = layout.text(0);
            let tokens = tokens::measure(&text, limits.max_tokens);
            break (text, tokens);
        }
        low -= 1;
    };
    let shown = layout.listed(low);
    Some(Block {
        omitted: diagnostics.len() - shown.len(),
        shown,
        text,
        tokens,
    })
}

/// Diagnostics sharing policy, rule, severity and guidance, listed under one header.
struct Group {
    /// Members in natural path order, then line and column.
    members: Vec<usize>,
    /// The header's message: the one most members share (the first such in order).
    message: String,
}

struct Layout<'a> {
    /// The call whose result carries the block; `None` for diagnostics that arrived late.
    carrier: Option<CarrierInfo<'a>>,
    diagnostics: &'a [&'a PolicyDiagnostic],
    groups: Vec<Group>,
    pre_existing: Vec<(&'a str, usize)>,
    warning: Option<String>,
    width: usize,
}

impl Layout<'_> {
    /// Units in priority order: each diagnostic's location (group by group), then each group's
    /// guidance, then each file's pre-existing count.
    fn units(&self) -> usize {
        self.diagnostics.len() + self.groups.len() + self.pre_existing.len()
    }

    /// The diagnostics listed when `k` units are included, in the order listed.
    fn listed(&self, k: usize) -> Vec<usize> {
        self.groups
            .iter()
            .flat_map(|g| g.members.iter().copied())
            .take(k)
            .collect()
    }

    /// The block with the first `k` units.
    fn text(&self, k: usize) -> String {
        let n = self.diagnostics.len();
        let mut locations = k.min(n);
        let guidance = k.saturating_sub(n).min(self.groups.len());
        let counts = k.saturating_sub(n + self.groups.len());
        let mut lines = vec![self.header()];
        for (index, group) in self.groups.iter().enumerate() {
            let take = group.members.len().min(locations);
            locations -= take;
            if take == 0 {
                break;
            }
            self.group_lines(group, &group.members[..take], &mut lines);
            if index < guidance {
                lines.push(self.cut(&guidance_line(self.diagnostics[group.members[0]])));
            }
        }
        let listed = k.min(n);
        if listed < n || guidance < self.groups.len() {
            lines.extend(self.left_out(k.min(n), guidance));
        }
        lines.extend(self.pre_existing_lines(counts));
        lines.extend(self.warning.clone());
        lines.join("\n")
    }

    fn header(&self) -> String {
        let status = match self.carrier {
            Some(carrier) if carrier.is_error => format!(
                "[pi-native-hooks] The `{}` call's result above is unchanged.",
                Escaped(carrier.tool)
            ),
            Some(carrier) => format!(
                "[pi-native-hooks] The `{}` call succeeded; its result above is unchanged.",
                Escaped(carrier.tool)
            ),
            None => "[pi-native-hooks] These arrived after the tool results of your last changes \
                     were shown (the type check took longer than the wave waits)."
                .to_owned(),
        };
        let line = if self.diagnostics.is_empty() {
            status
        } else {
            format!("{status} New lint diagnostics:")
        };
        self.cut(&line)
    }

    /// The rule's header, its locations with the header's message (space-separated, wrapped at
    /// the line width),
    /// then one line per diagnostic with a message of its own.
    fn group_lines(&self, group: &Group, members: &[usize], lines: &mut Vec<String>) {
        let lead = self.diagnostics[group.members[0]];
        lines.push(self.cut(&format!(
            "{} ({}): {}",
            Escaped(&lead.rule),
            lead.severity,
            group.message
        )));
        let mut row = String::new();
        let mut own = Vec::new();
        for &index in members {
            let d = self.diagnostics[index];
            let location = location(d);
            if d.message != group.message {
                own.push(self.cut(&format!("  {location}: {}", d.message)));
                continue;
            }
            if !row.is_empty() && row.chars().count() + 1 + location.chars().count() > self.width {
                lines.push(self.cut(&row));
                row.clear();
            }
            // Separated by a space: a comma would cost a token per location.
            row.push_str(if row.is_empty() { "  " } else { " " });
            row.push_str(&location);
        }
        if !row.is_empty() {
            lines.push(self.cut(&row));
        }
        lines.extend(own);
    }

    /// Says what the budget left out, a line each for findings and guidance: `listed` of the
    /// diagnostics are listed and the first `guidance` groups have their guidance.
    fn left_out(&self, listed: usize, guidance: usize) -> Vec<String> {
        let mut lines = Vec::new();
        let missing = self.diagnostics.len() - listed;
        if missing > 0 {
            let mut files: Vec<&str> = Vec::new();
            for &index in self
                .groups
                .iter()
                .flat_map(|g| g.members.iter())
                .skip(listed)
            {
                let path = self.diagnostics[index].path.as_str();
                if !files.contains(&path) {
                    files.push(path);
                }
            }
            files.sort_by(|a, b| natural_cmp(a, b));
            let line = |named: &[String]| {
                let others = files.len() - named.len();
                format!(
                    "({missing} more {} left out to fit the token budget, in {}{}; they are \
                     listed again after you next change those files.)",
                    plural(missing, "finding", "findings"),
                    named.join(", "),
                    match (others, named.is_empty()) {
                        (0, _) => String::new(),
                        (n, true) => format!("{n} {}", plural(n, "file", "files")),
                        (n, false) => format!(" and {n} other {}", plural(n, "file", "files")),
                    }
                )
            };
            // As many names as keep the line whole within the line width.
            let mut named: Vec<String> = Vec::new();
            for path in files.iter().take(NAMED_LEFT_OUT_FILES) {
                named.push(short(&Escaped(path).to_string()));
                if line(&named).chars().count() > self.width {
                    named.pop();
                    break;
                }
            }
            lines.push(self.cut(&line(&named)));
        }
        let unguided = self.groups.len() - guidance;
        if unguided > 0 {
            lines.push(self.cut(&format!(
                "(Guidance for {unguided} {} left out; to keep a deliberate case, add on the line \
                 above: // ast-grep-ignore: <rule> -- <reason>)",
                plural(unguided, "rule", "rules")
            )));
        }
        lines
    }

    /// The pre-existing counts, the first `own` files on a line each, the others sharing one.
    fn pre_existing_lines(&self, own: usize) -> Vec<String> {
        let files = &self.pre_existing;
        let own = own.min(files.len());
        let mut lines: Vec<String> = files[..own]
            .iter()
            .map(|(path, n)| {
                self.cut(&format!(
                    "+{n} pre-existing {} in {} not shown",
                    plural(*n, "finding", "findings"),
                    Escaped(path)
                ))
            })
            .collect();
        let rest = &files[own..];
        if !rest.is_empty() {
            let n: usize = rest.iter().map(|(_, n)| n).sum();
            let more = if own == 0 { "" } else { "other " };
            lines.push(format!(
                "+{n} pre-existing {} in {} {more}{} not shown",
                plural(n, "finding", "findings"),
                rest.len(),
                plural(rest.len(), "file", "files")
            ));
        }
        lines
    }

    fn cut(&self, line: &str) -> String {
        one_line(line, self.width)
    }
}

/// The longest file name the closing line shows whole, in characters; a longer one is cut so the
/// line keeps its instruction.
const NAMED_FILE_CHARS: usize = 80;

fn short(name: &str) -> String {
    if name.chars().count() <= NAMED_FILE_CHARS {
        return name.to_owned();
    }
    let mut cut: String = name.chars().take(NAMED_FILE_CHARS - 1).collect();
    cut.push('…');
    cut
}

fn plural<'a>(n: usize, one: &'a str, many: &'a str) -> &'a str {
    if n == 1 { one } else { many }
}

/// `path:line:column`, and the end (`-line:column`) only when the finding spans lines: a
/// one-line finding is found from its start, a longer one's extent is worth knowing.
fn location(d: &PolicyDiagnostic) -> String {
    let mut text = format!("{}:{}:{}", Escaped(&d.path), d.line, d.column);
    if d.end_line > d.line {
        let _ = write!(text, "-{}:{}", d.end_line, d.end_column);
    }
    text
}

/// The guidance and the suppression form. A rule delivered without a policy and without a
/// `note` has no guidance: only the suppression form is shown. A type error has none: TypeScript
/// reports it, and no `ast-grep-ignore` comment hides it.
fn guidance_line(d: &PolicyDiagnostic) -> String {
    let mut line = if d.guidance.trim().is_empty() {
        " ".to_owned()
    } else {
        format!("  Fix: {}", d.guidance)
    };
    if !d.guidance.contains("ast-grep-ignore") && !is_type_error_rule(d.rule.as_str()) {
        let _ = write!(
            line,
            " To keep a deliberate case, add on the line above: // ast-grep-ignore: {} -- <reason>",
            Escaped(&d.rule)
        );
    }
    line
}

/// Groups `diagnostics` by policy, rule, severity and guidance; members in natural location
/// order, groups by their first member.
fn groups(diagnostics: &[&PolicyDiagnostic]) -> Vec<Group> {
    let mut order: Vec<usize> = (0..diagnostics.len()).collect();
    order.sort_by(|&a, &b| location_cmp(diagnostics[a], diagnostics[b]).then(a.cmp(&b)));
    let mut groups: Vec<Vec<usize>> = Vec::new();
    for index in order {
        let d = diagnostics[index];
        let same = |members: &&mut Vec<usize>| {
            let lead = diagnostics[members[0]];
            lead.policy == d.policy
                && lead.rule == d.rule
                && lead.severity == d.severity
                && lead.guidance == d.guidance
        };
        match groups.iter_mut().find(|g| same(g)) {
            Some(members) => members.push(index),
            None => groups.push(vec![index]),
        }
    }
    groups
        .into_iter()
        .map(|members| {
            let mut counts: BTreeMap<&str, (usize, usize)> = BTreeMap::new();
            for (position, &index) in members.iter().enumerate() {
                let entry = counts
                    .entry(diagnostics[index].message.as_str())
                    .or_insert((0, position));
                entry.0 += 1;
            }
            let message = counts
                .iter()
                .max_by(|a, b| (a.1.0).cmp(&b.1.0).then((b.1.1).cmp(&a.1.1)))
                .map_or_else(String::new, |(message, _)| (*message).to_owned());
            Group { members, message }
        })
        .collect()
}

/// Natural path order (`w2` before `w10`), then line and column.
fn location_cmp(a: &PolicyDiagnostic, b: &PolicyDiagnostic) -> Ordering {
    natural_cmp(&a.path, &b.path)
        .then(a.line.cmp(&b.line))
        .then(a.column.cmp(&b.column))
}

/// Compares runs of ASCII digits by their value and everything else as text, so `w2.ts` comes
/// before `w10.ts`; equal under that order, the plain text decides (`w02` before `w2`).
pub(crate) fn natural_cmp(a: &str, b: &str) -> Ordering {
    let (mut x, mut y) = (a.as_bytes(), b.as_bytes());
    while let (Some(&cx), Some(&cy)) = (x.first(), y.first()) {
        if cx.is_ascii_digit() && cy.is_ascii_digit() {
            let run = |s: &[u8]| s.iter().take_while(|c| c.is_ascii_digit()).count();
            let (nx, ny) = (run(x), run(y));
            let trim = |s: &[u8]| -> usize { s.iter().take_while(|&&c| c == b'0').count() };
            let (dx, dy) = (&x[trim(&x[..nx])..nx], &y[trim(&y[..ny])..ny]);
            let order = dx.len().cmp(&dy.len()).then_with(|| dx.cmp(dy));
            if order != Ordering::Equal {
                return order;
            }
            x = &x[nx..];
            y = &y[ny..];
        } else {
            if cx != cy {
                return cx.cmp(&cy);
            }
            x = &x[1..];
            y = &y[1..];
        }
    }
    x.len().cmp(&y.len()).then_with(|| a.cmp(b))
}

/// Collapses whitespace (a diagnostic is one line), escapes what is left of the controls and cuts
/// at `width` characters.
fn one_line(text: &str, width: usize) -> String {
    let indent: String = text.chars().take_while(|c| *c == ' ').collect();
    let collapsed = text.split_whitespace().collect::<Vec<_>>().join(" ");
    let line = format!("{indent}{}", escape(&collapsed));
    if line.chars().count() <= width {
        return line;
    }
    let mut cut: String = line.chars().take(width.saturating_sub(1)).collect();
    cut.push('…');
    cut
}

#[cfg(test)]
mod tests;
