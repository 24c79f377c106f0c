//! `bash`, `task_output` and `task_kill`: commands through the `Subprocess` seam, in the
//! foreground (with a timeout that kills the whole process group) or in the background
//! (a task table holding the process handles).

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use dsh_core::{BoxFuture, EndReason, ExitStatus, OutputBuffer, OutputMode, Process, SpawnSpec};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};

use crate::{Invocation, ToolContext, ToolError, ToolHandler, ToolOutput};

/// Arguments of `bash`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct BashArgs {
    /// The command line, run as `/bin/bash -c <command>`.
    pub command: String,
    /// What the command does, in a few words (for the transcript).
    pub description: String,
    /// Kill the command (and everything it started) after this many milliseconds
    /// (default 120000, at most 600000).
    #[serde(default, rename = "timeoutMs")]
    pub timeout_ms: Option<u64>,
    /// Directory to run in (default: the workspace).
    #[serde(default)]
    pub workdir: Option<String>,
    /// Start the command in the background and return a task id at once; read its output
    /// with `task_output` and stop it with `task_kill`.
    #[serde(default)]
    pub run_in_background: Option<bool>,
}

/// Arguments of `task_output` and `task_kill`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TaskArgs {
    /// The id `bash` returned for a background command (`task-N`).
    pub task_id: String,
}

/// One background command.
struct Task {
    command: String,
    description: String,
    process: Process,
    started: Instant,
    /// Where the next `task_output` continues (stdout, stderr).
    offsets: Mutex<(u64, u64)>,
}

/// The background tasks of one registry. Dropping it (or a task) kills the process group;
/// [`TaskTable::dispose`] does it in order and waits.
#[derive(Default)]
pub struct TaskTable {
    next: AtomicU64,
    closed: AtomicBool,
    tasks: Mutex<BTreeMap<u64, Arc<Task>>>,
}

impl TaskTable {
    pub fn new() -> Self {
        Self::default()
    }

    fn lock(&self) -> MutexGuard<'_, BTreeMap<u64, Arc<Task>>> {
        self.tasks.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// The ids of every task (running or finished), in start order.
    pub fn ids(&self) -> Vec<String> {
        self.lock().keys().map(|n| format!("task-{n}")).collect()
    }

    fn insert(&self, task: Task) -> Result<String, ToolError> {
        if self.closed.load(Ordering::SeqCst) {
            return Err(ToolError::Failed(
                "the session is shutting down: no new background tasks".into(),
            ));
        }
        let n = self.next.fetch_add(1, Ordering::SeqCst) + 1;
        self.lock().insert(n, Arc::new(task));
        Ok(format!("task-{n}"))
    }

    fn get(&self, task_id: &str) -> Result<Arc<Task>, ToolError> {
        let found = task_id
            .strip_prefix("task-")
            .and_then(|n| n.parse::<u64>().ok())
            .and_then(|n| self.lock().get(&n).cloned());
        found.ok_or_else(|| ToolError::UnknownTask {
            task_id: task_id.to_owned(),
            known: self.ids(),
        })
    }

    /// Terminates every background task's process group (TERM, grace, KILL) and waits for
    /// all of them; no task can be started afterwards.
    pub async fn dispose(&self) {
        self.closed.store(true, Ordering::SeqCst);
        let tasks: Vec<Arc<Task>> = std::mem::take(&mut *self.lock()).into_values().collect();
        let mut set = tokio::task::JoinSet::new();
        for task in tasks {
            set.spawn(async move {
                task.process.terminate().await;
            });
        }
        while set.join_next().await.is_some() {}
    }
}

impl std::fmt::Debug for TaskTable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TaskTable").field("tasks", &self.ids()).finish_non_exhaustive()
    }
}

/// `bash`: run a shell command.
#[derive(Debug, Clone)]
pub struct BashTool {
    tasks: Arc<TaskTable>,
}

impl BashTool {
    pub fn new(tasks: Arc<TaskTable>) -> Self {
        Self { tasks }
    }
}

/// `task_output`: new output of a background task.
#[derive(Debug, Clone)]
pub struct TaskOutputTool {
    tasks: Arc<TaskTable>,
}

impl TaskOutputTool {
    pub fn new(tasks: Arc<TaskTable>) -> Self {
        Self { tasks }
    }
}

