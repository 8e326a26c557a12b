//! The kernel's syntax, read from tree-sitter's tree into a form of our own.

pub struct Program {}

impl Program {
    pub fn read(_text: &crate::preprocess::Text) -> Result<Program, String> {
        Err("the interpreter is not written yet".into())
    }
}

pub fn kernel_names(_source: &str) -> Vec<String> {
    Vec::new()
}
