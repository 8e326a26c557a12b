//! The simulator as oracle (issue 26): kernels generated from real idioms
//! with the truth the generator knows (`generate`), and the check of the
//! engine's claims against the simulator `syncscope-sim` and that truth
//! (`check`). `tests/oracle.rs` runs them on generated cases,
//! `tests/corpus.rs` on the corpus (`corpus`); `docs/reliability.md` says
//! what they cover.

pub mod check;
pub mod corpus;
pub mod generate;
pub mod rng;
pub mod signature;

#[cfg(test)]
mod tests {
    use super::generate::{generate, generate_in, FAMILIES};
    use super::signature;

    /// Every generated file parses without an error node, and the kernel
    /// file defines the case's kernel with the case's parameters.
    #[test]
    fn generated_sources_parse_and_declare_their_kernel() {
        for seed in 0..400 {
            let case = generate(seed);
            for (name, text) in &case.files {
                let errors = signature::error_lines(text);
                assert!(
                    errors.is_empty(),
                    "seed {seed} {name}: errors at {errors:?}\n{text}"
                );
            }
            if let Some((_, probe)) = &case.value_probe {
                assert!(
                    signature::error_lines(probe).is_empty(),
                    "seed {seed} probe:\n{probe}"
                );
            }
            let kernels = signature::kernels(&case.kernel_file().1);
            let found = kernels.iter().find(|(n, _)| *n == case.kernel);
            assert_eq!(found.map(|(_, p)| p), Some(&case.params), "seed {seed}");
        }
    }

    /// The same seed gives the same case; every family has racy and
    /// race-free variants, and the barrier families have needed and
    /// redundant barriers.
    #[test]
    fn generation_is_deterministic_and_every_family_has_both_truths() {
        assert_eq!(generate(42).files, generate(42).files);
        for family in FAMILIES {
            let cases: Vec<_> = (0..200).map(|s| generate_in(family, s)).collect();
            assert!(
                cases.iter().any(|c| c.truth.racy),
                "{family:?} has no racy variant"
            );
            assert!(
                cases.iter().any(|c| !c.truth.racy),
                "{family:?} has no race-free variant"
            );
            assert!(cases.iter().all(|c| c.family == family));
        }
        let barriers: Vec<_> = FAMILIES
            .iter()
            .flat_map(|f| (0..200).map(move |s| generate_in(*f, s)))
            .flat_map(|c| c.truth.barriers)
            .collect();
        assert!(barriers.iter().any(|(_, needed)| *needed));
        assert!(barriers.iter().any(|(_, needed)| !*needed));
    }
}
