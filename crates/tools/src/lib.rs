//! The model-facing tools: `read`, `write`, `edit`, `glob`, `grep`, `bash`, `task_output`
//! and `task_kill`, plus the terminal, `lsp` and `run_code` tools (each tool's
//! description is its model-facing contract).
//!
//! Every tool reaches the sandbox only through the `dsh-core` seams ([`Fs`] and
//! [`Subprocess`]), so the same code runs on the local backend and on an E2B (or local
//! dsh-envd) sandbox. Searches (`glob`, `grep`) run *inside* the sandbox (`find`, GNU
//! `grep`); nothing is copied out to search it.
//!
//! A [`ToolRegistry`] owns one [`ToolContext`] (the session's backend, workspace cwd,
//! environment and limits, plus the versions of files read through it) and the table of
//! background tasks started by `bash`. Call [`ToolRegistry::dispose`] before the sandbox
//! is disposed: it terminates every background process group and awaits it.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use dsh_core::{BoxFuture, Fs, FsError, ProcessError, Progress, Subprocess, Version};
use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde_json::Value;

pub mod code;
mod error;
mod files;
pub mod lsp;
mod search;
mod shell;
pub mod terminal;
mod text;

pub use error::ToolError;
pub use files::{EditTool, ReadTool, WriteTool};
pub use search::{GlobTool, GrepTool};
pub use shell::{BashTool, TaskKillTool, TaskOutputTool, TaskTable};

/// Bounds every tool respects.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Limits {
    /// The most text one result may carry (bytes); larger results are cut and say so.
    pub result_cap: usize,
    /// Files larger than this are refused by `read` and `edit`.
    pub read_max_bytes: u64,
    /// Lines `read` returns when `limit` is not given.
    pub read_default_lines: usize,
    /// Longest line `read` and `grep` show whole (characters); longer ones are cut.
    pub max_line_chars: usize,
    /// Paths `glob` (and files `grep`) return at most.
    pub max_results: usize,
    /// `bash` timeout when `timeoutMs` is not given.
    pub bash_default_timeout: Duration,
    /// The largest `timeoutMs` accepted.
    pub bash_max_timeout: Duration,
    /// How long a `glob`/`grep` search may run before it is killed.
    pub search_timeout: Duration,
}

impl Default for Limits {
    fn default() -> Self {
        Self {
            result_cap: 256 * 1024,
            read_max_bytes: 16 * 1024 * 1024,
            read_default_lines: 2000,
            max_line_chars: 2000,
            max_results: 1000,
            bash_default_timeout: Duration::from_secs(120),
            bash_max_timeout: Duration::from_secs(600),
            search_timeout: Duration::from_secs(60),
        }
    }
}

/// Everything a tool call needs: the backend seams, the session workspace, the base
/// environment for commands, the limits, and the versions of files read in this context.
pub struct ToolContext {
    pub fs: Arc<dyn Fs>,
    pub subprocess: Arc<dyn Subprocess>,
    /// The session workspace (an absolute sandbox path): relative paths resolve against it
    /// and commands run in it by default.
    pub cwd: PathBuf,
    /// The whole base environment for commands (already stripped of secrets, see
    /// [`dsh_core::child_env`]).
    pub env: BTreeMap<String, String>,
    pub limits: Limits,
    /// Resolved path → the version last read or written through this context.
    versions: Mutex<HashMap<PathBuf, Version>>,
}

impl ToolContext {
    /// A context with [`Limits::default`].
    pub fn new(
        fs: Arc<dyn Fs>,
        subprocess: Arc<dyn Subprocess>,
        cwd: impl Into<PathBuf>,
        env: BTreeMap<String, String>,
    ) -> Self {
        Self {
            fs,
            subprocess,
            cwd: cwd.into(),
            env,
            limits: Limits::default(),
            versions: Mutex::new(HashMap::new()),
        }
    }

    /// The same context with other limits.
    pub fn with_limits(mut self, limits: Limits) -> Self {
        self.limits = limits;
        self
    }

    /// The version of `path` (resolved) last read or written through this context.
    pub fn known_version(&self, path: &Path) -> Option<Version> {
        self.versions_lock().get(path).cloned()
    }

    /// Records the version of `path` (resolved) the model has now seen.
    pub fn remember_version(&self, path: &Path, version: Version) {
        self.versions_lock().insert(path.to_path_buf(), version);
    }

