//! The `Fs` seam: the sandbox's filesystem as engines see it.
//!
//! All paths given to [`Fs`] methods other than [`Fs::resolve`] are absolute sandbox paths
//! (relative ones are refused with [`FsError::RelativePath`]); resolve a user-supplied path
//! against the session cwd first.
//!
//! Cancellation: drop the future. An operation already handed to the operating system
//! may still finish, but every write is atomic (temporary sibling + rename), so a reader
//! sees either the old or the new file, never a mix.

use std::fmt;
use std::path::{Path, PathBuf};

use crate::BoxFuture;

/// An opaque identifier of a file's content, compared only for equality and only with
/// versions from the same backend.
///
/// The local backend derives it from the content alone (SHA-256, first 128 bits): any
/// change to the bytes yields a new version whatever the timestamp granularity, so a
/// change made between a read and an edit is caught even within the same clock tick.
/// Rewriting identical bytes keeps the version, which is exactly when an edit based on
/// the earlier read is still correct.
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct Version(String);

impl Version {
    /// Wraps a backend's version string.
    pub fn new(id: impl Into<String>) -> Self {
        Self(id.into())
    }

    /// The version as a string, for showing to a model or sending over a wire.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for Version {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl fmt::Debug for Version {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Version({})", self.0)
    }
}

/// What kind of filesystem object a path names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileKind {
    File,
    Directory,
    Symlink,
    /// Sockets, FIFOs, devices.
    Other,
}

/// The result of `stat` / `lstat`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Metadata {
    pub kind: FileKind,
    pub size: u64,
    /// The content version; `Some` only for regular files.
    pub version: Option<Version>,
}

/// A strictly UTF-8 file read whole.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReadText {
    pub text: String,
    pub version: Version,
}

/// A file read whole as bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReadBytes {
    pub bytes: bytes::Bytes,
    pub version: Version,
}

/// What a write expects to find at the path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum WriteExpectation {
    /// No file may exist yet ([`FsError::AlreadyExists`] otherwise). The check and the
    /// creation are one atomic step.
    CreateIfAbsent,
    /// A file must exist with exactly this version ([`FsError::StaleVersion`] or
    /// [`FsError::NotFound`] otherwise).
    ReplaceIfVersion(Version),
    /// Create or replace, whatever is there.
    Any,
}

/// Whether a write created a file or replaced one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WriteOperation {
    Create,
    Replace,
}

/// The result of a write.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WriteOutcome {
    pub operation: WriteOperation,
    pub version: Version,
}

/// A search-and-replace edit of a text file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EditRequest {
    /// The exact text to find; must not be empty.
    pub old: String,
    pub new: String,
    /// Replace every occurrence; when false `old` must occur exactly once.
    pub replace_all: bool,
    /// The version the caller last read; `None` skips the check.
    pub expected_version: Option<Version>,
    /// Files larger than this are refused with [`FsError::TooLarge`].
    pub max_bytes: u64,
}

/// The result of an edit: enough for the caller to render a diff.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EditOutcome {
    pub replacements: usize,
    pub version: Version,
    pub before: String,
    pub after: String,
}

/// One entry of a directory listing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DirEntry {
    pub name: String,
    pub kind: FileKind,
    /// Size from `lstat` (a symlink's own size).
    pub size: u64,
}

/// A filesystem error. Each variant says what the caller can do about it.
#[derive(Debug, thiserror::Error)]
pub enum FsError {
    /// Nothing exists at the path (or a parent is missing). Check the path, or write the
    /// file first.
    #[error("no such file or directory: {path}")]
    NotFound { path: PathBuf },
    /// The file changed since the caller read it. Read it again and redo the change
    /// against the new content.
    #[error("{path} changed since it was read (expected version {expected}, found {actual})")]
    StaleVersion { path: PathBuf, expected: Version, actual: Version },
    /// The file is not valid UTF-8 (first invalid byte at `offset`). Treat it as binary:
    /// use `read_bytes`, or do not edit it as text.
    #[error("{path} is not valid UTF-8 (first invalid byte at offset {offset})")]
    NotUtf8 { path: PathBuf, offset: u64 },
    /// The file is larger than the allowed cap. Read a part of it another way (for example
    /// `head`/`sed` through a command) or raise the cap.
    #[error("{path} is {size} bytes, over the {limit}-byte limit")]
    TooLarge { path: PathBuf, size: u64, limit: u64 },
    /// The sandbox user may not do this. Choose another path or change permissions.
    #[error("permission denied: {path}")]
    PermissionDenied { path: PathBuf },
    /// Something already exists at the path. Replace it explicitly, or pick another path.
    #[error("already exists: {path}")]
    AlreadyExists { path: PathBuf },
    /// A component of the path that must be a directory is not. Fix the path.
    #[error("not a directory: {path}")]
    NotADirectory { path: PathBuf },
    /// The path is a directory where a file was needed. Name a file inside it.
    #[error("is a directory: {path}")]
    IsADirectory { path: PathBuf },
    /// A directory to remove is not empty. Remove it recursively if that is meant.
    #[error("directory not empty: {path}")]
    DirectoryNotEmpty { path: PathBuf },
    /// `old` does not occur in the file. Re-read the file and copy the text exactly.
    #[error("the text to replace was not found in {path}")]
    NoMatch { path: PathBuf },
    /// `old` occurs `count` times but exactly one was required. Add surrounding context
    /// to make it unique, or ask to replace all occurrences.
    #[error("the text to replace occurs {count} times in {path}; expected exactly one")]
    AmbiguousMatch { path: PathBuf, count: usize },
    /// A path that must be absolute was relative. Resolve it against the cwd first.
    #[error("path must be absolute: {path}")]
    RelativePath { path: PathBuf },
    /// The request itself is malformed (for example an empty search text). Fix the
    /// arguments; retrying will not help.
    #[error("invalid argument: {0}")]
    InvalidArgument(String),
    /// The backend is gone (sandbox killed, connection lost). Reconnect or recreate it.
    #[error("filesystem backend unavailable: {0}")]
    Unavailable(String),
    /// Any other I/O failure. Usually not retryable as-is; the message says why.
    #[error("{op} {path}: {source}")]
    Io {
        op: &'static str,
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
}

impl FsError {
    /// Maps an I/O error to the typed variant that fits its kind.
    pub fn from_io(op: &'static str, path: &Path, source: std::io::Error) -> Self {
        use std::io::ErrorKind as K;
        let path = path.to_path_buf();
        match source.kind() {
            K::NotFound => Self::NotFound { path },
            K::PermissionDenied => Self::PermissionDenied { path },
            K::AlreadyExists => Self::AlreadyExists { path },
            K::NotADirectory => Self::NotADirectory { path },
            K::IsADirectory => Self::IsADirectory { path },
            K::DirectoryNotEmpty => Self::DirectoryNotEmpty { path },
            _ => Self::Io { op, path, source },
        }
    }
}

/// The sandbox's filesystem.
///
/// Object-safe: hold it as `Arc<dyn Fs>`. See the module docs for path and cancellation
/// rules.
pub trait Fs: Send + Sync {
    /// The absolute identity of `path` (relative paths are taken against `cwd`): `.` and
    /// `..` removed (lexically, as a shell's `cd` does), then symlinks in the existing
    /// part resolved, so two spellings of the same file resolve equal. The path need not
    /// exist.
    fn resolve<'a>(
        &'a self,
        path: &'a Path,
        cwd: &'a Path,
    ) -> BoxFuture<'a, Result<PathBuf, FsError>>;

