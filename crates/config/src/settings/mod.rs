//! Owns the settings file of a config root, `settings.toml`: the typed [`Settings`] (the
//! continuation cap, the wave timeout, the diagnostic block's limits, the held-tree budget of the
//! analyzer, the tools declared
//! read-only and the tools that run shell commands with where their exit code is found), its
//! defaults and bounds, and loading it with the root's trust checks ([`load_settings`]).
//!
//! Only the config root can change a setting: no environment variable and no repository file is
//! read. A file that cannot be read or parsed leaves every setting at its default; a key that is
//! unknown, of the wrong type or out of bounds leaves that one setting at its default. Either
//! way the problem is kept ([`LoadedSettings::problems`], naming the file, the line and the key)
//! and the session shows itself degraded. The defaults are the strictest values for the gate (no
//! extra read-only tool, no extra shell tool), so a broken file never weakens it.

mod parse;

use super::trust::{TrustError, TrustedDir};
use std::collections::{BTreeMap, BTreeSet};
use std::ffi::OsStr;
use std::fmt;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// The settings file's name in the config root.
pub const SETTINGS_FILE: &str = "settings.toml";

/// The default continuation cap (the verification gate's own default).
pub const DEFAULT_CONTINUATION_CAP: u32 = 8;
/// The continuation cap's bounds.
pub(crate) const CONTINUATION_CAP_BOUNDS: (i64, i64) = (1, 100);
/// The default wave timeout, in milliseconds.
pub(crate) const DEFAULT_WAVE_TIMEOUT_MS: u64 = 10_000;
/// The wave timeout's bounds, in milliseconds (100 ms to 10 minutes).
pub(crate) const WAVE_TIMEOUT_MS_BOUNDS: (i64, i64) = (100, 600_000);
/// The default token budget of the diagnostic block (`o200k_base` tokens): about 90 locations of
/// one rule with its guidance, or a dozen rules with a few locations each.
pub const DEFAULT_BLOCK_MAX_TOKENS: usize = 1_000;
/// The token budget's bounds (below 100 the header and the line naming what was left out would
/// fill it).
pub(crate) const BLOCK_MAX_TOKENS_BOUNDS: (i64, i64) = (100, 100_000);
/// The default character cap per line of the diagnostic block.
pub(crate) const DEFAULT_BLOCK_MAX_LINE_CHARS: usize = 400;
/// The per-line character cap's bounds.
pub(crate) const BLOCK_MAX_LINE_CHARS_BOUNDS: (i64, i64) = (40, 10_000);
/// The default byte budget of the syntax trees held for incremental re-analysis (64 MiB: about
/// 165 files of 11 KiB, each held at about 35 times its source).
pub const DEFAULT_TREE_CACHE_BYTES: u64 = 64 * 1024 * 1024;
/// The held-tree budget's bounds, in bytes (0 holds nothing, at most 1 GiB).
pub const TREE_CACHE_BYTES_BOUNDS: (i64, i64) = (0, 1024 * 1024 * 1024);
/// The most tools `tools.read_only` may list.
pub(crate) const MAX_READ_ONLY_TOOLS: usize = 256;
/// The default `[typescript] wait_ms`: how long a wave's block waits for type findings. A warm
/// TypeScript 7 server answers a one-file edit in tens of milliseconds; a cold one takes longer
/// and is delivered with a later wave.
pub const DEFAULT_TYPESCRIPT_WAIT_MS: u64 = 1_500;
/// `[typescript] wait_ms` bounds (0 never waits: every type finding comes with a later wave).
pub(crate) const TYPESCRIPT_WAIT_MS_BOUNDS: (i64, i64) = (0, 60_000);
/// The default `[typescript] max_servers`.
pub const DEFAULT_TYPESCRIPT_MAX_SERVERS: usize = 4;
/// `[typescript] max_servers` bounds.
pub(crate) const TYPESCRIPT_MAX_SERVERS_BOUNDS: (i64, i64) = (1, 32);
/// The default `[typescript] max_dependents`.
pub const DEFAULT_TYPESCRIPT_MAX_DEPENDENTS: usize = 50;
/// `[typescript] max_dependents` bounds.
pub(crate) const TYPESCRIPT_MAX_DEPENDENTS_BOUNDS: (i64, i64) = (0, 1_000);
/// The default `[typescript] max_server_memory_mib`.
pub const DEFAULT_TYPESCRIPT_MAX_SERVER_MEMORY_MIB: u64 = 2_048;
/// `[typescript] max_server_memory_mib` bounds.
pub(crate) const TYPESCRIPT_MAX_SERVER_MEMORY_MIB_BOUNDS: (i64, i64) = (64, 65_536);
/// The most `[[tools.shell]]` entries.
pub(crate) const MAX_SHELL_TOOLS: usize = 64;
/// The longest tool name, in bytes.
pub(crate) const MAX_TOOL_NAME: usize = 128;
/// The longest `exit_code_pattern`, in bytes.
pub(crate) const MAX_PATTERN_LEN: usize = 1_024;
/// The most components of an `exit_code_field` path.
pub(crate) const MAX_FIELD_DEPTH: usize = 8;
/// The compiled size limit of an `exit_code_pattern`, in bytes.
const PATTERN_SIZE_LIMIT: usize = 1 << 20;

