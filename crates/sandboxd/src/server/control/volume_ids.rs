//! Moves the files of volumes made before volumes had a host block of their own into
//! [`IdRange::VOLUMES`], once, at start (see `volumes.rs`).
//!
//! Such a volume's files kept their inside ids on the host: what root inside made was
//! host root's, and a mode 6755 file owned by host root could sit in the image, harmless
//! only while the image stays mounted nosuid. Each entry owned by an id below 65536 gets
//! the same id in the block (`lchown`, never following a link), then its mode back (the
//! kernel drops setuid and setgid bits at a chown): the sandboxes see the same owners and
//! modes as before. An id already in the block is left alone, so a daemon killed midway
//! finishes the move at its next start; the volume's record says it is done last.

use std::io;
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::Path;

use crate::spec::IdRange;

use crate::server::context::Control;
use crate::server::volumes;

/// Moves every volume still without a block into [`IdRange::VOLUMES`]. A volume that
/// cannot be moved is logged and left as it was: sandboxes still mount it (through the
/// idmapping of the inside ids), and the next start tries again.
pub fn migrate(shared: &Control) {
    for volume in volumes::list(&shared.store).into_iter().filter(|v| v.ids.is_none()) {
        let started = std::time::Instant::now();
        let dir = volumes::files(&shared.store, &volume);
        let moved =
            shift_owners(&dir, IdRange::VOLUMES).map_err(anyhow::Error::from).and_then(|entries| {
                volumes::set_block(&shared.store, &volume, IdRange::VOLUMES)?;
                Ok(entries)
            });
        match moved {
            Ok(entries) => tracing::info!(
                volume = %volume.volume_id,
                entries,
                ms = started.elapsed().as_millis() as u64,
                "volume files moved into the volumes' host id block"
            ),
            Err(e) => tracing::error!(
                volume = %volume.volume_id,
                error = format!("{e:#}"),
                "moving a volume's files into the volumes' host id block; it keeps host ids 0-65535 until the next start"
            ),
        }
    }
}

/// Gives every entry under `root` (and `root`) owned by an id below
/// [`IdRange::SIZE`] the same id in `block`, keeping its mode; returns how many entries
/// it changed.
pub fn shift_owners(root: &Path, block: IdRange) -> io::Result<u64> {
    let mut changed = 0;
    let mut pending = vec![root.to_owned()];
    while let Some(path) = pending.pop() {
        let metadata = std::fs::symlink_metadata(&path)?;
        if metadata.is_dir() {
            for entry in std::fs::read_dir(&path)? {
                pending.push(entry?.path());
            }
        }
        let shifted = |id: u32| if id < IdRange::SIZE { Some(block.host_id(id)) } else { None };
        let (uid, gid) = (shifted(metadata.uid()), shifted(metadata.gid()));
        if uid.is_none() && gid.is_none() {
            continue;
        }
        std::os::unix::fs::lchown(&path, uid, gid)?;
        if !metadata.file_type().is_symlink() && metadata.mode() & 0o6000 != 0 {
            std::fs::set_permissions(&path, std::fs::Permissions::from_mode(metadata.mode()))?;
        }
        changed += 1;
    }
    Ok(changed)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn owners_below_a_block_move_into_it_with_their_modes_and_others_stay() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("volume");
        std::fs::create_dir(&root).unwrap();
        std::os::unix::fs::chown(&root, Some(1000), Some(1000)).unwrap();
        let setuid = root.join("setuid");
        std::fs::write(&setuid, b"#!/bin/sh\n").unwrap();
        std::fs::set_permissions(&setuid, std::fs::Permissions::from_mode(0o6755)).unwrap();
        std::fs::create_dir(root.join("sub")).unwrap();
        std::os::unix::fs::symlink("/etc/shadow", root.join("sub/link")).unwrap();
        let moved = root.join("sub/moved");
        std::fs::write(&moved, b"").unwrap();
        let block = IdRange { host_base: 1 << 29 };
        std::os::unix::fs::chown(&moved, Some(block.host_id(5)), Some(block.host_id(6))).unwrap();

        assert_eq!(shift_owners(&root, block).unwrap(), 4);
        let owner = |path: &Path| {
            let m = std::fs::symlink_metadata(path).unwrap();
            (m.uid() - block.host_base, m.gid() - block.host_base, m.mode() & 0o7777)
        };
        assert_eq!(owner(&root), (1000, 1000, 0o755));
        assert_eq!(owner(&setuid), (0, 0, 0o6755));
        assert_eq!(owner(&root.join("sub")), (0, 0, 0o755));
        assert_eq!(owner(&root.join("sub/link")).0, 0);
        assert_eq!(owner(&moved), (5, 6, 0o644));
        // The link's target was not touched.
        assert_eq!(std::fs::metadata("/etc/shadow").unwrap().uid(), 0);
        // A second pass (a daemon killed after the first) changes nothing.
        assert_eq!(shift_owners(&root, block).unwrap(), 0);
    }
}
