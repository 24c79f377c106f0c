//! A directory of entries, each a directory `<key>/` described by `<key>.json`: what
//! snapshots and volumes are kept as, among the sandboxes' files (in the disk image).
//!
//! The description is written last and removed first, so an entry a killed daemon left
//! half-made (or half-removed) is a directory without one: never listed, and removed by
//! [`Described::recover`] at the next start.

use std::path::{Path, PathBuf};

use anyhow::Context;
use serde::Serialize;
use serde::de::DeserializeOwned;

use crate::server::files::{set_mode, write_private};

pub struct Described {
    root: PathBuf,
    /// What an entry is, for log lines ("snapshot", "volume").
    what: &'static str,
}

impl Described {
    pub fn new(root: PathBuf, what: &'static str) -> Described {
        Described { root, what }
    }

    /// The directory of the entry `key`.
    pub fn dir(&self, key: &str) -> PathBuf {
        self.root.join(key)
    }

    /// Every described entry whose directory exists, as `key_of` tells its key.
    pub fn list<T: DeserializeOwned>(&self, key_of: impl Fn(&T) -> &str) -> Vec<T> {
        let Ok(entries) = std::fs::read_dir(&self.root) else { return Vec::new() };
        entries
            .flatten()
            .filter(|e| e.path().extension().is_some_and(|x| x == "json"))
            .filter_map(|e| serde_json::from_slice::<T>(&std::fs::read(e.path()).ok()?).ok())
            .filter(|entry| self.root.join(key_of(entry)).is_dir())
            .collect()
    }

    /// Creates the root (0700) if missing; the entry's directory is the caller's to make.
    pub fn prepare(&self) -> anyhow::Result<()> {
        std::fs::create_dir_all(&self.root)
            .with_context(|| format!("creating {}", self.root.display()))?;
        set_mode(&self.root, 0o700)
            .with_context(|| format!("setting the mode of {}", self.root.display()))
    }

    /// Writes the description of `key` (after its directory is complete).
    pub fn describe<T: Serialize>(&self, key: &str, entry: &T) -> anyhow::Result<()> {
        let path = self.root.join(format!("{key}.json"));
        let data = serde_json::to_vec_pretty(entry)?;
        write_private(&path.with_extension("json.tmp"), &path, &data)
            .with_context(|| format!("writing {}", path.display()))
    }

    /// Removes the entry `key`: its description, then its directory.
    pub fn remove(&self, key: &str) -> anyhow::Result<()> {
        let path = self.root.join(format!("{key}.json"));
        match std::fs::remove_file(&path) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
                return Err(e).with_context(|| format!("removing {}", path.display()));
            }
            _ => {}
        }
        remove_dir(&self.dir(key))
    }

    /// At start: removes the directories without a description.
    pub fn recover(&self) {
        let Ok(entries) = std::fs::read_dir(&self.root) else { return };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() && !path.with_extension("json").exists() {
                let what = self.what;
                tracing::warn!(path = %path.display(), "removing a {what} left half-made");
                if let Err(e) = remove_dir(&path) {
                    tracing::warn!(path = %path.display(), error = format!("{e:#}"), "removing a half-made {what}");
                }
            }
        }
    }
}

/// Removes `path` and everything under it (a missing one is fine).
pub fn remove_dir(path: &Path) -> anyhow::Result<()> {
    match std::fs::remove_dir_all(path) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
            Err(e).with_context(|| format!("removing {}", path.display()))
        }
        _ => Ok(()),
    }
}
