//! E2B's volume content API (e2b-dev/E2B `spec/openapi-volumecontent.yml`; the SDKs'
//! `Volume.read_file`, `write_file`, `list`, `make_dir`, `get_info`, `update_metadata`,
//! `remove`): a volume's files through the daemon, with no sandbox.
//!
//! - `GET|PATCH|DELETE /volumecontent/{volumeID}/path?path=`: an entry's stat, its owner
//!   and mode changed, or the entry removed (a directory with all it holds);
//! - `GET|POST /volumecontent/{volumeID}/dir?path=[&depth=][&uid=&gid=&mode=&force=]`: a
//!   listing (`depth` levels), or a new directory (`force` makes its parents);
//! - `GET|PUT /volumecontent/{volumeID}/file?path=[&uid=&gid=&mode=&force=]`: a file's
//!   bytes, or new bytes (an existing file is replaced only with `force`).
//!
//! Authorization is the volume's own token (`Authorization: Bearer <token>`, the token
//! `POST /volumes` and `GET /volumes/{id}` hand out), not the API key. Paths are the
//! volume's (`/` is its root); what the SDKs' mock of the API does for each case
//! (`packages/js-sdk/tests/volume/mockVolumeContent.ts`) is what this does: 404 for a
//! missing entry or parent, 409 for an entry in the way.
//!
//! Sandboxes write volumes, so nothing here follows a link: every path is opened from a
//! descriptor of the volume's root with `openat2(RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS)`
//! and the last component is acted on with `*at` calls that do not follow it. Files keep
//! the ids they have inside sandboxes; new entries are `user`'s (1000) unless the
//! request names others.

use std::collections::HashMap;
use std::io::Write;
use std::os::fd::{AsFd, BorrowedFd, OwnedFd};
use std::path::PathBuf;
use std::sync::Arc;

use axum::Router;
use axum::body::Body;
use axum::extract::{Path, Query};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use dsh_proto::control as wire;
use futures_util::StreamExt;
use rustix::fs::{AtFlags, FileType, Mode, OFlags, ResolveFlags};
use rustix::io::Errno;
use serde::Deserialize;

use crate::server::api_body::constant_time_eq;
use crate::server::context::Control;
use crate::server::{ApiError, volumes};
use crate::spec::IdRange;

type ApiResult<T> = Result<T, ApiError>;

/// Who owns what the API creates, unless the request says: `user`, as a volume's root.
const DEFAULT_OWNER: u32 = 1000;
const DEFAULT_FILE_MODE: u32 = 0o644;
const DEFAULT_DIR_MODE: u32 = 0o755;
/// The deepest listing one request may ask for.
const MAX_DEPTH: u32 = 64;
/// The most entries one listing returns.
const MAX_ENTRIES: usize = 100_000;

/// The routes (outside the API key: the volume's token authorizes them).
pub(crate) fn router() -> Router<Arc<Control>> {
    Router::new()
        .route("/volumecontent/{id}/path", get(stat).patch(update).delete(remove))
        .route("/volumecontent/{id}/dir", get(list).post(make_dir))
        .route("/volumecontent/{id}/file", get(read).put(write))
}

fn errno(error: Errno, path: &str) -> ApiError {
    match error {
        Errno::NOENT | Errno::NOTDIR => {
            ApiError::new(StatusCode::NOT_FOUND, format!("Path {path} not found"))
        }
        Errno::LOOP | Errno::XDEV => ApiError::bad_request(format!(
            "Path {path} goes through a symbolic link, which this API does not follow"
        )),
        Errno::EXIST => ApiError::new(StatusCode::CONFLICT, format!("Path {path} already exists")),
        Errno::NOTEMPTY => ApiError::new(StatusCode::CONFLICT, format!("Path {path} is not empty")),
        Errno::ISDIR => ApiError::new(StatusCode::CONFLICT, format!("Path {path} is a directory")),
        Errno::DQUOT => ApiError::new(StatusCode::INSUFFICIENT_STORAGE, VOLUME_FULL),
        Errno::NOSPC => ApiError::new(StatusCode::INSUFFICIENT_STORAGE, DISK_FULL),
        other => ApiError::internal(&anyhow::anyhow!("{path}: {other}")),
    }
}

/// What [`errno`] answers for `EDQUOT` (the volume's subvolume at its limit) and
/// `ENOSPC` (the disk image itself full), until [`naming`] says which volume.
const VOLUME_FULL: &str = "the volume is full";
const DISK_FULL: &str = "the volume's disk is full";

