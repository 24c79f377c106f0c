//! Applying image layers (tar streams, untrusted) to a directory.
//!
//! Every path is resolved from a descriptor of the rootfs with `openat2(RESOLVE_IN_ROOT |
//! RESOLVE_NO_MAGICLINKS)`: a symlink an earlier entry planted (`etc -> /host-etc`,
//! `a -> ../../..`) is followed as if the rootfs were `/`, as it will be inside the
//! sandbox, so it can never lead out of the rootfs (that is containerd's scoped
//! resolution, done by the kernel rather than by string checks). The last component of an
//! entry is never followed: an existing file, link or directory there is replaced. Entries
//! whose path has a `..` component or is absolute are skipped, as are device nodes (a
//! sandbox gets its `/dev` from the daemon).
//!
//! Modes are kept as in the image, setuid and setgid bits included: the sandbox mounts its
//! layers `nosuid`, and a daemon-side tool must not execute anything from a rootfs.
//! Owners are kept numerically (the sandbox's idmapped mount maps them into its user
//! namespace).

use std::collections::{HashMap, HashSet};
use std::ffi::OsStr;
use std::io::{self, Read};
use std::os::fd::{AsFd, BorrowedFd, OwnedFd};
use std::os::unix::ffi::OsStrExt;

use rustix::fs::{
    AtFlags, FileType, Mode, OFlags, ResolveFlags, Timespec, Timestamps, fchmod, fchown, futimens,
    linkat, mkdirat, mknodat, openat, openat2, statat, symlinkat, unlinkat, utimensat,
};
use rustix::io::Errno;
use rustix::process::{Gid, Uid};

/// Linux's PATH_MAX: a longer entry path could not be opened inside the sandbox anyway.
const MAX_PATH: usize = 4096;
const WHITEOUT: &[u8] = b".wh.";
const OPAQUE: &[u8] = b".wh..wh..opq";

/// Limits over all the layers of one image.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    pub max_bytes: u64,
    pub max_entries: u64,
}

#[derive(Debug)]
pub enum UnpackError {
    /// The layer is not a valid tar (or gzip) stream.
    Corrupt(String),
    /// Over [`Limits`].
    TooLarge(String),
    Unsupported(String),
    /// The host filesystem failed (disk full, …).
    Io(String),
    /// The stream feeding the layer failed: the download's own error says why.
    Source,
}

/// State kept across the layers of one image.
pub struct Unpacker {
    root: OwnedFd,
    limits: Limits,
    bytes: u64,
    entries: u64,
    /// Directory mtimes, set once every layer is applied (adding entries changes them).
    dir_times: HashMap<Vec<u8>, Timestamps>,
    /// What was skipped, for the pull's log.
    pub warnings: Vec<String>,
}

/// A marker the reader feeding a layer returns when its source (the download) failed.
#[derive(Debug)]
pub struct SourceFailed;

impl std::fmt::Display for SourceFailed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("the layer's download failed")
    }
}

impl std::error::Error for SourceFailed {}

impl Unpacker {
    pub fn new(root: &std::path::Path, limits: Limits) -> Result<Unpacker, UnpackError> {
        let root = rustix::fs::open(
            root,
            OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC,
            Mode::empty(),
        )
        .map_err(|e| UnpackError::Io(format!("open {}: {e}", root.display())))?;
        Ok(Unpacker {
            root,
            limits,
            bytes: 0,
            entries: 0,
            dir_times: HashMap::new(),
            warnings: Vec::new(),
        })
    }

    /// Applies one layer; `reader` is the raw blob (gzip or plain tar, sniffed).
    pub fn apply_layer(&mut self, index: usize, reader: &mut dyn Read) -> Result<(), UnpackError> {
        let mut magic = [0u8; 4];
        let mut filled = 0;
        while filled < magic.len() {
            match reader.read(&mut magic[filled..]) {
                Ok(0) => break,
                Ok(n) => filled += n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(read_error(e, index)),
            }
        }
        let head = io::Cursor::new(magic[..filled].to_vec());
        let mut stream = head.chain(&mut *reader);
        let result = if magic[..filled].starts_with(&[0x1f, 0x8b]) {
            self.apply_tar(index, flate2::read::MultiGzDecoder::new(&mut stream))
        } else if magic[..filled] == [0x28, 0xb5, 0x2f, 0xfd] {
            return Err(UnpackError::Unsupported(format!(
                "layer {index} is zstd-compressed; only gzip and uncompressed layers are supported"
            )));
        } else {
            self.apply_tar(index, &mut stream)
        };
        result?;
        // Read what is left (tar padding, a gzip trailer) so the whole blob is hashed.
        io::copy(&mut stream, &mut io::sink()).map_err(|e| read_error(e, index))?;
        Ok(())
    }

