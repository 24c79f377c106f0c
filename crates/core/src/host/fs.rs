//! [`Fs`] on the host's filesystem. Blocking system calls run on tokio's blocking pool.

use std::fs::{File, OpenOptions};
use std::io::{Read, Write};
use std::os::unix::fs::{MetadataExt, OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use sha2::{Digest, Sha256};

use super::Host;
use crate::BoxFuture;
use crate::fs::{
    DirEntry, EditOutcome, EditRequest, FileKind, Fs, FsError, Metadata, ReadBytes, ReadText,
    Version, WriteExpectation, WriteOperation, WriteOutcome, apply_edit,
};

/// Runs blocking filesystem work off the async threads.
fn blocking<T, F>(work: F) -> BoxFuture<'static, Result<T, FsError>>
where
    T: Send + 'static,
    F: FnOnce() -> Result<T, FsError> + Send + 'static,
{
    Box::pin(async move {
        tokio::task::spawn_blocking(work)
            .await
            .map_err(|err| FsError::Unavailable(format!("filesystem task failed: {err}")))?
    })
}

fn absolute(path: &Path) -> Result<PathBuf, FsError> {
    if path.is_absolute() {
        Ok(path.to_path_buf())
    } else {
        Err(FsError::RelativePath { path: path.to_path_buf() })
    }
}

/// The content version: the first 128 bits of the SHA-256 of the bytes.
fn version_of(bytes: &[u8]) -> Version {
    version_of_digest(Sha256::digest(bytes))
}

/// A SHA-256 digest's first 128 bits, in lowercase hex.
fn version_of_digest(digest: sha2::digest::Output<Sha256>) -> Version {
    let mut hex = format!("{digest:x}");
    hex.truncate(32);
    Version::new(hex)
}

/// The version of a file, hashing it as a stream.
fn version_of_file(path: &Path) -> Result<Version, FsError> {
    let mut file = File::open(path).map_err(|err| FsError::from_io("open", path, err))?;
    let mut hasher = Sha256::new();
    let mut buffer = vec![0; 256 * 1024];
    loop {
        let read = file.read(&mut buffer).map_err(|err| FsError::from_io("read", path, err))?;
        if read == 0 {
            break;
        }
        hasher.update(&buffer[..read]);
    }
    Ok(version_of_digest(hasher.finalize()))
}

fn kind_of(file_type: std::fs::FileType) -> FileKind {
    if file_type.is_file() {
        FileKind::File
    } else if file_type.is_dir() {
        FileKind::Directory
    } else if file_type.is_symlink() {
        FileKind::Symlink
    } else {
        FileKind::Other
    }
}

fn metadata(path: &Path, follow: bool) -> Result<Metadata, FsError> {
    let path = absolute(path)?;
    let meta = if follow { std::fs::metadata(&path) } else { std::fs::symlink_metadata(&path) }
        .map_err(|err| FsError::from_io("stat", &path, err))?;
    let kind = kind_of(meta.file_type());
    let version = if kind == FileKind::File { Some(version_of_file(&path)?) } else { None };
    Ok(Metadata { kind, size: meta.len(), version })
}

/// What identifies one state of a file cheaply: used to notice a change that happens
/// between hashing a file and replacing it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Fingerprint {
    dev: u64,
    ino: u64,
    size: u64,
    mtime_ns: i128,
    ctime_ns: i128,
}

impl Fingerprint {
    fn of(meta: &std::fs::Metadata) -> Self {
        Self {
            dev: meta.dev(),
            ino: meta.ino(),
            size: meta.size(),
            mtime_ns: i128::from(meta.mtime()) * 1_000_000_000 + i128::from(meta.mtime_nsec()),
            ctime_ns: i128::from(meta.ctime()) * 1_000_000_000 + i128::from(meta.ctime_nsec()),
        }
    }
}

/// A whole file read under a cap, with what it looked like when read.
struct Loaded {
    bytes: Vec<u8>,
    version: Version,
    fingerprint: Fingerprint,
    owner: Owner,
}

/// Mode and owner of a file being replaced, given to its replacement.
#[derive(Debug, Clone, Copy)]
struct Owner {
    mode: u32,
    uid: u32,
    gid: u32,
}

impl Owner {
    fn of(meta: &std::fs::Metadata) -> Self {
        Self { mode: meta.permissions().mode(), uid: meta.uid(), gid: meta.gid() }
    }
}

