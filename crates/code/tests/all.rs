//! dsh-code's integration tests: one binary (`suite/*.rs`, helpers in `common`).

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;
mod suite;
