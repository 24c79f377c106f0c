//! Removing a dead sandbox's state.

use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use crate::error::{Error, Result};
use crate::spec::SandboxSpec;
use crate::state::StateDir;

/// Removes the sandbox's state directory (its files, /home, /root, overlay layers).
///
/// Call it after the sandbox's init has been killed and waited for. It refuses, without
/// removing anything, while the recorded init is alive or while any mount under the
/// state directory is visible on the host (which would mean a leak: every sandbox mount
/// is made inside the sandbox's own mount namespace and dies with it). Destroying a
/// sandbox whose state is already gone succeeds.
pub fn destroy(spec: &SandboxSpec) -> Result<()> {
    let Some(dir) = removable(spec)? else { return Ok(()) };
    match fs::remove_dir_all(&dir) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(Error::io(format!("removing {}", dir.display()), e)),
    }
}

/// The sandbox's state directory, resolved, if [`destroy`] may remove it now (no live
/// init, no mount under it visible on the host); `None` when it is already gone.
pub fn removable(spec: &SandboxSpec) -> Result<Option<PathBuf>> {
    let dir = match fs::canonicalize(&spec.state_dir) {
        Ok(dir) => dir,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(e) => {
            return Err(Error::io(format!("resolving {}", spec.state_dir.display()), e));
        }
    };
    let state = StateDir::new(&dir);
    if let Some(pid) = state.live_init().map_err(|e| Error::io("reading the init pid file", e))? {
        return Err(Error::StillRunning { pid });
    }
    no_mount_visible_under(&dir)?;
    Ok(Some(dir))
}

/// Fails with the first mount at or under `dir` that the host sees (a leak: every
/// sandbox mount is made in the sandbox's own mount namespace).
pub fn no_mount_visible_under(dir: &Path) -> Result<()> {
    let mountinfo = fs::read_to_string("/proc/self/mountinfo")
        .map_err(|e| Error::io("reading /proc/self/mountinfo", e))?;
    match mounts_under(&mountinfo, dir).into_iter().next() {
        Some(mountpoint) => Err(Error::MountLeaked { mountpoint }),
        None => Ok(()),
    }
}

/// Mount points (field 5 of mountinfo, octal escapes decoded) at or under `dir`.
pub fn mounts_under(mountinfo: &str, dir: &Path) -> Vec<PathBuf> {
    mountinfo
        .lines()
        .filter_map(|line| line.split(' ').nth(4))
        .map(|field| PathBuf::from(unescape(field)))
        .filter(|mountpoint| mountpoint.starts_with(dir))
        .collect()
}

/// mountinfo writes space, tab, newline and backslash as `\ooo`.
fn unescape(field: &str) -> String {
    let bytes = field.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let octal = bytes
            .get(i + 1..i + 4)
            .filter(|d| bytes[i] == b'\\' && d.iter().all(|c| (b'0'..=b'7').contains(c)));
        match octal {
            Some(d) => {
                let value = (u32::from(d[0] - b'0') << 6)
                    | (u32::from(d[1] - b'0') << 3)
                    | u32::from(d[2] - b'0');
                out.push(u8::try_from(value).unwrap_or(b'?'));
                i += 4;
            }
            None => {
                out.push(bytes[i]);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;
    use crate::template::Template;

    const MOUNTINFO: &str = "\
27 1 254:0 / / rw,relatime - ext4 /dev/vda rw
90 27 0:50 / /srv/state/sbx\\0401/rootfs rw - tmpfs tmpfs rw
91 27 0:51 / /srv/state/sbx-10/rootfs rw - tmpfs tmpfs rw
";

    #[test]
    fn finds_mounts_under_a_directory_with_escapes_decoded() {
        assert_eq!(
            mounts_under(MOUNTINFO, Path::new("/srv/state/sbx 1")),
            [PathBuf::from("/srv/state/sbx 1/rootfs")]
        );
        assert!(mounts_under(MOUNTINFO, Path::new("/srv/state/sbx-1")).is_empty());
    }

    #[test]
    fn removes_the_state_directory_and_tolerates_a_missing_one() {
        let dir = tempfile::tempdir().unwrap();
        let state = dir.path().join("sbx");
        fs::create_dir_all(state.join("home/user")).unwrap();
        fs::write(state.join("home/user/f"), "x").unwrap();
        let spec = SandboxSpec::new("sbx", &state, Template::base());
        destroy(&spec).unwrap();
        assert!(!state.exists());
        destroy(&spec).unwrap();
    }

    #[test]
    fn refuses_while_the_recorded_init_is_alive() {
        let dir = tempfile::tempdir().unwrap();
        StateDir::new(dir.path()).write_pid(std::process::id()).unwrap();
        let spec = SandboxSpec::new("sbx", dir.path(), Template::base());
        let err = destroy(&spec).unwrap_err();
        assert!(matches!(err, Error::StillRunning { pid } if pid == std::process::id()), "{err:?}");
        assert!(dir.path().exists());
    }
}
