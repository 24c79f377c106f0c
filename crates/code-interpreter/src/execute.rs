//! `POST /execute`: one cell run in a context, streamed as it runs, one JSON object a
//! line, as E2B's server streams it (e2b-dev/code-interpreter `template/server/
//! messaging.py` `_process_message` and `api/models/*.py`; the SDKs read it in
//! `python/e2b_code_interpreter/models.py` `_parse_output`):
//!
//! - `{"type":"number_of_executions","execution_count":N}` once the kernel took it;
//! - `{"type":"stdout"|"stderr","text":…,"timestamp":…}` as the code prints;
//! - `{"type":"result", text?, html?, png?, …, "extra":{…}, "is_main_result":bool}` for
//!   each display and the cell's value;
//! - `{"type":"error","name":…,"value":…,"traceback":…}` (the first error only);
//! - `{"type":"keepalive"}` every 5 s while nothing else came. A client that went away
//!   (the response body dropped, or a write that fails) gets its kernel interrupted, as
//!   E2B's does since its #213;
//! - `{"type": "end_of_execution"}` last, always.
//!
//! One cell runs at a time per context: a second waits for the first.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use serde_json::{Map, Value, json};
use tokio::sync::mpsc;

use crate::language::{indent, indentation};
use crate::server::{Context, State};

/// How often a line is written when the kernel says nothing (E2B's
/// `KEEPALIVE_INTERVAL`: a client whose read deadline is shorter still sees it).
const KEEPALIVE: Duration = Duration::from_secs(5);
/// How long an interrupted cell whose client went away may take to stop.
const DRAIN_LIMIT: Duration = Duration::from_secs(30);
/// How long setting or clearing a cell's variables may take.
const QUIET_LIMIT: Duration = Duration::from_secs(30);
/// How long a Deno cell waits after `idle` for a value published late.
const DENO_LATE_VALUE: Duration = Duration::from_millis(50);
/// E2B's last line, spelled as its server writes it (`stream.py`).
const END: &str = "{\"type\": \"end_of_execution\"}\n";

/// A Jupyter mime bundle as E2B's `Result` (`api/models/result.py`): the known types
/// become fields, the rest stays in `extra`; a quoted `text/plain` loses its quotes.
pub fn result_line(is_main_result: bool, data: &Value) -> Value {
    let mut data = data.as_object().cloned().unwrap_or_default();
    let mut out = Map::new();
    out.insert("type".into(), json!("result"));
    if let Some(Value::String(text)) = data.remove("text/plain") {
        let quoted = (text.starts_with('\'') && text.ends_with('\''))
            || (text.starts_with('"') && text.ends_with('"'));
        let text =
            if quoted { text.get(1..text.len().saturating_sub(1)).unwrap_or("") } else { &text };
        if !text.is_empty() {
            out.insert("text".into(), json!(text));
        }
    }
    for (mime, field) in [
        ("text/html", "html"),
        ("text/markdown", "markdown"),
        ("image/svg+xml", "svg"),
        ("image/png", "png"),
        ("image/jpeg", "jpeg"),
        ("application/pdf", "pdf"),
        ("text/latex", "latex"),
        ("application/json", "json"),
        ("application/javascript", "javascript"),
        ("e2b/data", "data"),
        ("e2b/chart", "chart"),
    ] {
        if let Some(value) = data.remove(mime).filter(|v| !v.is_null()) {
            out.insert(field.into(), value);
        }
    }
    out.insert("extra".into(), Value::Object(data));
    out.insert("is_main_result".into(), json!(is_main_result));
    Value::Object(out)
}

fn error_line(name: &str, value: &str, traceback: &str) -> Value {
    json!({"type": "error", "name": name, "value": value, "traceback": traceback})
}

/// What one kernel message means for the cell `msg_id`.
enum Step {
    Line(Value),
    /// A line, then the end.
    LastLine(Value),
    End,
    Nothing,
}

#[derive(Default)]
struct Cell {
    input_accepted: bool,
    errored: bool,
}

