//! Per-sandbox cgroups: memory (+swap), pids and CPU limits, with accounting.
//!
//! Both cgroup versions are supported: v1 (one hierarchy per controller, e.g.
//! `/sys/fs/cgroup/memory`, possibly next to a controller-less cgroup2 at
//! `/sys/fs/cgroup/unified`) and v2 (one unified hierarchy at `/sys/fs/cgroup`).
//! [`Cgroups::probe`] finds the hierarchy once; every sandbox then lives in
//! `<the daemon's own cgroup>/<parent_name>/<sandbox id>` (one such directory per
//! controller on v1), so whatever limits systemd or a container runtime put on the daemon
//! keep covering its sandboxes, and a daemon given a delegated subtree stays inside it.
//!
//! The parsing of `/proc/self/mountinfo`, `/proc/self/cgroup` and the controller files is
//! kept in small pure functions (unit-tested below on exact strings); the rest writes the
//! cgroup files directly.

use std::fs;
use std::io::{self};
use std::path::{Path, PathBuf};
use std::thread;
use std::time::{Duration, Instant};

mod files;
mod limits;
mod probe;
mod types;
mod v2;

use files::*;
use limits::*;
use probe::*;
pub use types::{CgroupError, Resources, Usage, Version};
use types::{Dirs, POLL, Result, WAIT};
use v2::*;

/// The hierarchy the daemon puts sandboxes in, probed once.
#[derive(Debug, Clone)]
pub struct Cgroups {
    /// The parent directories (`<own cgroup>/<parent_name>`).
    parent: Dirs,
}

/// The cgroup of one sandbox.
#[derive(Debug, Clone)]
pub struct SandboxCgroup {
    name: String,
    /// `Err` holds why the name was refused by [`Cgroups::open`], which cannot fail itself:
    /// every operation then reports it instead of touching anything.
    dirs: Result<Dirs, &'static str>,
}

impl Cgroups {
    /// Probes /proc/self/mountinfo and /proc/self/cgroup. Sandboxes go under
    /// `<this process's own cgroup>/<parent_name>/` (per controller on v1); the parent
    /// directories are created here.
    ///
    /// On v2 the no-internal-processes rule applies: a cgroup other than the root can
    /// enable controllers for its children only while it has no processes itself. So if
    /// the own cgroup is not the root and has processes, every process in it (this one and
    /// whatever else shares the daemon's cgroup, e.g. the shell that started it) moves
    /// into the leaf `<own>/dsh-daemon` first; the own cgroup's limits keep covering them
    /// there. Then memory, pids and cpu are enabled in `<own>/cgroup.subtree_control` and
    /// in `<own>/<parent_name>/cgroup.subtree_control`. A later probe from inside
    /// `dsh-daemon` works on `<own>` again rather than nesting deeper.
    ///
    /// The daemon passes "dsh-sandboxes"; tests use their own names.
    pub fn probe(parent_name: &str) -> Result<Cgroups> {
        validate_name(parent_name)
            .map_err(|reason| CgroupError::InvalidName { name: parent_name.into(), reason })?;
        let mountinfo = read(Path::new("/proc/self/mountinfo"))?;
        let own = read(Path::new("/proc/self/cgroup"))?;
        let own = resolve(&parse_mountinfo(&mountinfo), &parse_proc_cgroup(&own))?;
        let parent = match own {
            Dirs::V1 { .. } => {
                let parent = own.join(parent_name);
                for dir in parent.distinct() {
                    mkdir(&dir)?;
                }
                parent
            }
            Dirs::V2(own) => Dirs::V2(prepare_v2(&own, parent_name)?),
        };
        Ok(Cgroups { parent })
    }

    /// Which hierarchy this process is in, changing nothing (for diagnostics: `dsh
    /// doctor`); [`Cgroups::probe`] then sets the daemon's part of it up.
    pub fn detect() -> Result<Version> {
        let mountinfo = read(Path::new("/proc/self/mountinfo"))?;
        let own = read(Path::new("/proc/self/cgroup"))?;
        Ok(match resolve(&parse_mountinfo(&mountinfo), &parse_proc_cgroup(&own))? {
            Dirs::V1 { .. } => Version::V1,
            Dirs::V2(_) => Version::V2,
        })
    }

    pub fn version(&self) -> Version {
        self.parent.version()
    }

    /// The parent directories the sandboxes are created in, for diagnostics and for
    /// tests that remove their own parent afterwards.
    pub fn paths(&self) -> Vec<PathBuf> {
        self.parent.distinct()
    }

