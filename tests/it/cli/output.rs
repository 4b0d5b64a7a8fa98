//! `check`'s output forms (`--format human|concise|json|github|sarif`), `--color`, `--error-on`,
//! paths relative to the current directory, and `completions`: the real binary on a temporary
//! repository with rules of every severity, a policy with guidance, a multi-line match and file
//! names holding control characters.

use crate::support::cli::{binary, check, cli};
use crate::support::snapshot::assert_snapshot;
use crate::support::{ConfigRoot, TestRepo, checkout, test_data};
use pi_native_hooks_analysis::{ByteRange, FindingFix, Position, Severity, SourceRange};
use pi_native_hooks_base::ContentHash;
use pi_native_hooks_cli::ExitStatus;
use pi_native_hooks_cli::format::{self, Diagnostic, Format, Report, Summary};
use serde_json::Value;
use std::path::Path;

/// A name that would recolour a terminal, with every character a GitHub property escapes.
const HOSTILE_NAME: &str = "src/\u{1b}[31mred,x:y%.ts";

const A_TS: &str = "declare const u: { n?: string };
export const a = u!.n;
export const b: any = 1;
console.log(
  \"multi\",
  a,
);
";

/// Rules of each severity (the info one with `%`, `:` and `,` in its message, the hint one
/// matching across lines) and a policy that reports `bang` with its guidance.
fn config() -> ConfigRoot {
    ConfigRoot::builder()
        .file("sgconfig.yml", "ruleDirs: [rules]\n")
        .file(
            "rules/bang.yml",
            "id: bang\nlanguage: TypeScript\nseverity: warning\nmessage: Non-null assertion.\nnote: Narrow the value first.\nrule:\n  kind: non_null_expression\n",
        )
        .file(
            "rules/loose-any.yml",
            "id: loose-any\nlanguage: TypeScript\nseverity: info\nmessage: \"Explicit any: 100% unchecked, not typed\"\nrule:\n  kind: predefined_type\n  regex: ^any$\n",
        )
        .file(
            "rules/console-call.yml",
            "id: console-call\nlanguage: TypeScript\nseverity: hint\nmessage: Console call.\nrule:\n  pattern: console.log($$$ARGS)\n",
        )
        .policy(
            "bang.rhai",
            "const ID = \"bang-policy\";\nconst KIND = \"diagnostic\";\nconst ANALYZER = \"ast-grep\";\nconst RULES = [\"bang\"];\nfn evaluate(snapshot) { snapshot.report(\"Guard it: check for undefined first.\") }\n",
        )
        .build()
}

/// A repository with one commit and three untracked files: every rule in `src/a.ts`, a finding
/// in a file with [`HOSTILE_NAME`], an info in `src/view/b.ts`.
fn repository() -> TestRepo {
    let repo = TestRepo::with_commit(&[("README.md", "# x\n")]);
    repo.write("src/a.ts", A_TS);
    repo.write(
        HOSTILE_NAME,
        "declare const u: { n?: string };\nexport const r = u!.n;\n",
    );
    repo.write("src/view/b.ts", "export const c: any = 2;\n");
    repo
}

/// `check --config <config> <args>` from `dir`.
fn run(dir: &Path, config: &ConfigRoot, args: &[&str]) -> (i32, String, String) {
    let config = config.path().to_str().expect("utf-8 config path");
    let mut all = vec!["--config", config];
    all.extend_from_slice(args);
    check(dir, &all)
}

#[test]
fn human_output_has_code_frames_notes_guidance_and_a_summary() {
    let (repo, config) = (repository(), config());
    let (code, stdout, stderr) = run(repo.path(), &config, &["--color", "never"]);
    assert_eq!((code, stderr.as_str()), (1, ""), "{stdout}");
    assert_snapshot!("output_human", &stdout);
    assert!(!stdout.contains('\u{1b}'), "no raw escape: {stdout:?}");
    assert!(
        stdout.ends_with("Analyzed 3 files: 2 warnings, 2 infos, 1 hint.\n"),
        "{stdout}"
    );
}

