//! `run_code`: a model-written TypeScript/JavaScript program runs in a fresh worker in
//! the sandbox; every tool it calls is dispatched here, on the host, through this same
//! registry (so the same checks apply), `run_code` itself excepted.

use std::sync::Arc;
use std::time::Duration;

use dsh_code::{CodeEngine, Limits, RunRequest, ToolCallFailure, ToolDispatcher, ToolInfo};
use dsh_core::{BoxFuture, Progress};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};

use crate::{Invocation, ToolError, ToolHandler, ToolOutput, ToolRegistry};

/// Registers `run_code`: its programs call the other tools of the registry they run
/// through.
pub fn register_run_code_tool(registry: &mut ToolRegistry, engine: Arc<CodeEngine>) {
    registry.register(RunCodeTool { engine });
}

pub(crate) struct RunCodeTool {
    engine: Arc<CodeEngine>,
}

/// The registry as the program's `tools` (held for the run only), and the progress sink
/// of the `run_code` call, so a slow tool a program calls is reported like a direct call.
struct Dispatcher(ToolRegistry, Option<Progress>);

impl ToolDispatcher for Dispatcher {
    fn tools(&self) -> Vec<ToolInfo> {
        self.0
            .list()
            .into_iter()
            .filter(|spec| spec.name != RunCodeTool::NAME)
            .map(|spec| ToolInfo {
                name: spec.name.to_owned(),
                description: spec.description.to_owned(),
            })
            .collect()
    }

    fn call<'a>(
        &'a self,
        name: &'a str,
        args: Value,
    ) -> BoxFuture<'a, Result<Value, ToolCallFailure>> {
        Box::pin(async move {
            let failure = |message: String| ToolCallFailure { tool_name: name.to_owned(), message };
            if name == RunCodeTool::NAME {
                return Err(failure("run_code cannot be called from a program".into()));
            }
            self.0
                .call_with_progress(name, args, self.1.as_ref())
                .await
                .map(|output| output.value)
                .map_err(|err| failure(err.to_string()))
        })
    }
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct RunCodeArgs {
    /// TypeScript or JavaScript: the body of an async function (top-level `await` and
    /// `return` work). Every other tool is `await tools.<name>({...})`.
    code: String,
    /// A few words on what the program does.
    #[serde(default)]
    description: Option<String>,
    /// Wall-clock and busy-compute budget in milliseconds (default 600000 wall, 60000 compute).
    #[serde(rename = "timeoutMs", default)]
    timeout_ms: Option<u64>,
    /// Budget for logs plus the returned value, in bytes (default 65536).
    #[serde(rename = "maxOutputBytes", default)]
    max_output_bytes: Option<usize>,
}

impl ToolHandler for RunCodeTool {
    const NAME: &'static str = "run_code";
    const DESCRIPTION: &'static str = "Run a TypeScript/JavaScript program in the sandbox that calls the other tools as async \
         functions (`await tools.read({file_path})`, `await tools.bash({command, description})`, \
         ...), up to 10 at once, so many steps take one turn and only what the program returns or \
         logs reaches you. The code is the body of an async function: use top-level await and \
         `return` a value. A failing tool throws ToolCallError (with toolName). Values cross \
         losslessly (undefined, NaN, -0, BigInt...). Budgets: wall time, compute, heap, output \
         (logs + result). Errors come back typed: exception, timeout, abort, worker-exit, \
         invalid-output, output-limit.";
    type Args = RunCodeArgs;

    fn handle<'a>(
        &'a self,
        call: Invocation<'a>,
        args: RunCodeArgs,
    ) -> BoxFuture<'a, Result<ToolOutput, ToolError>> {
        Box::pin(async move {
            let _ = args.description;
            let mut limits = Limits::default();
            if let Some(ms) = args.timeout_ms {
                limits.wall = Duration::from_millis(ms);
                limits.cpu = limits.cpu.min(limits.wall);
            }
            if let Some(bytes) = args.max_output_bytes {
                limits.max_output_bytes = bytes;
            }
            let outcome = self
                .engine
                .run(
                    RunRequest::new(args.code).with_limits(limits),
                    Arc::new(Dispatcher(call.registry.clone(), call.progress.cloned())),
                )
                .await
                .map_err(|err| ToolError::Unavailable(err.to_string()))?;
            let mut text = outcome.logs.join("\n");
            if let Some(result) = &outcome.result {
                text.push_str(&format!("\n[result] {result}"));
            }
            if let Some(error) = &outcome.error {
                text.push_str(&format!("\n[{}] {}", error.kind, error.message));
            }
            let value = json!({
                "logs": outcome.logs,
                "result": outcome.result,
                "error": outcome.error,
            });
            Ok(ToolOutput { text: text.trim_start().to_owned(), value, truncated: false })
        })
    }
}
