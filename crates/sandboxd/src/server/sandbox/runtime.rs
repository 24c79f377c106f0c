//! What runs a sandbox: this daemon's launcher (`dsh-sandbox`) or gVisor's runsc, behind
//! one trait the lifecycle asks, so that it does not learn two runtimes: where envd
//! listens, how envd gets its token, how the sandbox is launched (or restored), and how a
//! pause keeps its memory.

use std::path::Path;

use anyhow::{Context, anyhow};

use crate::gvisor::Runtime;
use crate::launch::Payload;
use crate::running::Running;
use crate::server::netns::Reach;
use crate::server::shared::Shared;
use crate::server::upstream::ENVD_PORT;
use crate::spec::SandboxSpec;

/// How a pause that keeps a sandbox's memory keeps it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum MemoryKept {
    /// Its processes frozen in place (the cgroup freezer): lost if the daemon stops.
    Frozen,
    /// Written to disk (a checkpoint in its directory): it outlives the daemon and host.
    OnDisk,
}

/// One runtime.
pub(crate) trait SandboxRuntime: Send + Sync {
    /// Which one it is (as records and answers name it).
    fn kind(&self) -> Runtime;
    /// Where envd listens in a network of the sandbox's own.
    fn envd_listen(&self) -> String;
    /// Whether envd may get its access token in its environment; else only through the
    /// daemon's first `/init`.
    fn token_in_environment(&self) -> bool;
    /// How the daemon reaches envd in a network of the sandbox's own: `pid` is the
    /// launched sandbox's, `netns` the namespace pinned for it.
    fn envd_reach(&self, pid: u32, netns: Option<&Path>) -> anyhow::Result<Reach>;
    /// How a pause keeps the sandbox's memory.
    fn memory_kept(&self) -> MemoryKept;
    /// Launches `payload` in the sandbox `spec` describes, or restores the one saved in
    /// `image`. Blocking.
    fn launch(
        &self,
        shared: &Shared,
        spec: &SandboxSpec,
        payload: Payload,
        image: Option<&Path>,
    ) -> anyhow::Result<Running>;
}

/// The runtime of `kind`.
pub(crate) fn of(kind: Runtime) -> &'static dyn SandboxRuntime {
    match kind {
        Runtime::Native => &Native,
        Runtime::Gvisor => &Gvisor,
    }
}

/// This daemon's launcher: namespaces, seccomp, cgroups and a pid 1 of its own.
struct Native;

impl SandboxRuntime for Native {
    fn kind(&self) -> Runtime {
        Runtime::Native
    }

    fn envd_listen(&self) -> String {
        format!("127.0.0.1:{ENVD_PORT}")
    }

    fn token_in_environment(&self) -> bool {
        true
    }

    /// In the namespace its init joined, on its loopback.
    fn envd_reach(&self, pid: u32, _netns: Option<&Path>) -> anyhow::Result<Reach> {
        Ok(Reach::of_process(pid)?)
    }

    fn memory_kept(&self) -> MemoryKept {
        MemoryKept::Frozen
    }

    fn launch(
        &self,
        shared: &Shared,
        spec: &SandboxSpec,
        payload: Payload,
        _image: Option<&Path>,
    ) -> anyhow::Result<Running> {
        Ok(Running::Native(shared.launcher.spawn(spec, payload)?))
    }
}

/// gVisor's runsc: a user-space kernel between the sandbox and the host.
struct Gvisor;

impl SandboxRuntime for Gvisor {
    fn kind(&self) -> Runtime {
        Runtime::Gvisor
    }

    /// Reached at the guest's address, from the sandbox's namespace (`gvisor_net.rs`).
    fn envd_listen(&self) -> String {
        format!("0.0.0.0:{ENVD_PORT}")
    }

    /// gVisor's `/proc` lets uid 1000 read root's `environ`.
    fn token_in_environment(&self) -> bool {
        false
    }

    /// At the guest's address, from the sandbox's namespace (linked to gVisor's own).
    fn envd_reach(&self, pid: u32, netns: Option<&Path>) -> anyhow::Result<Reach> {
        match netns {
            Some(pin) => Ok(Reach::of_pin(pin, crate::gvisor_net::GUEST)?),
            None => Ok(Reach::of_process(pid)?),
        }
    }

    fn memory_kept(&self) -> MemoryKept {
        MemoryKept::OnDisk
    }

    fn launch(
        &self,
        shared: &Shared,
        spec: &SandboxSpec,
        payload: Payload,
        image: Option<&Path>,
    ) -> anyhow::Result<Running> {
        let runsc = shared.runsc.as_ref().map_err(|why| anyhow!("{why}"))?;
        let cgroup = match &shared.cgroups {
            Some(cgroups) => Some(
                cgroups.create(&spec.id, &spec.resources).context("making the sandbox's cgroup")?,
            ),
            None => None,
        };
        let container = crate::server::gvisor_sandbox::start(
            runsc,
            &shared.config.state_dir,
            spec,
            payload,
            image,
            cgroup,
            shared.layers.store(),
        )?;
        Ok(Running::Gvisor(container))
    }
}
