//! Owns reading the text of `settings.toml` into [`Settings`]: walking the spanned TOML tree
//! key by key, so every problem names its key and line and a bad key only costs its own setting.

use super::{
    BLOCK_MAX_LINE_CHARS_BOUNDS, BLOCK_MAX_TOKENS_BOUNDS, CONTINUATION_CAP_BOUNDS, ExitCodePattern,
    ExitCodeSource, KeyFault, MAX_FIELD_DEPTH, MAX_READ_ONLY_TOOLS, MAX_SHELL_TOOLS, OWN_TOOL,
    ResultField, ResultPart, Settings, SettingsProblem, TREE_CACHE_BYTES_BOUNDS,
    TYPESCRIPT_MAX_DEPENDENTS_BOUNDS, TYPESCRIPT_MAX_SERVER_MEMORY_MIB_BOUNDS,
    TYPESCRIPT_MAX_SERVERS_BOUNDS, TYPESCRIPT_WAIT_MS_BOUNDS, WAVE_TIMEOUT_MS_BOUNDS,
    WRITING_TOOLS, tool_name_fault,
};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::time::Duration;
use toml::Spanned;
use toml::de::{DeTable, DeValue};

/// The keys of each table, by their dotted place (`""` is the top).
const KNOWN: &[(&str, &[&str])] = &[
    (
        "",
        &[
            "verification",
            "waves",
            "diagnostic_block",
            "analysis",
            "tools",
            "typescript",
        ],
    ),
    ("verification", &["continuation_cap"]),
    ("waves", &["timeout_ms"]),
    ("diagnostic_block", &["max_tokens", "max_line_chars"]),
    ("analysis", &["tree_cache_bytes"]),
    ("tools", &["read_only", "shell"]),
    (
        "typescript",
        &[
            "enabled",
            "wait_ms",
            "max_servers",
            "max_dependents",
            "max_server_memory_mib",
        ],
    ),
    (
        "tools.shell[]",
        &["name", "exit_code_field", "exit_code_pattern"],
    ),
];

/// Keys that were renamed before any release, with the key that replaced them: suggested by the
/// unknown-key error (a line count is no token count, so the value is not carried over).
const RENAMED: &[(&str, &str)] = &[("diagnostic_block.max_lines", "diagnostic_block.max_tokens")];

/// Built-in read-only tools: not shell tools.
const READ_ONLY_BUILTINS: [&str; 4] = ["read", "grep", "find", "ls"];

/// The settings in `text` (read from `path`) and every problem; what has a problem keeps its
/// default.
pub(super) fn parse(path: &Path, text: &str) -> (Settings, Vec<SettingsProblem>) {
    let mut reader = Reader {
        path: path.to_path_buf(),
        text,
        problems: Vec::new(),
    };
    let mut settings = Settings::default();
    let document = match DeTable::parse(text) {
        Ok(document) => document,
        Err(error) => {
            let line = error.span().map_or(1, |span| reader.line(span.start));
            reader.problems.push(SettingsProblem::Syntax {
                path: reader.path.clone(),
                line,
                message: error.message().trim().to_owned(),
            });
            return (settings, reader.problems);
        }
    };
    let top = document.get_ref();
    reader.unknown_keys(top, "", "");
    if let Some(table) = reader.table(top, "", "verification")
        && let Some(cap) = reader.int(
            table,
            "verification",
            "continuation_cap",
            CONTINUATION_CAP_BOUNDS,
        )
    {
        settings.continuation_cap = u32::try_from(cap).unwrap_or(settings.continuation_cap);
    }
    if let Some(table) = reader.table(top, "", "waves")
        && let Some(millis) = reader.int(table, "waves", "timeout_ms", WAVE_TIMEOUT_MS_BOUNDS)
    {
        settings.wave_timeout = Duration::from_millis(millis.unsigned_abs());
    }
    if let Some(table) = reader.table(top, "", "diagnostic_block") {
        let block = &mut settings.diagnostic_block;
        if let Some(tokens) = reader.int(
            table,
            "diagnostic_block",
            "max_tokens",
            BLOCK_MAX_TOKENS_BOUNDS,
        ) {
            block.max_tokens = usize::try_from(tokens).unwrap_or(block.max_tokens);
        }
        if let Some(chars) = reader.int(
            table,
            "diagnostic_block",
            "max_line_chars",
            BLOCK_MAX_LINE_CHARS_BOUNDS,
        ) {
            block.max_line_chars = usize::try_from(chars).unwrap_or(block.max_line_chars);
        }
    }
    if let Some(table) = reader.table(top, "", "analysis")
        && let Some(bytes) = reader.int(
            table,
            "analysis",
            "tree_cache_bytes",
            TREE_CACHE_BYTES_BOUNDS,
        )
    {
        settings.tree_cache_bytes = bytes.unsigned_abs();
    }
    if let Some(table) = reader.table(top, "", "typescript") {
        reader.typescript(table, &mut settings);
    }
    if let Some(tools) = reader.table(top, "", "tools") {
        reader.shell_tools(tools, &mut settings);
        reader.read_only_tools(tools, &mut settings);
    }
    (settings, reader.problems)
}