/// Tools that may never be declared read-only or a shell tool other than `bash` as given: they
/// write files (`write`, `edit`), or are Pi's shell (declared read-only it would hide every
/// change; it may be redeclared as a shell tool to say where an override reports its exit code).
const WRITING_TOOLS: [&str; 3] = ["bash", "write", "edit"];

/// This package's own tool (the waiver): never a shell or read-only declaration.
pub const OWN_TOOL: &str = "pi_hooks_waive_verification";

/// Every setting, with its value from the file or its default.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Settings {
    /// `verification.continuation_cap`: consecutive continuations without progress before the
    /// gate stops forcing.
    pub continuation_cap: u32,
    /// `waves.timeout_ms`: the longest any hook handler waits.
    pub wave_timeout: Duration,
    /// `diagnostic_block.*`: the limits of the block appended to a tool result.
    pub diagnostic_block: BlockLimits,
    /// `analysis.tree_cache_bytes`: the byte budget of the source texts and syntax trees the
    /// session's analyzer holds for incremental re-analysis (0 holds none).
    pub tree_cache_bytes: u64,
    /// `tools.read_only`: tools treated like Pi's read-only built-ins (no snapshot, never a
    /// mutating sibling), besides `read`, `grep`, `find` and `ls`.
    pub read_only_tools: BTreeSet<String>,
    /// `[[tools.shell]]`: tools treated like `bash` for evidence (their `command` argument is the
    /// command run), with where their exit code is found. `bash` itself reads
    /// `structuredContent.exit_code` unless redeclared here.
    pub shell_tools: BTreeMap<String, ExitCodeSource>,
    /// `[typescript]`: the project's own TypeScript as a second analyzer.
    pub typescript: TypeScriptSettings,
}

/// The settings of the TypeScript analyzer (`[typescript]`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TypeScriptSettings {
    /// `enabled`: ask the project's TypeScript for type errors (on by default wherever the
    /// project has TypeScript 7 or later installed).
    pub enabled: bool,
    /// `wait_ms`: how long a wave's block waits for type findings; what arrives later comes with
    /// a later wave.
    pub wait: Duration,
    /// `max_servers`: language servers running at once (one per project); the least recently
    /// used one stops for a new one.
    pub max_servers: usize,
    /// `max_dependents`: unchanged files that import a changed one, re-checked per wave; those
    /// beyond are named as not checked.
    pub max_dependents: usize,
    /// `max_server_memory_mib`: a server over this resident memory is stopped and its project's
    /// type check reported unavailable.
    pub max_server_memory_mib: u64,
}

impl Default for TypeScriptSettings {
    fn default() -> Self {
        Self {
            enabled: true,
            wait: Duration::from_millis(DEFAULT_TYPESCRIPT_WAIT_MS),
            max_servers: DEFAULT_TYPESCRIPT_MAX_SERVERS,
            max_dependents: DEFAULT_TYPESCRIPT_MAX_DEPENDENTS,
            max_server_memory_mib: DEFAULT_TYPESCRIPT_MAX_SERVER_MEMORY_MIB,
        }
    }
}

impl Default for Settings {
    fn default() -> Self {
        Self {
            continuation_cap: DEFAULT_CONTINUATION_CAP,
            wave_timeout: Duration::from_millis(DEFAULT_WAVE_TIMEOUT_MS),
            diagnostic_block: BlockLimits::default(),
            tree_cache_bytes: DEFAULT_TREE_CACHE_BYTES,
            read_only_tools: BTreeSet::new(),
            shell_tools: BTreeMap::new(),
            typescript: TypeScriptSettings::default(),
        }
    }
}

