//! Sandboxed Rhai policies (diagnostic and verification) over the immutable analysis snapshot.
//!
//! [`PolicyRegistry`] loads `policies/*.rhai` from a config root (or the built-in pack), compiles
//! each once in the [`Sandbox`], and reads its [contract](contract) from the syntax tree.
//! Diagnostic policies run over one shared `Arc<AnalysisSnapshot>` per wave
//! ([`PolicyRegistry::evaluate_diagnostics`]); verification policies decide which required
//! commands a set of changed paths needs ([`PolicyRegistry::affected_requirements`]).
//!
//! Files: `sandbox/` (the engine, its checked natives, the Rhai API, the per-call memory budget
//! and its counting allocator, the read-only snapshot views), `registry/` (the contract read from
//! each script's syntax tree, sources, digests over every file loaded and per verification
//! requirement, load and run failures), `run/` (diagnostic and verification policies over one
//! shared snapshot, the `affects` budget and cache), `builtin` (the built-in policies), `init`
//! (`init`'s plan).

// What is not re-exported from this root is `pub(crate)`: the curated list below is the API.
#![warn(unreachable_pub)]

mod builtin;
mod init;
mod registry;
mod run;
mod sandbox;

pub use builtin::{FIXTURE_FILES, FIXTURE_SCHEMA, POLICY_FILES};
pub use init::{InitContent, InitEntry, InitError, InitPlan, SGCONFIG};
pub use registry::contract::{
    ContractError, DiagnosticSpec, PolicyContract, PolicyKind, PolicySpec, ProjectSpec,
    Requirement, VerificationSpec, trim_command, unsafe_command_char,
};
pub use registry::digest::{RequirementDigest, registry_digest};
pub use registry::failure::{
    FailureReason, PolicyFailure, PolicyLog, PolicyProblem, ProblemReason,
};
pub use registry::source::{PolicySource, builtin_sources};
pub use registry::{LoadedPolicy, PolicyRegistry, RegistrySource, RootProblem};
pub use run::{
    AFFECTS_BUDGET, AffectedRequirement, AffectsOptions, CheckResult, DiagnosticRun,
    UndecidedRequirement, VerificationRun,
};
pub use sandbox::budget;
pub use sandbox::budget::CountingAllocator;
pub use sandbox::limits::{MAX_MESSAGE_BYTES, SandboxLimits};
pub use sandbox::{POLICY_STACK, POLICY_STACK_MIN, RunError, Sandbox};
