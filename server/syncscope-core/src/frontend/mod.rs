//! Lowering of the tree-sitter tree to the kernel model.
