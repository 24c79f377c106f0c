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

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct HostLayout {
    entries: BTreeMap<PathBuf, HostEntry>,
    private: Vec<Private>,
    /// Whether host directories can be shown through idmapped mounts: not in a user's
    /// namespace (rootless), where the kernel allows idmapping only filesystems that
    /// namespace mounted, and the host's files stay owned by ids it does not map.
    idmap: bool,
}

impl Default for HostLayout {
    fn default() -> Self {
        HostLayout { entries: BTreeMap::new(), private: Vec::new(), idmap: true }
    }
}

/// A host file or directory inside a shown directory that others may not read (a
/// directory: not enter). The sandbox sees host root's files as its own root's, so each
/// is masked inside: `/etc/shadow`, private keys, database credentials stay the host's.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Private {
    pub path: PathBuf,
    pub is_dir: bool,
}

/// Shown directories not searched for private entries: by the FHS `/usr` holds only
/// shareable, world-readable data, and walking its 100,000+ entries at every create would
/// cost more than the rest of the create. A host that keeps secrets there must leave
/// `/usr` out of its templates.
pub const NOT_SEARCHED: &[&str] = &["/usr"];

impl HostLayout {
    /// Looks at each path without following a final symlink.
    /// Directories are searched for [`Private`] entries (except [`NOT_SEARCHED`]).
    pub fn probe<'a>(paths: impl IntoIterator<Item = &'a Path>) -> HostLayout {
        HostLayout::probe_seeing_dirs(paths, &mut |_| {})
    }

    /// [`HostLayout::probe`], calling `searching` with each directory before it is read
    /// (where [`crate::layout_cache`] watches for changes).
    pub(crate) fn probe_seeing_dirs<'a>(
        paths: impl IntoIterator<Item = &'a Path>,
        searching: &mut dyn FnMut(&Path),
    ) -> HostLayout {
        let mut entries: BTreeMap<PathBuf, HostEntry> =
            paths.into_iter().map(|path| (path.to_owned(), probe_one(path))).collect();
        let mut private = Vec::new();
        for (path, entry) in &entries {
            if matches!(entry, HostEntry::Dir { .. })
                && !NOT_SEARCHED.iter().any(|skipped| path == Path::new(skipped))
            {
                find_private(path, &mut private, searching);
            }
        }
        let idmap = crate::ids::blocks_inside().is_none();
        if !idmap {
            // The host's root owns these; in a user's namespace they show as the overflow
            // id. The sandbox's root owns its copies' upper layers, as on the host.
            for entry in entries.values_mut() {
                if let HostEntry::Dir { uid, gid, .. } = entry {
                    (*uid, *gid) = (unmapped_to_root(*uid), unmapped_to_root(*gid));
                }
            }
        }
        HostLayout { entries, private, idmap }
    }

    /// What a template shows: the host's paths ([`HostLayout::probe`]), or the paths of
    /// an unpacked image's root, keyed by where they are shown (an image's files are the
    /// sandbox's own: none of them is masked as private).
    pub fn probe_template(template: &crate::template::Template) -> HostLayout {
        if template.rootfs.is_none() {
            return HostLayout::probe(template.read_only_paths.iter().map(PathBuf::as_path));
        }
        let entries = template
            .read_only_paths
            .iter()
            .map(|path| (path.clone(), probe_one(&template.source(path))))
            .collect();
        let idmap = crate::ids::blocks_inside().is_none();
        HostLayout { entries, private: Vec::new(), idmap }
    }

    /// A layout given explicitly (tests, or a caller that knows better).
    pub fn from_entries(entries: impl IntoIterator<Item = (PathBuf, HostEntry)>) -> HostLayout {
        HostLayout { entries: entries.into_iter().collect(), private: Vec::new(), idmap: true }
    }

    /// The same layout, shown with (`true`) or without idmapped mounts.
    pub fn with_idmap(mut self, idmap: bool) -> HostLayout {
        self.idmap = idmap;
        self
    }

    /// Whether host directories are shown through idmapped mounts (see the field).
    pub fn idmap(&self) -> bool {
        self.idmap
    }

    /// The same layout with these private entries.
    pub fn with_private(mut self, private: impl IntoIterator<Item = Private>) -> HostLayout {
        self.private = private.into_iter().collect();
        self
    }

    /// Entries others may not read, in the shown directories (sorted by path).
    pub fn private(&self) -> &[Private] {
        &self.private
    }

    pub fn get(&self, path: &Path) -> &HostEntry {
        self.entries.get(path).unwrap_or(&HostEntry::Missing)
    }
}

/// The overflow id (what a user namespace shows for ids it does not map) as 0.
fn unmapped_to_root(id: u32) -> u32 {
    const OVERFLOW_ID: u32 = 65_534;
    if id == OVERFLOW_ID { 0 } else { id }
}

/// Walks `dir` (without following symlinks, not into private directories) and collects
/// what others may not read. Unreadable directories are private themselves.
fn find_private(dir: &Path, private: &mut Vec<Private>, searching: &mut dyn FnMut(&Path)) {
    let mut pending = vec![dir.to_owned()];
    let start = private.len();
    while let Some(dir) = pending.pop() {
        searching(&dir);
        let Ok(entries) = fs::read_dir(&dir) else { continue };
        for entry in entries.flatten() {
            let Ok(meta) = entry.metadata() else { continue };
            let kind = meta.file_type();
            let mode = meta.mode();
            if kind.is_dir() {
                if mode & 0o005 != 0o005 {
                    private.push(Private { path: entry.path(), is_dir: true });
                } else {
                    pending.push(entry.path());
                }
            } else if kind.is_file() && mode & 0o004 == 0 {
                private.push(Private { path: entry.path(), is_dir: false });
            }
        }
    }
    private[start..].sort_by(|a, b| a.path.cmp(&b.path));
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

    #[test]
    fn entries_others_cannot_read_are_found_but_not_walked_into() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("etc");
        let mode = |path: &Path, bits| {
            fs::set_permissions(path, fs::Permissions::from_mode(bits)).unwrap()
        };
        fs::create_dir_all(root.join("ssl/private")).unwrap();
        fs::create_dir_all(root.join("open")).unwrap();
        for (name, bits) in
            [("shadow", 0o640), ("passwd", 0o644), ("open/key", 0o600), ("ssl/private/k", 0o600)]
        {
            fs::write(root.join(name), "x").unwrap();
            mode(&root.join(name), bits);
        }
        mode(&root.join("ssl/private"), 0o700);
        symlink("/etc/shadow", root.join("link")).unwrap();
        let layout = HostLayout::probe([root.as_path()]);
        assert_eq!(
            layout.private(),
            [
                Private { path: root.join("open/key"), is_dir: false },
                Private { path: root.join("shadow"), is_dir: false },
                Private { path: root.join("ssl/private"), is_dir: true },
            ]
        );
        // /usr is not searched (see NOT_SEARCHED).
        assert!(HostLayout::probe([Path::new("/usr")]).private().is_empty());
    }
}
