//! One local sandbox for dsh: the isolation layer `dsh-sandboxd` runs sandboxes with.
//!
//! A sandbox is one payload process (later `dsh-envd`) running under a pid 1 of our own
//! (`dsh-sandbox-init`) inside fresh mount, pid, uts and ipc namespaces (and optionally a
//! fresh network namespace). With strict isolation (the default) the payload also runs in
//! a user namespace of its own (root inside is an unprivileged uid block on the host),
//! with Docker's capability set, `no_new_privs`, a seccomp filter ([`seccomp`]) and its
//! own cgroup ([`cgroup`]). Its root filesystem is a tmpfs that shows only an
//! allow-list of host directories, each as an overlay whose writable layer lives in the
//! sandbox's state directory; everything else on the host is invisible.
//!
//! The work is split so that the interesting part is testable without root:
//! - [`plan::build`] is a pure function from a [`SandboxSpec`] and a probed
//!   [`HostLayout`] to the ordered list of [`plan::Step`]s;
//! - [`exec::apply`] runs those steps through the [`syscall::Syscall`] trait, whose
//!   [`syscall::RecordingSyscall`] double records every call for unit tests and whose
//!   [`syscall::LinuxSyscall`] does the real work inside the sandbox's init;
//! - [`Launcher::spawn`] clones the init into a new pid namespace, hands it the plan and
//!   returns a [`SandboxProcess`]; [`destroy()`] removes a dead sandbox's state.
//!
//! This crate has no async runtime and no HTTP: the daemon (`dsh-sandboxd`) is built on it.
//! See `docs/sandboxes.md` for the process tree, the mount plan and how to add a template.

pub mod cgroup;
pub mod destroy;
pub mod error;
pub mod exec;
pub mod ids;
pub mod init;
pub mod launch;
pub mod layout;
pub mod layout_cache;
pub mod plan;
pub mod privileges;
pub mod requirements;
pub mod rootless;
pub mod seccomp;
pub mod spec;
pub mod staging;
pub mod state;
pub mod syscall;
pub mod template;
pub mod users;
mod wire;

pub use destroy::destroy;
pub use error::{Error, Missing, Result};
pub use launch::{Launcher, Output, Payload, SandboxProcess, spawn_sandboxed};
pub use layout::{HostEntry, HostLayout, Private};
pub use spec::{IdRange, Isolation, IsolationLevel, Limits, Net, SandboxSpec, VolumeMount};
pub use template::{Template, Templates};
