//! The engine: installs and keeps the runner, drives runs, meters output, dispatches
//! tool calls and validates every frame.

use std::borrow::Cow;
use std::collections::{BTreeMap, HashSet, VecDeque};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use dsh_core::{
    CancellationToken, Fs, OutputMode, Process, SpawnSpec, StdinMode, Subprocess, WriteExpectation,
};
use futures_util::StreamExt;
use futures_util::stream::FuturesUnordered;
use sha2::{Digest, Sha256};
use tokio::sync::Mutex;
use tokio::time::Instant;

use crate::frame::{RunnerFrame, VERSION, encode_line};
use crate::lossless::JsValue;
use crate::wire::FrameReader;
use crate::{
    AbortSignal, CodeError, Limits, Location, RUNNER_SOURCE, RunError, RunErrorKind, RunOutcome,
    RunRequest, StripError, StripErrorKind, ToolCallFailure, ToolDispatcher, strip_types,
};

/// Strips a program on a blocking thread, so the runtime's workers keep serving other
/// sessions, and waits at most `timeout`: the parser backtracks on some inputs (a few
/// hundred bytes of nested `[` and `<` kept swc busy for over 20 s here). A parse past
/// the limit is abandoned, not stopped: its thread finishes in the background.
async fn strip_with_timeout(code: &str, timeout: Duration) -> Result<String, StripError> {
    let owned = code.to_owned();
    let failed =
        |message: String| StripError { kind: StripErrorKind::Timeout, line: 1, column: 1, message };
    match tokio::time::timeout(timeout, tokio::task::spawn_blocking(move || strip_types(&owned)))
        .await
    {
        Ok(Ok(stripped)) => stripped,
        Ok(Err(_)) => Err(StripError {
            kind: StripErrorKind::Syntax,
            line: 1,
            column: 1,
            message: "the TypeScript stripper failed on this program".into(),
        }),
        Err(_) => Err(failed(format!(
            "stripping the TypeScript took longer than {} ms (deeply ambiguous `<` / `[` nesting?)",
            timeout.as_millis()
        ))),
    }
}

/// The runner script to install: the shipped one, or (in tests) a deliberately hostile
/// one.
#[derive(Debug, Clone)]
pub struct RunnerScript {
    /// File name under `<cwd>/.dsh-e2b/`.
    pub file_name: String,
    pub source: Cow<'static, str>,
}

impl RunnerScript {
    /// The runner shipped in this crate.
    pub fn builtin() -> Self {
        let sha = sha256_hex(RUNNER_SOURCE.as_bytes());
        Self { file_name: format!("code-runner-{}.js", &sha[..16]), source: RUNNER_SOURCE.into() }
    }

    /// Another script (tests: a hostile runner).
    pub fn custom(file_name: impl Into<String>, source: impl Into<Cow<'static, str>>) -> Self {
        Self { file_name: file_name.into(), source: source.into() }
    }
}

/// Engine configuration; [`Default`] is what production uses.
#[derive(Debug, Clone)]
pub struct CodeConfig {
    /// The Node.js executable in the sandbox.
    pub node: String,
    pub runner: RunnerScript,
    /// The runner's environment (workers get an empty one).
    pub env: BTreeMap<String, String>,
    /// Default budgets of a run.
    pub limits: Limits,
    /// Longest frame line accepted from the runner (base64 bytes).
    pub max_frame_bytes: usize,
    /// Cap of the runner's captured stdout (head + tail): bounds host memory.
    pub stdout_cap: usize,
    /// Tool calls dispatched at once.
    pub max_concurrent_calls: usize,
    /// Tool calls queued (beyond that a call fails with a `ToolCallError`).
    pub max_queued_calls: usize,
    /// Bytes of arguments of queued tool calls (beyond that, likewise).
    pub max_queued_bytes: usize,
    /// How long the runner may take to start and say `boot`.
    pub boot_timeout: Duration,
    /// How long a stopped program may take to be gone before the runner is killed.
    pub stop_grace: Duration,
    /// How long stripping a program's types may take before the run ends with a
    /// `StripTimeout` exception.
    pub strip_timeout: Duration,
}

