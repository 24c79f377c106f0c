//! A running sandbox, whichever runtime runs it: the seam the daemon's lifecycle stops,
//! kills and waits through.

use std::process::ExitStatus;
use std::time::Duration;

use crate::cgroup::SandboxCgroup;
use crate::error::{Error, Result};
use crate::gvisor::{Container, GvisorError};
use crate::launch::SandboxProcess;

#[derive(Debug)]
pub enum Running {
    /// This crate's launcher: the sandbox's init.
    Native(SandboxProcess),
    /// gVisor: the container's sandbox process.
    Gvisor(Container),
}

fn runsc_error(e: GvisorError) -> Error {
    Error::io("runsc", std::io::Error::other(e.to_string()))
}

impl Running {
    /// The pid whose network namespace is the sandbox's.
    pub fn pid(&self) -> u32 {
        match self {
            Running::Native(process) => process.pid(),
            Running::Gvisor(container) => container.pid(),
        }
    }

    /// The sandbox's cgroup (limits, accounting).
    pub fn cgroup(&self) -> Option<&SandboxCgroup> {
        match self {
            Running::Native(process) => process.cgroup(),
            Running::Gvisor(container) => container.cgroup(),
        }
    }

    /// SIGKILL to every process of the sandbox, without waiting.
    pub fn kill(&self) -> Result<()> {
        match self {
            Running::Native(process) => process.kill(),
            Running::Gvisor(container) => container.kill().map_err(runsc_error),
        }
    }

    pub fn try_wait(&mut self) -> Result<Option<ExitStatus>> {
        match self {
            Running::Native(process) => process.try_wait(),
            Running::Gvisor(container) => container.try_wait().map_err(runsc_error),
        }
    }

    pub fn wait(&mut self) -> Result<ExitStatus> {
        match self {
            Running::Native(process) => process.wait(),
            Running::Gvisor(container) => container.wait().map_err(runsc_error),
        }
    }

    /// SIGTERM, SIGKILL after `grace`; waits until every process is gone.
    pub fn terminate(&mut self, grace: Duration) -> Result<ExitStatus> {
        match self {
            Running::Native(process) => process.terminate(grace),
            Running::Gvisor(container) => container.terminate(grace).map_err(runsc_error),
        }
    }
}
