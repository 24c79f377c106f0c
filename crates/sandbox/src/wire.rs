//! What the launcher and the init say to each other over the control socket (fd 3 in
//! the init): the launcher writes one [`InitConfig`] (its length first, 8 bytes little
//! endian, then JSON); the init sets the sandbox up while the launcher moves it into the
//! sandbox's cgroup, then waits for [`GO`], which the launcher sends once it is there, and
//! shuts its side down; only then does the init start the payload, and it answers with
//! one [`Report`] (JSON) and closes. A launcher gone before `GO` leaves the init with an
//! end of file instead, on which it stops: nothing of the sandbox runs outside its cgroup. If the init binary cannot even be
//! executed, the cloned child writes [`EXEC_FAILED`] followed by the errno (4 bytes,
//! native endian) instead.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use crate::plan::Step;
use crate::seccomp::Program;

/// The init's end of the control socket.
pub(crate) const CONTROL_FD: i32 = 3;

/// The launcher's go-ahead: the init is in the sandbox's cgroup (or there is none).
pub(crate) const GO: u8 = b'G';

/// The largest plan the init reads.
pub(crate) const MAX_PLAN_BYTES: u64 = 16 << 20;

/// First byte of the message the cloned child writes when `execve` of the init fails.
pub(crate) const EXEC_FAILED: u8 = 0xFF;

#[derive(Debug, Serialize, Deserialize)]
pub(crate) struct InitConfig {
    pub steps: Vec<Step>,
    /// Path of the payload inside the sandbox.
    pub program: PathBuf,
    /// Arguments after argv[0], as raw bytes.
    pub args: Vec<Vec<u8>>,
    pub env: Vec<(String, String)>,
    pub workdir: PathBuf,
    /// Strict isolation: how the payload is confined right before it starts.
    pub confine: Option<Confinement>,
}

/// The payload enters the user namespace the plan created, becomes root there, drops
/// every capability but Docker's set, sets `no_new_privs` and installs these seccomp
/// filters (compiled once by the daemon).
#[derive(Debug, Serialize, Deserialize)]
pub(crate) struct Confinement {
    pub seccomp: Vec<Program>,
}

#[derive(Debug, Serialize, Deserialize)]
pub(crate) enum Report {
    /// The sandbox is set up and the payload runs (pid as seen inside the sandbox).
    Ready {
        payload_pid: u32,
    },
    SetupFailed {
        step: Step,
        errno: Option<i32>,
        message: String,
    },
    SpawnFailed {
        errno: Option<i32>,
        message: String,
    },
}

pub(crate) fn io_error(errno: Option<i32>, message: String) -> std::io::Error {
    match errno {
        Some(errno) => std::io::Error::from_raw_os_error(errno),
        None => std::io::Error::other(message),
    }
}
