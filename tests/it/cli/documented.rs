//! Every `pi-native-hooks` command line the README and docs/ show in a code block (a shell line, a
//! CI step's `run:` or a pre-commit `entry:`) is one the command line accepts: an example cannot
//! name a flag, value or subcommand that does not exist.

use crate::support::checkout;
use clap::Parser;
use pi_native_hooks_cli::Cli;

/// The arguments of each `pi-native-hooks …` line in the `sh` and `yaml` code blocks of `text`
/// (`text` blocks show output, not commands): a leading
/// `$ `, `- run: `, `run: `, `entry: ` or `npx ` is dropped, the line is cut at a redirection, pipe,
/// `&&` or comment, and a `${{ … }}` expression stands for one word. A usage synopsis (a word in
/// `[…]` or `<…>`) is not an example and is left out.
fn documented_commands(text: &str) -> Vec<Vec<String>> {
    let mut commands = Vec::new();
    // Inside a fence: whether its blocks hold commands.
    let mut fence: Option<bool> = None;
    for line in text.lines() {
        let trimmed = line.trim();
        if let Some(info) = trimmed.strip_prefix("```") {
            fence = match fence {
                Some(_) => None,
                None => Some(matches!(info.trim(), "sh" | "yaml")),
            };
            continue;
        }
        if fence != Some(true) {
            continue;
        }
        let mut rest = trimmed;
        for prefix in ["$ ", "- run: ", "run: ", "entry: ", "npx "] {
            rest = rest.strip_prefix(prefix).unwrap_or(rest);
        }
        let Some(args) = rest.strip_prefix("pi-native-hooks ") else {
            continue;
        };
        let args = args
            .split(['>', '|', '#'])
            .next()
            .and_then(|args| args.split("&&").next())
            .unwrap_or_default();
        let mut words = Vec::new();
        let mut expression = false;
        for word in args.split_whitespace() {
            if expression {
                expression = !word.contains("}}");
                continue;
            }
            if let Some(start) = word.find("${{") {
                words.push(format!("{}X", &word[..start]));
                expression = !word.contains("}}");
            } else {
                words.push(word.to_owned());
            }
        }
        if words
            .iter()
            .any(|word| word.starts_with('[') || word.starts_with('<'))
        {
            continue;
        }
        commands.push(words);
    }
    commands
}

#[test]
fn every_documented_command_line_parses() {
    let root = checkout();
    let mut pages = vec![root.join("README.md")];
    let mut docs: Vec<_> = std::fs::read_dir(root.join("docs"))
        .expect("docs/")
        .filter_map(Result::ok)
        .map(|entry| entry.path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "md"))
        .collect();
    docs.sort();
    pages.extend(docs);
    let mut checked = 0;
    for page in &pages {
        let text = std::fs::read_to_string(page).expect("a documentation page");
        for args in documented_commands(&text) {
            let argv = std::iter::once("pi-native-hooks".to_owned()).chain(args.iter().cloned());
            if let Err(error) = Cli::try_parse_from(argv) {
                assert!(
                    matches!(
                        error.kind(),
                        clap::error::ErrorKind::DisplayHelp
                            | clap::error::ErrorKind::DisplayVersion
                    ),
                    "{}: `pi-native-hooks {}` does not parse:\n{error}",
                    page.display(),
                    args.join(" ")
                );
            }
            checked += 1;
        }
    }
    // The CI recipes (GitHub Actions, SARIF, `--new-since`) and the completions show seven.
    assert!(
        checked >= 7,
        "only {checked} documented command lines found"
    );
}
