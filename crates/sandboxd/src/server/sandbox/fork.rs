//! Fork (`POST /sandboxes/{id}/fork`): new sandboxes that start from a sandbox's files.
//!
//! A fork gets its parent's files as they are at the fork (a btrfs snapshot of the
//! parent's directory: milliseconds, whatever the parent holds; a copy without disk
//! quotas), its template, environment, metadata, limits and network settings, and a new
//! id and tokens. Its processes start fresh, as after a filesystem-only resume: memory
//! state does not carry over (see docs/sandboxd.md). The parent keeps running untouched.
//!
//! A fork runs in a uid block of its own, as every sandbox does. Its files are the
//! parent's, owned by the parent's block on the host; rather than a pass re-owning every
//! file, the fork's state directory is shown to it through an idmapped mount from that
//! block onto its own (`Isolation::Strict`'s `files`), so what it makes is stored in the
//! files' block too, and the files' block stays taken while any sandbox, snapshot or
//! build holds files of it. An ordinary user's daemon cannot make idmapped mounts: there
//! a fork keeps its parent's block.

use std::sync::Arc;

use anyhow::Context;

use crate::server::files::{now_ms, random_hex};
use crate::server::lifecycle;
use crate::server::record::{Phase, Record};
use crate::server::{Shared, Slot};

/// Makes the files of one fork of `parent` (whose directory must not change meanwhile:
/// the caller holds the parent's `ops` lock) and returns its slot, saved as `creating`
/// first, so that a daemon killed before the fork is started removes it on its next start.
pub async fn make(shared: &Arc<Shared>, parent: &Record) -> anyhow::Result<Arc<Slot>> {
    let now = now_ms();
    let mut network = parent.network.clone();
    network.traffic_access_token = network.traffic_access_token.as_ref().map(|_| random_hex(32));
    let record = Record {
        sandbox_id: String::new(),
        envd_access_token: parent.envd_access_token.as_ref().map(|_| random_hex(32)),
        started_at_ms: now,
        end_at_ms: now,
        phase: Phase::Creating,
        network,
        ..parent.clone()
    };
    let started = std::time::Instant::now();
    let from = shared.store.sandbox_dir(&parent.sandbox_id);
    let slot = from_files(shared, &record, from)
        .await
        .with_context(|| format!("forking sandbox {}", parent.sandbox_id))?;
    let files_us = started.elapsed().as_micros();
    tracing::info!(parent = %parent.sandbox_id, fork = %slot.id, files_us, "fork files made");
    Ok(slot)
}

/// A new sandbox (`record`, in a block of its own over the files' block) whose directory starts as a copy of
/// `from` (a sandbox's or a snapshot's): its slot, saved as `creating` first, so that a
/// daemon killed before it is started removes it on its next start. Not started.
pub async fn from_files(
    shared: &Arc<Shared>,
    record: &Record,
    from: std::path::PathBuf,
) -> anyhow::Result<Arc<Slot>> {
    let slot = shared.insert_fork(record)?;
    let made = async {
        // Unsynced (see `Store::save_unsynced`): lost in a host crash, the half-made
        // sandbox is one the next start removes anyway.
        shared.store.save_unsynced(&slot.record()).context("writing the sandbox record")?;
        let to = shared.store.sandbox_dir(&slot.id);
        let owner = shared.clone();
        tokio::task::spawn_blocking(move || owner.disk.copy_sandbox_dir(&from, &to))
            .await
            .context("the copy task panicked")?
    }
    .await;
    if let Err(e) = made {
        let id = slot.id.clone();
        let owner = shared.clone();
        let removed = tokio::task::spawn_blocking(move || {
            owner.store.remove(&id)?;
            lifecycle::destroy_dir(&id, owner.store.sandbox_dir(&id))
        })
        .await;
        let cleanup = match removed {
            Ok(result) => result,
            Err(panicked) => Err(panicked.into()),
        };
        if let Err(cleanup) = cleanup {
            tracing::error!(sandbox = %slot.id, error = format!("{cleanup:#}"), "removing a half-made sandbox");
        }
        shared.remove_slot(&slot.id);
        return Err(e);
    }
    Ok(slot)
}
