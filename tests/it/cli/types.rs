//! `check --types`: the project's TypeScript as a second analyzer on the command line, with
//! `--new-since` reporting only the type errors introduced since a revision (the real servers:
//! TypeScript 7's own, and TypeScript 5's tsserver served by the typescript-language-server
//! installed beside it, which the cargo-built command finds there and runs with the `node` on
//! `PATH`).

use crate::support::cli::check;
use crate::support::repo::TestRepo;
use crate::support::typescript::{Ts, ts_modules};

const TSCONFIG: &str = r#"{ "compilerOptions": { "strict": true, "target": "es2022", "module": "nodenext", "noEmit": true }, "include": ["src"] }
"#;

/// A committed project whose `f` takes a number, called by `b.ts`, with an older type error;
/// the pinned TypeScript `ts` installed (ignored by git), TypeScript 5 with its
/// typescript-language-server.
fn project(ts: Ts) -> TestRepo {
    let repo = TestRepo::builder()
        .file("tsconfig.json", TSCONFIG)
        .file("package.json", "{ \"type\": \"module\" }\n")
        .file(".gitignore", "node_modules\n")
        .file(
            "src/a.ts",
            "export const old: string = 1;\nexport function f(x: number): number {\n  return x;\n}\n",
        )
        .file("src/b.ts", "import { f } from \"./a.js\";\nexport const y = f(1);\n")
        .commit();
    std::fs::create_dir_all(repo.path().join("node_modules")).expect("node_modules");
    let mut packages = vec!["typescript"];
    if ts == Ts::V5 {
        packages.push("typescript-language-server");
    }
    for package in packages {
        std::os::unix::fs::symlink(
            ts_modules(ts).join(package),
            repo.path().join("node_modules").join(package),
        )
        .expect("link the package");
    }
    repo
}

#[test]
fn new_since_head_reports_the_introduced_type_errors_and_the_broken_caller_with_typescript_7() {
    new_since_head_reports_the_introduced_type_errors_and_the_broken_caller(Ts::V7);
}

#[test]
fn new_since_head_reports_the_introduced_type_errors_and_the_broken_caller_with_typescript_5() {
    new_since_head_reports_the_introduced_type_errors_and_the_broken_caller(Ts::V5);
}

fn new_since_head_reports_the_introduced_type_errors_and_the_broken_caller(ts: Ts) {
    let repo = project(ts);
    repo.write(
        "src/a.ts",
        "export const old: string = 1;\nexport function f(x: string): number {\n  return x.length;\n}\nconst n: number = \"s\";\nexport { n };\n",
    );
    let (code, stdout, stderr) = check(
        repo.path(),
        &[
            "--builtin",
            "--types",
            "--new-since",
            "HEAD",
            "--format",
            "concise",
        ],
    );
    assert_eq!(code, 1, "{stderr}");
    assert_eq!(
        stdout,
        "src/a.ts:5:7 TS2322 Type 'string' is not assignable to type 'number'.\n\
         src/b.ts:2:20 TS2345 Argument of type 'number' is not assignable to parameter of type 'string'.\n"
    );
    assert_eq!(
        stderr,
        "pi-native-hooks: note: 1 finding already present at HEAD not shown\n"
    );

    // Without --new-since every type error of the checked files is reported; without --types none.
    let (code, stdout, _) = check(
        repo.path(),
        &["--builtin", "--types", "--format", "concise"],
    );
    assert_eq!((code, stdout.lines().count()), (1, 3), "{stdout}");
    let (code, stdout, stderr) = check(
        repo.path(),
        &["--builtin", "--quiet", "--format", "concise"],
    );
    assert_eq!((code, stdout.as_str()), (0, ""), "{stderr}");
}

#[test]
fn a_project_without_typescript_5_s_bridge_is_named_with_what_to_install() {
    let repo = project(Ts::V5);
    std::fs::remove_file(repo.path().join("node_modules/typescript-language-server"))
        .expect("unlink the bridge");
    repo.write("src/a.ts", "export const a: number = \"s\";\n");
    let (code, stdout, stderr) = check(
        repo.path(),
        &["--builtin", "--quiet", "--types", "--format", "concise"],
    );
    assert_eq!((code, stdout.as_str()), (0, ""), "{stderr}");
    assert!(
        stderr.contains("tsconfig.json: TypeScript 5.9.3 is installed")
            && stderr.contains("npm install --save-dev typescript-language-server"),
        "{stderr}"
    );
}

#[test]
fn a_project_without_typescript_is_named_and_checked_without_types() {
    let repo = TestRepo::builder()
        .file("tsconfig.json", TSCONFIG)
        .file("src/a.ts", "export const a = 1;\n")
        .commit();
    repo.write("src/a.ts", "export const a: number = \"s\";\n");
    let (code, stdout, stderr) = check(
        repo.path(),
        &["--builtin", "--quiet", "--types", "--format", "concise"],
    );
    // No TypeScript installed: no type findings, and the project is named with the reason.
    assert_eq!((code, stdout.as_str()), (0, ""), "{stderr}");
    assert!(
        stderr.contains("warning: no type check for ")
            && stderr.contains("tsconfig.json: no TypeScript installed"),
        "{stderr}"
    );
}
