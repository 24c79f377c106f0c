//! The envd client: filesystem and process RPCs, and `/files` transfers, against E2B
//! cloud or a dsh local sandbox.

use std::collections::HashMap;
use std::time::Duration;

use base64::Engine as _;
use bytes::Bytes;
use dsh_proto::connect::Codec;
use dsh_proto::filesystem as fs;
use dsh_proto::process as proc;
use futures_util::{Stream, StreamExt as _};
use sha2::Digest as _;

use crate::connect::{self, ResponseStream};
use crate::error::{Error, Result};

/// Domains whose edge accepts `https://sandbox.<domain>` with routing headers.
const ROUTED_DOMAINS: [&str; 4] = ["e2b.app", "e2b.dev", "e2b.pro", "e2b-staging.dev"];

/// An envd version as the control plane reports it (`envdVersion`), which decides what
/// the client may ask of it: the gates of the SDKs' `e2b/envd/versions.py`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct EnvdVersion(pub u32, pub u32, pub u32);

impl EnvdVersion {
    /// The oldest envd dsh works with: before it `Start` always opened stdin
    /// (`ENVD_COMMANDS_STDIN`), which leaves a one-shot command's stdin open forever.
    pub const OLDEST: EnvdVersion = EnvdVersion(0, 3, 0);
    /// Requests naming no user run as the sandbox's default one (`ENVD_DEFAULT_USER`).
    pub const DEFAULT_USER: EnvdVersion = EnvdVersion(0, 4, 0);
    /// `CloseStdin` exists (`ENVD_ENVD_CLOSE`).
    pub const CLOSE_STDIN: EnvdVersion = EnvdVersion(0, 5, 2);
    /// `POST /files` takes `application/octet-stream` (`ENVD_OCTET_STREAM_UPLOAD`).
    pub const OCTET_STREAM_UPLOAD: EnvdVersion = EnvdVersion(0, 5, 7);

    /// `MAJOR.MINOR.PATCH`, with an optional `v` and pre-release or build suffix ignored.
    pub fn parse(text: &str) -> Option<Self> {
        let core = text.trim().trim_start_matches('v');
        let core = core.split(['-', '+']).next().unwrap_or_default();
        let mut parts = core.split('.').map(|p| p.parse::<u32>().ok());
        let version = EnvdVersion(parts.next()??, parts.next()??, parts.next()??);
        parts.next().is_none().then_some(version)
    }
}

impl std::fmt::Display for EnvdVersion {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}.{}.{}", self.0, self.1, self.2)
    }
}

/// The user an envd older than 0.4.0 must be told (it has no default): E2B templates'
/// `user`, as the SDKs send (`e2b/envd/utils.py` `authentication_header`).
const PRE_DEFAULT_USER: &str = "user";

/// Where a sandbox's envd is reached.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EnvdTarget {
    /// Base URL without a trailing slash.
    pub base_url: String,
    /// `E2b-Sandbox-Id`, sent (with `E2b-Sandbox-Port`) for routed deployments.
    pub sandbox_id: Option<String>,
}

impl EnvdTarget {
    /// An envd reached directly (e.g. `http://127.0.0.1:49983`).
    pub fn direct(base_url: impl Into<String>) -> Self {
        Self { base_url: base_url.into().trim_end_matches('/').to_owned(), sandbox_id: None }
    }

    /// A sandbox behind a router that picks it by header: E2B's `https://sandbox.<domain>`
    /// or one local `dsh-sandboxd` address serving every sandbox.
    pub fn routed(base_url: impl Into<String>, sandbox_id: impl Into<String>) -> Self {
        Self {
            base_url: base_url.into().trim_end_matches('/').to_owned(),
            sandbox_id: Some(sandbox_id.into()),
        }
    }

    /// E2B cloud's URL for a sandbox: routing headers on the supported domains, the
    /// `49983-<id>.<domain>` host elsewhere.
    pub fn cloud(sandbox_id: &str, domain: &str) -> Self {
        // A domain may carry a port (`e2b.app:8443`): the name decides, the port is kept.
        let name = domain.rsplit_once(':').map_or(domain, |(name, _)| name);
        if ROUTED_DOMAINS.contains(&name) {
            Self::routed(format!("https://sandbox.{domain}"), sandbox_id)
        } else {
            Self::direct(format!("https://{}-{sandbox_id}.{domain}", dsh_proto::ENVD_PORT))
        }
    }
}

