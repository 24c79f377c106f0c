//! Layout of a sandbox's state directory on the host.
//!
//! ```text
//! <state>/rootfs                    mount point of the sandbox's root (empty on the host)
//! <state>/rootfs-upper              upper layer of the root (an overlay over empty/)
//! <state>/rootfs-work               its overlayfs work directory
//! <state>/overlay/<path>/upper      writable layer of the overlay shown at <path>
//! <state>/overlay/<path>/work       overlayfs work directory
//! <state>/overlay/<path>/lower      mount point of the idmapped host directory (setup only)
//! <state>/empty                     empty lower layer of the root, /home, /root and /var
//! <state>/program/<name>            the payload binary (hard link or copy)
//! <state>/home                      upper layer of /home (user/ owned by uid 1000 inside)
//! <state>/root                      upper layer of /root
//! <state>/var                       upper layer of /var
//! <state>/init.pid                  "<host pid> <start time>" of the running init
//! ```

use std::fs;
use std::io;
use std::path::{Path, PathBuf};

/// Where, relative to the state directory, the payload binary is found for the read-only
/// overlay at [`PROGRAM_DIR`] (the launcher links it there).
pub const PROGRAM_LINK_DIR: &str = "program";

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StateDir {
    root: PathBuf,
}

impl StateDir {
    pub fn new(root: impl Into<PathBuf>) -> Self {
        StateDir { root: root.into() }
    }

    pub fn path(&self) -> &Path {
        &self.root
    }

    pub fn rootfs(&self) -> PathBuf {
        self.root.join("rootfs")
    }

    /// The root's upper layer: what the sandbox keeps outside its other mounts.
    pub fn root_upper(&self) -> PathBuf {
        self.root.join("rootfs-upper")
    }

    pub fn root_work(&self) -> PathBuf {
        self.root.join("rootfs-work")
    }

    /// Directory holding the overlay layers of `inside` (an absolute path).
    pub fn overlay(&self, inside: &Path) -> PathBuf {
        self.root.join("overlay").join(escape(inside))
    }

    pub fn upper(&self, inside: &Path) -> PathBuf {
        self.overlay(inside).join("upper")
    }

    pub fn work(&self, inside: &Path) -> PathBuf {
        self.overlay(inside).join("work")
    }

    /// Mount point of the idmapped copy of the host directory shown at `inside` (used
    /// only while the overlay is made; gone with the host's root at `pivot_root`).
    pub fn lower(&self, inside: &Path) -> PathBuf {
        self.overlay(inside).join("lower")
    }

    /// The payload binary's directory (a hard link or copy of it).
    pub fn program(&self) -> PathBuf {
        self.root.join(PROGRAM_LINK_DIR)
    }

    pub fn home(&self) -> PathBuf {
        self.root.join("home")
    }

    pub fn root_home(&self) -> PathBuf {
        self.root.join("root")
    }

    pub fn var(&self) -> PathBuf {
        self.root.join("var")
    }

    pub fn pid_file(&self) -> PathBuf {
        self.root.join("init.pid")
    }

    /// Records the running init so a later `destroy` (even from a restarted daemon) can
    /// tell whether it is still alive.
    pub fn write_pid(&self, pid: u32) -> io::Result<()> {
        let start = process_start_time(pid)?;
        fs::write(self.pid_file(), format!("{pid} {start}\n"))
    }

    pub fn remove_pid(&self) {
        // Best effort: the file only speeds up liveness checks.
        let _ = fs::remove_file(self.pid_file());
    }

    /// The recorded init's pid if that very process (same start time) is still alive.
    pub fn live_init(&self) -> io::Result<Option<u32>> {
        let text = match fs::read_to_string(self.pid_file()) {
            Ok(text) => text,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(e),
        };
        let mut fields = text.split_whitespace();
        let (Some(pid), Some(start)) = (fields.next(), fields.next()) else {
            return Ok(None);
        };
        let (Ok(pid), Ok(start)) = (pid.parse::<u32>(), start.parse::<u64>()) else {
            return Ok(None);
        };
        match process_stat(pid) {
            Ok(stat) if stat.start_time == start && stat.state != 'Z' && stat.state != 'X' => {
                Ok(Some(pid))
            }
            _ => Ok(None),
        }
    }
}

/// `/usr/local` -> `usr%2Flocal`: one directory name per shown path, injective.
fn escape(inside: &Path) -> String {
    let text = inside.to_string_lossy();
    text.trim_start_matches('/').replace('%', "%25").replace('/', "%2F")
}

struct ProcStat {
    state: char,
    start_time: u64,
}

fn process_stat(pid: u32) -> io::Result<ProcStat> {
    let text = fs::read_to_string(format!("/proc/{pid}/stat"))?;
    // The command name (field 2) may contain spaces and parentheses: parse after the last ')'.
    let rest = text
        .rsplit_once(')')
        .map(|(_, rest)| rest)
        .ok_or_else(|| io::Error::other("malformed /proc/<pid>/stat"))?;
    let fields: Vec<&str> = rest.split_whitespace().collect();
    // fields[0] is field 3 (state); field 22 (starttime) is fields[19].
    let state = fields
        .first()
        .and_then(|s| s.chars().next())
        .ok_or_else(|| io::Error::other("malformed /proc/<pid>/stat"))?;
    let start_time = fields
        .get(19)
        .and_then(|s| s.parse().ok())
        .ok_or_else(|| io::Error::other("malformed /proc/<pid>/stat"))?;
    Ok(ProcStat { state, start_time })
}

fn process_start_time(pid: u32) -> io::Result<u64> {
    process_stat(pid).map(|s| s.start_time)
}

/// The start time of `pid` while it runs: None when it is gone or a zombie.
pub fn running_start_time(pid: u32) -> Option<u64> {
    process_stat(pid)
        .ok()
        .filter(|stat| !matches!(stat.state, 'Z' | 'X'))
        .map(|stat| stat.start_time)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;

    #[test]
    fn overlay_directories_are_named_after_the_path() {
        let state = StateDir::new("/s");
        assert_eq!(state.upper(Path::new("/usr")), Path::new("/s/overlay/usr/upper"));
        assert_eq!(
            state.work(Path::new("/usr/local/a%b")),
            Path::new("/s/overlay/usr%2Flocal%2Fa%25b/work")
        );
    }

    #[test]
    fn own_process_is_alive_and_a_stale_record_is_not() {
        let dir = tempfile::tempdir().unwrap();
        let state = StateDir::new(dir.path());
        assert_eq!(state.live_init().unwrap(), None);
        state.write_pid(std::process::id()).unwrap();
        assert_eq!(state.live_init().unwrap(), Some(std::process::id()));
        fs::write(state.pid_file(), format!("{} 1\n", std::process::id())).unwrap();
        assert_eq!(state.live_init().unwrap(), None);
    }
}
