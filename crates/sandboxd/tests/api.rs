//! Integration tests of the control plane (`dsh_sandboxd::Daemon`): real sandboxes
//! running the real dsh-envd, driven over HTTP like the E2B SDKs do. They need root and
//! a built `dsh-envd` (`target/debug/dsh-envd`, or `$DSH_ENVD_BIN`).

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod control;
mod registry;