/// Options of `Start`.
#[derive(Debug, Clone, Default)]
pub struct StartOptions {
    pub cmd: String,
    pub args: Vec<String>,
    pub envs: HashMap<String, String>,
    pub cwd: Option<String>,
    /// `(cols, rows)` to run the process on a PTY.
    pub pty: Option<(u16, u16)>,
    /// Keep a stdin pipe open (ignored for PTYs).
    pub stdin: bool,
    pub tag: Option<String>,
    /// Linux user to run as (else envd's default user).
    pub user: Option<String>,
    /// Bounds the process's life (envd kills it at the deadline).
    pub timeout: Option<Duration>,
}

/// What a running process produced.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ProcessOutput {
    Stdout(Bytes),
    Stderr(Bytes),
    Pty(Bytes),
    End(ExitInfo),
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExitInfo {
    /// -1 when killed by a signal.
    pub exit_code: i32,
    /// false when ended by a signal.
    pub exited: bool,
    /// Go's wording: `exit status 1`, `signal: killed`.
    pub status: String,
    pub error: Option<String>,
}

/// A process's event stream (from `Start` or `Connect`), keepalives filtered out.
pub struct ProcessStream {
    pub pid: u32,
    events: StreamOf,
    /// Asked `/health` when the stream breaks, to tell a gone sandbox from a network blip.
    probe: Option<EnvdClient>,
}

enum StreamOf {
    Start(ResponseStream<proc::StartResponse>),
    Connect(ResponseStream<proc::ConnectResponse>),
}

impl ProcessStream {
    async fn next_event(&mut self) -> Result<Option<proc::ProcessEvent>> {
        let next = match &mut self.events {
            StreamOf::Start(stream) => stream.next().await.map(|m| m.and_then(|m| m.event)),
            StreamOf::Connect(stream) => stream.next().await.map(|m| m.and_then(|m| m.event)),
        };
        match (next, &self.probe) {
            (Err(err @ Error::Transport(_)), Some(client)) => {
                Err(client.after_transport_failure(err).await)
            }
            (next, _) => next,
        }
    }

    async fn open(events: StreamOf, probe: EnvdClient) -> Result<Self> {
        let mut stream = ProcessStream { pid: 0, events, probe: Some(probe) };
        match stream.next_event().await?.and_then(|e| e.event) {
            Some(proc::process_event::Event::Start(start)) => {
                stream.pid = start.pid;
                Ok(stream)
            }
            other => Err(Error::Protocol(format!(
                "the first process event must be start, got {other:?}"
            ))),
        }
    }

    /// The next output or the end; `Ok(None)` once the stream has finished.
    pub async fn next(&mut self) -> Result<Option<ProcessOutput>> {
        use proc::process_event::{Event, data_event::Output};
        loop {
            let Some(event) = self.next_event().await? else { return Ok(None) };
            match event.event {
                Some(Event::Data(data)) => match data.output {
                    Some(Output::Stdout(bytes)) => return Ok(Some(ProcessOutput::Stdout(bytes))),
                    Some(Output::Stderr(bytes)) => return Ok(Some(ProcessOutput::Stderr(bytes))),
                    Some(Output::Pty(bytes)) => return Ok(Some(ProcessOutput::Pty(bytes))),
                    None => continue,
                },
                Some(Event::End(end)) => {
                    return Ok(Some(ProcessOutput::End(ExitInfo {
                        exit_code: end.exit_code,
                        exited: end.exited,
                        status: end.status,
                        error: end.error,
                    })));
                }
                Some(Event::Keepalive(_)) | None => continue,
                Some(Event::Start(_)) => {
                    return Err(Error::Protocol("a second start event".into()));
                }
            }
        }
    }

    /// Reads to the end, collecting stdout and stderr.
    pub async fn wait(mut self) -> Result<(Vec<u8>, Vec<u8>, ExitInfo)> {
        let (mut stdout, mut stderr) = (Vec::new(), Vec::new());
        while let Some(output) = self.next().await? {
            match output {
                ProcessOutput::Stdout(b) | ProcessOutput::Pty(b) => stdout.extend_from_slice(&b),
                ProcessOutput::Stderr(b) => stderr.extend_from_slice(&b),
                ProcessOutput::End(exit) => return Ok((stdout, stderr, exit)),
            }
        }
        Err(Error::Protocol("process stream finished without an end event".into()))
    }
}

