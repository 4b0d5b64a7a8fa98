//! The built-in policy pack: the diagnostic policies of the repository's `policies/` (with their
//! fixtures) compiled into the binary, used when no personal config root exists and copied by
//! `init`. It holds no verification policy: the commands a project requires are the project's own,
//! so the gate stays off until the user writes one (`init` proposes one for the project it runs
//! in). The repository's own verification policy stays in `policies/`, for this repository only.

macro_rules! embed {
    ($dir:literal: $($name:literal),+ $(,)?) => {
        &[$(($name, include_str!(concat!("../../../", $dir, "/", $name)))),+]
    };
}

/// The shipped policies, by file name, sorted.
pub const POLICY_FILES: &[(&str, &str)] = embed!("policies":
    "typescript-no-console-log.rhai",
    "typescript-no-debugger.rhai",
    "typescript-no-dynamic-import.rhai",
    "typescript-no-elision-placeholder.rhai",
    "typescript-no-empty-catch.rhai",
    "typescript-no-explicit-any.rhai",
    "typescript-no-focused-test.rhai",
    "typescript-no-lint-suppression.rhai",
    "typescript-no-non-null-assertion.rhai",
    "typescript-no-skipped-test.rhai",
    "typescript-no-ts-suppression.rhai",
    "typescript-no-unimplemented-stub.rhai",
    "typescript-type-errors.rhai",
);

/// The shipped policy fixtures and their snapshots (`policies/tests/`), by file name, sorted.
pub const FIXTURE_FILES: &[(&str, &str)] = embed!("policies/tests":
    "typescript-no-console-log.snap",
    "typescript-no-console-log.yml",
    "typescript-no-debugger.snap",
    "typescript-no-debugger.yml",
    "typescript-no-dynamic-import.snap",
    "typescript-no-dynamic-import.yml",
    "typescript-no-elision-placeholder.snap",
    "typescript-no-elision-placeholder.yml",
    "typescript-no-empty-catch.snap",
    "typescript-no-empty-catch.yml",
    "typescript-no-explicit-any.snap",
    "typescript-no-explicit-any.yml",
    "typescript-no-focused-test.snap",
    "typescript-no-focused-test.yml",
    "typescript-no-lint-suppression.snap",
    "typescript-no-lint-suppression.yml",
    "typescript-no-non-null-assertion.snap",
    "typescript-no-non-null-assertion.yml",
    "typescript-no-skipped-test.snap",
    "typescript-no-skipped-test.yml",
    "typescript-no-ts-suppression.snap",
    "typescript-no-ts-suppression.yml",
    "typescript-no-unimplemented-stub.snap",
    "typescript-no-unimplemented-stub.yml",
    "typescript-type-errors.snap",
    "typescript-type-errors.yml",
);

/// The JSON Schema of fixture files (`schemas/policy-fixture.schema.json`, generated from the
/// fixture types of the CLI's policy test runner; a test keeps it current). `init` writes it to
/// `<root>/schemas/` so the fixtures' `# yaml-language-server:
/// $schema=../../schemas/policy-fixture.schema.json` line resolves there as it does in the
/// repository.
pub const FIXTURE_SCHEMA: (&str, &str) = (
    "schemas/policy-fixture.schema.json",
    include_str!("../../../schemas/policy-fixture.schema.json"),
);
