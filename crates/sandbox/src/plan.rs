//! The sandbox's setup as data: a pure function from a spec and the probed host layout
//! to the ordered steps the init performs (through [`crate::syscall::Syscall`]).
//!
//! Order matters and is part of the contract (unit tests pin it):
//! 1. with strict isolation, the sandbox's user namespace (the init stays outside it: it
//!    needs its host privileges for the mounts; the payload enters it);
//! 2. new mount/uts/ipc(/net) namespaces, then every mount made private, so nothing the
//!    sandbox mounts can propagate to the host (with a layer view: made slaves, which
//!    receive but never send, and the new root made private in step 6 before the view is
//!    bound in, so the view is the only place the host's mounts still reach);
//! 3. state directories, then the new root: an overlay whose upper layer is the sandbox's
//!    own (so it persists), every mount point in it made by a step that replaces what the
//!    sandbox may have left there;
//! 4. the template's allow-list (overlays over idmapped copies of the host directories,
//!    symlinks, read-only files) and the account files written into the `/etc` upper layer;
//! 5. fresh `/proc`, read-only `/sys`, a minimal `nodev` `/dev`, tmpfs `/tmp` and `/run`,
//!    the persistent `/home`, `/root` and `/var`, and the payload binary at
//!    `/.dsh/bin/<name>`; then Docker's masked and read-only `/proc` and `/sys` paths;
//! 6. the layer view, if any, at `/.dsh/layers`; `pivot_root` into the new root,
//!    detaching the host's; then the rlimits.
//!
//! Overlays are mounted with paths relative to the state directory (the init changes into
//! it first), so `/proc/self/mountinfo` inside shows no host path: every writable place
//! is an overlay (whose mountinfo root is `/`), never a bind mount of a host directory.

use std::fmt;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::layout::{HostEntry, HostLayout};
use crate::spec::{IdRange, Isolation, Net, SandboxSpec};
use crate::state::StateDir;
use crate::syscall::{MountFlags, Namespaces, Resource};
use crate::users;

/// Where the payload binary is bind-mounted inside the sandbox.
pub const PROGRAM_DIR: &str = "/.dsh/bin";
/// Where the daemon's read-only layers (language servers provisioned once per machine)
/// are seen inside, one directory per layer id.
pub const LAYERS_DIR: &str = "/.dsh/layers";

/// Host device nodes bind-mounted into the sandbox's `/dev`.
pub const DEVICES: &[&str] = &["null", "zero", "full", "random", "urandom", "tty"];

/// Options of the sandbox's own devpts instance.
pub const DEVPTS_OPTIONS: &str = "newinstance,ptmxmode=0666,mode=0620";

/// Docker's masked paths: kernel state a sandbox has no business reading (a directory
/// is covered by an empty read-only tmpfs, a file by `/dev/null`). Missing ones are skipped.
pub const MASKED_DIRS: &[&str] =
    &["/proc/acpi", "/proc/asound", "/proc/scsi", "/sys/firmware", "/sys/devices/virtual/powercap"];
pub const MASKED_FILES: &[&str] = &[
    "/proc/kcore",
    "/proc/keys",
    "/proc/latency_stats",
    "/proc/timer_list",
    "/proc/timer_stats",
    "/proc/sched_debug",
];
/// Docker's read-only paths: kernel knobs that must not be written from inside.
pub const READ_ONLY_PATHS: &[&str] =
    &["/proc/bus", "/proc/fs", "/proc/irq", "/proc/sys", "/proc/sysrq-trigger"];

/// The sandbox's boot id: a random UUID the init writes in the sandbox's root (a tmpfs,
/// so mountinfo shows no host path for it) at every start and binds over the kernel's
/// (the host's). A sandbox's boot id is its own and changes when it starts again, as a
/// machine's does when it reboots (E2B's filesystem-only resume is a cold boot).
pub const BOOT_ID_FILE: &str = "/.dsh/boot_id";
pub const BOOT_ID_INSIDE: &str = "/proc/sys/kernel/random/boot_id";

