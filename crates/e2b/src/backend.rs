//! The e2b backend of dsh-core's seams: `Fs`, `Subprocess` and `Terminals` over one
//! sandbox's envd. Engines above cannot tell it from the local backend.
//!
//! Group signals use dsh-envd's `SignalTarget` extension. E2B's envd has none: it takes
//! SIGTERM and SIGKILL only, sends them to the pid and answers `unimplemented` for any
//! other signal (e2b-dev/infra `packages/envd/internal/services/process/signal.go`).
//! Whether the extension is there is asked once per backend (a signal-0 probe, which
//! E2B's envd refuses); without it every group signal is a `kill` run in the sandbox
//! aimed at the group, so a terminal's foreground job is never signalled through the
//! shell's pid.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use bytes::Bytes;
use dsh_core::{
    BoxFuture, DirEntry, EditOutcome, EditRequest, FileKind, Fs, FsError, Metadata, OutputBuffer,
    OutputMode, Process, ProcessControl, ProcessError, ProcessParts, RawExit, ReadBytes, ReadText,
    Signal, SpawnSpec, StdinMode, Subprocess, Terminal, TerminalControl, TerminalError,
    TerminalParts, TerminalSize, TerminalSpec, Terminals, Version, WriteExpectation,
    WriteOperation, WriteOutcome, normalize_lexically,
};
use dsh_proto::connect::Code;
use dsh_proto::filesystem::{EntryInfo, FileType};
use dsh_proto::process::{Signal as WireSignal, SignalTarget};
use futures_util::StreamExt as _;
use sha2::{Digest, Sha256};
use tokio::sync::{mpsc, watch};

use crate::envd::{EnvdClient, ProcessOutput, ProcessStream, StartOptions};
use crate::error::Error;

/// One sandbox as a backend. Cheap to clone.
#[derive(Debug, Clone)]
pub struct SandboxBackend {
    envd: EnvdClient,
    /// Linux user operations run as (`None`: envd's default user).
    user: Option<String>,
    /// Whether envd signals groups itself (dsh-envd's extension); asked once.
    group_signals: Arc<tokio::sync::OnceCell<bool>>,
}

impl SandboxBackend {
    pub fn new(envd: EnvdClient, user: Option<String>) -> Self {
        Self { envd, user, group_signals: Arc::new(tokio::sync::OnceCell::new()) }
    }

    /// Whether envd knows dsh's `SignalTarget` extension: signal 0 to `pid`'s group is
    /// its probe (it reports the group, delivering nothing); E2B's envd answers
    /// `unimplemented` (only TERM and KILL exist there), an older dsh-envd 0.
    async fn signals_groups(&self, pid: u32) -> Result<bool, Error> {
        self.group_signals
            .get_or_try_init(|| async {
                match self
                    .envd
                    .signal(pid, WireSignal::Unspecified, SignalTarget::ProcessGroup)
                    .await
                {
                    Ok(pgid) => Ok(pgid != 0),
                    Err(err) if err.code() == Code::Unimplemented => Ok(false),
                    Err(err) => Err(err),
                }
            })
            .await
            .copied()
    }

    pub fn envd(&self) -> &EnvdClient {
        &self.envd
    }

    fn user(&self) -> Option<&str> {
        self.user.as_deref()
    }

    /// Runs a short helper command in the sandbox (`PATH` set to the system dirs) and
    /// returns its stdout; a non-zero exit is an error carrying stderr.
    pub async fn run_helper(&self, argv: &[&str]) -> Result<String, Error> {
        self.helper(argv).await
    }

    async fn helper(&self, argv: &[&str]) -> Result<String, Error> {
        let (stdout, stderr, exit) = self.helper_run(argv).await?;
        if exit.exit_code != 0 {
            return Err(helper_failed(argv, &exit, &stderr));
        }
        Ok(String::from_utf8_lossy(&stdout).into_owned())
    }

    /// Runs `argv` in the sandbox to its end: (stdout, stderr, how it ended).
    async fn helper_run(
        &self,
        argv: &[&str],
    ) -> Result<(Vec<u8>, Vec<u8>, crate::envd::ExitInfo), Error> {
        let options = StartOptions {
            cmd: argv[0].to_owned(),
            args: argv[1..].iter().map(|a| (*a).to_owned()).collect(),
            envs: HashMap::from([("PATH".to_owned(), HELPER_PATH.to_owned())]),
            user: self.user.clone(),
            timeout: Some(std::time::Duration::from_secs(60)),
            ..StartOptions::default()
        };
        self.envd.start(options).await?.wait().await
    }
}

fn helper_failed(argv: &[&str], exit: &crate::envd::ExitInfo, stderr: &[u8]) -> Error {
    Error::Invalid(format!(
        "{} failed ({}): {}",
        argv.join(" "),
        exit.status,
        String::from_utf8_lossy(stderr).trim()
    ))
}

const HELPER_PATH: &str = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";

// --- Fs -------------------------------------------------------------------------------

/// The content version: the first 128 bits of the SHA-256 of the bytes, as dsh-core's
/// local backend has it.
fn version_of(bytes: &[u8]) -> Version {
    let mut hex = format!("{:x}", Sha256::digest(bytes));
    hex.truncate(32);
    Version::new(hex)
}

fn require_absolute(path: &Path) -> Result<&str, FsError> {
    if !path.is_absolute() {
        return Err(FsError::RelativePath { path: path.to_path_buf() });
    }
    path.to_str()
        .ok_or_else(|| FsError::InvalidArgument(format!("path is not UTF-8: {}", path.display())))
}

