//! Finding the hierarchy: `/proc/self/mountinfo` and `/proc/self/cgroup` parsed (pure
//! functions, tested on exact strings) and resolved to the daemon's own directories.

use std::ffi::OsString;
use std::os::unix::ffi::OsStringExt;
use std::path::{Component, Path, PathBuf};

use super::types::*;

/// One cgroup mount from /proc/self/mountinfo.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct CgroupMount {
    /// The directory of the hierarchy that is mounted (not always the hierarchy's root).
    pub(super) root: PathBuf,
    pub(super) mount_point: PathBuf,
    pub(super) v2: bool,
    /// v1: the super options, which name the controllers ("rw,cpu,cpuacct").
    pub(super) options: Vec<String>,
}

/// The cgroup and cgroup2 mounts, in mount order.
pub(super) fn parse_mountinfo(text: &str) -> Vec<CgroupMount> {
    text.lines()
        .filter_map(|line| {
            // "36 35 98:0 /root /mnt rw,noatime master:1 - cgroup cgroup rw,memory": the
            // optional fields before " - " vary in number.
            let (before, after) = line.split_once(" - ")?;
            let before: Vec<&str> = before.split(' ').collect();
            let mut after = after.split(' ');
            let fstype = after.next()?;
            let v2 = match fstype {
                "cgroup" => false,
                "cgroup2" => true,
                _ => return None,
            };
            let _source = after.next()?;
            let options = after.next().unwrap_or("").split(',').map(String::from).collect();
            Some(CgroupMount {
                root: unescape(before.get(3)?),
                mount_point: unescape(before.get(4)?),
                v2,
                options,
            })
        })
        .collect()
}

/// Undoes mountinfo's octal escapes ("\040" for a space).
pub(super) fn unescape(field: &str) -> PathBuf {
    let bytes = field.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let octal = bytes.get(i + 1..i + 4).filter(|d| {
            bytes[i] == b'\\' && d.iter().all(|b| (b'0'..=b'7').contains(b)) && d[0] <= b'3'
        });
        match octal {
            Some(d) => {
                out.push((d[0] - b'0') * 64 + (d[1] - b'0') * 8 + (d[2] - b'0'));
                i += 4;
            }
            None => {
                out.push(bytes[i]);
                i += 1;
            }
        }
    }
    PathBuf::from(OsString::from_vec(out))
}

/// One line of /proc/self/cgroup ("4:memory:/a/b"; "0::/a/b" is the v2 hierarchy).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct ProcCgroup {
    pub(super) hierarchy: u32,
    pub(super) controllers: Vec<String>,
    pub(super) path: PathBuf,
}

pub(super) fn parse_proc_cgroup(text: &str) -> Vec<ProcCgroup> {
    text.lines()
        .filter_map(|line| {
            let mut parts = line.splitn(3, ':');
            let hierarchy = parts.next()?.parse().ok()?;
            let controllers = parts.next()?;
            let path = parts.next()?;
            Some(ProcCgroup {
                hierarchy,
                controllers: controllers
                    .split(',')
                    .filter(|c| !c.is_empty())
                    .map(String::from)
                    .collect(),
                path: PathBuf::from(path),
            })
        })
        .collect()
}

