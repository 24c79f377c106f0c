//! What a sandbox is: id, state directory, template, network mode and limits.

use std::path::{Component, Path, PathBuf};

use serde::{Deserialize, Serialize};

pub use crate::ids::IdRange;

use crate::cgroup::Resources;
use crate::error::{Error, Result};
use crate::syscall::Resource;
use crate::template::Template;

/// Paths inside the sandbox that the plan itself provides; a template cannot name them
/// (or anything under them), because the host's copies must stay invisible.
pub const RESERVED_PATHS: &[&str] =
    &["/proc", "/sys", "/dev", "/tmp", "/run", "/home", "/root", "/var", "/.dsh"];

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SandboxSpec {
    /// Also the sandbox's hostname, so it must be a valid hostname label.
    pub id: String,
    /// Where the sandbox's writable layers, /home and /root live on the host.
    pub state_dir: PathBuf,
    pub template: Template,
    pub net: Net,
    /// A network namespace pinned to this file (made by the caller, e.g. so a network
    /// stack can attach to it while the sandbox is set up) for the sandbox to join
    /// instead of making one; only with a network of its own.
    pub netns: Option<PathBuf>,
    pub limits: Limits,
    pub isolation: Isolation,
    /// cgroup limits (memory, pids, CPU); applied by the launcher when it is given a
    /// cgroup hierarchy ([`crate::Launcher::cgroups`]).
    pub resources: Resources,
    /// A host mount (the daemon's layer view, see `server/store/layers.rs`) shown read-only at
    /// [`crate::plan::LAYERS_DIR`] and kept in step with it by mount propagation: layers
    /// the daemon adds later appear in the running sandbox too.
    pub layers: Option<PathBuf>,
    /// Host directories shown writable inside (volumes): each on a path of the
    /// sandbox's own fresh root (see [`VolumeMount`]).
    pub volumes: Vec<VolumeMount>,
}

/// A host directory shown writable at `inside`, through an idmapped mount (its files'
/// ids 0-65535 are the sandbox's 0-65535), so that sandboxes of different uid blocks share
/// it with the same owners.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct VolumeMount {
    pub source: PathBuf,
    pub inside: PathBuf,
    /// The host block its files are stored in (`None`: the ids they have inside, as
    /// volumes made before that were kept).
    #[serde(default)]
    pub ids: Option<IdRange>,
}

/// Where a volume may not be mounted: what the plan provides, and the directories whose
/// contents persist from run to run (a path under them could meet a symlink the sandbox
/// planted while the mount is made, before `pivot_root`). The rest of the tree is the
/// fresh root tmpfs: `/mnt/data`, `/data`, `/workspace`.
pub const NO_VOLUME_UNDER: &[&str] =
    &["/proc", "/sys", "/dev", "/run", "/home", "/root", "/var", "/.dsh", "/tmp"];

/// How far a sandbox is separated from the host. There is no silent fallback: a host
/// that cannot give `Strict` fails the create with what is missing.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", tag = "level")]
pub enum Isolation {
    /// The security boundary: a user namespace whose uids 0-65535 are the unprivileged
    /// host block `ids` (root inside is nobody on the host), host files seen through
    /// idmapped lower layers, Docker's 14 capabilities, `no_new_privs` and the seccomp
    /// profile of [`crate::seccomp`].
    Strict {
        ids: IdRange,
        /// The block that owns the sandbox's own files on the host, when it is not
        /// `ids`: a fork, or a sandbox made from a snapshot or a template build, starts
        /// from files another sandbox made. It still runs in a block of its own: its
        /// state directory is shown to it through an idmapped mount from `files` onto
        /// `ids`, so no file is re-owned and no two running sandboxes share host ids.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        files: Option<IdRange>,
    },
    /// Namespaces only: root inside is root on the host. For code you trust.
    Namespaces,
}

