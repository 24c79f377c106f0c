//! `GET /files` (download, with gzip and ranges) and `POST /files` (multipart or raw
//! upload, gzip request bodies, `X-Metadata-*`). Bodies stream both ways: memory use
//! does not grow with file size.

use std::collections::HashSet;
use std::io::{self, Read as _, Write as _};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use axum::Router;
use axum::body::Body;
use axum::extract::{FromRequest as _, Query, Request, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use bytes::Bytes;
use futures_util::{Stream, StreamExt as _};
use serde::Deserialize;
use tokio::io::{AsyncReadExt as _, AsyncSeekExt as _, AsyncWriteExt as _};
use tokio::sync::mpsc;

use crate::auth;
use crate::http_api::http_error;
use crate::state::Envd;
use crate::users::User;

const READ_CHUNK: usize = 256 * 1024;
const METADATA_KEY_MAX: usize = 246;
const METADATA_TOTAL_MAX: usize = 4096;

pub fn routes() -> Router<Arc<Envd>> {
    Router::new()
        .route("/files", get(download).post(upload))
        .layer(axum::extract::DefaultBodyLimit::disable())
}

#[derive(Debug, Deserialize)]
struct FileQuery {
    path: Option<String>,
    username: Option<String>,
    signature: Option<String>,
    signature_expiration: Option<String>,
}

/// Authorizes the request and picks the user; errors are finished responses.
fn prepare(
    envd: &Envd,
    headers: &HeaderMap,
    query: &FileQuery,
    operation: &str,
) -> Result<User, Response> {
    auth::authorize_file_request(
        envd,
        headers,
        query.path.as_deref().unwrap_or_default(),
        operation,
        query.username.as_deref().unwrap_or_default(),
        query.signature.as_deref(),
        query.signature_expiration.as_deref(),
    )?;
    let name = query.username.clone().unwrap_or_else(|| envd.settings().default_user);
    auth::lookup_user(envd, &name).map_err(|err| http_error(StatusCode::UNAUTHORIZED, &err.message))
}

fn resolve(envd: &Envd, path: &str, user: &User) -> Result<PathBuf, Response> {
    crate::paths::resolve(path, user, envd.settings().default_workdir.as_deref())
        .map_err(|err| http_error(StatusCode::BAD_REQUEST, &err.message))
}

fn accepts_gzip(headers: &HeaderMap) -> bool {
    headers.get_all(header::ACCEPT_ENCODING).iter().filter_map(|v| v.to_str().ok()).any(|value| {
        value.split(',').any(|item| {
            let mut parts = item.split(';');
            let coding = parts.next().unwrap_or_default().trim();
            let refused = parts.any(|p| {
                matches!(p.trim().replace(' ', "").as_str(), "q=0" | "q=0.0" | "q=0.00" | "q=0.000")
            });
            (coding.eq_ignore_ascii_case("gzip") || coding == "*") && !refused
        })
    })
}

fn content_type_for(path: &Path) -> &'static str {
    let extension =
        path.extension().and_then(|e| e.to_str()).unwrap_or_default().to_ascii_lowercase();
    match extension.as_str() {
        "txt" | "md" | "log" | "py" | "rs" | "ts" | "sh" => "text/plain; charset=utf-8",
        "html" | "htm" => "text/html; charset=utf-8",
        "css" => "text/css; charset=utf-8",
        "js" | "mjs" => "text/javascript; charset=utf-8",
        "json" => "application/json",
        "xml" => "text/xml; charset=utf-8",
        "csv" => "text/csv; charset=utf-8",
        "png" => "image/png",
        "jpg" | "jpeg" => "image/jpeg",
        "gif" => "image/gif",
        "svg" => "image/svg+xml",
        "pdf" => "application/pdf",
        "zip" => "application/zip",
        "gz" => "application/gzip",
        "tar" => "application/x-tar",
        _ => "application/octet-stream",
    }
}

