//! `run_code`: a model-written TypeScript/JavaScript program runs in a fresh worker in
//! the sandbox; every tool it calls is dispatched here, on the host, through this same
//! registry (so the same checks apply), `run_code` itself excepted.

use std::sync::{Arc, OnceLock, Weak};
use std::time::Duration;

use dsh_code::{CodeEngine, Limits, RunRequest, ToolCallFailure, ToolDispatcher, ToolInfo};
use dsh_core::BoxFuture;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};

use crate::{Tool, ToolContext, ToolError, ToolOutput, ToolRegistry, parse_args, schema_of};

/// Ties `run_code` to the registry it is in (set once the registry is shared).
#[derive(Default)]
pub struct RegistryBinding(OnceLock<Weak<ToolRegistry>>);

impl RegistryBinding {
    pub fn bind(&self, registry: &Arc<ToolRegistry>) {
        let _ = self.0.set(Arc::downgrade(registry));
    }
}

/// Registers `run_code`; call [`RegistryBinding::bind`] with the finished registry.
pub fn register_run_code_tool(
    registry: &mut ToolRegistry,
    engine: Arc<CodeEngine>,
) -> Arc<RegistryBinding> {
    let binding = Arc::new(RegistryBinding::default());
    registry.register(Arc::new(RunCodeTool { engine, binding: Arc::clone(&binding) }));
    binding
}

struct RunCodeTool {
    engine: Arc<CodeEngine>,
    binding: Arc<RegistryBinding>,
}

/// The registry as the program's `tools`.
struct Dispatcher(Weak<ToolRegistry>);

impl ToolDispatcher for Dispatcher {
    fn tools(&self) -> Vec<ToolInfo> {
        let Some(registry) = self.0.upgrade() else { return Vec::new() };
        registry
            .list()
            .into_iter()
            .filter(|spec| spec.name != "run_code")
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
            if name == "run_code" {
                return Err(failure("run_code cannot be called from a program".into()));
            }
            let registry =
                self.0.upgrade().ok_or_else(|| failure("the tool registry is gone".into()))?;
            registry
                .call(name, args)
                .await
                .map(|output| output.value)
                .map_err(|err| failure(err.to_string()))
        })
    }
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct RunCodeArgs {
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

impl Tool for RunCodeTool {
    fn name(&self) -> &'static str {
        "run_code"
    }
    fn description(&self) -> &'static str {
        "Run a TypeScript/JavaScript program in the sandbox that calls the other tools as async \
         functions (`await tools.read({file_path})`, `await tools.bash({command, description})`, \
         ...), up to 10 at once, so many steps take one turn and only what the program returns or \
         logs reaches you. The code is the body of an async function: use top-level await and \
         `return` a value. A failing tool throws ToolCallError (with toolName). Values cross \
         losslessly (undefined, NaN, -0, BigInt...). Budgets: wall time, compute, heap, output \
         (logs + result). Errors come back typed: exception, timeout, abort, worker-exit, \
         invalid-output, output-limit."
    }
    fn input_schema(&self) -> Value {
        schema_of::<RunCodeArgs>()
    }
    fn call<'a>(
        &'a self,
        _ctx: &'a ToolContext,
        args: Value,
    ) -> BoxFuture<'a, Result<ToolOutput, ToolError>> {
        Box::pin(async move {
            let args: RunCodeArgs = parse_args("run_code", args)?;
            let _ = args.description;
            let registry = self.binding.0.get().cloned().ok_or_else(|| {
                ToolError::Unavailable("run_code is not bound to a registry".into())
            })?;
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
                .run(RunRequest::new(args.code).with_limits(limits), Arc::new(Dispatcher(registry)))
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
