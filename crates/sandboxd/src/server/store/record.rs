//! Sandbox records: what the daemon keeps of each sandbox on disk, one
//! JSON file per sandbox (`<state-dir>/sandboxes/<id>.json`) next to the sandbox's own
//! state directory (`<state-dir>/sandboxes/<id>/`).

use std::collections::BTreeMap;
use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::server::files::{Durability, set_mode, write_private, write_private_unsynced};
use crate::spec::Isolation;

/// Where a sandbox is in its life. `Creating` is written before anything is started, so
/// a daemon killed mid-create finds and removes the half-made sandbox on its next start.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Phase {
    Creating,
    Running,
    Paused,
}

/// The persisted part of a sandbox.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Record {
    pub sandbox_id: String,
    pub template_id: String,
    #[serde(default)]
    pub alias: Option<String>,
    /// `None` for a sandbox created with `secure: false` (envd then requires no token).
    #[serde(default)]
    pub envd_access_token: Option<String>,
    #[serde(default)]
    pub metadata: BTreeMap<String, String>,
    #[serde(default)]
    pub env_vars: BTreeMap<String, String>,
    #[serde(default)]
    pub auto_pause: bool,
    /// `autoPauseMemory`: the timeout's pause keeps the processes' memory (E2B's default)
    /// rather than stopping them.
    #[serde(default = "keep_memory_by_default")]
    pub auto_pause_memory: bool,
    /// `autoResume.enabled`: traffic to a paused sandbox resumes it first.
    #[serde(default)]
    pub auto_resume: bool,
    /// Unix milliseconds.
    pub started_at_ms: u64,
    /// Unix milliseconds: when the sandbox times out (killed, or paused with autoPause).
    pub end_at_ms: u64,
    pub phase: Phase,
    /// What the sandbox got, fixed at create: its uid block must stay the same for as
    /// long as its files exist (they are owned by those host ids).
    #[serde(default)]
    pub isolation: Option<Isolation>,
    /// CPU bandwidth (whole CPUs) and memory limit; `None` = the daemon's default.
    #[serde(default)]
    pub cpu_count: Option<u64>,
    #[serde(default)]
    pub memory_mb: Option<u64>,
    /// The create request's `network` settings.
    #[serde(default)]
    pub network: NetworkSettings,
    /// The create request's `volumeMounts`, resolved to volume ids.
    #[serde(default)]
    pub volume_mounts: Vec<VolumeMountRecord>,
    /// Made from a template built here: its default user and workdir, and its start and
    /// ready commands (run at every boot).
    #[serde(default)]
    pub startup: Option<Startup>,
    /// What runs it (dsh extension `runtime`): this daemon's launcher or gVisor.
    #[serde(default)]
    pub runtime: crate::gvisor::Runtime,
    /// Its memory is on disk (a gVisor checkpoint in its directory, see
    /// `gvisor_sandbox.rs`): its next start restores its processes where they were.
    #[serde(default)]
    pub checkpoint: Option<Checkpoint>,
}

/// A gVisor sandbox's saved memory, as its record knows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Checkpoint {
    /// The envd access token the saved envd holds: a fork's own is given to it with this
    /// one at its first start.
    #[serde(default)]
    pub envd_access_token: Option<String>,
}

/// A volume mounted into a sandbox at every start.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct VolumeMountRecord {
    #[serde(rename = "volumeID")]
    pub volume_id: String,
    pub name: String,
    pub path: String,
}

fn keep_memory_by_default() -> bool {
    true
}

/// E2B's `network` of a sandbox: who may reach its ports through the daemon, and how the
/// Host header is rewritten on the way.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct NetworkSettings {
    /// Set when the create said `allowPublicTraffic: false`: requests to the sandbox's
    /// ports must carry it in `e2b-traffic-access-token`.
    #[serde(default)]
    pub traffic_access_token: Option<String>,
    /// `maskRequestHost`: the Host header sent to the sandbox (`${PORT}` is the port).
    #[serde(default)]
    pub mask_request_host: Option<String>,
    /// `allowOut`, `denyOut`, `allow_internet_access` (private networks only).
    #[serde(default)]
    pub egress: crate::server::egress::Egress,
}

