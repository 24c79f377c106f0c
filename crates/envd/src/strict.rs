//! "E2B-strict" mode: envd behaving as E2B's own envd of a given version does, so that
//! dsh's client fallbacks (signals, uploads, stdin, default user) are tested against the
//! refusals real sandboxes give, not against dsh-envd's extensions.
//!
//! What is modelled, each from the Go source named (e2b-dev/infra at 54693ff, envd
//! 0.6.13, `packages/envd/...`; version gates from the Python SDK's
//! `e2b/envd/versions.py`):
//! - a command starts as `/bin/sh -c 'echo 100 > /proc/$$/oom_score_adj && exec
//!   [ionice -c 2 -n 4] [nice -n D] "${@}"' -- CMD ARGS` with only a `Credential`: no new
//!   session or process group, so it stays in envd's group and no group is numbered
//!   after its pid ([`command_line`]; `internal/services/process/handler/handler.go`,
//!   `New`). A PTY process leads a session (creack/pty's `StartWithSize` sets `Setsid`).
//! - `SendSignal` takes SIGTERM and SIGKILL only, sent to the pid alone
//!   (`internal/services/process/signal.go`, `Handler.SendSignal`); the `target` field
//!   (dsh's extension, 1000) is ignored and no `target_pgid` is answered. Both signals
//!   stop the end from waiting for the output pipes (`outCancel()` in `SendSignal`).
//! - the process's timeout kills the pid alone with SIGKILL (`exec.CommandContext`'s
//!   default `Cancel`, `internal/services/process/start.go` `procCtx`).
//! - `EntryInfo` carries fields 1–11 only: a symlink is told by `symlink_target` alone
//!   (`internal/services/filesystem/utils.go` `entryInfo`; `spec/filesystem/filesystem.proto`).
//! - a request naming no user where there is no default user: Connect `unauthenticated`
//!   "no user specified" (`internal/permissions/authenticate.go` `GetAuthUser`); on
//!   `/files` a 400 (`internal/api/download.go`, `upload.go`: `ResolveDefaultUsername`).
//! - before 0.5.7 `POST /files` takes multipart bodies only (no `application/octet-stream`),
//! - before 0.5.2 there is no `CloseStdin` procedure (a plain 404, as Go's mux answers),
//! - before 0.4.0 there is no default user,
//! - before 0.5.13 `/init` ignores `caBundle` (an unknown field to Go's JSON decoder; it
//!   came with e2b-dev/infra 495767fc8, which made envd 0.5.13).

use std::sync::Arc;

use axum::extract::{Request, State};
use axum::http::{Method, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use crate::Envd;

/// The envd version an E2B-strict envd behaves as.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct StrictVersion(pub u32, pub u32, pub u32);

impl StrictVersion {
    /// `MAJOR.MINOR.PATCH`.
    pub fn parse(text: &str) -> Option<Self> {
        let mut parts = text.trim().split('.').map(|p| p.parse::<u32>().ok());
        let version = StrictVersion(parts.next()??, parts.next()??, parts.next()??);
        parts.next().is_none().then_some(version)
    }

    pub fn has_octet_stream_upload(self) -> bool {
        self >= StrictVersion(0, 5, 7)
    }

    pub fn has_close_stdin(self) -> bool {
        self >= StrictVersion(0, 5, 2)
    }

    pub fn has_default_user(self) -> bool {
        self >= StrictVersion(0, 4, 0)
    }

    pub fn has_ca_bundle(self) -> bool {
        self >= StrictVersion(0, 5, 13)
    }
}

impl std::fmt::Display for StrictVersion {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}.{}.{}", self.0, self.1, self.2)
    }
}