fn load(path: &Path, max_bytes: u64) -> Result<Loaded, FsError> {
    // Opening a FIFO would block until a writer appears, and a device may never end:
    // only regular files (and directories, for the error) get opened.
    let meta = std::fs::metadata(path).map_err(|err| FsError::from_io("stat", path, err))?;
    if !meta.is_file() && !meta.is_dir() {
        return Err(FsError::InvalidArgument(format!("{} is not a regular file", path.display())));
    }
    let file = File::open(path).map_err(|err| FsError::from_io("open", path, err))?;
    let meta = file.metadata().map_err(|err| FsError::from_io("stat", path, err))?;
    if meta.is_dir() {
        return Err(FsError::IsADirectory { path: path.to_path_buf() });
    }
    if meta.len() > max_bytes {
        return Err(FsError::TooLarge {
            path: path.to_path_buf(),
            size: meta.len(),
            limit: max_bytes,
        });
    }
    let mut bytes = Vec::with_capacity(usize::try_from(meta.len()).unwrap_or(0));
    // One byte over the cap tells a file that grew since the stat.
    file.take(max_bytes.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(|err| FsError::from_io("read", path, err))?;
    if bytes.len() as u64 > max_bytes {
        return Err(FsError::TooLarge {
            path: path.to_path_buf(),
            size: bytes.len() as u64,
            limit: max_bytes,
        });
    }
    Ok(Loaded {
        version: version_of(&bytes),
        bytes,
        fingerprint: Fingerprint::of(&meta),
        owner: Owner::of(&meta),
    })
}

fn utf8(path: &Path, bytes: Vec<u8>) -> Result<String, FsError> {
    String::from_utf8(bytes).map_err(|err| FsError::NotUtf8 {
        path: path.to_path_buf(),
        offset: err.utf8_error().valid_up_to() as u64,
    })
}

/// Where a write to `path` lands: the file a symlink points at, so replacing it keeps
/// the link.
fn write_target(path: &Path) -> PathBuf {
    match std::fs::symlink_metadata(path) {
        Ok(meta) if meta.file_type().is_symlink() => {
            std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf())
        }
        _ => path.to_path_buf(),
    }
}

/// A temporary sibling, removed on drop unless it was renamed into place.
struct TempFile {
    path: PathBuf,
    armed: bool,
}

impl Drop for TempFile {
    fn drop(&mut self) {
        if self.armed {
            let _ = std::fs::remove_file(&self.path);
        }
    }
}

static TEMP_COUNTER: AtomicU64 = AtomicU64::new(0);

/// Writes `bytes` to a fresh temporary sibling of `target` with the given permissions.
fn write_temp(target: &Path, bytes: &[u8], like: Option<Owner>) -> Result<TempFile, FsError> {
    let parent = target.parent().unwrap_or(Path::new("/"));
    let name = target.file_name().map(|name| name.to_string_lossy()).unwrap_or_default();
    loop {
        let counter = TEMP_COUNTER.fetch_add(1, Ordering::Relaxed);
        let temp = parent.join(format!(".{name}.dsh-{}-{counter}.tmp", std::process::id()));
        let mut options = OpenOptions::new();
        options.write(true).create_new(true).mode(0o666);
        let mut file = match options.open(&temp) {
            Ok(file) => file,
            Err(err) if err.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(err) => return Err(FsError::from_io("create", &temp, err)),
        };
        let guard = TempFile { path: temp, armed: true };
        if let Some(like) = like {
            // Keep the replaced file's mode and (when allowed) owner.
            let _ = file.set_permissions(std::fs::Permissions::from_mode(like.mode & 0o7777));
            let _ = std::os::unix::fs::fchown(&file, Some(like.uid), Some(like.gid));
        }
        file.write_all(bytes).map_err(|err| FsError::from_io("write", &guard.path, err))?;
        return Ok(guard);
    }
}

/// Puts `temp` in place of `target` only if no file is there, atomically.
fn install_new(mut temp: TempFile, target: &Path) -> Result<(), FsError> {
    use rustix::fs::{CWD, RenameFlags, renameat_with};
    match renameat_with(CWD, &temp.path, CWD, target, RenameFlags::NOREPLACE) {
        Ok(()) => {
            temp.armed = false;
            Ok(())
        }
        Err(rustix::io::Errno::EXIST) => Err(FsError::AlreadyExists { path: target.to_path_buf() }),
        Err(rustix::io::Errno::INVAL | rustix::io::Errno::NOSYS) => {
            // The filesystem cannot rename without replacing: a hard link is just as
            // atomic about refusing an existing name.
            std::fs::hard_link(&temp.path, target)
                .map_err(|err| FsError::from_io("link", target, err))
        }
        Err(errno) => Err(FsError::from_io("rename", target, errno.into())),
    }
}

fn install(mut temp: TempFile, target: &Path) -> Result<(), FsError> {
    std::fs::rename(&temp.path, target).map_err(|err| FsError::from_io("rename", target, err))?;
    temp.armed = false;
    Ok(())
}

