//! Volumes (E2B's `/volumes` and the create request's `volumeMounts`): directories that
//! outlive sandboxes, mounted writable into any number of them.
//!
//! A volume is `<sandboxes>/.volumes/<key>/` in the daemon's disk image, described by
//! `<key>.json` (written last; a directory without it is removed at start). Its files
//! are owned on the host by the volumes' block ([`IdRange::VOLUMES`]: an inside id `n`
//! is host id `VOLUMES + n`), which no process runs as: each sandbox sees the volume
//! through an idmapped mount from that block onto its own, so sandboxes of different
//! blocks share it with the same owners, and nothing in it is host root's (a copy or a
//! backup restored elsewhere hands the host no setuid-root program). The root directory
//! is `user`'s (uid 1000). Volumes made before kept the inside ids on the host; they are
//! moved into the block once, at start (`volume_ids.rs`). The image is mounted nosuid and
//! nodev too, and the state directory is root's alone. Volumes need the image (disk quotas on):
//! without it a volume's path would show the host's directories in mountinfo.
//!
//! A volume mounted by a sandbox (running or paused) cannot be deleted (409): kill the
//! sandboxes first.

use std::sync::Arc;

use crate::server::context::Control;
use crate::server::control_error::{ControlError, ControlResult};
use crate::server::files::{now_ms, random_hex, set_mode};
use crate::spec::IdRange;

pub use crate::server::volume_records::{
    Volume, block, by_id, by_name, files, list, set_block, store,
};
/// Owner of a new volume's root inside every sandbox: `user`.
const VOLUME_OWNER: u32 = 1000;

/// A volume name: 1 to 128 of `[A-Za-z0-9._-]`.
fn check_name(name: &str) -> ControlResult<()> {
    let valid = (1..=128).contains(&name.len())
        && name.bytes().all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'-'));
    if valid {
        return Ok(());
    }
    Err(ControlError::Invalid(format!(
        "invalid volume name {name:?}: use 1 to 128 letters, digits, '.', '_' or '-'"
    )))
}

/// Makes the volume `name`, of the request's `sizeMB` (`volume_quota::requested_mb`).
pub async fn create(
    shared: &Arc<Control>,
    name: &str,
    size: Option<&serde_json::Value>,
) -> ControlResult<Volume> {
    check_name(name)?;
    if let Some(reason) = shared.disk.unlimited_reason() {
        return Err(ControlError::Unavailable(format!(
            "volumes need the sandboxes' disk image, which this daemon lacks: {reason}"
        )));
    }
    let size_mb = crate::server::volume_quota::requested_mb(shared, size)?;
    let _writing = shared.names_lock.lock().await;
    if by_name(&shared.store, name).is_some() {
        return Err(ControlError::Conflict(format!("volume '{name}' already exists")));
    }
    let key = random_hex(10);
    let volume = Volume {
        volume_id: crate::exec::random_uuid(),
        name: name.to_owned(),
        token: random_hex(32),
        key: key.clone(),
        created_at_ms: now_ms(),
        ids: Some(IdRange::VOLUMES),
        size_mb,
    };
    let volumes = store(&shared.store);
    let kept = volume.clone();
    tokio::task::spawn_blocking(move || -> anyhow::Result<()> {
        volumes.prepare()?;
        let target = volumes.dir(&kept.key);
        crate::server::volume_quota::make_dir(&target, kept.size_mb)?;
        let owner = IdRange::VOLUMES.host_id(VOLUME_OWNER);
        std::os::unix::fs::chown(&target, Some(owner), Some(owner))?;
        set_mode(&target, 0o755)?;
        volumes.describe(&kept.key, &kept)
    })
    .await
    .map_err(|e| ControlError::Internal(anyhow::anyhow!("the volume task panicked: {e}")))?
    .map_err(|e| ControlError::Internal(e.context(format!("creating volume '{name}'"))))?;
    tracing::info!(volume = %volume.volume_id, name, "volume created");
    Ok(volume)
}

/// Deletes a volume no sandbox mounts; `Ok(false)` when there is none by that id.
pub async fn delete(shared: &Arc<Control>, id: &str) -> ControlResult<bool> {
    let _writing = shared.names_lock.lock().await;
    let Some(volume) = by_id(&shared.store, id) else { return Ok(false) };
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
        return Err(ControlError::Conflict(format!(
            "volume '{}' is mounted by sandbox {}: kill it first",
            volume.name,
            users.join(", ")
        )));
    }
    let volumes = store(&shared.store);
    tokio::task::spawn_blocking(move || volumes.remove(&volume.key))
        .await
        .map_err(|e| ControlError::Internal(anyhow::anyhow!("the volume task panicked: {e}")))?
        .map_err(ControlError::Internal)?;
    Ok(true)
}

/// At start: removes volume directories without a description (half-made or
/// half-deleted).
pub fn recover(shared: &Control) {
    store(&shared.store).recover();
}
