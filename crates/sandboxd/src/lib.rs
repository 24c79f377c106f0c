//! The local sandbox daemon: E2B's control plane (sandboxes, snapshots, volumes,
//! templates and their builds, OCI images as bases), its port proxy and the sandboxes'
//! private networks, on sandboxes made by the isolation crate (`dsh-sandbox`) or by
//! gVisor's runsc ([`gvisor`]).
//!
//! The isolation crate's modules are re-exported under their names (`spec`, `plan`,
//! `launch`, ...), so `dsh_sandboxd::Launcher` and `crate::spec` keep naming them here.
//! See `docs/architecture.md` for the layers.

pub use dsh_sandbox::{
    cgroup, destroy, error, exec, init, launch, layout, layout_cache, plan, privileges,
    requirements, rootless, seccomp, spec, staging, state, syscall, template, users,
};

pub mod btrfs;
mod command;
pub mod gvisor;
pub mod gvisor_net;
pub mod oci;
pub mod running;
pub mod server;

#[cfg(feature = "test-support")]
pub mod testing;

pub use dsh_sandbox::{
    Error, HostEntry, HostLayout, IdRange, Isolation, IsolationLevel, Launcher, Limits, Missing,
    Net, Output, Payload, Private, Result, SandboxProcess, SandboxSpec, Template, Templates,
    VolumeMount, spawn_sandboxed,
};
pub use server::{Config as DaemonConfig, Daemon, serve};
