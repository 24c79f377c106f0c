//! `terminal_open`, `terminal_send`, `terminal_read`, `terminal_signal`,
//! `terminal_close`, `terminal_list`: persistent shells in the sandbox, one owner (agent)
//! per session. The engine keeps buffers and readiness on the host.

use std::sync::Arc;
use std::time::Duration;

use dsh_core::{BoxFuture, Signal};
use dsh_pty::engine::{EngineError, TerminalEngine};
use dsh_pty::session::{SessionError, WaitReason};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};

use crate::{Invocation, ToolError, ToolHandler, ToolOutput, ToolRegistry};

/// Default and maximum time a send waits for the prompt.
const SEND_TIMEOUT: Duration = Duration::from_secs(30);
const SEND_TIMEOUT_MAX: Duration = Duration::from_secs(600);

/// Registers the six terminal tools for `owner` (an agent, an MCP session).
pub fn register_terminal_tools(
    registry: &mut ToolRegistry,
    engine: Arc<TerminalEngine>,
    owner: &str,
) {
    let terminal = Terminal { engine, owner: owner.to_owned() };
    registry.register(TerminalOpen(terminal.clone()));
    registry.register(TerminalSend(terminal.clone()));
    registry.register(TerminalRead(terminal.clone()));
    registry.register(TerminalSignal(terminal.clone()));
    registry.register(TerminalClose(terminal.clone()));
    registry.register(TerminalList(terminal));
}

/// The six tools' listings (for the catalogue).
pub(crate) fn specs() -> [crate::ToolSpec; 6] {
    [
        crate::spec::<TerminalOpen>(),
        crate::spec::<TerminalSend>(),
        crate::spec::<TerminalRead>(),
        crate::spec::<TerminalSignal>(),
        crate::spec::<TerminalClose>(),
        crate::spec::<TerminalList>(),
    ]
}

#[derive(Clone)]
struct Terminal {
    engine: Arc<TerminalEngine>,
    owner: String,
}

fn engine_error(tool: &str, err: EngineError) -> ToolError {
    match err {
        EngineError::UnknownSession(id) => ToolError::invalid(
            tool,
            "sessionId",
            format!("no terminal session {id} for this agent (see terminal_list)"),
        ),
        EngineError::ShellKillRefused => ToolError::invalid(
            tool,
            "signal",
            "SIGKILL would kill the session's shell itself: use terminal_close",
        ),
        EngineError::Session(SessionError::Busy(id)) => ToolError::Failed(format!(
            "session {id} is busy with another send; wait for it or use terminal_read"
        )),
        EngineError::Session(SessionError::Exited(id)) => {
            ToolError::Failed(format!("session {id} has exited; open a new one with terminal_open"))
        }
        other => ToolError::Unavailable(other.to_string()),
    }
}

fn reason_name(reason: WaitReason) -> &'static str {
    match reason {
        WaitReason::StdinRead => "stdin_read",
        WaitReason::InferredIdle => "inferred_idle",
        WaitReason::Timeout => "timeout",
        WaitReason::SessionExit => "session_exit",
    }
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct OpenArgs {
    /// The kind of terminal; only `shell` (bash) exists.
    #[serde(rename = "type", default)]
    kind: Option<String>,
    /// A label for the session, shown by terminal_list.
    #[serde(default)]
    name: Option<String>,
    /// Starting directory (default: the workspace).
    #[serde(default)]
    cwd: Option<String>,
}

struct TerminalOpen(Terminal);

impl ToolHandler for TerminalOpen {
    const NAME: &'static str = "terminal_open";
    const DESCRIPTION: &'static str = "Open a persistent interactive shell (bash) in the sandbox, for REPLs, debuggers, long \
         builds and anything that needs a real terminal. Returns a `sessionId` (pty-N) to use with \
         terminal_send/read/signal/close, and the first screen. Sessions belong to you alone and \
         survive between calls; close them when done.";
    type Args = OpenArgs;