impl Default for CodeConfig {
    fn default() -> Self {
        Self {
            node: "node".into(),
            runner: RunnerScript::builtin(),
            env: BTreeMap::from([
                ("PATH".to_owned(), "/usr/local/bin:/usr/bin:/bin".to_owned()),
                ("LANG".to_owned(), "C.UTF-8".to_owned()),
            ]),
            limits: Limits::default(),
            max_frame_bytes: 8 * 1024 * 1024,
            stdout_cap: 16 * 1024 * 1024,
            max_concurrent_calls: 10,
            max_queued_calls: 1000,
            max_queued_bytes: 64 * 1024 * 1024,
            boot_timeout: Duration::from_secs(15),
            stop_grace: Duration::from_secs(2),
            strip_timeout: Duration::from_secs(10),
        }
    }
}

struct Runner {
    process: Process,
    reader: FrameReader,
    pid: u32,
}

impl Runner {
    /// Kills the runner's whole process group and waits for it; says how it ended.
    async fn kill(self) -> dsh_core::ExitStatus {
        self.process.terminate().await
    }

    async fn send(&self, json: &str, limit: Duration) -> Result<(), String> {
        let line = encode_line(json);
        match tokio::time::timeout(limit, self.process.write_stdin(&line)).await {
            Ok(Ok(())) => Ok(()),
            Ok(Err(error)) => Err(format!("cannot write to the runner: {error}")),
            Err(_) => Err("the runner stopped reading its input".into()),
        }
    }
}

struct State {
    runner: Option<Runner>,
    next_run: u64,
    disposed: bool,
}

/// Code Mode for one sandbox: one runner kept alive, one program at a time (concurrent
/// [`CodeEngine::run`] calls queue).
pub struct CodeEngine {
    fs: Arc<dyn Fs>,
    subprocess: Arc<dyn Subprocess>,
    cwd: PathBuf,
    config: CodeConfig,
    state: Mutex<State>,
    /// Fired by [`CodeEngine::dispose`]: a run in progress ends with `abort`.
    shutdown: CancellationToken,
}

fn sha256_hex(bytes: &[u8]) -> String {
    format!("{:x}", Sha256::digest(bytes))
}

fn json_string(text: &str) -> String {
    serde_json::Value::String(text.to_owned()).to_string()
}

enum Phase {
    Running,
    /// The outcome is decided; waiting for the runner's `done` (the worker gone).
    Stopping {
        error: RunError,
        deadline: Instant,
    },
}

type CallFuture<'a> =
    futures_util::future::BoxFuture<'a, (u64, Result<serde_json::Value, ToolCallFailure>)>;

/// Disposing the runtime stops the runner and its workers (each awaited).
impl dsh_core::Engine for CodeEngine {
    fn name(&self) -> &str {
        "code runner"
    }
    fn dispose(&self) -> dsh_core::BoxFuture<'_, ()> {
        Box::pin(CodeEngine::dispose(self))
    }
}

impl CodeEngine {
    /// An engine for the sandbox behind `fs` and `subprocess`, whose runner lives in
    /// `<cwd>/.dsh-e2b/` (`cwd` is an absolute sandbox path).
    pub fn new(
        fs: Arc<dyn Fs>,
        subprocess: Arc<dyn Subprocess>,
        cwd: impl Into<PathBuf>,
        config: CodeConfig,
    ) -> Self {
        Self {
            fs,
            subprocess,
            cwd: cwd.into(),
            config,
            state: Mutex::new(State { runner: None, next_run: 1, disposed: false }),
            shutdown: CancellationToken::new(),
        }
    }

    /// The directory the runner is installed in.
    pub fn runner_dir(&self) -> PathBuf {
        self.cwd.join(".dsh-e2b")
    }

    /// The runner's pid (its process group), if one is up.
    pub async fn runner_pid(&self) -> Option<u32> {
        self.state.lock().await.runner.as_ref().map(|r| r.pid)
    }

