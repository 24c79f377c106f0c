//! Snapshots (E2B's `POST /sandboxes/{id}/snapshots`, `GET /snapshots`,
//! `DELETE /templates/{id}`, and `Sandbox.create(<snapshot>)`): a sandbox's files kept
//! under a name, to start new sandboxes from.
//!
//! A snapshot is a copy of the sandbox's directory (a btrfs snapshot with disk quotas:
//! milliseconds, sharing every block) in `<sandboxes>/.snapshots/<key>/`, described by
//! `<key>.json` (written last: a directory without it is a snapshot a killed daemon left
//! half-made, removed at the next start). A sandbox made from it gets its own copy, so a
//! snapshot can be deleted while sandboxes made from it run. Like a fork, the files keep
//! their sandbox's uid block; the block stays taken while a snapshot holds it.
//!
//! Names: E2B's snapshots are templates, named `<name>:<tag>`; an unnamed snapshot gets
//! a generated id. `snap-1` is `snap-1:default`.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;

use serde::{Deserialize, Serialize};

use crate::server::Slot;
use crate::server::context::Control;
use crate::server::control_error::{ControlError, ControlResult};
use crate::server::described::{Described, remove_dir};
use crate::server::files::{now_ms, random_hex};
use crate::spec::Isolation;

pub use crate::server::held_blocks::SNAPSHOTS_DIR as DIR;
const DEFAULT_TAG: &str = "default";

/// A snapshot as kept in `<key>.json`.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Snapshot {
    /// The directory's name (ids and names may hold `/` and `:`; keys do not).
    pub key: String,
    #[serde(rename = "snapshotID")]
    pub snapshot_id: String,
    pub names: Vec<String>,
    /// The sandbox it was taken from.
    #[serde(rename = "sandboxID")]
    pub sandbox_id: String,
    /// The template of that sandbox: what a sandbox made from it runs.
    #[serde(rename = "templateID")]
    pub template_id: String,
    pub isolation: Option<Isolation>,
    /// The sandbox's `envVars`, the default of a sandbox made from the snapshot.
    pub env_vars: BTreeMap<String, String>,
    pub created_at_ms: u64,
    /// Its memory too (a gVisor sandbox's checkpoint, among its files): sandboxes made
    /// from it start with its processes running.
    #[serde(default)]
    pub memory: Option<crate::server::record::Checkpoint>,
}

impl Snapshot {
    /// E2B's SnapshotInfo.
    pub fn info(&self) -> dsh_proto::control::Snapshot {
        dsh_proto::control::Snapshot {
            names: self.names.clone(),
            snapshot_id: self.snapshot_id.clone(),
        }
    }

    /// Whether `reference` (an id, a name, or a name without its tag) names this one.
    pub fn is_named(&self, reference: &str) -> bool {
        self.snapshot_id == reference
            || self.names.iter().any(|name| name == reference || *name == qualified(reference))
    }
}

/// `name` with E2B's default tag when it has none.
fn qualified(name: &str) -> String {
    if name.contains(':') { name.to_owned() } else { format!("{name}:{DEFAULT_TAG}") }
}

/// A snapshot name: `name` or `name:tag`, each part 1 to 128 of `[a-z0-9._-]` (and `/`
/// in the name), as template names are.
fn check_name(name: &str) -> ControlResult<String> {
    let qualified = qualified(name);
    let valid_part = |part: &str, slash: bool| {
        (1..=128).contains(&part.len())
            && part.bytes().all(|b| {
                b.is_ascii_lowercase()
                    || b.is_ascii_digit()
                    || matches!(b, b'.' | b'_' | b'-')
                    || (slash && b == b'/')
            })
    };
    match qualified.split_once(':') {
        Some((base, tag)) if valid_part(base, true) && valid_part(tag, false) => Ok(qualified),
        _ => Err(ControlError::Invalid(format!(
            "invalid snapshot name {name:?}: use lowercase letters, digits, '.', '_', '-' \
             (and '/'), with an optional ':tag'"
        ))),
    }
}

fn store(shared: &Control) -> Described {
    Described::new(shared.store.root().join(DIR), "snapshot")
}

/// The directory holding `snapshot`'s files.
pub fn files(shared: &Control, snapshot: &Snapshot) -> PathBuf {
    store(shared).dir(&snapshot.key)
}

/// Every snapshot, newest first.
pub fn list(shared: &Control) -> Vec<Snapshot> {
    let mut snapshots: Vec<Snapshot> = store(shared).list(|s: &Snapshot| &s.key);
    snapshots.sort_by(|a, b| b.created_at_ms.cmp(&a.created_at_ms).then(a.key.cmp(&b.key)));
    snapshots
}

