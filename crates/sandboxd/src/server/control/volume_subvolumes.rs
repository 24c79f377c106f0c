//! Volumes made by daemons before sizes are plain directories: each is converted once, at
//! start, into a subvolume limited to its size (see `volume_quota.rs`).

use std::collections::HashSet;
use std::os::unix::fs::MetadataExt as _;
use std::path::Path;
use std::time::{Duration, Instant};

use anyhow::Context;

use crate::btrfs;
use crate::server::context::Control;
use crate::server::described::{Described, remove_dir};
use crate::server::volume_quota::{default_mb, limit};
use crate::server::volumes::{self, Volume};

/// Bound on one volume's copy into its subvolume (reflinks make it quick on btrfs;
/// a slow disk with much data must not hold the daemon's start forever).
const COPY_TIMEOUT: Duration = Duration::from_secs(600);
/// Suffix of the subvolume a plain-directory volume is copied into (see
/// [`migrate_to_subvolumes`]).
const CONVERTING: &str = "converting";

/// Converts, once, each volume that is a plain directory (made by a daemon before volume
/// sizes) into a subvolume limited to [`default_mb`] (or to what it already holds, if
/// more: its files are kept and it is full), and records the size. Call at start, after
/// [`volumes::recover`], before the API serves. A volume that cannot be converted (its
/// copy failed or took over [`COPY_TIMEOUT`]) stays as it was, unlimited, and is tried
/// again at the next start.
///
/// Crash safety: the copy goes to a new subvolume beside the volume, `<key>.converting`;
/// only once it is complete (and synced) does one `renameat2(RENAME_EXCHANGE)` swap the
/// two names, atomically. So `<key>` is always one whole volume (the old directory, then
/// the new subvolume), never missing or half-copied, and `<key>.converting` is always
/// disposable: before the swap a partial copy, after it the old directory. A start finds
/// the state by whether `<key>` is a subvolume: it removes any `<key>.converting`, then
/// converts `<key>` if it is still a plain directory, or only sets the limit and records
/// the size if the daemon died after the swap.
pub fn migrate_to_subvolumes(shared: &Control) {
    if shared.disk.image_mb().is_none() {
        return;
    }
    let store = volumes::store(&shared.store);
    let default = default_mb(shared);
    for mut volume in volumes::list(&shared.store) {
        let started = Instant::now();
        match convert(&store, &mut volume, default) {
            Ok(false) => {}
            Ok(true) => tracing::info!(
                volume = %volume.volume_id,
                name = %volume.name,
                size_mb = volume.size_mb,
                elapsed_ms = started.elapsed().as_millis(),
                "volume converted to a subvolume with a size"
            ),
            Err(e) => tracing::warn!(
                volume = %volume.volume_id,
                name = %volume.name,
                error = format!("{e:#}"),
                "volume left without a size (tried again at the next start)"
            ),
        }
    }
}

/// One volume of [`migrate_to_subvolumes`]; `Ok(true)` when something changed.
fn convert(store: &Described, volume: &mut Volume, default_mb: u64) -> anyhow::Result<bool> {
    let dir = store.dir(&volume.key);
    let temp = store.dir(&format!("{}.{CONVERTING}", volume.key));
    // A partial copy (died before the swap) or the old directory (died after it).
    if temp.symlink_metadata().is_ok() {
        remove_dir(&temp)?;
    }
    let is_subvolume =
        btrfs::is_subvolume(&dir).with_context(|| format!("looking at {}", dir.display()))?;
    if is_subvolume && volume.size_mb != 0 {
        return Ok(false);
    }
    if !is_subvolume {
        btrfs::create_subvolume(&temp)
            .with_context(|| format!("creating the subvolume {}", temp.display()))?;
        if let Err(e) = copy_tree(&dir, &temp) {
            let _ = remove_dir(&temp);
            return Err(e);
        }
        // The copy is on disk before its name becomes the volume's.
        sync(&dir)?;
        rustix::fs::renameat_with(
            rustix::fs::CWD,
            &dir,
            rustix::fs::CWD,
            &temp,
            rustix::fs::RenameFlags::EXCHANGE,
        )
        .with_context(|| format!("swapping {} and {}", dir.display(), temp.display()))?;
        sync(&dir)?;
        remove_dir(&temp)?;
    }
    let held_mb = held_bytes(&dir)?.div_ceil(1 << 20);
    let size_mb = default_mb.max(held_mb);
    limit(&dir, size_mb)?;
    volume.size_mb = size_mb;
    store.describe(&volume.key, &*volume)?;
    Ok(true)
}

/// Copies the tree `from` into the existing directory `to`, as `cp -a` does: owners,
/// modes, timestamps, extended attributes, symlinks and hard links kept, `to` given
/// `from`'s own owner and mode; file data reflinked (shared blocks, no copy) where the
/// filesystem can, as between two subvolumes of one btrfs.
fn copy_tree(from: &Path, to: &Path) -> anyhow::Result<()> {
    let mut cp = std::process::Command::new("cp");
    cp.args(["-a", "--reflink=auto", "--"]).arg(from.join(".")).arg(to);
    crate::command::run_checked(&mut cp, COPY_TIMEOUT)
        .with_context(|| format!("copying {} to {}", from.display(), to.display()))
}

/// Commits the filesystem holding `path` (`syncfs`).
fn sync(path: &Path) -> anyhow::Result<()> {
    let file = std::fs::File::open(path).with_context(|| format!("opening {}", path.display()))?;
    rustix::fs::syncfs(&file).with_context(|| format!("syncing {}", path.display()))
}

/// What the tree under `dir` holds on disk (each hard-linked file once), in bytes.
fn held_bytes(dir: &Path) -> anyhow::Result<u64> {
    let mut seen = HashSet::new();
    let mut total = 0u64;
    let mut pending = vec![dir.to_path_buf()];
    while let Some(path) = pending.pop() {
        let meta = std::fs::symlink_metadata(&path)
            .with_context(|| format!("reading {}", path.display()))?;
        if meta.nlink() > 1 && !meta.is_dir() && !seen.insert(meta.ino()) {
            continue;
        }
        total = total.saturating_add(meta.blocks().saturating_mul(512));
        if meta.is_dir() {
            let entries =
                std::fs::read_dir(&path).with_context(|| format!("listing {}", path.display()))?;
            for entry in entries {
                pending.push(entry.with_context(|| format!("listing {}", path.display()))?.path());
            }
        }
    }
    Ok(total)
}