/// Replaces a file that was loaded as `before`, refusing if it changed in between.
fn replace_loaded(target: &Path, before: &Loaded, bytes: &[u8]) -> Result<Version, FsError> {
    let temp = write_temp(target, bytes, Some(before.owner))?;
    let now = std::fs::metadata(target).map_err(|err| FsError::from_io("stat", target, err))?;
    if Fingerprint::of(&now) != before.fingerprint {
        let actual = version_of_file(target)?;
        if actual != before.version {
            return Err(FsError::StaleVersion {
                path: target.to_path_buf(),
                expected: before.version.clone(),
                actual,
            });
        }
    }
    install(temp, target)?;
    Ok(version_of(bytes))
}

fn ensure_parent(target: &Path) -> Result<(), FsError> {
    if let Some(parent) = target.parent() {
        std::fs::create_dir_all(parent)
            .map_err(|err| FsError::from_io("create directory", parent, err))?;
    }
    Ok(())
}

fn write_text(path: &Path, text: &str, expect: WriteExpectation) -> Result<WriteOutcome, FsError> {
    let target = write_target(&absolute(path)?);
    ensure_parent(&target)?;
    let bytes = text.as_bytes();
    let existing = match std::fs::metadata(&target) {
        Ok(meta) if meta.is_dir() => return Err(FsError::IsADirectory { path: target }),
        Ok(_) => true,
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => false,
        Err(err) => return Err(FsError::from_io("stat", &target, err)),
    };
    match expect {
        WriteExpectation::CreateIfAbsent => {
            if existing {
                return Err(FsError::AlreadyExists { path: target });
            }
            install_new(write_temp(&target, bytes, None)?, &target)?;
            Ok(WriteOutcome { operation: WriteOperation::Create, version: version_of(bytes) })
        }
        WriteExpectation::ReplaceIfVersion(expected) => {
            let before = load(&target, u64::MAX)?;
            if before.version != expected {
                return Err(FsError::StaleVersion {
                    path: target,
                    expected,
                    actual: before.version,
                });
            }
            let version = replace_loaded(&target, &before, bytes)?;
            Ok(WriteOutcome { operation: WriteOperation::Replace, version })
        }
        WriteExpectation::Any => {
            let like = if existing {
                std::fs::metadata(&target).ok().map(|meta| Owner::of(&meta))
            } else {
                None
            };
            install(write_temp(&target, bytes, like)?, &target)?;
            let operation = if existing { WriteOperation::Replace } else { WriteOperation::Create };
            Ok(WriteOutcome { operation, version: version_of(bytes) })
        }
    }
}

fn edit_text(path: &Path, edit: &EditRequest) -> Result<EditOutcome, FsError> {
    let target = write_target(&absolute(path)?);
    let loaded = load(&target, edit.max_bytes)?;
    if let Some(expected) = &edit.expected_version
        && *expected != loaded.version
    {
        return Err(FsError::StaleVersion {
            path: target,
            expected: expected.clone(),
            actual: loaded.version,
        });
    }
    let before = utf8(&target, loaded.bytes.clone())?;
    let (after, replacements) = apply_edit(&target, &before, edit)?;
    let version = replace_loaded(&target, &loaded, after.as_bytes())?;
    Ok(EditOutcome { replacements, version, before, after })
}

fn resolve(path: &Path, cwd: &Path) -> Result<PathBuf, FsError> {
    let joined = if path.is_absolute() { path.to_path_buf() } else { absolute(cwd)?.join(path) };
    let normal = crate::fs::normalize_lexically(&joined);
    // Resolve symlinks in the longest existing prefix; keep the rest as written.
    let mut existing = normal.as_path();
    let mut rest = Vec::new();
    loop {
        if let Ok(real) = std::fs::canonicalize(existing) {
            let mut out = real;
            out.extend(rest.iter().rev());
            return Ok(out);
        }
        match (existing.parent(), existing.file_name()) {
            (Some(parent), Some(name)) => {
                rest.push(name.to_os_string());
                existing = parent;
            }
            _ => return Ok(normal),
        }
    }
}

fn list_dir(path: &Path) -> Result<Vec<DirEntry>, FsError> {
    let path = absolute(path)?;
    let entries = std::fs::read_dir(&path).map_err(|err| FsError::from_io("list", &path, err))?;
    let mut out = Vec::new();
    for entry in entries {
        let entry = entry.map_err(|err| FsError::from_io("list", &path, err))?;
        // An entry removed while listing is simply not listed.
        let Ok(meta) = entry.metadata() else { continue };
        out.push(DirEntry {
            name: entry.file_name().to_string_lossy().into_owned(),
            kind: kind_of(meta.file_type()),
            size: meta.len(),
        });
    }
    out.sort_by(|a, b| a.name.cmp(&b.name));
    Ok(out)
}