    fn apply_tar(&mut self, index: usize, reader: impl Read) -> Result<(), UnpackError> {
        let mut archive = tar::Archive::new(reader);
        // Paths this layer names (and their parents): an opaque marker keeps these.
        let mut this_layer: HashSet<Vec<u8>> = HashSet::new();
        let entries = archive.entries().map_err(|e| read_error(e, index))?;
        for entry in entries {
            let mut entry = entry.map_err(|e| read_error(e, index))?;
            self.entries += 1;
            if self.entries > self.limits.max_entries {
                return Err(UnpackError::TooLarge(format!(
                    "more than {} files in the image",
                    self.limits.max_entries
                )));
            }
            let raw_path = entry.path_bytes().into_owned();
            let Some(path) = normalize(&raw_path) else {
                self.warn(format!(
                    "layer {index}: skipped {:?}: absolute, `..` or too long",
                    lossy(&raw_path)
                ));
                continue;
            };
            let (parent, name) = split(&path);
            if name.starts_with(WHITEOUT) {
                if name == OPAQUE {
                    self.opaque(parent, &this_layer)?;
                } else if name.starts_with(b".wh..wh.") {
                    // aufs' own bookkeeping (`.wh..wh.plnk`), not a whiteout.
                } else {
                    self.whiteout(parent, &name[WHITEOUT.len()..])?;
                }
                continue;
            }
            remember(&mut this_layer, &path);
            let header = entry.header();
            let kind = header.entry_type();
            let mode = header.mode().map_err(|e| read_error(e, index))? & 0o7777;
            let (uid, gid, mtime) = owner_and_time(&mut entry)?;
            let result = match kind {
                tar::EntryType::Regular
                | tar::EntryType::Continuous
                | tar::EntryType::GNUSparse => {
                    let size = entry.header().size().unwrap_or(0);
                    if self.bytes.saturating_add(size) > self.limits.max_bytes {
                        return Err(self.too_large());
                    }
                    self.file(parent, name, &mut entry, index)?
                }
                tar::EntryType::Directory => self.dir(&path, parent, name),
                tar::EntryType::Symlink => match entry.link_name_bytes() {
                    Some(target) => self.symlink(parent, name, &target),
                    None => Err(Skip("a symlink without a target".into())),
                },
                tar::EntryType::Link => match entry.link_name_bytes().and_then(|t| normalize(&t)) {
                    Some(target) if target != path => self.hardlink(parent, name, &target),
                    _ => Err(Skip("a hard link to an absolute, `..` or its own path".into())),
                },
                tar::EntryType::Fifo => self.fifo(parent, name),
                tar::EntryType::Char | tar::EntryType::Block => {
                    Err(Skip("a device node (the sandbox's /dev is its own)".into()))
                }
                other => Err(Skip(format!("an entry of type {other:?}"))),
            };
            match result {
                Ok(Placed { parent: fd, is_dir }) => {
                    self.finish(fd.as_fd(), name, is_dir, uid, gid, mode, mtime, kind, &path)?;
                }
                Err(Skip(why)) => {
                    self.warn(format!("layer {index}: skipped {:?}: {why}", lossy(&path)))
                }
            }
        }
        Ok(())
    }

    /// Sets the directory mtimes recorded while applying the layers.
    pub fn finish_all(&mut self) {
        for (path, times) in std::mem::take(&mut self.dir_times) {
            if let Ok(fd) = self.open_in_root(&path, OFlags::DIRECTORY | OFlags::NOFOLLOW) {
                let _ = futimens(&fd, &times);
            }
        }
    }

    pub fn bytes(&self) -> u64 {
        self.bytes
    }

    pub fn entries(&self) -> u64 {
        self.entries
    }

