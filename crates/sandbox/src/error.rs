//! One error enum for the crate; each variant says what the caller can do about it.

use std::io;
use std::path::PathBuf;
use std::time::Duration;

pub type Result<T, E = Error> = std::result::Result<T, E>;

#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The id becomes the sandbox's hostname; pick one that is a valid hostname label.
    #[error("invalid sandbox id {id:?}: {reason}")]
    InvalidId { id: String, reason: &'static str },

    /// No template of that name is registered.
    #[error("unknown template {name:?} (known templates: {known})")]
    UnknownTemplate { name: String, known: String },

    /// A path in the spec or template cannot be used; fix the spec.
    #[error("invalid {what} {path:?}: {reason}")]
    InvalidPath { what: &'static str, path: PathBuf, reason: &'static str },

    /// A limit that cannot work; fix the spec.
    #[error("invalid {limit} {value}: {reason}")]
    InvalidLimit { limit: &'static str, value: u64, reason: &'static str },

    /// The sandbox's cgroup could not be made or joined.
    #[error("sandbox cgroup: {0}")]
    Cgroup(#[from] crate::cgroup::CgroupError),

    /// This machine (or this process) cannot create the namespaces a sandbox needs.
    #[error("cannot create sandbox namespaces: {0}")]
    NamespacesUnavailable(#[from] Missing),

    /// The `dsh-sandbox-init` helper binary was not found.
    #[error("sandbox init binary not found (looked at {})", display_paths(.searched))]
    InitBinaryNotFound { searched: Vec<PathBuf> },

    /// The program to run inside the sandbox does not exist on the host.
    #[error("sandbox program {path:?} is not a file on the host")]
    ProgramNotFound { path: PathBuf },

    /// A host-side operation of the launcher failed.
    #[error("{context}: {source}")]
    Io {
        context: String,
        #[source]
        source: io::Error,
    },

    /// A step of the mount/namespace plan failed inside the sandbox's init.
    #[error("sandbox setup failed at `{step}`: {source}")]
    Setup {
        step: String,
        #[source]
        source: io::Error,
    },

    /// The init set the sandbox up but could not execute the program inside it.
    #[error("cannot start {program:?} inside the sandbox: {source}")]
    PayloadSpawn {
        program: PathBuf,
        #[source]
        source: io::Error,
    },

    /// Something a sandbox asked for that a daemon run by an ordinary user cannot give.
    #[error("{what} need a daemon run as root: a user's namespace cannot give them")]
    RootlessUnsupported { what: &'static str },

    /// The init exited (or could not be executed) before it reported back.
    #[error("sandbox init failed before reporting: {reason}")]
    InitFailed { reason: String },

    /// The init did not report within the setup timeout; it has been killed.
    #[error("sandbox setup did not finish within {after:?}; the sandbox was killed")]
    SetupTimeout { after: Duration },

    /// Another init still runs on this state directory; one sandbox per state directory.
    #[error("a sandbox is already running on this state directory (init pid {pid})")]
    AlreadyRunning { pid: u32 },

    /// `destroy` was called while the sandbox's init is still alive; kill and wait first.
    #[error("sandbox is still running (init pid {pid}); kill it and wait before destroying")]
    StillRunning { pid: u32 },

    /// A mount of the sandbox is visible in the host's mount namespace; nothing was removed.
    #[error(
        "sandbox mount {mountpoint:?} is visible on the host; refusing to remove the state directory"
    )]
    MountLeaked { mountpoint: PathBuf },
}

/// What is missing for namespaces to be created, in words an operator can act on.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Missing {
    /// Not root, and the kernel allows no unprivileged user namespaces either.
    #[error(
        "not running as root (euid {euid}) and unprivileged user namespaces are unavailable ({user_namespaces}); run dsh-sandboxd as root"
    )]
    RootAndUserNamespaces { euid: u32, user_namespaces: String },

    /// Not root; user namespaces exist but rootless sandboxes are not implemented.
    #[error(
        "not running as root (euid {euid}); user namespaces are available but rootless sandboxes are not supported (uid 1000 inside and overlay mounts need real root); run dsh-sandboxd as root"
    )]
    Root { euid: u32 },

    /// Root, but without CAP_SYS_ADMIN (typically a restricted container).
    #[error("running as root without CAP_SYS_ADMIN, which mount and pid namespaces need")]
    CapSysAdmin,

    /// The kernel (or a seccomp policy / container runtime) refused a namespace.
    #[error(
        "the kernel refused a new {namespace} namespace ({}); a container runtime, seccomp policy or kernel configuration forbids it",
        io::Error::from_raw_os_error(*errno)
    )]
    KernelRefused { namespace: String, errno: i32 },

    /// The host cannot give strict isolation (user namespace + idmapped layers).
    #[error(
        "strict isolation is unavailable: {what}; set [sandboxd] isolation = \"namespaces\" in dsh.toml only for code you trust"
    )]
    StrictIsolation { what: String },

    /// The kernel refused an idmapped mount of a template directory.
    #[error(
        "the kernel refused an idmapped mount of {path} ({}); strict isolation needs Linux 5.19 or later and a filesystem that supports idmapped mounts (ext4, xfs, btrfs, tmpfs)",
        io::Error::from_raw_os_error(*errno)
    )]
    IdmappedMount { path: PathBuf, errno: i32 },
}

fn display_paths(paths: &[PathBuf]) -> String {
    paths.iter().map(|p| p.display().to_string()).collect::<Vec<_>>().join(", ")
}

impl Error {
    /// An I/O failure, with what was being done.
    pub fn io(context: impl Into<String>, source: io::Error) -> Self {
        Error::Io { context: context.into(), source }
    }
}