impl Cell {
    fn on_message(&mut self, message: &Value, msg_id: &str) -> Step {
        let kind = message["msg_type"].as_str().unwrap_or_default();
        let content = &message["content"];
        if kind == "status" && content["execution_state"] == "restarting" {
            return Step::LastLine(error_line("ContextRestarting", "Context was restarted", ""));
        }
        if message["parent_header"]["msg_id"].as_str() != Some(msg_id) {
            return Step::Nothing;
        }
        let text = |v: &Value| v.as_str().unwrap_or_default().to_owned();
        match kind {
            "error" if !self.errored => {
                self.errored = true;
                Step::Line(error_line(
                    &text(&content["ename"]),
                    &text(&content["evalue"]),
                    &traceback(&content["traceback"]),
                ))
            }
            "stream" => {
                let stream = if content["name"] == "stderr" { "stderr" } else { "stdout" };
                Step::Line(json!({
                    "type": stream,
                    "text": text(&content["text"]),
                    "timestamp": message["header"]["date"],
                }))
            }
            "display_data" => Step::Line(result_line(false, &content["data"])),
            "execute_result" => Step::Line(result_line(true, &content["data"])),
            "execute_input" => {
                self.input_accepted = true;
                Step::Line(json!({
                    "type": "number_of_executions",
                    "execution_count": content["execution_count"],
                }))
            }
            "status" => match content["execution_state"].as_str() {
                Some("busy") => {
                    self.input_accepted = true;
                    Step::Nothing
                }
                Some("idle") if self.input_accepted => Step::End,
                _ => Step::Nothing,
            },
            "execute_reply" => match content["status"].as_str() {
                Some("error") if !self.errored => {
                    self.errored = true;
                    Step::Line(error_line(
                        &text(&content["ename"]),
                        &text(&content["evalue"]),
                        &traceback(&content["traceback"]),
                    ))
                }
                Some("abort" | "aborted") => {
                    Step::LastLine(error_line("ExecutionAborted", "Execution was aborted", ""))
                }
                _ => Step::Nothing,
            },
            _ => Step::Nothing,
        }
    }
}

/// A traceback's lines joined as E2B joins them (`"".join(traceback)`).
fn traceback(lines: &Value) -> String {
    lines.as_array().map(|l| l.iter().filter_map(Value::as_str).collect()).unwrap_or_default()
}

fn line(value: &Value) -> Bytes {
    let mut text = value.to_string();
    text.push('\n');
    Bytes::from(text)
}

/// The cell's code with its variables set first (E2B: `execute`, the env vars snippet
/// indented like the code's first line).
fn with_variables(context: &Context, code: &str, env_vars: &BTreeMap<String, String>) -> String {
    if env_vars.is_empty() {
        return code.to_owned();
    }
    let snippet: Vec<String> =
        env_vars.iter().map(|(k, v)| context.language.set_env(k, v)).collect();
    format!("{}\n{code}", indent(&snippet.join("\n"), indentation(code)))
}

