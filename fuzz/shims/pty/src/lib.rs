//! The part of dsh-pty the `terminal` fuzz target reaches, from the crate's own files.

#[path = "../../../../crates/pty/src/filter.rs"]
pub mod filter;
#[path = "../../../../crates/pty/src/utf8.rs"]
pub mod utf8;