/// Maps a client error on `path` to the seam's typed error.
fn fs_error(path: &Path, err: Error) -> FsError {
    let path = path.to_path_buf();
    match &err {
        Error::Transport(message) => return FsError::Unavailable(message.clone()),
        Error::Http { status: 404, .. } => return FsError::NotFound { path },
        Error::Http { status: 400, message } if message.contains("is a directory") => {
            return FsError::IsADirectory { path };
        }
        // dsh-envd's `/files` answers ENOTDIR (a path through a regular file) with a 400
        // ending so, on reads and writes alike; E2B's with a 500 "error checking if path
        // exists '<p>': stat <p>: not a directory" (internal/api/download.go `GetFiles`).
        Error::Http { status: 400, message } if message.ends_with("is not a directory") => {
            return FsError::NotADirectory { path };
        }
        Error::Http { status: 500, message } if message.ends_with(": not a directory") => {
            return FsError::NotADirectory { path };
        }
        _ => {}
    }
    match err.code() {
        Code::NotFound => FsError::NotFound { path },
        Code::AlreadyExists => FsError::AlreadyExists { path },
        Code::PermissionDenied | Code::Unauthenticated => FsError::PermissionDenied { path },
        Code::Unavailable => FsError::Unavailable(unavailable_text(&err)),
        _ => FsError::Io { op: "sandbox", path, source: std::io::Error::other(err.to_string()) },
    }
}

/// Whether an entry is a symlink. E2B's envd sends `EntryInfo` fields 1 to 11 only and
/// marks a link by `symlink_target` alone (set only for links, even dangling ones, to the
/// resolved path or the link's own: e2b-dev/infra
/// `packages/shared/pkg/filesystem/entry.go`, `GetEntryInfo`); its `type` is the
/// target's (unspecified when it dangles). dsh-envd's `is_symlink` (field 1000) is not
/// relied on.
fn is_link(entry: &EntryInfo) -> bool {
    entry.symlink_target.is_some()
}

fn kind_of(entry: &EntryInfo) -> FileKind {
    if is_link(entry) {
        return FileKind::Symlink;
    }
    match FileType::try_from(entry.r#type) {
        Ok(FileType::File) => FileKind::File,
        Ok(FileType::Directory) => FileKind::Directory,
        Ok(FileType::Symlink) => FileKind::Symlink,
        _ => FileKind::Other,
    }
}

impl SandboxBackend {
    async fn entry(&self, path: &Path) -> Result<EntryInfo, FsError> {
        let text = require_absolute(path)?;
        self.envd.stat(text, self.user()).await.map_err(|err| fs_error(path, err))
    }

    /// The content version, hashed inside the sandbox (the file never crosses).
    async fn file_version(&self, path: &Path) -> Result<Version, FsError> {
        let text = require_absolute(path)?;
        let out =
            self.helper(&["sha256sum", "--", text]).await.map_err(|err| fs_error(path, err))?;
        let digest = out.split_whitespace().next().unwrap_or_default();
        if digest.len() != 64 {
            return Err(FsError::Io {
                op: "hash",
                path: path.to_path_buf(),
                source: std::io::Error::other(format!("unexpected sha256sum output {out:?}")),
            });
        }
        Ok(Version::new(&digest[..32]))
    }

    async fn metadata(&self, path: &Path, follow: bool) -> Result<Metadata, FsError> {
        let entry = self.entry(path).await?;
        // envd's entry describes a symlink's target; `lstat` reports the link itself.
        let kind = if !follow && is_link(&entry) {
            FileKind::Symlink
        } else {
            match FileType::try_from(entry.r#type) {
                Ok(FileType::File) => FileKind::File,
                Ok(FileType::Directory) => FileKind::Directory,
                _ if is_link(&entry) => {
                    return Err(FsError::NotFound { path: path.to_path_buf() });
                }
                _ => FileKind::Other,
            }
        };
        let version =
            if kind == FileKind::File { Some(self.file_version(path).await?) } else { None };
        let size = if follow && is_link(&entry) && kind == FileKind::File {
            // The entry's size is the link's; ask for the target's.
            let target = entry.symlink_target.clone().unwrap_or_default();
            self.envd
                .stat(&target, self.user())
                .await
                .map(|e| e.size as u64)
                .unwrap_or(entry.size as u64)
        } else {
            entry.size as u64
        };
        Ok(Metadata { kind, size, version })
    }

