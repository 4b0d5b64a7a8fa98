//! Sandboxed Rhai policies (diagnostic and verification) over the immutable analysis snapshot.
//!
//! [`PolicyRegistry`] loads `policies/*.rhai` from a config root (or the built-in pack), compiles
//! each once in the [`Sandbox`], and reads its [contract](contract) from the syntax tree.
//! Diagnostic policies run over one shared `Arc<AnalysisSnapshot>` per wave
//! ([`PolicyRegistry::evaluate_diagnostics`]); verification policies decide which required
//! commands a set of changed paths needs ([`PolicyRegistry::affected_requirements`]).

mod affects_cache;
pub mod budget;
pub mod builtin;
pub mod contract;
pub mod diagnostic;
pub mod digest;
pub mod failure;
pub mod init;
mod limits;
mod literal;
mod natives;
pub mod registry;
mod rhai_api;
mod rhai_error;
pub mod run;
pub mod sandbox;
pub mod source;
pub mod testing;
pub mod view;

pub use contract::{PolicyContract, PolicyKind, PolicySpec, ProjectSpec, Requirement};
pub use diagnostic::PolicyDiagnostic;
pub use digest::{RequirementDigest, registry_digest};
pub use failure::{FailureReason, PolicyFailure, PolicyLog, PolicyProblem, ProblemReason};
pub use registry::{LoadedPolicy, PolicyRegistry, RegistrySource, RootProblem};
pub use run::{
    AFFECTS_BUDGET, AffectedRequirement, AffectsOptions, CheckResult, DiagnosticRun,
    UndecidedRequirement, VerificationRun,
};
pub use sandbox::{POLICY_STACK, POLICY_STACK_MIN, RunError, Sandbox, SandboxLimits};