    /// Starts the runner now, so the first run does not pay for it.
    pub async fn warm(&self) -> Result<(), CodeError> {
        let mut state = self.state.lock().await;
        if state.disposed {
            return Err(CodeError::Disposed);
        }
        if state.runner.is_none() {
            state.runner = Some(self.start_runner().await?);
        }
        Ok(())
    }

    /// Stops the runner (and its workers and whatever they started) and refuses further
    /// runs.
    pub async fn dispose(&self) {
        self.shutdown.cancel();
        let mut state = self.state.lock().await;
        state.disposed = true;
        if let Some(runner) = state.runner.take() {
            let _ = runner.process.close_stdin().await;
            runner.kill().await;
        }
    }

    async fn install(&self) -> Result<PathBuf, CodeError> {
        let dir = self.runner_dir();
        let script = &self.config.runner;
        let path = dir.join(&script.file_name);
        let expected = sha256_hex(script.source.as_bytes());
        let max = script.source.len() as u64 + 1;
        let current = self.fs.read_bytes(&path, max).await.ok();
        if current.as_ref().map(|c| sha256_hex(&c.bytes)) != Some(expected.clone()) {
            // The private directory: mode 0700 (the Fs seam has no modes, so a command).
            let mut spec = SpawnSpec::new(
                ["/bin/sh", "-c", "mkdir -p -m 0700 \"$1\" && chmod 0700 \"$1\"", "sh"],
                &self.cwd,
                self.config.env.clone(),
            );
            spec.argv.push(dir.to_string_lossy().into_owned());
            spec.timeout = Some(Duration::from_secs(30));
            let process = self
                .subprocess
                .spawn(spec)
                .await
                .map_err(|e| CodeError::Install(format!("mkdir {}: {e}", dir.display())))?;
            let status = process.wait().await;
            if !status.success() {
                let stderr = process.stderr().snapshot().to_string_lossy();
                return Err(CodeError::Install(format!("mkdir {}: {stderr}", dir.display())));
            }
            self.fs
                .write_text(&path, &script.source, WriteExpectation::Any)
                .await
                .map_err(|e| CodeError::Install(e.to_string()))?;
            let written = self
                .fs
                .read_bytes(&path, max)
                .await
                .map_err(|e| CodeError::Install(e.to_string()))?;
            if sha256_hex(&written.bytes) != expected {
                return Err(CodeError::Install(format!(
                    "{} does not have the expected SHA-256 {expected}",
                    path.display()
                )));
            }
        }
        Ok(path)
    }

    async fn start_runner(&self) -> Result<Runner, CodeError> {
        let path = self.install().await?;
        let expected = sha256_hex(self.config.runner.source.as_bytes());
        let mut spec = SpawnSpec::new(
            [
                self.config.node.clone(),
                path.to_string_lossy().into_owned(),
                self.config.limits.heap_mb.to_string(),
            ],
            &self.cwd,
            self.config.env.clone(),
        );
        spec.stdin = StdinMode::Pipe;
        spec.stdout = OutputMode::Capped { max_bytes: self.config.stdout_cap };
        spec.stderr = OutputMode::Capped { max_bytes: 64 * 1024 };
        spec.grace = Duration::from_millis(200);
        let process =
            self.subprocess.spawn(spec).await.map_err(|e| CodeError::Start(e.to_string()))?;
        let pid = process.pid();
        let mut reader = FrameReader::new(process.stdout().clone(), self.config.max_frame_bytes);
        let first = tokio::time::timeout(self.config.boot_timeout, reader.next()).await;
        let runner = Runner { process, reader, pid };
        let problem = match first {
            Ok(Ok(Some(RunnerFrame::Boot { v, sha, .. }))) if v == VERSION && sha == expected => {
                return Ok(runner);
            }
            Ok(Ok(Some(RunnerFrame::Boot { v, sha, .. }))) => {
                format!(
                    "the runner says version {v} and SHA-256 {sha}; expected {VERSION} and {expected}"
                )
            }
            Ok(Ok(Some(other))) => format!("the runner's first frame is not boot: {other:?}"),
            Ok(Ok(None)) => "the runner exited before saying boot".into(),
            Ok(Err(violation)) => violation.to_string(),
            Err(_) => format!("no boot frame within {:?}", self.config.boot_timeout),
        };
        let stderr = runner.process.stderr().snapshot().to_string_lossy();
        runner.kill().await;
        Err(CodeError::Start(format!("{problem}; stderr: {}", stderr.trim())))
    }