    /// One download (no stat first: each round trip counts for language servers that
    /// re-read sources before every request). envd refuses directories and non-regular
    /// files; the announced size is checked against the cap before reading.
    async fn read_checked(&self, path: &Path, max_bytes: u64) -> Result<Bytes, FsError> {
        let text = require_absolute(path)?;
        // E2B's envd opens whatever the path names (internal/api/download.go): a FIFO
        // blocks the answer until a writer comes, a character device answers an empty
        // body. A stat sent alongside (no added round trip) says what the path is; the
        // download is dropped unanswered when it is not a regular file.
        let not_regular =
            || FsError::InvalidArgument(format!("not a regular file: {}", path.display()));
        let special = |entry: &Result<EntryInfo, Error>| {
            let Ok(entry) = entry else { return false };
            let regular_or_dir = matches!(
                FileType::try_from(entry.r#type),
                Ok(FileType::File | FileType::Directory)
            );
            // A dangling link names itself as its target (entry.go `followSymlink`): the
            // download's 404 says so.
            let dangling = entry.symlink_target.as_deref() == Some(text);
            !regular_or_dir && !dangling
        };
        let stat = self.envd.stat(text, self.user());
        let download = self.envd.download_sized(text, self.user());
        tokio::pin!(stat, download);
        let answer = tokio::select! {
            entry = &mut stat => {
                if special(&entry) {
                    return Err(not_regular());
                }
                download.await
            }
            answer = &mut download => {
                if special(&stat.await) {
                    return Err(not_regular());
                }
                answer
            }
        };
        let (announced, stream) = answer.map_err(|err| match &err {
            Error::Http { status: 400, message } if message.ends_with("is a directory") => {
                FsError::IsADirectory { path: path.to_path_buf() }
            }
            Error::Http { status: 400, message } if message.ends_with("is not a regular file") => {
                FsError::InvalidArgument(format!("not a regular file: {}", path.display()))
            }
            _ => fs_error(path, err),
        })?;
        if let Some(size) = announced.filter(|size| *size > max_bytes) {
            return Err(FsError::TooLarge { path: path.to_path_buf(), size, limit: max_bytes });
        }
        let mut stream = Box::pin(stream);
        let size = announced.unwrap_or(0).min(max_bytes);
        let mut out = bytes::BytesMut::with_capacity(size as usize);
        while let Some(chunk) = stream.next().await {
            let chunk = chunk.map_err(|err| fs_error(path, err))?;
            if (out.len() + chunk.len()) as u64 > max_bytes {
                // It grew while we read it.
                return Err(FsError::TooLarge {
                    path: path.to_path_buf(),
                    size: (out.len() + chunk.len()) as u64,
                    limit: max_bytes,
                });
            }
            out.extend_from_slice(&chunk);
        }
        Ok(out.freeze())
    }

    /// Writes `data` next to `path`, then renames it into place (atomic for readers).
    async fn replace_atomically(
        &self,
        path: &Path,
        data: Bytes,
        keep_mode: Option<u32>,
    ) -> Result<(), FsError> {
        let target = require_absolute(path)?;
        let parent = path.parent().unwrap_or(Path::new("/"));
        let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        let nonce: u64 = rand_nonce();
        let temporary = parent.join(format!(".{name}.dsh-{nonce:016x}.tmp"));
        let temporary_text = require_absolute(&temporary)?.to_owned();
        self.envd
            .write_file(&temporary_text, data, self.user())
            .await
            .map_err(|err| fs_error(path, err))?;
        if let Some(mode) = keep_mode.filter(|m| *m != 0o644) {
            let mode = format!("{mode:o}");
            if let Err(err) = self.helper(&["chmod", &mode, "--", &temporary_text]).await {
                let _ = self.envd.remove(&temporary_text, self.user()).await;
                return Err(fs_error(path, err));
            }
        }
        if let Err(err) = self.envd.rename(&temporary_text, target, self.user()).await {
            let _ = self.envd.remove(&temporary_text, self.user()).await;
            return Err(fs_error(path, err));
        }
        Ok(())
    }

    async fn write(
        &self,
        path: &Path,
        text: &str,
        expect: WriteExpectation,
    ) -> Result<WriteOutcome, FsError> {
        let existing = match self.entry(path).await {
            Ok(entry) => Some(entry),
            Err(FsError::NotFound { .. }) => None,
            Err(err) => return Err(err),
        };
        if let Some(entry) = &existing
            && FileType::try_from(entry.r#type) == Ok(FileType::Directory)
        {
            return Err(FsError::IsADirectory { path: path.to_path_buf() });
        }
        match (&expect, &existing) {
            (WriteExpectation::CreateIfAbsent, Some(_)) => {
                return Err(FsError::AlreadyExists { path: path.to_path_buf() });
            }
            (WriteExpectation::ReplaceIfVersion(_), None) => {
                return Err(FsError::NotFound { path: path.to_path_buf() });
            }
            (WriteExpectation::ReplaceIfVersion(expected), Some(_)) => {
                let actual = self.file_version(path).await?;
                if &actual != expected {
                    return Err(FsError::StaleVersion {
                        path: path.to_path_buf(),
                        expected: expected.clone(),
                        actual,
                    });
                }
            }
            _ => {}
        }
        let bytes = Bytes::copy_from_slice(text.as_bytes());
        let version = version_of(&bytes);
        self.replace_atomically(path, bytes, existing.as_ref().map(|e| e.mode)).await?;
        let operation =
            if existing.is_some() { WriteOperation::Replace } else { WriteOperation::Create };
        Ok(WriteOutcome { operation, version })
    }
}

fn rand_nonce() -> u64 {
    use std::hash::{BuildHasher, Hasher};
    let mut hasher = std::collections::hash_map::RandomState::new().build_hasher();
    hasher.write_u128(
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos())
            .unwrap_or(0),
    );
    hasher.finish()
}

fn strict_utf8(path: &Path, bytes: Bytes) -> Result<String, FsError> {
    String::from_utf8(bytes.to_vec()).map_err(|err| FsError::NotUtf8 {
        path: path.to_path_buf(),
        offset: err.utf8_error().valid_up_to() as u64,
    })
}

impl Fs for SandboxBackend {
    fn resolve<'a>(
        &'a self,
        path: &'a Path,
        cwd: &'a Path,
    ) -> BoxFuture<'a, Result<PathBuf, FsError>> {
        Box::pin(async move {
            if path.is_absolute() {
                return Ok(normalize_lexically(path));
            }
            if !cwd.is_absolute() {
                return Err(FsError::RelativePath { path: cwd.to_path_buf() });
            }
            Ok(normalize_lexically(&cwd.join(path)))
        })
    }

    fn stat<'a>(&'a self, path: &'a Path) -> BoxFuture<'a, Result<Metadata, FsError>> {
        Box::pin(self.metadata(path, true))
    }

    fn lstat<'a>(&'a self, path: &'a Path) -> BoxFuture<'a, Result<Metadata, FsError>> {
        Box::pin(self.metadata(path, false))
    }

    fn read_text<'a>(
        &'a self,
        path: &'a Path,
        max_bytes: u64,
    ) -> BoxFuture<'a, Result<ReadText, FsError>> {
        Box::pin(async move {
            let bytes = self.read_checked(path, max_bytes).await?;
            let version = version_of(&bytes);
            Ok(ReadText { text: strict_utf8(path, bytes)?, version })
        })
    }

    fn read_bytes<'a>(
        &'a self,
        path: &'a Path,
        max_bytes: u64,
    ) -> BoxFuture<'a, Result<ReadBytes, FsError>> {
        Box::pin(async move {
            let bytes = self.read_checked(path, max_bytes).await?;
            Ok(ReadBytes { version: version_of(&bytes), bytes })
        })
    }

    fn write_text<'a>(
        &'a self,
        path: &'a Path,
        text: &'a str,
        expect: WriteExpectation,
    ) -> BoxFuture<'a, Result<WriteOutcome, FsError>> {
        Box::pin(self.write(path, text, expect))
    }

    fn edit_text<'a>(
        &'a self,
        path: &'a Path,
        edit: &'a EditRequest,
    ) -> BoxFuture<'a, Result<EditOutcome, FsError>> {
        Box::pin(async move {
            let read = self.read_text(path, edit.max_bytes).await?;
            if let Some(expected) = &edit.expected_version
                && expected != &read.version
            {
                return Err(FsError::StaleVersion {
                    path: path.to_path_buf(),
                    expected: expected.clone(),
                    actual: read.version,
                });
            }
            let (after, replacements) = dsh_core::apply_edit(path, &read.text, edit)?;
            let written =
                self.write(path, &after, WriteExpectation::ReplaceIfVersion(read.version)).await?;
            Ok(EditOutcome { replacements, version: written.version, before: read.text, after })
        })
    }

    fn list_dir<'a>(&'a self, path: &'a Path) -> BoxFuture<'a, Result<Vec<DirEntry>, FsError>> {
        Box::pin(async move {
            let text = require_absolute(path)?;
            let entries =
                self.envd.list_dir(text, 1, self.user()).await.map_err(|err| match err.code() {
                    Code::InvalidArgument => FsError::NotADirectory { path: path.to_path_buf() },
                    _ => fs_error(path, err),
                })?;
            Ok(entries
                .iter()
                .map(|e| DirEntry { name: e.name.clone(), kind: kind_of(e), size: e.size as u64 })
                .collect())
        })
    }

    fn remove<'a>(&'a self, path: &'a Path, recursive: bool) -> BoxFuture<'a, Result<(), FsError>> {
        Box::pin(async move {
            let entry = self.entry(path).await?;
            if !recursive
                && !is_link(&entry)
                && FileType::try_from(entry.r#type) == Ok(FileType::Directory)
            {
                let text = require_absolute(path)?;
                let children = self
                    .envd
                    .list_dir(text, 1, self.user())
                    .await
                    .map_err(|err| fs_error(path, err))?;
                if !children.is_empty() {
                    return Err(FsError::DirectoryNotEmpty { path: path.to_path_buf() });
                }
            }
            self.envd
                .remove(require_absolute(path)?, self.user())
                .await
                .map_err(|err| fs_error(path, err))
        })
    }

    fn rename<'a>(&'a self, from: &'a Path, to: &'a Path) -> BoxFuture<'a, Result<(), FsError>> {
        Box::pin(async move {
            let (source, destination) = (require_absolute(from)?, require_absolute(to)?);
            self.envd
                .rename(source, destination, self.user())
                .await
                .map(|_| ())
                .map_err(|err| fs_error(from, err))
        })
    }

    fn make_dir<'a>(&'a self, path: &'a Path, parents: bool) -> BoxFuture<'a, Result<(), FsError>> {
        Box::pin(async move {
            let text = require_absolute(path)?;
            if !parents {
                let parent = path.parent().unwrap_or(Path::new("/"));
                match self.entry(parent).await {
                    Ok(entry) if FileType::try_from(entry.r#type) == Ok(FileType::Directory) => {}
                    Ok(_) => return Err(FsError::NotADirectory { path: parent.to_path_buf() }),
                    Err(err) => return Err(err),
                }
            }
            match self.envd.make_dir(text, self.user()).await {
                Ok(_) => Ok(()),
                Err(err) if err.code() == Code::AlreadyExists && parents => Ok(()),
                Err(err) if err.code() == Code::InvalidArgument => {
                    Err(FsError::AlreadyExists { path: path.to_path_buf() })
                }
                Err(err) => Err(fs_error(path, err)),
            }
        })
    }
}