#[test]
fn human_output_is_coloured_with_color_always_and_only_with_sgr_sequences() {
    let (repo, config) = (repository(), config());
    let (code, stdout, _) = run(repo.path(), &config, &["--color", "always", "src/a.ts"]);
    assert_eq!(code, 1);
    // Every escape the output holds starts a Select Graphic Rendition sequence, `ESC [ … m`.
    for (at, _) in stdout.match_indices('\u{1b}') {
        let sequence: String = stdout[at + 1..].chars().take_while(|c| *c != 'm').collect();
        assert!(
            sequence.starts_with('[')
                && sequence[1..]
                    .chars()
                    .all(|c| c.is_ascii_digit() || c == ';'),
            "{sequence:?} in {stdout:?}"
        );
    }
    assert!(stdout.contains("\u{1b}["), "coloured: {stdout:?}");
    assert_snapshot!("output_human_color", &stdout.replace('\u{1b}', "␛"));

    // `--color never` and NO_COLOR under `auto` print the same text without any escape.
    let (_, plain, _) = run(repo.path(), &config, &["--color", "never", "src/a.ts"]);
    assert_eq!(plain, anstream::adapter::strip_str(&stdout).to_string());
    let output = binary()
        .args(["check", "--color", "auto", "--config"])
        .arg(config.path())
        .arg("src/a.ts")
        .current_dir(repo.path())
        .env("NO_COLOR", "1")
        .env("CLICOLOR_FORCE", "1")
        .output()
        .expect("binary runs");
    assert_eq!(String::from_utf8_lossy(&output.stdout), plain);
}

#[test]
fn the_summary_counts_files_not_analyzed_and_a_quiet_clean_run_prints_nothing() {
    let (repo, config) = (repository(), config());
    repo.write("src/bin.ts", b"\0binary");
    // The exit status of a run with a skipped file is `check`'s business, not the output's.
    let (_, stdout, stderr) = run(
        repo.path(),
        &config,
        &["--color", "never", "src/a.ts", "src/bin.ts"],
    );
    assert!(
        stdout.ends_with(
            "\nAnalyzed 1 file: 1 warning, 1 info, 1 hint; 1 file not analyzed (named on stderr).\n"
        ),
        "{stdout}"
    );
    assert!(stderr.contains("src/bin.ts: not analyzed"), "{stderr}");
    let (_, stdout, _) = run(repo.path(), &config, &["--color", "never", "src/bin.ts"]);
    assert_eq!(
        stdout,
        "Analyzed 0 files: no findings; 1 file not analyzed (named on stderr).\n"
    );

    repo.write("src/clean.ts", "export const ok = 1;\n");
    let (code, stdout, stderr) = run(repo.path(), &config, &["--quiet", "src/clean.ts"]);
    assert_eq!((code, stdout.as_str(), stderr.as_str()), (0, "", ""));
}

/// `check <args>` shown as a transcript entry: the command, what it printed on stdout, the exit
/// code; stderr must be empty.
fn transcript(dir: &Path, config: &ConfigRoot, args: &[&str]) -> String {
    let (code, stdout, stderr) = run(dir, config, args);
    assert_eq!(stderr, "", "{args:?}");
    let command = std::iter::once("check").chain(args.iter().copied());
    format!(
        "$ {}\n{}(exit {code})\n",
        command.collect::<Vec<_>>().join(" "),
        stdout
    )
}

