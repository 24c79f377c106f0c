//! Integration tests: real sandboxes (these need root, as on this machine and CI).
//! One test binary (`all.rs` + `suite/*.rs`), shared helpers in `common/`.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;
mod suite;
