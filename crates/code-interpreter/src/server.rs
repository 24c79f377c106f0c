//! The HTTP server, its contexts, and the jupyter-server it runs.

use std::collections::{BTreeMap, HashMap};
use std::ffi::OsString;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use anyhow::{Context as _, bail};
use axum::Router;
use axum::body::Body;
use axum::extract::{Path, State as Extract};
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{delete, get, post};
use clap::Parser;
use serde::Deserialize;
use serde_json::{Value, json};
use tokio::sync::mpsc;
use tokio_stream::StreamExt;

use crate::jupyter::{Channels, Jupyter};
use crate::language::{Language, normalize_language, valid_env_name};

/// E2B's port for it (`JUPYTER_PORT` in both SDKs).
pub const PORT: u16 = 49999;
/// How long jupyter-server may take to answer after its start.
const JUPYTER_START_LIMIT: Duration = Duration::from_secs(120);
/// How long setting a new context's directory may take (its kernel's first cell).
const CHDIR_LIMIT: Duration = Duration::from_secs(60);

/// The `dsh-envd code-interpreter` command line.
#[derive(Debug, Clone, Parser)]
#[command(name = "code-interpreter", about = "E2B's code-interpreter server on Jupyter kernels")]
pub struct Config {
    /// Port to listen on, on all interfaces.
    #[arg(long, default_value_t = PORT)]
    pub port: u16,
    /// The jupyter-server program (its directory goes first on the kernels' PATH).
    #[arg(long)]
    pub jupyter: PathBuf,
    /// The loopback port jupyter-server listens on.
    #[arg(long, default_value_t = 8888)]
    pub jupyter_port: u16,
    /// The default contexts' working directory (E2B: /home/user).
    #[arg(long, default_value = "/home/user")]
    pub cwd: String,
}

/// One context: a kernel, its language and directory, and its channels (held by the
/// cell running in it: one at a time).
pub struct Context {
    pub id: String,
    pub language: Language,
    pub cwd: String,
    pub channels: tokio::sync::Mutex<Option<Channels>>,
    /// Told when the context restarts: the cell running in it ends (ContextRestarting).
    pub restarting: tokio::sync::Notify,
}

impl Context {
    fn json(&self) -> Value {
        json!({"id": self.id, "language": self.language.name(), "cwd": self.cwd})
    }
}

pub struct State {
    pub jupyter: Jupyter,
    /// Every context, oldest first.
    contexts: Mutex<Vec<Arc<Context>>>,
    /// Each language's default context (made on its first use).
    defaults: tokio::sync::Mutex<HashMap<Language, String>>,
    /// The server's own environment: what a cell's variables are put back to.
    pub globals: BTreeMap<String, String>,
    cwd: String,
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

impl State {
    fn find(&self, id: &str) -> Option<Arc<Context>> {
        lock(&self.contexts).iter().find(|c| c.id == id).cloned()
    }

    /// A new kernel for `language`, in `cwd` (E2B: `contexts.py`, `create_context`).
    async fn create_context(&self, language: Language, cwd: &str) -> anyhow::Result<Arc<Context>> {
        let id = self.jupyter.start_kernel(language.kernel()).await?;
        let opened = async {
            let mut channels = self.jupyter.connect(&id).await?;
            channels
                .run_quietly(&language.chdir(cwd), CHDIR_LIMIT)
                .await
                .with_context(|| format!("setting the working directory to {cwd}"))?;
            anyhow::Ok(channels)
        }
        .await;
        let channels = match opened {
            Ok(channels) => channels,
            Err(e) => {
                let _ = self.jupyter.shutdown(&id).await;
                return Err(e);
            }
        };
        let context = Arc::new(Context {
            id,
            language,
            cwd: cwd.to_owned(),
            channels: tokio::sync::Mutex::new(Some(channels)),
            restarting: tokio::sync::Notify::new(),
        });
        lock(&self.contexts).push(context.clone());
        tracing::info!(context = %context.id, language = language.name(), cwd, "context created");
        Ok(context)
    }