/// The `sandboxes/` directory of the daemon's state directory.
#[derive(Debug, Clone)]
pub struct Store {
    root: PathBuf,
}

impl Store {
    pub fn open(state_dir: &Path) -> io::Result<Store> {
        let root = state_dir.join("sandboxes");
        fs::create_dir_all(&root)?;
        set_mode(&root, 0o700)?;
        Ok(Store { root })
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    pub fn record_path(&self, id: &str) -> PathBuf {
        self.root.join(format!("{id}.json"))
    }

    pub fn sandbox_dir(&self, id: &str) -> PathBuf {
        self.root.join(id)
    }

    /// Writes the record atomically (temporary file + rename), mode 0600: it holds the
    /// envd access token. A failure (a full disk) removes the temporary file and names it.
    pub fn save(&self, record: &Record) -> io::Result<()> {
        self.write(record, Durability::Synced)
    }

    /// [`Store::save`] without waiting for the disk: for the changes on the hot path of
    /// a create or a timeout extension (a new sandbox's records, a deadline moved), where
    /// an fsync of the disk image costs 1 to 10 ms. The file is still replaced whole
    /// (rename), and a daemon killed meanwhile finds it (the kernel has it); the kernel
    /// writes it within the filesystem's commit interval (btrfs: 30 s), so only a host
    /// crash within that time loses it: the sandbox then comes back as it was saved last
    /// (or, made just before, is removed at the next start, like a half-made one).
    pub fn save_unsynced(&self, record: &Record) -> io::Result<()> {
        self.write(record, Durability::Unsynced)
    }

    fn write(&self, record: &Record, durability: Durability) -> io::Result<()> {
        let path = self.record_path(&record.sandbox_id);
        let tmp = self.root.join(format!(".{}.json.tmp", record.sandbox_id));
        let data = serde_json::to_vec_pretty(record).map_err(io::Error::other)?;
        let written = match durability {
            Durability::Synced => write_private(&tmp, &path, &data),
            Durability::Unsynced => write_private_unsynced(&tmp, &path, &data),
        };
        written.map_err(|e| {
            io::Error::new(e.kind(), format!("writing the sandbox record {}: {e}", tmp.display()))
        })
    }

    pub fn remove(&self, id: &str) -> io::Result<()> {
        match fs::remove_file(self.record_path(id)) {
            Err(e) if e.kind() != io::ErrorKind::NotFound => Err(e),
            _ => Ok(()),
        }
    }

    /// Every readable record, plus the names of sandbox directories without any record
    /// file. A directory whose record cannot be read is left alone (never destroyed).
    pub fn scan(&self) -> io::Result<(Vec<Record>, Vec<String>)> {
        let mut records = Vec::new();
        let mut dirs = Vec::new();
        let mut known = std::collections::HashSet::new();
        for entry in fs::read_dir(&self.root)? {
            let entry = entry?;
            let name = entry.file_name().to_string_lossy().into_owned();
            let path = entry.path();
            // A record a daemon was writing when it died (it holds an access token).
            if name.starts_with('.') && name.ends_with(".json.tmp") {
                match fs::remove_file(&path) {
                    Ok(()) => {
                        tracing::info!(path = %path.display(), "removed a half-written sandbox record")
                    }
                    Err(e) => {
                        tracing::warn!(path = %path.display(), error = %e, "cannot remove a half-written sandbox record")
                    }
                }
                continue;
            }
            if let Some(id) = name.strip_suffix(".json") {
                if id.starts_with('.') {
                    let _ = fs::remove_file(&path);
                    continue;
                }
                known.insert(id.to_owned());
                match fs::read(&path).map(|data| serde_json::from_slice::<Record>(&data)) {
                    Ok(Ok(record)) if record.sandbox_id == id => records.push(record),
                    other => {
                        tracing::warn!(path = %path.display(), ?other, "ignoring unreadable sandbox record");
                    }
                }
            } else if entry.file_type()?.is_dir() && !name.starts_with('.') {
                // (A dot name is never a sandbox id: `.snapshots`.)
                dirs.push(name);
            }
        }
        dirs.retain(|d| !known.contains(d));
        Ok((records, dirs))
    }
}

/// What a template sets for every sandbox made from it: the last `set_user` and
/// `set_workdir` of its steps (E2B: "the last set user and workdir ... is persisted as
/// a default to the sandbox execution") and its start and ready commands, run at every
/// boot of such a sandbox.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Startup {
    #[serde(rename = "templateID")]
    pub template_id: String,
    pub user: String,
    pub workdir: String,
    pub start_cmd: Option<String>,
    pub ready_cmd: Option<String>,
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use crate::server::files::{new_sandbox_id, random_hex, rfc3339};

