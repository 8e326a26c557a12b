//! value
