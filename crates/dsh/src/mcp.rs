//! `dsh mcp`: every dsh tool over the Model Context Protocol.
//!
//! One sandbox (a [`Workbench`]) per server, opened on first use and disposed (per the
//! configured policy) when the server exits. Each MCP session is an owner: it gets its
//! own tool registry, and when the session ends (stdio: the client closes stdin; HTTP:
//! the client ends the session or goes idle) its terminals and background tasks end too.
//! stdout is the protocol in stdio mode, so logging goes to stderr only.

use crate::stop::StopSignals;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, Weak};
use std::time::Duration;

use crate::config::Config;
use anyhow::Context as _;
use dsh_tools::ToolRegistry;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Implementation,
    InitializeResult, JsonObject, ListToolsResult, PaginatedRequestParams,
    ProgressNotificationParam, ServerCapabilities, Tool,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData as McpError, RoleServer, ServerHandler, ServiceExt as _};
use serde_json::{Value, json};
use tokio::sync::OnceCell;

use crate::connect::DaemonArgs;
use crate::workbench::Workbench;

#[derive(Debug, clap::Args)]
pub struct McpArgs {
    /// Serve streamable HTTP on this address (e.g. 127.0.0.1:8765, or just a port for
    /// loopback) at path /mcp, instead of stdio.
    #[arg(long, value_name = "ADDR", value_parser = parse_http_addr)]
    http: Option<SocketAddr>,
    /// Configuration file (a missing file means the defaults).
    #[arg(long, default_value = "dsh.toml", value_name = "FILE")]
    config: PathBuf,
    /// Overlay merged over the configuration (e.g. dsh.e2b.toml).
    #[arg(long, value_name = "FILE")]
    overlay: Option<PathBuf>,
    #[command(flatten)]
    daemon: DaemonArgs,
}

/// `127.0.0.1:8765`, `[::1]:8765`, `0.0.0.0:8765` (all interfaces: explicit only), or a
/// bare port (loopback).
fn parse_http_addr(text: &str) -> Result<SocketAddr, String> {
    if let Ok(port) = text.parse::<u16>() {
        return Ok(SocketAddr::from(([127, 0, 0, 1], port)));
    }
    text.parse::<SocketAddr>().map_err(|_| {
        format!("expected ADDRESS:PORT (such as 127.0.0.1:8765) or a port, got {text:?}")
    })
}

pub async fn run(args: McpArgs) -> anyhow::Result<ExitCode> {
    let config =
        Config::load(&args.config, args.overlay.as_deref(), &|name| std::env::var(name).ok())
            .with_context(|| format!("loading {}", args.config.display()))?;
    let shared = Arc::new(Shared {
        config,
        daemon: args.daemon,
        workbench: OnceCell::new(),
        next_session: AtomicU64::new(1),
        closing: Mutex::new(Vec::new()),
    });
    let mut stop = StopSignals::install()?;
    let served = match args.http {
        None => serve_stdio(Arc::clone(&shared), &mut stop).await,
        Some(addr) => {
            serve_http(Arc::clone(&shared), addr, &mut stop).await.map(|()| Stopped::Ended)
        }
    };
    let disposed = shutdown(shared).await;
    if let Err(err) = &disposed {
        tracing::error!("{err:#}");
    }
    if matches!(served, Ok(Stopped::Signal)) {
        // A read of stdin on the blocking pool (stdin not a pipe) cannot be cancelled and
        // would hold the runtime's shutdown: everything is disposed, so leave now.
        use std::io::Write as _;
        let _ = std::io::stderr().flush();
        std::process::exit(if disposed.is_ok() { 0 } else { 1 });
    }
    served?;
    disposed?;
    Ok(ExitCode::SUCCESS)
}

/// What every session shares: the configuration and the one sandbox.
struct Shared {
    config: Config,
    daemon: DaemonArgs,
    workbench: OnceCell<Arc<Workbench>>,
    next_session: AtomicU64,
    /// Sessions' cleanups (close_owner) still running.
    closing: Mutex<Vec<tokio::task::JoinHandle<()>>>,
}

