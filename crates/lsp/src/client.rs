//! One running language server: JSON-RPC over the Subprocess seam.
//!
//! Stdout is read as a byte stream from the process's capped [`dsh_core::OutputBuffer`]
//! (by offset, waiting with `wait_beyond`), framed by [`FrameDecoder`] and dispatched by a
//! reader task: responses go to the waiter registered under their id, server-to-client
//! requests are answered at once, `publishDiagnostics` is recorded. Any framing error,
//! invalid message, dropped output or end of stdout kills the connection: every waiter
//! gets the typed reason and the engine restarts the server on the next request.
//!
//! Requests, notifications and their params and results are lsp-types' types; a message
//! that does not fit its type is an invalid message. The JSON-RPC envelope stays JSON:
//! lsp-types does not model it, and server-to-client request ids may be strings.

use std::collections::HashMap;
use std::sync::atomic::{AtomicI32, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use dsh_core::{OutputMode, Process, SpawnSpec, StdinMode, Subprocess};
use lsp_types::notification::{Cancel, Exit, Initialized, Notification, PublishDiagnostics};
use lsp_types::request::{
    ApplyWorkspaceEdit, Initialize, RegisterCapability, Request, ShowMessageRequest, Shutdown,
    UnregisterCapability, WorkDoneProgressCreate, WorkspaceConfiguration, WorkspaceFoldersRequest,
};
use lsp_types::{
    ApplyWorkspaceEditResponse, CancelParams, ClientCapabilities, ClientInfo, ConfigurationParams,
    DiagnosticClientCapabilities, DocumentSymbolClientCapabilities,
    DynamicRegistrationClientCapabilities, GeneralClientCapabilities, GotoCapability,
    HoverClientCapabilities, InitializeParams, InitializedParams, MarkupKind, NumberOrString,
    PositionEncodingKind, PublishDiagnosticsClientCapabilities, PublishDiagnosticsParams,
    RenameClientCapabilities, ServerCapabilities, TextDocumentClientCapabilities,
    TextDocumentSyncClientCapabilities, TraceValue, Uri, WindowClientCapabilities,
    WorkDoneProgressParams, WorkspaceClientCapabilities, WorkspaceFolder,
    WorkspaceSymbolClientCapabilities,
};
use serde::Deserialize;
use serde_json::{Value, json};
use tokio::sync::{oneshot, watch};
use tokio::task::JoinHandle;

use crate::config::{LspConfig, ServerConfig};
use crate::error::LspError;
use crate::framing::{FrameDecoder, FrameError, encode};

/// How much of stdout is read per step.
const READ_CHUNK: usize = 256 * 1024;
/// How much of stderr is quoted in errors.
const STDERR_TAIL: usize = 2000;

/// JSON-RPC's error codes for answers to server-to-client requests (lsp-types has only
/// the LSP-specific ones).
const INVALID_PARAMS: i64 = -32602;
const METHOD_NOT_FOUND: i64 = -32601;
const INTERNAL_ERROR: i64 = -32603;

/// Why a connection died (the first cause wins).
#[derive(Debug, Clone)]
enum Failure {
    Frame(FrameError),
    Invalid(String),
    Overflow(u64),
    Exited,
}

/// A JSON-RPC error response.
#[derive(Debug, Clone)]
struct RpcError {
    code: i64,
    message: String,
}

type Reply = Result<Value, RpcError>;

/// The last `publishDiagnostics` for one document.
#[derive(Debug, Clone)]
pub(crate) struct Published {
    pub version: Option<i32>,
    /// Sequence number of the notification (see [`Connection::seq`]).
    pub seq: u64,
    pub diagnostics: Vec<lsp_types::Diagnostic>,
}

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

struct Shared {
    pending: Mutex<HashMap<i32, oneshot::Sender<Reply>>>,
    failure: Mutex<Option<Failure>>,
    diagnostics: Mutex<HashMap<Uri, Published>>,
    /// Bumped on every `publishDiagnostics` and when the connection dies.
    changed: watch::Sender<u64>,
    /// Counts messages sent and notifications received, to order them.
    seq: AtomicU64,
    settings: Value,
}

impl Shared {
    fn fail(&self, failure: Failure) {
        {
            let mut slot = lock(&self.failure);
            if slot.is_none() {
                *slot = Some(failure);
            }
        }
        // Dropping the senders wakes every waiter; they read `failure`.
        lock(&self.pending).clear();
        self.changed.send_modify(|n| *n += 1);
    }
}

/// Serialises writes so frames never interleave.
struct Writer {
    process: Arc<Process>,
    lock: tokio::sync::Mutex<()>,
}

impl Writer {
    async fn send(&self, message: &Value) -> Result<(), dsh_core::ProcessError> {
        let frame = encode(message.to_string().as_bytes());
        let _guard = self.lock.lock().await;
        self.process.write_stdin(&frame).await
    }
}

pub(crate) struct Connection {
    pub server: String,
    process: Arc<Process>,
    writer: Arc<Writer>,
    shared: Arc<Shared>,
    reader: JoinHandle<()>,
    /// LSP request ids are 32-bit integers.
    next_id: AtomicI32,
    pub capabilities: ServerCapabilities,
    cancel_grace: Duration,
}

impl Drop for Connection {
    fn drop(&mut self) {
        // The reader holds the process too; stopping it lets the handle drop, which
        // terminates the group.
        self.reader.abort();
    }
}

/// Looks `program` up like `execvp` would, through the Fs seam, so a missing server is
/// reported the same way on every backend.
pub(crate) async fn find_program(
    fs: &dyn dsh_core::Fs,
    program: &str,
    path: &str,
) -> Result<Option<std::path::PathBuf>, dsh_core::FsError> {
    use dsh_core::{FileKind, FsError};
    // A sandbox that cannot be reached is not a missing program.
    let unless_unavailable = |err: FsError| match err {
        FsError::Unavailable(_) => Err(err),
        _ => Ok(()),
    };
    if program.contains('/') {
        let candidate = std::path::PathBuf::from(program);
        return match fs.stat(&candidate).await {
            Ok(meta) if meta.kind == FileKind::File => Ok(Some(candidate)),
            Ok(_) => Ok(None),
            Err(err) => unless_unavailable(err).map(|()| None),
        };
    }
    for dir in path.split(':').filter(|d| d.starts_with('/')) {
        let candidate = std::path::Path::new(dir).join(program);
        // `lstat` first: cheap, and `stat` of a regular file may hash it whole.
        match fs.lstat(&candidate).await {
            Ok(meta) if meta.kind == FileKind::File => return Ok(Some(candidate)),
            Ok(meta) if meta.kind == FileKind::Symlink => match fs.stat(&candidate).await {
                Ok(meta) if meta.kind == FileKind::File => return Ok(Some(candidate)),
                Ok(_) => {}
                Err(err) => unless_unavailable(err)?,
            },
            Ok(_) => {}
            Err(err) => unless_unavailable(err)?,
        }
    }
    Ok(None)
}

impl Connection {
    /// Spawns the server, runs `initialize`/`initialized`.
    pub async fn start(
        subprocess: &dyn Subprocess,
        config: &LspConfig,
        server: &ServerConfig,
        program: String,
        root: &std::path::Path,
    ) -> Result<Self, LspError> {
        // Whatever the caller passed, no secret reaches the server.
        let mut env = dsh_core::child_env(config.env.clone());
        env.insert("PATH".into(), config.effective_path());
        let mut argv = server.command.clone();
        argv[0] = program;
        let spec = SpawnSpec {
            argv,
            cwd: root.to_path_buf(),
            env,
            stdin: StdinMode::Pipe,
            stdout: OutputMode::Capped { max_bytes: config.stdout_cap_bytes },
            stderr: OutputMode::Capped { max_bytes: config.stderr_cap_bytes },
            grace: config.kill_grace,
            timeout: None,
            cancel: dsh_core::CancellationToken::new(),
        };
        let process = subprocess
            .spawn(spec)
            .await
            .map_err(|source| LspError::SpawnFailed { server: server.name.clone(), source })?;
        let process = Arc::new(process);
        let shared = Arc::new(Shared {
            pending: Mutex::new(HashMap::new()),
            failure: Mutex::new(None),
            diagnostics: Mutex::new(HashMap::new()),
            changed: watch::channel(0).0,
            seq: AtomicU64::new(0),
            settings: server.settings.clone(),
        });
        let writer =
            Arc::new(Writer { process: Arc::clone(&process), lock: tokio::sync::Mutex::new(()) });
        let reader = tokio::spawn(read_loop(
            Arc::clone(&process),
            Arc::clone(&writer),
            Arc::clone(&shared),
            config.max_frame_bytes,
        ));
        let mut connection = Self {
            server: server.name.clone(),
            process,
            writer,
            shared,
            reader,
            next_id: AtomicI32::new(1),
            capabilities: ServerCapabilities::default(),
            cancel_grace: config.cancel_grace,
        };
        let params = initialize_params(config, server, root)?;
        let result = connection.request::<Initialize>(params, config.startup_timeout).await?;
        connection.capabilities = result.capabilities;
        connection.notify::<Initialized>(InitializedParams {}).await?;
        Ok(connection)
    }

    /// The host-side pid of the server's process group (as the backend reports it).
    pub fn pid(&self) -> u32 {
        self.process.pid()
    }

    /// Whether the connection is still usable.
    pub fn is_alive(&self) -> bool {
        lock(&self.shared.failure).is_none() && self.process.try_wait().is_none()
    }

    /// The current message sequence number.
    pub fn seq(&self) -> u64 {
        self.shared.seq.load(Ordering::SeqCst)
    }

    fn stderr_tail(&self) -> String {
        let snapshot = self.process.stderr().snapshot();
        let text = snapshot.to_string_lossy();
        let chars: Vec<char> = text.chars().collect();
        let start = chars.len().saturating_sub(STDERR_TAIL);
        chars[start..].iter().collect()
    }

    /// The typed error for a dead connection.
    pub fn failure_error(&self) -> LspError {
        let server = self.server.clone();
        let failure = lock(&self.shared.failure).clone();
        match failure {
            Some(Failure::Frame(source)) => {
                LspError::Protocol { server, source, stderr: self.stderr_tail() }
            }
            Some(Failure::Invalid(detail)) => LspError::InvalidMessage { server, detail },
            Some(Failure::Overflow(skipped)) => LspError::OutputOverflow { server, skipped },
            Some(Failure::Exited) | None => {
                let status = self.process.try_wait();
                if status.is_some_and(|status| status.reason == dsh_core::EndReason::Lost) {
                    return LspError::ServerLost { server };
                }
                let detail = match status {
                    Some(status) => match (status.code, status.signal) {
                        (Some(code), _) => format!("exit code {code}"),
                        (_, Some(signal)) => format!("killed by signal {signal}"),
                        _ => "ended".to_owned(),
                    },
                    None => "closed its output".to_owned(),
                };
                LspError::ServerExited { server, detail, stderr: self.stderr_tail() }
            }
        }
    }

    fn process_error(&self, source: dsh_core::ProcessError) -> LspError {
        match source {
            // Writing to a server that is gone: report why it is gone.
            dsh_core::ProcessError::Exited | dsh_core::ProcessError::StdinClosed => {
                self.failure_error()
            }
            source => {
                if lock(&self.shared.failure).is_some() || self.process.try_wait().is_some() {
                    self.failure_error()
                } else {
                    LspError::Process { server: self.server.clone(), source }
                }
            }
        }
    }

    /// Sends notification `N`.
    pub async fn notify<N: Notification>(&self, params: N::Params) -> Result<(), LspError> {
        self.notify_raw(N::METHOD, encode_params(N::METHOD, params)?).await
    }

    /// Sends request `R` and waits for its result (see [`Self::request_raw`]). A result
    /// that does not have `R`'s shape is an invalid message: the connection dies.
    pub async fn request<R: Request>(
        &self,
        params: R::Params,
        timeout: Duration,
    ) -> Result<R::Result, LspError> {
        let result =
            self.request_raw(R::METHOD, encode_params(R::METHOD, params)?, timeout).await?;
        serde_json::from_value(result).map_err(|error| {
            self.shared.fail(Failure::Invalid(format!(
                "its answer to {} does not fit the protocol: {error}",
                R::METHOD
            )));
            self.failure_error()
        })
    }

    async fn notify_raw(&self, method: &str, params: Value) -> Result<(), LspError> {
        if lock(&self.shared.failure).is_some() {
            return Err(self.failure_error());
        }
        self.shared.seq.fetch_add(1, Ordering::SeqCst);
        let message = json!({ "jsonrpc": "2.0", "method": method, "params": params });
        self.writer.send(&message).await.map_err(|e| self.process_error(e))
    }

    /// Sends a request and waits for its result. On timeout: `$/cancelRequest`, then
    /// [`Self::cancel_grace`] for any answer; a server that stays silent is marked dead
    /// (the caller restarts it).
    async fn request_raw(
        &self,
        method: &str,
        params: Value,
        timeout: Duration,
    ) -> Result<Value, LspError> {
        let id = self.next_id.fetch_add(1, Ordering::SeqCst);
        let (tx, mut rx) = oneshot::channel();
        {
            if lock(&self.shared.failure).is_some() {
                return Err(self.failure_error());
            }
            lock(&self.shared.pending).insert(id, tx);
        }
        self.shared.seq.fetch_add(1, Ordering::SeqCst);
        let message = json!({ "jsonrpc": "2.0", "id": id, "method": method, "params": params });
        if let Err(error) = self.writer.send(&message).await {
            lock(&self.shared.pending).remove(&id);
            return Err(self.process_error(error));
        }
        let reply = match tokio::time::timeout(timeout, &mut rx).await {
            Ok(reply) => reply,
            Err(_) => {
                let cancel = CancelParams { id: NumberOrString::Number(id) };
                let _ = self.notify::<Cancel>(cancel).await;
                let acknowledged =
                    matches!(tokio::time::timeout(self.cancel_grace, &mut rx).await, Ok(Ok(_)));
                lock(&self.shared.pending).remove(&id);
                if !acknowledged {
                    self.shared.fail(Failure::Exited);
                    // Stop it now: a hung server must not linger until the next request.
                    let process = Arc::clone(&self.process);
                    tokio::spawn(async move {
                        process.terminate().await;
                    });
                }
                return Err(LspError::Timeout {
                    server: self.server.clone(),
                    method: method.to_owned(),
                    after: timeout,
                    restarted: !acknowledged,
                });
            }
        };
        match reply {
            Ok(Ok(value)) => Ok(value),
            Ok(Err(error)) => Err(LspError::Rpc {
                server: self.server.clone(),
                method: method.to_owned(),
                code: error.code,
                message: error.message,
            }),
            Err(_) => Err(self.failure_error()),
        }
    }

    /// The last diagnostics published for `uri`.
    pub fn published(&self, uri: &Uri) -> Option<Published> {
        lock(&self.shared.diagnostics).get(uri).cloned()
    }

    /// Waits until diagnostics for `uri` satisfy `accept`, or the connection dies.
    pub async fn wait_published(
        &self,
        uri: &Uri,
        timeout: Duration,
        accept: impl Fn(&Published) -> bool,
    ) -> Result<Option<Published>, LspError> {
        let mut changes = self.shared.changed.subscribe();
        let wait = async {
            loop {
                if lock(&self.shared.failure).is_some() {
                    return Err(self.failure_error());
                }
                if let Some(found) = self.published(uri).filter(|p| accept(p)) {
                    return Ok(Some(found));
                }
                if changes.changed().await.is_err() {
                    return Err(self.failure_error());
                }
            }
        };
        match tokio::time::timeout(timeout, wait).await {
            Ok(result) => result,
            Err(_) => Ok(None),
        }
    }

    /// Stops the server's whole group at once (TERM, grace, KILL).
    pub async fn kill(&self) {
        self.shared.fail(Failure::Exited);
        self.process.terminate().await;
    }

    /// `shutdown`, `exit`, then TERM, grace, KILL to the whole group.
    pub async fn shutdown(&self) {
        if self.is_alive() {
            let _ = self.request::<Shutdown>((), Duration::from_secs(2)).await;
            let _ = self.notify::<Exit>(()).await;
            let _ = self.process.close_stdin().await;
            let _ = tokio::time::timeout(Duration::from_secs(2), self.process.wait()).await;
        }
        self.process.terminate().await;
    }
}

/// The JSON of a message's params (lsp-types' params always encode; the error is kept
/// typed all the same).
fn encode_params(method: &str, params: impl serde::Serialize) -> Result<Value, LspError> {
    serde_json::to_value(params).map_err(|error| {
        LspError::InvalidArgument(format!("the parameters of {method} cannot be encoded: {error}"))
    })
}

fn initialize_params(
    config: &LspConfig,
    server: &ServerConfig,
    root: &std::path::Path,
) -> Result<InitializeParams, LspError> {
    let root_uri = crate::uri::file_uri(root)?;
    let root_name = root
        .file_name()
        .map_or_else(|| "workspace".to_owned(), |n| n.to_string_lossy().into_owned());
    // Older servers still read the deprecated rootUri and rootPath.
    #[allow(deprecated)]
    Ok(InitializeParams {
        // A pid from another process namespace would name some other process.
        process_id: config.same_process_namespace.then(std::process::id),
        root_path: Some(root.to_string_lossy().into_owned()),
        root_uri: Some(root_uri.clone()),
        initialization_options: Some(server.initialization_options.clone()),
        capabilities: client_capabilities(),
        trace: Some(TraceValue::Off),
        workspace_folders: Some(vec![WorkspaceFolder { uri: root_uri, name: root_name }]),
        client_info: Some(ClientInfo {
            name: "dsh".into(),
            version: Some(env!("CARGO_PKG_VERSION").into()),
        }),
        locale: None,
        work_done_progress_params: WorkDoneProgressParams::default(),
    })
}

/// What the client can do (positions are UTF-16, the LSP default).
fn client_capabilities() -> ClientCapabilities {
    let no_dynamic_registration =
        DynamicRegistrationClientCapabilities { dynamic_registration: Some(false) };
    ClientCapabilities {
        general: Some(GeneralClientCapabilities {
            position_encodings: Some(vec![PositionEncodingKind::UTF16]),
            ..Default::default()
        }),
        workspace: Some(WorkspaceClientCapabilities {
            configuration: Some(true),
            workspace_folders: Some(true),
            apply_edit: Some(false),
            symbol: Some(WorkspaceSymbolClientCapabilities {
                dynamic_registration: Some(false),
                ..Default::default()
            }),
            did_change_configuration: Some(no_dynamic_registration),
            ..Default::default()
        }),
        window: Some(WindowClientCapabilities {
            work_done_progress: Some(true),
            ..Default::default()
        }),
        text_document: Some(TextDocumentClientCapabilities {
            synchronization: Some(TextDocumentSyncClientCapabilities {
                dynamic_registration: Some(false),
                did_save: Some(false),
                ..Default::default()
            }),
            hover: Some(HoverClientCapabilities {
                content_format: Some(vec![MarkupKind::Markdown, MarkupKind::PlainText]),
                ..Default::default()
            }),
            definition: Some(GotoCapability { link_support: Some(true), ..Default::default() }),
            implementation: Some(GotoCapability { link_support: Some(true), ..Default::default() }),
            references: Some(DynamicRegistrationClientCapabilities::default()),
            document_symbol: Some(DocumentSymbolClientCapabilities {
                hierarchical_document_symbol_support: Some(true),
                ..Default::default()
            }),
            rename: Some(RenameClientCapabilities {
                prepare_support: Some(false),
                ..Default::default()
            }),
            publish_diagnostics: Some(PublishDiagnosticsClientCapabilities {
                version_support: Some(true),
                related_information: Some(false),
                ..Default::default()
            }),
            diagnostic: Some(DiagnosticClientCapabilities {
                dynamic_registration: Some(false),
                ..Default::default()
            }),
            ..Default::default()
        }),
        ..Default::default()
    }
}

async fn read_loop(
    process: Arc<Process>,
    writer: Arc<Writer>,
    shared: Arc<Shared>,
    max_frame: usize,
) {
    let stdout = process.stdout().clone();
    let mut decoder = FrameDecoder::new(max_frame);
    let mut offset = 0u64;
    loop {
        let chunk = stdout.read_from(offset, READ_CHUNK);
        if chunk.skipped > 0 {
            shared.fail(Failure::Overflow(chunk.skipped));
            return;
        }
        offset = chunk.next_offset;
        if !chunk.data.is_empty() {
            decoder.push(&chunk.data);
            loop {
                match decoder.next_frame() {
                    Ok(Some(body)) => {
                        if let Err(detail) = dispatch(&body, &writer, &shared).await {
                            shared.fail(Failure::Invalid(detail));
                            return;
                        }
                    }
                    Ok(None) => break,
                    Err(error) => {
                        shared.fail(Failure::Frame(error));
                        return;
                    }
                }
            }
            continue;
        }
        if chunk.closed {
            // Let the exit status land first, so the error can say how it ended.
            let _ = tokio::time::timeout(Duration::from_secs(1), process.wait()).await;
            shared.fail(Failure::Exited);
            return;
        }
        stdout.wait_beyond(offset).await;
    }
}

/// Handles one message from the server.
async fn dispatch(body: &[u8], writer: &Writer, shared: &Shared) -> Result<(), String> {
    let message: Value = serde_json::from_slice(body).map_err(|e| {
        let shown = String::from_utf8_lossy(&body[..body.len().min(80)]).into_owned();
        format!("not JSON ({e}): {shown:?}")
    })?;
    let Some(object) = message.as_object() else {
        return Err("a JSON-RPC message must be an object".into());
    };
    let method = object.get("method").and_then(Value::as_str);
    let id = object.get("id");
    match (method, id) {
        (Some(method), Some(id)) => {
            let params = object.get("params").cloned().unwrap_or(Value::Null);
            let reply = answer_server_request(method, &params, &shared.settings);
            let mut response = json!({ "jsonrpc": "2.0", "id": id });
            match reply {
                Ok(result) => response["result"] = result,
                Err((code, message)) => {
                    response["error"] = json!({ "code": code, "message": message });
                }
            }
            // A failed write means the server is gone; the read side notices.
            let _ = writer.send(&response).await;
        }
        (Some(method), None) => {
            if method == PublishDiagnostics::METHOD {
                let params = object.get("params").unwrap_or(&Value::Null);
                let params = PublishDiagnosticsParams::deserialize(params)
                    .map_err(|error| format!("its {method} does not fit the protocol: {error}"))?;
                let seq = shared.seq.fetch_add(1, Ordering::SeqCst) + 1;
                let published =
                    Published { version: params.version, seq, diagnostics: params.diagnostics };
                lock(&shared.diagnostics).insert(params.uri, published);
                shared.changed.send_modify(|n| *n += 1);
            }
        }
        (None, Some(id)) => {
            let Some(id) = id.as_i64().and_then(|id| i32::try_from(id).ok()) else {
                // Not one of ours (we only send 32-bit integer ids).
                return Ok(());
            };
            let waiter = lock(&shared.pending).remove(&id);
            if let Some(waiter) = waiter {
                let reply = match object.get("error") {
                    Some(error) if !error.is_null() => Err(RpcError {
                        code: error.get("code").and_then(Value::as_i64).unwrap_or(0),
                        message: error
                            .get("message")
                            .and_then(Value::as_str)
                            .unwrap_or("")
                            .to_owned(),
                    }),
                    _ => Ok(object.get("result").cloned().unwrap_or(Value::Null)),
                };
                let _ = waiter.send(reply);
            }
        }
        (None, None) => return Err("a message with neither method nor id".into()),
    }
    Ok(())
}

/// The client's answer to a server-to-client request.
fn answer_server_request(
    method: &str,
    params: &Value,
    settings: &Value,
) -> Result<Value, (i64, String)> {
    match method {
        <WorkspaceConfiguration as Request>::METHOD => {
            let params = ConfigurationParams::deserialize(params)
                .map_err(|error| (INVALID_PARAMS, format!("invalid {method} params: {error}")))?;
            let values: Vec<Value> = params
                .items
                .iter()
                .map(|item| match item.section.as_deref() {
                    None | Some("") => settings.clone(),
                    Some(section) => section
                        .split('.')
                        .try_fold(settings, |value, key| value.get(key))
                        .cloned()
                        .unwrap_or(Value::Null),
                })
                .collect();
            encode_result::<WorkspaceConfiguration>(values)
        }
        <WorkDoneProgressCreate as Request>::METHOD => encode_result::<WorkDoneProgressCreate>(()),
        <RegisterCapability as Request>::METHOD => encode_result::<RegisterCapability>(()),
        <UnregisterCapability as Request>::METHOD => encode_result::<UnregisterCapability>(()),
        <ApplyWorkspaceEdit as Request>::METHOD => {
            encode_result::<ApplyWorkspaceEdit>(ApplyWorkspaceEditResponse {
                applied: false,
                failure_reason: Some(
                    "dsh does not let language servers edit files; edits are previews".into(),
                ),
                failed_change: None,
            })
        }
        <WorkspaceFoldersRequest as Request>::METHOD => {
            encode_result::<WorkspaceFoldersRequest>(None)
        }
        <ShowMessageRequest as Request>::METHOD => encode_result::<ShowMessageRequest>(None),
        _ => Err((METHOD_NOT_FOUND, format!("method not found: {method}"))),
    }
}

fn encode_result<R: Request>(result: R::Result) -> Result<Value, (i64, String)> {
    serde_json::to_value(result).map_err(|error| (INTERNAL_ERROR, error.to_string()))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;

    #[test]
    fn server_requests_are_answered_from_config_or_refused() {
        let settings = json!({ "python": { "analysis": { "mode": "x" } } });
        let config = answer_server_request(
            "workspace/configuration",
            &json!({ "items": [ { "section": "python.analysis" }, { "section": "nope" }, {} ] }),
            &settings,
        )
        .unwrap();
        assert_eq!(config, json!([{ "mode": "x" }, null, settings]));
        for method in ["window/workDoneProgress/create", "client/registerCapability"] {
            assert_eq!(answer_server_request(method, &Value::Null, &settings), Ok(Value::Null));
        }
        let refused = answer_server_request("workspace/applyEdit", &json!({}), &settings).unwrap();
        assert_eq!(refused["applied"], json!(false));
        assert_eq!(answer_server_request("x/y", &Value::Null, &settings).unwrap_err().0, -32601);
    }

    #[test]
    fn server_requests_are_answered_in_the_protocol_shapes() {
        let settings = json!({ "a": 1 });
        let refused = answer_server_request("workspace/applyEdit", &json!({}), &settings).unwrap();
        assert_eq!(
            refused,
            json!({
                "applied": false,
                "failureReason": "dsh does not let language servers edit files; edits are previews"
            })
        );
        for method in [
            "client/unregisterCapability",
            "workspace/workspaceFolders",
            "window/showMessageRequest",
        ] {
            assert_eq!(answer_server_request(method, &Value::Null, &settings), Ok(Value::Null));
        }
        // Configuration items without a section get all the settings.
        let whole =
            answer_server_request("workspace/configuration", &json!({ "items": [{}] }), &settings);
        assert_eq!(whole, Ok(json!([{ "a": 1 }])));
        let (code, message) =
            answer_server_request("workspace/configuration", &json!({ "items": 3 }), &settings)
                .unwrap_err();
        assert_eq!(code, -32602);
        assert!(message.starts_with("invalid workspace/configuration params: "), "{message}");
    }

    #[test]
    fn initialize_sends_the_root_the_client_info_and_the_client_capabilities() {
        let mut config = LspConfig::new("/w/a b", Default::default());
        let server = config.servers[0].clone();
        let root = std::path::Path::new("/w/a b");
        let params = serde_json::to_value(initialize_params(&config, &server, root).unwrap());
        let expected = json!({
            "processId": null,
            "clientInfo": { "name": "dsh", "version": env!("CARGO_PKG_VERSION") },
            "rootUri": "file:///w/a%20b",
            "rootPath": "/w/a b",
            "workspaceFolders": [{ "uri": "file:///w/a%20b", "name": "a b" }],
            "initializationOptions": {},
            "capabilities": {
                "general": { "positionEncodings": ["utf-16"] },
                "workspace": {
                    "configuration": true,
                    "workspaceFolders": true,
                    "applyEdit": false,
                    "symbol": { "dynamicRegistration": false },
                    "didChangeConfiguration": { "dynamicRegistration": false }
                },
                "window": { "workDoneProgress": true },
                "textDocument": {
                    "synchronization": { "dynamicRegistration": false, "didSave": false },
                    "hover": { "contentFormat": ["markdown", "plaintext"] },
                    "definition": { "linkSupport": true },
                    "implementation": { "linkSupport": true },
                    "references": {},
                    "documentSymbol": { "hierarchicalDocumentSymbolSupport": true },
                    "rename": { "prepareSupport": false },
                    "publishDiagnostics": { "versionSupport": true, "relatedInformation": false },
                    "diagnostic": { "dynamicRegistration": false }
                }
            },
            "trace": "off",
        });
        assert_eq!(params.unwrap(), expected);
        // The host pid only means something in the host's process namespace.
        config.same_process_namespace = true;
        let params = initialize_params(&config, &server, root).unwrap();
        assert_eq!(params.process_id, Some(std::process::id()));
    }
}