/// A 507 of [`errno`] naming the volume, and for a full volume its size.
fn naming(volume: &volumes::Volume, error: ApiError) -> ApiError {
    let name = &volume.name;
    let message = match error.message.as_str() {
        VOLUME_FULL if volume.size_mb != 0 => format!(
            "volume '{name}' is full: it holds at most {} MiB (its sizeMB); remove files to make room",
            volume.size_mb
        ),
        VOLUME_FULL => format!("volume '{name}' is full"),
        DISK_FULL => format!(
            "the disk holding volume '{name}' is full (the daemon's disk image, shared by every sandbox and volume)"
        ),
        _ => return error,
    };
    ApiError::new(error.status, message)
}

/// A volume's path: `/`-rooted, slashes collapsed, no trailing slash; `..`, `.` and NUL
/// refused. Returns the shown form and the components.
fn normalize(raw: &str) -> ApiResult<(String, Vec<String>)> {
    if raw.trim().is_empty() {
        return Err(ApiError::bad_request("path: missing"));
    }
    if raw.contains('\0') || raw.len() > 4096 {
        return Err(ApiError::bad_request("path: invalid"));
    }
    let parts: Vec<String> =
        raw.trim().split('/').filter(|p| !p.is_empty()).map(str::to_owned).collect();
    if parts.iter().any(|p| p == ".." || p == ".") {
        return Err(ApiError::bad_request(format!("path {raw:?}: '.' and '..' are not allowed")));
    }
    Ok((format!("/{}", parts.join("/")), parts))
}

/// What every route names: the volume (its files' directory, once its token is
/// checked), the path in it, and the query's other fields.
struct Target {
    volume: volumes::Volume,
    dir: PathBuf,
    /// The host block the volume's files are owned by: the API speaks of the ids a
    /// sandbox sees.
    ids: IdRange,
    shown: String,
    parts: Vec<String>,
    query: HashMap<String, String>,
}

impl axum::extract::FromRequestParts<Arc<Control>> for Target {
    type Rejection = Response;

    async fn from_request_parts(
        request: &mut axum::http::request::Parts,
        shared: &Arc<Control>,
    ) -> Result<Self, Response> {
        let Path(id) = Path::<String>::from_request_parts(request, shared)
            .await
            .map_err(IntoResponse::into_response)?;
        let Query(query) = Query::<HashMap<String, String>>::from_request_parts(request, shared)
            .await
            .map_err(IntoResponse::into_response)?;
        let volume =
            authorized(shared, &id, &request.headers).map_err(IntoResponse::into_response)?;
        let dir = volumes::files(&shared.store, &volume);
        let ids = volumes::block(&volume);
        let (shown, parts) = query_path(&query).map_err(IntoResponse::into_response)?;
        Ok(Target { volume, dir, ids, shown, parts, query })
    }
}

/// The volume a request names, after its token.
fn authorized(shared: &Control, id: &str, headers: &HeaderMap) -> ApiResult<volumes::Volume> {
    let volume = volumes::by_id(&shared.store, id)
        .ok_or_else(|| ApiError::new(StatusCode::NOT_FOUND, format!("volume {id} not found")))?;
    let presented = headers
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "))
        .ok_or_else(|| {
            ApiError::new(
                StatusCode::UNAUTHORIZED,
                "missing volume token: send Authorization: Bearer <token>",
            )
        })?;
    if !constant_time_eq(presented.trim().as_bytes(), volume.token.as_bytes()) {
        return Err(ApiError::new(StatusCode::UNAUTHORIZED, "invalid volume token"));
    }
    Ok(volume)
}

/// `value` (a VolumeEntryStat, or a list of them) with the owners a sandbox sees: the
/// host ids of the volume's block as the ids inside, any other as `nobody` (65534), as
/// the kernel shows an owner the sandbox does not map.
fn as_inside(mut entry: wire::VolumeEntry, ids: IdRange) -> wire::VolumeEntry {
    entry.uid = ids.inside_id(entry.uid).unwrap_or(NOBODY);
    entry.gid = ids.inside_id(entry.gid).unwrap_or(NOBODY);
    entry
}

/// The owner a sandbox sees for an id it does not map (the kernel's overflow id).
const NOBODY: u32 = 65_534;

