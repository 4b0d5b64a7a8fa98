//! `--format sarif`: one SARIF 2.1.0 log (OASIS) for code-scanning tools such as GitHub's
//! `upload-sarif`.
//!
//! * `tool.driver.rules`: each rule that has a result, once, in the order first met: its id, its
//!   message as `shortDescription`, the note and the guidance as `help`, and its severity as
//!   `defaultConfiguration.level`.
//! * `results`: `ruleId` and `ruleIndex`, `level`, the message, one location whose
//!   `artifactLocation.uri` is the path relative to the repository root (percent-encoded) with
//!   `uriBaseId` `%SRCROOT%` (defined in `originalUriBaseIds` as the root's `file:` URI), and a
//!   1-based region whose end column is exclusive; the engine's severity and the reporting
//!   policy are in `properties`.
//! * `columnKind` is `unicodeCodePoints`: columns count characters, as everywhere in `check`.
//! * `fixes`: one replacement of the region when a result carries one.
//!
//! Levels: `warning` → `warning`, `info` and `hint` → `note` (SARIF has no lower level that
//! viewers show).

use super::{Diagnostic, Report};
use pi_native_hooks_analysis::Severity;
use serde_json::{Value, json};
use std::collections::HashMap;
use std::fmt::Write as _;
use std::io::{self, Write};
use std::path::Path;

/// The SARIF base id results are relative to.
const SRCROOT: &str = "%SRCROOT%";

/// Writes the log, pretty-printed, with a final newline.
pub(super) fn write(report: &Report<'_>, out: &mut dyn Write) -> io::Result<()> {
    let log = log(report);
    serde_json::to_writer_pretty(&mut *out, &log).map_err(io::Error::other)?;
    writeln!(out)
}

fn log(report: &Report<'_>) -> Value {
    let mut rules: Vec<Value> = Vec::new();
    let mut index: HashMap<&str, usize> = HashMap::new();
    let mut results = Vec::with_capacity(report.diagnostics.len());
    for d in report.diagnostics {
        let rule_index = *index.entry(d.rule).or_insert_with(|| {
            rules.push(rule(d));
            rules.len() - 1
        });
        results.push(result(d, rule_index));
    }
    json!({
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [{
            "tool": {
                "driver": {
                    "name": "pi-native-hooks",
                    "version": env!("CARGO_PKG_VERSION"),
                    "semanticVersion": env!("CARGO_PKG_VERSION"),
                    "rules": rules,
                }
            },
            "originalUriBaseIds": {
                SRCROOT: {
                    "uri": directory_uri(report.root),
                    "description": { "text": "The root of the repository (or of the scanned directory)." },
                }
            },
            "columnKind": "unicodeCodePoints",
            "results": results,
        }]
    })
}

/// A rule's descriptor, from its first result.
fn rule(d: &Diagnostic<'_>) -> Value {
    let mut rule = json!({
        "id": d.rule,
        "shortDescription": { "text": d.message },
        "defaultConfiguration": { "level": level(d.severity) },
    });
    let help: Vec<&str> = [d.note, d.guidance]
        .into_iter()
        .flatten()
        .filter(|text| !text.is_empty())
        .collect();
    if !help.is_empty() {
        rule["help"] = json!({ "text": help.join("\n\n") });
    }
    rule
}

fn result(d: &Diagnostic<'_>, rule_index: usize) -> Value {
    let artifact = json!({ "uri": encode_uri_path(d.path), "uriBaseId": SRCROOT });
    let region = json!({
        "startLine": d.line,
        "startColumn": d.column,
        "endLine": d.end_line,
        "endColumn": d.end_column,
    });
    let mut properties = json!({ "severity": d.severity.as_str() });
    if let Some(policy) = d.policy {
        properties["policy"] = json!(policy);
    }
    let mut result = json!({
        "ruleId": d.rule,
        "ruleIndex": rule_index,
        "level": level(d.severity),
        "message": { "text": d.message },
        "locations": [{
            "physicalLocation": { "artifactLocation": artifact, "region": region }
        }],
        "properties": properties,
    });
    if let Some(fix) = d.replacement {
        // The replaced range may be wider than the match (`expandStart`/`expandEnd`).
        let deleted = json!({
            "startLine": fix.range.start.line + 1,
            "startColumn": fix.range.start.column + 1,
            "endLine": fix.range.end.line + 1,
            "endColumn": fix.range.end.column + 1,
        });
        result["fixes"] = json!([{
            "description": { "text": format!("Apply the fix of {}", d.rule) },
            "artifactChanges": [{
                "artifactLocation": artifact,
                "replacements": [{
                    "deletedRegion": deleted,
                    "insertedContent": { "text": fix.text },
                }]
            }]
        }]);
    }
    result
}

/// The SARIF level of a severity.
fn level(severity: Severity) -> &'static str {
    match severity {
        Severity::Warning => "warning",
        Severity::Info | Severity::Hint => "note",
    }
}

/// `path` percent-encoded as a relative URI reference.
fn encode_uri_path(path: &str) -> String {
    percent_encode(path.as_bytes())
}

/// The `file:` URI of the directory `dir`, ending in `/` (as a base URI must).
fn directory_uri(dir: &Path) -> String {
    use std::os::unix::ffi::OsStrExt as _;
    let mut out = format!("file://{}", percent_encode(dir.as_os_str().as_bytes()));
    if !out.ends_with('/') {
        out.push('/');
    }
    out
}

/// RFC 3986's unreserved characters and `/` kept, every other byte written `%XX`.
fn percent_encode(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len());
    for &byte in bytes {
        if byte.is_ascii_alphanumeric() || b"-._~/".contains(&byte) {
            out.push(char::from(byte));
        } else {
            let _ = write!(out, "%{byte:02X}");
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_are_percent_encoded_as_uri_references() {
        assert_eq!(encode_uri_path("src/a b/ü.ts"), "src/a%20b/%C3%BC.ts");
        assert_eq!(encode_uri_path("src/x%y:z?.ts"), "src/x%25y%3Az%3F.ts");
        assert_eq!(encode_uri_path("src/\n\u{1b}.ts"), "src/%0A%1B.ts");
        assert_eq!(
            directory_uri(Path::new("/tmp/my repo")),
            "file:///tmp/my%20repo/"
        );
    }
}