    /// Creates (or reuses, after a daemon restart) the sandbox's cgroup and writes every
    /// limit; a None limit is written as "max"/-1 so that a reused cgroup loses old limits.
    ///
    /// v1: memory.limit_in_bytes, memory.memsw.limit_in_bytes (memory + swap; written
    /// after the memory limit because the kernel keeps memsw >= memory), pids.max,
    /// cpu.cfs_period_us = 100000 and cpu.cfs_quota_us. v2: memory.max,
    /// memory.swap.max, pids.max and cpu.max ("quota 100000"). Swap limits are skipped
    /// where the kernel does not account swap (see [`Resources::swap_bytes`]).
    ///
    /// A name that is taken by a cgroup interface file (v1's `tasks`, or names with a dot
    /// such as `cgroup.procs`) is refused with [`CgroupError::InvalidName`].
    pub fn create(&self, name: &str, resources: &Resources) -> Result<SandboxCgroup> {
        validate_name(name)
            .map_err(|reason| CgroupError::InvalidName { name: name.into(), reason })?;
        let quota = cpu_quota_us(resources.cpu_millis)?;
        let dirs = self.parent.join(name);
        let mut created = Vec::new();
        let mut result = Ok(());
        for dir in dirs.distinct() {
            match mkdir(&dir) {
                Ok(true) => created.push(dir.clone()),
                Ok(false) => {}
                Err(err) => {
                    result = Err(err);
                    break;
                }
            }
            if !dir.is_dir() {
                result = Err(CgroupError::InvalidName {
                    name: name.into(),
                    reason: "is the name of a cgroup interface file",
                });
                break;
            }
        }
        if result.is_ok() {
            result = match &dirs {
                Dirs::V1 { memory, pids, cpu, .. } => write_v1(memory, pids, cpu, resources, quota),
                Dirs::V2(dir) => write_v2(dir, resources, quota),
            };
        }
        if let Err(err) = result {
            // A half-configured fresh cgroup must not be mistaken for a reusable one later.
            for dir in created {
                let _ = fs::remove_dir(dir);
            }
            return Err(err);
        }
        Ok(SandboxCgroup { name: name.into(), dirs: Ok(dirs) })
    }

    /// Whether sandboxes' cgroups are cgroup v1's (one hierarchy per controller), where a
    /// single thread may be moved into a cgroup on its own (see `launch.rs`'s staging).
    pub fn is_v1(&self) -> bool {
        matches!(self.parent, Dirs::V1 { .. })
    }

    /// Removes the empty cgroups named `<prefix>...` a daemon that died left (a staged
    /// cgroup whose thread went with it); one still in use is left.
    pub fn remove_stale(&self, prefix: &str) {
        for parent in self.parent.distinct() {
            let Ok(entries) = fs::read_dir(&parent) else { continue };
            for entry in entries.flatten() {
                if entry.file_name().to_string_lossy().starts_with(prefix) {
                    let _ = fs::remove_dir(entry.path());
                }
            }
        }
    }

    /// The cgroup of an existing sandbox (no writes), e.g. to remove a leftover after a
    /// restart. An invalid name gives a handle whose every operation fails with
    /// [`CgroupError::InvalidName`].
    pub fn open(&self, name: &str) -> SandboxCgroup {
        SandboxCgroup {
            name: name.into(),
            dirs: validate_name(name).map(|()| self.parent.join(name)),
        }
    }
}

impl SandboxCgroup {
    /// Moves a process (and so its future children) into the cgroup: writes the pid to
    /// cgroup.procs of every directory.
    pub fn add(&self, pid: u32) -> Result<()> {
        for dir in self.dirs()?.distinct() {
            write(&dir.join("cgroup.procs"), &pid.to_string())?;
        }
        Ok(())
    }

    pub fn usage(&self) -> Result<Usage> {
        match self.dirs()? {
            Dirs::V1 { memory, pids, cpuacct, .. } => {
                let limit_file = memory.join("memory.limit_in_bytes");
                let oom_file = memory.join("memory.oom_control");
                Ok(Usage {
                    memory_bytes: read_u64(&memory.join("memory.usage_in_bytes"))?,
                    memory_cache_bytes: keyed_value(&read(&memory.join("memory.stat"))?, "cache")
                        .unwrap_or(0),
                    memory_limit_bytes: parse_v1_limit(&read(&limit_file)?)
                        .map_err(|reason| CgroupError::Parse { path: limit_file, reason })?,
                    cpu_usage_usec: read_u64(&cpuacct.join("cpuacct.usage"))? / 1000,
                    pids: read_u64(&pids.join("pids.current"))?,
                    // Kernels before 4.13 have no oom_kill line: no count to report.
                    oom_kills: keyed_value(&read(&oom_file)?, "oom_kill").unwrap_or(0),
                })
            }
            Dirs::V2(dir) => {
                let max_file = dir.join("memory.max");
                let stat_file = dir.join("cpu.stat");
                let cpu_usage_usec =
                    keyed_value(&read(&stat_file)?, "usage_usec").ok_or_else(|| {
                        CgroupError::Parse { path: stat_file, reason: "no usage_usec line".into() }
                    })?;
                Ok(Usage {
                    memory_bytes: read_u64(&dir.join("memory.current"))?,
                    memory_cache_bytes: keyed_value(&read(&dir.join("memory.stat"))?, "file")
                        .unwrap_or(0),
                    memory_limit_bytes: parse_v2_max(&read(&max_file)?)
                        .map_err(|reason| CgroupError::Parse { path: max_file, reason })?,
                    cpu_usage_usec,
                    pids: read_u64(&dir.join("pids.current"))?,
                    oom_kills: keyed_value(&read(&dir.join("memory.events"))?, "oom_kill")
                        .unwrap_or(0),
                })
            }
        }
    }

