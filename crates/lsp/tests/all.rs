//! dsh-lsp's integration tests: one binary (`suite/*.rs`).
//!
//! Real servers (pyright, typescript-language-server) come from
//! `<repo>/.tools/node_modules/.bin`, installed by `scripts/install-language-servers`;
//! the tests fail (not skip) when they are missing.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod suite;