pub use crate::state::PROGRAM_LINK_DIR;

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum Step {
    SetUmask {
        mask: u32,
    },
    /// A user namespace mapping ids 0-65535 to the host block `ids`, kept for the
    /// idmapped mounts and for the payload.
    CreateUserNamespace {
        ids: IdRange,
    },
    Unshare {
        namespaces: Namespaces,
    },
    /// Joins the network namespace pinned at `path` (`setns`).
    JoinNetworkNamespace {
        path: PathBuf,
    },
    /// `mount --make-rprivate /` in the new mount namespace.
    MakeMountsPrivate,
    /// `mount --make-rslave /` in the new mount namespace: nothing mounted here reaches
    /// the host, and the host's mounts still reach copies of its mounts (the layer view).
    MakeMountsSlave,
    /// `mount --make-rprivate <target>`.
    MakeTreePrivate {
        target: PathBuf,
    },
    /// A recursive read-only bind of the daemon's layer view (a slave of it).
    BindLayers {
        source: PathBuf,
        target: PathBuf,
    },
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
    /// A directory on the way to a mount point in the sandbox's persistent root: made
    /// (with this mode and owner) if missing, and a non-directory the sandbox left there
    /// (a symlink planted to redirect a later step) replaced; an existing directory is
    /// kept as it is (the sandbox may have made it its own).
    EnsureDir {
        path: PathBuf,
        mode: u32,
        owner: Option<(u32, u32)>,
    },
    /// Writes a file (then sets its host owner, if given); with `replace: false` an
    /// existing file (an earlier run's, possibly edited inside the sandbox) is kept.
    WriteFile {
        path: PathBuf,
        contents: Contents,
        mode: u32,
        replace: bool,
        owner: Option<(u32, u32)>,
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
    /// A tmpfs of at most `size` bytes whose root has `mode` and (if given) the host
    /// owner `owner`.
    MountTmpfs {
        target: PathBuf,
        mode: u32,
        size: u64,
        flags: MountFlags,
        owner: Option<(u32, u32)>,
    },
    /// Changes the working directory: the overlays that follow name their layers relative
    /// to it.
    Chdir {
        path: PathBuf,
    },
    /// A copy of the mount at `source` whose owners are seen through the user namespace:
    /// the host's ids 0-65535 as the sandbox's, or with `from`, the ids of that block
    /// (a volume's, the files of a sandbox made from another's) as the sandbox's, and
    /// host root's own files (the daemon's bookkeeping) as they are.
    MountIdmapped {
        source: PathBuf,
        target: PathBuf,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        from: Option<IdRange>,
    },
    /// An overlay; without `upper` (and `work`) it is read-only. `user_xattr`: its
    /// bookkeeping in `user.*` extended attributes, as a user's namespace must (in
    /// `trusted.*` it cannot, and directories holding mounts could not be renamed).
    MountOverlay {
        lower: PathBuf,
        upper: Option<PathBuf>,
        work: Option<PathBuf>,
        target: PathBuf,
        flags: MountFlags,
        #[serde(default)]
        user_xattr: bool,
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
    /// Docker's masking: an empty read-only tmpfs over a directory. Skipped if missing.
    MaskDir {
        target: PathBuf,
    },
    /// Docker's masking: `null` (a device node already in the sandbox) over a file.
    /// Skipped if missing.
    MaskFile {
        target: PathBuf,
        null: PathBuf,
    },
    /// A file of the sandbox's root (`source`) bound over a file inside. Skipped if
    /// `target` is missing.
    BindFile {
        source: PathBuf,
        target: PathBuf,
    },
    /// Bound onto itself read-only (nosuid, nodev, noexec). Skipped if missing.
    ReadOnly {
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
    /// A fresh random (version 4) UUID and a newline, as the kernel writes boot ids.
    RandomUuid,
    PasswdWithUser {
        host: PathBuf,
        /// `host` is inside this tree (an image's root), resolved as if it were `/`.
        root: Option<PathBuf>,
    },
    GroupWithUser {
        host: PathBuf,
        /// As for `PasswdWithUser`.
        root: Option<PathBuf>,
    },
}

impl fmt::Display for Step {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Step::SetUmask { mask } => write!(f, "umask {mask:03o}"),
            Step::CreateUserNamespace { ids } => write!(
                f,
                "create a user namespace (ids 0-{} = host {}-{})",
                IdRange::SIZE - 1,
                ids.host_base,
                u64::from(ids.host_base) + u64::from(IdRange::SIZE) - 1
            ),
            Step::Unshare { namespaces } => write!(f, "unshare {namespaces}"),
            Step::JoinNetworkNamespace { path } => {
                write!(f, "join the network namespace pinned at {}", path.display())
            }
            Step::MakeMountsPrivate => f.write_str("make all mounts private"),
            Step::MakeMountsSlave => f.write_str("make all mounts slaves of the host's"),
            Step::MakeTreePrivate { target } => {
                write!(f, "make mounts under {} private", target.display())
            }
            Step::BindLayers { source, target } => {
                write!(f, "show the layers of {} at {}", source.display(), target.display())
            }
            Step::SetHostname { name } => write!(f, "sethostname {name}"),
            Step::LoopbackUp => f.write_str("bring lo up"),
            Step::MakeDir { path, mode, owner } => {
                write!(f, "mkdir {} (mode {mode:04o}", path.display())?;
                if let Some((uid, gid)) = owner {
                    write!(f, ", owner {uid}:{gid}")?;
                }
                f.write_str(")")
            }
            Step::EnsureDir { path, .. } => write!(f, "ensure the directory {}", path.display()),
            Step::WriteFile { path, .. } => write!(f, "write {}", path.display()),
            Step::CreateFile { path, .. } => write!(f, "create {}", path.display()),
            Step::Symlink { target, link } => {
                write!(f, "symlink {} -> {}", link.display(), target.display())
            }
            Step::MountTmpfs { target, .. } => write!(f, "mount tmpfs at {}", target.display()),
            Step::Chdir { path } => write!(f, "chdir {}", path.display()),
            Step::MountIdmapped { source, target, from: None } => {
                write!(f, "idmapped mount of {} at {}", source.display(), target.display())
            }
            Step::MountIdmapped { source, target, from: Some(from) } => write!(
                f,
                "idmapped mount of {} at {} (from the ids of block {})",
                source.display(),
                target.display(),
                from.host_base
            ),
            Step::MountOverlay { lower, target, .. } => {
                write!(f, "mount overlay at {} (lower {})", target.display(), lower.display())
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
            Step::MaskDir { target } | Step::MaskFile { target, .. } => {
                write!(f, "mask {}", target.display())
            }
            Step::BindFile { source, target } => {
                write!(f, "bind {} over {}", source.display(), target.display())
            }
            Step::ReadOnly { target } => write!(f, "make {} read-only", target.display()),
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

/// Builds the whole setup plan. `program` is the host path of the payload binary; the
/// launcher links it into `<state>/program/` (see [`PROGRAM_LINK_DIR`]).
pub fn build(spec: &SandboxSpec, layout: &HostLayout, program: &Path) -> Result<Vec<Step>> {
    build_with_cgroup(spec, layout, program, &[])
}

/// [`build`], plus the sandbox's own cgroup shown read-only under `/sys/fs/cgroup`
/// (`views`: see [`crate::cgroup::SandboxCgroup::views`]): programs size themselves by
/// its limits, and envd reads its OOM kills to say why a command was killed.
pub fn build_with_cgroup(
    spec: &SandboxSpec,
    layout: &HostLayout,
    program: &Path,
    views: &[(String, PathBuf)],
) -> Result<Vec<Step>> {
    spec.validate()?;
    program_inside(program)?;
    if !layout.idmap() && !spec.net.is_own_namespace() {
        // sysfs can be mounted only for a network namespace the user's owns.
        return Err(Error::RootlessUnsupported { what: "sandboxes sharing the host's network" });
    }
    let ctx = Context::new(spec, layout);
    let mut steps = Vec::new();
    namespaces(&ctx, &mut steps);
    new_root(&ctx, &mut steps);
    allow_list(&ctx, &mut steps);
    system_mounts(&ctx, views, &mut steps);
    persistent_dirs_and_payload(&ctx, &mut steps);
    volumes_and_masks(&ctx, &mut steps)?;
    enter_root(&ctx, &mut steps);
    Ok(steps)
}

/// What every phase of [`build_with_cgroup`] reads: the spec, the probed layout and what
/// follows from them.
struct Context<'a> {
    spec: &'a SandboxSpec,
    layout: &'a HostLayout,
    state: StateDir,
    /// The new root's mount point (`<state>/rootfs`).
    root: PathBuf,
    isolation: Isolation,
    sizes: TmpfsSizes,
    /// Root inside, as host ids.
    root_owned: Option<(u32, u32)>,
}

impl<'a> Context<'a> {
    fn new(spec: &'a SandboxSpec, layout: &'a HostLayout) -> Context<'a> {
        let state = StateDir::new(&spec.state_dir);
        let root = state.rootfs();
        let isolation = spec.isolation;
        let sizes = TmpfsSizes::for_memory(spec.resources.memory_bytes.or(spec.limits.max_memory));
        let root_owned = Some((isolation.host_id(0), isolation.host_id(0)));
        Context { spec, layout, state, root, isolation, sizes, root_owned }
    }

    /// Host owner of ids inside the sandbox (the same ids without a user namespace).
    fn owner(&self, uid: u32, gid: u32) -> Option<(u32, u32)> {
        Some((self.isolation.host_id(uid), self.isolation.host_id(gid)))
    }
}

/// Phases 1 and 2: the user namespace (strict isolation), the other namespaces, every
/// mount made private (or a slave, with a layer view), the hostname, the network.
fn namespaces(ctx: &Context<'_>, steps: &mut Vec<Step>) {
    let Context { spec, isolation, .. } = ctx;
    let isolation = *isolation;
    steps.push(Step::SetUmask { mask: 0o022 });
    if let Isolation::Strict { ids, .. } = isolation {
        steps.push(Step::CreateUserNamespace { ids });
    }
    steps.extend([
        Step::Unshare {
            namespaces: Namespaces {
                mount: true,
                uts: true,
                ipc: true,
                net: spec.net.is_own_namespace() && spec.netns.is_none(),
                cgroup: true,
            },
        },
        // With a layer view the host's mounts must keep reaching its copy until it is
        // bound into the new root; everything else is made private before that.
        match spec.layers {
            Some(_) => Step::MakeMountsSlave,
            None => Step::MakeMountsPrivate,
        },
        Step::SetHostname { name: spec.id.clone() },
    ]);
    // A namespace the daemon made has its loopback up already (`spare_netns.rs`): a
    // second bring-up would wait for the kernel's rtnl lock for nothing.
    match (spec.net.is_own_namespace(), &spec.netns) {
        (true, Some(path)) => steps.push(Step::JoinNetworkNamespace { path: path.clone() }),
        (true, None) => steps.push(Step::LoopbackUp),
        (false, _) => {}
    }
}

/// Phase 3: the state directories and the new root, an overlay whose upper layer is the
/// sandbox's own.
fn new_root(ctx: &Context<'_>, steps: &mut Vec<Step>) {
    let Context { state, root, isolation, root_owned, .. } = ctx;
    let (isolation, root_owned) = (*isolation, *root_owned);
    // A directory of the sandbox's own, owned by root inside.
    let own_dir = |path: PathBuf, mode: u32| Step::MakeDir { path, mode, owner: root_owned };
    // The root persists: an overlay over an empty lower layer whose upper layer is the
    // sandbox's own, so what it makes outside the shown directories (`/app`, `/workspace`)
    // outlives a restart and counts against its disk quota, as on E2B's disks. Every
    // mount point in it is made by a step that replaces whatever non-directory the
    // sandbox left there, before anything is mounted on it.
    if let Some(from) = isolation.shifted_from() {
        // Files another sandbox made (a fork's, a snapshot's, a template build's) are
        // owned by that sandbox's block. Seen through this mount they are this one's, and
        // what it makes is stored in that block: it runs in its own block without a pass
        // re-owning every file. First, so every later step reaches the directory through it.
        steps.push(Step::MountIdmapped {
            source: state.path().to_owned(),
            target: state.path().to_owned(),
            from: Some(from),
        });
    }
    let empty = state.path().join("empty");
    steps.extend([
        dir(state.rootfs(), 0o755),
        Step::Chdir { path: state.path().to_owned() },
        dir(empty.clone(), 0o755),
        own_dir(state.root_upper(), 0o755),
        dir(state.root_work(), 0o700),
        Step::MountOverlay {
            user_xattr: false,
            lower: relative(state, &empty),
            upper: Some(relative(state, &state.root_upper())),
            work: Some(relative(state, &state.root_work())),
            target: root.clone(),
            flags: MountFlags::NOSUID | MountFlags::NODEV,
        },
    ]);
}

/// Phase 4: the template's allow-list (overlays over idmapped copies of the host's
/// directories, symlinks, read-only files) and the account files.
fn allow_list(ctx: &Context<'_>, steps: &mut Vec<Step>) {
    let Context { spec, layout, state, root, isolation, root_owned, .. } = ctx;
    let (isolation, root_owned) = (*isolation, *root_owned);
    let at = |inside: &str| in_root(root, Path::new(inside));
    let owner = |uid: u32, gid: u32| ctx.owner(uid, gid);
    // A directory of the sandbox's own, owned by root inside.
    let own_dir = |path: PathBuf, mode: u32| Step::MakeDir { path, mode, owner: root_owned };
    let mut etc_shown = false;
    for path in shown_paths(spec) {
        let target = in_root(root, path);
        match layout.get(path) {
            HostEntry::Missing => continue,
            HostEntry::Symlink { target: link_target } => {
                steps.push(Step::Symlink { target: link_target.clone(), link: target })
            }
            HostEntry::File => steps.extend([
                Step::CreateFile { path: target.clone(), mode: 0o644 },
                Step::Bind { source: spec.template.source(path), target, read_only: true },
            ]),
            HostEntry::Dir { mode, uid, gid } => {
                let upper = state.upper(path);
                steps.push(Step::MakeDir {
                    path: upper.clone(),
                    mode: *mode,
                    owner: owner(*uid, *gid),
                });
                steps.push(dir(state.work(path), 0o700));
                if path == Path::new("/usr") && !layout.idmap() {
                    // Rootless: the host's directories are nobody's inside, and overlayfs
                    // cannot copy them up for root inside to write in. Where envd plants
                    // `sudo` and command aliases, and `npm -g` or `pip` install programs,
                    // the sandbox's root owns the directory (its upper layer's).
                    for sub in ["local", "local/bin", "local/lib", "local/share"] {
                        steps.push(Step::MakeDir {
                            path: upper.join(sub),
                            mode: 0o755,
                            owner: root_owned,
                        });
                    }
                }
                if path == Path::new("/etc") {
                    steps.extend(account_files(
                        &upper,
                        &spec.id,
                        false,
                        root_owned,
                        &spec.template,
                    ));
                    steps.extend(resolver_file(&upper, spec.net, root_owned));
                }
                let lower = match isolation {
                    Isolation::Strict { .. } if layout.idmap() => {
                        let staged = state.lower(path);
                        steps.extend([
                            dir(staged.clone(), 0o755),
                            Step::MountIdmapped {
                                source: spec.template.source(path),
                                target: staged.clone(),
                                from: None,
                            },
                        ]);
                        relative(state, &staged)
                    }
                    // Rootless: the host's files as they are (owned by ids the sandbox
                    // does not map, so nobody's inside; see `rootless.rs`).
                    Isolation::Strict { .. } | Isolation::Namespaces => spec.template.source(path),
                };
                steps.extend([
                    own_dir(target.clone(), 0o755),
                    Step::MountOverlay {
                        user_xattr: false,
                        lower,
                        upper: Some(relative(state, &upper)),
                        work: Some(relative(state, &state.work(path))),
                        target,
                        // With no_new_privs a setuid bit gives nothing; nosuid says so for
                        // every process, and nodev keeps device nodes inert here too.
                        flags: MountFlags::NOSUID | MountFlags::NODEV,
                    },
                ]);
            }
        }
        etc_shown |= path == Path::new("/etc");
    }
    if !etc_shown {
        // No host /etc: the account files live on the root's own layer.
        let etc = at("/etc");
        steps.push(own_dir(etc.clone(), 0o755));
        steps.extend(account_files(&etc, &spec.id, true, root_owned, &spec.template));
        steps.extend(resolver_file(&etc, spec.net, root_owned));
    }
}

/// Phase 5a: `/proc`, read-only `/sys` with the sandbox's cgroup, a minimal `/dev`, and
/// the tmpfs `/tmp` and `/run`.
fn system_mounts(ctx: &Context<'_>, views: &[(String, PathBuf)], steps: &mut Vec<Step>) {
    let Context { root, sizes, root_owned, .. } = ctx;
    let (sizes, root_owned) = (*sizes, *root_owned);
    let at = |inside: &str| in_root(root, Path::new(inside));
    // A directory of the sandbox's own, owned by root inside.
    let own_dir = |path: PathBuf, mode: u32| Step::MakeDir { path, mode, owner: root_owned };
    steps.extend([
        dir(at("/proc"), 0o555),
        Step::MountProc { target: at("/proc") },
        dir(at("/sys"), 0o555),
        Step::MountSysfs { target: at("/sys") },
    ]);
    let cgroup = at("/sys/fs/cgroup");
    match views {
        [(name, host)] if name.is_empty() => {
            steps.push(Step::Bind { source: host.clone(), target: cgroup, read_only: true });
        }
        [] => {}
        views => {
            // Owned by host root, so nothing inside may write to it (no mapped owner).
            steps.push(Step::MountTmpfs {
                target: cgroup.clone(),
                mode: 0o755,
                size: SMALL_TMPFS,
                flags: MountFlags::NOSUID | MountFlags::NODEV | MountFlags::NOEXEC,
                owner: None,
            });
            for (name, host) in views {
                let target = cgroup.join(name);
                steps.push(dir(target.clone(), 0o555));
                steps.push(Step::Bind { source: host.clone(), target, read_only: true });
            }
        }
    }
    steps.extend([
        dir(at("/dev"), 0o755),
        Step::MountTmpfs {
            target: at("/dev"),
            mode: 0o755,
            size: SMALL_TMPFS,
            // nodev: a device node made inside (mknod) opens nothing; the allowed devices
            // are bind mounts of the host's nodes, which keep their own flags.
            flags: MountFlags::NOSUID | MountFlags::NOEXEC | MountFlags::NODEV,
            owner: root_owned,
        },
    ]);
    for device in DEVICES {
        let host = Path::new("/dev").join(device);
        let target = in_root(root, &host);
        steps.extend([
            Step::CreateFile { path: target.clone(), mode: 0o666 },
            Step::Bind { source: host, target, read_only: false },
        ]);
    }
    steps.extend([
        own_dir(at("/dev/pts"), 0o755),
        Step::MountDevpts { target: at("/dev/pts") },
        symlink("pts/ptmx", at("/dev/ptmx")),
        own_dir(at("/dev/shm"), 0o1777),
        Step::MountTmpfs {
            target: at("/dev/shm"),
            mode: 0o1777,
            size: sizes.shm,
            flags: MountFlags::NOSUID | MountFlags::NODEV | MountFlags::NOEXEC,
            owner: root_owned,
        },
        symlink("/proc/self/fd", at("/dev/fd")),
        symlink("/proc/self/fd/0", at("/dev/stdin")),
        symlink("/proc/self/fd/1", at("/dev/stdout")),
        symlink("/proc/self/fd/2", at("/dev/stderr")),
        own_dir(at("/tmp"), 0o755),
        Step::MountTmpfs {
            target: at("/tmp"),
            mode: 0o1777,
            size: sizes.tmp,
            flags: MountFlags::NOSUID | MountFlags::NODEV,
            owner: root_owned,
        },
        own_dir(at("/run"), 0o755),
        Step::MountTmpfs {
            target: at("/run"),
            mode: 0o755,
            size: sizes.run,
            flags: MountFlags::NOSUID | MountFlags::NODEV,
            owner: root_owned,
        },
    ]);
}

/// Phase 5b: the persistent `/home`, `/root` and `/var`, and the payload binary at
/// [`PROGRAM_DIR`].
fn persistent_dirs_and_payload(ctx: &Context<'_>, steps: &mut Vec<Step>) {
    let Context { state, root, root_owned, .. } = ctx;
    let root_owned = *root_owned;
    let at = |inside: &str| in_root(root, Path::new(inside));
    let owner = |uid: u32, gid: u32| ctx.owner(uid, gid);
    // A directory of the sandbox's own, owned by root inside.
    let own_dir = |path: PathBuf, mode: u32| Step::MakeDir { path, mode, owner: root_owned };
    let empty = state.path().join("empty");
    // /home, /root and /var persist in the state directory. Each is an overlay over an
    // empty lower layer rather than a bind mount, which would show its host path in
    // mountinfo.
    let persistent = [
        ("/home", state.home(), 0o755),
        ("/root", state.root_home(), 0o700),
        ("/var", state.var(), 0o755),
    ];
    for (inside, upper, mode) in &persistent {
        steps.push(own_dir(upper.clone(), *mode));
        if *inside == "/home" {
            steps.push(Step::MakeDir {
                path: state.home().join("user"),
                mode: 0o755,
                owner: owner(users::USER_UID, users::USER_GID),
            });
        }
        if *inside == "/var" {
            steps.push(own_dir(state.var().join("tmp"), 0o1777));
        }
        let work = state.work(Path::new(inside));
        steps.extend([
            dir(work.clone(), 0o700),
            own_dir(at(inside), *mode),
            Step::MountOverlay {
                user_xattr: false,
                lower: relative(state, &empty),
                upper: Some(relative(state, upper)),
                work: Some(relative(state, &work)),
                target: at(inside),
                flags: MountFlags::NOSUID | MountFlags::NODEV,
            },
        ]);
    }

    steps.extend(ensure_parents(root, Path::new(PROGRAM_DIR), root_owned));
    steps.extend([
        own_dir(at(PROGRAM_DIR), 0o755),
        Step::MountOverlay {
            user_xattr: false,
            // A read-only overlay needs two lower layers.
            lower: PathBuf::from(format!(
                "{PROGRAM_LINK_DIR}:{}",
                relative(state, &empty).display()
            )),
            upper: None,
            work: None,
            target: at(PROGRAM_DIR),
            flags: MountFlags::RDONLY | MountFlags::NOSUID | MountFlags::NODEV,
        },
    ]);
}

/// Phase 5c: volumes, then Docker's masked and read-only paths (and host files only
/// their owner may read).
fn volumes_and_masks(ctx: &Context<'_>, steps: &mut Vec<Step>) -> Result<()> {
    let Context { spec, layout, root, isolation, root_owned, .. } = ctx;
    let (isolation, root_owned) = (*isolation, *root_owned);
    let at = |inside: &str| in_root(root, Path::new(inside));
    let owner = |uid: u32, gid: u32| ctx.owner(uid, gid);
    // A directory of the sandbox's own, owned by root inside.
    let own_dir = |path: PathBuf, mode: u32| Step::MakeDir { path, mode, owner: root_owned };
    for volume in &spec.volumes {
        let target = in_root(root, &volume.inside);
        steps.extend(ensure_parents(root, &volume.inside, root_owned));
        steps.push(own_dir(target.clone(), 0o755));
        steps.push(match isolation {
            Isolation::Strict { .. } if !layout.idmap() => {
                return Err(Error::RootlessUnsupported {
                    what: "volumes (shared by sandboxes of different id blocks through idmapped mounts)",
                });
            }
            Isolation::Strict { .. } => {
                Step::MountIdmapped { source: volume.source.clone(), target, from: volume.ids }
            }
            Isolation::Namespaces => {
                Step::Bind { source: volume.source.clone(), target, read_only: false }
            }
        });
    }
    let null = at("/dev/null");
    // Host files only their owner (or group) may read: root inside owns what host root
    // owns, so they are covered like Docker's masked paths.
    for private in layout.private() {
        let target = in_root(root, &private.path);
        steps.push(match private.is_dir {
            true => Step::MaskDir { target },
            false => Step::MaskFile { target, null: null.clone() },
        });
    }
    steps.extend(MASKED_DIRS.iter().map(|path| Step::MaskDir { target: at(path) }));
    steps.extend(
        MASKED_FILES.iter().map(|path| Step::MaskFile { target: at(path), null: null.clone() }),
    );
    steps.extend([
        Step::WriteFile {
            path: at(BOOT_ID_FILE),
            contents: Contents::RandomUuid,
            mode: 0o444,
            replace: true,
            owner: owner(0, 0),
        },
        Step::BindFile { source: at(BOOT_ID_FILE), target: at(BOOT_ID_INSIDE) },
    ]);
    steps.extend(READ_ONLY_PATHS.iter().map(|path| Step::ReadOnly { target: at(path) }));
    Ok(())
}

/// Phase 6: the layer view, `pivot_root` into the new root, overlays switched to user
/// xattrs when rootless, the rlimits.
fn enter_root(ctx: &Context<'_>, steps: &mut Vec<Step>) {
    let Context { spec, layout, root, root_owned, .. } = ctx;
    let root_owned = *root_owned;
    let at = |inside: &str| in_root(root, Path::new(inside));
    // A directory of the sandbox's own, owned by root inside.
    let own_dir = |path: PathBuf, mode: u32| Step::MakeDir { path, mode, owner: root_owned };
    if let Some(view) = &spec.layers {
        steps.extend([
            Step::MakeTreePrivate { target: root.clone() },
            own_dir(at(LAYERS_DIR), 0o755),
            Step::BindLayers { source: view.clone(), target: at(LAYERS_DIR) },
        ]);
    }
    steps.push(Step::PivotRoot { new_root: root.clone() });
    if !layout.idmap() {
        for step in steps.iter_mut() {
            if let Step::MountOverlay { upper: Some(_), user_xattr, .. } = step {
                *user_xattr = true;
            }
        }
    }

    for (resource, limit) in spec.limits.entries() {
        if let Some(limit) = limit {
            steps.push(Step::SetRlimit { resource, limit });
        }
    }
}

/// Size of the tmpfs that hold only mount points and links (`/dev`, the cgroup view).
pub const SMALL_TMPFS: u64 = 1 << 20;

/// How big each of a sandbox's memory-backed filesystems may grow. Their pages are
/// charged to the sandbox's memory cgroup too; the sizes make a full one an `ENOSPC`
/// inside instead of an OOM kill, and keep `/tmp` and `/dev/shm` together within the
/// sandbox's memory (the kernel's default is half the host's RAM for each).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TmpfsSizes {
    /// `/tmp`: half the memory.
    pub tmp: u64,
    /// `/dev/shm`: a quarter of the memory.
    pub shm: u64,
    /// `/run`: sockets and pid files.
    pub run: u64,
}

impl TmpfsSizes {
    /// The memory a sandbox gets when nothing says (the daemon always says).
    pub const UNLIMITED_MEMORY_STAND_IN: u64 = 2 << 30;

    pub fn for_memory(memory_bytes: Option<u64>) -> TmpfsSizes {
        let memory = memory_bytes.unwrap_or(Self::UNLIMITED_MEMORY_STAND_IN);
        TmpfsSizes {
            tmp: (memory / 2).max(16 << 20),
            shm: (memory / 4).max(16 << 20),
            run: 64 << 20,
        }
    }
}

/// [`Step::EnsureDir`] for every directory between the root and `inside` (an absolute
/// path inside the sandbox), outermost first.
fn ensure_parents(root: &Path, inside: &Path, owner: Option<(u32, u32)>) -> Vec<Step> {
    let mut parents: Vec<&Path> =
        inside.ancestors().skip(1).filter(|p| p.parent().is_some()).collect();
    parents.reverse();
    parents
        .into_iter()
        .map(|parent| Step::EnsureDir { path: in_root(root, parent), mode: 0o755, owner })
        .collect()
}

/// `path` relative to the state directory (it is always under it).
fn relative(state: &StateDir, path: &Path) -> PathBuf {
    path.strip_prefix(state.path()).map_or_else(|_| path.to_owned(), Path::to_owned)
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

/// With a private network, `resolv.conf` names pasta's DNS forwarder (the host's own
/// resolver is out of reach); rewritten at every start.
fn resolver_file(etc: &Path, net: Net, owner: Option<(u32, u32)>) -> Option<Step> {
    (net == Net::Private).then(|| Step::WriteFile {
        path: etc.join("resolv.conf"),
        contents: Contents::Text(format!("nameserver {}\n", crate::spec::private_net::DNS)),
        mode: 0o644,
        replace: true,
        owner,
    })
}

/// passwd, group, hostname and hosts in `etc`. `replace_all: false` keeps the files an
/// earlier run wrote (the sandbox may have added users); the hostname is always rewritten.
fn account_files(
    etc: &Path,
    id: &str,
    replace_all: bool,
    owner: Option<(u32, u32)>,
    template: &crate::template::Template,
) -> [Step; 4] {
    let file = |name: &str, contents: Contents, replace: bool| Step::WriteFile {
        path: etc.join(name),
        contents,
        mode: 0o644,
        replace,
        owner,
    };
    [
        // An image's account files are read inside its root: a link there (`etc/passwd ->
        // /etc/shadow`) must not read the host's.
        file(
            "passwd",
            Contents::PasswdWithUser { host: "/etc/passwd".into(), root: template.rootfs.clone() },
            replace_all,
        ),
        file(
            "group",
            Contents::GroupWithUser { host: "/etc/group".into(), root: template.rootfs.clone() },
            replace_all,
        ),
        file("hostname", Contents::Text(users::hostname(id)), true),
        file("hosts", Contents::Text(users::hosts(id)), replace_all),
    ]
}

#[cfg(test)]
mod tests;