impl Isolation {
    pub fn name(self) -> &'static str {
        match self {
            Isolation::Strict { .. } => "strict",
            Isolation::Namespaces => "namespaces",
        }
    }

    /// Strict isolation in the block `ids`, over files owned by that block.
    pub fn strict(ids: IdRange) -> Isolation {
        Isolation::Strict { ids, files: None }
    }

    /// The host id of `inside` (a uid or gid inside the sandbox) for its processes, and
    /// for files made through the sandbox's mounts.
    pub fn host_id(self, inside: u32) -> u32 {
        match self {
            Isolation::Strict { ids, .. } => ids.host_base.saturating_add(inside),
            Isolation::Namespaces => inside,
        }
    }

    /// The host id that owns, on the host's disk, the sandbox's files of `inside`: what
    /// the daemon sets on a file it makes in the state directory from outside.
    pub fn files_id(self, inside: u32) -> u32 {
        match self.files_block() {
            Some(files) => files.host_base.saturating_add(inside),
            None => inside,
        }
    }

    /// The block its files are owned by (`None` without a user namespace).
    pub fn files_block(self) -> Option<IdRange> {
        match self {
            Isolation::Strict { ids, files } => Some(files.unwrap_or(ids)),
            Isolation::Namespaces => None,
        }
    }

    /// The block its state directory is shifted from, when its files are another
    /// block's (see [`Isolation::Strict::files`]).
    pub fn shifted_from(self) -> Option<IdRange> {
        match self {
            Isolation::Strict { ids, files: Some(files) } if files != ids => Some(files),
            _ => None,
        }
    }

    /// The host blocks it holds: the one its processes run in and the one its files
    /// are owned by (one block for most).
    pub fn blocks(self) -> impl Iterator<Item = IdRange> {
        let (ids, files) = match self {
            Isolation::Strict { ids, files } => (Some(ids), files.filter(|f| *f != ids)),
            Isolation::Namespaces => (None, None),
        };
        ids.into_iter().chain(files)
    }

    /// The same files run in the block `ids` (a fork's, or a sandbox made from a
    /// snapshot or a template build).
    pub fn running_in(self, ids: IdRange) -> Isolation {
        match self.files_block() {
            Some(files) if files != ids => Isolation::Strict { ids, files: Some(files) },
            _ => Isolation::strict(ids),
        }
    }
}

/// The isolation a daemon gives its sandboxes (`[sandboxd] isolation` in `dsh.toml`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum IsolationLevel {
    /// See [`Isolation::Strict`].
    #[default]
    Strict,
    /// See [`Isolation::Namespaces`]: root inside is root on the host.
    Namespaces,
}

impl IsolationLevel {
    pub fn name(self) -> &'static str {
        match self {
            IsolationLevel::Strict => "strict",
            IsolationLevel::Namespaces => "namespaces",
        }
    }
}

impl std::str::FromStr for IsolationLevel {
    type Err = String;
    fn from_str(text: &str) -> std::result::Result<Self, String> {
        match text {
            "strict" => Ok(IsolationLevel::Strict),
            "namespaces" => Ok(IsolationLevel::Namespaces),
            other => Err(format!("unknown isolation level {other:?} (known: strict, namespaces)")),
        }
    }
}

/// Network namespace of the sandbox.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Net {
    /// Share the host's network: a daemon inside listening on 127.0.0.1 is reachable
    /// from the host.
    #[default]
    Host,
    /// A fresh network namespace with only the loopback interface, brought up.
    None,
    /// A network namespace of its own whose egress goes through a user-mode network
    /// stack (pasta) that the daemon attaches to it, with egress rules the sandbox cannot
    /// change; the host is out of reach. The namespace is made like `None`'s; the
    /// interface, the stack and the rules come from `dsh-sandboxd` (see `docs/sandboxd.md`).
    Private,
}

impl std::str::FromStr for Net {
    type Err = String;
    fn from_str(text: &str) -> std::result::Result<Self, String> {
        match text {
            "private" => Ok(Net::Private),
            "none" => Ok(Net::None),
            "host" => Ok(Net::Host),
            other => Err(format!("unknown network {other:?} (known: private, none, host)")),
        }
    }
}

impl Net {
    /// Whether the sandbox has a network namespace of its own.
    pub fn is_own_namespace(self) -> bool {
        self != Net::Host
    }
}

/// The addresses a private network uses inside every sandbox (each is in a namespace of
/// its own, so they never meet): RFC 2544's benchmarking range, which no real network
/// hands out.
pub mod private_net {
    /// The sandbox's address, /24.
    pub const ADDRESS: &str = "198.18.0.2";
    pub const PREFIX: u8 = 24;
    /// The gateway: pasta's side.
    pub const GATEWAY: &str = "198.18.0.1";
    /// Where pasta answers DNS (forwarded to the host's resolver).
    pub const DNS: &str = "198.18.0.53";
    /// The interface inside.
    pub const INTERFACE: &str = "eth0";
}

/// Resource limits (rlimits) for everything in the sandbox, soft = hard. `None` keeps the
/// value the daemon itself runs with. Without CAP_SYS_RESOURCE a hard limit cannot be
/// raised, so the launcher then lowers each value to the daemon's own hard limit.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Limits {
    /// RLIMIT_NPROC. Counted per uid of the sandbox's user namespace under strict
    /// isolation (so per sandbox, and binding root inside too); per host uid, and not for
    /// root, under `Isolation::Namespaces`.
    pub max_processes: Option<u64>,
    /// RLIMIT_NOFILE.
    pub max_open_files: Option<u64>,
    /// RLIMIT_FSIZE in bytes.
    pub max_file_size: Option<u64>,
    /// RLIMIT_AS in bytes: a cap on each process's virtual memory. Node needs at least
    /// about 1 GiB of address space (it hangs at start-up below that).
    pub max_memory: Option<u64>,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_processes: Some(8192),
            max_open_files: Some(65536),
            max_file_size: None,
            max_memory: None,
        }
    }
}

