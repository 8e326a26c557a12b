//! exec
