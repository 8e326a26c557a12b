//! The kernel model.
