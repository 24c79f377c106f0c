//! `filesystem.Filesystem` handlers. envd runs as root and does not permission-check
//! as the user: the user only steers path resolution and owns what gets created.

pub mod entry;
pub mod watch;

use std::io;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use axum::Router;
use dsh_proto::connect::{Code, ConnectError};
use dsh_proto::filesystem::*;

use crate::rpc::{self, CallContext};
use crate::state::Envd;
use crate::users::User;

pub fn routes() -> Router<Arc<Envd>> {
    Router::new()
        .route("/filesystem.Filesystem/Stat", rpc::unary_route(stat))
        .route("/filesystem.Filesystem/MakeDir", rpc::unary_route(make_dir))
        .route("/filesystem.Filesystem/Move", rpc::unary_route(move_entry))
        .route("/filesystem.Filesystem/ListDir", rpc::unary_route(list_dir))
        .route("/filesystem.Filesystem/Remove", rpc::unary_route(remove))
        .merge(watch::routes())
}

pub(crate) fn resolve(envd: &Envd, path: &str, user: &User) -> Result<PathBuf, ConnectError> {
    crate::paths::resolve(path, user, envd.settings().default_workdir.as_deref())
}

/// Runs blocking filesystem work off the async workers.
pub(crate) async fn blocking<T: Send + 'static>(
    work: impl FnOnce() -> Result<T, ConnectError> + Send + 'static,
) -> Result<T, ConnectError> {
    tokio::task::spawn_blocking(work)
        .await
        .map_err(|err| ConnectError::internal(format!("filesystem task failed: {err}")))?
}

pub(crate) fn io_error(path: &Path, err: &io::Error) -> ConnectError {
    match err.kind() {
        io::ErrorKind::NotFound => {
            ConnectError::not_found(format!("path '{}' does not exist", path.display()))
        }
        _ => ConnectError::internal(format!("error accessing '{}': {err}", path.display())),
    }
}

async fn stat(
    envd: Arc<Envd>,
    request: StatRequest,
    context: CallContext,
) -> Result<StatResponse, ConnectError> {
    let path = resolve(&envd, &request.path, &context.user)?;
    blocking(move || {
        let entry = entry::entry_info(&path, &envd.users).map_err(|err| io_error(&path, &err))?;
        Ok(StatResponse { entry: Some(crate::strict::entry(&envd, entry)) })
    })
    .await
}

/// `mkdir -p` where every directory it creates belongs to `user`.
pub(crate) fn create_dirs_owned(path: &Path, user: &User) -> io::Result<()> {
    let mut missing = Vec::new();
    let mut cursor = Some(path);
    while let Some(dir) = cursor {
        match std::fs::symlink_metadata(dir) {
            Ok(_) => break,
            Err(err) if err.kind() == io::ErrorKind::NotFound => {
                missing.push(dir.to_path_buf());
                cursor = dir.parent();
            }
            Err(err) => return Err(err),
        }
    }
    for dir in missing.iter().rev() {
        match std::fs::create_dir(dir) {
            Ok(()) => {}
            Err(err) if err.kind() == io::ErrorKind::AlreadyExists => continue,
            Err(err) => return Err(err),
        }
        std::fs::set_permissions(dir, std::os::unix::fs::PermissionsExt::from_mode(0o755))?;
        chown(dir, user)?;
    }
    Ok(())
}

pub(crate) fn chown(path: &Path, user: &User) -> io::Result<()> {
    if rustix::process::geteuid().is_root() {
        std::os::unix::fs::lchown(path, Some(user.uid), Some(user.gid))?;
    }
    Ok(())
}

async fn make_dir(
    envd: Arc<Envd>,
    request: MakeDirRequest,
    context: CallContext,
) -> Result<MakeDirResponse, ConnectError> {
    let path = resolve(&envd, &request.path, &context.user)?;
    blocking(move || {
        match std::fs::metadata(&path) {
            Ok(meta) if meta.is_dir() => {
                return Err(ConnectError::new(
                    Code::AlreadyExists,
                    format!("directory at '{}' already exists", path.display()),
                ));
            }
            Ok(_) => {
                return Err(ConnectError::invalid_argument(format!(
                    "path '{}' already exists and is not a directory",
                    path.display()
                )));
            }
            Err(err) if err.kind() == io::ErrorKind::NotFound => {}
            Err(err) => return Err(io_error(&path, &err)),
        }
        create_dirs_owned(&path, &context.user).map_err(|err| match err.kind() {
            io::ErrorKind::NotADirectory => ConnectError::invalid_argument(format!(
                "cannot create '{}': a parent is not a directory",
                path.display()
            )),
            _ => io_error(&path, &err),
        })?;
        let entry = entry::entry_info(&path, &envd.users).map_err(|err| io_error(&path, &err))?;
        Ok(MakeDirResponse { entry: Some(crate::strict::entry(&envd, entry)) })
    })
    .await
}

