//! The part of dsh-lsp the `lsp_framing` fuzz target reaches, from the crate's own file.

#[path = "../../../../crates/lsp/src/framing.rs"]
pub mod framing;