// --- processes and terminals ------------------------------------------------------------

fn wire_signal(signal: Signal) -> WireSignal {
    match signal {
        Signal::Hup => WireSignal::Sighup,
        Signal::Int => WireSignal::Sigint,
        Signal::Quit => WireSignal::Sigquit,
        Signal::Kill => WireSignal::Sigkill,
        Signal::Usr1 => WireSignal::Sigusr1,
        Signal::Usr2 => WireSignal::Sigusr2,
        Signal::Term => WireSignal::Sigterm,
        Signal::Cont => WireSignal::Sigcont,
        Signal::Stop => WireSignal::Sigstop,
        Signal::Tstp => WireSignal::Sigtstp,
        Signal::Winch => WireSignal::Sigwinch,
    }
}

/// envd reports signals in Go's words; map the common ones back to numbers.
fn signal_number(status: &str) -> Option<i32> {
    let name = status.strip_prefix("signal: ")?.trim_end_matches(" (core dumped)");
    Some(match name {
        "hangup" => libc_like::SIGHUP,
        "interrupt" => libc_like::SIGINT,
        "quit" => libc_like::SIGQUIT,
        "aborted" => libc_like::SIGABRT,
        "killed" => libc_like::SIGKILL,
        "segmentation fault" => libc_like::SIGSEGV,
        "broken pipe" => libc_like::SIGPIPE,
        "terminated" => libc_like::SIGTERM,
        other => other.strip_prefix("signal ")?.parse().ok()?,
    })
}