/// A single `bytes=` range resolved against `size`: `Ok(None)` for no/unsupported
/// ranges (serve whole), `Err(())` for an unsatisfiable one.
fn parse_range(value: &str, size: u64) -> Result<Option<(u64, u64)>, ()> {
    let Some(spec) = value.trim().strip_prefix("bytes=") else { return Ok(None) };
    if spec.contains(',') {
        return Ok(None);
    }
    let Some((start, end)) = spec.split_once('-') else { return Err(()) };
    let (start, end) = (start.trim(), end.trim());
    let range = if start.is_empty() {
        let suffix: u64 = end.parse().map_err(|_| ())?;
        if suffix == 0 {
            return Err(());
        }
        (size.saturating_sub(suffix), size.saturating_sub(1))
    } else {
        let start: u64 = start.parse().map_err(|_| ())?;
        let end = if end.is_empty() {
            size.saturating_sub(1)
        } else {
            end.parse::<u64>().map_err(|_| ())?.min(size.saturating_sub(1))
        };
        (start, end)
    };
    if range.0 >= size || range.0 > range.1 { Err(()) } else { Ok(Some(range)) }
}

async fn download(
    State(envd): State<Arc<Envd>>,
    headers: HeaderMap,
    Query(query): Query<FileQuery>,
) -> Response {
    let user = match prepare(&envd, &headers, &query, "read") {
        Ok(user) => user,
        Err(response) => return response,
    };
    let path = match resolve(&envd, query.path.as_deref().unwrap_or_default(), &user) {
        Ok(path) => path,
        Err(response) => return response,
    };
    if envd.config.strict.is_some()
        && let Some(answer) = crate::strict::download_answer(&path).await
    {
        return answer;
    }
    let opened = {
        let path = path.clone();
        tokio::task::spawn_blocking(move || open_for_download(&path)).await
    };
    let (file, meta) = match opened {
        Ok(Ok(opened)) => opened,
        Ok(Err(response)) => return response,
        Err(err) => {
            return http_error(StatusCode::INTERNAL_SERVER_ERROR, &format!("open failed: {err}"));
        }
    };
    let mut file = tokio::fs::File::from_std(file);
    let size = meta.len();
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let disposition =
        HeaderValue::from_str(&format!("inline; filename=\"{}\"", name.replace('"', "\\\"")))
            .unwrap_or_else(|_| HeaderValue::from_static("inline"));
    let mut builder = Response::builder()
        .header(header::CONTENT_DISPOSITION, disposition)
        .header(header::VARY, "Accept-Encoding")
        .header(header::ACCEPT_RANGES, "bytes");

    let range =
        headers.get(header::RANGE).and_then(|v| v.to_str().ok()).map(|v| parse_range(v, size));
    match range {
        Some(Err(())) => {
            return Response::builder()
                .status(StatusCode::RANGE_NOT_SATISFIABLE)
                .header(header::CONTENT_RANGE, format!("bytes */{size}"))
                .body(Body::empty())
                .unwrap_or_else(|_| StatusCode::RANGE_NOT_SATISFIABLE.into_response());
        }
        Some(Ok(Some((start, end)))) => {
            if let Err(err) = file.seek(io::SeekFrom::Start(start)).await {
                return http_error(
                    StatusCode::INTERNAL_SERVER_ERROR,
                    &format!("seek failed: {err}"),
                );
            }
            let length = end - start + 1;
            builder = builder
                .status(StatusCode::PARTIAL_CONTENT)
                .header(header::CONTENT_TYPE, "application/octet-stream")
                .header(header::CONTENT_RANGE, format!("bytes {start}-{end}/{size}"))
                .header(header::CONTENT_LENGTH, length);
            return builder
                .body(Body::from_stream(read_stream(file.take(length))))
                .unwrap_or_else(|_| StatusCode::INTERNAL_SERVER_ERROR.into_response());
        }
        _ => {}
    }
    if accepts_gzip(&headers) {
        builder = builder
            .status(StatusCode::OK)
            .header(header::CONTENT_TYPE, content_type_for(&path))
            .header(header::CONTENT_ENCODING, "gzip");
        return builder
            .body(Body::from_stream(gzip_stream(file.into_std().await)))
            .unwrap_or_else(|_| StatusCode::INTERNAL_SERVER_ERROR.into_response());
    }
    builder
        .status(StatusCode::OK)
        .header(header::CONTENT_TYPE, "application/octet-stream")
        .header(header::CONTENT_LENGTH, size)
        .body(Body::from_stream(read_stream(file)))
        .unwrap_or_else(|_| StatusCode::INTERNAL_SERVER_ERROR.into_response())
}