    /// Runs one program. Program failures are in [`RunOutcome::error`]; `Err` means the
    /// engine could not run anything (runner not installable or not starting).
    pub async fn run(
        &self,
        request: RunRequest,
        tools: Arc<dyn ToolDispatcher>,
    ) -> Result<RunOutcome, CodeError> {
        let limits = request.limits.unwrap_or(self.config.limits);
        let code = match strip_with_timeout(&request.code, self.config.strip_timeout).await {
            Ok(code) => code,
            Err(error) => {
                return Ok(RunOutcome {
                    logs: Vec::new(),
                    result: None,
                    value: None,
                    error: Some(RunError {
                        kind: RunErrorKind::Exception,
                        message: error.to_string(),
                        location: Some(Location { line: error.line, column: error.column }),
                    }),
                });
            }
        };
        let mut state = self.state.lock().await;
        if state.disposed {
            return Err(CodeError::Disposed);
        }
        let runner = match state.runner.take() {
            Some(runner) if runner.process.try_wait().is_none() => runner,
            stale => {
                if let Some(stale) = stale {
                    stale.kill().await;
                }
                self.start_runner().await?
            }
        };
        let run_id = state.next_run;
        state.next_run += 1;
        let (outcome, runner) =
            self.drive(runner, run_id, &code, limits, request.abort, tools).await?;
        match runner {
            Some(runner) => state.runner = Some(runner),
            None => state.runner = None,
        }
        Ok(outcome)
    }

