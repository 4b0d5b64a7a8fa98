//! Introduced-only delivery on real git repositories with the built-in pack: a wave's block lists
//! only the findings the wave introduced (compared with what the engine last analyzed in the
//! file, else its `HEAD` blob, else nothing), and counts the pre-existing ones once per file.

use crate::support::wave::{Run, Step, appended, decision, real, run_batch, write_step};
use crate::support::{TestRepo, write};
use pi_native_hooks_wave::{ResultDecision, WaveCoordinator};
use serde_json::json;
use std::path::Path;

const ANY: &str = "typescript-no-explicit-any-ts";
const FOCUSED: &str = "typescript-no-focused-test-ts";
const NON_NULL: &str = "typescript-no-non-null-assertion-ts";

/// A test file with five explicit `any`s and one test; `focus` focuses it.
fn legacy_test(focus: bool, padding: &str) -> String {
    let it = if focus { "it.only" } else { "it" };
    format!(
        "{padding}export function a(x: any): any {{ return x; }}\n\
         export const b = (y: any) => y as any;\n\
         export const c: any[] = [];\n\
         {it}(\"works\", () => {{ a(1); }});\n"
    )
}

/// How many findings of `rule` `block` lists.
fn listed(block: &str, rule: &str) -> usize {
    crate::support::wave::listed_locations(block, rule).len()
}

async fn settle(coordinator: &WaveCoordinator) {
    coordinator
        .idle()
        .await
        .expect("every background task ends within the timeout");
}

#[tokio::test]
async fn an_edit_to_a_legacy_file_lists_only_what_it_introduced_and_counts_the_rest() {
    let repo = TestRepo::with_commit(&[("src/x.test.ts", &legacy_test(false, ""))]);
    let root = repo.path();
    let (coordinator, _) = real(root);

    let edit = run_batch(
        &coordinator,
        vec![
            Step::new("A", "edit", json!({ "path": "src/x.test.ts" })).effect({
                let root = root.to_path_buf();
                move || write(&root, "src/x.test.ts", legacy_test(true, ""))
            }),
        ],
        Run::Parallel,
    )
    .await;
    let block = appended(&edit, "A").expect("a block for the new `.only`");
    assert_eq!(listed(block, FOCUSED), 1, "{block}");
    assert!(
        crate::support::wave::listed_locations(block, FOCUSED) == ["src/x.test.ts:4:1"],
        "{block}"
    );
    assert_eq!(listed(block, ANY), 0, "{block}");
    assert!(
        !block.contains(&format!("// ast-grep-ignore: {ANY}")),
        "{block}"
    );
    assert_eq!(
        block
            .lines()
            .filter(|line| line.contains("pre-existing"))
            .collect::<Vec<_>>(),
        ["+5 pre-existing findings in src/x.test.ts not shown"],
        "{block}"
    );

    // The engine now remembers the file: moving everything down two lines introduces nothing.
    let moved = run_batch(
        &coordinator,
        vec![write_step(
            "B",
            root,
            "src/x.test.ts",
            &legacy_test(true, "// header\n\n"),
        )],
        Run::Parallel,
    )
    .await;
    assert_eq!(decision(&moved, "B"), &ResultDecision::Unchanged);

    settle(&coordinator).await;
    let status = coordinator.status();
    assert_eq!(
        (status.recent[0].delivered, status.recent[0].pre_existing),
        (1, 5)
    );
    assert_eq!(status.recent[1].delivered, 0);
    assert_eq!(
        status.recent[1].pre_existing, 6,
        "the five `any`s and the moved `.only` (delivered before) are old"
    );
}

#[tokio::test]
async fn a_new_untracked_file_gets_all_of_its_findings() {
    let repo = TestRepo::with_commit(&[("README.md", "# r\n")]);
    let root = repo.path();
    let (coordinator, _) = real(root);
    let wave = run_batch(
        &coordinator,
        vec![write_step(
            "A",
            root,
            "src/new.test.ts",
            &legacy_test(true, ""),
        )],
        Run::Parallel,
    )
    .await;
    let block = appended(&wave, "A").expect("a block");
    assert_eq!(
        (listed(block, ANY), listed(block, FOCUSED)),
        (5, 1),
        "{block}"
    );
    assert!(!block.contains("pre-existing"), "{block}");
}