impl Shared {
    /// The sandbox, opened on first use. A failure is reported (and retried on the next
    /// call), never fatal to the server.
    async fn workbench(&self) -> Result<Arc<Workbench>, String> {
        self.workbench
            .get_or_try_init(|| async {
                tracing::info!("opening the sandbox");
                let workbench = Workbench::open(&self.config, &self.daemon).await?;
                tracing::info!(backend = %workbench.backend_name, sandbox = ?workbench.sandbox_id(), "sandbox ready");
                anyhow::Ok(Arc::new(workbench))
            })
            .await
            .cloned()
            .map_err(|err| {
                format!(
                    "the sandbox could not be opened: {err:#}\n\
                     What to do: local sandboxes need root (or user namespaces); for E2B cloud set \
                     E2B_API_KEY; to use a running `dsh sandbox serve`, pass --api-url (see `dsh mcp --help`). \
                     The next tool call tries again."
                )
            })
    }

    fn new_session(self: &Arc<Self>) -> Session {
        let n = self.next_session.fetch_add(1, Ordering::Relaxed);
        Session { shared: Arc::clone(self), owner: format!("mcp-{n}"), tools: OnceCell::new() }
    }
}

/// One MCP session: an owner of terminals and background tasks.
struct Session {
    shared: Arc<Shared>,
    owner: String,
    tools: OnceCell<(Arc<Workbench>, Arc<ToolRegistry>)>,
}

impl Session {
    async fn registry(&self) -> Result<Arc<ToolRegistry>, String> {
        self.tools
            .get_or_try_init(|| async {
                let workbench = self.shared.workbench().await?;
                let registry = workbench.registry(&self.owner);
                tracing::debug!(owner = %self.owner, "session registry created");
                Ok::<_, String>((workbench, registry))
            })
            .await
            .map(|(_, registry)| Arc::clone(registry))
    }
}

impl Drop for Session {
    /// The session ended: its terminals and background tasks end with it.
    fn drop(&mut self) {
        let Some((workbench, registry)) = self.tools.take() else { return };
        let owner = std::mem::take(&mut self.owner);
        let Ok(handle) = tokio::runtime::Handle::try_current() else { return };
        tracing::debug!(%owner, "session ended; closing its terminals and tasks");
        let task = handle.spawn(async move {
            workbench.close_owner(&owner, &registry).await;
        });
        self.shared.closing.lock().unwrap_or_else(|p| p.into_inner()).push(task);
    }
}

fn error_result(message: String, code: &str) -> CallToolResult {
    let mut result = CallToolResult::error(vec![ContentBlock::text(message.clone())]);
    result.structured_content = Some(json!({ "error": { "code": code, "message": message } }));
    result
}

fn tool_of(spec: &dsh_tools::ToolSpec) -> Tool {
    let schema: JsonObject = match &spec.input_schema {
        Value::Object(map) => map.clone(),
        _ => {
            let mut map = JsonObject::new();
            map.insert("type".into(), json!("object"));
            map
        }
    };
    Tool::new(spec.name, spec.description, Arc::new(schema))
}

impl ServerHandler for Session {
    fn get_info(&self) -> InitializeResult {
        InitializeResult::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("dsh", env!("CARGO_PKG_VERSION")))
            .with_instructions(
                "dsh: one sandbox for files, commands, persistent terminals (and, when \
                 available, language servers and Code Mode). Every tool observes the same \
                 filesystem and processes; relative paths resolve against the sandbox \
                 working directory. Terminals you open belong to this session.",
            )
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, McpError> {
        let specs = match self.registry().await {
            Ok(registry) => registry.list(),
            Err(message) => {
                // The sandbox is unavailable: still list the tools (each call then
                // explains what went wrong and what to do).
                tracing::warn!("{message}");
                dsh_tools::catalogue()
            }
        };
        Ok(ListToolsResult::with_all_items(specs.iter().map(tool_of).collect()))
    }