/// `task_kill`: stop a background task.
#[derive(Debug, Clone)]
pub struct TaskKillTool {
    tasks: Arc<TaskTable>,
}

impl TaskKillTool {
    pub fn new(tasks: Arc<TaskTable>) -> Self {
        Self { tasks }
    }
}

fn reason_name(reason: EndReason) -> &'static str {
    match reason {
        EndReason::Exited => "exited",
        EndReason::TimedOut => "timed_out",
        EndReason::Cancelled => "cancelled",
        EndReason::Terminated => "terminated",
        EndReason::Lost => "lost",
    }
}

fn seconds(duration: Duration) -> String {
    format!("{:.2} s", duration.as_secs_f64())
}

/// One line saying how a process ended.
fn describe_end(status: &ExitStatus) -> String {
    let how = match (status.code, status.signal) {
        (Some(code), _) => format!("exit code {code}"),
        (None, Some(signal)) => format!("killed by signal {signal}"),
        (None, None) => "ended".to_owned(),
    };
    match status.reason {
        EndReason::TimedOut => format!(
            "timed out after {}: the command and every process it started were killed ({how})",
            seconds(status.duration)
        ),
        EndReason::Cancelled => format!("cancelled after {} ({how})", seconds(status.duration)),
        EndReason::Terminated => format!("terminated after {} ({how})", seconds(status.duration)),
        EndReason::Exited => format!("{how} · {}", seconds(status.duration)),
        EndReason::Lost => lost(status),
    }
}

/// A process whose sandbox went away under it (killed, paused, unreachable).
fn lost(status: &ExitStatus) -> String {
    format!(
        "lost after {}: the sandbox went away (killed, paused or unreachable) while it ran",
        seconds(status.duration)
    )
}

fn status_value(status: &ExitStatus) -> Value {
    json!({
        "status": reason_name(status.reason),
        "exit_code": status.code,
        "signal": status.signal,
        "duration_ms": u64::try_from(status.duration.as_millis()).unwrap_or(u64::MAX),
    })
}

/// Per-stream cap so that stdout + stderr + the status fit in one result.
fn stream_cap(ctx: &ToolContext) -> usize {
    (ctx.limits.result_cap.saturating_sub(1024) / 2).max(64)
}

impl ToolHandler for BashTool {
    const NAME: &'static str = "bash";
    const DESCRIPTION: &'static str = "Run a shell command in the sandbox with `/bin/bash -c`, in `workdir` (default: the \
         workspace). Returns the exit code, stdout and stderr, and the duration. Long output \
         keeps its beginning and its end with a marker saying how many bytes were dropped in \
         between. The command (and every process it started) is killed after `timeoutMs` \
         (default 120000, at most 600000) and the result says so. Each call is a fresh \
         shell: `cd` and variables do not carry over (use `workdir`, or chain with `&&`). \
         Stdin is empty, so interactive programs see end of file: pass flags such as `-y`. \
         For servers, watchers and other long-running commands set `run_in_background`: you \
         get a task id at once; read its output with `task_output` and stop it with \
         `task_kill`. Use the `read`, `write`, `edit`, `glob` and `grep` tools rather than \
         cat, sed, find or grep for files.";
    type Args = BashArgs;

    fn handle<'a>(
        &'a self,
        call: Invocation<'a>,
        args: BashArgs,
    ) -> BoxFuture<'a, Result<ToolOutput, ToolError>> {
        let ctx = call.ctx;
        Box::pin(bash(&self.tasks, ctx, args))
    }
}

