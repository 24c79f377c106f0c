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

use crate::connect::{self, ResponseStream};
use crate::error::{Error, Result};

/// Domains whose edge accepts `https://sandbox.<domain>` with routing headers.
const ROUTED_DOMAINS: [&str; 4] = ["e2b.app", "e2b.dev", "e2b.pro", "e2b-staging.dev"];

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
        if ROUTED_DOMAINS.contains(&domain) {
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
}

enum StreamOf {
    Start(ResponseStream<proc::StartResponse>),
    Connect(ResponseStream<proc::ConnectResponse>),
}

impl ProcessStream {
    async fn next_event(&mut self) -> Result<Option<proc::ProcessEvent>> {
        Ok(match &mut self.events {
            StreamOf::Start(stream) => stream.next().await?.and_then(|m| m.event),
            StreamOf::Connect(stream) => stream.next().await?.and_then(|m| m.event),
        })
    }

    async fn open(events: StreamOf) -> Result<Self> {
        let mut stream = ProcessStream { pid: 0, events };
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
}

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
            builder = builder.header("X-Access-Token", token);
        }
        if let Some(user) = user {
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
        tokio::time::timeout(self.request_timeout, connect::unary(request, self.codec, message))
            .await
            .map_err(|_| Error::Timeout(self.request_timeout))?
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
        let stream = connect::server_stream(builder, self.codec, &request).await?;
        ProcessStream::open(StreamOf::Start(stream)).await
    }

    /// Attaches to a running process: live output from now on, then its end.
    pub async fn connect(&self, pid: u32) -> Result<ProcessStream> {
        let request = proc::ConnectRequest { process: Some(selector(pid)) };
        let builder = self
            .request(reqwest::Method::POST, "/process.Process/Connect", None)
            .header("keepalive-ping-interval", KEEPALIVE_SECS);
        let stream = connect::server_stream(builder, self.codec, &request).await?;
        ProcessStream::open(StreamOf::Connect(stream)).await
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

    pub async fn close_stdin(&self, pid: u32) -> Result<()> {
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
        if let Some(user) = user {
            query.push(("username", user));
        }
        self.request(method, "/files", None).query(&query)
    }

    /// Streams `body` into `path` (parents are created); nothing is buffered whole.
    pub async fn upload(
        &self,
        path: &str,
        body: reqwest::Body,
        user: Option<&str>,
    ) -> Result<WrittenFile> {
        let response = self
            .files_request(reqwest::Method::POST, path, user)
            .header(reqwest::header::CONTENT_TYPE, "application/octet-stream")
            .body(body)
            .send()
            .await?;
        let status = response.status().as_u16();
        let bytes = response.bytes().await?;
        if status != 200 {
            return Err(http_error(status, &bytes));
        }
        let mut written: Vec<WrittenFile> = serde_json::from_slice(&bytes)
            .map_err(|err| Error::Protocol(format!("unreadable upload answer: {err}")))?;
        written.pop().ok_or_else(|| Error::Protocol("upload answer lists no file".into()))
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
    pub async fn download_sized(
        &self,
        path: &str,
        user: Option<&str>,
    ) -> Result<(Option<u64>, impl Stream<Item = Result<Bytes>> + Send + 'static)> {
        let response = self
            .files_request(reqwest::Method::GET, path, user)
            .header(reqwest::header::ACCEPT_ENCODING, "identity")
            .send()
            .await?;
        let status = response.status().as_u16();
        if status != 200 {
            let bytes = response.bytes().await.unwrap_or_default();
            return Err(http_error(status, &bytes));
        }
        let size = response.content_length();
        Ok((size, response.bytes_stream().map(|chunk| chunk.map_err(Error::from))))
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

    /// Whether envd answers `/health`.
    pub async fn health(&self) -> Result<bool> {
        let response = self.request(reqwest::Method::GET, "/health", None).send().await?;
        Ok(response.status().is_success())
    }
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
