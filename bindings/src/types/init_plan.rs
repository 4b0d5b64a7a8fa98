use napi_derive::napi;
use pi_native_hooks_base::escape;
use pi_native_hooks_session::host;
use pi_native_hooks_session::host::InitContent;

/// What `/hooks-init` would do under the config root.
#[napi(object)]
pub struct InitPlan {
    /// The config root.
    pub root: String,
    /// Every entry, in creation order.
    pub entries: Vec<InitPlanEntry>,
    /// What was proposed for the session's project, or why nothing was; escaped.
    pub notes: Vec<String>,
}

/// Whether an init entry is a directory or a file.
#[napi(string_enum = "lowercase")]
pub enum InitPlanEntryKind {
    /// A directory.
    Directory,
    /// A file with built-in content.
    File,
}

/// One entry of the plan.
#[napi(object)]
pub struct InitPlanEntry {
    /// Its path.
    pub path: String,
    /// Directory or file.
    pub kind: InitPlanEntryKind,
    /// True when it exists already (it is kept, never overwritten).
    pub exists: bool,
    /// The entry as the dry run shows it (`would create: …` or `exists (kept): …`), escaped.
    pub line: String,
}

impl From<&host::InitPlan> for InitPlan {
    fn from(plan: &host::InitPlan) -> Self {
        let entries = plan
            .entries
            .iter()
            .zip(plan.describe(true))
            .map(|(entry, line)| InitPlanEntry {
                path: entry.path.display().to_string(),
                kind: match entry.content {
                    InitContent::Dir => InitPlanEntryKind::Directory,
                    InitContent::File(_) => InitPlanEntryKind::File,
                },
                exists: entry.exists,
                line: escape(&line).into_owned(),
            })
            .collect();
        InitPlan {
            root: plan.root.display().to_string(),
            entries,
            notes: plan
                .notes
                .iter()
                .map(|note| escape(note).into_owned())
                .collect(),
        }
    }
}
