//! Owns what `/hooks-init` does for a session: the plan for its config root, with the
//! verification policy proposed for the project around its working directory.

use super::state::Session;
use pi_native_hooks_policy::InitPlan;
use pi_native_hooks_verification::init_plan;

impl Session {
    /// Every entry `/hooks-init` would create under the config root (the built-in pack and the
    /// verification policy proposed for the session's project), which exist already, and what
    /// was proposed; [`InitPlan::apply`] creates the missing ones. Reads only the config root and
    /// working directory the session was opened with and the file system, never the session's
    /// state, so a host may call it whatever happened to the session.
    pub fn init_plan(&self) -> InitPlan {
        init_plan(&self.options.config_root, &self.options.cwd)
    }
}