    fn warn(&mut self, message: String) {
        tracing::debug!("{message}");
        // The log keeps the first few; a hostile image could name millions.
        if self.warnings.len() < 100 {
            self.warnings.push(message);
        }
    }

    fn too_large(&self) -> UnpackError {
        UnpackError::TooLarge(format!(
            "the image unpacks to more than {} bytes",
            self.limits.max_bytes
        ))
    }

    #[allow(clippy::too_many_arguments)]
    fn finish(
        &mut self,
        parent: BorrowedFd<'_>,
        name: &[u8],
        is_dir: bool,
        uid: u32,
        gid: u32,
        mode: u32,
        mtime: Timestamps,
        kind: tar::EntryType,
        path: &[u8],
    ) -> Result<(), UnpackError> {
        let uid = Some(Uid::from_raw(uid));
        let gid = Some(Gid::from_raw(gid));
        if kind == tar::EntryType::Symlink {
            // Symlinks have no mode of their own; chown and utimes apply to the link itself.
            rustix::fs::chownat(parent, os(name), uid, gid, AtFlags::SYMLINK_NOFOLLOW)
                .map_err(io_err)?;
            utimensat(parent, os(name), &mtime, AtFlags::SYMLINK_NOFOLLOW).map_err(io_err)?;
            return Ok(());
        }
        let fd = if name.is_empty() {
            rustix::io::dup(parent).map_err(io_err)?
        } else {
            let flags = if is_dir { OFlags::DIRECTORY } else { OFlags::PATH };
            openat(parent, os(name), flags | OFlags::NOFOLLOW | OFlags::CLOEXEC, Mode::empty())
                .map_err(io_err)?
        };
        if kind == tar::EntryType::Link {
            // A hard link shares its inode (owner, mode, times) with its target.
            return Ok(());
        }
        let fd = if is_dir {
            fd
        } else {
            // O_PATH descriptors cannot fchown; reopen the file itself (never through a link:
            // it was created just now by this entry).
            openat(
                parent,
                os(name),
                OFlags::RDONLY | OFlags::NOFOLLOW | OFlags::NONBLOCK | OFlags::CLOEXEC,
                Mode::empty(),
            )
            .map_err(io_err)?
        };
        // chown clears setuid and setgid bits, so the mode comes after it.
        fchown(&fd, uid, gid).map_err(io_err)?;
        fchmod(&fd, Mode::from_raw_mode(mode)).map_err(io_err)?;
        if is_dir {
            self.dir_times.insert(path.to_vec(), mtime);
        } else {
            futimens(&fd, &mtime).map_err(io_err)?;
        }
        Ok(())
    }

    /// A regular file; a failing read of the layer or the size cap ends the pull (the
    /// outer `Result`), a path that cannot be placed skips the entry.
    fn file(
        &mut self,
        parent: &[u8],
        name: &[u8],
        entry: &mut dyn Read,
        index: usize,
    ) -> Result<Result<Placed, Skip>, UnpackError> {
        let dir = match self.parent(parent) {
            Ok(dir) => dir,
            Err(skip) => return Ok(Err(skip)),
        };
        if let Err(skip) = clear(dir.as_fd(), name) {
            return Ok(Err(skip));
        }
        let fd = match openat(
            &dir,
            os(name),
            OFlags::WRONLY | OFlags::CREATE | OFlags::EXCL | OFlags::NOFOLLOW | OFlags::CLOEXEC,
            Mode::from_raw_mode(0o600),
        ) {
            Ok(fd) => fd,
            Err(e) => return Ok(Err(Skip(format!("create: {e}")))),
        };
        let mut file = std::fs::File::from(fd);
        // One byte past the cap tells "exactly at the cap" from "over it".
        let room = self.limits.max_bytes.saturating_sub(self.bytes).saturating_add(1);
        let mut limited = entry.take(room);
        let mut buf = vec![0u8; 64 * 1024];
        loop {
            let n = match limited.read(&mut buf) {
                Ok(0) => break,
                Ok(n) => n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(read_error(e, index)),
            };
            self.bytes += n as u64;
            if self.bytes > self.limits.max_bytes {
                return Err(self.too_large());
            }
            io::Write::write_all(&mut file, &buf[..n])
                .map_err(|e| UnpackError::Io(format!("write: {e}")))?;
        }
        Ok(Ok(Placed { parent: dir, is_dir: false }))
    }

