//! dsh-tools end to end: every tool on real files and processes, on the local backend
//! (host OS, a temporary workspace) and on the sandbox backend (a real dsh-envd on
//! loopback, the workspace inside its user's home). The same test body runs on both.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;
mod suite;