/// Refuses what E2B's envd of the configured version refuses, before any handler runs.
pub async fn gate(State(envd): State<Arc<Envd>>, request: Request, next: Next) -> Response {
    let Some(version) = envd.config.strict else { return next.run(request).await };
    let path = request.uri().path();
    if path == "/process.Process/CloseStdin" && !version.has_close_stdin() {
        return (
            StatusCode::NOT_FOUND,
            [(header::CONTENT_TYPE, "text/plain")],
            "404 page not found",
        )
            .into_response();
    }
    if path == "/files"
        && request.method() == Method::POST
        && !version.has_octet_stream_upload()
        && request
            .headers()
            .get(header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .is_some_and(|v| v.starts_with("application/octet-stream"))
    {
        let body = serde_json::json!({
            "code": 400,
            "message": format!("envd {version}: the upload must be multipart/form-data"),
        });
        return (StatusCode::BAD_REQUEST, axum::Json(body)).into_response();
    }
    let names_user = request.headers().contains_key(header::AUTHORIZATION)
        || request.uri().query().is_some_and(|q| q.split('&').any(|p| p.starts_with("username=")));
    let needs_user =
        path.starts_with("/process.") || path.starts_with("/filesystem.") || path == "/files";
    if needs_user && !names_user && !version.has_default_user() {
        if path == "/files" {
            // internal/api/download.go and upload.go: `jsonError(w, http.StatusBadRequest,
            // err)` with the error of `execcontext.ResolveDefaultUsername`.
            let body = serde_json::json!({ "code": 400, "message": "no user specified" });
            return (StatusCode::BAD_REQUEST, axum::Json(body)).into_response();
        }
        // internal/permissions/authenticate.go, `GetAuthUser`:
        // `connect.NewError(connect.CodeUnauthenticated, errors.New("no user specified"))`;
        // Connect sends `unauthenticated` as HTTP 401.
        let body = serde_json::json!({ "code": "unauthenticated", "message": "no user specified" });
        return (StatusCode::UNAUTHORIZED, axum::Json(body)).into_response();
    }
    next.run(request).await
}

/// What E2B's `GET /files` answers, where it differs from dsh-envd's, for `path`
/// (internal/api/download.go, `GetFiles`); `None`: dsh-envd's own answer is E2B's.
/// - `os.Stat` failing other than with "not exist" (a path through a regular file:
///   ENOTDIR) is 500 "error checking if path exists '<path>': stat <path>: not a
///   directory";
/// - a FIFO: `os.Open` blocks until a writer opens it (here: never answered, until the
///   client goes away);
/// - a character device: `http.ServeContent` sizes the body by seeking to its end,
///   which is 0 there: 200 with an empty body.
pub async fn download_answer(path: &std::path::Path) -> Option<Response> {
    use std::os::unix::fs::FileTypeExt as _;
    match std::fs::metadata(path) {
        Err(err) if err.kind() == std::io::ErrorKind::NotADirectory => {
            let shown = path.display();
            let body = serde_json::json!({
                "code": 500,
                "message": format!("error checking if path exists '{shown}': stat {shown}: not a directory"),
            });
            Some((StatusCode::INTERNAL_SERVER_ERROR, axum::Json(body)).into_response())
        }
        Ok(meta) if meta.file_type().is_fifo() => std::future::pending().await,
        Ok(meta) if meta.file_type().is_char_device() => Some(
            (
                StatusCode::OK,
                [(header::CONTENT_TYPE, "application/octet-stream")],
                axum::body::Body::empty(),
            )
                .into_response(),
        ),
        _ => None,
    }
}

/// An `EntryInfo` as this envd sends it: E2B-strict, fields 1 to 11 only (E2B's
/// `entryInfo`, internal/services/filesystem/utils.go, fills no other; dsh's
/// `is_symlink` is field 1000 and stays unset, so a link is told by `symlink_target`).
pub fn entry(
    envd: &Envd,
    mut entry: dsh_proto::filesystem::EntryInfo,
) -> dsh_proto::filesystem::EntryInfo {
    if envd.config.strict.is_some() {
        entry.is_symlink = false;
    }
    entry
}

/// The argv after `/bin/sh` that E2B's envd starts a command with
/// (internal/services/process/handler/handler.go, `New`: `oomWrapperScript` and
/// `wrapperArgs`): the shell sets the OOM score, then execs the command under `ionice`
/// and `nice` where the image has them (`ioniceNicePrefix`, looked up in envd's `PATH`).
pub fn command_line(program: &str, args: &[String]) -> Vec<String> {
    // handler.go: defaultOomScore = 100, defaultIoClass = 2, defaultIoPrio = 4,
    // niceDelta = defaultNice (0) - currentNice().
    let mut prefix = String::new();
    if let Some(ionice) = look_path("ionice") {
        prefix.push_str(&format!("{ionice} -c 2 -n 4 "));
    }
    if let Some(nice) = look_path("nice") {
        prefix.push_str(&format!("{nice} -n {} ", -current_nice()));
    }
    let script = format!("echo 100 > /proc/$$/oom_score_adj && exec {prefix}\"${{@}}\"");
    let mut argv = vec!["-c".to_owned(), script, "--".to_owned(), program.to_owned()];
    argv.extend(args.iter().cloned());
    argv
}

/// Go's `exec.LookPath` over envd's own `PATH`: the first executable regular file.
fn look_path(name: &str) -> Option<String> {
    use std::os::unix::fs::PermissionsExt as _;
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path).map(|dir| dir.join(name)).find_map(|candidate| {
        let meta = std::fs::metadata(&candidate).ok()?;
        (meta.is_file() && meta.permissions().mode() & 0o111 != 0)
            .then(|| candidate.to_string_lossy().into_owned())
    })
}

/// handler.go `currentNice`: `20 - getpriority(PRIO_PROCESS, 0)` in Go's raw syscall,
/// which is the nice value itself as libc reports it.
fn current_nice() -> i32 {
    // SAFETY: getpriority(2) takes plain integers; errno is cleared first as the call
    // may legitimately answer -1.
    unsafe {
        *libc::__errno_location() = 0;
        let nice = libc::getpriority(libc::PRIO_PROCESS, 0);
        if nice == -1 && *libc::__errno_location() != 0 { 0 } else { nice }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn versions_parse_and_order() {
        assert_eq!(StrictVersion::parse("0.5.1"), Some(StrictVersion(0, 5, 1)));
        assert_eq!(StrictVersion::parse("0.5"), None);
        assert_eq!(StrictVersion::parse("0.5.1.2"), None);
        assert!(!StrictVersion(0, 5, 1).has_close_stdin());
        assert!(StrictVersion(0, 5, 2).has_close_stdin());
        assert!(!StrictVersion(0, 3, 0).has_default_user());
        assert!(StrictVersion(0, 6, 13).has_octet_stream_upload());
    }

    #[test]
    fn commands_start_under_envds_wrapper() {
        let argv = command_line("echo", &["a b".to_owned()]);
        assert_eq!(argv[0], "-c");
        assert!(argv[1].starts_with("echo 100 > /proc/$$/oom_score_adj && exec "), "{argv:?}");
        assert!(argv[1].ends_with("\"${@}\""), "{argv:?}");
        assert_eq!(argv[2..], ["--", "echo", "a b"]);
        let out = std::process::Command::new("/bin/sh").args(&argv).output().unwrap();
        assert_eq!(String::from_utf8_lossy(&out.stdout), "a b\n");
    }
}