/// Opens `path` for a download and describes the file it opened; errors are finished
/// responses.
///
/// The file is opened first and described through its descriptor (never stat, then
/// open): a write that renames a new file into place between the two would otherwise be
/// served cut to the old file's length. The first open is `O_PATH`, which reaches no
/// driver, so a FIFO (which would block) or a device (whose open may act) is refused
/// before anything opens it for reading; the file is then reopened through
/// `/proc/self/fd`, which names that same inode whatever the path now points to.
fn open_for_download(path: &Path) -> Result<(std::fs::File, std::fs::Metadata), Response> {
    use std::os::fd::AsRawFd as _;
    use std::os::unix::fs::OpenOptionsExt as _;

    let failed = |err: io::Error| match err.kind() {
        io::ErrorKind::NotFound => {
            http_error(StatusCode::NOT_FOUND, &format!("path '{}' does not exist", path.display()))
        }
        // `file/x`: the request names a path that cannot exist, a client's mistake (a 400,
        // as envd's other handlers answer ENOTDIR), not a failure of envd's.
        io::ErrorKind::NotADirectory => http_error(
            StatusCode::BAD_REQUEST,
            &format!("a component of path '{}' is not a directory", path.display()),
        ),
        _ => http_error(
            StatusCode::INTERNAL_SERVER_ERROR,
            &format!("error reading '{}': {err}", path.display()),
        ),
    };
    let handle = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_PATH)
        .open(path)
        .map_err(failed)?;
    let meta = handle.metadata().map_err(failed)?;
    if meta.is_dir() {
        return Err(http_error(
            StatusCode::BAD_REQUEST,
            &format!("path '{}' is a directory", path.display()),
        ));
    }
    if !meta.is_file() {
        // A FIFO or a device would block or never end: only regular files are served.
        return Err(http_error(
            StatusCode::BAD_REQUEST,
            &format!("path '{}' is not a regular file", path.display()),
        ));
    }
    let file =
        std::fs::File::open(format!("/proc/self/fd/{}", handle.as_raw_fd())).map_err(|err| {
            http_error(
                StatusCode::INTERNAL_SERVER_ERROR,
                &format!("error opening '{}': {err}", path.display()),
            )
        })?;
    Ok((file, meta))
}

fn read_stream<R: tokio::io::AsyncRead + Unpin + Send + 'static>(
    reader: R,
) -> impl Stream<Item = io::Result<Bytes>> {
    tokio_util_like::ReaderStream::new(reader, READ_CHUNK)
}

/// Compresses on a blocking thread and hands chunks over a small channel.
fn gzip_stream(mut file: std::fs::File) -> impl Stream<Item = io::Result<Bytes>> {
    let (tx, rx) = mpsc::channel::<io::Result<Bytes>>(8);
    tokio::task::spawn_blocking(move || {
        let sink = ChannelWriter { tx: tx.clone() };
        let mut encoder = flate2::write::GzEncoder::new(sink, flate2::Compression::fast());
        let mut buffer = vec![0u8; READ_CHUNK];
        let result = (|| -> io::Result<()> {
            loop {
                let n = file.read(&mut buffer)?;
                if n == 0 {
                    break;
                }
                encoder.write_all(&buffer[..n])?;
            }
            encoder.finish()?.flush()
        })();
        if let Err(err) = result {
            let _ = tx.blocking_send(Err(err));
        }
    });
    tokio_stream::wrappers::ReceiverStream::new(rx)
}

/// A `Write` that forwards buffered chunks into an async channel.
struct ChannelWriter {
    tx: mpsc::Sender<io::Result<Bytes>>,
}