    fn versions_lock(&self) -> std::sync::MutexGuard<'_, HashMap<PathBuf, Version>> {
        self.versions.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Resolves a model-supplied path (relative → against [`Self::cwd`]) to its absolute
    /// sandbox identity. `field` names the argument for the error.
    pub async fn resolve(&self, tool: &str, field: &str, path: &str) -> Result<PathBuf, ToolError> {
        if path.is_empty() {
            return Err(ToolError::invalid(tool, field, "must not be empty"));
        }
        if path.contains('\0') {
            return Err(ToolError::invalid(tool, field, "must not contain NUL bytes"));
        }
        self.fs.resolve(Path::new(path), &self.cwd).await.map_err(ToolError::from)
    }
}

impl std::fmt::Debug for ToolContext {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ToolContext")
            .field("cwd", &self.cwd)
            .field("limits", &self.limits)
            .finish_non_exhaustive()
    }
}

/// A tool's answer: text for the model plus a structured value.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolOutput {
    /// What the model reads.
    pub text: String,
    /// The same result as structured data (for programs and clients).
    pub value: Value,
    /// Whether anything was cut to respect a cap (the text says where).
    pub truncated: bool,
}

/// A tool's description, as listed to a model.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolSpec {
    pub name: &'static str,
    pub description: &'static str,
    /// JSON Schema of the arguments object.
    pub input_schema: Value,
}

/// A model-facing tool: its name, description and typed arguments are constants of the
/// type, so the catalogue lists tools without an instance (no sandbox needed), and the
/// registry parses and checks arguments before [`ToolHandler::handle`] sees them.
pub trait ToolHandler: Send + Sync + 'static {
    const NAME: &'static str;
    /// Model-facing description: what the tool does and how to use it well.
    const DESCRIPTION: &'static str;
    /// The arguments object (unknown fields refused; its JSON Schema is derived).
    type Args: DeserializeOwned + JsonSchema + Send;
    /// Runs the tool. Failures are [`ToolError`]s, never a panic.
    fn handle<'a>(
        &'a self,
        call: Invocation<'a>,
        args: Self::Args,
    ) -> BoxFuture<'a, Result<ToolOutput, ToolError>>;
}

/// One call of a tool: the session's context and the registry the call came through, so
/// a tool that runs other tools (`run_code`) dispatches them with the same checks, and
/// where the caller wants to hear about a slow wait (a language server installing).
#[derive(Clone, Copy)]
pub struct Invocation<'a> {
    pub ctx: &'a ToolContext,
    pub registry: &'a ToolRegistry,
    /// Lines for whoever waits on this call (an MCP client's progress, the CLI's status
    /// line); `None`: nobody listens.
    pub progress: Option<&'a Progress>,
}

/// The listing of tool `T`.
pub fn spec<T: ToolHandler>() -> ToolSpec {
    ToolSpec { name: T::NAME, description: T::DESCRIPTION, input_schema: schema_of::<T::Args>() }
}

/// Every tool this crate has, sorted by name, as a model would see them listed: what an
/// MCP client is shown before any sandbox exists.
pub fn catalogue() -> Vec<ToolSpec> {
    let mut specs = vec![
        spec::<ReadTool>(),
        spec::<WriteTool>(),
        spec::<EditTool>(),
        spec::<GlobTool>(),
        spec::<GrepTool>(),
        spec::<BashTool>(),
        spec::<TaskOutputTool>(),
        spec::<TaskKillTool>(),
        spec::<lsp::LspTool>(),
        spec::<code::RunCodeTool>(),
    ];
    specs.extend(terminal::specs());
    specs.sort_by_key(|spec| spec.name);
    specs
}

/// What the registry holds: a [`ToolHandler`] with its arguments still JSON.
trait DynTool: Send + Sync {
    fn spec(&self) -> ToolSpec;
    fn call<'a>(
        &'a self,
        call: Invocation<'a>,
        args: Value,
    ) -> BoxFuture<'a, Result<ToolOutput, ToolError>>;
}

impl<T: ToolHandler> DynTool for T {
    fn spec(&self) -> ToolSpec {
        spec::<T>()
    }
    fn call<'a>(
        &'a self,
        call: Invocation<'a>,
        args: Value,
    ) -> BoxFuture<'a, Result<ToolOutput, ToolError>> {
        match parse_args::<T::Args>(T::NAME, args) {
            Ok(args) => self.handle(call, args),
            Err(err) => Box::pin(std::future::ready(Err(err))),
        }
    }
}

/// The JSON Schema of a parameter struct, without the `$schema`/`title` noise.
pub(crate) fn schema_of<T: schemars::JsonSchema>() -> Value {
    let mut value = schemars::schema_for!(T).to_value();
    if let Some(object) = value.as_object_mut() {
        object.remove("$schema");
        object.remove("title");
    }
    value
}