/// A written file, as `POST /files` reports it.
#[derive(Debug, Clone, PartialEq, Eq, serde::Deserialize)]
pub struct WrittenFile {
    pub path: String,
    pub name: String,
    #[serde(rename = "type")]
    pub kind: String,
    #[serde(default)]
    pub metadata: Option<HashMap<String, String>>,
}

/// A client of one sandbox's envd.
#[derive(Debug, Clone)]
pub struct EnvdClient {
    http: reqwest::Client,
    target: EnvdTarget,
    access_token: Option<String>,
    codec: Codec,
    request_timeout: Duration,
    /// `None`: unknown (dsh-envd, or a router that does not say), treated as the newest.
    version: Option<EnvdVersion>,
    /// A `/files` transfer that moves no byte for this long ends with `Error::Timeout`.
    transfer_idle_timeout: Duration,
    /// Bound of a `/health` call.
    health_timeout: Duration,
}

/// The SDKs' idle bound of a file transfer (`READ_TIMEOUT`, `e2b/connection_config.py`).
pub const TRANSFER_IDLE_TIMEOUT: Duration = Duration::from_secs(60);
/// How long `/health` may take before envd counts as unreachable.
pub const HEALTH_TIMEOUT: Duration = Duration::from_secs(5);

/// How often envd should send keepalives on idle streams (seconds), as the SDKs ask.
const KEEPALIVE_SECS: &str = "50";

impl EnvdClient {
    /// Binary protobuf by default (smaller and faster than JSON); see [`Self::with_codec`].
    pub fn new(http: reqwest::Client, target: EnvdTarget, access_token: Option<String>) -> Self {
        Self {
            http,
            target,
            access_token,
            codec: Codec::Proto,
            request_timeout: Duration::from_secs(60),
            version: None,
            transfer_idle_timeout: TRANSFER_IDLE_TIMEOUT,
            health_timeout: HEALTH_TIMEOUT,
        }
    }

    /// The envd version the control plane reported (`envdVersion`); requests are shaped
    /// for it (an unparsable one is treated as the newest, as the SDKs' debug fallback).
    pub fn with_envd_version(mut self, version: &str) -> Self {
        self.version = EnvdVersion::parse(version);
        self
    }

    pub fn envd_version(&self) -> Option<EnvdVersion> {
        self.version
    }

    /// See [`TRANSFER_IDLE_TIMEOUT`].
    pub fn with_transfer_idle_timeout(mut self, timeout: Duration) -> Self {
        self.transfer_idle_timeout = timeout;
        self
    }

    /// See [`HEALTH_TIMEOUT`].
    pub fn with_health_timeout(mut self, timeout: Duration) -> Self {
        self.health_timeout = timeout;
        self
    }

    /// Whether the envd is at least `version` (an unknown one is the newest).
    fn supports(&self, version: EnvdVersion) -> bool {
        self.version.is_none_or(|have| have >= version)
    }

    fn unsupported(&self, feature: &'static str) -> Error {
        let envd_version = self.version.map(|v| v.to_string()).unwrap_or_default();
        Error::Unsupported { feature, envd_version }
    }