    fn handle<'a>(
        &'a self,
        call: Invocation<'a>,
        args: OpenArgs,
    ) -> BoxFuture<'a, Result<ToolOutput, ToolError>> {
        let ctx = call.ctx;
        Box::pin(async move {
            if let Some(kind) = args.kind.as_deref().filter(|k| *k != "shell") {
                return Err(ToolError::invalid(
                    Self::NAME,
                    "type",
                    format!("unknown terminal type {kind:?}; use \"shell\""),
                ));
            }
            let cwd = match &args.cwd {
                Some(cwd) => Some(ctx.resolve(Self::NAME, "cwd", cwd).await?),
                None => None,
            };
            let opened = self
                .0
                .engine
                .open(&self.0.owner, args.name, cwd)
                .await
                .map_err(|e| engine_error(Self::NAME, e))?;
            let status = if opened.running { "running" } else { "exited" };
            Ok(ToolOutput {
                text: format!("opened {} ({status})\n{}", opened.session_id, opened.motd),
                value: json!({"sessionId": opened.session_id, "status": status, "motd": opened.motd}),
                truncated: false,
            })
        })
    }
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct SendArgs {
    /// The session (pty-N).
    #[serde(rename = "sessionId")]
    session_id: String,
    /// What to type.
    text: String,
    /// Press Enter after the text (default true). Use false for keys such as `q` in a pager.
    #[serde(default)]
    submit: Option<bool>,
    /// How long to wait for the prompt, in milliseconds (default 30000, max 600000).
    #[serde(rename = "timeoutMs", default)]
    timeout_ms: Option<u64>,
}

struct TerminalSend(Terminal);

impl ToolHandler for TerminalSend {
    const NAME: &'static str = "terminal_send";
    const DESCRIPTION: &'static str = "Type text into a terminal session (Enter appended unless submit=false) and wait until the \
         shell prompt is back (`waitReason: stdin_read`), output went quiet without a prompt \
         (`inferred_idle`, e.g. a REPL or pager waiting for input), time ran out (`timeout`: the \
         command keeps running; read later or interrupt with terminal_signal), or the shell exited \
         (`session_exit`). Returns the current screen (`viewport`) and the text the send produced.";
    type Args = SendArgs;

    fn handle<'a>(
        &'a self,
        _call: Invocation<'a>,
        args: SendArgs,
    ) -> BoxFuture<'a, Result<ToolOutput, ToolError>> {
        Box::pin(async move {
            let timeout =
                args.timeout_ms.map_or(SEND_TIMEOUT, Duration::from_millis).min(SEND_TIMEOUT_MAX);
            let sent = self
                .0
                .engine
                .send(
                    &self.0.owner,
                    &args.session_id,
                    &args.text,
                    args.submit.unwrap_or(true),
                    timeout,
                )
                .await
                .map_err(|e| engine_error(Self::NAME, e))?;
            let status = if sent.running { "running" } else { "exited" };
            let reason = reason_name(sent.wait_reason);
            Ok(ToolOutput {
                text: format!("[{reason}; session {status}]\n{}", sent.viewport),
                value: json!({
                    "viewport": sent.viewport,
                    "waitReason": reason,
                    "sessionStatus": status,
                    "output": sent.output,
                    "lastExitStatus": sent.last_status,
                    "truncated": sent.truncated,
                }),
                truncated: sent.truncated,
            })
        })
    }
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct ReadArgs {
    #[serde(rename = "sessionId")]
    session_id: String,
    /// Lines back from the newest line where the window ends (default 0: the newest).
    #[serde(default)]
    offset: Option<u64>,
    /// How many lines (default 500).
    #[serde(default)]
    count: Option<u64>,
}

struct TerminalRead(Terminal);

impl ToolHandler for TerminalRead {
    const NAME: &'static str = "terminal_read";
    const DESCRIPTION: &'static str = "Read a session's transcript (plain text, control sequences removed): `count` lines ending \
         `offset` lines before the newest. Line numbers (`lineBegin`, `lineEnd`) count from the \
         session's start and stay valid as old lines are dropped; `truncated` says older lines exist.";
    type Args = ReadArgs;

    fn handle<'a>(
        &'a self,
        _call: Invocation<'a>,
        args: ReadArgs,
    ) -> BoxFuture<'a, Result<ToolOutput, ToolError>> {
        Box::pin(async move {
            let window = self
                .0
                .engine
                .read(
                    &self.0.owner,
                    &args.session_id,
                    args.offset.unwrap_or(0),
                    args.count.unwrap_or(500),
                )
                .map_err(|e| engine_error(Self::NAME, e))?;
            Ok(ToolOutput {
                text: window.text.clone(),
                value: json!({
                    "text": window.text,
                    "totalLines": window.total_lines,
                    "lineBegin": window.line_begin,
                    "lineEnd": window.line_end,
                    "truncated": window.truncated,
                }),
                truncated: window.truncated,
            })
        })
    }
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct SignalArgs {
    #[serde(rename = "sessionId")]
    session_id: String,
    /// One of SIGINT, SIGTERM, SIGKILL, SIGTSTP, SIGHUP.
    signal: String,
}