    /// Sends SIGKILL to every process in it (and in any cgroup below it) once, without
    /// waiting for them to go: none runs any more of its code. v2's cgroup.kill also takes
    /// a process forked meanwhile; on v1 such a child is missed here (the sandbox's init
    /// dying takes it with its pid namespace). Frozen processes are thawed to die.
    pub fn signal_kill(&self) -> Result<()> {
        let dirs = self.dirs()?.distinct();
        if let [dir] = dirs.as_slice() {
            let kill = dir.join("cgroup.kill");
            if kill.exists() {
                return match write(&kill, "1") {
                    Err(CgroupError::Io { source, .. })
                        if source.kind() == io::ErrorKind::NotFound =>
                    {
                        Ok(())
                    }
                    other => other,
                };
            }
        }
        kill_members(&dirs, &all_pids(&dirs)?)?;
        if matches!(self.dirs()?, Dirs::V1 { freezer: Some(_), .. } | Dirs::V2(_)) {
            let _ = self.thaw();
        }
        Ok(())
    }

    /// Kills every process in it (and in any cgroup below it) and waits, bounded, until
    /// they have left it. v2 uses cgroup.kill when the kernel has it (5.14+), which cannot
    /// miss a process forking concurrently; otherwise every pid in cgroup.procs gets
    /// SIGKILL, repeatedly, until none is left. A missing cgroup has nothing to kill.
    pub fn kill_all(&self) -> Result<()> {
        let dirs = self.dirs()?.distinct();
        if let [dir] = dirs.as_slice() {
            let kill = dir.join("cgroup.kill");
            if kill.exists() {
                match write(&kill, "1") {
                    Err(CgroupError::Io { source, .. })
                        if source.kind() == io::ErrorKind::NotFound => {}
                    other => other?,
                }
            }
        }
        let deadline = Instant::now() + WAIT;
        loop {
            let pids = all_pids(&dirs)?;
            if pids.is_empty() {
                return Ok(());
            }
            if Instant::now() >= deadline {
                let path = dirs.first().cloned().unwrap_or_default();
                return Err(CgroupError::Unkillable { path, pids: pids.into_iter().collect() });
            }
            kill_members(&dirs, &pids)?;
            // Frozen processes (a sandbox paused with its memory) die only once thawed:
            // thawed after the signal, they exit before running any more of their code.
            if matches!(self.dirs()?, Dirs::V1 { freezer: Some(_), .. } | Dirs::V2(_)) {
                let _ = self.thaw();
            }
            thread::sleep(POLL);
        }
    }

    /// Freezes every process of the cgroup where it stands (their memory stays; they use no
    /// CPU) and waits until the kernel says all are frozen. v1 needs the freezer
    /// hierarchy ([`CgroupError::MissingControllers`] without it); v2 has `cgroup.freeze`.
    pub fn freeze(&self) -> Result<()> {
        self.set_frozen(true)
    }

    /// Lets the processes of a frozen cgroup run again (a cgroup not frozen is left as is).
    pub fn thaw(&self) -> Result<()> {
        self.set_frozen(false)
    }

    fn set_frozen(&self, frozen: bool) -> Result<()> {
        let (control, value, state, done) = match self.dirs()? {
            Dirs::V1 { freezer: Some(dir), .. } => {
                let value = if frozen { "FROZEN" } else { "THAWED" };
                (dir.join("freezer.state"), value, dir.join("freezer.state"), value.to_owned())
            }
            Dirs::V1 { freezer: None, .. } => {
                return Err(CgroupError::MissingControllers {
                    version: Version::V1,
                    missing: vec!["freezer"],
                    hint: "mount cgroup v1's freezer (`mount -t cgroup -o freezer cgroup \
                           /sys/fs/cgroup/freezer`) for pauses that keep memory"
                        .into(),
                });
            }
            Dirs::V2(dir) => {
                let value = if frozen { "1" } else { "0" };
                (
                    dir.join("cgroup.freeze"),
                    value,
                    dir.join("cgroup.events"),
                    format!("frozen {value}"),
                )
            }
        };
        write(&control, value)?;
        let deadline = Instant::now() + WAIT;
        loop {
            let now = read(&state)?;
            if now.lines().any(|line| line.trim() == done) {
                return Ok(());
            }
            if Instant::now() >= deadline {
                return Err(io_error(
                    if frozen { "freezing" } else { "thawing" },
                    &control,
                    io::Error::new(
                        io::ErrorKind::TimedOut,
                        format!("still {:?} after {WAIT:?}", now.trim()),
                    ),
                ));
            }
            // Usually done within a millisecond: pauses and resumes wait on this.
            thread::sleep(Duration::from_millis(1));
        }
    }