    /// Drives one run; returns the runner when it is still good. A runner lost with its
    /// sandbox is no outcome of the program's: that is [`CodeError::Lost`].
    async fn drive(
        &self,
        mut runner: Runner,
        run_id: u64,
        code: &str,
        limits: Limits,
        abort: Option<AbortSignal>,
        tools: Arc<dyn ToolDispatcher>,
    ) -> Result<(RunOutcome, Option<Runner>), CodeError> {
        let names: Vec<String> =
            tools.tools().into_iter().map(|t| t.name).filter(|n| n != "run_code").collect();
        let known: HashSet<&str> = names.iter().map(String::as_str).collect();
        let mut outcome = RunOutcome { logs: Vec::new(), result: None, value: None, error: None };
        let write_limit = self.config.stop_grace.max(Duration::from_secs(5));
        let run_frame = serde_json::json!({
            "k": "run",
            "run": run_id,
            "code": code,
            "tools": &names,
            "limits": {
                "heapMb": limits.heap_mb,
                "cpuMs": u64::try_from(limits.cpu.as_millis()).unwrap_or(u64::MAX),
                "maxOutputBytes": limits.max_output_bytes,
            },
        });
        if let Err(message) = runner.send(&run_frame.to_string(), write_limit).await {
            if runner.kill().await.reason == dsh_core::EndReason::Lost {
                return Err(CodeError::Lost);
            }
            outcome.error = Some(RunError::new(RunErrorKind::WorkerExit, message));
            return Ok((outcome, None));
        }

        let wall_deadline = Instant::now() + limits.wall;
        let abort = abort.unwrap_or_default();
        let mut phase = Phase::Running;
        let mut used_bytes = 0usize;
        let mut last_call = 0u64;
        let mut queued: VecDeque<(u64, String, serde_json::Value, usize)> = VecDeque::new();
        let mut queued_bytes = 0usize;
        let mut inflight: FuturesUnordered<CallFuture<'_>> = FuturesUnordered::new();
        let invalid = |message: String| RunError::new(RunErrorKind::InvalidOutput, message);

        // Returns the finished outcome's error (None = success) and whether the runner
        // is still usable.
        let (final_error, keep): (Option<RunError>, bool) = loop {
            while inflight.len() < self.config.max_concurrent_calls {
                let Some((id, name, args, size)) = queued.pop_front() else { break };
                queued_bytes -= size;
                let tools = Arc::clone(&tools);
                inflight.push(Box::pin(async move {
                    let result = tools.call(&name, args).await;
                    (id, result)
                }));
            }
            let stop_deadline = match &phase {
                Phase::Stopping { deadline, .. } => *deadline,
                Phase::Running => wall_deadline,
            };
            let running = matches!(phase, Phase::Running);
            let mut stop: Option<RunError> = None;
            // Checked here too, not only in select!: a runner flooding frames must not
            // starve the deadlines.
            let now = Instant::now();
            match &phase {
                Phase::Stopping { error, deadline } if now >= *deadline => {
                    break (Some(error.clone()), false);
                }
                Phase::Running if abort.is_aborted() => {
                    stop = Some(RunError::new(RunErrorKind::Abort, abort.message()));
                }
                Phase::Running if self.shutdown.is_cancelled() => {
                    stop = Some(RunError::new(RunErrorKind::Abort, DISPOSED));
                }
                Phase::Running if now >= wall_deadline => {
                    stop = Some(RunError::new(
                        RunErrorKind::Timeout,
                        format!("the wall-time budget of {:?} ran out", limits.wall),
                    ));
                }
                _ => {}
            }
            if stop.is_none() {
                tokio::select! {
                    biased;
                    Some((id, result)) = inflight.next(), if !inflight.is_empty() => {
                        if running {
                            let frame = match result {
                                Ok(value) => format!(
                                    "{{\"k\":\"reply\",\"run\":{run_id},\"id\":{id},\"ok\":true,\"value\":{}}}",
                                    JsValue::from_json(&value).to_tagged_text()
                                ),
                                Err(failure) => reply_error(run_id, id, &failure.message),
                            };
                            if let Err(message) = runner.send(&frame, write_limit).await {
                                break (Some(invalid(message)), false);
                            }
                        }
                    }
                    frame = runner.reader.next() => {
                        let frame = match frame {
                            Ok(Some(frame)) => frame,
                            Ok(None) => {
                                let status = runner.process.wait().await;
                                break match phase {
                                    Phase::Stopping { error, .. } => (Some(error), false),
                                    Phase::Running => (Some(RunError::new(
                                        RunErrorKind::WorkerExit,
                                        format!("the code runner exited ({})", ended(&status)),
                                    )), false),
                                };
                            }
                            Err(violation) => break match phase {
                                // A decided outcome stays; the runner goes anyway.
                                Phase::Stopping { error, .. } => (Some(error), false),
                                Phase::Running => (Some(invalid(violation.to_string())), false),
                            },
                        };
                        if let (Phase::Stopping { error, .. }, RunnerFrame::Boot { .. } | RunnerFrame::Fatal { .. }) = (&phase, &frame) {
                            break (Some(error.clone()), false);
                        }
                        match frame {
                            RunnerFrame::Boot { .. } => break (Some(invalid("a second boot frame".into())), false),
                            RunnerFrame::Fatal { message } => break (Some(invalid(format!("the runner failed: {message}"))), false),
                            RunnerFrame::Log { run, text } => {
                                if run != run_id {
                                    break (Some(invalid(format!("a log for run {run} during run {run_id}"))), false);
                                }
                                if !running {
                                    continue;
                                }
                                if used_bytes + text.len() > limits.max_output_bytes {
                                    stop = Some(RunError::new(RunErrorKind::OutputLimit, format!("the output limit of {} bytes was reached", limits.max_output_bytes)));
                                } else {
                                    used_bytes += text.len();
                                    outcome.logs.push(text);
                                }
                            }
                            RunnerFrame::OutputLimit { run } => {
                                if run != run_id {
                                    break (Some(invalid(format!("output-limit for run {run} during run {run_id}"))), false);
                                }
                                if running {
                                    // The runner is already stopping the worker: just wait for done.
                                    phase = Phase::Stopping {
                                        error: RunError::new(RunErrorKind::OutputLimit, format!("the output limit of {} bytes was reached", limits.max_output_bytes)),
                                        deadline: Instant::now() + self.config.stop_grace,
                                    };
                                }
                            }
                            RunnerFrame::Call { run, id, tool, args } => {
                                if run != run_id {
                                    break (Some(invalid(format!("a call for run {run} during run {run_id}"))), false);
                                }
                                // The worker numbers its calls 1, 2, 3...: anything else is forged.
                                if id <= last_call {
                                    break (Some(invalid(format!("call id {id} is reused or out of order"))), false);
                                }
                                last_call = id;
                                if !known.contains(tool.as_str()) {
                                    break (Some(invalid(format!("a call to unknown tool {tool:?}"))), false);
                                }
                                if !running {
                                    continue;
                                }
                                let size = runner.reader.last_line_len();
                                let value = match JsValue::from_raw(&args) {
                                    Ok(value) => value,
                                    Err(error) => break (Some(invalid(format!("call {id}: {error}"))), false),
                                };
                                let reply = match value.to_json() {
                                    Err(error) => Some(format!("the arguments cannot be sent to {tool}: {error}")),
                                    Ok(_) if queued.len() >= self.config.max_queued_calls || queued_bytes + size > self.config.max_queued_bytes => Some(format!(
                                        "too many tool calls queued (max {} calls, {} bytes of arguments)",
                                        self.config.max_queued_calls, self.config.max_queued_bytes
                                    )),
                                    Ok(json) => {
                                        queued_bytes += size;
                                        queued.push_back((id, tool.clone(), json, size));
                                        None
                                    }
                                };
                                if let Some(message) = reply {
                                    let frame = reply_error(run_id, id, &message);
                                    if let Err(message) = runner.send(&frame, write_limit).await {
                                        break (Some(invalid(message)), false);
                                    }
                                }
                            }
                            RunnerFrame::Done { run, ok, value, error } => {
                                if run != run_id {
                                    break (Some(invalid(format!("done for run {run} during run {run_id}"))), false);
                                }
                                if let Phase::Stopping { error, .. } = phase {
                                    break (Some(error), true);
                                }
                                match (ok, value, error) {
                                    (true, Some(value), None) => {
                                        let decoded = match JsValue::from_raw(&value) {
                                            Ok(decoded) => decoded,
                                            Err(error) => break (Some(invalid(format!("the result: {error}"))), false),
                                        };
                                        let text = decoded.to_tagged_text();
                                        if used_bytes + text.len() > limits.max_output_bytes {
                                            break (Some(RunError::new(RunErrorKind::OutputLimit, format!("the returned value ({} bytes) does not fit the output limit of {} bytes", text.len(), limits.max_output_bytes))), true);
                                        }
                                        if !matches!(decoded, JsValue::Undefined) {
                                            outcome.result = Some(decoded.to_tagged());
                                            outcome.value = Some(decoded);
                                        }
                                        break (None, true);
                                    }
                                    (false, None, Some(error)) => {
                                        let kind = match error.kind.as_str() {
                                            "exception" => RunErrorKind::Exception,
                                            "timeout" => RunErrorKind::Timeout,
                                            "worker-exit" => RunErrorKind::WorkerExit,
                                            "output-limit" => RunErrorKind::OutputLimit,
                                            other => break (Some(invalid(format!("done with an unexpected error kind {other:?}"))), false),
                                        };
                                        break (Some(RunError::new(kind, error.message)), true);
                                    }
                                    _ => break (Some(invalid("a malformed done frame".into())), false),
                                }
                            }
                        }
                    }
                    () = abort.token.cancelled(), if running => {
                        stop = Some(RunError::new(RunErrorKind::Abort, abort.message()));
                    }
                    () = self.shutdown.cancelled(), if running => {
                        stop = Some(RunError::new(RunErrorKind::Abort, DISPOSED));
                    }
                    () = tokio::time::sleep_until(stop_deadline) => {
                        match phase {
                            Phase::Running => {
                                stop = Some(RunError::new(RunErrorKind::Timeout, format!("the wall-time budget of {:?} ran out", limits.wall)));
                            }
                            // The worker would not stop (or the runner is wedged): kill the group.
                            Phase::Stopping { error, .. } => break (Some(error), false),
                        }
                    }
                }
            }
            if let Some(error) = stop {
                let reason = error.kind.as_str();
                let frame = format!(
                    "{{\"k\":\"stop\",\"run\":{run_id},\"reason\":\"{reason}\",\"message\":{}}}",
                    json_string(&error.message)
                );
                let sent = runner.send(&frame, self.config.stop_grace).await;
                if sent.is_err() {
                    break (Some(error), false);
                }
                inflight.clear();
                queued.clear();
                phase =
                    Phase::Stopping { error, deadline: Instant::now() + self.config.stop_grace };
            }
        };
        drop(inflight);
        outcome.error = final_error;
        if outcome.error.is_some() {
            outcome.result = None;
            outcome.value = None;
        }
        if keep {
            Ok((outcome, Some(runner)))
        } else if runner.kill().await.reason == dsh_core::EndReason::Lost {
            // The sandbox went away under the run: whatever it reached is unknown.
            Err(CodeError::Lost)
        } else {
            Ok((outcome, None))
        }
    }
}