/// Smallest accepted `max_memory`: below this the sandbox's init itself cannot run.
pub const MIN_MEMORY: u64 = 64 << 20;

impl Limits {
    /// The limits as (resource, value) pairs, in the order they are applied.
    pub fn entries(&self) -> [(Resource, Option<u64>); 4] {
        [
            (Resource::Nproc, self.max_processes),
            (Resource::Nofile, self.max_open_files),
            (Resource::Fsize, self.max_file_size),
            (Resource::As, self.max_memory),
        ]
    }

    /// Every limit lowered to at most `hard(resource)` (`None` = unlimited).
    pub fn clamped(self, hard: impl Fn(Resource) -> Option<u64>) -> Limits {
        let clamp = |value: Option<u64>, resource| match (value, hard(resource)) {
            (Some(value), Some(hard)) => Some(value.min(hard)),
            (value, _) => value,
        };
        Limits {
            max_processes: clamp(self.max_processes, Resource::Nproc),
            max_open_files: clamp(self.max_open_files, Resource::Nofile),
            max_file_size: clamp(self.max_file_size, Resource::Fsize),
            max_memory: clamp(self.max_memory, Resource::As),
        }
    }
}

impl SandboxSpec {
    /// A spec with the host network and default limits.
    pub fn new(id: impl Into<String>, state_dir: impl Into<PathBuf>, template: Template) -> Self {
        let id = id.into();
        let id_for_ids = id.clone();
        SandboxSpec {
            id,
            state_dir: state_dir.into(),
            template,
            net: Net::Host,
            netns: None,
            limits: Limits::default(),
            isolation: Isolation::strict(IdRange::from_id(&id_for_ids)),
            resources: Resources::default(),
            layers: None,
            volumes: Vec::new(),
        }
    }

    /// Checks everything that can be checked without touching the system.
    pub fn validate(&self) -> Result<()> {
        validate_id(&self.id)?;
        validate_mount_path("state directory", &self.state_dir)?;
        if let Some(layers) = &self.layers {
            validate_mount_path("layer view", layers)?;
        }
        for path in &self.template.read_only_paths {
            validate_mount_path("template path", path)?;
            if path == Path::new("/") {
                return Err(invalid("template path", path, "the host root cannot be shown"));
            }
            if RESERVED_PATHS.iter().any(|r| path.starts_with(r)) {
                return Err(invalid(
                    "template path",
                    path,
                    "it is provided by the sandbox itself (/proc, /sys, /dev, /tmp, /run, /home, /root, /var, /.dsh)",
                ));
            }
            if self.state_dir.starts_with(path) || path.starts_with(&self.state_dir) {
                return Err(invalid(
                    "state directory",
                    &self.state_dir,
                    "it overlaps a path the template shows inside the sandbox",
                ));
            }
        }
        for volume in &self.volumes {
            validate_mount_path("volume", &volume.source)?;
            validate_volume_path(&volume.inside, &self.template.read_only_paths)?;
        }
        if let Some(memory) = self.limits.max_memory
            && memory < MIN_MEMORY
        {
            return Err(Error::InvalidLimit {
                limit: "max_memory",
                value: memory,
                reason: "below 64 MiB even the sandbox's init cannot run",
            });
        }
        if !self.template.workdir.is_absolute() {
            return Err(invalid("workdir", &self.template.workdir, "it must be absolute"));
        }
        Ok(())
    }
}

/// A hostname label: 1 to 63 ASCII letters, digits or '-', not starting or ending in '-'.
pub fn validate_id(id: &str) -> Result<()> {
    let reason = if id.is_empty() {
        Some("it is empty")
    } else if id.len() > 63 {
        Some("it is longer than 63 characters")
    } else if !id.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-') {
        Some("only ASCII letters, digits and '-' are allowed")
    } else if id.starts_with('-') || id.ends_with('-') {
        Some("it cannot start or end with '-'")
    } else {
        None
    };
    match reason {
        Some(reason) => Err(Error::InvalidId { id: id.to_owned(), reason }),
        None => Ok(()),
    }
}