struct Reader<'t> {
    path: PathBuf,
    text: &'t str,
    problems: Vec<SettingsProblem>,
}

impl Reader<'_> {
    /// The 1-based line of byte `offset`.
    fn line(&self, offset: usize) -> usize {
        self.text.get(..offset).map_or(1, |before| {
            before.bytes().filter(|&b| b == b'\n').count() + 1
        })
    }

    fn problem<T>(&mut self, at: &Spanned<T>, key: &str, fault: KeyFault) {
        self.problems.push(SettingsProblem::Key {
            path: self.path.clone(),
            line: self.line(at.span().start),
            key: key.to_owned(),
            fault,
        });
    }

    /// Reports every key of `table` not known at `place` (its dotted key is `prefix`).
    fn unknown_keys(&mut self, table: &DeTable<'_>, place: &str, prefix: &str) {
        let known = KNOWN
            .iter()
            .find(|(at, _)| *at == place)
            .map_or(&[][..], |(_, keys)| *keys);
        for key in table.keys() {
            if known.contains(&key.get_ref().as_ref()) {
                continue;
            }
            let fault = KeyFault::Unknown {
                suggestion: suggest(key.get_ref(), known, prefix),
                known: known
                    .iter()
                    .map(|k| format!("`{}`", join(prefix, k)))
                    .collect(),
            };
            self.problem(key, &join(prefix, key.get_ref()), fault);
        }
    }

    /// The table at `name` in `parent` (whose dotted key is `prefix`), its unknown keys
    /// reported; `None` when absent or not a table.
    fn table<'a, 'i>(
        &mut self,
        parent: &'a DeTable<'i>,
        prefix: &str,
        name: &str,
    ) -> Option<&'a DeTable<'i>> {
        let value = parent.get(name)?;
        let key = join(prefix, name);
        if let DeValue::Table(table) = value.get_ref() {
            self.unknown_keys(table, &key, &key);
            Some(table)
        } else {
            self.type_problem(value, &key, "a table");
            None
        }
    }

    fn type_problem(&mut self, value: &Spanned<DeValue<'_>>, key: &str, expected: &'static str) {
        let found = value.get_ref().type_str();
        self.problem(value, key, KeyFault::Type { expected, found });
    }

    /// The integer at `table.name`, within `bounds`.
    fn int(
        &mut self,
        table: &DeTable<'_>,
        prefix: &str,
        name: &str,
        (min, max): (i64, i64),
    ) -> Option<i64> {
        let value = table.get(name)?;
        let key = join(prefix, name);
        let DeValue::Integer(integer) = value.get_ref() else {
            self.type_problem(value, &key, "an integer");
            return None;
        };
        match i64::from_str_radix(integer.as_str(), integer.radix()) {
            Ok(n) if (min..=max).contains(&n) => Some(n),
            _ => {
                let fault = KeyFault::Range {
                    value: integer.to_string(),
                    min,
                    max,
                };
                self.problem(value, &key, fault);
                None
            }
        }
    }

    fn typescript(&mut self, table: &DeTable<'_>, settings: &mut Settings) {
        let typescript = &mut settings.typescript;
        if let Some(enabled) = self.bool(table, "typescript", "enabled") {
            typescript.enabled = enabled;
        }
        if let Some(ms) = self.int(table, "typescript", "wait_ms", TYPESCRIPT_WAIT_MS_BOUNDS) {
            typescript.wait = Duration::from_millis(ms.unsigned_abs());
        }
        if let Some(n) = self.int(
            table,
            "typescript",
            "max_servers",
            TYPESCRIPT_MAX_SERVERS_BOUNDS,
        ) {
            typescript.max_servers = usize::try_from(n).unwrap_or(typescript.max_servers);
        }
        if let Some(n) = self.int(
            table,
            "typescript",
            "max_dependents",
            TYPESCRIPT_MAX_DEPENDENTS_BOUNDS,
        ) {
            typescript.max_dependents = usize::try_from(n).unwrap_or(typescript.max_dependents);
        }
        if let Some(n) = self.int(
            table,
            "typescript",
            "max_server_memory_mib",
            TYPESCRIPT_MAX_SERVER_MEMORY_MIB_BOUNDS,
        ) {
            typescript.max_server_memory_mib = n.unsigned_abs();
        }
    }

    /// The boolean at `table.name`.
    fn bool(&mut self, table: &DeTable<'_>, prefix: &str, name: &str) -> Option<bool> {
        let value = table.get(name)?;
        if let DeValue::Boolean(b) = value.get_ref() {
            Some(*b)
        } else {
            self.type_problem(value, &join(prefix, name), "a boolean");
            None
        }
    }

    /// The string at `table.name`, with its spanned value.
    fn string<'a, 'i>(
        &mut self,
        table: &'a DeTable<'i>,
        key: &str,
        name: &str,
    ) -> Option<(&'a Spanned<DeValue<'i>>, &'a str)> {
        let value = table.get(name)?;
        if let DeValue::String(text) = value.get_ref() {
            Some((value, text.as_ref()))
        } else {
            self.type_problem(value, &format!("{key}.{name}"), "a string");
            None
        }
    }

    fn read_only_tools(&mut self, tools: &DeTable<'_>, settings: &mut Settings) {
        let Some(value) = tools.get("read_only") else {
            return;
        };
        let key = "tools.read_only";
        let DeValue::Array(names) = value.get_ref() else {
            return self.type_problem(value, key, "an array of tool names");
        };
        if names.len() > MAX_READ_ONLY_TOOLS {
            let fault = KeyFault::Invalid(format!(
                "lists {} tools, more than the {MAX_READ_ONLY_TOOLS} allowed (no tool is declared read-only)",
                names.len()
            ));
            return self.problem(value, key, fault);
        }
        for (index, name) in names.iter().enumerate() {
            let entry = format!("{key}[{index}]");
            let DeValue::String(name_text) = name.get_ref() else {
                self.type_problem(name, &entry, "a tool name (a string)");
                continue;
            };
            let tool = name_text.as_ref();
            let fault = tool_name_fault(tool)
                .or_else(|| {
                    WRITING_TOOLS.contains(&tool).then(|| {
                        format!("{tool:?} changes files, so it cannot be declared read-only")
                    })
                })
                .or_else(|| {
                    settings.shell_tools.contains_key(tool).then(|| {
                        format!("{tool:?} is declared a shell tool, so it cannot be read-only")
                    })
                });
            match fault {
                Some(fault) => {
                    let fault = KeyFault::Invalid(format!("{fault}; the entry is ignored"));
                    self.problem(name, &entry, fault);
                }
                None => {
                    settings.read_only_tools.insert(tool.to_owned());
                }
            }
        }
    }

    fn shell_tools(&mut self, tools: &DeTable<'_>, settings: &mut Settings) {
        let Some(value) = tools.get("shell") else {
            return;
        };
        let key = "tools.shell";
        let DeValue::Array(entries) = value.get_ref() else {
            return self.type_problem(value, key, "an array of tables (`[[tools.shell]]`)");
        };
        if entries.len() > MAX_SHELL_TOOLS {
            let fault = KeyFault::Invalid(format!(
                "lists {} tools, more than the {MAX_SHELL_TOOLS} allowed (no shell tool is declared)",
                entries.len()
            ));
            return self.problem(value, key, fault);
        }
        let mut seen = BTreeSet::new();
        for (index, entry) in entries.iter().enumerate() {
            let at = format!("{key}[{index}]");
            let DeValue::Table(table) = entry.get_ref() else {
                self.type_problem(entry, &at, "a table (`[[tools.shell]]`)");
                continue;
            };
            self.unknown_keys(table, "tools.shell[]", &at);
            let Some((name, source)) = self.shell_tool(entry, table, &at) else {
                continue;
            };
            if seen.insert(name.clone()) {
                settings.shell_tools.insert(name, source);
            } else {
                let fault = KeyFault::Invalid(format!(
                    "{name:?} is declared twice; the first declaration counts"
                ));
                let name_value = table.get("name").unwrap_or(entry);
                self.problem(name_value, &format!("{at}.name"), fault);
            }
        }
    }

    /// One `[[tools.shell]]` entry, or `None` (reported) when it cannot be used.
    fn shell_tool(
        &mut self,
        entry: &Spanned<DeValue<'_>>,
        table: &DeTable<'_>,
        at: &str,
    ) -> Option<(String, ExitCodeSource)> {
        let Some((name_value, name)) = self.string(table, at, "name") else {
            if table.get("name").is_none() {
                let fault = KeyFault::Invalid(
                    "needs `name`, the tool's name as Pi calls it; the entry is ignored".to_owned(),
                );
                self.problem(entry, at, fault);
            }
            return None;
        };
        let name_at = format!("{at}.name");
        let fault = tool_name_fault(name)
            .or_else(|| {
                (WRITING_TOOLS[1..].contains(&name) || READ_ONLY_BUILTINS.contains(&name))
                    .then(|| format!("{name:?} is a built-in tool that runs no shell command"))
            })
            .or_else(|| (name == OWN_TOOL).then(|| format!("{name:?} is this package's own tool")));
        if let Some(fault) = fault {
            let fault = KeyFault::Invalid(format!("{fault}; the entry is ignored"));
            self.problem(name_value, &name_at, fault);
            return None;
        }
        let field = self.string(table, at, "exit_code_field");
        let pattern = self.string(table, at, "exit_code_pattern");
        let source = match (field, pattern) {
            (Some((value, field)), None) => match result_field(field) {
                Ok(field) => ExitCodeSource::Field(field),
                Err(fault) => {
                    let fault = KeyFault::Invalid(format!("{fault}; the entry is ignored"));
                    self.problem(value, &format!("{at}.exit_code_field"), fault);
                    return None;
                }
            },
            (None, Some((value, pattern))) => match ExitCodePattern::new(pattern) {
                Ok(pattern) => ExitCodeSource::Pattern(pattern),
                Err(fault) => {
                    let fault = KeyFault::Invalid(format!("{fault}; the entry is ignored"));
                    self.problem(value, &format!("{at}.exit_code_pattern"), fault);
                    return None;
                }
            },
            (Some(_), Some(_)) => {
                let fault = KeyFault::Invalid(
                    "gives both `exit_code_field` and `exit_code_pattern`; keep one (the entry is ignored)"
                        .to_owned(),
                );
                self.problem(entry, at, fault);
                return None;
            }
            (None, None) => {
                if !table.contains_key("exit_code_field")
                    && !table.contains_key("exit_code_pattern")
                {
                    let fault = KeyFault::Invalid(
                        "needs `exit_code_field` (e.g. \"details.exit_code\") or `exit_code_pattern` (a pattern with one capture group); the entry is ignored"
                            .to_owned(),
                    );
                    self.problem(entry, at, fault);
                }
                return None;
            }
        };
        Some((name.to_owned(), source))
    }
}