impl io::Write for ChannelWriter {
    fn write(&mut self, data: &[u8]) -> io::Result<usize> {
        self.tx
            .blocking_send(Ok(Bytes::copy_from_slice(data)))
            .map_err(|_| io::Error::new(io::ErrorKind::BrokenPipe, "client went away"))?;
        Ok(data.len())
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// Decompresses a gzip request body as it streams in.
fn gunzip_body(body: Body) -> Body {
    let (in_tx, in_rx) = std::sync::mpsc::sync_channel::<Bytes>(8);
    let (out_tx, out_rx) = mpsc::channel::<io::Result<Bytes>>(8);
    tokio::spawn(async move {
        let mut stream = body.into_data_stream();
        while let Some(chunk) = stream.next().await {
            let Ok(chunk) = chunk else { break };
            let sender = in_tx.clone();
            let sent = tokio::task::spawn_blocking(move || sender.send(chunk).is_ok()).await;
            if !matches!(sent, Ok(true)) {
                break;
            }
        }
    });
    tokio::task::spawn_blocking(move || {
        let reader = ChannelReader { rx: in_rx, current: Bytes::new() };
        let mut decoder = flate2::read::GzDecoder::new(reader);
        let mut buffer = vec![0u8; READ_CHUNK];
        loop {
            match decoder.read(&mut buffer) {
                Ok(0) => break,
                Ok(n) => {
                    if out_tx.blocking_send(Ok(Bytes::copy_from_slice(&buffer[..n]))).is_err() {
                        break;
                    }
                }
                Err(err) => {
                    let _ = out_tx.blocking_send(Err(io::Error::new(
                        io::ErrorKind::InvalidData,
                        format!("bad gzip body: {err}"),
                    )));
                    break;
                }
            }
        }
    });
    Body::from_stream(tokio_stream::wrappers::ReceiverStream::new(out_rx))
}

struct ChannelReader {
    rx: std::sync::mpsc::Receiver<Bytes>,
    current: Bytes,
}

impl io::Read for ChannelReader {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        while self.current.is_empty() {
            match self.rx.recv() {
                Ok(chunk) => self.current = chunk,
                Err(_) => return Ok(0),
            }
        }
        let n = out.len().min(self.current.len());
        out[..n].copy_from_slice(&self.current[..n]);
        self.current = self.current.slice(n..);
        Ok(n)
    }
}

/// `X-Metadata-<key>: <value>` headers: printable ASCII, keys lowercased, bounded sizes.
fn metadata_from_headers(headers: &HeaderMap) -> Result<Vec<(String, String)>, String> {
    let mut metadata = Vec::new();
    let mut total = 0;
    for (name, value) in headers {
        let Some(key) = name.as_str().strip_prefix("x-metadata-") else { continue };
        let value =
            value.to_str().map_err(|_| format!("metadata {key:?} is not printable ASCII"))?;
        if key.is_empty()
            || !key.bytes().all(|b| b.is_ascii_graphic())
            || !value.bytes().all(|b| (0x20..0x7f).contains(&b))
        {
            return Err(format!("metadata {key:?} must be printable ASCII"));
        }
        if key.len() > METADATA_KEY_MAX {
            return Err(format!("metadata key {key:?} is over {METADATA_KEY_MAX} bytes"));
        }
        total += key.len() + value.len();
        if total > METADATA_TOTAL_MAX {
            return Err(format!("metadata is over {METADATA_TOTAL_MAX} bytes in total"));
        }
        metadata.push((key.to_ascii_lowercase(), value.to_owned()));
    }
    Ok(metadata)
}

/// Why an upload failed, mapped to envd's statuses.
enum UploadError {
    BadRequest(String),
    NoSpace(String),
    Internal(String),
}

impl UploadError {
    fn from_io(path: &Path, err: &io::Error) -> Self {
        match err.raw_os_error() {
            Some(libc::ENOSPC) | Some(libc::EDQUOT) => UploadError::NoSpace(format!(
                "not enough disk space to write '{}': {err}",
                path.display()
            )),
            Some(libc::EISDIR) => {
                UploadError::BadRequest(format!("path '{}' is a directory", path.display()))
            }
            Some(libc::EFBIG) => UploadError::BadRequest(format!(
                "file '{}' is over the size limit: {err}",
                path.display()
            )),
            _ if err.kind() == io::ErrorKind::InvalidData => {
                UploadError::BadRequest(err.to_string())
            }
            _ => UploadError::Internal(format!("error writing '{}': {err}", path.display())),
        }
    }