const DISPOSED: &str = "the code engine was disposed";

/// How a process ended, in words.
fn ended(status: &dsh_core::ExitStatus) -> String {
    match (status.code, status.signal) {
        (Some(code), _) => format!("exit code {code}"),
        (None, Some(signal)) => format!("killed by signal {signal}"),
        (None, None) => "no exit status".to_owned(),
    }
}

fn reply_error(run_id: u64, id: u64, message: &str) -> String {
    format!(
        "{{\"k\":\"reply\",\"run\":{run_id},\"id\":{id},\"ok\":false,\"error\":{{\"message\":{}}}}}",
        json_string(message)
    )
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;

    #[test]
    fn sha256_hex_is_the_lowercase_hex_digest() {
        assert_eq!(
            sha256_hex(b""),
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
        );
    }

    /// Found by fuzzing: 563 bytes of nested `[` and `<` on which both parsers backtrack
    /// for seconds (swc for over 20 s). The run gets a typed error in time; the parse is
    /// abandoned on its blocking thread.
    const BACKTRACKING_PROGRAM: &str = "fina<\u{2028}B<C<Dfinalna<\u{2028}B<C<D$[[[[{[[[[[[[[[[[vB<nalna<\u{2028}B<C[O[[[[[[[f[[[$[[[[{[ined[[Dfina<\u{2028}B<C<Dfi[[[[[[f[[[{[[[[d[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[cA<B<C<Dfina<\u{2028}B<C<DficA<B<C<Dfina<\u{2028}B<C<Dfinalna<\u{2028}B<C<Dfi[[[[f[[[$[[[[{[[[[[[[[[[[[[[[[[[[[[vB<C<Dfinalna<\u{2028}B<C<Dfi[[[[f[[[$[[[[[[[[[[[[[[void[[c[[[[2[[[[[[[[\t[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[2[[[[[[[[[[[[f[[[$[[[[{[[[[[[[[$[[[[{[[[[[[[[[[[[[[[[[[[[[vB<C<Dfinalna<\u{2028}B<C<Dfi[[[[f[[[$[[[[[[[[[[[[[[void[[c[[[[3[[[[[[[[[[[[[[[[[[\t[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[2[[[[[[[[[[[[f[[[$[[[[{[[[[";

    #[test]
    fn a_parse_that_backtracks_for_seconds_ends_in_a_typed_timeout() {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .enable_time()
            .build()
            .unwrap();
        let started = std::time::Instant::now();
        let stripped =
            runtime.block_on(strip_with_timeout(BACKTRACKING_PROGRAM, Duration::from_millis(200)));
        let elapsed = started.elapsed();
        // The abandoned parse would hold a normal shutdown for its whole duration.
        runtime.shutdown_background();
        let error = stripped.unwrap_err();
        assert_eq!(error.kind, StripErrorKind::Timeout, "{error}");
        assert_eq!(
            error.to_string(),
            "StripTimeout at line 1, column 1: stripping the TypeScript took longer than 200 ms \
             (deeply ambiguous `<` / `[` nesting?)"
        );
        assert!(elapsed < Duration::from_secs(2), "{elapsed:?}");
    }
}