    fn get_tool(&self, name: &str) -> Option<Tool> {
        dsh_tools::catalogue().iter().find(|spec| spec.name == name).map(tool_of)
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        let registry = match self.registry().await {
            Ok(registry) => registry,
            Err(message) => return Ok(error_result(message, "unavailable").into()),
        };
        let args = request.arguments.map(Value::Object).unwrap_or(Value::Null);
        let name = request.name;
        tracing::debug!(owner = %self.owner, tool = %name, "call");
        // A client that sent a progress token hears what a slow call waits for (a
        // language server installing on first use). The lines cross a channel because
        // the sink is synchronous; they are sent from this very task, where the transport
        // knows which request they belong to.
        let token = context.meta.get_progress_token();
        let (lines_tx, mut lines) = tokio::sync::mpsc::unbounded_channel::<String>();
        let progress: Option<dsh_core::Progress> = token.is_some().then(|| {
            Arc::new(move |line: &str| {
                let _ = lines_tx.send(line.to_owned());
            }) as dsh_core::Progress
        });
        let mut sent = 0u32;
        let notify = |line: String, sent: &mut u32| {
            *sent += 1;
            let params = token.clone().map(|token| {
                ProgressNotificationParam::new(token, f64::from(*sent)).with_message(line)
            });
            let peer = context.peer.clone();
            async move {
                if let Some(params) = params
                    && let Err(err) = peer.notify_progress(params).await
                {
                    tracing::debug!(%err, "a progress notification was not delivered");
                }
            }
        };
        let call = registry.call_with_progress(&name, args, progress.as_ref());
        let mut call = std::pin::pin!(call);
        let outcome = loop {
            tokio::select! {
                outcome = &mut call => break outcome,
                Some(line) = lines.recv() => notify(line, &mut sent).await,
                () = context.ct.cancelled() => {
                    // Dropping the call ended whatever it started (a foreground command's
                    // process group is killed with its handle).
                    tracing::debug!(owner = %self.owner, tool = %name, "call cancelled");
                    return Ok(error_result(format!("the `{name}` call was cancelled"), "cancelled").into());
                }
            }
        };
        // Lines reported just before the answer still go out ahead of it.
        while let Ok(line) = lines.try_recv() {
            notify(line, &mut sent).await;
        }
        Ok(match outcome {
            Ok(output) => {
                let mut result = CallToolResult::success(vec![ContentBlock::text(output.text)]);
                // structuredContent must be an object: any other value (a list) is
                // wrapped as {"result": value}.
                result.structured_content = match output.value {
                    Value::Null => None,
                    value @ Value::Object(_) => Some(value),
                    value => Some(json!({ "result": value })),
                };
                result
            }
            Err(err) => {
                let code = err.code();
                error_result(err.to_string(), code)
            }
        }
        .into())
    }
}

/// How a server stopped.
enum Stopped {
    /// The client ended (stdin closed) or the server was shut down.
    Ended,
    /// SIGTERM or SIGINT.
    Signal,
}

async fn serve_stdio(shared: Arc<Shared>, stop: &mut StopSignals) -> anyhow::Result<Stopped> {
    let session = shared.new_session();
    // Pipes (how MCP clients start servers) are read without the blocking pool, so a
    // pending read never holds up shutdown.
    let serving = session.serve(rmcp::transport::stdio_pipes());
    let running = tokio::select! {
        running = serving => match running {
            Ok(running) => running,
            Err(err) => {
                // The client went away before (or during) the handshake.
                tracing::warn!("MCP initialization failed: {err}");
                return Ok(Stopped::Ended);
            }
        },
        signal = stop.recv() => {
            tracing::info!("{signal} during the MCP handshake; shutting down");
            return Ok(Stopped::Signal);
        }
    };
    let session_stop = running.cancellation_token();
    tokio::select! {
        quit = running.waiting() => {
            tracing::debug!(?quit, "stdio session ended");
            Ok(Stopped::Ended)
        }
        signal = stop.recv() => {
            tracing::info!("{signal} received; shutting down");
            session_stop.cancel();
            Ok(Stopped::Signal)
        }
    }
}

