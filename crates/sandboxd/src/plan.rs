//! The sandbox's setup as data: a pure function from a spec and the probed host layout
//! to the ordered steps the init performs (through [`crate::syscall::Syscall`]).
//!
//! Order matters and is part of the contract (unit tests pin it):
//! 1. new mount/uts/ipc(/net) namespaces, then every mount made private, so nothing the
//!    sandbox mounts can propagate to the host;
//! 2. state directories, then a tmpfs that becomes the new root;
//! 3. the template's allow-list (overlays, symlinks, read-only files) and the account files
//!    written into the `/etc` upper layer;
//! 4. fresh `/proc`, read-only `/sys`, a minimal `/dev`, tmpfs `/tmp` and `/run`, the
//!    persistent `/home`, `/root` and `/var`, and the payload binary at `/.dsh/bin/<name>`;
//! 5. `pivot_root` into the new root, detaching the host's; then the rlimits.

use std::fmt;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::layout::{HostEntry, HostLayout};
use crate::spec::{Net, SandboxSpec};
use crate::state::StateDir;
use crate::syscall::{MountFlags, Namespaces, Resource};
use crate::users;

/// Where the payload binary is bind-mounted inside the sandbox.
pub const PROGRAM_DIR: &str = "/.dsh/bin";

/// Host device nodes bind-mounted into the sandbox's `/dev`.
pub const DEVICES: &[&str] = &["null", "zero", "full", "random", "urandom", "tty"];

/// Options of the sandbox's own devpts instance.
pub const DEVPTS_OPTIONS: &str = "newinstance,ptmxmode=0666,mode=0620";

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum Step {
    SetUmask {
        mask: u32,
    },
    Unshare {
        namespaces: Namespaces,
    },
    /// `mount --make-rprivate /` in the new mount namespace.
    MakeMountsPrivate,
    SetHostname {
        name: String,
    },
    LoopbackUp,
    /// mkdir -p, then the exact mode (and owner) on the last component.
    MakeDir {
        path: PathBuf,
        mode: u32,
        owner: Option<(u32, u32)>,
    },
    /// Writes a file; with `replace: false` an existing file (an earlier run's, possibly
    /// edited inside the sandbox) is kept.
    WriteFile {
        path: PathBuf,
        contents: Contents,
        mode: u32,
        replace: bool,
    },
    /// An empty file to bind-mount over.
    CreateFile {
        path: PathBuf,
        mode: u32,
    },
    Symlink {
        target: PathBuf,
        link: PathBuf,
    },
    MountTmpfs {
        target: PathBuf,
        mode: u32,
        flags: MountFlags,
    },
    MountOverlay {
        lower: PathBuf,
        upper: PathBuf,
        work: PathBuf,
        target: PathBuf,
    },
    Bind {
        source: PathBuf,
        target: PathBuf,
        read_only: bool,
    },
    MountProc {
        target: PathBuf,
    },
    MountSysfs {
        target: PathBuf,
    },
    MountDevpts {
        target: PathBuf,
    },
    /// chdir, `pivot_root(".", ".")`, detach the old root, chdir `/`.
    PivotRoot {
        new_root: PathBuf,
    },
    SetRlimit {
        resource: Resource,
        limit: u64,
    },
}

/// Contents of a written file; the account files are derived from the host's when the
/// step runs.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum Contents {
    Text(String),
    PasswdWithUser { host: PathBuf },
    GroupWithUser { host: PathBuf },
}

