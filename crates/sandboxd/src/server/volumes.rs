//! Volumes (E2B's `/volumes` and the create request's `volumeMounts`): directories that
//! outlive sandboxes, mounted writable into any number of them.
//!
//! A volume is `<sandboxes>/.volumes/<key>/` in the daemon's disk image, described by
//! `<key>.json` (written last; a directory without it is removed at start). Its files
//! keep the ids they have inside (0-65535): each sandbox sees the volume through an
//! idmapped mount onto its own uid block, so sandboxes of different blocks share it with
//! the same owners; the root directory is `user`'s (uid 1000). The image is mounted
//! nosuid and nodev, so nothing in a volume is a setuid program or a device on the host,
//! and the state directory is root's alone. Volumes need the image (disk quotas on):
//! without it a volume's path would show the host's directories in mountinfo.
//!
//! A volume mounted by a sandbox (running or paused) cannot be deleted (409): kill the
//! sandboxes first.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use anyhow::Context;
use axum::http::StatusCode;
use serde::{Deserialize, Serialize};

use super::registry::{now_ms, random_hex, set_mode, write_private};
use super::{ApiError, Shared};

/// The directory, among the sandboxes' (in the disk image).
pub const DIR: &str = ".volumes";
/// Owner of a new volume's root inside every sandbox: `user`.
const VOLUME_OWNER: u32 = 1000;

/// A volume as kept in `<key>.json`.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Volume {
    /// The directory's name.
    pub key: String,
    #[serde(rename = "volumeID")]
    pub volume_id: String,
    pub name: String,
    /// E2B's token for the volume content API (which this daemon does not serve).
    pub token: String,
    pub created_at_ms: u64,
}

impl Volume {
    /// E2B's Volume.
    pub fn listed(&self) -> serde_json::Value {
        serde_json::json!({"volumeID": self.volume_id, "name": self.name})
    }

    /// E2B's VolumeAndToken.
    pub fn with_token(&self) -> serde_json::Value {
        serde_json::json!({"volumeID": self.volume_id, "name": self.name, "token": self.token})
    }
}

fn dir(shared: &Shared) -> PathBuf {
    shared.store.root().join(DIR)
}

/// The directory holding `volume`'s files.
pub fn files(shared: &Shared, volume: &Volume) -> PathBuf {
    dir(shared).join(&volume.key)
}

/// Every volume, oldest first.
pub fn list(shared: &Shared) -> Vec<Volume> {
    let root = dir(shared);
    let Ok(entries) = std::fs::read_dir(&root) else { return Vec::new() };
    let mut volumes: Vec<Volume> = entries
        .flatten()
        .filter(|e| e.path().extension().is_some_and(|x| x == "json"))
        .filter_map(|e| serde_json::from_slice::<Volume>(&std::fs::read(e.path()).ok()?).ok())
        .filter(|v| root.join(&v.key).is_dir())
        .collect();
    volumes.sort_by(|a, b| a.created_at_ms.cmp(&b.created_at_ms).then(a.key.cmp(&b.key)));
    volumes
}

pub fn by_id(shared: &Shared, id: &str) -> Option<Volume> {
    list(shared).into_iter().find(|v| v.volume_id == id)
}

pub fn by_name(shared: &Shared, name: &str) -> Option<Volume> {
    list(shared).into_iter().find(|v| v.name == name)
}

/// A volume name: 1 to 128 of `[A-Za-z0-9._-]`.
fn check_name(name: &str) -> Result<(), ApiError> {
    let valid = (1..=128).contains(&name.len())
        && name.bytes().all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'-'));
    if valid {
        return Ok(());
    }
    Err(ApiError::bad_request(format!(
        "invalid volume name {name:?}: use 1 to 128 letters, digits, '.', '_' or '-'"
    )))
}