fn open_root(dir: &std::path::Path) -> ApiResult<OwnedFd> {
    rustix::fs::open(
        dir,
        OFlags::RDONLY | OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::CLOEXEC,
        Mode::empty(),
    )
    .map_err(|e| ApiError::internal(&anyhow::anyhow!("opening the volume: {e}")))
}

/// Opens `parts` beneath `root`, following no link.
fn open_beneath(root: BorrowedFd<'_>, parts: &[String], flags: OFlags) -> Result<OwnedFd, Errno> {
    let path = if parts.is_empty() { ".".to_owned() } else { parts.join("/") };
    rustix::fs::openat2(
        root,
        path.as_str(),
        flags | OFlags::CLOEXEC,
        Mode::empty(),
        ResolveFlags::BENEATH | ResolveFlags::NO_SYMLINKS | ResolveFlags::NO_MAGICLINKS,
    )
}

/// The directory holding the last component, and that component's name.
fn parent<'a>(root: BorrowedFd<'_>, parts: &'a [String]) -> Result<(OwnedFd, &'a str), Errno> {
    let (name, dirs) = parts.split_last().ok_or(Errno::INVAL)?;
    let dir = open_beneath(root, dirs, OFlags::RDONLY | OFlags::DIRECTORY)?;
    Ok((dir, name.as_str()))
}

fn kind(mode: u32) -> &'static str {
    match FileType::from_raw_mode(mode) {
        FileType::RegularFile => "file",
        FileType::Directory => "directory",
        FileType::Symlink => "symlink",
        _ => "unknown",
    }
}

fn time(seconds: i64, nanos: i64) -> String {
    let ms =
        u64::try_from(seconds).unwrap_or(0) * 1000 + u64::try_from(nanos / 1_000_000).unwrap_or(0);
    crate::server::files::rfc3339(ms)
}

/// E2B's VolumeEntryStat of `name` in `dir` (not following it), shown at `path`.
fn entry(dir: BorrowedFd<'_>, name: &str, path: &str) -> Result<wire::VolumeEntry, Errno> {
    let st = rustix::fs::statat(
        dir,
        if name.is_empty() { "." } else { name },
        AtFlags::SYMLINK_NOFOLLOW,
    )?;
    let shown_name = path.rsplit('/').next().unwrap_or_default();
    let target = match FileType::from_raw_mode(st.st_mode) {
        FileType::Symlink => {
            let target = rustix::fs::readlinkat(dir, name, Vec::new())?;
            Some(String::from_utf8_lossy(target.as_bytes()).into_owned())
        }
        _ => None,
    };
    Ok(wire::VolumeEntry {
        atime: time(st.st_atime, st.st_atime_nsec as i64),
        ctime: time(st.st_ctime, st.st_ctime_nsec as i64),
        gid: st.st_gid,
        mode: st.st_mode & 0o7777,
        mtime: time(st.st_mtime, st.st_mtime_nsec as i64),
        name: if path == "/" { "/" } else { shown_name }.to_owned(),
        path: path.to_owned(),
        size: st.st_size,
        target,
        kind: kind(st.st_mode).to_owned(),
        uid: st.st_uid,
    })
}

/// The stat of a normalized path.
fn stat_of(root: BorrowedFd<'_>, shown: &str, parts: &[String]) -> ApiResult<wire::VolumeEntry> {
    if parts.is_empty() {
        return entry(root, "", "/").map_err(|e| errno(e, shown));
    }
    let (dir, name) = parent(root, parts).map_err(|e| errno(e, shown))?;
    entry(dir.as_fd(), name, shown).map_err(|e| errno(e, shown))
}

/// Runs blocking file work off the async threads.
async fn blocking<T: Send + 'static>(
    work: impl FnOnce() -> ApiResult<T> + Send + 'static,
) -> ApiResult<T> {
    tokio::task::spawn_blocking(work).await.unwrap_or_else(|e| {
        Err(ApiError::internal(&anyhow::anyhow!("the volume task panicked: {e}")))
    })
}

fn query_path(query: &HashMap<String, String>) -> ApiResult<(String, Vec<String>)> {
    normalize(query.get("path").map(String::as_str).unwrap_or_default())
}

fn query_u32(query: &HashMap<String, String>, key: &str) -> ApiResult<Option<u32>> {
    query
        .get(key)
        .map(|v| {
            v.parse::<u32>()
                .map_err(|_| ApiError::bad_request(format!("{key}: not a uint32: {v:?}")))
        })
        .transpose()
}