    fn dir(&mut self, path: &[u8], parent: &[u8], name: &[u8]) -> Result<Placed, Skip> {
        if path.is_empty() {
            let root = rustix::io::dup(&self.root).map_err(|e| Skip(e.to_string()))?;
            return Ok(Placed { parent: root, is_dir: true });
        }
        let dir = self.parent(parent)?;
        match statat(&dir, os(name), AtFlags::SYMLINK_NOFOLLOW) {
            Ok(st) if FileType::from_raw_mode(st.st_mode) == FileType::Directory => {}
            Ok(_) => {
                clear(dir.as_fd(), name)?;
                mkdirat(&dir, os(name), Mode::from_raw_mode(0o700))
                    .map_err(|e| Skip(format!("mkdir: {e}")))?;
            }
            Err(_) => {
                mkdirat(&dir, os(name), Mode::from_raw_mode(0o700))
                    .map_err(|e| Skip(format!("mkdir: {e}")))?;
            }
        }
        Ok(Placed { parent: dir, is_dir: true })
    }

    fn symlink(&mut self, parent: &[u8], name: &[u8], target: &[u8]) -> Result<Placed, Skip> {
        if target.is_empty() || target.contains(&0) {
            return Err(Skip("an empty symlink target".into()));
        }
        let dir = self.parent(parent)?;
        clear(dir.as_fd(), name)?;
        // The target is only data here: it is resolved inside the sandbox, whose root is
        // this rootfs.
        symlinkat(os(target), &dir, os(name)).map_err(|e| Skip(format!("symlink: {e}")))?;
        Ok(Placed { parent: dir, is_dir: false })
    }

    fn hardlink(&mut self, parent: &[u8], name: &[u8], target: &[u8]) -> Result<Placed, Skip> {
        let (target_parent, target_name) = split(target);
        let source = self
            .open_in_root(target_parent, OFlags::DIRECTORY)
            .map_err(|e| Skip(format!("link target's directory: {e}")))?;
        match statat(&source, os(target_name), AtFlags::SYMLINK_NOFOLLOW) {
            Ok(st) if FileType::from_raw_mode(st.st_mode) != FileType::Directory => {}
            Ok(_) => return Err(Skip("a hard link to a directory".into())),
            Err(e) => return Err(Skip(format!("link target: {e}"))),
        }
        let dir = self.parent(parent)?;
        clear(dir.as_fd(), name)?;
        // No AT_SYMLINK_FOLLOW: a link to a symlink links the symlink, never its target.
        linkat(&source, os(target_name), &dir, os(name), AtFlags::empty())
            .map_err(|e| Skip(format!("link: {e}")))?;
        Ok(Placed { parent: dir, is_dir: false })
    }

    fn fifo(&mut self, parent: &[u8], name: &[u8]) -> Result<Placed, Skip> {
        let dir = self.parent(parent)?;
        clear(dir.as_fd(), name)?;
        mknodat(&dir, os(name), FileType::Fifo, Mode::from_raw_mode(0o600), 0)
            .map_err(|e| Skip(format!("mkfifo: {e}")))?;
        Ok(Placed { parent: dir, is_dir: false })
    }

    /// `.wh.<name>`: removes `<name>` (and all below it) from the layers under this one.
    fn whiteout(&mut self, parent: &[u8], name: &[u8]) -> Result<(), UnpackError> {
        if name.is_empty() || name == b"." || name == b".." {
            return Ok(());
        }
        if let Ok(dir) = self.open_in_root(parent, OFlags::DIRECTORY) {
            remove_all(dir.as_fd(), name).map_err(io_err)?;
        }
        Ok(())
    }

    /// `.wh..wh..opq`: the directory shows nothing of the layers under this one; what this
    /// layer put there (before or after the marker) stays.
    fn opaque(&mut self, dir: &[u8], this_layer: &HashSet<Vec<u8>>) -> Result<(), UnpackError> {
        if let Ok(fd) = self.open_in_root(dir, OFlags::DIRECTORY | OFlags::NOFOLLOW) {
            prune(fd.as_fd(), dir, this_layer).map_err(io_err)?;
        }
        Ok(())
    }

