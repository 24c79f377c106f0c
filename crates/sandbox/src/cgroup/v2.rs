//! cgroup v2's own steps: the daemon's leaf (`dsh-daemon`) so its cgroup can have
//! children, the parent under it, controllers enabled down the tree.

use std::path::{Path, PathBuf};

use super::files::*;
use super::types::*;

/// Makes `<own>` able to hand memory, pids and cpu to `<own>/<parent_name>` and on to the
/// sandboxes (see [`Cgroups::probe`]); returns `<own>/<parent_name>`.
pub(super) fn prepare_v2(own: &Path, parent_name: &str) -> Result<PathBuf> {
    // With the whole hierarchy in view (no cgroup namespace), sandboxes get a cgroup of
    // their own at the top, as Docker's cgroupfs driver does: the root may hold processes
    // and hand out controllers at once, so nobody's processes have to move. Inside a
    // cgroup namespace (a container), the daemon's own cgroup is used, as below.
    let top = v2_mount_root(own);
    if !is_v2_child(&top) {
        return prepare_v2_under(&top, parent_name);
    }
    let base = v2_base(own);
    let controllers = read(&base.join("cgroup.controllers"))?;
    let unavailable = missing_controllers(&controllers, &V2_CONTROLLERS);
    if !unavailable.is_empty() {
        let hint = match base.parent().filter(|_| is_v2_child(&base)) {
            Some(up) => format!(
                "enable {} in {}/cgroup.subtree_control (systemd: run the daemon as a service \
                 with Delegate=yes)",
                and_list(&unavailable),
                up.display()
            ),
            None => "the kernel does not offer them at the cgroup v2 root: check /proc/cgroups \
                     and the kernel command line (cgroup_disable=, cgroup_no_v1=)"
                .into(),
        };
        return Err(CgroupError::MissingControllers {
            version: Version::V2,
            missing: unavailable,
            hint,
        });
    }
    let enabled = read(&base.join("cgroup.subtree_control"))?;
    let to_enable = missing_controllers(&enabled, &V2_CONTROLLERS);
    if !to_enable.is_empty() {
        if is_v2_child(&base) && !read_pids(&base.join("cgroup.procs"))?.is_empty() {
            let leaf = base.join(DAEMON_LEAF);
            mkdir(&leaf)?;
            move_processes(&base, &leaf)?;
        }
        enable_controllers(&base, &to_enable)?;
    }
    let parent = base.join(parent_name);
    mkdir(&parent)?;
    let enabled = read(&parent.join("cgroup.subtree_control"))?;
    let to_enable = missing_controllers(&enabled, &V2_CONTROLLERS);
    if !to_enable.is_empty() {
        enable_controllers(&parent, &to_enable)?;
    }
    Ok(parent)
}

/// `<root>/<parent_name>` with memory, pids and cpu enabled for its children; `root` may
/// hold processes (only the real root may, besides handing out controllers).
pub(super) fn prepare_v2_under(root: &Path, parent_name: &str) -> Result<PathBuf> {
    let offered = read(&root.join("cgroup.controllers"))?;
    let unavailable = missing_controllers(&offered, &V2_CONTROLLERS);
    if !unavailable.is_empty() {
        return Err(CgroupError::MissingControllers {
            version: Version::V2,
            missing: unavailable,
            hint: "the kernel does not offer them at the cgroup v2 root: check /proc/cgroups \
                   and the kernel command line (cgroup_disable=, cgroup_no_v1=)"
                .into(),
        });
    }
    for dir in [root.to_path_buf(), root.join(parent_name)] {
        mkdir(&dir)?;
        let enabled = read(&dir.join("cgroup.subtree_control"))?;
        let to_enable = missing_controllers(&enabled, &V2_CONTROLLERS);
        if !to_enable.is_empty() {
            enable_controllers(&dir, &to_enable)?;
        }
    }
    Ok(root.join(parent_name))
}

/// The top of the cgroup v2 mount `own` is in: its last ancestor that is a cgroup.
pub(super) fn v2_mount_root(own: &Path) -> PathBuf {
    own.ancestors()
        .take_while(|dir| dir.join("cgroup.controllers").is_file())
        .last()
        .map_or_else(|| own.to_path_buf(), Path::to_path_buf)
}

/// The cgroup to work in: the own one, or its parent when this process already sits in
/// the leaf an earlier probe moved it to.
pub(super) fn v2_base(own: &Path) -> PathBuf {
    match (own.file_name(), own.parent()) {
        (Some(leaf), Some(up)) if leaf == DAEMON_LEAF => up.to_path_buf(),
        _ => own.to_path_buf(),
    }
}

/// Whether a v2 cgroup is below the root (which alone may mix processes and controllers).
/// A cgroup namespace's root counts as a child: only the real root lacks cgroup.type.
pub(super) fn is_v2_child(dir: &Path) -> bool {
    dir.join("cgroup.type").exists()
}

pub(super) fn enable_controllers(dir: &Path, controllers: &[&str]) -> Result<()> {
    let line = subtree_control_line(controllers);
    match write(&dir.join("cgroup.subtree_control"), &line) {
        Err(CgroupError::Io { source, .. }) if source.raw_os_error() == Some(libc::EBUSY) => {
            Err(CgroupError::InternalProcesses {
                path: dir.to_path_buf(),
                pids: read_pids(&dir.join("cgroup.procs"))?,
            })
        }
        other => other,
    }
}

/// Moves every process of `from` into `to`. Our own move must work; others that fail
/// (exited meanwhile, or not movable) are left for the controller-enabling step to report.
pub(super) fn move_processes(from: &Path, to: &Path) -> Result<()> {
    let me = std::process::id();
    let procs = to.join("cgroup.procs");
    // Bounded: processes may fork while we move them, but each round moves all it saw.
    for _ in 0..50 {
        let pids = read_pids(&from.join("cgroup.procs"))?;
        if pids.is_empty() {
            break;
        }
        for pid in pids {
            match write(&procs, &pid.to_string()) {
                Err(err) if pid == me => return Err(err),
                _ => {}
            }
        }
    }
    Ok(())
}

/// The names of `wanted` that a cgroup.controllers/cgroup.subtree_control line lacks.
pub(super) fn missing_controllers(line: &str, wanted: &[&'static str]) -> Vec<&'static str> {
    let present: Vec<&str> = line.split_whitespace().collect();
    wanted.iter().copied().filter(|c| !present.contains(c)).collect()
}

pub(super) fn subtree_control_line(controllers: &[&str]) -> String {
    controllers.iter().map(|c| format!("+{c}")).collect::<Vec<_>>().join(" ")
}