fn query_force(query: &HashMap<String, String>) -> bool {
    query.get("force").is_some_and(|v| v == "true" || v == "1")
}

fn check_mode(mode: u32) -> ApiResult<Mode> {
    if mode > 0o7777 {
        return Err(ApiError::bad_request(format!(
            "mode {mode} (0o{mode:o}): at most 4095 (0o7777)"
        )));
    }
    Ok(Mode::from_raw_mode(mode))
}

fn check_id(id: u32, what: &str) -> ApiResult<u32> {
    // Volumes keep the ids sandboxes see (0-65535: one uid block).
    if id > 65_535 {
        return Err(ApiError::bad_request(format!("{what} {id}: at most 65535")));
    }
    Ok(id)
}

/// `GET /volumecontent/{id}/path?path=`.
async fn stat(target: Target) -> ApiResult<Response> {
    let Target { dir, ids, shown, parts, .. } = target;
    let value = blocking(move || stat_of(open_root(&dir)?.as_fd(), &shown, &parts)).await?;
    Ok(axum::Json(as_inside(value, ids)).into_response())
}

#[derive(Debug, Default, Deserialize)]
struct Metadata {
    uid: Option<u32>,
    gid: Option<u32>,
    mode: Option<u32>,
}

/// `PATCH /volumecontent/{id}/path?path=` `{uid?, gid?, mode?}`.
async fn update(target: Target, body: axum::body::Bytes) -> ApiResult<Response> {
    let volume = target.volume.clone();
    update_entry(target, body).await.map_err(|e| naming(&volume, e))
}

async fn update_entry(target: Target, body: axum::body::Bytes) -> ApiResult<Response> {
    let Target { dir, ids, shown, parts, .. } = target;
    let metadata: Metadata = if body.is_empty() {
        Metadata::default()
    } else {
        serde_json::from_slice(&body).map_err(|e| ApiError::bad_request(format!("body: {e}")))?
    };
    let mode = metadata.mode.map(check_mode).transpose()?;
    let uid = metadata.uid.map(|u| check_id(u, "uid")).transpose()?.map(|u| ids.host_id(u));
    let gid = metadata.gid.map(|g| check_id(g, "gid")).transpose()?.map(|g| ids.host_id(g));
    let value = blocking(move || {
        let root = open_root(&dir)?;
        // O_PATH would not let fchmod/fchown act; a FIFO must not block the open.
        let fd =
            open_beneath(root.as_fd(), &parts, OFlags::RDONLY | OFlags::NONBLOCK | OFlags::NOCTTY)
                .map_err(|e| errno(e, &shown))?;
        if uid.is_some() || gid.is_some() {
            rustix::fs::fchown(
                &fd,
                uid.map(rustix::process::Uid::from_raw),
                gid.map(rustix::process::Gid::from_raw),
            )
            .map_err(|e| errno(e, &shown))?;
        }
        if let Some(mode) = mode {
            rustix::fs::fchmod(&fd, mode).map_err(|e| errno(e, &shown))?;
        }
        stat_of(root.as_fd(), &shown, &parts)
    })
    .await?;
    Ok(axum::Json(as_inside(value, ids)).into_response())
}

fn remove_all(dir: BorrowedFd<'_>, name: &str) -> Result<(), Errno> {
    let st = rustix::fs::statat(dir, name, AtFlags::SYMLINK_NOFOLLOW)?;
    if FileType::from_raw_mode(st.st_mode) != FileType::Directory {
        return rustix::fs::unlinkat(dir, name, AtFlags::empty());
    }
    let fd = rustix::fs::openat(
        dir,
        name,
        OFlags::RDONLY | OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::CLOEXEC,
        Mode::empty(),
    )?;
    for child in children(fd.as_fd())? {
        remove_all(fd.as_fd(), &child)?;
    }
    rustix::fs::unlinkat(dir, name, AtFlags::REMOVEDIR)
}

fn children(dir: BorrowedFd<'_>) -> Result<Vec<String>, Errno> {
    let mut names = Vec::new();
    for item in rustix::fs::Dir::read_from(dir)? {
        let item = item?;
        let name = item.file_name().to_bytes();
        if name != b"." && name != b".." {
            names.push(String::from_utf8_lossy(name).into_owned());
        }
    }
    names.sort();
    Ok(names)
}