#[test]
fn a_clean_run_says_what_it_did_in_the_human_forms_unless_quiet() {
    let config = config();
    let repo = TestRepo::with_commit(&[("README.md", "# x\n")]);
    repo.write("docs/notes.md", "# notes\n");
    let mut shown = String::from("# nothing selected\n");
    for args in [
        &[][..],
        &["--format", "concise"],
        &["docs"],
        &["--staged"],
        &["--staged", "docs"],
        &["--new-since", "HEAD"],
    ] {
        shown.push_str(&transcript(repo.path(), &config, args));
    }

    repo.write("src/clean.ts", "export const ok = 1;\n");
    repo.write("src/also.ts", "export const fine = 2;\n");
    shown.push_str("\n# nothing found\n");
    for args in [&[][..], &["src/clean.ts"], &["--format", "concise"]] {
        shown.push_str(&transcript(repo.path(), &config, args));
    }

    repo.write("src/a.ts", A_TS);
    shown.push_str("\n# findings (the summary line closing the human form)\n");
    let (code, stdout, stderr) = run(repo.path(), &config, &["--color", "never"]);
    assert_eq!((code, stderr.as_str()), (1, ""));
    let last = stdout.lines().last().unwrap_or_default();
    shown.push_str(&format!("$ check --color never\n… {last}\n(exit {code})\n"));
    assert_snapshot!("output_clean_run_summaries", &shown, redact = &[]);

    // The line closes a run that analyzed something, in the time it took.
    let (_, stdout, _) = run(repo.path(), &config, &["src/clean.ts"]);
    assert!(
        stdout.starts_with("Analyzed 1 file in ")
            && stdout.ends_with(": no findings.\n")
            && stdout.lines().count() == 1,
        "{stdout}"
    );

    // `--quiet` keeps a clean run silent in every form, and changes nothing else.
    for args in [
        &["--quiet", "--staged"][..],
        &["-q", "src/clean.ts"],
        &["--quiet", "--format", "concise", "src/clean.ts"],
        &["--quiet", "docs"],
    ] {
        let (code, stdout, stderr) = run(repo.path(), &config, args);
        assert_eq!(
            (code, stdout.as_str(), stderr.as_str()),
            (0, "", ""),
            "{args:?}"
        );
    }
    let (_, loud, _) = run(repo.path(), &config, &["--color", "never", "src/a.ts"]);
    let (_, quiet, _) = run(
        repo.path(),
        &config,
        &["--quiet", "--color", "never", "src/a.ts"],
    );
    assert_eq!(
        quiet, loud,
        "findings and their summary are printed as without --quiet"
    );

    // The machine forms keep their shape: no line for a clean run.
    for format in ["json", "github"] {
        let (code, stdout, _) = run(repo.path(), &config, &["--format", format, "src/clean.ts"]);
        assert_eq!((code, stdout.as_str()), (0, ""), "{format}");
    }
    let (_, sarif, _) = run(repo.path(), &config, &["--format", "sarif", "src/clean.ts"]);
    let log: Value = serde_json::from_str(&sarif).expect("one JSON document");
    assert_eq!(log["runs"][0]["results"], serde_json::json!([]));
}

#[test]
fn a_failed_run_prints_no_clean_run_line() {
    let repo = TestRepo::with_commit(&[("README.md", "# x\n")]);
    repo.write("src/clean.ts", "export const ok = 1;\n");
    let broken = ConfigRoot::builder()
        .file("sgconfig.yml", "ruleDirs: [rules]\n")
        .file(
            "rules/broken.yml",
            "id: broken\nlanguage: TypeScript\nrule: [\n",
        )
        .build();
    let (code, stdout, stderr) = run(repo.path(), &broken, &["src/clean.ts"]);
    assert_eq!((code, stdout.as_str()), (2, ""), "{stderr}");
}

#[test]
fn the_advice_is_said_once_unless_the_note_adds_to_the_guidance() {
    let repo = TestRepo::with_commit(&[("README.md", "# x\n")]);
    repo.write(
        "src/user.ts",
        "declare const u: { n?: string };\nexport function f(): string {\n  debugger;\n  return u!.n ?? \"\";\n}\nexport const a: any = 1;\n",
    );
    let (code, stdout, stderr) = check(repo.path(), &["--builtin", "--color", "never"]);
    assert_eq!((code, stderr.as_str()), (1, ""), "{stdout}");
    assert_snapshot!("output_advice_once", &stdout);
    // With the built-in pack, where each policy's guidance restates its rule's note, every
    // result has one line of advice (`fix available` is not advice).
    let results: Vec<&str> = stdout.split("\n\n").filter(|r| r.contains("-->")).collect();
    assert_eq!(results.len(), 3, "{stdout}");
    for result in results {
        let advice = result
            .lines()
            .filter(|l| {
                (l.trim_start().starts_with("= note:") || l.trim_start().starts_with("= help:"))
                    && !l.contains("fix available")
            })
            .count();
        assert_eq!(advice, 1, "{result}");
    }

    // A note that says something the guidance does not is shown beside it.
    let (repo, config) = (repository(), config());
    let (_, stdout, _) = run(repo.path(), &config, &["--color", "never", "src/a.ts"]);
    assert!(
        stdout.contains("= note: Narrow the value first.\n")
            && stdout.contains("= help: Guard it: check for undefined first.\n"),
        "{stdout}"
    );
}

