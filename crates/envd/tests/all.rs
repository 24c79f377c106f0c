//! One integration-test binary for dsh-envd: each suite module drives a real envd over
//! real HTTP on loopback.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;
mod suite;