impl Settings {
    /// Where `tool`'s exit code is found, when it runs shell commands: its declaration, else
    /// `structuredContent.exit_code` for `bash`, else `None` (not a shell tool).
    pub fn exit_code_source(&self, tool: &str) -> Option<ExitCodeSource> {
        self.shell_tools.get(tool).cloned().or_else(|| {
            (tool == "bash").then(|| ExitCodeSource::Field(ResultField::bash_exit_code()))
        })
    }

    /// Every tool whose calls count as runs of a required command: `bash` and the declared shell
    /// tools.
    pub fn shell_tool_names(&self) -> BTreeSet<String> {
        let mut names: BTreeSet<String> = self.shell_tools.keys().cloned().collect();
        names.insert("bash".to_owned());
        names
    }
}

/// The settings as `doctor` and `/hooks-status` list them: one `key = value` line each, indented
/// by two spaces, the declared tools last.
impl fmt::Display for Settings {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "  verification.continuation_cap = {}",
            self.continuation_cap
        )?;
        writeln!(f, "  waves.timeout_ms = {}", self.wave_timeout.as_millis())?;
        writeln!(
            f,
            "  diagnostic_block.max_tokens = {}",
            self.diagnostic_block.max_tokens
        )?;
        writeln!(
            f,
            "  diagnostic_block.max_line_chars = {}",
            self.diagnostic_block.max_line_chars
        )?;
        writeln!(f, "  analysis.tree_cache_bytes = {}", self.tree_cache_bytes)?;
        let ts = &self.typescript;
        writeln!(
            f,
            "  typescript.enabled = {}, wait_ms = {}, max_servers = {}, max_dependents = {}, max_server_memory_mib = {}",
            ts.enabled,
            ts.wait.as_millis(),
            ts.max_servers,
            ts.max_dependents,
            ts.max_server_memory_mib
        )?;
        let read_only: Vec<&str> = self.read_only_tools.iter().map(String::as_str).collect();
        writeln!(
            f,
            "  tools.read_only = [{}] (besides read, grep, find, ls)",
            read_only.join(", ")
        )?;
        for (name, source) in &self.shell_tools {
            writeln!(f, "  tools.shell: {name}, exit code from {source}")?;
        }
        Ok(())
    }
}

/// The limits of the diagnostic block (`[diagnostic_block]`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BlockLimits {
    /// `max_tokens`: `o200k_base` tokens in the whole block; what does not fit is named in it.
    pub max_tokens: usize,
    /// `max_line_chars`: characters per line; longer text is cut with `…`.
    pub max_line_chars: usize,
}

impl Default for BlockLimits {
    fn default() -> Self {
        Self {
            max_tokens: DEFAULT_BLOCK_MAX_TOKENS,
            max_line_chars: DEFAULT_BLOCK_MAX_LINE_CHARS,
        }
    }
}

/// Where a shell tool reports its exit code. The binding reads it from Pi's tool result; the
/// engine only holds what was declared.
#[derive(Clone, Debug)]
pub enum ExitCodeSource {
    /// `exit_code_field`: an integer at this path of the result's machine-readable parts.
    Field(ResultField),
    /// `exit_code_pattern`: the last match of this pattern in the result's text; the capture
    /// group `code` (or the only capture group) is the exit code.
    Pattern(ExitCodePattern),
}

impl PartialEq for ExitCodeSource {
    fn eq(&self, other: &Self) -> bool {
        match (self, other) {
            (Self::Field(a), Self::Field(b)) => a == b,
            (Self::Pattern(a), Self::Pattern(b)) => a.source() == b.source(),
            _ => false,
        }
    }
}

impl Eq for ExitCodeSource {}

impl fmt::Display for ExitCodeSource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Field(field) => write!(f, "field {field}"),
            Self::Pattern(pattern) => write!(f, "pattern '{}'", pattern.source()),
        }
    }
}

/// Which machine-readable part of a tool result a field path starts in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ResultPart {
    /// `structuredContent` (Pi's `bash` reports `exit_code` there).
    StructuredContent,
    /// `details` (what a tool registered by an extension returns beside its content).
    Details,
}

impl ResultPart {
    /// The name a field path starts with.
    pub fn name(self) -> &'static str {
        match self {
            Self::StructuredContent => "structuredContent",
            Self::Details => "details",
        }
    }
}

/// A path into a tool result: its part, then object keys (or array indexes, as digits).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ResultField {
    /// The part the path starts in.
    pub part: ResultPart,
    /// The keys below it, at least one.
    pub path: Vec<String>,
}