    #[test]
    fn a_scan_removes_half_written_records_and_keeps_the_rest() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(dir.path()).unwrap();
        std::fs::write(store.root().join(".abc.json.tmp"), "{\"envdAccessToken\":\"secret\"")
            .unwrap();
        std::fs::create_dir(store.root().join("orphan")).unwrap();
        let (records, dirs) = store.scan().unwrap();
        assert!(records.is_empty());
        assert_eq!(dirs, ["orphan"]);
        let left: Vec<_> = std::fs::read_dir(store.root())
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        assert_eq!(left, ["orphan"]);
    }

    #[test]
    fn formats_timestamps() {
        assert_eq!(rfc3339(0), "1970-01-01T00:00:00Z");
        assert_eq!(rfc3339(951_782_400_000), "2000-02-29T00:00:00Z");
        assert_eq!(rfc3339(1_795_860_480_123), "2026-11-28T10:08:00.123Z");
    }

    #[test]
    fn ids_are_twenty_lowercase_alphanumerics() {
        let id = new_sandbox_id();
        assert_eq!(id.len(), 20);
        assert!(id.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit()), "{id}");
        assert_ne!(new_sandbox_id(), id);
        assert_eq!(random_hex(16).len(), 32);
    }

    #[test]
    fn records_round_trip_and_scan_finds_orphans() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(dir.path()).unwrap();
        let record = Record {
            sandbox_id: "abc".into(),
            template_id: "base".into(),
            alias: None,
            envd_access_token: Some("t".into()),
            metadata: BTreeMap::from([("k".into(), "v".into())]),
            env_vars: BTreeMap::new(),
            auto_pause: false,
            auto_pause_memory: true,
            auto_resume: false,
            started_at_ms: 1,
            end_at_ms: 2,
            phase: Phase::Running,
            isolation: Some(Isolation::strict(crate::spec::IdRange { host_base: 1 << 30 })),
            cpu_count: None,
            memory_mb: Some(512),
            network: NetworkSettings::default(),
            volume_mounts: vec![VolumeMountRecord {
                volume_id: "00000000-0000-4000-8000-000000000000".into(),
                name: "data".into(),
                path: "/mnt/data".into(),
            }],
            startup: None,
            runtime: Default::default(),
            checkpoint: None,
        };
        store.save(&record).unwrap();
        fs::create_dir(store.sandbox_dir("abc")).unwrap();
        fs::create_dir(store.sandbox_dir("orphan")).unwrap();
        let (records, orphans) = store.scan().unwrap();
        assert_eq!(records.len(), 1);
        assert_eq!(records[0].metadata["k"], "v");
        assert_eq!(records[0].phase, Phase::Running);
        assert_eq!(records[0].isolation, record.isolation);
        assert_eq!(records[0].memory_mb, Some(512));
        assert_eq!(orphans, ["orphan"]);
        // A record that cannot be read keeps its directory from being taken as an orphan.
        fs::write(store.record_path("broken"), "{not json").unwrap();
        fs::create_dir(store.sandbox_dir("broken")).unwrap();
        let (records, orphans) = store.scan().unwrap();
        assert_eq!((records.len(), orphans), (1, vec!["orphan".to_owned()]));
        store.remove("abc").unwrap();
        store.remove("abc").unwrap();
    }
}