async fn bash(
    tasks: &TaskTable,
    ctx: &ToolContext,
    args: BashArgs,
) -> Result<ToolOutput, ToolError> {
    if args.command.trim().is_empty() {
        return Err(ToolError::invalid("bash", "command", "must not be empty"));
    }
    let max = ctx.limits.bash_max_timeout;
    let timeout = match args.timeout_ms {
        None => None,
        Some(0) => return Err(ToolError::invalid("bash", "timeoutMs", "must be at least 1")),
        Some(ms) if u128::from(ms) > max.as_millis() => {
            return Err(ToolError::invalid(
                "bash",
                "timeoutMs",
                format!("at most {} (got {ms})", max.as_millis()),
            ));
        }
        Some(ms) => Some(Duration::from_millis(ms)),
    };
    let cwd = match args.workdir.as_deref() {
        Some(dir) => ctx.resolve("bash", "workdir", dir).await?,
        None => ctx.cwd.clone(),
    };
    let background = args.run_in_background.unwrap_or(false);
    let mut spec =
        SpawnSpec::new(["/bin/bash", "-c", args.command.as_str()], cwd.clone(), ctx.env.clone());
    let cap = if background { ctx.limits.result_cap } else { stream_cap(ctx) };
    spec.stdout = OutputMode::Capped { max_bytes: cap };
    spec.stderr = OutputMode::Capped { max_bytes: cap };
    spec.timeout =
        if background { timeout } else { timeout.or(Some(ctx.limits.bash_default_timeout)) };
    let process = ctx.subprocess.spawn(spec).await?;
    let pid = process.pid();

    if background {
        let task_id = tasks.insert(Task {
            command: args.command,
            description: args.description,
            process,
            started: Instant::now(),
            offsets: Mutex::new((0, 0)),
        })?;
        let text = format!(
            "Started {task_id} in the background (pid {pid}, in {}). Read its output with \
             task_output and stop it with task_kill.",
            cwd.display()
        );
        let value = json!({ "task_id": task_id, "pid": pid, "cwd": cwd, "status": "running" });
        return Ok(ToolOutput { text, value, truncated: false });
    }

    let status = process.wait().await;
    if status.reason == EndReason::Lost {
        return Err(ToolError::Unavailable(
            "the command was lost: its sandbox went away (killed, paused or unreachable) while it ran"
                .to_owned(),
        ));
    }
    let stdout = process.stdout().snapshot();
    let stderr = process.stderr().snapshot();
    let truncated = stdout.truncated() || stderr.truncated();
    let (out, err) = (stdout.to_string_lossy(), stderr.to_string_lossy());
    let mut text = String::new();
    text.push_str(&out);
    if !out.is_empty() && !out.ends_with('\n') {
        text.push('\n');
    }
    if !err.is_empty() {
        text.push_str("[stderr]\n");
        text.push_str(&err);
        if !err.ends_with('\n') {
            text.push('\n');
        }
    }
    if out.is_empty() && err.is_empty() {
        text.push_str("(no output)\n");
    }
    let _ = write!(text, "[{}]", describe_end(&status));
    let mut value = status_value(&status);
    if let Some(object) = value.as_object_mut() {
        object.insert("pid".into(), json!(pid));
        object.insert("stdout".into(), json!(out));
        object.insert("stderr".into(), json!(err));
        object.insert("stdout_bytes".into(), json!(stdout.total));
        object.insert("stderr_bytes".into(), json!(stderr.total));
        object.insert("truncated".into(), json!(truncated));
    }
    Ok(ToolOutput { text, value, truncated })
}

/// Reads up to `max` new bytes of `buffer` from `offset`: (text, skipped, next offset,
/// more pending).
fn read_new(buffer: &OutputBuffer, offset: u64, max: usize) -> (String, u64, u64, bool) {
    let mut data = Vec::new();
    let mut skipped = 0;
    let mut next = offset;
    loop {
        let chunk = buffer.read_from(next, max - data.len());
        skipped += chunk.skipped;
        next = chunk.next_offset;
        if chunk.data.is_empty() {
            break;
        }
        data.extend_from_slice(&chunk.data);
        if data.len() >= max {
            break;
        }
    }
    // Do not split a UTF-8 character across two calls.
    let mut keep = data.len();
    if let Err(err) = std::str::from_utf8(&data)
        && err.error_len().is_none()
    {
        keep = err.valid_up_to();
    }
    next -= (data.len() - keep) as u64;
    data.truncate(keep);
    let pending = buffer.total() > next;
    (String::from_utf8_lossy(&data).into_owned(), skipped, next, pending)
}

impl ToolHandler for TaskOutputTool {
    const NAME: &'static str = "task_output";
    const DESCRIPTION: &'static str = "Get the output a background task (started by `bash` with run_in_background) \
         produced since the previous task_output call for it, and whether it is still \
         running (with its exit code once it has ended). Output beyond the kept window is \
         reported as skipped bytes.";
    type Args = TaskArgs;