#[test]
fn concise_and_human_paths_are_relative_to_the_current_directory() {
    let (repo, config) = (repository(), config());
    let view = repo.path().join("src/view");
    let (code, stdout, _) = run(&view, &config, &["--format", "concise"]);
    assert_eq!(code, 1);
    let paths: Vec<&str> = stdout
        .lines()
        .map(|l| l.split(' ').next().unwrap_or(l))
        .collect();
    assert_eq!(
        paths,
        [
            "../\\u{1b}[31mred,x:y%.ts:2:18",
            "../a.ts:2:18",
            "../a.ts:3:17",
            "../a.ts:4:1",
            "b.ts:1:17",
        ],
        "{stdout}"
    );
    let (_, human, _) = run(&view, &config, &["--color", "never", "../a.ts"]);
    assert!(human.contains(" --> ../a.ts:2:18\n"), "{human}");

    // `-C DIR` counts as the current directory.
    let outside = tempfile::tempdir().expect("temp dir");
    let src = repo.path().join("src");
    let (_, stdout, _) = run(
        outside.path(),
        &config,
        &[
            "-C",
            src.to_str().expect("utf-8"),
            "--format",
            "concise",
            "view",
        ],
    );
    assert_eq!(
        stdout,
        "view/b.ts:1:17 loose-any Explicit any: 100% unchecked, not typed\n"
    );

    // Machine forms stay relative to the repository root, wherever `check` runs.
    let (_, github, _) = run(&view, &config, &["--format", "github", "b.ts"]);
    assert!(github.contains("file=src/view/b.ts,"), "{github}");
    let (_, json, _) = run(&view, &config, &["--format", "json", "b.ts"]);
    assert!(json.contains("\"path\":\"src/view/b.ts\""), "{json}");
}

#[test]
fn github_output_is_one_escaped_workflow_command_per_result() {
    let (repo, config) = (repository(), config());
    let (code, stdout, stderr) = run(repo.path(), &config, &["--format", "github"]);
    assert_eq!((code, stderr.as_str()), (1, ""));
    assert_snapshot!("output_github", &stdout);
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines.len(), 5, "{stdout}");
    assert!(lines.iter().all(|l| l.starts_with("::")), "{stdout}");
    // The hostile name: `,` `:` `%` escaped as properties need, ESC written readably.
    assert_eq!(
        lines[0],
        "::warning file=src/\\u{1b}[31mred%2Cx%3Ay%25.ts,line=2,col=18,endLine=2,endColumn=20,\
         title=bang::Non-null assertion.%0AGuard it: check for undefined first."
    );
    // Data keeps `:` and `,` and escapes `%`; info and hint are notices; the multi-line match
    // spans its lines.
    assert!(
        lines.contains(
            &"::notice file=src/a.ts,line=3,col=17,endLine=3,endColumn=20,title=loose-any::Explicit any: 100%25 unchecked, not typed"
        ),
        "{stdout}"
    );
    assert!(
        lines.contains(
            &"::notice file=src/a.ts,line=4,col=1,endLine=7,endColumn=2,title=console-call::Console call."
        ),
        "{stdout}"
    );
}

/// The SARIF 2.1.0 schema, vendored (see `tests/fixtures/sarif/README.md`).
fn sarif_validator() -> jsonschema::Validator {
    let schema = std::fs::read_to_string(test_data("fixtures/sarif/sarif-schema-2.1.0.json"))
        .expect("the vendored schema is readable");
    let schema: Value = serde_json::from_str(&schema).expect("the schema is JSON");
    jsonschema::draft7::options()
        .should_validate_formats(true)
        .build(&schema)
        .expect("the schema compiles")
}

fn assert_valid_sarif(log: &Value) {
    let validator = sarif_validator();
    let errors: Vec<String> = validator
        .iter_errors(log)
        .map(|e| format!("{} at {}", e, e.instance_path()))
        .collect();
    assert!(errors.is_empty(), "{errors:#?}\n{log:#}");
}