    /// The default context of `language`, made on first use.
    async fn default_context(&self, language: Language) -> anyhow::Result<Arc<Context>> {
        let mut defaults = self.defaults.lock().await;
        if let Some(context) = defaults.get(&language).and_then(|id| self.find(id)) {
            return Ok(context);
        }
        let context = self.create_context(language, &self.cwd).await?;
        defaults.insert(language, context.id.clone());
        Ok(context)
    }
}

fn plain(status: StatusCode, text: impl Into<String>) -> Response {
    (status, [(header::CONTENT_TYPE, "text/plain; charset=utf-8")], text.into()).into_response()
}

fn not_found(id: &str) -> Response {
    plain(StatusCode::NOT_FOUND, format!("Context {id} not found"))
}

#[derive(Debug, Deserialize)]
struct ExecuteRequest {
    code: String,
    #[serde(default)]
    context_id: Option<String>,
    #[serde(default)]
    language: Option<String>,
    #[serde(default)]
    env_vars: Option<BTreeMap<String, String>>,
}

/// `POST /execute` (E2B: `main.py`, `post_execute`).
async fn execute(
    Extract(state): Extract<Arc<State>>,
    axum::Json(request): axum::Json<ExecuteRequest>,
) -> Response {
    if request.context_id.is_some() && request.language.is_some() {
        return plain(
            StatusCode::BAD_REQUEST,
            "Only one of context_id or language can be provided",
        );
    }
    let env_vars = request.env_vars.unwrap_or_default();
    if let Some(name) = env_vars.keys().find(|name| !valid_env_name(name)) {
        return plain(
            StatusCode::BAD_REQUEST,
            format!("invalid environment variable name {name:?}: use [A-Za-z_][A-Za-z0-9_]*"),
        );
    }
    let context = match (&request.context_id, &request.language) {
        (Some(id), _) => match state.find(id) {
            Some(context) => context,
            None => return not_found(id),
        },
        (None, language) => {
            let language = match normalize_language(language.as_deref()) {
                Ok(language) => language,
                Err(e) => return plain(StatusCode::BAD_REQUEST, e),
            };
            match state.default_context(language).await {
                Ok(context) => context,
                Err(e) => return plain(StatusCode::INTERNAL_SERVER_ERROR, format!("{e:#}")),
            }
        }
    };
    let (tx, rx) = mpsc::channel(64);
    tokio::spawn(crate::execute::run(state.clone(), context, request.code, env_vars, tx));
    let stream =
        tokio_stream::wrappers::ReceiverStream::new(rx).map(Ok::<_, std::convert::Infallible>);
    (
        [(header::CONTENT_TYPE, "application/x-ndjson"), (header::CACHE_CONTROL, "no-cache")],
        Body::from_stream(stream),
    )
        .into_response()
}

#[derive(Debug, Default, Deserialize)]
struct CreateContext {
    #[serde(default)]
    language: Option<String>,
    #[serde(default)]
    cwd: Option<String>,
}

/// `POST /contexts` (E2B: `post_contexts`).
async fn create_context(
    Extract(state): Extract<Arc<State>>,
    axum::Json(request): axum::Json<CreateContext>,
) -> Response {
    let language = match normalize_language(request.language.as_deref()) {
        Ok(language) => language,
        Err(e) => return plain(StatusCode::BAD_REQUEST, e),
    };
    let cwd = request.cwd.filter(|c| !c.is_empty()).unwrap_or_else(|| state.cwd.clone());
    match state.create_context(language, &cwd).await {
        Ok(context) => axum::Json(context.json()).into_response(),
        Err(e) => plain(StatusCode::INTERNAL_SERVER_ERROR, format!("{e:#}")),
    }
}

/// `GET /contexts`: every context, oldest first.
async fn list_contexts(Extract(state): Extract<Arc<State>>) -> Response {
    let all: Vec<Value> = lock(&state.contexts).iter().map(|c| c.json()).collect();
    axum::Json(all).into_response()
}

/// `POST /contexts/{id}/restart` (E2B: `restart_context`): a fresh kernel under the same
/// id, back in the context's directory.
async fn restart_context(Extract(state): Extract<Arc<State>>, Path(id): Path<String>) -> Response {
    let Some(context) = state.find(&id) else { return not_found(&id) };
    // The restart tells a running cell (ContextRestarting); it then lets go of the lock.
    if let Err(e) = state.jupyter.restart(&id).await {
        return plain(
            StatusCode::INTERNAL_SERVER_ERROR,
            format!("Failed to restart context {id}: {e:#}"),
        );
    }
    context.restarting.notify_waiters();
    let mut channels = context.channels.lock().await;
    *channels = None;
    let reopened = async {
        let mut fresh = state.jupyter.connect(&id).await?;
        fresh.run_quietly(&context.language.chdir(&context.cwd), CHDIR_LIMIT).await?;
        anyhow::Ok(fresh)
    }
    .await;
    match reopened {
        Ok(fresh) => {
            *channels = Some(fresh);
            axum::Json(Value::Null).into_response()
        }
        Err(e) => plain(
            StatusCode::INTERNAL_SERVER_ERROR,
            format!("Failed to restart context {id}: {e:#}"),
        ),
    }
}

/// `DELETE /contexts/{id}` (E2B: `remove_context`).
async fn remove_context(Extract(state): Extract<Arc<State>>, Path(id): Path<String>) -> Response {
    let Some(context) = state.find(&id) else { return not_found(&id) };
    if let Err(e) = state.jupyter.shutdown(&id).await {
        return plain(
            StatusCode::INTERNAL_SERVER_ERROR,
            format!("Failed to remove context {id}: {e:#}"),
        );
    }
    lock(&state.contexts).retain(|c| c.id != id);
    context.restarting.notify_waiters();
    state.defaults.lock().await.retain(|_, default| *default != id);
    *context.channels.lock().await = None;
    axum::Json(Value::Null).into_response()
}

async fn health() -> Response {
    axum::Json("OK").into_response()
}

fn router(state: Arc<State>) -> Router {
    Router::new()
        .route("/health", get(health))
        .route("/execute", post(execute))
        .route("/contexts", post(create_context).get(list_contexts))
        .route("/contexts/{id}/restart", post(restart_context))
        .route("/contexts/{id}", delete(remove_context))
        .with_state(state)
}

/// Runs the server with `args` (after `code-interpreter`), on its own runtime.
pub fn main_with_args(args: impl IntoIterator<Item = OsString>) -> anyhow::Result<()> {
    let config =
        Config::try_parse_from(std::iter::once(OsString::from("code-interpreter")).chain(args))
            .unwrap_or_else(|e| e.exit());
    tokio::runtime::Builder::new_multi_thread().enable_all().build()?.block_on(serve(config))
}

async fn terminated() {
    let Ok(mut term) = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())
    else {
        return std::future::pending().await;
    };
    tokio::select! {
        _ = term.recv() => {}
        _ = tokio::signal::ctrl_c() => {}
    }
}