    /// Removes the directories (and any cgroups created below them), waiting up to 2 s in
    /// all for the kernel to let killed tasks go (rmdir fails with EBUSY until then).
    /// Missing directories are fine, so removing twice succeeds.
    /// Moves the calling thread, alone, into it: cgroup v1 only, where each thread has
    /// cgroups of its own (v2 keeps a process's threads together, and has
    /// `CLONE_INTO_CGROUP` instead). A process the thread clones then starts in it.
    pub fn add_current_thread(&self) -> Result<()> {
        let Dirs::V1 { .. } = self.dirs()? else {
            return Err(CgroupError::MissingControllers {
                version: Version::V2,
                missing: vec!["per-thread cgroups"],
                hint: "only cgroup v1 moves a single thread".into(),
            });
        };
        // SAFETY: gettid has no arguments and cannot fail.
        let tid = unsafe { libc::gettid() }.to_string();
        for dir in self.dirs()?.distinct() {
            write(&dir.join("tasks"), &tid)?;
        }
        Ok(())
    }

    /// Renames it to `name` in every hierarchy and sets `resources`: a staged cgroup
    /// becoming a sandbox's.
    pub fn rename_with(&self, name: &str, resources: &Resources) -> Result<SandboxCgroup> {
        validate_name(name)
            .map_err(|reason| CgroupError::InvalidName { name: name.into(), reason })?;
        let quota = cpu_quota_us(resources.cpu_millis)?;
        let from = self.dirs()?.clone();
        let to = from.renamed(name);
        for (old, new) in from.distinct().into_iter().zip(to.distinct()) {
            fs::rename(&old, &new).map_err(|e| io_error(format!("rename to {name:?}"), &old, e))?;
        }
        match &to {
            Dirs::V1 { memory, pids, cpu, .. } => write_v1(memory, pids, cpu, resources, quota)?,
            Dirs::V2(dir) => write_v2(dir, resources, quota)?,
        }
        Ok(SandboxCgroup { name: name.into(), dirs: Ok(to) })
    }

    pub fn remove(&self) -> Result<()> {
        let deadline = Instant::now() + WAIT;
        for dir in self.dirs()?.distinct() {
            remove_tree(&dir, deadline).map_err(|err| match err {
                CgroupError::Io { source, .. } if source.raw_os_error() == Some(libc::ENOTDIR) => {
                    CgroupError::InvalidName {
                        name: self.name.clone(),
                        reason: "is the name of a cgroup interface file",
                    }
                }
                other => other,
            })?;
        }
        Ok(())
    }

    /// Directories, for diagnostics and tests (empty for a refused name).
    pub fn paths(&self) -> Vec<PathBuf> {
        self.dirs.as_ref().map(Dirs::distinct).unwrap_or_default()
    }

    /// How the sandbox sees its own cgroup, read-only under `/sys/fs/cgroup`: (the name
    /// under it, the host directory). On v2 the cgroup itself is `/sys/fs/cgroup` (name
    /// ""); on v1 each controller has its directory, as in a container.
    pub fn views(&self) -> Vec<(String, PathBuf)> {
        match &self.dirs {
            Ok(Dirs::V1 { memory, pids, cpu, cpuacct, .. }) => {
                [("memory", memory), ("pids", pids), ("cpu", cpu), ("cpuacct", cpuacct)]
                    .into_iter()
                    .map(|(name, dir)| (name.to_owned(), dir.clone()))
                    .collect()
            }
            Ok(Dirs::V2(dir)) => vec![(String::new(), dir.clone())],
            Err(_) => Vec::new(),
        }
    }

    fn dirs(&self) -> Result<&Dirs> {
        self.dirs
            .as_ref()
            .map_err(|&reason| CgroupError::InvalidName { name: self.name.clone(), reason })
    }
}