/// Paths that end up in mount options: absolute, normalized, UTF-8 and free of the
/// characters overlayfs uses as separators.
fn validate_mount_path(what: &'static str, path: &Path) -> Result<()> {
    if !path.is_absolute() {
        return Err(invalid(what, path, "it must be absolute"));
    }
    if path.components().any(|c| matches!(c, Component::CurDir | Component::ParentDir)) {
        return Err(invalid(what, path, "it must not contain '.' or '..'"));
    }
    let Some(text) = path.to_str() else {
        return Err(invalid(what, path, "it must be valid UTF-8"));
    };
    if text.contains([',', ':', '\\']) {
        return Err(invalid(
            what,
            path,
            "',', ':' and '\\' cannot be used in overlay mount options",
        ));
    }
    Ok(())
}

/// A path a volume may be mounted on inside: absolute, normalized, in the sandbox's
/// fresh root (not under [`NO_VOLUME_UNDER`] or a path the template shows), not `/`.
pub fn validate_volume_path(inside: &Path, template_paths: &[PathBuf]) -> Result<()> {
    validate_mount_path("volume mount path", inside)?;
    if inside == Path::new("/") {
        return Err(invalid("volume mount path", inside, "a volume cannot cover the root"));
    }
    let persisted = template_paths.iter().any(|p| inside.starts_with(p) || p.starts_with(inside));
    if persisted || NO_VOLUME_UNDER.iter().any(|r| inside.starts_with(r)) {
        return Err(invalid(
            "volume mount path",
            inside,
            "mount volumes on a path of the sandbox's own root, such as /mnt/data (not under \
             /home, /root, /var, /tmp, /run, /proc, /sys, /dev, /.dsh or a host directory \
             the sandbox shows)",
        ));
    }
    Ok(())
}

fn invalid(what: &'static str, path: &Path, reason: &'static str) -> Error {
    Error::InvalidPath { what, path: path.to_owned(), reason }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;

    fn spec() -> SandboxSpec {
        SandboxSpec::new("sbx-1", "/var/lib/dsh/sandboxes/sbx-1", Template::base())
    }

    #[test]
    fn base_spec_is_valid() {
        spec().validate().unwrap();
    }

    #[test]
    fn ids_must_be_hostname_labels() {
        for bad in ["", "-a", "a-", "a_b", "a.b", "ä", &"x".repeat(64)] {
            let err = validate_id(bad).unwrap_err();
            assert!(matches!(err, Error::InvalidId { .. }), "{bad:?}: {err:?}");
        }
        for good in ["a", "sbx-1", "I1a2B3", &"x".repeat(63)] {
            validate_id(good).unwrap();
        }
    }

    #[test]
    fn template_paths_are_checked() {
        let cases = [
            ("usr", "it must be absolute"),
            ("/usr/../etc", "it must not contain '.' or '..'"),
            ("/a,b", "',', ':' and '\\' cannot be used in overlay mount options"),
            ("/", "the host root cannot be shown"),
            (
                "/home/alice",
                "it is provided by the sandbox itself (/proc, /sys, /dev, /tmp, /run, /home, /root, /var, /.dsh)",
            ),
            (
                "/proc",
                "it is provided by the sandbox itself (/proc, /sys, /dev, /tmp, /run, /home, /root, /var, /.dsh)",
            ),
        ];
        for (path, expected) in cases {
            let mut spec = spec();
            spec.template.read_only_paths.push(path.into());
            match spec.validate().unwrap_err() {
                Error::InvalidPath { reason, .. } => assert_eq!(reason, expected, "{path}"),
                other => panic!("{path}: {other:?}"),
            }
        }
    }

    #[test]
    fn limits_are_clamped_to_what_can_be_granted() {
        let limits = Limits {
            max_processes: Some(100),
            max_open_files: Some(65536),
            max_file_size: None,
            max_memory: Some(1 << 30),
        };
        let clamped = limits.clamped(|resource| match resource {
            Resource::Nofile => Some(20000),
            Resource::Nproc => Some(1000),
            _ => None,
        });
        assert_eq!(
            clamped,
            Limits {
                max_processes: Some(100),
                max_open_files: Some(20000),
                max_file_size: None,
                max_memory: Some(1 << 30),
            }
        );
    }

    #[test]
    fn a_memory_cap_too_small_for_the_init_is_rejected() {
        let mut spec = spec();
        spec.limits.max_memory = Some(1 << 20);
        assert!(matches!(spec.validate(), Err(Error::InvalidLimit { limit: "max_memory", .. })));
    }

    #[test]
    fn state_dir_must_not_overlap_a_shown_path() {
        let mut spec = spec();
        spec.state_dir = "/opt/dsh/state".into();
        let err = spec.validate().unwrap_err();
        assert_eq!(
            err.to_string(),
            "invalid state directory \"/opt/dsh/state\": it overlaps a path the template shows inside the sandbox"
        );
        spec.state_dir = "/".into();
        assert!(spec.validate().is_err());
        spec.state_dir = "relative".into();
        assert!(spec.validate().is_err());
    }
}