/// Starts jupyter-server, the default Python context, then serves until SIGTERM or
/// until jupyter-server exits.
pub async fn serve(config: Config) -> anyhow::Result<()> {
    let _ = tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env()
                .unwrap_or_else(|_| "dsh_code_interpreter=info".into()),
        )
        .with_writer(std::io::stderr)
        // Its output goes to a file (the template's start command log).
        .with_ansi(false)
        .try_init();
    let started = Instant::now();
    let globals: BTreeMap<String, String> = std::env::vars().collect();
    let bin = config.jupyter.parent().map(PathBuf::from).unwrap_or_default();
    let path = match globals.get("PATH") {
        Some(path) => format!("{}:{path}", bin.display()),
        None => bin.display().to_string(),
    };
    let mut jupyter_server = tokio::process::Command::new(&config.jupyter)
        .args([
            "--ServerApp.ip=127.0.0.1".to_owned(),
            format!("--ServerApp.port={}", config.jupyter_port),
            "--ServerApp.port_retries=0".to_owned(),
            "--ServerApp.open_browser=False".to_owned(),
            "--IdentityProvider.token=".to_owned(),
            "--ServerApp.disable_check_xsrf=True".to_owned(),
            format!("--ServerApp.root_dir={}", config.cwd),
            "--ZMQChannelsWebsocketConnection.iopub_data_rate_limit=1000000000".to_owned(),
            "--ServerApp.log_level=WARN".to_owned(),
            // E2B runs it as root (`jupyter_server_config.py`); here it runs as the
            // template's user, but the flag keeps a root start working.
            "--ServerApp.allow_root=True".to_owned(),
        ])
        .env("PATH", path)
        .env("DENO_NO_UPDATE_CHECK", "1")
        .env("DENO_NO_PROMPT", "1")
        // Results and tracebacks are read by programs, not terminals (E2B sets
        // IPython's colors to NoColor; Deno's kernel colors its values otherwise).
        .env("NO_COLOR", "1")
        .current_dir(&config.cwd)
        .stdin(std::process::Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .with_context(|| format!("starting {}", config.jupyter.display()))?;
    let jupyter = Jupyter::new(config.jupyter_port);
    while !jupyter.is_up().await {
        if let Some(status) = jupyter_server.try_wait()? {
            bail!("jupyter-server exited at its start: {status}");
        }
        if started.elapsed() > JUPYTER_START_LIMIT {
            bail!("jupyter-server did not answer within {JUPYTER_START_LIMIT:?}");
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    let state = Arc::new(State {
        jupyter,
        contexts: Mutex::new(Vec::new()),
        defaults: tokio::sync::Mutex::new(HashMap::new()),
        globals,
        cwd: config.cwd.clone(),
    });
    // E2B's server makes the default Python context before it listens (`lifespan`):
    // listening means ready.
    state.default_context(Language::Python).await.context("the default Python context")?;
    let listener = dsh_http::bind(SocketAddr::from(([0, 0, 0, 0], config.port)))
        .with_context(|| format!("listening on port {}", config.port))?;
    tracing::info!(
        port = config.port,
        ms = started.elapsed().as_millis() as u64,
        "code interpreter ready"
    );
    let served =
        dsh_http::serve(listener, router(state), dsh_http::Limits::default(), |_| (), async move {
            tokio::select! {
                () = terminated() => stop(&mut jupyter_server).await,
                status = jupyter_server.wait() => {
                    tracing::error!(?status, "jupyter-server exited");
                }
            }
        });
    served.await.context("serving")?;
    Ok(())
}

/// Asks jupyter-server to stop (SIGTERM: it shuts its kernels down), then kills it.
async fn stop(jupyter_server: &mut tokio::process::Child) {
    let pid = jupyter_server.id().and_then(|id| rustix::process::Pid::from_raw(id as i32));
    if let Some(pid) = pid {
        let _ = rustix::process::kill_process(pid, rustix::process::Signal::TERM);
        if tokio::time::timeout(Duration::from_secs(5), jupyter_server.wait()).await.is_ok() {
            return;
        }
    }
    let _ = jupyter_server.kill().await;
}