    fn into_response(self) -> Response {
        match self {
            UploadError::BadRequest(message) => http_error(StatusCode::BAD_REQUEST, &message),
            UploadError::NoSpace(message) => http_error(StatusCode::INSUFFICIENT_STORAGE, &message),
            UploadError::Internal(message) => {
                http_error(StatusCode::INTERNAL_SERVER_ERROR, &message)
            }
        }
    }
}

/// Writes one upload: parents created for the user, file truncated or created 0666
/// (under the umask) and owned by the user.
async fn write_file<S, E>(
    path: &Path,
    user: &User,
    mut chunks: S,
    metadata: &[(String, String)],
) -> Result<serde_json::Value, UploadError>
where
    S: Stream<Item = Result<Bytes, E>> + Unpin,
    E: std::fmt::Display,
{
    if tokio::fs::metadata(path).await.is_ok_and(|m| m.is_dir()) {
        return Err(UploadError::BadRequest(format!("path '{}' is a directory", path.display())));
    }
    if let Some(parent) = path.parent() {
        let (parent, owner) = (parent.to_path_buf(), user.clone());
        tokio::task::spawn_blocking(move || crate::fs::create_dirs_owned(&parent, &owner))
            .await
            .map_err(|err| UploadError::Internal(err.to_string()))?
            .map_err(|err| match err.kind() {
                io::ErrorKind::NotADirectory | io::ErrorKind::AlreadyExists => {
                    UploadError::BadRequest(format!(
                        "cannot create the parent of '{}': a component is not a directory",
                        path.display()
                    ))
                }
                _ => UploadError::from_io(path, &err),
            })?;
    }
    let mut file = tokio::fs::OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .mode(0o666)
        .open(path)
        .await
        .map_err(|err| UploadError::from_io(path, &err))?;
    crate::fs::chown(path, user).map_err(|err| UploadError::from_io(path, &err))?;
    while let Some(chunk) = chunks.next().await {
        let chunk =
            chunk.map_err(|err| UploadError::BadRequest(format!("upload body failed: {err}")))?;
        file.write_all(&chunk).await.map_err(|err| UploadError::from_io(path, &err))?;
    }
    file.flush().await.map_err(|err| UploadError::from_io(path, &err))?;
    drop(file);
    let mut entry = serde_json::json!({
        "path": path.to_string_lossy(),
        "name": path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default(),
        "type": "file",
    });
    // Always: a write without metadata clears what an earlier write stored (E2B's rule).
    crate::fs::entry::write_metadata(path, metadata)
        .map_err(|err| UploadError::Internal(err.message))?;
    if !metadata.is_empty() {
        let map: serde_json::Map<String, serde_json::Value> = metadata
            .iter()
            .map(|(k, v)| (k.clone(), serde_json::Value::String(v.clone())))
            .collect();
        entry["metadata"] = serde_json::Value::Object(map);
    }
    Ok(entry)
}

/// Bytes of a refused upload read before answering.
const DRAIN_LIMIT: usize = 1 << 20;

/// Reads (and drops) what a refused upload sends, up to [`DRAIN_LIMIT`] and for at most
/// 2 s, before answering: a client still writing a small body would otherwise have its
/// connection closed under it and see a broken pipe instead of the answer.
async fn drained(request: Request, response: Response) -> Response {
    let body = axum::body::to_bytes(request.into_body(), DRAIN_LIMIT);
    let _ = tokio::time::timeout(std::time::Duration::from_secs(2), body).await;
    response
}

/// An answer given before the request's body was read to its end (a write that failed
/// half-way, say: a full disk): the connection closes after it, and says so, so that a
/// client or proxy does not send its next request on a connection about to close (it
/// would get no answer, "connection closed before message completed").
fn closing(mut response: Response) -> Response {
    response.headers_mut().insert(header::CONNECTION, header::HeaderValue::from_static("close"));
    response
}

async fn upload(
    State(envd): State<Arc<Envd>>,
    Query(query): Query<FileQuery>,
    request: Request,
) -> Response {
    let headers = request.headers().clone();
    let user = match prepare(&envd, &headers, &query, "write") {
        Ok(user) => user,
        Err(response) => return drained(request, response).await,
    };
    let metadata = match metadata_from_headers(&headers) {
        Ok(metadata) => metadata,
        Err(message) => {
            return drained(request, http_error(StatusCode::BAD_REQUEST, &message)).await;
        }
    };
    let gzipped =
        match headers.get(header::CONTENT_ENCODING).and_then(|v| v.to_str().ok()).map(str::trim) {
            None | Some("") | Some("identity") => false,
            Some(coding) if coding.eq_ignore_ascii_case("gzip") => true,
            Some(other) => {
                let message = format!("unsupported content encoding {other:?}");
                return drained(request, http_error(StatusCode::BAD_REQUEST, &message)).await;
            }
        };
    let (parts, body) = request.into_parts();
    let body = if gzipped { gunzip_body(body) } else { body };
    let content_type = headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("")
        .to_ascii_lowercase();
    let target = match &query.path {
        Some(path) if !path.is_empty() => match resolve(&envd, path, &user) {
            Ok(path) => Some(path),
            Err(response) => return response,
        },
        _ => None,
    };

    let mut written = Vec::new();
    if content_type.starts_with("application/octet-stream") {
        let Some(path) = target else {
            return http_error(
                StatusCode::BAD_REQUEST,
                "an octet-stream upload needs the path query parameter",
            );
        };
        let mut stream = body.into_data_stream();
        match write_file(&path, &user, &mut stream, &metadata).await {
            Ok(entry) => written.push(entry),
            Err(error) => {
                dsh_http::drain_failed_upload(&mut stream).await;
                return closing(error.into_response());
            }
        }
    } else if content_type.starts_with("multipart/form-data") {
        let request = Request::from_parts(parts, body);
        let mut multipart = match axum::extract::Multipart::from_request(request, &()).await {
            Ok(multipart) => multipart,
            Err(rejection) => return http_error(StatusCode::BAD_REQUEST, &rejection.body_text()),
        };
        let mut seen = HashSet::new();
        loop {
            let field = match multipart.next_field().await {
                Ok(Some(field)) => field,
                Ok(None) => break,
                Err(err) => {
                    return http_error(
                        StatusCode::BAD_REQUEST,
                        &format!("malformed multipart body: {err}"),
                    );
                }
            };
            if field.name() != Some("file") {
                continue;
            }
            let path = match (&target, field.file_name()) {
                (Some(path), _) => path.clone(),
                (None, Some(name)) if !name.is_empty() => match resolve(&envd, name, &user) {
                    Ok(path) => path,
                    Err(response) => return response,
                },
                _ => {
                    return http_error(
                        StatusCode::BAD_REQUEST,
                        "a file part has no filename and no path was given",
                    );
                }
            };
            if !seen.insert(path.clone()) {
                return http_error(
                    StatusCode::BAD_REQUEST,
                    &format!("path '{}' appears in more than one part", path.display()),
                );
            }
            let mut field = field;
            match write_file(&path, &user, &mut field, &metadata).await {
                Ok(entry) => written.push(entry),
                Err(error) => {
                    dsh_http::drain_failed_upload(&mut field).await;
                    return closing(error.into_response());
                }
            }
        }
        if written.is_empty() {
            return http_error(
                StatusCode::BAD_REQUEST,
                "the multipart body has no part named 'file'",
            );
        }
    } else {
        return http_error(
            StatusCode::BAD_REQUEST,
            &format!(
                "unsupported content type {content_type:?}: use multipart/form-data or application/octet-stream"
            ),
        );
    }
    (
        StatusCode::OK,
        [(header::CONTENT_TYPE, "application/json")],
        serde_json::Value::Array(written).to_string(),
    )
        .into_response()
}

/// A small `AsyncRead` → `Stream` adapter (what tokio-util's `ReaderStream` does),
/// kept here to avoid a dependency for twenty lines.
mod tokio_util_like {
    use std::io;
    use std::pin::Pin;
    use std::task::{Context, Poll};