struct TerminalSignal(Terminal);

impl ToolHandler for TerminalSignal {
    const NAME: &'static str = "terminal_signal";
    const DESCRIPTION: &'static str = "Send a signal to the job in the foreground of a terminal (like pressing Ctrl-C for SIGINT, \
         Ctrl-Z for SIGTSTP). Returns `delivered`, the process group hit (`targetPgid`) and whether the shell's \
         prompt came back within a second (`promptReturned`). SIGKILL aimed at the shell itself \
         is refused: use terminal_close.";
    type Args = SignalArgs;

    fn handle<'a>(
        &'a self,
        _call: Invocation<'a>,
        args: SignalArgs,
    ) -> BoxFuture<'a, Result<ToolOutput, ToolError>> {
        Box::pin(async move {
            let signal = match args.signal.to_ascii_uppercase().trim_start_matches("SIG") {
                "INT" => Signal::Int,
                "TERM" => Signal::Term,
                "KILL" => Signal::Kill,
                "TSTP" => Signal::Tstp,
                "HUP" => Signal::Hup,
                other => {
                    return Err(ToolError::invalid(
                        Self::NAME,
                        "signal",
                        format!(
                            "unknown signal SIG{other}; use SIGINT, SIGTERM, SIGKILL, SIGTSTP or SIGHUP"
                        ),
                    ));
                }
            };
            let signalled = self
                .0
                .engine
                .signal(&self.0.owner, &args.session_id, signal)
                .await
                .map_err(|e| engine_error(Self::NAME, e))?;
            let after = if signalled.prompt_returned {
                "; the prompt is back"
            } else {
                "; no prompt yet (the job may still be running: terminal_read to see)"
            };
            Ok(ToolOutput {
                text: format!(
                    "{} delivered to process group {}{after}",
                    signal.name(),
                    signalled.target_pgid
                ),
                value: json!({
                    "delivered": signalled.delivered,
                    "targetPgid": signalled.target_pgid,
                    "promptReturned": signalled.prompt_returned,
                }),
                truncated: false,
            })
        })
    }
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct SessionArgs {
    #[serde(rename = "sessionId")]
    session_id: String,
}

struct TerminalClose(Terminal);

impl ToolHandler for TerminalClose {
    const NAME: &'static str = "terminal_close";
    const DESCRIPTION: &'static str = "Close a terminal session: SIGTERM and SIGHUP to its processes, a grace period, then SIGKILL. \
         Returns how the shell ended.";
    type Args = SessionArgs;

    fn handle<'a>(
        &'a self,
        _call: Invocation<'a>,
        args: SessionArgs,
    ) -> BoxFuture<'a, Result<ToolOutput, ToolError>> {
        Box::pin(async move {
            let status = self
                .0
                .engine
                .close(&self.0.owner, &args.session_id)
                .await
                .map_err(|e| engine_error(Self::NAME, e))?;
            let how = dsh_pty::engine::describe_exit(&status);
            Ok(ToolOutput {
                text: format!("closed {} ({how})", args.session_id),
                value: json!({"sessionId": args.session_id, "status": "closed", "exitCode": status.code, "signal": status.signal}),
                truncated: false,
            })
        })
    }
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct NoArgs {}

struct TerminalList(Terminal);

impl ToolHandler for TerminalList {
    const NAME: &'static str = "terminal_list";
    const DESCRIPTION: &'static str =
        "List your terminal sessions (other agents' sessions are not shown).";
    type Args = NoArgs;

    fn handle<'a>(
        &'a self,
        _call: Invocation<'a>,
        _args: NoArgs,
    ) -> BoxFuture<'a, Result<ToolOutput, ToolError>> {
        Box::pin(async move {
            let sessions = self.0.engine.list(&self.0.owner);
            let text = if sessions.is_empty() {
                "no terminal sessions".to_owned()
            } else {
                sessions
                    .iter()
                    .map(|s| {
                        format!(
                            "{} {} {}",
                            s.session_id,
                            if s.running { "running" } else { "exited" },
                            s.name.clone().unwrap_or_default()
                        )
                        .trim_end()
                        .to_owned()
                    })
                    .collect::<Vec<_>>()
                    .join("\n")
            };
            let value = sessions
                .iter()
                .map(|s| json!({"sessionId": s.session_id, "name": s.name, "status": if s.running { "running" } else { "exited" }}))
                .collect::<Vec<_>>();
            Ok(ToolOutput { text, value: Value::Array(value), truncated: false })
        })
    }
}