/// Linux signal numbers (the sandbox is always Linux, whatever the host is).
mod libc_like {
    pub const SIGHUP: i32 = 1;
    pub const SIGINT: i32 = 2;
    pub const SIGQUIT: i32 = 3;
    pub const SIGABRT: i32 = 6;
    pub const SIGKILL: i32 = 9;
    pub const SIGSEGV: i32 = 11;
    pub const SIGPIPE: i32 = 13;
    pub const SIGTERM: i32 = 15;
}

fn raw_exit(exit: &crate::envd::ExitInfo) -> RawExit {
    if exit.exited {
        RawExit { code: Some(exit.exit_code), signal: None, lost: false }
    } else {
        RawExit { code: None, signal: signal_number(&exit.status), lost: false }
    }
}

/// Signals a process group: dsh-envd's extension, or a `kill` in the sandbox.
async fn signal_group_of(
    backend: &SandboxBackend,
    pid: u32,
    target: SignalTarget,
    signal: Signal,
) -> Result<u32, Error> {
    if backend.signals_groups(pid).await? {
        let pgid = backend.envd.signal(pid, wire_signal(signal), target).await?;
        if pgid != 0 {
            return Ok(pgid);
        }
    }
    // No extension (E2B's envd): sending this signal to envd would reach the pid only (a
    // terminal's shell instead of its job) or be refused; a command in the sandbox
    // reaches the group.
    let group = match target {
        SignalTarget::ForegroundGroup => foreground_by_proc(backend, pid).await?,
        _ => pid,
    };
    backend.kill_group(group, signal).await?;
    Ok(group)
}

/// `kill` in the sandbox ends with this when no process is left in the group.
const GROUP_GONE: i32 = 3;

