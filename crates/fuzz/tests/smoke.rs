//! Every fuzz target over its committed seed corpus (`fuzz/corpus/<target>/`), the regressions of
//! the crashes fuzzing found (`fuzz/regressions/<target>/`), and a fixed number of deterministic
//! mutations of them: seconds in `cargo test`, so a target that breaks is caught before anyone
//! runs libFuzzer. The long runs are `fuzz/` under cargo-fuzz (docs/fuzzing.md).

use pi_native_hooks_fuzz::TARGETS;
use pi_native_hooks_fuzz::mutate::{Rng, inputs_in, mutate};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};

/// Mutated inputs per target.
const MUTATIONS: usize = 150;

fn fuzz_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fuzz")
}

#[test]
fn every_target_survives_its_corpus_its_regressions_and_their_mutations() {
    let mut failures = Vec::new();
    for (index, target) in TARGETS.iter().enumerate() {
        let seeds = inputs_in(&fuzz_dir().join("corpus").join(target.name));
        assert!(
            !seeds.is_empty(),
            "fuzz/corpus/{} holds no seed: commit at least one",
            target.name
        );
        let regressions = inputs_in(&fuzz_dir().join("regressions").join(target.name));
        let mut run = |name: String, input: &[u8]| {
            if catch_unwind(AssertUnwindSafe(|| (target.run)(input))).is_err() {
                failures.push(format!("{}: {name} ({} bytes)", target.name, input.len()));
            }
        };
        for (path, bytes) in seeds.iter().chain(&regressions) {
            run(path.display().to_string(), bytes);
        }
        let others: Vec<&[u8]> = seeds.iter().map(|(_, bytes)| bytes.as_slice()).collect();
        let mut rng = Rng::new(0x5eed + index as u64);
        for n in 0..MUTATIONS {
            let (_, seed) = &seeds[rng.below(seeds.len())];
            let input = mutate(&mut rng, seed, &others);
            run(
                format!("mutation {n} of seed {:#x}", 0x5eed + index),
                &input,
            );
        }
    }
    assert!(
        failures.is_empty(),
        "targets that panicked:\n{}",
        failures.join("\n")
    );
}

#[test]
fn every_target_has_a_libfuzzer_binary() {
    for target in TARGETS {
        let binary = fuzz_dir()
            .join("fuzz_targets")
            .join(format!("{}.rs", target.name));
        let text = std::fs::read_to_string(&binary)
            .unwrap_or_else(|error| panic!("{}: {error}", binary.display()));
        assert!(
            text.contains(&format!("pi_native_hooks_fuzz::{}(data)", target.name)),
            "{} runs another body",
            binary.display()
        );
    }
}