impl fmt::Display for Step {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Step::SetUmask { mask } => write!(f, "umask {mask:03o}"),
            Step::Unshare { namespaces } => write!(f, "unshare {namespaces}"),
            Step::MakeMountsPrivate => f.write_str("make all mounts private"),
            Step::SetHostname { name } => write!(f, "sethostname {name}"),
            Step::LoopbackUp => f.write_str("bring lo up"),
            Step::MakeDir { path, mode, owner } => {
                write!(f, "mkdir {} (mode {mode:04o}", path.display())?;
                if let Some((uid, gid)) = owner {
                    write!(f, ", owner {uid}:{gid}")?;
                }
                f.write_str(")")
            }
            Step::WriteFile { path, .. } => write!(f, "write {}", path.display()),
            Step::CreateFile { path, .. } => write!(f, "create {}", path.display()),
            Step::Symlink { target, link } => {
                write!(f, "symlink {} -> {}", link.display(), target.display())
            }
            Step::MountTmpfs { target, .. } => write!(f, "mount tmpfs at {}", target.display()),
            Step::MountOverlay { lower, target, .. } => {
                write!(f, "mount overlay of {} at {}", lower.display(), target.display())
            }
            Step::Bind { source, target, read_only } => write!(
                f,
                "bind {} at {}{}",
                source.display(),
                target.display(),
                if *read_only { " (read-only)" } else { "" }
            ),
            Step::MountProc { target } => write!(f, "mount proc at {}", target.display()),
            Step::MountSysfs { target } => write!(f, "mount sysfs at {}", target.display()),
            Step::MountDevpts { target } => write!(f, "mount devpts at {}", target.display()),
            Step::PivotRoot { new_root } => write!(f, "pivot_root into {}", new_root.display()),
            Step::SetRlimit { resource, limit } => write!(f, "setrlimit {resource} {limit}"),
        }
    }
}

/// `/.dsh/bin/<file name of program>`.
pub fn program_inside(program: &Path) -> Result<PathBuf> {
    match program.file_name() {
        Some(name) if program.is_absolute() => Ok(Path::new(PROGRAM_DIR).join(name)),
        _ => Err(Error::InvalidPath {
            what: "program",
            path: program.to_owned(),
            reason: "it must be an absolute path to a file",
        }),
    }
}

/// The paths of the template that get an entry of their own: in template order,
/// without duplicates and without paths nested in another listed path (already shown
/// through it).
pub fn shown_paths(spec: &SandboxSpec) -> Vec<&Path> {
    let listed = &spec.template.read_only_paths;
    let mut shown: Vec<&Path> = Vec::new();
    for path in listed {
        let nested = listed.iter().any(|other| other != path && path.starts_with(other));
        if !nested && !shown.contains(&path.as_path()) {
            shown.push(path);
        }
    }
    shown
}