/// What every command is started under: it makes the command the leader of a new session
/// and process group, with the pid envd reports, so the whole tree it starts can be
/// signalled as one group. E2B's envd starts commands in its own process group (only a
/// `Credential` in `SysProcAttr`: e2b-dev/infra
/// `packages/envd/internal/services/process/handler/handler.go`, `New`) and signals the
/// pid alone (`signal.go`), so without this a kill, a timeout or a drop would end the
/// leader and leave its children running. The shell reads its own group from
/// `/proc/$$/stat` (builtins only); already a leader (dsh-envd starts each command in a
/// session of its own) it just execs. `setsid` (util-linux or busybox) calls setsid(2)
/// and execs without forking when the caller does not lead a group, so the pid stays the
/// command's. A missing program is the shell's own `exec` error (exit 127), as on E2B;
/// an image without `setsid` runs the command in envd's group, and [`KILL_SCRIPT`] then
/// walks the pid's descendants.
const SESSION_SCRIPT: &str = r#"read -r s < /proc/$$/stat || s=
s=${s##*) }; s=${s#* }; s=${s#* }; g=${s%% *}
if [ "$g" != "$$" ] && command -v "$1" >/dev/null 2>&1 && command -v setsid >/dev/null 2>&1; then
exec setsid "$@"
fi
exec "$@""#;

/// Sends signal `$1` to process group `$2` with the shell's built-in `kill` (procps'
/// reads a small negative id, and a sandbox's pids are small, as a signal even after
/// `--`). When no group is numbered after `$2` but the process lives (a command started
/// where `setsid` is missing: E2B's envd leaves it in envd's own group), the process and
/// every descendant (`/proc/<pid>/task/<tid>/children`) get it instead. Nothing left:
/// exit [`GROUP_GONE`].
const KILL_SCRIPT: &str = r#"err=$(kill -s "$1" -- "-$2" 2>&1) && exit 0
case $err in *"No such process"*) ;; *) printf '%s
' "$err" >&2; exit 1 ;; esac
[ -d "/proc/$2" ] || exit 3
all=$2; list=$2
while [ -n "$list" ]; do
next=
for p in $list; do
for c in $(cat /proc/"$p"/task/*/children 2>/dev/null); do next="$next $c"; done
done
all="$all $next"; list=$next
done
kill -s "$1" $all 2>/dev/null
exit 0"#;

/// How long a process's end is awaited after SIGKILL reached its group before it is
/// reported killed anyway: E2B's envd reports an end only once the output pipes close or
/// a SendSignal cut them (`handler.go` `Wait`), and a child that left the group (its own
/// `setsid`) may hold them open.
pub const KILL_WAIT: std::time::Duration = std::time::Duration::from_secs(3);

impl SandboxBackend {
    /// Sends `signal` to process group `pgid` with a `kill` run in the sandbox (for
    /// servers without dsh's group extension, and groups envd can no longer name): see
    /// [`KILL_SCRIPT`]. A group with no process left is `NotFound`, as envd answers for
    /// an ended process.
    async fn kill_group(&self, pgid: u32, signal: Signal) -> Result<(), Error> {
        let group = pgid.to_string();
        let argv = ["sh", "-c", KILL_SCRIPT, "sh", signal_name(signal), group.as_str()];
        let (_, stderr, exit) = self.helper_run(&argv).await?;
        match exit.exit_code {
            0 => Ok(()),
            GROUP_GONE => Err(Error::Rpc(dsh_proto::connect::ConnectError::new(
                Code::NotFound,
                format!("process group {pgid}: no process left"),
            ))),
            _ => Err(helper_failed(&argv, &exit, &stderr)),
        }
    }
}

fn signal_name(signal: Signal) -> &'static str {
    signal.name().trim_start_matches("SIG")
}

/// The foreground group of `pid`'s terminal, from `/proc/<pid>/stat` (field `tpgid`).
async fn foreground_by_proc(backend: &SandboxBackend, pid: u32) -> Result<u32, Error> {
    let stat = backend.helper(&["cat", &format!("/proc/{pid}/stat")]).await?;
    let after = stat.rsplit_once(')').map(|(_, rest)| rest).unwrap_or_default();
    // After the command: state ppid pgrp session tty_nr tpgid ...
    after
        .split_whitespace()
        .nth(5)
        .and_then(|f| f.parse::<i64>().ok())
        .filter(|v| *v > 0)
        .map(|v| v as u32)
        .ok_or_else(|| Error::Protocol(format!("no foreground group in /proc/{pid}/stat")))
}

/// The buffer a stream captured in `mode` is fed into, or `None` for
/// [`OutputMode::Null`]: as the host backend's `/dev/null`, such a stream is closed at once
/// and counts nothing (envd has no way to discard a stream, so its bytes still arrive and
/// are dropped here).
fn sink_for(mode: OutputMode, buffer: &OutputBuffer) -> Option<OutputBuffer> {
    if mode == OutputMode::Null {
        buffer.close();
        return None;
    }
    Some(buffer.clone())
}

/// Feeds a process stream into the seam's buffers (`None`: dropped) and exit watch.
async fn pump(
    mut stream: ProcessStream,
    stdout: Option<OutputBuffer>,
    stderr: Option<OutputBuffer>,
    exit: Arc<watch::Sender<Option<RawExit>>>,
) {
    let end = loop {
        match stream.next().await {
            Ok(Some(ProcessOutput::Stdout(bytes) | ProcessOutput::Pty(bytes))) => {
                if let Some(stdout) = &stdout {
                    stdout.push(&bytes);
                }
            }
            Ok(Some(ProcessOutput::Stderr(bytes))) => {
                if let Some(stderr) = &stderr {
                    stderr.push(&bytes);
                }
            }
            Ok(Some(ProcessOutput::End(info))) => break raw_exit(&info),
            // The stream broke (sandbox gone): the process is lost to us; report that
            // rather than hang.
            Ok(None) | Err(_) => break RawExit { lost: true, ..RawExit::default() },
        }
    };
    for buffer in [stdout, stderr].into_iter().flatten() {
        buffer.close();
    }
    set_exit(&exit, end);
}

/// Records the end unless one was recorded already (the first word stands).
fn set_exit(exit: &watch::Sender<Option<RawExit>>, end: RawExit) {
    exit.send_if_modified(|current| {
        if current.is_some() {
            return false;
        }
        *current = Some(end);
        true
    });
}

struct ProcessHandle {
    backend: SandboxBackend,
    pid: u32,
    exit: Arc<watch::Sender<Option<RawExit>>>,
}

impl ProcessHandle {
    /// After SIGKILL reached the group: envd is asked to SIGKILL the pid too (on E2B's
    /// envd that also stops its end from waiting for the output pipes: `outCancel()` in
    /// `Handler.SendSignal`, handler.go), and the end is awaited [`KILL_WAIT`] at most;
    /// then the process is reported killed, so no wait after a kill is unbounded.
    async fn after_kill(&self) {
        let _ =
            self.backend.envd.signal(self.pid, WireSignal::Sigkill, SignalTarget::Process).await;
        let exit = Arc::clone(&self.exit);
        tokio::spawn(async move {
            let mut seen = exit.subscribe();
            if tokio::time::timeout(KILL_WAIT, seen.wait_for(Option::is_some)).await.is_err() {
                set_exit(
                    &exit,
                    RawExit { code: None, signal: Some(libc_like::SIGKILL), lost: false },
                );
            }
        });
    }
}

/// What an `unavailable` error says, without the code its variant already names (the
/// tools print "sandbox unavailable: <this>").
fn unavailable_text(err: &Error) -> String {
    match err {
        Error::Rpc(rpc) if !rpc.message.is_empty() => rpc.message.clone(),
        other => other.to_string(),
    }
}

fn process_error(err: Error) -> ProcessError {
    match err.code() {
        Code::NotFound => ProcessError::Exited,
        Code::Unavailable => ProcessError::Unavailable(unavailable_text(&err)),
        _ => ProcessError::Io(std::io::Error::other(err.to_string())),
    }
}

impl ProcessControl for ProcessHandle {
    fn signal_group(&self, signal: Signal) -> BoxFuture<'_, Result<(), ProcessError>> {
        Box::pin(async move {
            let sent = signal_group_of(&self.backend, self.pid, SignalTarget::ProcessGroup, signal)
                .await
                .map(|_| ())
                .map_err(process_error);
            if signal == Signal::Kill && self.exit.borrow().is_none() {
                self.after_kill().await;
            }
            sent
        })
    }

    fn write_stdin<'a>(&'a self, data: &'a [u8]) -> BoxFuture<'a, Result<(), ProcessError>> {
        Box::pin(async move {
            self.backend.envd.send_stdin(self.pid, Bytes::copy_from_slice(data)).await.map_err(
                |err| match err.code() {
                    Code::Internal => ProcessError::StdinClosed,
                    _ => process_error(err),
                },
            )
        })
    }

    fn close_stdin(&self) -> BoxFuture<'_, Result<(), ProcessError>> {
        Box::pin(
            async move { self.backend.envd.close_stdin(self.pid).await.map_err(process_error) },
        )
    }
}

impl Subprocess for SandboxBackend {
    fn spawn(&self, spec: SpawnSpec) -> BoxFuture<'_, Result<Process, ProcessError>> {
        Box::pin(async move {
            let Some((program, args)) = spec.argv.split_first() else {
                return Err(ProcessError::InvalidSpec("argv is empty".into()));
            };
            let cwd = spec.cwd.to_str().filter(|c| c.starts_with('/')).ok_or_else(|| {
                ProcessError::InvalidSpec(format!(
                    "cwd must be an absolute UTF-8 path: {}",
                    spec.cwd.display()
                ))
            })?;
            let mut wrapped = vec!["-c".to_owned(), SESSION_SCRIPT.to_owned(), "sh".to_owned()];
            wrapped.push(program.clone());
            wrapped.extend(args.iter().cloned());
            let options = StartOptions {
                cmd: "/bin/sh".to_owned(),
                args: wrapped,
                envs: spec.env.iter().map(|(k, v)| (k.clone(), v.clone())).collect(),
                cwd: Some(cwd.to_owned()),
                pty: None,
                stdin: !matches!(spec.stdin, StdinMode::Ignore),
                tag: None,
                user: self.user.clone(),
                timeout: None,
            };
            let stream = self.envd.start(options).await.map_err(|err| match err.code() {
                Code::InvalidArgument if err.to_string().contains("does not exist") => {
                    ProcessError::CwdNotFound(spec.cwd.clone())
                }
                _ => process_error(err),
            })?;
            let pid = stream.pid;
            let (stdout, stderr) = (OutputBuffer::new(spec.stdout), OutputBuffer::new(spec.stderr));
            let (exit_tx, exit_rx) = watch::channel(None);
            let exit_tx = Arc::new(exit_tx);
            let sinks = (sink_for(spec.stdout, &stdout), sink_for(spec.stderr, &stderr));
            tokio::spawn(pump(stream, sinks.0, sinks.1, Arc::clone(&exit_tx)));
            let control = Arc::new(ProcessHandle { backend: self.clone(), pid, exit: exit_tx });
            if let StdinMode::Data(data) = &spec.stdin {
                control.write_stdin(data).await?;
                control.close_stdin().await?;
            }
            let parts = ProcessParts { pid, control, stdout, stderr, exit: exit_rx };
            Ok(Process::start(parts, &spec))
        })
    }
}

struct TerminalHandle {
    backend: SandboxBackend,
    pid: u32,
    /// The last job group read as this terminal's foreground group (never the shell's
    /// own). Once the shell has died its terminal's foreground group can no longer be
    /// read, yet a job that ignored the polite signals still runs and holds the terminal
    /// open: this is how the second round of `terminate` still finds it.
    last_job: std::sync::Mutex<Option<u32>>,
}

impl TerminalHandle {
    fn last_job(&self) -> std::sync::MutexGuard<'_, Option<u32>> {
        // A poisoned lock still holds a valid group id (or none).
        self.last_job.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Signals group `pgid` with a `kill` run in the sandbox: for a group envd can no
    /// longer name. The shell's built-in, since procps' `kill` reads a small negative id
    /// (a sandbox's pids are small) as a signal even after `--`.
    async fn signal_by_command(&self, pgid: u32, signal: Signal) -> Result<(), TerminalError> {
        self.backend.kill_group(pgid, signal).await.map_err(terminal_error)
    }

    async fn read_foreground(&self) -> Result<u32, TerminalError> {
        // Signal 0 to the foreground group is dsh-envd's probe; 0 back means the server
        // does not know the extension.
        let extension = self.backend.signals_groups(self.pid).await.map_err(terminal_error)?;
        let probed = if extension {
            self.backend
                .envd
                .signal(self.pid, WireSignal::Unspecified, SignalTarget::ForegroundGroup)
                .await
        } else {
            Ok(0)
        };
        let pgid = match probed {
            Ok(pgid) if pgid != 0 => pgid,
            Ok(_) => foreground_by_proc(&self.backend, self.pid).await.map_err(terminal_error)?,
            Err(err) if err.code() == Code::Unimplemented => {
                foreground_by_proc(&self.backend, self.pid).await.map_err(terminal_error)?
            }
            Err(err) => return Err(terminal_error(err)),
        };
        if pgid != self.pid {
            *self.last_job() = Some(pgid);
        }
        Ok(pgid)
    }
}

fn terminal_error(err: Error) -> TerminalError {
    match err.code() {
        Code::NotFound => TerminalError::Exited,
        Code::Unavailable => TerminalError::Unavailable(unavailable_text(&err)),
        _ => TerminalError::Io(std::io::Error::other(err.to_string())),
    }
}

impl TerminalControl for TerminalHandle {
    fn write<'a>(&'a self, data: &'a [u8]) -> BoxFuture<'a, Result<(), TerminalError>> {
        Box::pin(async move {
            self.backend
                .envd
                .send_pty(self.pid, Bytes::copy_from_slice(data))
                .await
                .map_err(terminal_error)
        })
    }

    fn resize(&self, size: TerminalSize) -> BoxFuture<'_, Result<(), TerminalError>> {
        Box::pin(async move {
            self.backend.envd.resize(self.pid, size.cols, size.rows).await.map_err(terminal_error)
        })
    }

    fn foreground_group(&self) -> BoxFuture<'_, Result<u32, TerminalError>> {
        Box::pin(self.read_foreground())
    }

    fn signal_group(&self, pgid: u32, signal: Signal) -> BoxFuture<'_, Result<(), TerminalError>> {
        Box::pin(async move {
            let via_envd = |target| async move {
                signal_group_of(&self.backend, self.pid, target, signal)
                    .await
                    .map(|_| ())
                    .map_err(terminal_error)
            };
            if pgid == self.pid {
                return via_envd(SignalTarget::ProcessGroup).await;
            }
            let sent = match self.read_foreground().await {
                Ok(foreground) if foreground == pgid => {
                    via_envd(SignalTarget::ForegroundGroup).await
                }
                Ok(_) => return Err(TerminalError::NotInSession(pgid)),
                Err(err) => Err(err),
            };
            match sent {
                // The shell is gone (before the check, or between the check and envd's
                // own read): its terminal has no foreground group left to read, but the
                // job found before it died may live on and hold the terminal open.
                Err(_) if *self.last_job() == Some(pgid) => {
                    self.signal_by_command(pgid, signal).await
                }
                other => other,
            }
        })
    }
}

/// Bounded: a consumer that stops reading slows the program, as a terminal would.
const TERMINAL_QUEUE: usize = 256;

impl Terminals for SandboxBackend {
    fn spawn_terminal(&self, spec: TerminalSpec) -> BoxFuture<'_, Result<Terminal, TerminalError>> {
        Box::pin(async move {
            let Some((program, args)) = spec.argv.split_first() else {
                return Err(TerminalError::InvalidSpec("argv is empty".into()));
            };
            if spec.size.rows == 0 || spec.size.cols == 0 {
                return Err(TerminalError::InvalidSpec(
                    "terminal size must be at least 1x1".into(),
                ));
            }
            let cwd = spec.cwd.to_str().filter(|c| c.starts_with('/')).ok_or_else(|| {
                TerminalError::InvalidSpec(format!(
                    "cwd must be an absolute UTF-8 path: {}",
                    spec.cwd.display()
                ))
            })?;
            let options = StartOptions {
                cmd: program.clone(),
                args: args.to_vec(),
                envs: spec.env.iter().map(|(k, v)| (k.clone(), v.clone())).collect(),
                cwd: Some(cwd.to_owned()),
                pty: Some((spec.size.cols, spec.size.rows)),
                user: self.user.clone(),
                ..StartOptions::default()
            };
            let mut stream = self.envd.start(options).await.map_err(|err| match err.code() {
                Code::InvalidArgument if err.to_string().contains("does not exist") => {
                    TerminalError::CwdNotFound(spec.cwd.clone())
                }
                _ => terminal_error(err),
            })?;
            let pid = stream.pid;
            let (output_tx, output_rx) = mpsc::channel(TERMINAL_QUEUE);
            let (exit_tx, exit_rx) = watch::channel(None);
            tokio::spawn(async move {
                let end = loop {
                    match stream.next().await {
                        Ok(Some(
                            ProcessOutput::Pty(bytes)
                            | ProcessOutput::Stdout(bytes)
                            | ProcessOutput::Stderr(bytes),
                        )) => {
                            // A consumer that went away still lets the stream drain to the end.
                            let _ = output_tx.send(bytes).await;
                        }
                        Ok(Some(ProcessOutput::End(info))) => break raw_exit(&info),
                        // The stream broke (sandbox gone): the shell is lost to us.
                        Ok(None) | Err(_) => break RawExit { lost: true, ..RawExit::default() },
                    }
                };
                drop(output_tx);
                let _ = exit_tx.send(Some(end));
            });
            let control = Arc::new(TerminalHandle {
                backend: self.clone(),
                pid,
                last_job: std::sync::Mutex::new(None),
            });
            Ok(Terminal::start(
                TerminalParts { pid, control, output: output_rx, exit: exit_rx },
                &spec,
            ))
        })
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
    fn go_signal_wording_maps_back_to_numbers() {
        assert_eq!(signal_number("signal: killed"), Some(9));
        assert_eq!(signal_number("signal: terminated"), Some(15));
        assert_eq!(signal_number("signal: segmentation fault (core dumped)"), Some(11));
        assert_eq!(signal_number("signal: signal 42"), Some(42));
        assert_eq!(signal_number("exit status 1"), None);
    }

    #[test]
    fn paths_normalise_lexically() {
        assert_eq!(normalize_lexically(Path::new("/a/./b/../c")), PathBuf::from("/a/c"));
        assert_eq!(normalize_lexically(Path::new("/../..")), PathBuf::from("/"));
    }
}