/// `DELETE /volumecontent/{id}/path?path=`: 204.
async fn remove(target: Target) -> ApiResult<StatusCode> {
    let volume = target.volume.clone();
    remove_entry(target).await.map_err(|e| naming(&volume, e))
}

async fn remove_entry(target: Target) -> ApiResult<StatusCode> {
    let Target { dir, shown, parts, .. } = target;
    if parts.is_empty() {
        return Err(ApiError::bad_request("the volume's root cannot be removed"));
    }
    blocking(move || {
        let root = open_root(&dir)?;
        let (parent, name) = parent(root.as_fd(), &parts).map_err(|e| errno(e, &shown))?;
        remove_all(parent.as_fd(), name).map_err(|e| errno(e, &shown))
    })
    .await?;
    Ok(StatusCode::NO_CONTENT)
}

fn list_into(
    dir: BorrowedFd<'_>,
    shown: &str,
    depth: u32,
    out: &mut Vec<wire::VolumeEntry>,
) -> Result<(), Errno> {
    for name in children(dir)? {
        if out.len() >= MAX_ENTRIES {
            return Ok(());
        }
        let path = if shown == "/" { format!("/{name}") } else { format!("{shown}/{name}") };
        let value = match entry(dir, &name, &path) {
            Ok(value) => value,
            Err(Errno::NOENT) => continue,
            Err(e) => return Err(e),
        };
        let is_dir = value.kind == "directory";
        out.push(value);
        if is_dir && depth > 1 {
            let sub = rustix::fs::openat(
                dir,
                name.as_str(),
                OFlags::RDONLY | OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::CLOEXEC,
                Mode::empty(),
            )?;
            list_into(sub.as_fd(), &path, depth - 1, out)?;
        }
    }
    Ok(())
}

/// `GET /volumecontent/{id}/dir?path=&depth=`: the entries, by name, `depth` levels.
async fn list(target: Target) -> ApiResult<Response> {
    let Target { dir, ids, shown, parts, query, .. } = target;
    let depth = query_u32(&query, "depth")?.unwrap_or(1).clamp(1, MAX_DEPTH);
    let listing = blocking(move || {
        let root = open_root(&dir)?;
        let fd = open_beneath(root.as_fd(), &parts, OFlags::RDONLY | OFlags::DIRECTORY)
            .map_err(|e| errno(e, &shown))?;
        let mut out = Vec::new();
        list_into(fd.as_fd(), &shown, depth, &mut out).map_err(|e| errno(e, &shown))?;
        Ok(out)
    })
    .await?;
    Ok(axum::Json(listing.into_iter().map(|entry| as_inside(entry, ids)).collect::<Vec<_>>())
        .into_response())
}

/// Owner (host ids) and mode a create asks for.
struct Made {
    uid: u32,
    gid: u32,
    mode: Mode,
}

fn made(query: &HashMap<String, String>, default_mode: u32, ids: IdRange) -> ApiResult<Made> {
    Ok(Made {
        uid: ids.host_id(check_id(query_u32(query, "uid")?.unwrap_or(DEFAULT_OWNER), "uid")?),
        gid: ids.host_id(check_id(query_u32(query, "gid")?.unwrap_or(DEFAULT_OWNER), "gid")?),
        mode: check_mode(query_u32(query, "mode")?.unwrap_or(default_mode))?,
    })
}

fn own(fd: BorrowedFd<'_>, made: &Made) -> Result<(), Errno> {
    rustix::fs::fchown(
        fd,
        Some(rustix::process::Uid::from_raw(made.uid)),
        Some(rustix::process::Gid::from_raw(made.gid)),
    )?;
    rustix::fs::fchmod(fd, made.mode)
}

/// Makes directory `parts` (and, with `force`, its missing parents).
fn make_dir_at(
    root: BorrowedFd<'_>,
    parts: &[String],
    made: &Made,
    force: bool,
) -> Result<(), Errno> {
    let (dir, name) = match parent(root, parts) {
        Ok(found) => found,
        Err(Errno::NOENT) if force && parts.len() > 1 => {
            make_dir_at(root, &parts[..parts.len() - 1], made, true)?;
            parent(root, parts)?
        }
        Err(e) => return Err(e),
    };
    match rustix::fs::mkdirat(&dir, name, made.mode) {
        Ok(()) => {}
        Err(Errno::EXIST) if force => {
            let st = rustix::fs::statat(&dir, name, AtFlags::SYMLINK_NOFOLLOW)?;
            if FileType::from_raw_mode(st.st_mode) == FileType::Directory {
                return Ok(());
            }
            return Err(Errno::EXIST);
        }
        Err(e) => return Err(e),
    }
    let fd = rustix::fs::openat(
        &dir,
        name,
        OFlags::RDONLY | OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::CLOEXEC,
        Mode::empty(),
    )?;
    own(fd.as_fd(), made)
}