/// This process's own cgroup directories, from the mounts and /proc/self/cgroup.
///
/// v1 as soon as any v1 hierarchy carries a controller we use (a hybrid host's
/// controller-less cgroup2 at /sys/fs/cgroup/unified does not make it v2); v2 when only
/// cgroup2 is there (a named v1 hierarchy such as name=systemd does not count).
pub(super) fn resolve(mounts: &[CgroupMount], own: &[ProcCgroup]) -> Result<Dirs> {
    let v1_with = |controller: &str| -> Vec<&CgroupMount> {
        mounts.iter().filter(|m| !m.v2 && m.options.iter().any(|o| o == controller)).collect()
    };
    let any_v1 = V1_CONTROLLERS.iter().any(|c| !v1_with(c).is_empty());
    let v2_mounts: Vec<&CgroupMount> = {
        // /sys/fs/cgroup first: other cgroup2 mounts are usually bind mounts into
        // containers or tools' private mounts.
        let (main, others): (Vec<_>, Vec<_>) = mounts
            .iter()
            .filter(|m| m.v2)
            .partition(|m| m.mount_point == Path::new("/sys/fs/cgroup"));
        main.into_iter().chain(others).collect()
    };
    if !any_v1 && !v2_mounts.is_empty() {
        let line =
            own.iter().find(|l| l.hierarchy == 0 && l.controllers.is_empty()).ok_or_else(|| {
                CgroupError::OwnCgroup {
                    reason: "/proc/self/cgroup has no cgroup v2 line (0::/...)".into(),
                }
            })?;
        return locate(&v2_mounts, &line.path, "cgroup v2").map(Dirs::V2);
    }
    if mounts.is_empty() {
        return Err(CgroupError::NotMounted);
    }
    let mut found = Vec::new();
    let mut missing = Vec::new();
    for controller in V1_CONTROLLERS {
        let candidates = v1_with(controller);
        if candidates.is_empty() {
            missing.push(controller);
            continue;
        }
        let line = own.iter().find(|l| l.controllers.iter().any(|c| c == controller)).ok_or_else(
            || CgroupError::OwnCgroup {
                reason: format!(
                    "/proc/self/cgroup has no line for the {controller} controller although it \
                     is mounted"
                ),
            },
        )?;
        found.push(locate(&candidates, &line.path, controller)?);
    }
    if !missing.is_empty() {
        let hint = format!(
            "mount cgroup v1's {} (`mount -t cgroup -o NAME cgroup /sys/fs/cgroup/NAME` for each; \
             check /proc/cgroups that the kernel has them) or boot with cgroup v2 \
             (systemd.unified_cgroup_hierarchy=1)",
            controllers_phrase(&missing)
        );
        return Err(CgroupError::MissingControllers { version: Version::V1, missing, hint });
    }
    // Optional: without it, pauses cannot keep memory (they stop the processes instead).
    let freezer = own
        .iter()
        .find(|l| l.controllers.iter().any(|c| c == "freezer"))
        .and_then(|line| locate(&v1_with("freezer"), &line.path, "freezer").ok());
    match <[PathBuf; 4]>::try_from(found) {
        Ok([memory, pids, cpu, cpuacct]) => Ok(Dirs::V1 { memory, pids, cpu, cpuacct, freezer }),
        Err(_) => Err(CgroupError::OwnCgroup { reason: "v1 controllers not all found".into() }),
    }
}

/// The directory of cgroup `path` (as /proc/self/cgroup names it) under the first of
/// `mounts` that shows it.
pub(super) fn locate(mounts: &[&CgroupMount], path: &Path, what: &str) -> Result<PathBuf> {
    for mount in mounts {
        let Ok(rel) = path.strip_prefix(&mount.root) else { continue };
        // "/.." appears when the cgroup lies outside this process's cgroup namespace.
        if !rel.components().all(|c| matches!(c, Component::Normal(_))) {
            continue;
        }
        return Ok(if rel.as_os_str().is_empty() {
            mount.mount_point.clone()
        } else {
            mount.mount_point.join(rel)
        });
    }
    let mounted: Vec<String> = mounts
        .iter()
        .map(|m| format!("{} (showing {})", m.mount_point.display(), m.root.display()))
        .collect();
    Err(CgroupError::OwnCgroup {
        reason: format!(
            "this process's {what} cgroup {} is not visible under any mount of that hierarchy \
             ({}): mount the hierarchy so that it shows this cgroup (in a container: a private \
             cgroup namespace with the cgroup filesystem mounted inside it)",
            path.display(),
            mounted.join(", ")
        ),
    })
}