fn remove(path: &Path, recursive: bool) -> Result<(), FsError> {
    let path = absolute(path)?;
    let meta =
        std::fs::symlink_metadata(&path).map_err(|err| FsError::from_io("remove", &path, err))?;
    let result = if meta.is_dir() {
        if recursive { std::fs::remove_dir_all(&path) } else { std::fs::remove_dir(&path) }
    } else {
        std::fs::remove_file(&path)
    };
    result.map_err(|err| FsError::from_io("remove", &path, err))
}

fn rename(from: &Path, to: &Path) -> Result<(), FsError> {
    let (from, to) = (absolute(from)?, absolute(to)?);
    std::fs::rename(&from, &to).map_err(|err| {
        // Blame the destination only when the source is known to exist.
        let blamed = if from.symlink_metadata().is_ok() { &to } else { &from };
        FsError::from_io("rename", blamed, err)
    })
}

fn make_dir(path: &Path, parents: bool) -> Result<(), FsError> {
    let path = absolute(path)?;
    let result = if parents { std::fs::create_dir_all(&path) } else { std::fs::create_dir(&path) };
    result.map_err(|err| FsError::from_io("create directory", &path, err))
}

impl Fs for Host {
    fn resolve<'a>(
        &'a self,
        path: &'a Path,
        cwd: &'a Path,
    ) -> BoxFuture<'a, Result<PathBuf, FsError>> {
        let (path, cwd) = (path.to_path_buf(), cwd.to_path_buf());
        blocking(move || resolve(&path, &cwd))
    }

    fn stat<'a>(&'a self, path: &'a Path) -> BoxFuture<'a, Result<Metadata, FsError>> {
        let path = path.to_path_buf();
        blocking(move || metadata(&path, true))
    }

    fn lstat<'a>(&'a self, path: &'a Path) -> BoxFuture<'a, Result<Metadata, FsError>> {
        let path = path.to_path_buf();
        blocking(move || metadata(&path, false))
    }

    fn read_text<'a>(
        &'a self,
        path: &'a Path,
        max_bytes: u64,
    ) -> BoxFuture<'a, Result<ReadText, FsError>> {
        let path = path.to_path_buf();
        blocking(move || {
            let path = absolute(&path)?;
            let loaded = load(&path, max_bytes)?;
            Ok(ReadText { text: utf8(&path, loaded.bytes)?, version: loaded.version })
        })
    }

    fn read_bytes<'a>(
        &'a self,
        path: &'a Path,
        max_bytes: u64,
    ) -> BoxFuture<'a, Result<ReadBytes, FsError>> {
        let path = path.to_path_buf();
        blocking(move || {
            let loaded = load(&absolute(&path)?, max_bytes)?;
            Ok(ReadBytes { bytes: loaded.bytes.into(), version: loaded.version })
        })
    }

    fn write_text<'a>(
        &'a self,
        path: &'a Path,
        text: &'a str,
        expect: WriteExpectation,
    ) -> BoxFuture<'a, Result<WriteOutcome, FsError>> {
        let (path, text) = (path.to_path_buf(), text.to_owned());
        blocking(move || write_text(&path, &text, expect))
    }

    fn edit_text<'a>(
        &'a self,
        path: &'a Path,
        edit: &'a EditRequest,
    ) -> BoxFuture<'a, Result<EditOutcome, FsError>> {
        let (path, edit) = (path.to_path_buf(), edit.clone());
        blocking(move || edit_text(&path, &edit))
    }

    fn list_dir<'a>(&'a self, path: &'a Path) -> BoxFuture<'a, Result<Vec<DirEntry>, FsError>> {
        let path = path.to_path_buf();
        blocking(move || list_dir(&path))
    }

    fn remove<'a>(&'a self, path: &'a Path, recursive: bool) -> BoxFuture<'a, Result<(), FsError>> {
        let path = path.to_path_buf();
        blocking(move || remove(&path, recursive))
    }

    fn rename<'a>(&'a self, from: &'a Path, to: &'a Path) -> BoxFuture<'a, Result<(), FsError>> {
        let (from, to) = (from.to_path_buf(), to.to_path_buf());
        blocking(move || rename(&from, &to))
    }

    fn make_dir<'a>(&'a self, path: &'a Path, parents: bool) -> BoxFuture<'a, Result<(), FsError>> {
        let path = path.to_path_buf();
        blocking(move || make_dir(&path, parents))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_version_is_the_first_128_bits_of_the_sha256_in_lowercase_hex() {
        // SHA-256 of nothing: e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855.
        assert_eq!(version_of(b"").as_str(), "e3b0c44298fc1c149afbf4c8996fb924");
    }

    #[test]
    fn normalize_removes_dots() {
        let normalize = crate::fs::normalize_lexically;
        assert_eq!(normalize(Path::new("/a/./b/../c/")), PathBuf::from("/a/c"));
        assert_eq!(normalize(Path::new("/../x")), PathBuf::from("/x"));
    }
}