/// Parses a tool's arguments strictly (unknown fields refused), naming the offending
/// field in the error.
pub(crate) fn parse_args<T: DeserializeOwned>(tool: &str, args: Value) -> Result<T, ToolError> {
    let args = match args {
        Value::Null => Value::Object(serde_json::Map::new()),
        Value::Object(_) => args,
        other => {
            return Err(ToolError::invalid(
                tool,
                "$",
                format!("arguments must be a JSON object, got {}", json_type(&other)),
            ));
        }
    };
    serde_path_to_error::deserialize(args).map_err(|err| {
        let path = err.path().to_string();
        let message = err.inner().to_string();
        // serde reports a missing field at its parent's path; name the field itself.
        let field = quoted_field(&message)
            .filter(|_| message.starts_with("missing field"))
            .map(|name| if path == "." { name.to_owned() } else { format!("{path}.{name}") })
            .unwrap_or(if path == "." { "$".to_owned() } else { path });
        ToolError::InvalidArguments { tool: tool.to_owned(), field, message }
    })
}

fn quoted_field(message: &str) -> Option<&str> {
    let start = message.find('`')? + 1;
    let len = message[start..].find('`')?;
    Some(&message[start..start + len])
}

fn json_type(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// Tools by name, one context, one background-task table. Cloning gives another handle
/// to the same tools, context and tasks (tools added to a clone stay in that clone).
#[derive(Clone)]
pub struct ToolRegistry {
    ctx: Arc<ToolContext>,
    tools: Arc<BTreeMap<&'static str, Arc<dyn DynTool>>>,
    tasks: Arc<TaskTable>,
}

impl ToolRegistry {
    /// A registry with the file, search and command tools, over `ctx`.
    pub fn new(ctx: ToolContext) -> Self {
        let tasks = Arc::new(TaskTable::new());
        let mut registry = Self::empty(ctx, Arc::clone(&tasks));
        registry.register(ReadTool);
        registry.register(WriteTool);
        registry.register(EditTool);
        registry.register(GlobTool);
        registry.register(GrepTool);
        registry.register(BashTool::new(Arc::clone(&tasks)));
        registry.register(TaskOutputTool::new(Arc::clone(&tasks)));
        registry.register(TaskKillTool::new(tasks));
        registry
    }

    /// A registry with no tools (add them with [`Self::register`]).
    pub fn empty(ctx: ToolContext, tasks: Arc<TaskTable>) -> Self {
        Self { ctx: Arc::new(ctx), tools: Arc::new(BTreeMap::new()), tasks }
    }

    /// Adds (or replaces) a tool under its name.
    pub fn register<T: ToolHandler>(&mut self, tool: T) {
        Arc::make_mut(&mut self.tools).insert(T::NAME, Arc::new(tool));
    }

    /// The context every call runs in.
    pub fn context(&self) -> &ToolContext {
        &self.ctx
    }

    /// The background tasks started by `bash`.
    pub fn tasks(&self) -> &Arc<TaskTable> {
        &self.tasks
    }

    /// Every tool, sorted by name.
    pub fn list(&self) -> Vec<ToolSpec> {
        self.tools.values().map(|tool| tool.spec()).collect()
    }

    /// Calls tool `name` with `args`. The result text is capped at the context's
    /// `result_cap` (and says so when cut).
    pub async fn call(&self, name: &str, args: Value) -> Result<ToolOutput, ToolError> {
        self.call_with_progress(name, args, None).await
    }

    /// [`Self::call`], telling `progress` what a slow call waits for.
    pub async fn call_with_progress(
        &self,
        name: &str,
        args: Value,
        progress: Option<&Progress>,
    ) -> Result<ToolOutput, ToolError> {
        let Some(tool) = self.tools.get(name) else {
            return Err(ToolError::UnknownTool {
                name: name.to_owned(),
                known: self.tools.keys().map(|name| (*name).to_owned()).collect(),
            });
        };
        let invocation = Invocation { ctx: &self.ctx, registry: self, progress };
        let mut output = tool.call(invocation, args).await?;
        let cap = self.ctx.limits.result_cap;
        if output.text.len() > cap {
            let (cut, dropped) = text::cut_to(&output.text, cap.saturating_sub(80));
            output.text = format!("{cut}\n[result truncated: {dropped} more bytes not shown]");
            output.truncated = true;
        }
        Ok(output)
    }

    /// Terminates every background task's process group and waits for them.
    pub async fn dispose(&self) {
        self.tasks.dispose().await;
    }
}

impl std::fmt::Debug for ToolRegistry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ToolRegistry")
            .field("tools", &self.tools.keys().collect::<Vec<_>>())
            .finish_non_exhaustive()
    }
}

impl From<FsError> for ToolError {
    fn from(err: FsError) -> Self {
        error::from_fs(err)
    }
}

impl From<ProcessError> for ToolError {
    fn from(err: ProcessError) -> Self {
        error::from_process(err)
    }
}