impl ResultField {
    /// `structuredContent.exit_code`, where Pi's `bash` reports it.
    pub fn bash_exit_code() -> Self {
        Self {
            part: ResultPart::StructuredContent,
            path: vec!["exit_code".to_owned()],
        }
    }
}

impl fmt::Display for ResultField {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.part.name())?;
        for key in &self.path {
            write!(f, ".{key}")?;
        }
        Ok(())
    }
}

/// A compiled `exit_code_pattern` (linear-time matching, size-limited when compiled).
#[derive(Clone, Debug)]
pub struct ExitCodePattern {
    regex: regex::Regex,
}

impl ExitCodePattern {
    /// Compiles `source`; it must hold the capture group `code` or exactly one capture group.
    pub fn new(source: &str) -> Result<Self, String> {
        if source.len() > MAX_PATTERN_LEN {
            return Err(format!(
                "is {} bytes, more than the {MAX_PATTERN_LEN} a pattern may have",
                source.len()
            ));
        }
        let regex = regex::RegexBuilder::new(source)
            .size_limit(PATTERN_SIZE_LIMIT)
            .build()
            .map_err(|error| format!("is not a valid pattern: {}", one_line(&error.to_string())))?;
        let named = regex.capture_names().any(|name| name == Some("code"));
        if !named && regex.captures_len() != 2 {
            return Err(
                "needs a capture group named `code` (or exactly one capture group) around the exit code"
                    .to_owned(),
            );
        }
        Ok(Self { regex })
    }

    /// The pattern as written.
    pub fn source(&self) -> &str {
        self.regex.as_str()
    }

    /// The exit code in `text`: the capture of its last match, when that is an integer.
    pub fn exit_code(&self, text: &str) -> Option<i64> {
        let captures = self.regex.captures_iter(text).last()?;
        let code = captures.name("code").or_else(|| captures.get(1))?;
        code.as_str().trim().parse().ok()
    }
}

/// The last lines of a multi-line message joined into one.
fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Where the settings came from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SettingsOrigin {
    /// No config root is in use (the built-in pack): every setting is its default.
    BuiltIn,
    /// The config root has no settings file: every setting is its default.
    Absent(PathBuf),
    /// Read from this file (settings with a problem keep their default).
    File(PathBuf),
}

impl fmt::Display for SettingsOrigin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::BuiltIn => f.write_str("defaults (no config root)"),
            Self::Absent(path) => write!(f, "defaults ({} does not exist)", path.display()),
            Self::File(path) => write!(f, "{}", path.display()),
        }
    }
}

/// The settings of a config source, with every problem met reading them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LoadedSettings {
    /// Where they came from.
    pub origin: SettingsOrigin,
    /// The values in force.
    pub settings: Settings,
    /// What was wrong; each bad setting kept its default.
    pub problems: Vec<SettingsProblem>,
}

impl LoadedSettings {
    /// The defaults, for the built-in pack.
    pub fn builtin() -> Self {
        Self {
            origin: SettingsOrigin::BuiltIn,
            settings: Settings::default(),
            problems: Vec::new(),
        }
    }
}

/// A problem with the settings file.
#[expect(missing_docs, reason = "variant fields name what they hold")]
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SettingsProblem {
    /// The file failed a trust check or could not be read: every setting keeps its default.
    #[error("{0} (every setting keeps its default)")]
    Trust(TrustError),
    /// The file is not valid TOML: every setting keeps its default.
    #[error("{}:{line}: not valid TOML: {message} (every setting keeps its default)", path.display())]
    Syntax {
        path: PathBuf,
        /// The 1-based line.
        line: usize,
        message: String,
    },
    /// One key is wrong: that setting keeps its default.
    #[error("{}:{line}: `{key}` {fault}", path.display())]
    Key {
        path: PathBuf,
        /// The 1-based line of the key (or of its value).
        line: usize,
        /// The key, dotted from the top (`tools.shell[0].name`).
        key: String,
        fault: KeyFault,
    },
}

/// What is wrong with one key of the settings file.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum KeyFault {
    /// Not a setting.
    #[error("is not a setting{} The settings here are {}", suggestion.as_ref().map_or_else(|| ".".to_owned(), |s| format!(": did you mean `{s}`?")), known.join(", "))]
    Unknown {
        /// The closest known key, when one is close.
        suggestion: Option<String>,
        /// The keys allowed at that place.
        known: Vec<String>,
    },
    /// A value of the wrong type.
    #[error("must be {expected}, not {found} (it keeps its default)")]
    Type {
        /// What the key takes.
        expected: &'static str,
        /// What the file holds.
        found: &'static str,
    },
    /// A number outside the key's bounds.
    #[error("= {value} is outside {min}..={max} (it keeps its default)")]
    Range {
        /// The value as written.
        value: String,
        /// The smallest value allowed.
        min: i64,
        /// The largest value allowed.
        max: i64,
    },
    /// Anything else about the value; the text says what to do.
    #[error("{0}")]
    Invalid(String),
}