    use bytes::{Bytes, BytesMut};
    use futures_util::Stream;
    use tokio::io::{AsyncRead, ReadBuf};

    pub struct ReaderStream<R> {
        reader: Option<R>,
        buffer: BytesMut,
        chunk: usize,
    }

    impl<R> ReaderStream<R> {
        pub fn new(reader: R, chunk: usize) -> Self {
            Self { reader: Some(reader), buffer: BytesMut::new(), chunk }
        }
    }

    impl<R: AsyncRead + Unpin> Stream for ReaderStream<R> {
        type Item = io::Result<Bytes>;
        fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
            let this = &mut *self;
            let Some(reader) = this.reader.as_mut() else { return Poll::Ready(None) };
            if this.buffer.capacity() < this.chunk {
                this.buffer.reserve(this.chunk);
            }
            let spare = this.buffer.spare_capacity_mut();
            let mut read_buf = ReadBuf::uninit(spare);
            match Pin::new(reader).poll_read(cx, &mut read_buf) {
                Poll::Pending => Poll::Pending,
                Poll::Ready(Err(err)) => {
                    this.reader = None;
                    Poll::Ready(Some(Err(err)))
                }
                Poll::Ready(Ok(())) => {
                    let n = read_buf.filled().len();
                    if n == 0 {
                        this.reader = None;
                        return Poll::Ready(None);
                    }
                    // SAFETY: `poll_read` initialised the first `n` bytes of the spare capacity.
                    unsafe { this.buffer.set_len(this.buffer.len() + n) };
                    Poll::Ready(Some(Ok(this.buffer.split().freeze())))
                }
            }
        }
    }
}