async fn move_entry(
    envd: Arc<Envd>,
    request: MoveRequest,
    context: CallContext,
) -> Result<MoveResponse, ConnectError> {
    let source = resolve(&envd, &request.source, &context.user)?;
    let destination = resolve(&envd, &request.destination, &context.user)?;
    blocking(move || {
        std::fs::symlink_metadata(&source).map_err(|err| io_error(&source, &err))?;
        if let Some(parent) = destination.parent() {
            create_dirs_owned(parent, &context.user).map_err(|err| io_error(parent, &err))?;
        }
        std::fs::rename(&source, &destination).map_err(|err| {
            ConnectError::internal(format!(
                "error renaming '{}' to '{}': {err}",
                source.display(),
                destination.display()
            ))
        })?;
        let entry = entry::entry_info(&destination, &envd.users)
            .map_err(|err| io_error(&destination, &err))?;
        Ok(MoveResponse { entry: Some(crate::strict::entry(&envd, entry)) })
    })
    .await
}

async fn list_dir(
    envd: Arc<Envd>,
    request: ListDirRequest,
    context: CallContext,
) -> Result<ListDirResponse, ConnectError> {
    let requested = resolve(&envd, &request.path, &context.user)?;
    let depth = request.depth.max(1);
    blocking(move || {
        let real = std::fs::canonicalize(&requested).map_err(|err| match err.raw_os_error() {
            Some(libc::ELOOP) => ConnectError::new(
                Code::FailedPrecondition,
                format!("path '{}' is a symlink loop", requested.display()),
            ),
            _ => io_error(&requested, &err),
        })?;
        if !real.is_dir() {
            return Err(ConnectError::invalid_argument(format!(
                "path '{}' is not a directory",
                requested.display()
            )));
        }
        let mut entries = Vec::new();
        walk(&real, &requested, depth, &envd, &mut entries);
        Ok(ListDirResponse { entries })
    })
    .await
}

/// Lexical pre-order to `depth` levels, never following links; the returned paths keep
/// the requested prefix. Entries that vanish mid-walk are skipped.
fn walk(real: &Path, shown: &Path, depth: u32, envd: &Envd, out: &mut Vec<EntryInfo>) {
    let Ok(read) = std::fs::read_dir(real) else { return };
    let mut names: Vec<_> = read.filter_map(Result::ok).map(|e| e.file_name()).collect();
    names.sort();
    for name in names {
        let real_child = real.join(&name);
        let shown_child = shown.join(&name);
        let Ok(lstat) = std::fs::symlink_metadata(&real_child) else { continue };
        let mut entry = entry::entry_from_metadata(&real_child, &lstat, &envd.users);
        entry.path = shown_child.to_string_lossy().into_owned();
        out.push(crate::strict::entry(envd, entry));
        if depth > 1 && lstat.is_dir() {
            walk(&real_child, &shown_child, depth - 1, envd, out);
        }
    }
}

async fn remove(
    envd: Arc<Envd>,
    request: RemoveRequest,
    context: CallContext,
) -> Result<RemoveResponse, ConnectError> {
    let path = resolve(&envd, &request.path, &context.user)?;
    if path == Path::new("/") {
        return Err(ConnectError::invalid_argument("refusing to remove '/'"));
    }
    blocking(move || {
        let result = match std::fs::symlink_metadata(&path) {
            Err(err) if err.kind() == io::ErrorKind::NotFound => return Ok(RemoveResponse {}),
            Err(err) => Err(err),
            Ok(meta) if meta.is_dir() => std::fs::remove_dir_all(&path),
            Ok(_) => std::fs::remove_file(&path),
        };
        match result {
            Ok(()) => Ok(RemoveResponse {}),
            Err(err) if err.kind() == io::ErrorKind::NotFound => Ok(RemoveResponse {}),
            Err(err) => {
                Err(ConnectError::internal(format!("error removing '{}': {err}", path.display())))
            }
        }
    })
    .await
}

/// Whether `path` sits on a network filesystem (watches there need consent).
pub(crate) fn is_network_mount(path: &Path) -> bool {
    const NFS: i64 = 0x6969;
    const CIFS: i64 = 0xFF53_4D42;
    const SMB2: i64 = 0xFE53_4D42;
    const SMB: i64 = 0x517B;
    match rustix::fs::statfs(path) {
        Ok(stats) => matches!(stats.f_type, NFS | CIFS | SMB2 | SMB),
        Err(_) => false,
    }
}
