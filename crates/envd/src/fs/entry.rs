//! `EntryInfo` as envd reports it: lstat facts, the target's type and permission bits
//! for symlinks, Go's permission string, owner names and `user.e2b.*` metadata.

use std::collections::HashMap;
use std::fs::Metadata;
use std::os::unix::fs::{FileTypeExt as _, MetadataExt as _, PermissionsExt as _};
use std::path::Path;

use dsh_proto::connect::ConnectError;
use dsh_proto::filesystem::{EntryInfo, FileType};

use crate::users::UserDb;

/// Extended attributes under this prefix are a file's metadata.
pub const METADATA_XATTR_PREFIX: &str = "user.e2b.";

pub fn entry_info(path: &Path, users: &UserDb) -> std::io::Result<EntryInfo> {
    let lstat = std::fs::symlink_metadata(path)?;
    Ok(entry_from_metadata(path, &lstat, users))
}

pub fn entry_from_metadata(path: &Path, lstat: &Metadata, users: &UserDb) -> EntryInfo {
    let is_symlink = lstat.file_type().is_symlink();
    let (file_type, mode, symlink_target) = if is_symlink {
        let target = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
        match std::fs::metadata(path) {
            Ok(target_meta) => (
                type_of(&target_meta),
                target_meta.permissions().mode() & 0o777,
                Some(target.to_string_lossy().into_owned()),
            ),
            Err(_) => (FileType::Unspecified, 0, Some(target.to_string_lossy().into_owned())),
        }
    } else {
        (type_of(lstat), lstat.permissions().mode() & 0o777, None)
    };
    // Clamped into years 1 to 9999: a file whose mtime a program set beyond them (`touch
    // -d` can) must not make its directory's listing unanswerable in JSON.
    let modified_time = (lstat.mtime() != 0 || lstat.mtime_nsec() != 0).then(|| {
        dsh_proto::timestamp::Timestamp::clamped(lstat.mtime(), lstat.mtime_nsec() as i32)
    });
    EntryInfo {
        name: path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| "/".to_owned()),
        r#type: file_type as i32,
        path: path.to_string_lossy().into_owned(),
        size: reported_size(lstat) as i64,
        mode,
        permissions: go_mode_string(lstat),
        owner: users.user_name(lstat.uid()),
        group: users.group_name(lstat.gid()),
        modified_time,
        symlink_target,
        metadata: read_metadata(path),
        is_symlink,
    }
}

/// `st_size`, except for a directory: whole blocks, at least one, as ext4 (E2B's
/// sandboxes' filesystem) reports. Where a sandbox's files live on btrfs (local sandboxes
/// with disk quotas) an empty directory's `st_size` is 0, and programs written against
/// E2B read a directory's size as its space on disk.
fn reported_size(metadata: &Metadata) -> u64 {
    if !metadata.is_dir() {
        return metadata.size();
    }
    let block = metadata.blksize().max(512);
    metadata.size().div_ceil(block).max(1) * block
}

fn type_of(metadata: &Metadata) -> FileType {
    if metadata.is_dir() {
        FileType::Directory
    } else if metadata.is_file() {
        FileType::File
    } else {
        // Devices, sockets and pipes have no FileType of their own on this wire.
        FileType::Unspecified
    }
}

/// Go's `FileMode.String()`: type letters from "dalTLDpSugct?" (none → '-'), then rwx.
pub fn go_mode_string(metadata: &Metadata) -> String {
    let file_type = metadata.file_type();
    let raw = metadata.mode();
    let mut out = String::with_capacity(12);
    let flags = [
        ('d', file_type.is_dir()),
        ('L', file_type.is_symlink()),
        ('D', file_type.is_block_device() || file_type.is_char_device()),
        ('p', file_type.is_fifo()),
        ('S', file_type.is_socket()),
        ('u', raw & 0o4000 != 0),
        ('g', raw & 0o2000 != 0),
        ('c', file_type.is_char_device()),
        ('t', raw & 0o1000 != 0),
    ];
    for (letter, set) in flags {
        if set {
            out.push(letter);
        }
    }
    if out.is_empty() {
        out.push('-');
    }
    for (i, letter) in "rwxrwxrwx".chars().enumerate() {
        out.push(if raw & (1 << (8 - i)) != 0 { letter } else { '-' });
    }
    out
}