/// Builds the whole setup plan. `program` is the host path of the payload binary.
pub fn build(spec: &SandboxSpec, layout: &HostLayout, program: &Path) -> Result<Vec<Step>> {
    spec.validate()?;
    let state = StateDir::new(&spec.state_dir);
    let root = state.rootfs();
    let program_target = in_root(&root, &program_inside(program)?);
    let at = |inside: &str| in_root(&root, Path::new(inside));
    let mut steps = vec![
        Step::SetUmask { mask: 0o022 },
        Step::Unshare {
            namespaces: Namespaces {
                mount: true,
                uts: true,
                ipc: true,
                net: spec.net == Net::None,
            },
        },
        Step::MakeMountsPrivate,
        Step::SetHostname { name: spec.id.clone() },
    ];
    if spec.net == Net::None {
        steps.push(Step::LoopbackUp);
    }

    let user_home = state.home().join("user");
    steps.extend([
        dir(state.rootfs(), 0o755),
        dir(state.home(), 0o755),
        Step::MakeDir {
            path: user_home,
            mode: 0o755,
            owner: Some((users::USER_UID, users::USER_GID)),
        },
        dir(state.root_home(), 0o700),
        dir(state.var(), 0o755),
        dir(state.var().join("tmp"), 0o1777),
        Step::MountTmpfs { target: root.clone(), mode: 0o755, flags: MountFlags::EMPTY },
    ]);

    let mut etc_shown = false;
    for path in shown_paths(spec) {
        let target = in_root(&root, path);
        match layout.get(path) {
            HostEntry::Missing => continue,
            HostEntry::Symlink { target: link_target } => {
                steps.push(Step::Symlink { target: link_target.clone(), link: target })
            }
            HostEntry::File => steps.extend([
                Step::CreateFile { path: target.clone(), mode: 0o644 },
                Step::Bind { source: path.to_owned(), target, read_only: true },
            ]),
            HostEntry::Dir { mode, uid, gid } => {
                let upper = state.upper(path);
                steps.push(Step::MakeDir {
                    path: upper.clone(),
                    mode: *mode,
                    owner: Some((*uid, *gid)),
                });
                steps.push(dir(state.work(path), 0o700));
                if path == Path::new("/etc") {
                    steps.extend(account_files(&upper, &spec.id, false));
                }
                steps.extend([
                    dir(target.clone(), 0o755),
                    Step::MountOverlay {
                        lower: path.to_owned(),
                        upper,
                        work: state.work(path),
                        target,
                    },
                ]);
            }
        }
        etc_shown |= path == Path::new("/etc");
    }
    if !etc_shown {
        // No host /etc: the account files live on the (ephemeral) tmpfs root.
        let etc = at("/etc");
        steps.push(dir(etc.clone(), 0o755));
        steps.extend(account_files(&etc, &spec.id, true));
    }

    steps.extend([
        dir(at("/proc"), 0o555),
        Step::MountProc { target: at("/proc") },
        dir(at("/sys"), 0o555),
        Step::MountSysfs { target: at("/sys") },
        dir(at("/dev"), 0o755),
        Step::MountTmpfs {
            target: at("/dev"),
            mode: 0o755,
            flags: MountFlags::NOSUID | MountFlags::NOEXEC,
        },
    ]);
    for device in DEVICES {
        let host = Path::new("/dev").join(device);
        let target = in_root(&root, &host);
        steps.extend([
            Step::CreateFile { path: target.clone(), mode: 0o666 },
            Step::Bind { source: host, target, read_only: false },
        ]);
    }
    steps.extend([
        dir(at("/dev/pts"), 0o755),
        Step::MountDevpts { target: at("/dev/pts") },
        symlink("pts/ptmx", at("/dev/ptmx")),
        dir(at("/dev/shm"), 0o1777),
        Step::MountTmpfs {
            target: at("/dev/shm"),
            mode: 0o1777,
            flags: MountFlags::NOSUID | MountFlags::NODEV | MountFlags::NOEXEC,
        },
        symlink("/proc/self/fd", at("/dev/fd")),
        symlink("/proc/self/fd/0", at("/dev/stdin")),
        symlink("/proc/self/fd/1", at("/dev/stdout")),
        symlink("/proc/self/fd/2", at("/dev/stderr")),
        dir(at("/tmp"), 0o755),
        Step::MountTmpfs {
            target: at("/tmp"),
            mode: 0o1777,
            flags: MountFlags::NOSUID | MountFlags::NODEV,
        },
        dir(at("/run"), 0o755),
        Step::MountTmpfs {
            target: at("/run"),
            mode: 0o755,
            flags: MountFlags::NOSUID | MountFlags::NODEV,
        },
        dir(at("/home"), 0o755),
        bind_rw(state.home(), at("/home")),
        dir(at("/root"), 0o700),
        bind_rw(state.root_home(), at("/root")),
        dir(at("/var"), 0o755),
        bind_rw(state.var(), at("/var")),
        dir(at(PROGRAM_DIR), 0o755),
        Step::CreateFile { path: program_target.clone(), mode: 0o755 },
        Step::Bind { source: program.to_owned(), target: program_target, read_only: true },
        Step::PivotRoot { new_root: root },
    ]);

    for (resource, limit) in spec.limits.entries() {
        if let Some(limit) = limit {
            steps.push(Step::SetRlimit { resource, limit });
        }
    }
    Ok(steps)
}

/// `root` joined with an absolute path inside the sandbox.
pub fn in_root(root: &Path, inside: &Path) -> PathBuf {
    root.join(inside.strip_prefix("/").unwrap_or(inside))
}

fn dir(path: PathBuf, mode: u32) -> Step {
    Step::MakeDir { path, mode, owner: None }
}

fn symlink(target: &str, link: PathBuf) -> Step {
    Step::Symlink { target: PathBuf::from(target), link }
}

fn bind_rw(source: PathBuf, target: PathBuf) -> Step {
    Step::Bind { source, target, read_only: false }
}

/// passwd, group, hostname and hosts in `etc`. `replace_all: false` keeps the files an
/// earlier run wrote (the sandbox may have added users); the hostname is always rewritten.
fn account_files(etc: &Path, id: &str, replace_all: bool) -> [Step; 4] {
    let file = |name: &str, contents: Contents, replace: bool| Step::WriteFile {
        path: etc.join(name),
        contents,
        mode: 0o644,
        replace,
    };
    [
        file("passwd", Contents::PasswdWithUser { host: "/etc/passwd".into() }, replace_all),
        file("group", Contents::GroupWithUser { host: "/etc/group".into() }, replace_all),
        file("hostname", Contents::Text(users::hostname(id)), true),
        file("hosts", Contents::Text(users::hosts(id)), replace_all),
    ]
}

#[cfg(test)]
mod tests;