/// `POST /volumecontent/{id}/dir?path=&uid=&gid=&mode=&force=`: 201 with the directory.
async fn make_dir(target: Target) -> ApiResult<Response> {
    let volume = target.volume.clone();
    make_directory(target).await.map_err(|e| naming(&volume, e))
}

async fn make_directory(target: Target) -> ApiResult<Response> {
    let Target { dir, ids, shown, parts, query, .. } = target;
    let made = made(&query, DEFAULT_DIR_MODE, ids)?;
    let force = query_force(&query);
    let value = blocking(move || {
        let root = open_root(&dir)?;
        if parts.is_empty() {
            return Err(ApiError::new(StatusCode::CONFLICT, "Path / already exists"));
        }
        make_dir_at(root.as_fd(), &parts, &made, force).map_err(|e| match e {
            // The mock's words: the parent that is missing.
            Errno::NOENT => ApiError::new(
                StatusCode::NOT_FOUND,
                format!("Path /{} not found", parts[..parts.len() - 1].join("/")),
            ),
            Errno::NOTDIR => ApiError::new(
                StatusCode::CONFLICT,
                format!("a parent of {shown} is not a directory"),
            ),
            other => errno(other, &shown),
        })?;
        stat_of(root.as_fd(), &shown, &parts)
    })
    .await?;
    Ok((StatusCode::CREATED, axum::Json(as_inside(value, ids))).into_response())
}

/// `GET /volumecontent/{id}/file?path=`: the bytes, streamed.
async fn read(target: Target) -> ApiResult<Response> {
    let Target { dir, shown, parts, .. } = target;
    let (file, size) = blocking(move || {
        let root = open_root(&dir)?;
        let fd =
            open_beneath(root.as_fd(), &parts, OFlags::RDONLY | OFlags::NONBLOCK | OFlags::NOCTTY)
                .map_err(|e| errno(e, &shown))?;
        let st = rustix::fs::fstat(&fd).map_err(|e| errno(e, &shown))?;
        if FileType::from_raw_mode(st.st_mode) != FileType::RegularFile {
            return Err(ApiError::new(StatusCode::NOT_FOUND, format!("Path {shown} not found")));
        }
        Ok((std::fs::File::from(fd), st.st_size))
    })
    .await?;
    let stream =
        futures_util::stream::unfold(Some(tokio::fs::File::from_std(file)), |file| async move {
            use tokio::io::AsyncReadExt;
            let mut file = file?;
            let mut buffer = vec![0u8; 64 * 1024];
            match file.read(&mut buffer).await {
                Ok(0) => None,
                Ok(n) => {
                    buffer.truncate(n);
                    Some((Ok::<_, std::io::Error>(axum::body::Bytes::from(buffer)), Some(file)))
                }
                Err(e) => Some((Err(e), None)),
            }
        });
    Ok((
        [
            (header::CONTENT_TYPE, "application/octet-stream".to_owned()),
            (header::CONTENT_LENGTH, size.to_string()),
        ],
        Body::from_stream(stream),
    )
        .into_response())
}

/// `PUT /volumecontent/{id}/file?path=&uid=&gid=&mode=&force=`: 201 with the file. The
/// bytes go to a new file beside it, renamed over it once complete. A volume at its size
/// (`EDQUOT`) answers 507 naming it and its size.
async fn write(target: Target, body: Body) -> ApiResult<Response> {
    let volume = target.volume.clone();
    write_file(target, body).await.map_err(|e| naming(&volume, e))
}