async fn serve_http(
    shared: Arc<Shared>,
    addr: SocketAddr,
    stop: &mut StopSignals,
) -> anyhow::Result<()> {
    use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
    use rmcp::transport::streamable_http_server::{
        StreamableHttpServerConfig, StreamableHttpService,
    };

    let cancel = tokio_util::sync::CancellationToken::new();
    let mut config =
        StreamableHttpServerConfig::default().with_cancellation_token(cancel.child_token());
    if !addr.ip().is_loopback() {
        // Bound beyond loopback on purpose: accept the Host names clients use.
        config = config.disable_allowed_hosts();
    }
    // The factory must not keep the server state alive after shutdown.
    let weak: Weak<Shared> = Arc::downgrade(&shared);
    let service = StreamableHttpService::new(
        move || {
            weak.upgrade()
                .map(|shared| shared.new_session())
                .ok_or_else(|| std::io::Error::other("the server is shutting down"))
        },
        Arc::new(LocalSessionManager::default()),
        config,
    );
    drop(shared);
    let router = axum::Router::new().nest_service("/mcp", service);
    let listener = tokio::net::TcpListener::bind(addr)
        .await
        .with_context(|| format!("cannot listen on {addr}"))?;
    let local = listener.local_addr()?;
    eprintln!("dsh mcp: streamable HTTP on http://{local}/mcp");
    let shutdown = cancel.clone();
    let server = axum::serve(listener, router).with_graceful_shutdown(async move {
        shutdown.cancelled().await;
    });
    let mut server = std::pin::pin!(std::future::IntoFuture::into_future(server));
    tokio::select! {
        result = &mut server => result?,
        signal = stop.recv() => {
            tracing::info!("{signal} received; shutting down");
            cancel.cancel();
            // Open streams end with their sessions; do not wait forever for stragglers.
            if tokio::time::timeout(Duration::from_secs(10), &mut server).await.is_err() {
                tracing::warn!("HTTP connections still open after 10 s; closing anyway");
            }
        }
    }
    Ok(())
}

/// Waits for the sessions to end and clean up, then disposes the sandbox per policy.
async fn shutdown(shared: Arc<Shared>) -> anyhow::Result<()> {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    while Arc::strong_count(&shared) > 1 && tokio::time::Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let closing: Vec<_> =
        std::mem::take(&mut *shared.closing.lock().unwrap_or_else(|p| p.into_inner()));
    for task in closing {
        let _ = task.await;
    }
    let shared = match Arc::try_unwrap(shared) {
        Ok(shared) => shared,
        Err(shared) => {
            // A session did not end: dispose what can be (engines, sandbox policy).
            if let Some(workbench) = shared.workbench.get() {
                let report = workbench.dispose().await;
                tracing::warn!(
                    ?report,
                    "sessions still running after 10 s; sandbox disposed without stopping the embedded daemon"
                );
            }
            anyhow::bail!("sessions did not end within 10 s of shutdown");
        }
    };
    let Some(workbench) = shared.workbench.into_inner() else { return Ok(()) };
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    let mut workbench = workbench;
    let workbench = loop {
        match Arc::try_unwrap(workbench) {
            Ok(workbench) => break workbench,
            Err(still_shared) if tokio::time::Instant::now() < deadline => {
                workbench = still_shared;
                tokio::time::sleep(Duration::from_millis(20)).await;
            }
            Err(still_shared) => {
                // Something still holds it: dispose what can be (engines, sandbox policy).
                let report = still_shared.dispose().await;
                tracing::warn!(
                    ?report,
                    "the sandbox was still in use at exit; disposed without stopping the embedded daemon"
                );
                anyhow::bail!("the sandbox was still in use at exit");
            }
        }
    };
    tracing::info!("disposing the sandbox");
    let report = workbench.shutdown().await?;
    tracing::debug!(?report, "sandbox disposed");
    Ok(())
}
