//! What the host has at the paths a template names, probed once by the launcher so the
//! plan itself stays a pure function.

use std::collections::BTreeMap;
use std::fs;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum HostEntry {
    /// Nothing there (or unreadable): the path is skipped.
    Missing,
    /// A directory: shown as an overlay whose upper layer copies these attributes
    /// (overlayfs shows the upper directory's mode and owner for the merged root).
    Dir { mode: u32, uid: u32, gid: u32 },
    /// A regular file (or device, socket...): bind-mounted read-only.
    File,
    /// A symlink (`/bin -> usr/bin` on merged-usr systems): recreated as is.
    Symlink { target: PathBuf },
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct HostLayout {
    entries: BTreeMap<PathBuf, HostEntry>,
}

impl HostLayout {
    /// Looks at each path without following a final symlink.
    pub fn probe<'a>(paths: impl IntoIterator<Item = &'a Path>) -> HostLayout {
        let entries = paths.into_iter().map(|path| (path.to_owned(), probe_one(path))).collect();
        HostLayout { entries }
    }

    /// A layout given explicitly (tests, or a caller that knows better).
    pub fn from_entries(entries: impl IntoIterator<Item = (PathBuf, HostEntry)>) -> HostLayout {
        HostLayout { entries: entries.into_iter().collect() }
    }

    pub fn get(&self, path: &Path) -> &HostEntry {
        self.entries.get(path).unwrap_or(&HostEntry::Missing)
    }
}

fn probe_one(path: &Path) -> HostEntry {
    let Ok(meta) = fs::symlink_metadata(path) else {
        return HostEntry::Missing;
    };
    let kind = meta.file_type();
    if kind.is_symlink() {
        match fs::read_link(path) {
            Ok(target) => HostEntry::Symlink { target },
            Err(_) => HostEntry::Missing,
        }
    } else if kind.is_dir() {
        HostEntry::Dir { mode: meta.mode() & 0o7777, uid: meta.uid(), gid: meta.gid() }
    } else {
        HostEntry::File
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;
    use std::os::unix::fs::{PermissionsExt, symlink};

    #[test]
    fn probe_tells_directories_symlinks_files_and_missing_paths_apart() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path().join("d");
        fs::create_dir(&d).unwrap();
        fs::set_permissions(&d, fs::Permissions::from_mode(0o750)).unwrap();
        let l = dir.path().join("l");
        symlink("d", &l).unwrap();
        let f = dir.path().join("f");
        fs::write(&f, "x").unwrap();
        let m = dir.path().join("m");
        let layout = HostLayout::probe([d.as_path(), l.as_path(), f.as_path(), m.as_path()]);
        let meta = fs::metadata(&d).unwrap();
        assert_eq!(
            layout.get(&d),
            &HostEntry::Dir { mode: 0o750, uid: meta.uid(), gid: meta.gid() }
        );
        assert_eq!(layout.get(&l), &HostEntry::Symlink { target: PathBuf::from("d") });
        assert_eq!(layout.get(&f), &HostEntry::File);
        assert_eq!(layout.get(&m), &HostEntry::Missing);
        assert_eq!(layout.get(Path::new("/never/probed")), &HostEntry::Missing);
    }
}