    /// Metadata, following symlinks. For a regular file this computes its version, which
    /// may mean reading the whole file.
    fn stat<'a>(&'a self, path: &'a Path) -> BoxFuture<'a, Result<Metadata, FsError>>;

    /// Metadata of the path itself (a symlink is reported as one).
    fn lstat<'a>(&'a self, path: &'a Path) -> BoxFuture<'a, Result<Metadata, FsError>>;

    /// The whole file as strict UTF-8, refused over `max_bytes`.
    fn read_text<'a>(
        &'a self,
        path: &'a Path,
        max_bytes: u64,
    ) -> BoxFuture<'a, Result<ReadText, FsError>>;

    /// The whole file as bytes, refused over `max_bytes`.
    fn read_bytes<'a>(
        &'a self,
        path: &'a Path,
        max_bytes: u64,
    ) -> BoxFuture<'a, Result<ReadBytes, FsError>>;

    /// Writes `text` atomically, creating missing parent directories, if `expect` holds.
    fn write_text<'a>(
        &'a self,
        path: &'a Path,
        text: &'a str,
        expect: WriteExpectation,
    ) -> BoxFuture<'a, Result<WriteOutcome, FsError>>;

    /// Replaces `old` by `new` in a text file, atomically, if the version still matches.
    fn edit_text<'a>(
        &'a self,
        path: &'a Path,
        edit: &'a EditRequest,
    ) -> BoxFuture<'a, Result<EditOutcome, FsError>>;

    /// The entries of a directory, sorted by name, without `.` and `..`.
    fn list_dir<'a>(&'a self, path: &'a Path) -> BoxFuture<'a, Result<Vec<DirEntry>, FsError>>;

    /// Removes a file, symlink or (empty, unless `recursive`) directory.
    fn remove<'a>(&'a self, path: &'a Path, recursive: bool) -> BoxFuture<'a, Result<(), FsError>>;

    /// Renames `from` to `to`, replacing a file at `to`.
    fn rename<'a>(&'a self, from: &'a Path, to: &'a Path) -> BoxFuture<'a, Result<(), FsError>>;

    /// Creates a directory; with `parents`, also its missing parents, and an existing
    /// directory is not an error.
    fn make_dir<'a>(&'a self, path: &'a Path, parents: bool) -> BoxFuture<'a, Result<(), FsError>>;
}

/// `path` made absolute and `.`/`..` removed without touching the filesystem (symlinks
/// are resolved where the path is used); `..` never climbs above `/`. Shared by the
/// backends.
pub fn normalize_lexically(path: &Path) -> PathBuf {
    let mut out = PathBuf::from("/");
    for component in path.components() {
        match component {
            std::path::Component::Normal(part) => out.push(part),
            std::path::Component::ParentDir => {
                out.pop();
            }
            _ => {}
        }
    }
    out
}

/// Applies an edit to `text` (shared by backends that edit on the host side).
///
/// Returns the new text and the number of replacements.
pub fn apply_edit(path: &Path, text: &str, edit: &EditRequest) -> Result<(String, usize), FsError> {
    if edit.old.is_empty() {
        return Err(FsError::InvalidArgument("the text to replace must not be empty".into()));
    }
    let count = text.matches(edit.old.as_str()).count();
    match count {
        0 => Err(FsError::NoMatch { path: path.to_path_buf() }),
        1 => Ok((text.replacen(edit.old.as_str(), &edit.new, 1), 1)),
        n if edit.replace_all => Ok((text.replace(edit.old.as_str(), &edit.new), n)),
        n => Err(FsError::AmbiguousMatch { path: path.to_path_buf(), count: n }),
    }
}