#[test]
fn sarif_output_is_valid_sarif_2_1_0_with_rules_results_and_regions() {
    let (repo, config) = (repository(), config());
    let (code, stdout, stderr) = run(repo.path(), &config, &["--format", "sarif"]);
    assert_eq!((code, stderr.as_str()), (1, ""));
    let log: Value = serde_json::from_str(&stdout).expect("one JSON document");
    assert_valid_sarif(&log);
    let shown = stdout.replace(env!("CARGO_PKG_VERSION"), "[version]");
    assert_snapshot!("output_sarif", &shown, redact = &[(repo.path(), "[repo]")]);

    let run = &log["runs"][0];
    assert_eq!(run["columnKind"], "unicodeCodePoints");
    let rules: Vec<&str> = run["tool"]["driver"]["rules"]
        .as_array()
        .expect("rules")
        .iter()
        .map(|r| r["id"].as_str().expect("id"))
        .collect();
    assert_eq!(
        rules,
        ["bang", "loose-any", "console-call"],
        "in the order first met"
    );
    let bang = &run["tool"]["driver"]["rules"][0];
    assert_eq!(
        bang["help"]["text"],
        "Narrow the value first.\n\nGuard it: check for undefined first."
    );
    assert_eq!(bang["defaultConfiguration"]["level"], "warning");
    let results = run["results"].as_array().expect("results");
    assert_eq!(results.len(), 5);
    let uri = |r: &Value| {
        r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
            .as_str()
            .expect("uri")
            .to_owned()
    };
    assert_eq!(uri(&results[0]), "src/%1B%5B31mred%2Cx%3Ay%25.ts");
    let multi = results
        .iter()
        .find(|r| r["ruleId"] == "console-call")
        .expect("the multi-line result");
    assert_eq!(
        multi["locations"][0]["physicalLocation"]["region"],
        serde_json::json!({"startLine": 4, "startColumn": 1, "endLine": 7, "endColumn": 2})
    );
    assert_eq!(multi["level"], "note");
    assert!(results.iter().all(|r| r.get("fixes").is_none()));
}

#[test]
fn sarif_fixes_and_an_empty_run_are_valid_too() {
    let root = Path::new("/repo with space");
    // Wider than the match, as `expandEnd` makes it: the SARIF region deleted is the fix's own.
    let fix = FindingFix {
        range: SourceRange {
            start: Position {
                line: 1,
                column: 17,
            },
            end: Position {
                line: 1,
                column: 21,
            },
        },
        bytes: ByteRange { start: 40, end: 44 },
        text: "u?".to_owned(),
        content: ContentHash::of(b"the analyzed text"),
        content_len: 17,
    };
    let diagnostics = [Diagnostic {
        rule: "bang",
        severity: Severity::Hint,
        path: "src/ü.ts",
        line: 2,
        column: 18,
        end_line: 2,
        end_column: 20,
        message: "m",
        note: None,
        policy: None,
        guidance: None,
        replacement: Some(&fix),
    }];
    for diagnostics in [&diagnostics[..], &[]] {
        let text = write(Format::Sarif, diagnostics, root, &|_| None);
        let log: Value = serde_json::from_str(&text).expect("JSON");
        assert_valid_sarif(&log);
        let results = log["runs"][0]["results"].as_array().expect("results");
        assert_eq!(results.len(), diagnostics.len());
        if let Some(result) = results.first() {
            let change = &result["fixes"][0]["artifactChanges"][0];
            assert_eq!(change["artifactLocation"]["uri"], "src/%C3%BC.ts");
            assert_eq!(change["replacements"][0]["insertedContent"]["text"], "u?");
            assert_eq!(
                change["replacements"][0]["deletedRegion"],
                serde_json::json!({"startLine": 2, "startColumn": 18, "endLine": 2, "endColumn": 22})
            );
        }
        assert_eq!(
            log["runs"][0]["originalUriBaseIds"]["%SRCROOT%"]["uri"],
            "file:///repo%20with%20space/"
        );
    }
}

