//! Integration tests of the daemon and the sandboxes it makes (they need root, as on this
//! machine and CI, and the workspace's binaries: `dsh-envd`, `dsh-sandbox-init`). One test
//! binary; each suite is a module (nextest selects by path: `control::`, `escape::`):
//! - `suite`: real sandboxes through `Launcher` (files, processes, limits, network);
//! - `control`: the control plane (`dsh_sandboxd::Daemon`) over HTTP, as the E2B SDKs
//!   drive it, with the real dsh-envd in every sandbox;
//! - `escape`: every known way out of a local sandbox, tried from inside;
//! - `faults`: the daemon, envd and the disk failing on purpose;
//! - `oci`: images from a real registry; `fuzz`: the fuzz targets' kept inputs.
//!
//! Shared helpers: `common/` (sandboxes), `control/harness.rs` (daemons), `registry/` (a
//! real registry).

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;
mod control;
mod escape;
mod faults;
mod fuzz;
mod oci;
mod registry;
mod suite;