    /// The user a request runs as: the one asked for, or (envd before 0.4.0, which has no
    /// default user) E2B's `user`.
    fn effective_user<'a>(&self, user: Option<&'a str>) -> Option<&'a str> {
        match user {
            None if !self.supports(EnvdVersion::DEFAULT_USER) => Some(PRE_DEFAULT_USER),
            user => user,
        }
    }

    /// What a broken connection means: asks `/health` (as the SDKs do after a stream
    /// reset, `e2b/envd/rpc.py` `handle_rpc_exception_with_health`); a 502 there is
    /// [`Error::SandboxGone`], anything else leaves `err` as it was.
    pub(crate) async fn after_transport_failure(&self, err: Error) -> Error {
        match self.health().await {
            Err(gone @ Error::SandboxGone(_)) => gone,
            _ => err,
        }
    }

    pub fn with_codec(mut self, codec: Codec) -> Self {
        self.codec = codec;
        self
    }

    /// Deadline of unary calls (sent as `Connect-Timeout-Ms` and enforced locally).
    pub fn with_request_timeout(mut self, timeout: Duration) -> Self {
        self.request_timeout = timeout;
        self
    }

    pub fn target(&self) -> &EnvdTarget {
        &self.target
    }

    fn request(
        &self,
        method: reqwest::Method,
        path: &str,
        user: Option<&str>,
    ) -> reqwest::RequestBuilder {
        let mut builder = self.http.request(method, format!("{}{path}", self.target.base_url));
        if let Some(id) = &self.target.sandbox_id {
            builder = builder
                .header("E2b-Sandbox-Id", id)
                .header("E2b-Sandbox-Port", dsh_proto::ENVD_PORT.to_string());
        }
        if let Some(token) = &self.access_token {
            builder = builder.header(dsh_proto::control::headers::ACCESS_TOKEN, token);
        }
        if let Some(user) = self.effective_user(user) {
            let basic = base64::engine::general_purpose::STANDARD.encode(format!("{user}:"));
            builder = builder.header("Authorization", format!("Basic {basic}"));
        }
        builder
    }

    async fn unary<Req: dsh_proto::connect::WireMessage, Resp: dsh_proto::connect::WireMessage>(
        &self,
        route: &str,
        message: &Req,
        user: Option<&str>,
    ) -> Result<Resp> {
        let request = self
            .request(reqwest::Method::POST, route, user)
            .header("connect-timeout-ms", connect::timeout_header(self.request_timeout));
        let answer = tokio::time::timeout(
            self.request_timeout,
            connect::unary(request, self.codec, message),
        )
        .await
        .map_err(|_| Error::Timeout(self.request_timeout))?;
        match answer {
            Err(err @ Error::Transport(_)) => Err(self.after_transport_failure(err).await),
            answer => answer,
        }
    }

    // --- filesystem ---------------------------------------------------------------

    pub async fn stat(&self, path: &str, user: Option<&str>) -> Result<fs::EntryInfo> {
        let response: fs::StatResponse = self
            .unary("/filesystem.Filesystem/Stat", &fs::StatRequest { path: path.into() }, user)
            .await?;
        response.entry.ok_or_else(|| Error::Protocol("Stat answered without an entry".into()))
    }

    /// `mkdir -p`; an existing directory is `Error::Rpc` with code `AlreadyExists`.
    pub async fn make_dir(&self, path: &str, user: Option<&str>) -> Result<fs::EntryInfo> {
        let response: fs::MakeDirResponse = self
            .unary(
                "/filesystem.Filesystem/MakeDir",
                &fs::MakeDirRequest { path: path.into() },
                user,
            )
            .await?;
        response.entry.ok_or_else(|| Error::Protocol("MakeDir answered without an entry".into()))
    }

    pub async fn rename(
        &self,
        source: &str,
        destination: &str,
        user: Option<&str>,
    ) -> Result<fs::EntryInfo> {
        let request = fs::MoveRequest { source: source.into(), destination: destination.into() };
        let response: fs::MoveResponse =
            self.unary("/filesystem.Filesystem/Move", &request, user).await?;
        response.entry.ok_or_else(|| Error::Protocol("Move answered without an entry".into()))
    }

    pub async fn list_dir(
        &self,
        path: &str,
        depth: u32,
        user: Option<&str>,
    ) -> Result<Vec<fs::EntryInfo>> {
        let request = fs::ListDirRequest { path: path.into(), depth };
        let response: fs::ListDirResponse =
            self.unary("/filesystem.Filesystem/ListDir", &request, user).await?;
        Ok(response.entries)
    }

    /// `rm -rf`; a missing path succeeds.
    pub async fn remove(&self, path: &str, user: Option<&str>) -> Result<()> {
        let _: fs::RemoveResponse = self
            .unary("/filesystem.Filesystem/Remove", &fs::RemoveRequest { path: path.into() }, user)
            .await?;
        Ok(())
    }

    // --- processes ----------------------------------------------------------------

    /// Starts a process; the returned stream has already received its `start` event.
    pub async fn start(&self, options: StartOptions) -> Result<ProcessStream> {
        let request = proc::StartRequest {
            process: Some(proc::ProcessConfig {
                cmd: options.cmd,
                args: options.args,
                envs: options.envs,
                cwd: options.cwd,
            }),
            pty: options.pty.map(|(cols, rows)| proc::Pty {
                size: Some(proc::pty::Size { cols: u32::from(cols), rows: u32::from(rows) }),
            }),
            tag: options.tag,
            stdin: Some(options.stdin),
        };
        let mut builder = self
            .request(reqwest::Method::POST, "/process.Process/Start", options.user.as_deref())
            .header("keepalive-ping-interval", KEEPALIVE_SECS);
        if let Some(timeout) = options.timeout {
            builder = builder.header("connect-timeout-ms", connect::timeout_header(timeout));
        }
        let stream = match connect::server_stream(builder, self.codec, &request).await {
            Err(err @ Error::Transport(_)) => return Err(self.after_transport_failure(err).await),
            stream => stream?,
        };
        ProcessStream::open(StreamOf::Start(stream), self.clone()).await
    }

    /// Attaches to a running process: live output from now on, then its end.
    pub async fn connect(&self, pid: u32) -> Result<ProcessStream> {
        let request = proc::ConnectRequest { process: Some(selector(pid)) };
        let builder = self
            .request(reqwest::Method::POST, "/process.Process/Connect", None)
            .header("keepalive-ping-interval", KEEPALIVE_SECS);
        let stream = match connect::server_stream(builder, self.codec, &request).await {
            Err(err @ Error::Transport(_)) => return Err(self.after_transport_failure(err).await),
            stream => stream?,
        };
        ProcessStream::open(StreamOf::Connect(stream), self.clone()).await
    }

    pub async fn list_processes(&self) -> Result<Vec<proc::ProcessInfo>> {
        let response: proc::ListResponse =
            self.unary("/process.Process/List", &proc::ListRequest {}, None).await?;
        Ok(response.processes)
    }

    pub async fn send_stdin(&self, pid: u32, data: Bytes) -> Result<()> {
        self.send_input(pid, proc::process_input::Input::Stdin(data)).await
    }

    pub async fn send_pty(&self, pid: u32, data: Bytes) -> Result<()> {
        self.send_input(pid, proc::process_input::Input::Pty(data)).await
    }

    async fn send_input(&self, pid: u32, input: proc::process_input::Input) -> Result<()> {
        let request = proc::SendInputRequest {
            process: Some(selector(pid)),
            input: Some(proc::ProcessInput { input: Some(input) }),
        };
        let _: proc::SendInputResponse =
            self.unary("/process.Process/SendInput", &request, None).await?;
        Ok(())
    }

    /// Streams input to a process in order (stdin bytes, or PTY bytes when `pty`).
    pub async fn stream_input<S>(&self, pid: u32, chunks: S, pty: bool) -> Result<()>
    where
        S: Stream<Item = Bytes> + Send + 'static,
    {
        let codec = self.codec;
        let start = proc::StreamInputRequest {
            event: Some(proc::stream_input_request::Event::Start(
                proc::stream_input_request::StartEvent { process: Some(selector(pid)) },
            )),
        };
        let first = futures_util::stream::once(futures_util::future::ready(connect::envelope(
            codec, &start,
        )));
        let rest = chunks.map(move |chunk| {
            let input = if pty {
                proc::process_input::Input::Pty(chunk)
            } else {
                proc::process_input::Input::Stdin(chunk)
            };
            let message = proc::StreamInputRequest {
                event: Some(proc::stream_input_request::Event::Data(
                    proc::stream_input_request::DataEvent {
                        input: Some(proc::ProcessInput { input: Some(input) }),
                    },
                )),
            };
            connect::envelope(codec, &message)
        });
        let body = reqwest::Body::wrap_stream(first.chain(rest));
        let builder = self.request(reqwest::Method::POST, "/process.Process/StreamInput", None);
        let _: proc::StreamInputResponse = connect::client_stream(builder, codec, body).await?;
        Ok(())
    }

    /// Closes a process's stdin (EOF). envd before 0.5.2 has no way to: that is
    /// [`Error::Unsupported`] without asking, as the SDKs refuse (`ENVD_ENVD_CLOSE`).
    pub async fn close_stdin(&self, pid: u32) -> Result<()> {
        if !self.supports(EnvdVersion::CLOSE_STDIN) {
            return Err(self.unsupported("closing stdin"));
        }
        let request = proc::CloseStdinRequest { process: Some(selector(pid)) };
        let _: proc::CloseStdinResponse =
            self.unary("/process.Process/CloseStdin", &request, None).await?;
        Ok(())
    }

    /// Sends a signal. `target` is dsh's extension (E2B cloud honours only
    /// `SignalTarget::Process` with SIGTERM/SIGKILL); returns the signalled group, 0 when
    /// only the pid was signalled or the server does not report it.
    pub async fn signal(
        &self,
        pid: u32,
        signal: proc::Signal,
        target: proc::SignalTarget,
    ) -> Result<u32> {
        let request = proc::SendSignalRequest {
            process: Some(selector(pid)),
            signal: signal as i32,
            target: target as i32,
        };
        let response: proc::SendSignalResponse =
            self.unary("/process.Process/SendSignal", &request, None).await?;
        Ok(response.target_pgid)
    }

    pub async fn resize(&self, pid: u32, cols: u16, rows: u16) -> Result<()> {
        let request = proc::UpdateRequest {
            process: Some(selector(pid)),
            pty: Some(proc::Pty {
                size: Some(proc::pty::Size { cols: u32::from(cols), rows: u32::from(rows) }),
            }),
        };
        let _: proc::UpdateResponse = self.unary("/process.Process/Update", &request, None).await?;
        Ok(())
    }

    // --- /files and /health -----------------------------------------------------------

    fn files_request(
        &self,
        method: reqwest::Method,
        path: &str,
        user: Option<&str>,
    ) -> reqwest::RequestBuilder {
        let mut query = vec![("path", path)];
        if let Some(user) = self.effective_user(user) {
            query.push(("username", user));
        }
        self.request(method, "/files", None).query(&query)
    }

    /// Streams `body` into `path` (parents are created); nothing is buffered whole.
    ///
    /// A body held in memory is bounded as a whole by the request timeout; a streamed one
    /// by its progress: when the peer takes no byte of it for the transfer idle timeout,
    /// the upload ends with [`Error::Timeout`] (as the SDKs bound buffered uploads by the
    /// request timeout and streamed ones by an idle bound, `e2b/sandbox_async/filesystem/
    /// filesystem.py` `write_files`). envd before 0.5.7 takes multipart bodies only: the
    /// body is sent as one (it must then be in memory, as the SDKs buffer it).
    pub async fn upload(
        &self,
        path: &str,
        body: reqwest::Body,
        user: Option<&str>,
    ) -> Result<WrittenFile> {
        let request = self.files_request(reqwest::Method::POST, path, user);
        let in_memory = body.as_bytes().map(Bytes::copy_from_slice);
        let response = match (in_memory, self.supports(EnvdVersion::OCTET_STREAM_UPLOAD)) {
            (Some(data), octet_stream) => {
                let request = if octet_stream {
                    request
                        .header(reqwest::header::CONTENT_TYPE, "application/octet-stream")
                        .body(data)
                } else {
                    let (content_type, body) = multipart(path, &data);
                    request.header(reqwest::header::CONTENT_TYPE, content_type).body(body)
                };
                tokio::time::timeout(self.request_timeout, connect::send(request))
                    .await
                    .map_err(|_| Error::Timeout(self.request_timeout))??
            }
            (None, false) => return Err(self.unsupported("streamed uploads")),
            (None, true) => {
                let request =
                    request.header(reqwest::header::CONTENT_TYPE, "application/octet-stream");
                self.send_watched(request, body).await?
            }
        };
        let status = response.status().as_u16();
        let bytes = self.idle_bounded(response.bytes()).await??;
        if status != 200 {
            return Err(files_error(status, &bytes));
        }
        let mut written: Vec<WrittenFile> = serde_json::from_slice(&bytes)
            .map_err(|err| Error::Protocol(format!("unreadable upload answer: {err}")))?;
        written.pop().ok_or_else(|| Error::Protocol("upload answer lists no file".into()))
    }

    /// `future` bounded by the transfer idle timeout.
    async fn idle_bounded<T>(&self, future: impl std::future::Future<Output = T>) -> Result<T> {
        tokio::time::timeout(self.transfer_idle_timeout, future)
            .await
            .map_err(|_| Error::Timeout(self.transfer_idle_timeout))
    }

    /// Sends a streamed upload, watching that the peer keeps taking its bytes: HTTP pulls
    /// the body only as the peer reads (flow control), so a body not polled for the idle
    /// timeout means the peer stalled, while a slow producer is still being polled.
    async fn send_watched(
        &self,
        request: reqwest::RequestBuilder,
        body: reqwest::Body,
    ) -> Result<reqwest::Response> {
        use http_body_util::BodyExt as _;
        let polled = std::sync::Arc::new(std::sync::Mutex::new(tokio::time::Instant::now()));
        let touched = std::sync::Arc::clone(&polled);
        let finished = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        let done = std::sync::Arc::clone(&finished);
        let chunks = http_body_util::BodyDataStream::new(body.boxed());
        let watched = Watched { inner: Box::pin(chunks), polled: touched, done };
        let send = connect::send(request.body(reqwest::Body::wrap_stream(watched)));
        tokio::pin!(send);
        let idle = self.transfer_idle_timeout;
        let mut tick =
            tokio::time::interval(idle.min(Duration::from_secs(1)).max(Duration::from_millis(10)));
        let mut answer_deadline: Option<tokio::time::Instant> = None;
        loop {
            tokio::select! {
                response = &mut send => return response,
                _ = tick.tick() => {
                    let now = tokio::time::Instant::now();
                    if finished.load(std::sync::atomic::Ordering::SeqCst) {
                        // The body is sent: the answer is bounded like a unary call's.
                        let deadline = *answer_deadline.get_or_insert(now + self.request_timeout);
                        if now >= deadline {
                            return Err(Error::Timeout(self.request_timeout));
                        }
                    } else {
                        let last = *polled.lock().unwrap_or_else(|p| p.into_inner());
                        if now.duration_since(last) >= idle {
                            return Err(Error::Timeout(idle));
                        }
                    }
                }
            }
        }
    }

    /// Streams a file's bytes (identity encoding).
    pub async fn download(
        &self,
        path: &str,
        user: Option<&str>,
    ) -> Result<impl Stream<Item = Result<Bytes>> + Send + 'static> {
        Ok(self.download_sized(path, user).await?.1)
    }

    /// Like [`Self::download`], with the size the server announced (`Content-Length`).
    /// The answer must begin within the request timeout, and each chunk arrive within the
    /// transfer idle timeout of the last ([`Error::Timeout`] otherwise).
    pub async fn download_sized(
        &self,
        path: &str,
        user: Option<&str>,
    ) -> Result<(Option<u64>, impl Stream<Item = Result<Bytes>> + Send + 'static)> {
        let request = self
            .files_request(reqwest::Method::GET, path, user)
            .header(reqwest::header::ACCEPT_ENCODING, "identity");
        let response = tokio::time::timeout(self.request_timeout, connect::send(request))
            .await
            .map_err(|_| Error::Timeout(self.request_timeout))??;
        let status = response.status().as_u16();
        if status != 200 {
            let bytes = self.idle_bounded(response.bytes()).await?.unwrap_or_default();
            return Err(files_error(status, &bytes));
        }
        let size = response.content_length();
        let idle = self.transfer_idle_timeout;
        let chunks = futures_util::stream::unfold(
            (Box::pin(response.bytes_stream()), false),
            move |(mut chunks, ended)| async move {
                if ended {
                    return None;
                }
                match tokio::time::timeout(idle, chunks.next()).await {
                    Ok(Some(Ok(chunk))) => Some((Ok(chunk), (chunks, false))),
                    Ok(Some(Err(err))) => Some((Err(Error::from(err)), (chunks, true))),
                    Ok(None) => None,
                    Err(_) => Some((Err(Error::Timeout(idle)), (chunks, true))),
                }
            },
        );
        Ok((size, chunks))
    }

    pub async fn read_file(&self, path: &str, user: Option<&str>) -> Result<Bytes> {
        let mut stream = Box::pin(self.download(path, user).await?);
        let mut out = bytes::BytesMut::new();
        while let Some(chunk) = stream.next().await {
            out.extend_from_slice(&chunk?);
        }
        Ok(out.freeze())
    }

    pub async fn write_file(
        &self,
        path: &str,
        data: impl Into<Bytes>,
        user: Option<&str>,
    ) -> Result<WrittenFile> {
        self.upload(path, reqwest::Body::from(data.into()), user).await
    }

    /// Whether envd answers `/health`, within the health timeout ([`Error::Timeout`]);
    /// E2B's 502 for the sandbox is [`Error::SandboxGone`].
    pub async fn health(&self) -> Result<bool> {
        let request = self.request(reqwest::Method::GET, "/health", None);
        let response = tokio::time::timeout(self.health_timeout, async {
            let response = connect::send(request).await?;
            let status = response.status().as_u16();
            let body = response.bytes().await.unwrap_or_default();
            Ok::<_, Error>((status, body))
        })
        .await
        .map_err(|_| Error::Timeout(self.health_timeout))??;
        match response {
            (502, body) => Err(files_error(502, &body)),
            (status, _) => Ok((200..300).contains(&status)),
        }
    }
}