/// `format::write` in process over `diagnostics`, from the root itself.
fn write(
    format: Format,
    diagnostics: &[Diagnostic<'_>],
    root: &Path,
    sources: format::SourceLookup<'_>,
) -> String {
    let mut out = Vec::new();
    format::write(
        format,
        &Report {
            diagnostics,
            summary: Summary {
                analyzed: 1,
                ..Summary::default()
            },
            root,
            cwd: root,
            sources,
            color: false,
        },
        &mut out,
    )
    .expect("writes to memory");
    String::from_utf8(out).expect("utf-8")
}

#[test]
fn a_result_without_source_text_is_shown_at_its_position_without_a_frame() {
    let diagnostic = Diagnostic {
        rule: "bang",
        severity: Severity::Warning,
        path: "src/gone.ts",
        line: 2,
        column: 18,
        end_line: 2,
        end_column: 20,
        message: "Non-null assertion.",
        note: Some("A note."),
        policy: None,
        guidance: None,
        replacement: None,
    };
    let root = Path::new("/repo");
    let text = write(
        Format::Human,
        std::slice::from_ref(&diagnostic),
        root,
        &|_| None,
    );
    assert_eq!(
        text,
        "warning[bang]: Non-null assertion.\n--> src/gone.ts:2:18\n = note: A note.\n\nAnalyzed 1 file: 1 warning.\n"
    );
    // A source that no longer has the line is no frame either; one that has it is.
    let short = |_: &str| Some("one line\n".to_owned());
    assert_eq!(
        write(
            Format::Human,
            std::slice::from_ref(&diagnostic),
            root,
            &short
        ),
        text
    );
    let lookup = |path: &str| (path == "src/gone.ts").then(|| A_TS.to_owned());
    let framed = write(Format::Human, &[diagnostic], root, &lookup);
    assert!(
        framed.contains("2 | export const a = u!.n;\n  |                  ^^\n"),
        "{framed}"
    );
}

#[test]
fn control_characters_in_the_source_are_escaped_in_the_code_frame() {
    let (repo, config) = (repository(), config());
    repo.write(
        "src/c.ts",
        "declare const u: { n?: string };\nconst s = \"\u{1b}[2J\u{202e}\"; export const e = s + u!.n;\n",
    );
    let (code, stdout, _) = run(repo.path(), &config, &["--color", "never", "src/c.ts"]);
    assert_eq!(code, 1);
    assert!(
        !stdout.contains('\u{1b}') && !stdout.contains('\u{202e}'),
        "{stdout:?}"
    );
    // The carets stay under the match (`s + u!`, as tree-sitter groups it), after the escaped
    // characters.
    let line = "2 | const s = \"\\u{1b}[2J\\u{202e}\"; export const e = s + u!.n;";
    let carets = format!(
        "  |{}^^^^^^",
        " ".repeat(line.find("s + u!").expect("match") - 3)
    );
    assert!(stdout.contains(&format!("{line}\n{carets}\n")), "{stdout}");
}

/// One rule of `severity` and a file with one finding of it.
fn single(severity: &str) -> (TestRepo, ConfigRoot) {
    let config = ConfigRoot::builder()
        .file("sgconfig.yml", "ruleDirs: [rules]\n")
        .file(
            "rules/r.yml",
            &format!(
                "id: r\nlanguage: TypeScript\nseverity: {severity}\nmessage: m\nrule:\n  kind: non_null_expression\n"
            ),
        )
        .build();
    let repo = TestRepo::with_commit(&[("README.md", "# x\n")]);
    repo.write(
        "a.ts",
        "declare const u: { n?: string };\nexport const a = u!.n;\n",
    );
    (repo, config)
}

#[test]
fn error_on_decides_which_severities_exit_one() {
    // (severity of the only finding, --error-on, expected exit code); `None` is the default.
    let matrix = [
        ("hint", None, 0),
        ("hint", Some("hint"), 1),
        ("hint", Some("info"), 0),
        ("hint", Some("warning"), 0),
        ("info", None, 0),
        ("info", Some("hint"), 1),
        ("info", Some("info"), 1),
        ("info", Some("warning"), 0),
        ("warning", None, 1),
        ("warning", Some("hint"), 1),
        ("warning", Some("info"), 1),
        ("warning", Some("warning"), 1),
    ];
    for (severity, error_on, expected) in matrix {
        let (repo, config) = single(severity);
        for format in ["human", "json", "github", "sarif"] {
            let mut args = vec!["--format", format, "--color", "never"];
            if let Some(level) = error_on {
                args.extend(["--error-on", level]);
            }
            let (code, stdout, stderr) = run(repo.path(), &config, &args);
            assert_eq!(
                code, expected,
                "{severity} --error-on {error_on:?} --format {format}: {stderr}"
            );
            // Printed whether or not it fails the run.
            assert!(stdout.contains("a.ts"), "{severity} {format}: {stdout}");
        }
    }
}

#[test]
fn json_and_its_alias_print_the_same_lines() {
    let (repo, config) = (repository(), config());
    let (_, by_flag, _) = run(repo.path(), &config, &["--json"]);
    let (_, by_format, _) = run(repo.path(), &config, &["--format", "json"]);
    assert_eq!(by_flag, by_format);
    assert_eq!(by_flag.lines().count(), 5);
    let first: Value = serde_json::from_str(by_flag.lines().next().expect("a line")).expect("json");
    assert_eq!(
        first["path"], HOSTILE_NAME,
        "the original name, JSON-escaped"
    );
    assert_eq!(first["replacement"], Value::Null, "null without a fix");
    let (code, _, stderr) = run(repo.path(), &config, &["--json", "--format", "sarif"]);
    assert_eq!(code, 2, "the alias conflicts with another format: {stderr}");
}

#[test]
fn completions_for_bash_complete_the_subcommands_and_check_s_flags() {
    let (status, stdout, stderr) = cli(Path::new("."), &["completions", "bash"]);
    assert_eq!((status, stderr.as_str()), (ExitStatus::Clean, ""));
    assert!(stdout.contains("pi-native-hooks"), "{stdout}");
    for word in [
        "check",
        "doctor",
        "completions",
        "--format",
        "--error-on",
        "sarif",
    ] {
        assert!(stdout.contains(word), "{word} missing from the bash script");
    }
    let (status, zsh, _) = cli(Path::new("."), &["completions", "zsh"]);
    assert_eq!(status, ExitStatus::Clean);
    assert!(zsh.starts_with("#compdef pi-native-hooks"), "{zsh}");
}

#[test]
fn help_shows_examples_and_exit_statuses() {
    for args in [&["check", "--help"][..], &["--help"][..]] {
        let output = binary().args(args).output().expect("binary runs");
        assert_eq!(output.status.code(), Some(0));
        let text = String::from_utf8_lossy(&output.stdout);
        assert!(text.contains("Examples:"), "{args:?}: {text}");
        assert!(text.contains("Exit status"), "{args:?}: {text}");
    }
}

/// The `--format human` sample of the README: its one result is the first one `check` prints,
/// and its summary line is the last line, for the three files the sample describes.
#[test]
fn the_readme_human_sample_is_what_check_prints() {
    let readme = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../README.md"))
        .expect("README.md");
    let sample = readme
        .split("(`--format human`)")
        .nth(1)
        .and_then(|after| after.split("```text\n").nth(1))
        .and_then(|block| block.split("```").next())
        .expect("the README has a --format human sample");
    let (first_result, summary) = sample
        .split_once("\n\n")
        .expect("a result, a blank line and a summary");

    let repo = TestRepo::with_commit(&[("README.md", "# x\n")]);
    for (path, name) in [("modified.ts", "a"), ("sub/b.ts", "b"), ("sub/c.ts", "c")] {
        repo.write(
            path,
            format!("declare const u: {{ n?: string }};\nexport const {name} = u!.n;\n"),
        );
    }
    let (code, stdout, stderr) =
        check(&repo.path().join("sub"), &["--builtin", "--color", "never"]);
    assert_eq!((code, stderr.as_str()), (1, ""), "{stdout}");
    assert_eq!(stdout.split("\n\n").next(), Some(first_result), "{stdout}");
    assert!(stdout.ends_with(&format!("\n\n{summary}")), "{stdout}");
}

/// The README's main job: the command its set-up section gives, run from the checkout, prints the
/// output quoted right below it, byte for byte.
#[test]
fn the_readme_main_job_prints_what_the_readme_quotes() {
    let readme = std::fs::read_to_string(checkout().join("README.md")).expect("README.md");
    let section = readme
        .split("Run the main job")
        .nth(1)
        .expect("the README has a main job");
    let command = section
        .split("```sh\n")
        .nth(1)
        .and_then(|block| block.split("```").next())
        .expect("the main job's command");
    let quoted = section
        .split("```text\n")
        .nth(1)
        .and_then(|block| block.split("```").next())
        .expect("the main job's quoted output");
    let args: Vec<&str> = command
        .trim()
        .strip_prefix("cargo run --release --bin pi-native-hooks -- check ")
        .expect("the main job runs check")
        .split_whitespace()
        .collect();
    let (code, stdout, stderr) = check(checkout(), &args);
    assert_eq!((code, stderr.as_str()), (1, ""), "{stdout}");
    assert_eq!(stdout, quoted);
}