pub async fn create(shared: &Arc<Shared>, name: &str) -> Result<Volume, ApiError> {
    check_name(name)?;
    if let Some(reason) = shared.disk.unlimited_reason() {
        return Err(ApiError::new(
            StatusCode::SERVICE_UNAVAILABLE,
            format!("volumes need the sandboxes' disk image, which this daemon lacks: {reason}"),
        ));
    }
    let _writing = shared.snapshot_lock.lock().await;
    if by_name(shared, name).is_some() {
        return Err(ApiError::new(StatusCode::CONFLICT, format!("volume '{name}' already exists")));
    }
    let key = random_hex(10);
    let volume = Volume {
        volume_id: crate::exec::random_uuid(),
        name: name.to_owned(),
        token: random_hex(32),
        key: key.clone(),
        created_at_ms: now_ms(),
    };
    let root = dir(shared);
    let kept = volume.clone();
    tokio::task::spawn_blocking(move || -> anyhow::Result<()> {
        std::fs::create_dir_all(&root).with_context(|| format!("creating {}", root.display()))?;
        set_mode(&root, 0o700)?;
        let target = root.join(&kept.key);
        std::fs::create_dir(&target).with_context(|| format!("creating {}", target.display()))?;
        std::os::unix::fs::chown(&target, Some(VOLUME_OWNER), Some(VOLUME_OWNER))?;
        set_mode(&target, 0o755)?;
        let data = serde_json::to_vec_pretty(&kept)?;
        let path = root.join(format!("{}.json", kept.key));
        write_private(&path.with_extension("json.tmp"), &path, &data)
            .with_context(|| format!("writing {}", path.display()))
    })
    .await
    .map_err(|e| ApiError::internal(&anyhow::anyhow!("the volume task panicked: {e}")))?
    .map_err(|e| ApiError::internal(&e.context(format!("creating volume '{name}'"))))?;
    tracing::info!(volume = %volume.volume_id, name, "volume created");
    Ok(volume)
}

/// Deletes a volume no sandbox mounts; `Ok(false)` when there is none by that id.
pub async fn delete(shared: &Arc<Shared>, id: &str) -> Result<bool, ApiError> {
    let _writing = shared.snapshot_lock.lock().await;
    let Some(volume) = by_id(shared, id) else { return Ok(false) };
    let users: Vec<String> = shared
        .slots()
        .iter()
        .filter(|slot| {
            let inner = slot.lock();
            !inner.gone
                && inner.record.volume_mounts.iter().any(|m| m.volume_id == volume.volume_id)
        })
        .map(|slot| slot.id.clone())
        .collect();
    if !users.is_empty() {
        return Err(ApiError::new(
            StatusCode::CONFLICT,
            format!(
                "volume '{}' is mounted by sandbox {}: kill it first",
                volume.name,
                users.join(", ")
            ),
        ));
    }
    let root = dir(shared);
    tokio::task::spawn_blocking(move || -> anyhow::Result<()> {
        std::fs::remove_file(root.join(format!("{}.json", volume.key)))?;
        remove_dir(&root.join(&volume.key))
    })
    .await
    .map_err(|e| ApiError::internal(&anyhow::anyhow!("the volume task panicked: {e}")))?
    .map_err(|e| ApiError::internal(&e))?;
    Ok(true)
}

/// At start: removes volume directories without a description (half-made or
/// half-deleted).
pub fn recover(shared: &Shared) {
    let root = dir(shared);
    let Ok(entries) = std::fs::read_dir(&root) else { return };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() && !path.with_extension("json").exists() {
            tracing::warn!(path = %path.display(), "removing a volume left half-made");
            if let Err(e) = remove_dir(&path) {
                tracing::warn!(path = %path.display(), error = format!("{e:#}"), "removing a half-made volume");
            }
        }
    }
}

fn remove_dir(path: &Path) -> anyhow::Result<()> {
    match std::fs::remove_dir_all(path) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
            Err(e).with_context(|| format!("removing {}", path.display()))
        }
        _ => Ok(()),
    }
}