    /// The entry's parent directory, created (0755, root-owned, as Docker does) when the
    /// layer does not name it.
    fn parent(&mut self, parent: &[u8]) -> Result<OwnedFd, Skip> {
        match self.open_in_root(parent, OFlags::DIRECTORY) {
            Ok(fd) => return Ok(fd),
            Err(Errno::NOENT) => {}
            Err(e) => return Err(Skip(format!("its directory: {e}"))),
        }
        let mut fd = rustix::io::dup(&self.root).map_err(|e| Skip(e.to_string()))?;
        let mut prefix = Vec::new();
        for part in parent.split(|b| *b == b'/') {
            if !prefix.is_empty() {
                prefix.push(b'/');
            }
            prefix.extend_from_slice(part);
            fd = match self.open_in_root(&prefix, OFlags::DIRECTORY) {
                Ok(next) => next,
                Err(Errno::NOENT) => {
                    mkdirat(&fd, os(part), Mode::from_raw_mode(0o755))
                        .map_err(|e| Skip(format!("mkdir {:?}: {e}", lossy(&prefix))))?;
                    self.open_in_root(&prefix, OFlags::DIRECTORY)
                        .map_err(|e| Skip(format!("its directory: {e}")))?
                }
                Err(e) => return Err(Skip(format!("its directory {:?}: {e}", lossy(&prefix)))),
            };
        }
        Ok(fd)
    }

    fn open_in_root(&self, path: &[u8], flags: OFlags) -> Result<OwnedFd, Errno> {
        let path: &[u8] = if path.is_empty() { b"." } else { path };
        openat2(
            &self.root,
            os(path),
            flags | OFlags::RDONLY | OFlags::CLOEXEC,
            Mode::empty(),
            ResolveFlags::IN_ROOT | ResolveFlags::NO_MAGICLINKS,
        )
    }
}

/// Where an entry was placed: its parent directory, to set owner, mode and times.
struct Placed {
    parent: OwnedFd,
    is_dir: bool,
}

/// Why an entry was left out (logged, the pull goes on).
struct Skip(String);

/// Removes whatever is at `name` (never following it) so a new entry can take its place.
fn clear(dir: BorrowedFd<'_>, name: &[u8]) -> Result<(), Skip> {
    remove_all(dir, name).map_err(|e| Skip(format!("replace the existing entry: {e}")))
}

fn remove_all(dir: BorrowedFd<'_>, name: &[u8]) -> Result<(), Errno> {
    let st = match statat(dir, os(name), AtFlags::SYMLINK_NOFOLLOW) {
        Ok(st) => st,
        Err(Errno::NOENT) => return Ok(()),
        Err(e) => return Err(e),
    };
    if FileType::from_raw_mode(st.st_mode) != FileType::Directory {
        return unlinkat(dir, os(name), AtFlags::empty());
    }
    let fd = openat(
        dir,
        os(name),
        OFlags::RDONLY | OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::CLOEXEC,
        Mode::empty(),
    )?;
    for child in children(fd.as_fd())? {
        remove_all(fd.as_fd(), &child)?;
    }
    unlinkat(dir, os(name), AtFlags::REMOVEDIR)
}

/// Removes everything under `dir` that `keep` does not name (paths relative to the rootfs).
fn prune(dir: BorrowedFd<'_>, prefix: &[u8], keep: &HashSet<Vec<u8>>) -> Result<(), Errno> {
    for child in children(dir)? {
        let mut path = prefix.to_vec();
        if !path.is_empty() {
            path.push(b'/');
        }
        path.extend_from_slice(&child);
        if !keep.contains(&path) {
            remove_all(dir, &child)?;
            continue;
        }
        let st = statat(dir, os(&child), AtFlags::SYMLINK_NOFOLLOW)?;
        if FileType::from_raw_mode(st.st_mode) == FileType::Directory {
            let fd = openat(
                dir,
                os(&child),
                OFlags::RDONLY | OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::CLOEXEC,
                Mode::empty(),
            )?;
            prune(fd.as_fd(), &path, keep)?;
        }
    }
    Ok(())
}