/// A sandbox id must never escape the parent directory, nor name something odd in it.
fn validate_name(name: &str) -> Result<(), &'static str> {
    if name.is_empty() {
        return Err("is empty");
    }
    if name == "." || name == ".." {
        return Err("is . or ..");
    }
    if name.len() > 255 {
        return Err("is longer than 255 bytes");
    }
    if !name.bytes().all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'-')) {
        return Err("may only contain A-Z, a-z, 0-9, '.', '_' and '-'");
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::types::{DAEMON_LEAF, V2_CONTROLLERS};
    use super::*;

    /// This machine: a tmpfs at /sys/fs/cgroup with one v1 hierarchy per controller
    /// (cpu and cpuacct mounted separately), a name=systemd hierarchy and a
    /// controller-less cgroup2 at /sys/fs/cgroup/unified.
    const HYBRID_MOUNTINFO: &str = "\
22 27 0:21 / /proc rw,relatime - proc proc rw
23 27 0:22 / /sys rw,relatime - sysfs sysfs rw
27 1 254:0 / / rw,relatime - ext4 /dev/vda rw,discard
31 23 0:28 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755
32 31 0:29 / /sys/fs/cgroup/cpu rw,relatime - cgroup cgroup rw,cpu
33 31 0:30 / /sys/fs/cgroup/cpuacct rw,relatime - cgroup cgroup rw,cpuacct
34 31 0:31 / /sys/fs/cgroup/cpuset rw,relatime - cgroup cgroup rw,cpuset
35 31 0:32 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory
36 31 0:33 / /sys/fs/cgroup/devices rw,relatime - cgroup cgroup rw,devices
37 31 0:34 / /sys/fs/cgroup/freezer rw,relatime - cgroup cgroup rw,freezer
38 31 0:35 / /sys/fs/cgroup/blkio rw,relatime - cgroup cgroup rw,blkio
39 31 0:36 / /sys/fs/cgroup/pids rw,relatime - cgroup cgroup rw,pids
40 31 0:37 / /sys/fs/cgroup/systemd rw,relatime - cgroup cgroup rw,name=systemd
41 31 0:38 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw
";

    const HYBRID_CGROUP: &str = "\
9:name=systemd:/
8:pids:/
7:blkio:/
6:freezer:/
5:devices:/
4:memory:/process_api/ab476d4ddbac95a5d6670a5419617675
3:cpuset:/
2:cpuacct:/
1:cpu:/
0::/
";

    /// A current distribution: cgroup2 alone at /sys/fs/cgroup (systemd's layout).
    const UNIFIED_MOUNTINFO: &str = "\
24 31 0:22 / /sys rw,nosuid,nodev,noexec,relatime shared:7 - sysfs sysfs rw
35 24 0:30 / /sys/fs/cgroup rw,nosuid,nodev,noexec,relatime shared:9 - cgroup2 cgroup2 rw,nsdelegate,memory_recursiveprot
";

    fn mount(root: &str, mount_point: &str, v2: bool, options: &str) -> CgroupMount {
        CgroupMount {
            root: root.into(),
            mount_point: mount_point.into(),
            v2,
            options: options.split(',').map(String::from).collect(),
        }
    }

    #[test]
    fn mountinfo_of_the_hybrid_layout_lists_only_cgroup_mounts() {
        let mounts = parse_mountinfo(HYBRID_MOUNTINFO);
        assert_eq!(mounts.len(), 10);
        assert_eq!(mounts[0], mount("/", "/sys/fs/cgroup/cpu", false, "rw,cpu"));
        assert_eq!(mounts[1], mount("/", "/sys/fs/cgroup/cpuacct", false, "rw,cpuacct"));
        assert_eq!(mounts[8], mount("/", "/sys/fs/cgroup/systemd", false, "rw,name=systemd"));
        assert_eq!(mounts[9], mount("/", "/sys/fs/cgroup/unified", true, "rw"));
    }

    #[test]
    fn mountinfo_with_optional_fields_escapes_and_a_subtree_root() {
        let text = "\
35 24 0:30 / /sys/fs/cgroup rw,nosuid shared:9 master:2 - cgroup2 cgroup2 rw,nsdelegate
50 35 0:31 /docker/abc /mnt/my\\040cgroups rw - cgroup cgroup rw,cpu,cpuacct
";
        assert_eq!(
            parse_mountinfo(text),
            vec![
                mount("/", "/sys/fs/cgroup", true, "rw,nsdelegate"),
                mount("/docker/abc", "/mnt/my cgroups", false, "rw,cpu,cpuacct"),
            ]
        );
    }

    #[test]
    fn proc_cgroup_lines() {
        let lines = parse_proc_cgroup("4:cpu,cpuacct:/a:b\n1:name=systemd:/x\n0::/user.slice\n");
        assert_eq!(
            lines,
            vec![
                ProcCgroup {
                    hierarchy: 4,
                    controllers: vec!["cpu".into(), "cpuacct".into()],
                    path: "/a:b".into(),
                },
                ProcCgroup {
                    hierarchy: 1,
                    controllers: vec!["name=systemd".into()],
                    path: "/x".into(),
                },
                ProcCgroup { hierarchy: 0, controllers: vec![], path: "/user.slice".into() },
            ]
        );
    }

    #[test]
    fn the_hybrid_layout_is_v1_with_one_directory_per_controller() {
        let dirs =
            resolve(&parse_mountinfo(HYBRID_MOUNTINFO), &parse_proc_cgroup(HYBRID_CGROUP)).unwrap();
        assert_eq!(
            dirs,
            Dirs::V1 {
                memory: "/sys/fs/cgroup/memory/process_api/ab476d4ddbac95a5d6670a5419617675".into(),
                pids: "/sys/fs/cgroup/pids".into(),
                cpu: "/sys/fs/cgroup/cpu".into(),
                cpuacct: "/sys/fs/cgroup/cpuacct".into(),
                freezer: Some("/sys/fs/cgroup/freezer".into()),
            }
        );
        let sandbox = dirs.join("dsh-sandboxes").join("s1");
        assert_eq!(sandbox.version(), Version::V1);
        assert_eq!(
            sandbox.distinct(),
            vec![
                PathBuf::from(
                    "/sys/fs/cgroup/memory/process_api/ab476d4ddbac95a5d6670a5419617675/dsh-sandboxes/s1"
                ),
                PathBuf::from("/sys/fs/cgroup/pids/dsh-sandboxes/s1"),
                PathBuf::from("/sys/fs/cgroup/cpu/dsh-sandboxes/s1"),
                PathBuf::from("/sys/fs/cgroup/cpuacct/dsh-sandboxes/s1"),
                PathBuf::from("/sys/fs/cgroup/freezer/dsh-sandboxes/s1"),
            ]
        );
    }

    #[test]
    fn co_mounted_cpu_and_cpuacct_share_one_directory() {
        let mounts = parse_mountinfo(
            "\
1 0 0:1 / /sys/fs/cgroup/memory rw - cgroup cgroup rw,memory
2 0 0:2 / /sys/fs/cgroup/pids rw - cgroup cgroup rw,pids
3 0 0:3 / /sys/fs/cgroup/cpu,cpuacct rw - cgroup cgroup rw,cpu,cpuacct
",
        );
        let own = parse_proc_cgroup("3:cpu,cpuacct:/svc\n2:pids:/svc\n1:memory:/svc\n");
        let dirs = resolve(&mounts, &own).unwrap();
        assert_eq!(
            dirs.distinct(),
            vec![
                PathBuf::from("/sys/fs/cgroup/memory/svc"),
                PathBuf::from("/sys/fs/cgroup/pids/svc"),
                PathBuf::from("/sys/fs/cgroup/cpu,cpuacct/svc"),
            ]
        );
    }

    #[test]
    fn pure_cgroup2_is_v2() {
        let own = parse_proc_cgroup("0::/system.slice/dsh.service\n");
        assert_eq!(
            resolve(&parse_mountinfo(UNIFIED_MOUNTINFO), &own).unwrap(),
            Dirs::V2("/sys/fs/cgroup/system.slice/dsh.service".into())
        );
        let root = parse_proc_cgroup("0::/\n");
        assert_eq!(
            resolve(&parse_mountinfo(UNIFIED_MOUNTINFO), &root).unwrap(),
            Dirs::V2("/sys/fs/cgroup".into())
        );
    }

    #[test]
    fn a_named_v1_hierarchy_next_to_cgroup2_is_still_v2() {
        let mounts = parse_mountinfo(&format!(
            "{UNIFIED_MOUNTINFO}40 35 0:37 / /sys/fs/cgroup/systemd rw - cgroup cgroup rw,name=systemd\n"
        ));
        let own = parse_proc_cgroup("1:name=systemd:/x\n0::/x\n");
        assert_eq!(resolve(&mounts, &own).unwrap(), Dirs::V2("/sys/fs/cgroup/x".into()));
    }

    #[test]
    fn a_cgroup_below_the_mounted_subtree_is_found_and_one_outside_is_refused() {
        let mounts = [mount("/docker/abc", "/sys/fs/cgroup", true, "rw")];
        let mounts: Vec<&CgroupMount> = mounts.iter().collect();
        assert_eq!(
            locate(&mounts, Path::new("/docker/abc/inner"), "cgroup v2").unwrap(),
            PathBuf::from("/sys/fs/cgroup/inner")
        );
        let err = locate(&mounts, Path::new("/other"), "cgroup v2").unwrap_err();
        assert!(err.to_string().contains("is not visible under any mount"), "{err}");
        let root = [mount("/", "/sys/fs/cgroup", true, "rw")];
        let root: Vec<&CgroupMount> = root.iter().collect();
        assert!(locate(&root, Path::new("/../../elsewhere"), "cgroup v2").is_err());
    }

    #[test]
    fn missing_v1_controllers_are_named_with_what_to_do() {
        let mounts = parse_mountinfo(
            "1 0 0:1 / /sys/fs/cgroup/cpu rw - cgroup cgroup rw,cpu,cpuacct\n\
             2 0 0:2 / /sys/fs/cgroup/unified rw - cgroup2 cgroup2 rw\n",
        );
        let own = parse_proc_cgroup("1:cpu,cpuacct:/\n0::/\n");
        let err = resolve(&mounts, &own).unwrap_err();
        assert_eq!(
            err.to_string(),
            "no memory and pids controllers: mount cgroup v1's memory and pids controllers \
             (`mount -t cgroup -o NAME cgroup /sys/fs/cgroup/NAME` for each; check /proc/cgroups \
             that the kernel has them) or boot with cgroup v2 (systemd.unified_cgroup_hierarchy=1)"
        );
        assert!(
            matches!(err, CgroupError::MissingControllers { missing, .. } if missing == ["memory", "pids"])
        );
    }

    #[test]
    fn nothing_mounted() {
        assert!(matches!(resolve(&[], &[]), Err(CgroupError::NotMounted)));
    }

    #[test]
    fn names_stay_one_plain_component() {
        for good in ["s1", "a.b_c-D", "x".repeat(255).as_str()] {
            assert_eq!(validate_name(good), Ok(()), "{good}");
        }
        for bad in ["", ".", "..", "../x", "a/b", "/abs", "a b", "a\nb", "é", &"x".repeat(256)] {
            assert!(validate_name(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn cpu_quota_formatting() {
        assert_eq!(cpu_quota_us(None).unwrap(), None);
        assert_eq!(cpu_quota_us(Some(200)).unwrap(), Some(20_000));
        assert_eq!(cpu_quota_us(Some(1000)).unwrap(), Some(100_000));
        assert_eq!(cpu_quota_us(Some(10)).unwrap(), Some(1_000));
        assert_eq!(cpu_quota_us(Some(2500)).unwrap(), Some(250_000));
        assert!(matches!(cpu_quota_us(Some(9)), Err(CgroupError::InvalidLimit { value: 9, .. })));
        assert!(cpu_quota_us(Some(0)).is_err());
        assert!(cpu_quota_us(Some(u64::MAX)).is_err());
        assert_eq!(cpu_max_v2(Some(20_000)), "20000 100000");
        assert_eq!(cpu_max_v2(None), "max 100000");
    }

    #[test]
    fn limit_spellings() {
        assert_eq!(v1_limit(None), "-1");
        assert_eq!(v1_limit(Some(64 << 20)), "67108864");
        assert_eq!(max_limit(None), "max");
        assert_eq!(max_limit(Some(10)), "10");
        let r = |memory_bytes, swap_bytes| Resources {
            memory_bytes,
            swap_bytes,
            ..Resources::default()
        };
        assert_eq!(v1_memsw_limit(&r(Some(100), Some(0))), Some(100));
        assert_eq!(v1_memsw_limit(&r(Some(100), Some(50))), Some(150));
        assert_eq!(v1_memsw_limit(&r(Some(100), None)), None);
        assert_eq!(v1_memsw_limit(&r(None, Some(50))), None);
        assert_eq!(v1_memsw_limit(&r(Some(u64::MAX), Some(1))), Some(u64::MAX));
    }

    #[test]
    fn memory_oom_control_v1() {
        let text = "oom_kill_disable 0\nunder_oom 0\noom_kill 3\n";
        assert_eq!(keyed_value(text, "oom_kill"), Some(3));
        assert_eq!(keyed_value("oom_kill_disable 0\nunder_oom 0\n", "oom_kill"), None);
    }

    #[test]
    fn memory_events_v2() {
        let text = "low 0\nhigh 0\nmax 17\noom 2\noom_kill 1\noom_group_kill 0\n";
        assert_eq!(keyed_value(text, "oom_kill"), Some(1));
        assert_eq!(keyed_value(text, "oom"), Some(2));
    }

    #[test]
    fn cpu_stat_v2() {
        let text = "usage_usec 201839\nuser_usec 200000\nsystem_usec 1839\nnr_periods 10\n\
                    nr_throttled 9\nthrottled_usec 790012\n";
        assert_eq!(keyed_value(text, "usage_usec"), Some(201_839));
    }

    #[test]
    fn limits_read_back() {
        assert_eq!(parse_v1_limit("9223372036854771712\n"), Ok(None));
        assert_eq!(parse_v1_limit("9223372036854710272\n"), Ok(None));
        assert_eq!(parse_v1_limit("67108864\n"), Ok(Some(64 << 20)));
        assert!(parse_v1_limit("max\n").is_err());
        assert_eq!(parse_v2_max("max\n"), Ok(None));
        assert_eq!(parse_v2_max("67108864\n"), Ok(Some(64 << 20)));
        assert!(parse_v2_max("\n").is_err());
    }

    #[test]
    fn v2_controller_lines() {
        assert_eq!(missing_controllers("cpuset cpu io memory pids\n", &V2_CONTROLLERS), [""; 0]);
        assert_eq!(missing_controllers("cpu io\n", &V2_CONTROLLERS), ["memory", "pids"]);
        assert_eq!(missing_controllers("", &V2_CONTROLLERS), ["memory", "pids", "cpu"]);
        assert_eq!(subtree_control_line(&["memory", "cpu"]), "+memory +cpu");
    }

    #[test]
    fn a_daemon_already_in_its_leaf_works_on_the_cgroup_above() {
        assert_eq!(
            v2_base(Path::new("/sys/fs/cgroup/svc/dsh-daemon")),
            Path::new("/sys/fs/cgroup/svc")
        );
        assert_eq!(v2_base(Path::new("/sys/fs/cgroup/svc")), Path::new("/sys/fs/cgroup/svc"));
    }

    #[test]
    fn an_invalid_open_touches_nothing() {
        let cgroups = Cgroups { parent: Dirs::V2("/nonexistent/parent".into()) };
        let sandbox = cgroups.open("../x");
        assert!(sandbox.paths().is_empty());
        assert!(matches!(sandbox.add(1), Err(CgroupError::InvalidName { .. })));
        assert!(matches!(sandbox.remove(), Err(CgroupError::InvalidName { .. })));
        assert!(matches!(sandbox.kill_all(), Err(CgroupError::InvalidName { .. })));
        assert!(matches!(
            cgroups.create("a/b", &Resources::default()),
            Err(CgroupError::InvalidName { .. })
        ));
    }

    #[test]
    fn error_messages_say_what_to_do() {
        let err = CgroupError::MissingControllers {
            version: Version::V1,
            missing: vec!["memory"],
            hint: "mount it".into(),
        };
        assert_eq!(err.to_string(), "no memory controller: mount it");
        let err = io_error(
            "write \"1\" to",
            Path::new("/sys/fs/cgroup/x/cgroup.kill"),
            io::Error::from_raw_os_error(libc::EROFS),
        );
        assert!(
            err.to_string().starts_with("write \"1\" to /sys/fs/cgroup/x/cgroup.kill: "),
            "{err}"
        );
        assert!(err.to_string().contains("mounted read-only"), "{err}");
    }

    /// The v2 code paths that need no controllers (moving processes, cgroup.kill,
    /// removal, the missing-controller error), on a hybrid host's controller-less cgroup2,
    /// where no cgroup limits anything. Skipped elsewhere: on a real v2 host the
    /// integration tests (tests/cgroups.rs of this crate) run all of it.
    #[test]
    fn v2_paths_on_a_controller_less_cgroup2() {
        let mountinfo = fs::read_to_string("/proc/self/mountinfo").unwrap();
        let Some(unified) = parse_mountinfo(&mountinfo)
            .into_iter()
            .find(|m| m.v2 && m.root == Path::new("/"))
            .map(|m| m.mount_point)
            .filter(|dir| {
                let controllers = fs::read_to_string(dir.join("cgroup.controllers"));
                controllers.is_ok_and(|c| !c.split_whitespace().any(|c| c == "memory"))
            })
            .filter(|_| rustix::process::geteuid().is_root())
        else {
            eprintln!("skipped: needs root and a cgroup2 mount without controllers");
            return;
        };
        struct Cleanup(PathBuf, Vec<std::process::Child>);
        impl Drop for Cleanup {
            fn drop(&mut self) {
                for child in &mut self.1 {
                    let _ = child.kill();
                    let _ = child.wait();
                }
                let _ = remove_tree(&self.0, Instant::now() + WAIT);
            }
        }
        let base = unified.join(format!("dsh-unit-{}", std::process::id()));
        fs::create_dir(&base).unwrap();
        let mut cleanup = Cleanup(base.clone(), Vec::new());
        if !base.join("cgroup.kill").exists() {
            eprintln!("skipped: the kernel has no cgroup.kill");
            return;
        }

        // Its root is the real root (no cgroup namespace), so sandboxes would go right under
        // it; on this hybrid host it offers no controllers at all, which the error says.
        let err = prepare_v2(&base, "p").unwrap_err();
        assert_eq!(
            err.to_string(),
            "no memory, pids and cpu controllers: the kernel does not offer them at the cgroup v2 root: check /proc/cgroups and the kernel command line (cgroup_disable=, cgroup_no_v1=)"
        );

        let sleeper = || std::process::Command::new("sleep").arg("30").spawn().unwrap();
        cleanup.1.push(sleeper());
        write(&base.join("cgroup.procs"), &cleanup.1[0].id().to_string()).unwrap();
        let leaf = base.join(DAEMON_LEAF);
        mkdir(&leaf).unwrap();
        move_processes(&base, &leaf).unwrap();
        assert_eq!(read_pids(&base.join("cgroup.procs")).unwrap(), Vec::<u32>::new());
        assert_eq!(read_pids(&leaf.join("cgroup.procs")).unwrap(), [cleanup.1[0].id()]);
        assert_eq!(v2_base(&leaf), base);

        let sandbox = SandboxCgroup { name: DAEMON_LEAF.into(), dirs: Ok(Dirs::V2(leaf.clone())) };
        cleanup.1.push(sleeper());
        sandbox.add(cleanup.1[1].id()).unwrap();
        assert_eq!(all_pids(&sandbox.paths()).unwrap().len(), 2);
        sandbox.kill_all().unwrap();
        for child in &mut cleanup.1 {
            use std::os::unix::process::ExitStatusExt;
            assert_eq!(child.wait().unwrap().signal(), Some(libc::SIGKILL));
        }
        sandbox.remove().unwrap();
        assert!(!leaf.exists());
        sandbox.remove().unwrap();
        sandbox.kill_all().unwrap();
    }

    #[test]
    fn on_a_v2_host_sandboxes_go_under_the_root_and_nobody_moves() {
        // A fake cgroup v2 tree: the root (no cgroup.type) and a session scope with
        // processes, as `sudo dsh tour` on a systemd desktop would see it.
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("cgroup");
        let scope = root.join("user.slice/session-2.scope");
        std::fs::create_dir_all(&scope).unwrap();
        let parent = root.join("dsh-sandboxes");
        std::fs::create_dir_all(&parent).unwrap();
        for dir in [&root, &root.join("user.slice"), &scope, &parent] {
            std::fs::write(dir.join("cgroup.controllers"), "cpuset cpu io memory pids\n").unwrap();
            std::fs::write(dir.join("cgroup.subtree_control"), "").unwrap();
        }
        for dir in [&root.join("user.slice"), &scope, &parent] {
            std::fs::write(dir.join("cgroup.type"), "domain\n").unwrap();
        }
        std::fs::write(scope.join("cgroup.procs"), "1234\n5678\n").unwrap();
        assert_eq!(super::prepare_v2(&scope, "dsh-sandboxes").unwrap(), parent);
        for dir in [&root, &parent] {
            let line = std::fs::read_to_string(dir.join("cgroup.subtree_control")).unwrap();
            assert_eq!(line, "+memory +pids +cpu", "{}", dir.display());
        }
        // The session's processes stayed where they were: no leaf was made for them.
        assert!(!scope.join(DAEMON_LEAF).exists());
        assert_eq!(std::fs::read_to_string(scope.join("cgroup.procs")).unwrap(), "1234\n5678\n");
    }
}
