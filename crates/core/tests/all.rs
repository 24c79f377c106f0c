//! Integration tests of the local backend, with real processes, files and PTYs.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;
mod suite;