fn children(dir: BorrowedFd<'_>) -> Result<Vec<Vec<u8>>, Errno> {
    let mut names = Vec::new();
    for entry in rustix::fs::Dir::read_from(dir)? {
        let entry = entry?;
        let name = entry.file_name().to_bytes();
        if name != b"." && name != b".." {
            names.push(name.to_vec());
        }
    }
    Ok(names)
}

/// `./a//b/` → `a/b`; `None` for an absolute path, a `..` component, a NUL or a path
/// longer than PATH_MAX.
fn normalize(raw: &[u8]) -> Option<Vec<u8>> {
    if raw.starts_with(b"/") || raw.contains(&0) || raw.len() > MAX_PATH {
        return None;
    }
    let mut out = Vec::with_capacity(raw.len());
    for part in raw.split(|b| *b == b'/') {
        match part {
            b"" | b"." => {}
            b".." => return None,
            part => {
                if !out.is_empty() {
                    out.push(b'/');
                }
                out.extend_from_slice(part);
            }
        }
    }
    Some(out)
}

/// `a/b/c` → (`a/b`, `c`); `c` → (``, `c`).
fn split(path: &[u8]) -> (&[u8], &[u8]) {
    match path.iter().rposition(|b| *b == b'/') {
        Some(at) => (&path[..at], &path[at + 1..]),
        None => (&path[..0], path),
    }
}

/// Records `path` and its parents as named by this layer.
fn remember(set: &mut HashSet<Vec<u8>>, path: &[u8]) {
    let mut end = path.len();
    loop {
        if !set.insert(path[..end].to_vec()) {
            return;
        }
        match path[..end].iter().rposition(|b| *b == b'/') {
            Some(at) => end = at,
            None => return,
        }
    }
}

/// Owner and mtime from the header, overridden by PAX records (ids above 2^21, sub-second
/// times).
fn owner_and_time<R: Read>(
    entry: &mut tar::Entry<'_, R>,
) -> Result<(u32, u32, Timestamps), UnpackError> {
    let header = entry.header();
    let mut uid = header.uid().unwrap_or(0);
    let mut gid = header.gid().unwrap_or(0);
    let mut secs = header.mtime().unwrap_or(0) as i64;
    let mut nanos = 0i64;
    if let Ok(Some(pax)) = entry.pax_extensions() {
        for ext in pax.flatten() {
            let value = ext.value().unwrap_or("");
            match ext.key().unwrap_or("") {
                "uid" => uid = value.parse().unwrap_or(uid),
                "gid" => gid = value.parse().unwrap_or(gid),
                "mtime" => {
                    let (s, frac) = value.split_once('.').unwrap_or((value, ""));
                    secs = s.parse().unwrap_or(secs);
                    let digits: String = frac.chars().take(9).collect();
                    nanos = format!("{digits:0<9}").parse().unwrap_or(0);
                }
                _ => {}
            }
        }
    }
    let uid =
        u32::try_from(uid).map_err(|_| UnpackError::Corrupt(format!("uid {uid} out of range")))?;
    let gid =
        u32::try_from(gid).map_err(|_| UnpackError::Corrupt(format!("gid {gid} out of range")))?;
    let time = Timespec { tv_sec: secs, tv_nsec: nanos };
    Ok((uid, gid, Timestamps { last_access: time, last_modification: time }))
}

fn read_error(error: io::Error, index: usize) -> UnpackError {
    if error.get_ref().is_some_and(|inner| inner.is::<SourceFailed>()) {
        UnpackError::Source
    } else {
        UnpackError::Corrupt(format!("layer {index} is not a valid tar stream: {error}"))
    }
}

fn io_err(error: Errno) -> UnpackError {
    UnpackError::Io(error.to_string())
}

fn os(bytes: &[u8]) -> &OsStr {
    OsStr::from_bytes(bytes)
}

fn lossy(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    #[test]
    fn normalizes_paths() {
        assert_eq!(normalize(b"./a//b/").unwrap(), b"a/b");
        assert_eq!(normalize(b"./").unwrap(), b"");
        assert!(normalize(b"/etc/passwd").is_none());
        assert!(normalize(b"a/../../b").is_none());
        assert!(normalize(b"..").is_none());
        assert_eq!(split(b"a/b/c"), (&b"a/b"[..], &b"c"[..]));
        assert_eq!(split(b"c"), (&b""[..], &b"c"[..]));
    }
}