async fn write_file(target: Target, body: Body) -> ApiResult<Response> {
    let Target { dir, ids, shown, parts, query, .. } = target;
    if parts.is_empty() {
        return Err(ApiError::new(StatusCode::CONFLICT, "Path / is a directory"));
    }
    let made = made(&query, DEFAULT_FILE_MODE, ids)?;
    let force = query_force(&query);
    let temp =
        format!(".{}.dsh-upload-{}", parts[parts.len() - 1], crate::server::files::random_hex(8));
    let (shown2, parts2, temp2) = (shown.clone(), parts.clone(), temp.clone());
    let opened = blocking(move || {
        let root = open_root(&dir)?;
        let (parent_fd, name) = parent(root.as_fd(), &parts2).map_err(|e| errno(e, &shown2))?;
        match rustix::fs::statat(&parent_fd, name, AtFlags::SYMLINK_NOFOLLOW) {
            Ok(st) if FileType::from_raw_mode(st.st_mode) == FileType::Directory => {
                return Err(ApiError::new(
                    StatusCode::CONFLICT,
                    format!("Path {shown2} is a directory"),
                ));
            }
            Ok(_) if !force => {
                return Err(ApiError::new(
                    StatusCode::CONFLICT,
                    format!("Path {shown2} already exists"),
                ));
            }
            Ok(_) | Err(Errno::NOENT) => {}
            Err(e) => return Err(errno(e, &shown2)),
        }
        let fd = rustix::fs::openat(
            &parent_fd,
            temp2.as_str(),
            OFlags::WRONLY | OFlags::CREATE | OFlags::EXCL | OFlags::NOFOLLOW | OFlags::CLOEXEC,
            Mode::from_raw_mode(0o600),
        )
        .map_err(|e| errno(e, &shown2))?;
        Ok((root, parent_fd, std::fs::File::from(fd)))
    })
    .await;
    let mut body = body.into_data_stream();
    let (root, parent_fd, file) = match opened {
        Ok(opened) => opened,
        Err(e) => {
            // A full volume may refuse the file itself: the client still gets the answer.
            dsh_http::drain_failed_upload(&mut body).await;
            return Err(e);
        }
    };
    let parent_fd = Arc::new(parent_fd);
    let cleanup = |parent_fd: &OwnedFd, temp: &str| {
        let _ = rustix::fs::unlinkat(parent_fd, temp, AtFlags::empty());
    };
    let mut file = Some(file);
    while let Some(chunk) = body.next().await {
        let chunk = match chunk {
            Ok(chunk) => chunk,
            Err(e) => {
                cleanup(&parent_fd, &temp);
                return Err(ApiError::bad_request(format!("reading the body: {e}")));
            }
        };
        let Some(mut open) = file.take() else { break };
        let written = tokio::task::spawn_blocking(move || open.write_all(&chunk).map(|()| open))
            .await
            .map_err(|e| ApiError::internal(&anyhow::anyhow!("the volume task panicked: {e}")));
        match written {
            Ok(Ok(open)) => file = Some(open),
            Ok(Err(e)) => {
                cleanup(&parent_fd, &temp);
                dsh_http::drain_failed_upload(&mut body).await;
                return Err(errno(Errno::from_io_error(&e).unwrap_or(Errno::IO), &shown));
            }
            Err(e) => {
                cleanup(&parent_fd, &temp);
                return Err(e);
            }
        }
    }
    let Some(file) = file else {
        cleanup(&parent_fd, &temp);
        return Err(ApiError::internal(&anyhow::anyhow!("the upload's file was lost")));
    };
    let value = blocking(move || {
        let name = parts[parts.len() - 1].clone();
        let finished = (|| {
            file.sync_all().map_err(|e| Errno::from_io_error(&e).unwrap_or(Errno::IO))?;
            own(file.as_fd(), &made)?;
            rustix::fs::renameat(&*parent_fd, temp.as_str(), &*parent_fd, name.as_str())
        })();
        if let Err(e) = finished {
            cleanup(&parent_fd, &temp);
            return Err(errno(e, &shown));
        }
        stat_of(root.as_fd(), &shown, &parts)
    })
    .await?;
    Ok((StatusCode::CREATED, axum::Json(as_inside(value, ids))).into_response())
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn paths_are_rooted_collapsed_and_refuse_dot_dot() {
        assert_eq!(normalize("a//b/").unwrap(), ("/a/b".to_owned(), vec!["a".into(), "b".into()]));
        assert_eq!(normalize("/").unwrap(), ("/".to_owned(), vec![]));
        assert!(normalize("/a/../b").is_err());
        assert!(normalize("./a").is_err());
        assert!(normalize("").is_err());
        assert!(normalize("a\0b").is_err());
    }
}