/// The file's `user.e2b.*` attributes with the prefix removed; empty where the
/// filesystem has no user xattrs.
pub fn read_metadata(path: &Path) -> HashMap<String, String> {
    let mut metadata = HashMap::new();
    let mut names = vec![0u8; 4096];
    let Ok(len) = rustix::fs::llistxattr(path, &mut names) else { return metadata };
    for name in names[..len].split(|b| *b == 0).filter(|n| !n.is_empty()) {
        let Ok(name) = std::str::from_utf8(name) else { continue };
        let Some(key) = name.strip_prefix(METADATA_XATTR_PREFIX) else { continue };
        let mut value = vec![0u8; 4096];
        if let Ok(n) = rustix::fs::lgetxattr(path, name, &mut value) {
            metadata.insert(key.to_owned(), String::from_utf8_lossy(&value[..n]).into_owned());
        }
    }
    metadata
}

/// Replaces the file's whole metadata set.
pub fn write_metadata(path: &Path, metadata: &[(String, String)]) -> Result<(), ConnectError> {
    for old in read_metadata(path).keys() {
        let _ = rustix::fs::removexattr(path, format!("{METADATA_XATTR_PREFIX}{old}").as_str());
    }
    for (key, value) in metadata {
        rustix::fs::setxattr(
            path,
            format!("{METADATA_XATTR_PREFIX}{key}").as_str(),
            value.as_bytes(),
            rustix::fs::XattrFlags::empty(),
        )
        .map_err(|err| ConnectError::internal(format!("failed to set metadata {key:?}: {err}")))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    #[test]
    fn mode_strings_match_go() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("f");
        std::fs::write(&file, b"x").unwrap();
        std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o644)).unwrap();
        assert_eq!(go_mode_string(&std::fs::metadata(&file).unwrap()), "-rw-r--r--");
        std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o4755)).unwrap();
        assert_eq!(go_mode_string(&std::fs::metadata(&file).unwrap()), "urwxr-xr-x");
        let sticky = dir.path().join("t");
        std::fs::create_dir(&sticky).unwrap();
        std::fs::set_permissions(&sticky, std::fs::Permissions::from_mode(0o1777)).unwrap();
        assert_eq!(go_mode_string(&std::fs::metadata(&sticky).unwrap()), "dtrwxrwxrwx");
        let link = dir.path().join("l");
        std::os::unix::fs::symlink(&file, &link).unwrap();
        assert_eq!(go_mode_string(&std::fs::symlink_metadata(&link).unwrap()), "Lrwxrwxrwx");
        assert_eq!(go_mode_string(&std::fs::metadata("/dev/null").unwrap()), "Dcrw-rw-rw-");
    }

    #[test]
    fn symlink_entries_describe_their_target() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("target");
        std::fs::create_dir(&target).unwrap();
        std::fs::set_permissions(&target, std::fs::Permissions::from_mode(0o750)).unwrap();
        let link = dir.path().join("link");
        std::os::unix::fs::symlink(&target, &link).unwrap();
        let users = UserDb::system();
        let entry = entry_info(&link, &users).unwrap();
        assert_eq!(entry.r#type, FileType::Directory as i32);
        assert_eq!(entry.mode, 0o750);
        assert!(entry.is_symlink);
        let canonical = std::fs::canonicalize(&target).unwrap();
        assert_eq!(entry.symlink_target.as_deref(), Some(canonical.to_str().unwrap()));
        assert_eq!(entry.path, link.to_str().unwrap());
        assert_eq!(entry.size, target.to_str().unwrap().len() as i64);

        let dangling = dir.path().join("dangling");
        std::os::unix::fs::symlink(dir.path().join("missing"), &dangling).unwrap();
        let entry = entry_info(&dangling, &users).unwrap();
        assert_eq!(entry.r#type, FileType::Unspecified as i32);
        assert_eq!(entry.mode, 0);
    }

    /// A directory is at least one block whatever its filesystem says (tmpfs: 40 bytes for
    /// an empty one, btrfs: 0); a file is its exact size.
    #[test]
    fn a_directory_reports_whole_blocks_and_a_file_its_bytes() {
        let dir = tempfile::tempdir_in("/dev/shm").unwrap();
        let empty = dir.path().join("empty");
        std::fs::create_dir(&empty).unwrap();
        let metadata = std::fs::metadata(&empty).unwrap();
        assert_eq!((metadata.size(), metadata.blksize()), (40, 4096));
        let users = UserDb::system();
        assert_eq!(entry_info(&empty, &users).unwrap().size, 4096);
        let file = dir.path().join("f");
        std::fs::write(&file, b"seven b").unwrap();
        assert_eq!(entry_info(&file, &users).unwrap().size, 7);
    }
}