/// Reads `settings.toml` from the checked config root `root`: absent gives the defaults; a trust
/// or read failure, a syntax error or a bad key gives a problem and the defaults for what it
/// affects.
pub(crate) fn load_settings(root: &TrustedDir) -> LoadedSettings {
    let path = root.path().join(SETTINGS_FILE);
    let name = OsStr::new(SETTINGS_FILE);
    match root.contains(name) {
        Ok(false) => {
            return LoadedSettings {
                origin: SettingsOrigin::Absent(path),
                settings: Settings::default(),
                problems: Vec::new(),
            };
        }
        Ok(true) => {}
        Err(error) => return unreadable(path, error),
    }
    match root.read_file(name) {
        Ok(text) => {
            let (settings, problems) = parse::parse(&path, &text);
            LoadedSettings {
                origin: SettingsOrigin::File(path),
                settings,
                problems,
            }
        }
        Err(error) => unreadable(path, error),
    }
}

/// Parses `text` as the settings file at `path` (the path only names it in problems), without
/// reading anything: what [`load_settings_at`] does once it has the file's text.
pub fn parse_settings(path: &Path, text: &str) -> (Settings, Vec<SettingsProblem>) {
    parse::parse(path, text)
}

/// Reads the settings of the config root at `root` (every ancestor checked); `None` when the
/// root does not exist.
pub fn load_settings_at(root: &Path) -> Option<LoadedSettings> {
    match TrustedDir::open_root_if_exists(root) {
        Ok(Some(dir)) => Some(load_settings(&dir)),
        Ok(None) => None,
        Err(error) => Some(unreadable(root.join(SETTINGS_FILE), error)),
    }
}

fn unreadable(path: PathBuf, error: TrustError) -> LoadedSettings {
    LoadedSettings {
        origin: SettingsOrigin::File(path),
        settings: Settings::default(),
        problems: vec![SettingsProblem::Trust(error)],
    }
}

/// Why a tool name cannot be declared, if it cannot.
fn tool_name_fault(name: &str) -> Option<String> {
    if name.is_empty() || name.len() > MAX_TOOL_NAME {
        return Some(format!(
            "{name:?} is not a tool name: give 1 to {MAX_TOOL_NAME} bytes"
        ));
    }
    let allowed = |c: char| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.' | ':' | '/');
    if !name.chars().all(allowed) {
        return Some(format!(
            "{name:?} is not a tool name: use ASCII letters, digits and `_ - . : /`"
        ));
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pattern_needs_one_group_and_reads_the_last_match() {
        assert!(ExitCodePattern::new(r"exit \d+").is_err());
        assert!(ExitCodePattern::new(r"(a)(b)").is_err());
        assert!(ExitCodePattern::new(r"(").is_err());
        let pattern = ExitCodePattern::new(r"exit code: (-?\d+)").unwrap();
        assert_eq!(pattern.exit_code("exit code: 3\nexit code: 0\n"), Some(0));
        assert_eq!(pattern.exit_code("nothing"), None);
        let named = ExitCodePattern::new(r"(status) (?<code>\d+)").unwrap();
        assert_eq!(named.exit_code("status 7"), Some(7));
        let too_big = ExitCodePattern::new(r"(\d+)\w{1000}\w{1000}\w{1000}");
        assert!(too_big.is_err(), "the compiled size is bounded");
    }

    #[test]
    fn bash_reads_structured_content_unless_redeclared() {
        let mut settings = Settings::default();
        assert_eq!(
            settings.exit_code_source("bash"),
            Some(ExitCodeSource::Field(ResultField::bash_exit_code()))
        );
        assert_eq!(settings.exit_code_source("run"), None);
        let pattern = ExitCodeSource::Pattern(ExitCodePattern::new(r"(\d+)").unwrap());
        settings
            .shell_tools
            .insert("bash".to_owned(), pattern.clone());
        assert_eq!(settings.exit_code_source("bash"), Some(pattern));
        assert_eq!(
            settings.shell_tool_names().into_iter().collect::<Vec<_>>(),
            ["bash"]
        );
    }
}
