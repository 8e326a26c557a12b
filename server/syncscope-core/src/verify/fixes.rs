//! Verified quick-fixes (filled in below).
use crate::cache::QueryCache;
use crate::model::Kernel;
use crate::options::Options;
use crate::report::Finding;

pub fn add_fixes(
    _text: &str,
    _tree: &tree_sitter::Tree,
    _kernel: &Kernel,
    _findings: &mut [Finding],
    _races: &[super::engine::RaceHit],
    _options: &Options,
    _cache: &dyn QueryCache,
) {
}