/// `exit_code_field` as a [`ResultField`], or what is wrong with it.
fn result_field(text: &str) -> Result<ResultField, String> {
    let mut parts = text.split('.');
    let part = match parts.next() {
        Some("structuredContent") => ResultPart::StructuredContent,
        Some("details") => ResultPart::Details,
        _ => {
            return Err(format!(
                "{text:?} must start with `structuredContent.` or `details.`, the machine-readable parts of a tool result"
            ));
        }
    };
    let path: Vec<String> = parts.map(str::to_owned).collect();
    let valid = |key: &String| {
        !key.is_empty()
            && key
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
    };
    if path.is_empty() || path.len() > MAX_FIELD_DEPTH || !path.iter().all(valid) {
        return Err(format!(
            "{text:?} is not a field path: give 1 to {MAX_FIELD_DEPTH} keys after the part, separated by `.`, each of ASCII letters, digits, `_` or `-`"
        ));
    }
    Ok(ResultField { part, path })
}

fn join(prefix: &str, key: &str) -> String {
    if prefix.is_empty() {
        key.to_owned()
    } else {
        format!("{prefix}.{key}")
    }
}

/// The known key closest to `key`: the key that replaced it, the full key of a setting whose name it is (written in the
/// wrong table), else a key at this place that is spelled alike.
fn suggest(key: &str, known: &[&str], prefix: &str) -> Option<String> {
    let full = join(prefix, key);
    if let Some((_, now)) = RENAMED.iter().find(|(old, _)| *old == full) {
        return Some((*now).to_owned());
    }
    for (place, keys) in KNOWN {
        if keys.contains(&key) && !place.is_empty() {
            return Some(format!("[{}] {key}", place.trim_end_matches("[]")));
        }
    }
    pi_native_hooks_base::closest(key, known.iter().copied())
        .map(|candidate| join(prefix, candidate))
}