/// A body of `Watched` that records when it was last polled and whether it ended.
struct Watched<S> {
    inner: std::pin::Pin<Box<S>>,
    polled: std::sync::Arc<std::sync::Mutex<tokio::time::Instant>>,
    done: std::sync::Arc<std::sync::atomic::AtomicBool>,
}

impl<S, E> Stream for Watched<S>
where
    S: Stream<Item = std::result::Result<Bytes, E>>,
{
    type Item = std::result::Result<Bytes, E>;

    fn poll_next(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Option<Self::Item>> {
        *self.polled.lock().unwrap_or_else(|p| p.into_inner()) = tokio::time::Instant::now();
        let next = self.inner.as_mut().poll_next(cx);
        if let std::task::Poll::Ready(None) = next {
            self.done.store(true, std::sync::atomic::Ordering::SeqCst);
        }
        next
    }
}

/// One file as a `multipart/form-data` body (part `file`), what envd before 0.5.7 takes.
fn multipart(path: &str, data: &[u8]) -> (String, Bytes) {
    let digest = sha2::Sha256::digest(data);
    let mut boundary = format!("dsh-{digest:x}");
    boundary.truncate("dsh-".len() + 24);
    let name = path.rsplit('/').next().unwrap_or(path).replace(['"', '\\', '\r', '\n'], "_");
    let mut body = bytes::BytesMut::new();
    body.extend_from_slice(
        format!(
            "--{boundary}\r\nContent-Disposition: form-data; name=\"file\"; filename=\"{name}\"\r\nContent-Type: application/octet-stream\r\n\r\n"
        )
        .as_bytes(),
    );
    body.extend_from_slice(data);
    body.extend_from_slice(format!("\r\n--{boundary}--\r\n").as_bytes());
    (format!("multipart/form-data; boundary={boundary}"), body.freeze())
}

/// A `/files` (or `/health`) error: the edge's own answers (the sandbox gone among them:
/// [`connect::edge_answer`]), else envd's body.
fn files_error(status: u16, body: &[u8]) -> Error {
    connect::edge_answer(status, body).unwrap_or_else(|| http_error(status, body))
}

fn selector(pid: u32) -> proc::ProcessSelector {
    proc::ProcessSelector { selector: Some(proc::process_selector::Selector::Pid(pid)) }
}

/// envd's HTTP errors are `{"code": <status>, "message": "..."}`.
pub(crate) fn http_error(status: u16, body: &[u8]) -> Error {
    let message = serde_json::from_slice::<serde_json::Value>(body)
        .ok()
        .and_then(|v| v.get("message").and_then(|m| m.as_str()).map(str::to_owned))
        .unwrap_or_else(|| String::from_utf8_lossy(body).trim().to_owned());
    Error::Http { status, message }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cloud_urls_use_routing_headers_on_supported_domains_and_the_port_host_elsewhere() {
        assert_eq!(
            EnvdTarget::cloud("abc123", "e2b.app"),
            EnvdTarget {
                base_url: "https://sandbox.e2b.app".into(),
                sandbox_id: Some("abc123".into())
            }
        );
        // E2B's own domain with a port (a stand-in, a proxy in between): still routed by
        // header on `sandbox.<domain>`, the port kept.
        assert_eq!(
            EnvdTarget::cloud("abc123", "e2b.app:8443"),
            EnvdTarget {
                base_url: "https://sandbox.e2b.app:8443".into(),
                sandbox_id: Some("abc123".into())
            }
        );
        assert_eq!(
            EnvdTarget::cloud("abc123", "example.org"),
            EnvdTarget { base_url: "https://49983-abc123.example.org".into(), sandbox_id: None }
        );
        assert_eq!(
            EnvdTarget::direct("http://127.0.0.1:49983/").base_url,
            "http://127.0.0.1:49983"
        );
        assert_eq!(
            EnvdTarget::routed("http://127.0.0.1:3000", "sbx").sandbox_id.as_deref(),
            Some("sbx")
        );
    }

    #[test]
    fn http_errors_read_envd_bodies_or_fall_back_to_text() {
        let err = http_error(404, br#"{"code":404,"message":"path '/x' does not exist"}"#);
        assert!(
            matches!(err, Error::Http { status: 404, ref message } if message == "path '/x' does not exist")
        );
        let err = http_error(502, b" bad gateway \n");
        assert!(
            matches!(err, Error::Http { status: 502, ref message } if message == "bad gateway")
        );
        assert!(crate::http_client().is_ok());
    }
}