    fn handle<'a>(
        &'a self,
        call: Invocation<'a>,
        args: TaskArgs,
    ) -> BoxFuture<'a, Result<ToolOutput, ToolError>> {
        let ctx = call.ctx;
        Box::pin(task_output(&self.tasks, ctx, args))
    }
}

async fn task_output(
    tasks: &TaskTable,
    ctx: &ToolContext,
    args: TaskArgs,
) -> Result<ToolOutput, ToolError> {
    let task = tasks.get(&args.task_id)?;
    // Sample the status before the output, so "exited" implies all output is in.
    let status = task.process.try_wait();
    let max = stream_cap(ctx);
    let (out, err, out_skipped, err_skipped, pending) = {
        let mut offsets = task.offsets.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        let (out, out_skipped, out_next, out_pending) =
            read_new(task.process.stdout(), offsets.0, max);
        let (err, err_skipped, err_next, err_pending) =
            read_new(task.process.stderr(), offsets.1, max);
        *offsets = (out_next, err_next);
        (out, err, out_skipped, err_skipped, out_pending || err_pending)
    };
    let id = &args.task_id;
    let mut text = match &status {
        None => {
            format!("[{id} running for {} · {}]\n", seconds(task.started.elapsed()), task.command)
        }
        Some(status) => format!("[{id} {}]\n", describe_end(status)),
    };
    if out_skipped > 0 {
        let _ = writeln!(text, "[... {out_skipped} bytes of stdout dropped ...]");
    }
    text.push_str(&out);
    if !out.is_empty() && !out.ends_with('\n') {
        text.push('\n');
    }
    if !err.is_empty() || err_skipped > 0 {
        text.push_str("[stderr]\n");
        if err_skipped > 0 {
            let _ = writeln!(text, "[... {err_skipped} bytes of stderr dropped ...]");
        }
        text.push_str(&err);
        if !err.is_empty() && !err.ends_with('\n') {
            text.push('\n');
        }
    }
    if out.is_empty() && err.is_empty() {
        text.push_str("(no new output)\n");
    }
    if pending {
        text.push_str("(more output is pending: call task_output again)\n");
    }
    let mut value = match &status {
        Some(status) => status_value(status),
        None => json!({ "status": "running", "exit_code": null, "signal": null }),
    };
    if let Some(object) = value.as_object_mut() {
        object.insert("task_id".into(), json!(id));
        object.insert("description".into(), json!(task.description));
        object.insert("stdout".into(), json!(out));
        object.insert("stderr".into(), json!(err));
        object.insert("stdout_skipped".into(), json!(out_skipped));
        object.insert("stderr_skipped".into(), json!(err_skipped));
        object.insert("more_pending".into(), json!(pending));
    }
    let truncated = out_skipped > 0 || err_skipped > 0 || pending;
    Ok(ToolOutput { text, value, truncated })
}

impl ToolHandler for TaskKillTool {
    const NAME: &'static str = "task_kill";
    const DESCRIPTION: &'static str = "Stop a background task (started by `bash` with run_in_background): its whole \
         process group gets SIGTERM, then SIGKILL after a short grace. Returns how it ended. \
         Its remaining output can still be read with task_output.";
    type Args = TaskArgs;

    fn handle<'a>(
        &'a self,
        _call: Invocation<'a>,
        args: TaskArgs,
    ) -> BoxFuture<'a, Result<ToolOutput, ToolError>> {
        Box::pin(task_kill(&self.tasks, args))
    }
}

async fn task_kill(tasks: &TaskTable, args: TaskArgs) -> Result<ToolOutput, ToolError> {
    let task = tasks.get(&args.task_id)?;
    let id = &args.task_id;
    let (text, status, already) = match task.process.try_wait() {
        Some(status) => {
            // Still make sure nothing it left behind in its group survives.
            let _ = task.process.terminate().await;
            (format!("{id} had already ended ({})", describe_end(&status)), status, true)
        }
        None => {
            let status = task.process.terminate().await;
            (format!("Stopped {id}: {}", describe_end(&status)), status, false)
        }
    };
    let mut value = status_value(&status);
    if let Some(object) = value.as_object_mut() {
        object.insert("task_id".into(), json!(id));
        object.insert("already_ended".into(), json!(already));
    }
    Ok(ToolOutput { text, value, truncated: false })
}
