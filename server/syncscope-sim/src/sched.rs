//! Runs the blocks of a launch.
use crate::{ast::Program, Inputs, Launch, Outcome, SimOptions};

pub fn run(_p: &Program, _k: &str, _l: &Launch, _i: &Inputs, _o: &SimOptions) -> Outcome {
    Outcome::Unsupported("the interpreter is not written yet".into())
}
