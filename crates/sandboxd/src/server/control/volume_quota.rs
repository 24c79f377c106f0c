//! Volume sizes: each volume's directory is a btrfs subvolume of the disk image whose
//! referenced bytes are limited to the volume's size (a qgroup limit), as each sandbox's
//! directory is (`disk.rs`). A sandbox writing a volume past its size gets `EDQUOT`
//! inside, a 507 on envd's `/files` and on the volume content API; the image, shared by
//! every sandbox and volume, keeps the rest.
//!
//! The size is `sizeMB` of `POST /volumes` (a dsh extension: E2B's NewVolume has only
//! `name`), else the daemon's `volume_mb`, else its sandboxes' `disk_mb`; never more than
//! the image. It is kept in the volume's record (`sizeMB`; 0 in records from before
//! sizes).
//!
//! Volumes made by daemons before sizes are plain directories: `volume_subvolumes.rs`
//! converts each once, at start. Deleting a volume removes its subvolume the way a
//! sandbox's directory is removed (`remove_dir_all`: unlinking its files, then `rmdir` of
//! the empty subvolume, which root may do); the kernel drops the subvolume's qgroup with
//! it once its cleaner has freed the blocks (Linux 6.8 on; earlier kernels keep an empty
//! "stale" qgroup, which limits nothing).

use std::path::Path;

use anyhow::Context;
use serde_json::Value;

use crate::btrfs;
use crate::server::context::Control;
use crate::server::control_error::{ControlError, ControlResult};
use crate::server::described::remove_dir;

/// The size of a volume whose request names none, in MiB: the daemon's `volume_mb`, else
/// the sandboxes' `disk_mb`; 0 (no quota for sandboxes) or more than the image gives the
/// image's size. 0 without the image (there are no volumes then).
pub fn default_mb(shared: &Control) -> u64 {
    let Some(image_mb) = shared.disk.image_mb() else { return 0 };
    match shared.config.volume_mb.unwrap_or(shared.config.defaults.disk_mb) {
        0 => image_mb,
        mb => mb.min(image_mb),
    }
}

/// The create request's `sizeMB`: a whole number of MiB from 1 to the image's size;
/// absent (or `null`), [`default_mb`].
pub fn requested_mb(shared: &Control, raw: Option<&Value>) -> ControlResult<u64> {
    let image_mb = shared.disk.image_mb().unwrap_or(0);
    let mb = match raw {
        None | Some(Value::Null) => return Ok(default_mb(shared)),
        Some(Value::Number(number)) => number.as_u64(),
        Some(_) => None,
    };
    match mb {
        Some(mb) if (1..=image_mb).contains(&mb) => Ok(mb),
        _ => Err(ControlError::Invalid(format!(
            "sizeMB: {} is not a volume size: give a whole number of MiB from 1 to {image_mb} \
             (the size of the daemon's disk image)",
            raw.map(Value::to_string).unwrap_or_default()
        ))),
    }
}

/// Makes `dir` a new subvolume limited to `mb` MiB (removed again if the limit fails).
pub fn make_dir(dir: &Path, mb: u64) -> anyhow::Result<()> {
    btrfs::create_subvolume(dir)
        .with_context(|| format!("creating the subvolume {}", dir.display()))?;
    let limited = limit(dir, mb);
    if limited.is_err() {
        let _ = remove_dir(dir);
    }
    limited
}

pub(crate) fn limit(dir: &Path, mb: u64) -> anyhow::Result<()> {
    btrfs::limit_referenced(dir, mb << 20)
        .with_context(|| format!("limiting {} to {mb} MiB", dir.display()))
}