/// What puts the variables a cell set back as they were: the server's own value, or
/// none (E2B: `_reset_env_vars_code`).
fn restore_variables(
    context: &Context,
    env_vars: &BTreeMap<String, String>,
    globals: &BTreeMap<String, String>,
) -> String {
    env_vars
        .keys()
        .map(|k| match globals.get(k) {
            Some(value) => context.language.set_env(k, value),
            None => context.language.unset_env(k),
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// Runs `code` in `context`, writing its lines to `out` (the response body) and the end
/// line last.
pub async fn run(
    state: Arc<State>,
    context: Arc<Context>,
    code: String,
    env_vars: BTreeMap<String, String>,
    out: mpsc::Sender<Bytes>,
) {
    // Told at once when the response body is dropped (the client went away).
    let watch = out.clone();
    let mut client = Some(out);
    let mut channels = context.channels.lock().await;
    let Some(open) = channels.as_mut() else {
        send(&mut client, &error_line("ContextRestarting", "Context was restarted", "")).await;
        finish(&mut client).await;
        return;
    };
    let full = with_variables(&context, &code, &env_vars);
    let msg_id = match open.execute(&full, false).await {
        Ok(id) => id,
        Err(e) => {
            let failure = error_line(
                "WebSocketError",
                &format!("Failed to send execution request: {e:#}"),
                "",
            );
            send(&mut client, &failure).await;
            finish(&mut client).await;
            return;
        }
    };
    let mut cell = Cell::default();
    let mut keepalive =
        tokio::time::interval_at(tokio::time::Instant::now() + KEEPALIVE, KEEPALIVE);
    let mut drain_deadline = None;
    // Deno's kernel may publish a cell's value after its `idle` (the value goes through
    // another task of its own): its cells end a moment after `idle`.
    let mut ending: Option<tokio::time::Instant> = None;
    loop {
        let message = tokio::select! {
            () = sleep_until(ending), if ending.is_some() => break,
            message = open.next() => message,
            () = watch.closed(), if client.is_some() => {
                client = None;
                interrupt(&state, &context, &mut drain_deadline).await;
                continue;
            }
            () = context.restarting.notified() => {
                send(&mut client, &error_line("ContextRestarting", "Context was restarted", "")).await;
                break;
            }
            _ = keepalive.tick() => {
                if let Some(deadline) = drain_deadline
                    && tokio::time::Instant::now() > deadline
                {
                    tracing::warn!(context = %context.id, "an interrupted cell did not stop");
                    break;
                }
                if !send(&mut client, &json!({"type": "keepalive"})).await {
                    interrupt(&state, &context, &mut drain_deadline).await;
                }
                continue;
            }
        };
        let Some(message) = message else {
            send(
                &mut client,
                &error_line(
                    "UnexpectedEndOfExecution",
                    "Connection to the execution was closed before the execution was finished",
                    "",
                ),
            )
            .await;
            break;
        };
        tracing::debug!(
            context = %context.id,
            kind = message["msg_type"].as_str().unwrap_or_default(),
            mine = message["parent_header"]["msg_id"].as_str() == Some(msg_id.as_str()),
            state = message["content"]["execution_state"].as_str().unwrap_or_default(),
            "kernel message"
        );
        let last = match cell.on_message(&message, &msg_id) {
            Step::Nothing => continue,
            Step::End if context.language.kernel() == "deno" => {
                ending = Some(tokio::time::Instant::now() + DENO_LATE_VALUE);
                continue;
            }
            Step::End => break,
            Step::Line(value) => {
                keepalive.reset();
                if !send(&mut client, &value).await {
                    interrupt(&state, &context, &mut drain_deadline).await;
                }
                continue;
            }
            Step::LastLine(value) => value,
        };
        send(&mut client, &last).await;
        break;
    }
    finish(&mut client).await;
    if !env_vars.is_empty() {
        let restore = restore_variables(&context, &env_vars, &state.globals);
        if let Err(e) = open.run_quietly(&restore, QUIET_LIMIT).await {
            tracing::warn!(context = %context.id, error = format!("{e:#}"), "restoring a cell's variables");
        }
    }
}

async fn sleep_until(deadline: Option<tokio::time::Instant>) {
    match deadline {
        Some(deadline) => tokio::time::sleep_until(deadline).await,
        None => std::future::pending().await,
    }
}

/// Writes one line; `false` once the client is gone (then nothing more is written).
async fn send(client: &mut Option<mpsc::Sender<Bytes>>, value: &Value) -> bool {
    let Some(out) = client else { return false };
    if out.send(line(value)).await.is_ok() {
        return true;
    }
    *client = None;
    false
}

async fn finish(client: &mut Option<mpsc::Sender<Bytes>>) {
    if let Some(out) = client.take() {
        let _ = out.send(Bytes::from_static(END.as_bytes())).await;
    }
}

/// The client went away mid-cell: the kernel is interrupted (once) so that the next
/// cell does not wait behind this one.
async fn interrupt(
    state: &State,
    context: &Context,
    drain_deadline: &mut Option<tokio::time::Instant>,
) {
    if drain_deadline.is_some() {
        return;
    }
    *drain_deadline = Some(tokio::time::Instant::now() + DRAIN_LIMIT);
    tracing::info!(context = %context.id, "the client went away: interrupting the kernel");
    if let Err(e) = state.jupyter.interrupt(&context.id).await {
        tracing::warn!(context = %context.id, error = format!("{e:#}"), "interrupting the kernel");
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn results_take_e2b_fields_and_keep_the_rest() {
        let data = json!({
            "text/plain": "'hello'",
            "image/png": "iVBOR",
            "application/vnd.custom": 1,
        });
        assert_eq!(
            result_line(true, &data),
            json!({
                "type": "result", "text": "hello", "png": "iVBOR",
                "extra": {"application/vnd.custom": 1}, "is_main_result": true,
            })
        );
        assert_eq!(
            result_line(false, &json!({"text/plain": "2"})),
            json!({"type": "result", "text": "2", "extra": {}, "is_main_result": false})
        );
    }

    #[test]
    fn a_cell_ends_on_idle_after_its_input_and_keeps_only_its_first_error() {
        let mut cell = Cell::default();
        let msg = |kind: &str, parent: &str, content: Value| json!({"msg_type": kind, "parent_header": {"msg_id": parent}, "header": {"date": "d"}, "content": content});
        assert!(matches!(
            cell.on_message(&msg("status", "m", json!({"execution_state": "idle"})), "m"),
            Step::Nothing
        ));
        assert!(matches!(
            cell.on_message(&msg("stream", "other", json!({"name": "stdout", "text": "x"})), "m"),
            Step::Nothing
        ));
        let Step::Line(input) =
            cell.on_message(&msg("execute_input", "m", json!({"execution_count": 3})), "m")
        else {
            panic!("no line for execute_input")
        };
        assert_eq!(input, json!({"type": "number_of_executions", "execution_count": 3}));
        let Step::Line(out) =
            cell.on_message(&msg("stream", "m", json!({"name": "stderr", "text": "e\n"})), "m")
        else {
            panic!("no line for stream")
        };
        assert_eq!(out, json!({"type": "stderr", "text": "e\n", "timestamp": "d"}));
        let error = json!({"ename": "ValueError", "evalue": "bad", "traceback": ["a\n", "b"]});
        let Step::Line(first) = cell.on_message(&msg("error", "m", error.clone()), "m") else {
            panic!("no line for error")
        };
        assert_eq!(first["traceback"], "a\nb");
        let mut reply = error;
        reply["status"] = json!("error");
        assert!(matches!(cell.on_message(&msg("execute_reply", "m", reply), "m"), Step::Nothing));
        assert!(matches!(
            cell.on_message(&msg("status", "m", json!({"execution_state": "idle"})), "m"),
            Step::End
        ));
    }
}