#[tokio::test]
async fn identical_findings_count_as_a_multiset_and_the_extra_one_is_listed() {
    let before = "const a = m!;\nexport const one = 1;\nconst b = m!;\n";
    let repo = TestRepo::with_commit(&[("src/m.ts", before)]);
    let root = repo.path();
    let (coordinator, _) = real(root);
    // A third identical `m!` between the two, and the last one re-indented: one is new.
    let after = "const a = m!;\nconst c = m!;\nexport const one = 1;\n    const b =   m!;\n";
    let wave = run_batch(
        &coordinator,
        vec![write_step("A", root, "src/m.ts", after)],
        Run::Parallel,
    )
    .await;
    let block = appended(&wave, "A").expect("a block");
    assert_eq!(listed(block, NON_NULL), 1, "{block}");
    assert!(
        crate::support::wave::listed_locations(block, NON_NULL) == ["src/m.ts:2:11"],
        "{block}"
    );
    assert!(
        block.contains("+2 pre-existing findings in src/m.ts not shown"),
        "{block}"
    );
}

#[tokio::test]
async fn a_staged_rename_keeps_the_history_of_its_source() {
    let repo = TestRepo::with_commit(&[("src/old.test.ts", &legacy_test(false, ""))]);
    let root = repo.path();
    let (coordinator, _) = real(root);
    let dir = root.to_path_buf();
    let wave = run_batch(
        &coordinator,
        vec![
            Step::new("A", "bash", json!({ "command": "git mv && edit" })).effect(move || {
                crate::support::git(&dir, &["mv", "src/old.test.ts", "src/new.test.ts"]);
                write(&dir, "src/new.test.ts", legacy_test(true, ""));
            }),
        ],
        Run::Parallel,
    )
    .await;
    let block = appended(&wave, "A").expect("a block");
    assert_eq!(
        (listed(block, ANY), listed(block, FOCUSED)),
        (0, 1),
        "{block}"
    );
    assert!(
        block.contains("+5 pre-existing findings in src/new.test.ts not shown"),
        "{block}"
    );
}

/// Commits `head` as `src/h.ts`, then a wave writes the small, valid `after` over it.
async fn block_over(head: &[u8], after: &str) -> String {
    let repo = TestRepo::init();
    let root: &Path = repo.path();
    write(root, "src/h.ts", head);
    repo.git(&["add", "-A"]);
    repo.git(&["commit", "-q", "-m", "head"]);
    let (coordinator, _) = real(root);
    let wave = run_batch(
        &coordinator,
        vec![write_step("A", root, "src/h.ts", after)],
        Run::Parallel,
    )
    .await;
    settle(&coordinator).await;
    appended(&wave, "A").expect("a block").to_owned()
}

#[tokio::test]
async fn a_head_blob_that_cannot_be_judged_counts_as_nothing_before() {
    let after = "export const v: any = 1;\n";
    // Over the analyzer's 1 MiB file limit at HEAD.
    let mut large = format!("/*{}*/\n", "x".repeat(1024 * 1024)).into_bytes();
    large.extend_from_slice(after.as_bytes());
    let block = block_over(&large, after).await;
    assert_eq!(listed(&block, ANY), 1, "{block}");
    assert!(!block.contains("pre-existing"), "{block}");

    // Not UTF-8 at HEAD.
    let mut latin1 = b"// caf\xe9\n".to_vec();
    latin1.extend_from_slice(after.as_bytes());
    let block = block_over(&latin1, after).await;
    assert_eq!(listed(&block, ANY), 1, "{block}");
    assert!(!block.contains("pre-existing"), "{block}");

    // The same file valid at HEAD: the `any` is old, so nothing is listed and no block is made.
    let repo = TestRepo::with_commit(&[("src/h.ts", &format!("// cafe\n{after}"))]);
    let (coordinator, _) = real(repo.path());
    let wave = run_batch(
        &coordinator,
        vec![write_step("A", repo.path(), "src/h.ts", after)],
        Run::Parallel,
    )
    .await;
    assert_eq!(decision(&wave, "A"), &ResultDecision::Unchanged);
}