/// The snapshot `reference` names, if any.
pub fn find(shared: &Control, reference: &str) -> Option<Snapshot> {
    list(shared).into_iter().find(|s| s.is_named(reference))
}

/// Takes a snapshot of the running or paused sandbox in `slot` (the caller holds its
/// `ops` lock). A running gVisor sandbox's memory is taken too: saved next to its files,
/// copied with them, and the sandbox goes on from that checkpoint.
pub async fn take(
    shared: &Arc<Control>,
    slot: &Slot,
    name: Option<String>,
) -> ControlResult<Snapshot> {
    let record = slot.record();
    let names = match name.as_deref() {
        Some(name) => vec![check_name(name)?],
        None => Vec::new(),
    };
    let _writing = shared.names_lock.lock().await;
    if let Some(name) = names.first()
        && find(shared, name).is_some()
    {
        return Err(ControlError::Conflict(format!(
            "snapshot '{name}' already exists: delete it first or choose another name"
        )));
    }
    // A runtime that keeps memory on disk (gVisor) snapshots it too.
    let with_memory = crate::server::runtime::of(record.runtime).memory_kept()
        == crate::server::runtime::MemoryKept::OnDisk
        && record.phase == crate::server::record::Phase::Running;
    if with_memory {
        crate::server::lifecycle::checkpoint(shared, slot, true).await.map_err(|e| {
            ControlError::Internal(
                e.context(format!("saving sandbox {}'s memory", record.sandbox_id)),
            )
        })?;
    }
    let record = slot.record();
    let copied = copy(shared, &record, names).await;
    if with_memory && let Err(e) = crate::server::lifecycle::start(&shared.shared, slot).await {
        // Its memory and files are kept: it is paused, and a resume restores it.
        tracing::error!(sandbox = %slot.id, error = format!("{e:#}"), "restoring a sandbox after its snapshot");
        slot.lock().record.phase = crate::server::record::Phase::Paused;
        let _ = shared.store.save(&slot.record());
    }
    copied
}

/// The snapshot of `record`'s directory as it is now.
async fn copy(
    shared: &Arc<Control>,
    record: &crate::server::record::Record,
    names: Vec<String>,
) -> ControlResult<Snapshot> {
    let key = random_hex(10);
    let snapshot = Snapshot {
        snapshot_id: names.first().cloned().unwrap_or_else(|| format!("snap-{key}")),
        names,
        key: key.clone(),
        sandbox_id: record.sandbox_id.clone(),
        template_id: record.template_id.clone(),
        isolation: record.isolation,
        env_vars: record.env_vars.clone(),
        created_at_ms: now_ms(),
        memory: record.checkpoint.clone(),
    };
    let owner = shared.clone();
    let kept = snapshot.clone();
    tokio::task::spawn_blocking(move || -> anyhow::Result<()> {
        let snapshots = store(&owner);
        snapshots.prepare()?;
        let target = snapshots.dir(&kept.key);
        let made = owner
            .disk
            .copy_sandbox_dir(&owner.store.sandbox_dir(&kept.sandbox_id), &target)
            .and_then(|()| snapshots.describe(&kept.key, &kept));
        if made.is_err() {
            let _ = remove_dir(&target);
        }
        made
    })
    .await
    .map_err(|e| ControlError::Internal(anyhow::anyhow!("the snapshot task panicked: {e}")))?
    .map_err(|e| {
        ControlError::Internal(e.context(format!("snapshotting sandbox {}", record.sandbox_id)))
    })?;
    tracing::info!(sandbox = %record.sandbox_id, snapshot = %snapshot.snapshot_id, "snapshot taken");
    Ok(snapshot)
}

/// Deletes the snapshot `reference` names; `false` when there is none.
pub async fn delete(shared: &Arc<Control>, reference: &str) -> ControlResult<bool> {
    let _writing = shared.names_lock.lock().await;
    let Some(snapshot) = find(shared, reference) else { return Ok(false) };
    let snapshots = store(shared);
    tokio::task::spawn_blocking(move || snapshots.remove(&snapshot.key))
        .await
        .map_err(|e| ControlError::Internal(anyhow::anyhow!("the snapshot task panicked: {e}")))?
        .map_err(ControlError::Internal)?;
    Ok(true)
}

/// At start: removes snapshot directories without a description (half-made).
pub fn recover(shared: &Control) {
    store(shared).recover();
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn names_get_the_default_tag_and_bad_ones_are_refused() {
        assert_eq!(check_name("snap-1").unwrap(), "snap-1:default");
        assert_eq!(check_name("team/snap.1:v2").unwrap(), "team/snap.1:v2");
        for bad in ["", "Snap", "a b", "a:", ":b", "a:b:c", "a:b/c"] {
            assert!(matches!(check_name(bad), Err(ControlError::Invalid(_))), "{bad}");
        }
    }
}
