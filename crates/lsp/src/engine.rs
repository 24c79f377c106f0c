//! The engine the `lsp` tool calls: picks the server for a file, starts it lazily (one per
//! server and project root), keeps documents in sync through the Fs seam, runs one
//! operation and renders the answer with 1-based UTF-16 positions and excerpts.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use dsh_core::{Fs, FsError, Progress, Subprocess};
use lsp_types::notification::{
    DidChangeTextDocument, DidCloseTextDocument, DidOpenTextDocument, Notification,
    PublishDiagnostics,
};
use lsp_types::request::{
    DocumentDiagnosticRequest, DocumentSymbolRequest, GotoDefinition, GotoImplementation,
    HoverRequest, References, Rename, WorkspaceSymbolRequest,
};
use lsp_types::{
    DiagnosticSeverity, DidChangeTextDocumentParams, DidCloseTextDocumentParams,
    DidOpenTextDocumentParams, DocumentChangeOperation, DocumentChanges, DocumentDiagnosticParams,
    DocumentDiagnosticReport, DocumentDiagnosticReportResult, DocumentSymbol, DocumentSymbolParams,
    DocumentSymbolResponse, GotoDefinitionParams, GotoDefinitionResponse, HoverContents,
    HoverParams, HoverProviderCapability, ImplementationProviderCapability, LanguageString,
    MarkedString, NumberOrString, OneOf, Position, Range, ReferenceContext, ReferenceParams,
    RenameParams, SymbolInformation, SymbolKind, TextDocumentContentChangeEvent, TextDocumentEdit,
    TextDocumentIdentifier, TextDocumentItem, TextDocumentPositionParams, TextEdit, Uri,
    VersionedTextDocumentIdentifier, WorkspaceEdit, WorkspaceSymbol, WorkspaceSymbolParams,
    WorkspaceSymbolResponse,
};

use crate::client::{Connection, Published, find_program};
use crate::config::{LspConfig, ServerConfig};
use crate::error::LspError;
use crate::position;
use crate::result::{
    Diagnostic, FileEdits, Location, LspOutput, LspResult, Symbol, TextEditPreview,
};
use crate::uri;

/// Longest excerpt, in characters.
const EXCERPT_CHARS: usize = 200;

/// How often a waiting install says how long it has been going.
const PROGRESS_EVERY: Duration = Duration::from_secs(5);

/// How long the server cache may take before the wait is reported as an install: a
/// cached answer comes well within it, and is then reported once, as cached.
const CACHE_QUIET: Duration = Duration::from_secs(1);

/// What to ask the server.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Operation {
    Hover,
    GoToDefinition,
    /// Declaration included.
    FindReferences,
    GoToImplementation,
    /// The file's diagnostics for its current content.
    Diagnostics,
    DocumentSymbols,
    /// Symbols matching `query` across the workspace of the file's server.
    WorkspaceSymbols {
        query: String,
    },
    /// A preview of the edits renaming the symbol at the position; nothing is applied.
    Rename {
        new_name: String,
    },
}

impl Operation {
    /// The tool's name for the operation.
    pub fn name(&self) -> &'static str {
        match self {
            Self::Hover => "hover",
            Self::GoToDefinition => "goToDefinition",
            Self::FindReferences => "findReferences",
            Self::GoToImplementation => "goToImplementation",
            Self::Diagnostics => "diagnostics",
            Self::DocumentSymbols => "documentSymbols",
            Self::WorkspaceSymbols { .. } => "workspaceSymbols",
            Self::Rename { .. } => "rename",
        }
    }

    /// Whether the operation is about the symbol at a position.
    pub fn needs_position(&self) -> bool {
        matches!(
            self,
            Self::Hover
                | Self::GoToDefinition
                | Self::FindReferences
                | Self::GoToImplementation
                | Self::Rename { .. }
        )
    }
}

/// One open document as the server knows it.
#[derive(Debug)]
struct Document {
    version: i32,
    text: String,
    /// The connection's sequence number right after the last didOpen/didChange.
    synced_seq: u64,
}

/// One server for one project root: the queue (its mutex) and its state.
struct Slot {
    server: ServerConfig,
    root: PathBuf,
    connection: Option<Connection>,
    documents: HashMap<PathBuf, Document>,
}

/// A slot behind its queue.
type SharedSlot = Arc<tokio::sync::Mutex<Slot>>;

/// The language-server engine. Cheap to share (`Arc<LspEngine>`); requests to one server
/// are queued, requests to different servers run in parallel.
pub struct LspEngine {
    fs: Arc<dyn Fs>,
    subprocess: Arc<dyn Subprocess>,
    config: LspConfig,
    slots: Mutex<HashMap<(String, PathBuf), SharedSlot>>,
    /// The workspace root, resolved once.
    workspace: tokio::sync::OnceCell<PathBuf>,
    /// Project root per (server, directory): marker lookups cost a round trip each on a
    /// remote backend, and a root does not move while its server runs.
    project_roots: Mutex<HashMap<(String, PathBuf), PathBuf>>,
    /// Held while a server is being installed: one npm at a time, and a request that
    /// waited finds the server the first one installed.
    installing: tokio::sync::Mutex<()>,
    /// Server name → the server cache's program directory for it: a server that exits
    /// is restarted from there without asking the cache again.
    cached_bins: Mutex<HashMap<String, PathBuf>>,
    disposed: AtomicBool,
}

/// Per-request cache of file texts, for excerpts.
struct Texts<'a> {
    fs: &'a dyn Fs,
    max_bytes: u64,
    cache: HashMap<PathBuf, Option<String>>,
}

impl Texts<'_> {
    async fn get(&mut self, path: &Path) -> Option<&str> {
        if !self.cache.contains_key(path) {
            let text = self.fs.read_text(path, self.max_bytes).await.ok().map(|r| r.text);
            self.cache.insert(path.to_path_buf(), text);
        }
        self.cache.get(path).and_then(|t| t.as_deref())
    }
}

fn language_id(extension: &str) -> &str {
    match extension {
        "py" | "pyi" => "python",
        "ts" | "mts" | "cts" => "typescript",
        "tsx" => "typescriptreact",
        "js" | "mjs" | "cjs" => "javascript",
        "jsx" => "javascriptreact",
        "rs" => "rust",
        other => other,
    }
}

fn report(progress: Option<&Progress>, line: &str) {
    if let Some(progress) = progress {
        progress(line);
    }
}

/// Awaits `work`; while it runs, tells `progress` `<what>…` once `first` has passed, then
/// `<what>… <seconds> s` every [`PROGRESS_EVERY`] (an install gives no progress of its own,
/// and a silent minute looks like a hang).
async fn reporting<T>(
    progress: Option<&Progress>,
    first: Duration,
    what: &str,
    work: impl std::future::Future<Output = T>,
) -> T {
    let Some(progress) = progress else { return work.await };
    let mut work = std::pin::pin!(work);
    let started = tokio::time::Instant::now();
    let mut next = started + first;
    loop {
        tokio::select! {
            biased;
            out = &mut work => return out,
            () = tokio::time::sleep_until(next) => {
                let elapsed = started.elapsed();
                if elapsed < PROGRESS_EVERY {
                    progress(&format!("{what}…"));
                } else {
                    progress(&format!("{what}… {} s", elapsed.as_secs()));
                }
                // The next whole multiple of the period, so the seconds read 5, 10, 15.
                let periods = elapsed.as_millis() / PROGRESS_EVERY.as_millis() + 1;
                let periods = u32::try_from(periods).unwrap_or(u32::MAX);
                next = started + PROGRESS_EVERY.saturating_mul(periods);
            }
        }
    }
}

fn extension_of(path: &Path) -> String {
    path.extension().map(|e| e.to_string_lossy().to_ascii_lowercase()).unwrap_or_default()
}

/// Disposing the runtime shuts every language server down (shutdown/exit, then TERM,
/// then KILL), each awaited.
impl dsh_core::Engine for LspEngine {
    fn name(&self) -> &str {
        "language servers"
    }
    fn dispose(&self) -> dsh_core::BoxFuture<'_, ()> {
        Box::pin(LspEngine::dispose(self))
    }
}

impl LspEngine {
    pub fn new(fs: Arc<dyn Fs>, subprocess: Arc<dyn Subprocess>, config: LspConfig) -> Self {
        Self {
            fs,
            subprocess,
            config,
            slots: Mutex::new(HashMap::new()),
            workspace: tokio::sync::OnceCell::new(),
            project_roots: Mutex::new(HashMap::new()),
            installing: tokio::sync::Mutex::new(()),
            cached_bins: Mutex::new(HashMap::new()),
            disposed: AtomicBool::new(false),
        }
    }

    pub fn config(&self) -> &LspConfig {
        &self.config
    }

    /// Runs `op` on the file at 1-based `line` and 1-based UTF-16 `character` (ignored by
    /// operations that are not about a position: `diagnostics`, `documentSymbols`,
    /// `workspaceSymbols`). `file_path` may be relative to the workspace root.
    pub async fn request(
        &self,
        op: Operation,
        file_path: &Path,
        line: u32,
        character: u32,
    ) -> Result<LspResult, LspError> {
        self.request_with_progress(op, file_path, line, character, None).await
    }

    /// [`Self::request`], telling `progress` what a slow start waits for (a server being
    /// installed on its first use).
    pub async fn request_with_progress(
        &self,
        op: Operation,
        file_path: &Path,
        line: u32,
        character: u32,
        progress: Option<&Progress>,
    ) -> Result<LspResult, LspError> {
        if self.disposed.load(Ordering::SeqCst) {
            return Err(LspError::Disposed);
        }
        let root = self
            .workspace
            .get_or_try_init(|| self.fs.resolve(&self.config.workspace_root, Path::new("/")))
            .await?
            .clone();
        let path = self.fs.resolve(file_path, &root).await?;
        if !path.starts_with(&root) {
            return Err(LspError::OutsideWorkspace { path, root });
        }
        let extension = extension_of(&path);
        let Some(server) = self.config.servers.iter().find(|s| s.serves(&extension)) else {
            return Err(LspError::UnknownLanguage {
                path,
                extension,
                configured: self.config.describe_languages(),
            });
        };
        match &op {
            Operation::Rename { new_name } if new_name.trim().is_empty() => {
                return Err(LspError::InvalidArgument("rename needs a new name".into()));
            }
            _ => {}
        }
        let text = self.fs.read_text(&path, self.config.max_file_bytes).await?.text;
        let lsp_position = if op.needs_position() {
            let (l, c) = position::to_lsp(&text, line, character).map_err(|reason| {
                LspError::InvalidPosition {
                    path: path.clone(),
                    line,
                    character,
                    reason: reason.to_string(),
                }
            })?;
            Position::new(l, c)
        } else {
            Position::default()
        };
        let project_root = self.project_root(server, &path, &root).await;
        let slot = self.slot(server, &project_root);
        // The per-server queue: one request at a time.
        let mut slot = slot.lock().await;
        if self.disposed.load(Ordering::SeqCst) {
            return Err(LspError::Disposed);
        }
        let mut last_error = None;
        for attempt in 0..2 {
            if let Err(error) = self.ensure_started(&mut slot, progress).await {
                if matches!(error, LspError::ServerExited { .. }) && attempt == 0 {
                    last_error = Some(error);
                    continue;
                }
                return Err(error);
            }
            let outcome = self.run(&mut slot, &op, &path, &extension, &text, lsp_position).await;
            match outcome {
                Ok(output) => {
                    return Ok(LspResult {
                        server: slot.server.name.clone(),
                        operation: op.name().to_owned(),
                        output,
                    });
                }
                Err(error) if error.is_fatal_to_server() => {
                    if let Some(connection) = slot.connection.take() {
                        connection.kill().await;
                    }
                    slot.documents.clear();
                    // A crash is retried once on a fresh server; protocol violations and
                    // hangs are reported (the next request restarts the server).
                    if matches!(error, LspError::ServerExited { .. }) && attempt == 0 {
                        tracing::warn!(server = %slot.server.name, %error, "language server crashed; restarting once");
                        last_error = Some(error);
                        continue;
                    }
                    return Err(error);
                }
                Err(error) => return Err(error),
            }
        }
        Err(last_error.unwrap_or(LspError::Disposed))
    }

    /// Stops every server: `shutdown`, `exit`, then TERM, grace, KILL.
    pub async fn dispose(&self) {
        self.disposed.store(true, Ordering::SeqCst);
        let slots: Vec<_> = {
            let mut map = self.slots.lock().unwrap_or_else(|p| p.into_inner());
            map.drain().map(|(_, slot)| slot).collect()
        };
        let mut tasks = tokio::task::JoinSet::new();
        for slot in slots {
            tasks.spawn(async move {
                let mut slot = slot.lock().await;
                if let Some(connection) = slot.connection.take() {
                    connection.shutdown().await;
                }
            });
        }
        while tasks.join_next().await.is_some() {}
    }

    /// Running servers: (name, project root, pid).
    pub async fn running(&self) -> Vec<(String, PathBuf, u32)> {
        let slots: Vec<_> = {
            let map = self.slots.lock().unwrap_or_else(|p| p.into_inner());
            map.values().cloned().collect()
        };
        let mut out = Vec::new();
        for slot in slots {
            let slot = slot.lock().await;
            if let Some(connection) = slot.connection.as_ref().filter(|c| c.is_alive()) {
                out.push((slot.server.name.clone(), slot.root.clone(), connection.pid()));
            }
        }
        out
    }

    fn slot(&self, server: &ServerConfig, root: &Path) -> SharedSlot {
        let mut map = self.slots.lock().unwrap_or_else(|p| p.into_inner());
        Arc::clone(map.entry((server.name.clone(), root.to_path_buf())).or_insert_with(|| {
            Arc::new(tokio::sync::Mutex::new(Slot {
                server: server.clone(),
                root: root.to_path_buf(),
                connection: None,
                documents: HashMap::new(),
            }))
        }))
    }

    /// The nearest ancestor of `path` inside `workspace` holding a root marker, else
    /// `workspace`.
    async fn project_root(&self, server: &ServerConfig, path: &Path, workspace: &Path) -> PathBuf {
        let key = (server.name.clone(), path.parent().unwrap_or(workspace).to_path_buf());
        if let Some(root) = self.project_roots.lock().unwrap_or_else(|p| p.into_inner()).get(&key) {
            return root.clone();
        }
        let root = self.find_project_root(server, path, workspace).await;
        self.project_roots.lock().unwrap_or_else(|p| p.into_inner()).insert(key, root.clone());
        root
    }

    async fn find_project_root(
        &self,
        server: &ServerConfig,
        path: &Path,
        workspace: &Path,
    ) -> PathBuf {
        let mut dir = path.parent();
        while let Some(current) = dir {
            if !current.starts_with(workspace) {
                break;
            }
            for marker in &server.root_markers {
                if self.fs.lstat(&current.join(marker)).await.is_ok() {
                    return current.to_path_buf();
                }
            }
            if current == workspace {
                break;
            }
            dir = current.parent();
        }
        workspace.to_path_buf()
    }

    async fn ensure_started(
        &self,
        slot: &mut Slot,
        progress: Option<&Progress>,
    ) -> Result<(), LspError> {
        if slot.connection.as_ref().is_some_and(Connection::is_alive) {
            return Ok(());
        }
        if let Some(dead) = slot.connection.take() {
            dead.kill().await;
        }
        slot.documents.clear();
        let path = self.config.effective_path();
        let program_name = slot.server.command.first().cloned().unwrap_or_default();
        if program_name.is_empty() {
            return Err(LspError::InvalidArgument(format!(
                "language server {} has an empty command",
                slot.server.name
            )));
        }
        let program = match self.find_installed(&slot.server, &program_name, &path).await? {
            Some(program) => program,
            None => self.provision(&slot.server, &program_name, &path, progress).await?,
        };
        let connection = Connection::start(
            self.subprocess.as_ref(),
            &self.config,
            &slot.server,
            program.to_string_lossy().into_owned(),
            &slot.root,
        )
        .await?;
        tracing::debug!(server = %slot.server.name, root = %slot.root.display(), pid = connection.pid(), "language server started");
        slot.connection = Some(connection);
        Ok(())
    }

    /// The server's program: from the server cache's directory if it provided the
    /// server before, else on the search PATH.
    async fn find_installed(
        &self,
        server: &ServerConfig,
        program: &str,
        path: &str,
    ) -> Result<Option<PathBuf>, LspError> {
        let cached =
            self.cached_bins.lock().unwrap_or_else(|p| p.into_inner()).get(&server.name).cloned();
        if let Some(bin) = cached {
            let dir = bin.to_string_lossy();
            if let Some(found) = find_program(self.fs.as_ref(), program, &dir).await? {
                return Ok(Some(found));
            }
        }
        Ok(find_program(self.fs.as_ref(), program, path).await?)
    }

    /// What a user runs in the sandbox to install the server by hand.
    fn install_command(&self, server: &ServerConfig) -> String {
        let packages = server.install.join(" ");
        match &self.config.install_prefix {
            Some(prefix) => format!(
                "npm install --prefix {} --no-audit --no-fund --loglevel=error {packages}",
                prefix.display()
            ),
            None => format!("npm install -g {packages}"),
        }
    }

    /// Provides a missing server (one install at a time) and finds its program, or says
    /// why it cannot: provisioning is off, the server has no packages, or the install
    /// failed. The server cache is asked first; npm in the sandbox is the fallback.
    async fn provision(
        &self,
        server: &ServerConfig,
        program: &str,
        path: &str,
        progress: Option<&Progress>,
    ) -> Result<PathBuf, LspError> {
        let not_found = || LspError::ServerNotFound {
            server: server.name.clone(),
            program: program.to_owned(),
            path: path.to_owned(),
            hint: server.install_hint.clone(),
        };
        // A program named by its path is that file: no cache directory stands in for it.
        let cache = self.config.server_cache.as_ref().filter(|_| !program.contains('/'));
        if !self.config.provision
            || server.install.is_empty()
            || (cache.is_none() && self.config.install_prefix.is_none())
        {
            return Err(not_found());
        }
        let _installing = match self.installing.try_lock() {
            Ok(guard) => guard,
            Err(_) => {
                report(progress, "waiting for another language server's install to finish…");
                self.installing.lock().await
            }
        };
        // Another request may have installed it while this one waited.
        if let Some(found) = self.find_installed(server, program, path).await? {
            return Ok(found);
        }
        let failed = |detail: String| LspError::InstallFailed {
            server: server.name.clone(),
            command: self.install_command(server),
            detail,
        };
        let label = server.install.join(" ");
        if let Some(cache) = cache {
            let started = tokio::time::Instant::now();
            let what = format!("installing {label} (first use on this machine)");
            let provided =
                reporting(progress, CACHE_QUIET, &what, cache.provide(&server.install, progress))
                    .await
                    .map_err(failed)?;
            if let Some(provided) = provided {
                let found =
                    find_program(self.fs.as_ref(), program, &provided.bin.to_string_lossy())
                        .await?
                        .ok_or_else(|| {
                            failed(format!(
                                "the server cache provided {} without {program}",
                                provided.bin.display()
                            ))
                        })?;
                report(
                    progress,
                    &if provided.cached {
                        format!("{label}: cached on this machine")
                    } else {
                        format!("installed {label} in {} s", started.elapsed().as_secs())
                    },
                );
                tracing::info!(server = %server.name, program = %found.display(), cached = provided.cached, "language server from the server cache");
                self.cached_bins
                    .lock()
                    .unwrap_or_else(|p| p.into_inner())
                    .insert(server.name.clone(), provided.bin);
                return Ok(found);
            }
            tracing::debug!(server = %server.name, "no server cache here; installing in the sandbox");
        }
        let Some(prefix) = self.config.install_prefix.as_ref() else {
            return Err(not_found());
        };
        let prefix_text = prefix.to_string_lossy().into_owned();
        let command = self.install_command(server);
        tracing::info!(server = %server.name, %command, "installing a language server on first use");
        // Arguments travel as positional parameters: nothing of them is parsed by the
        // shell. `--prefix` also moves npm's global config file, so a CA bundle configured
        // there (machines behind a TLS-inspecting proxy need one) is carried over.
        let script = "prefix=$1; shift; \
            cafile=$(npm config get cafile 2>/dev/null); \
            if [ -n \"$cafile\" ] && [ \"$cafile\" != null ]; then export npm_config_cafile=\"$cafile\"; fi; \
            exec npm install --prefix \"$prefix\" --no-audit --no-fund --loglevel=error \"$@\"";
        let mut argv = vec!["/bin/sh".to_owned(), "-c".into(), script.into(), "sh".into()];
        argv.push(prefix_text);
        argv.extend(server.install.iter().cloned());
        let mut env = self.config.env.clone();
        env.insert("PATH".into(), path.to_owned());
        let mut spec = dsh_core::SpawnSpec::new(argv, &self.config.workspace_root, env);
        spec.timeout = Some(self.config.install_timeout);
        let started = tokio::time::Instant::now();
        let what = format!("installing {label} in the sandbox (first use)");
        let installed = reporting(progress, Duration::ZERO, &what, async {
            let process = self.subprocess.spawn(spec).await.map_err(|e| failed(e.to_string()))?;
            let status = process.wait().await;
            if status.success() {
                return Ok(());
            }
            let stderr = process.stderr().snapshot().to_string_lossy();
            let tail: String = stderr.trim().lines().rev().take(5).collect::<Vec<_>>().join(" | ");
            let how = match (status.code, status.signal) {
                (Some(code), _) => format!("exit code {code}"),
                (None, Some(signal)) => format!("signal {signal}"),
                (None, None) => "no exit status".to_owned(),
            };
            Err(failed(format!("npm ended with {how}: {tail}")))
        })
        .await;
        installed?;
        report(
            progress,
            &format!("installed {label} in the sandbox in {} s", started.elapsed().as_secs()),
        );
        tracing::info!(server = %server.name, "language server installed");
        find_program(self.fs.as_ref(), program, path).await?.ok_or_else(|| {
            failed(format!("npm succeeded but {program} is not on the search PATH {path}"))
        })
    }

    /// Brings the server's view of open documents up to date: `path` with `text`, and
    /// every other open document re-read through the Fs seam.
    async fn sync(
        &self,
        slot: &mut Slot,
        path: &Path,
        extension: &str,
        text: &str,
    ) -> Result<(), LspError> {
        let Slot { connection, documents, .. } = slot;
        let Some(connection) = connection.as_ref() else {
            return Err(LspError::Disposed);
        };
        let others: Vec<PathBuf> = documents.keys().filter(|p| *p != path).cloned().collect();
        for other in others {
            match self.fs.read_text(&other, self.config.max_file_bytes).await {
                Ok(read) => {
                    change_document(connection, documents, &other, read.text).await?;
                }
                Err(FsError::NotFound { .. }) | Err(FsError::TooLarge { .. }) => {
                    documents.remove(&other);
                    let text_document = TextDocumentIdentifier { uri: uri::file_uri(&other)? };
                    connection
                        .notify::<DidCloseTextDocument>(DidCloseTextDocumentParams {
                            text_document,
                        })
                        .await?;
                }
                Err(_) => {}
            }
        }
        if documents.contains_key(path) {
            change_document(connection, documents, path, text.to_owned()).await?;
        } else {
            let text_document = TextDocumentItem {
                uri: uri::file_uri(path)?,
                language_id: language_id(extension).to_owned(),
                version: 1,
                text: text.to_owned(),
            };
            connection
                .notify::<DidOpenTextDocument>(DidOpenTextDocumentParams { text_document })
                .await?;
            documents.insert(
                path.to_path_buf(),
                Document { version: 1, text: text.to_owned(), synced_seq: connection.seq() },
            );
        }
        Ok(())
    }

    /// `position` is the 0-based LSP position; operations not about a position ignore it.
    async fn run(
        &self,
        slot: &mut Slot,
        op: &Operation,
        path: &Path,
        extension: &str,
        text: &str,
        position: Position,
    ) -> Result<LspOutput, LspError> {
        self.sync(slot, path, extension, text).await?;
        let Some(connection) = slot.connection.as_ref() else {
            return Err(LspError::Disposed);
        };
        let file_uri = uri::file_uri(path)?;
        let document = TextDocumentIdentifier { uri: file_uri.clone() };
        let at = TextDocumentPositionParams { text_document: document.clone(), position };
        let timeout = self.config.request_timeout;
        let mut texts = Texts {
            fs: self.fs.as_ref(),
            max_bytes: self.config.max_file_bytes,
            cache: HashMap::from([(path.to_path_buf(), Some(text.to_owned()))]),
        };
        let capabilities = &connection.capabilities;
        let require = |offered: bool| {
            if offered {
                Ok(())
            } else {
                Err(LspError::Unsupported {
                    server: connection.server.clone(),
                    operation: op.name().to_owned(),
                })
            }
        };
        match op {
            Operation::Hover => {
                require(!matches!(
                    capabilities.hover_provider,
                    None | Some(HoverProviderCapability::Simple(false))
                ))?;
                let params = HoverParams {
                    text_document_position_params: at,
                    work_done_progress_params: Default::default(),
                };
                let hover = connection.request::<HoverRequest>(params, timeout).await?;
                Ok(LspOutput::Hover(hover.and_then(|hover| render_hover(hover.contents))))
            }
            Operation::GoToDefinition | Operation::GoToImplementation => {
                let params = GotoDefinitionParams {
                    text_document_position_params: at,
                    work_done_progress_params: Default::default(),
                    partial_result_params: Default::default(),
                };
                let response = if *op == Operation::GoToDefinition {
                    require(offered(capabilities.definition_provider.as_ref()))?;
                    connection.request::<GotoDefinition>(params, timeout).await?
                } else {
                    require(!matches!(
                        capabilities.implementation_provider,
                        None | Some(ImplementationProviderCapability::Simple(false))
                    ))?;
                    connection.request::<GotoImplementation>(params, timeout).await?
                };
                Ok(LspOutput::Locations(locations(definition_targets(response), &mut texts).await))
            }
            Operation::FindReferences => {
                require(offered(capabilities.references_provider.as_ref()))?;
                let params = ReferenceParams {
                    text_document_position: at,
                    work_done_progress_params: Default::default(),
                    partial_result_params: Default::default(),
                    context: ReferenceContext { include_declaration: true },
                };
                let found = connection.request::<References>(params, timeout).await?;
                Ok(LspOutput::Locations(locations(found.unwrap_or_default(), &mut texts).await))
            }
            Operation::Diagnostics => {
                let items = if capabilities.diagnostic_provider.is_some() {
                    let params = DocumentDiagnosticParams {
                        text_document: document,
                        identifier: None,
                        previous_result_id: None,
                        work_done_progress_params: Default::default(),
                        partial_result_params: Default::default(),
                    };
                    match connection.request::<DocumentDiagnosticRequest>(params, timeout).await? {
                        DocumentDiagnosticReportResult::Report(DocumentDiagnosticReport::Full(
                            report,
                        )) => report.full_document_diagnostic_report.items,
                        // No previous result id is ever sent, so "unchanged" has nothing to
                        // refer to; a partial result carries only other documents' reports.
                        DocumentDiagnosticReportResult::Report(
                            DocumentDiagnosticReport::Unchanged(_),
                        )
                        | DocumentDiagnosticReportResult::Partial(_) => Vec::new(),
                    }
                } else {
                    let Some(doc) = slot.documents.get(path) else {
                        return Err(LspError::Disposed);
                    };
                    let (version, synced_seq) = (doc.version, doc.synced_seq);
                    // Only diagnostics for the current version count: tagged with it, or
                    // (servers that do not tag) published after the last change was sent.
                    let accept = move |p: &Published| match p.version {
                        Some(v) => v == version,
                        None => p.seq > synced_seq,
                    };
                    match connection
                        .wait_published(&file_uri, self.config.diagnostics_timeout, accept)
                        .await?
                    {
                        Some(published) => published.diagnostics,
                        None => {
                            return Err(LspError::Timeout {
                                server: connection.server.clone(),
                                method: <PublishDiagnostics as Notification>::METHOD.into(),
                                after: self.config.diagnostics_timeout,
                                restarted: false,
                            });
                        }
                    }
                };
                Ok(LspOutput::Diagnostics(
                    items.iter().map(|d| diagnostic(d, path, text)).collect(),
                ))
            }
            Operation::DocumentSymbols => {
                require(offered(capabilities.document_symbol_provider.as_ref()))?;
                let params = DocumentSymbolParams {
                    text_document: document,
                    work_done_progress_params: Default::default(),
                    partial_result_params: Default::default(),
                };
                let mut found = Vec::new();
                match connection.request::<DocumentSymbolRequest>(params, timeout).await? {
                    None => {}
                    Some(DocumentSymbolResponse::Flat(list)) => {
                        found.extend(list.into_iter().map(FoundSymbol::listed));
                    }
                    // The outline's ranges are in the requested document.
                    Some(DocumentSymbolResponse::Nested(outline)) => {
                        flatten_outline(outline, path, None, 0, &mut found);
                    }
                }
                Ok(LspOutput::Symbols(symbols(found, &mut texts).await))
            }
            Operation::WorkspaceSymbols { query } => {
                require(offered(capabilities.workspace_symbol_provider.as_ref()))?;
                let params = WorkspaceSymbolParams {
                    query: query.clone(),
                    work_done_progress_params: Default::default(),
                    partial_result_params: Default::default(),
                };
                let found =
                    match connection.request::<WorkspaceSymbolRequest>(params, timeout).await? {
                        None => Vec::new(),
                        Some(WorkspaceSymbolResponse::Flat(list)) => {
                            list.into_iter().map(FoundSymbol::listed).collect()
                        }
                        Some(WorkspaceSymbolResponse::Nested(list)) => {
                            list.into_iter().map(FoundSymbol::searched).collect()
                        }
                    };
                Ok(LspOutput::Symbols(symbols(found, &mut texts).await))
            }
            Operation::Rename { new_name } => {
                require(offered(capabilities.rename_provider.as_ref()))?;
                let params = RenameParams {
                    text_document_position: at,
                    new_name: new_name.clone(),
                    work_done_progress_params: Default::default(),
                };
                let edit = connection.request::<Rename>(params, timeout).await?;
                Ok(LspOutput::Rename(rename_preview(edit, &mut texts).await))
            }
        }
    }
}

/// Whether a `boolean | options` capability is offered: present and not `false`.
fn offered<Options>(capability: Option<&OneOf<bool, Options>>) -> bool {
    !matches!(capability, None | Some(OneOf::Left(false)))
}

/// didChange (full text, next version) when the text differs from what the server has.
async fn change_document(
    connection: &Connection,
    documents: &mut HashMap<PathBuf, Document>,
    path: &Path,
    text: String,
) -> Result<(), LspError> {
    let Some(doc) = documents.get_mut(path) else {
        return Ok(());
    };
    if doc.text == text {
        return Ok(());
    }
    let version = doc.version + 1;
    let params = DidChangeTextDocumentParams {
        text_document: VersionedTextDocumentIdentifier { uri: uri::file_uri(path)?, version },
        content_changes: vec![TextDocumentContentChangeEvent {
            range: None,
            range_length: None,
            text: text.clone(),
        }],
    };
    connection.notify::<DidChangeTextDocument>(params).await?;
    doc.version = version;
    doc.text = text;
    doc.synced_seq = connection.seq();
    Ok(())
}

/// Hover contents (MarkupContent, MarkedString or MarkedString[]) as markdown; `None`
/// when they say nothing.
fn render_hover(contents: HoverContents) -> Option<String> {
    fn marked(value: MarkedString) -> String {
        match value {
            MarkedString::String(text) => text,
            MarkedString::LanguageString(LanguageString { language, value }) => {
                format!("```{language}\n{value}\n```")
            }
        }
    }
    let text = match contents {
        HoverContents::Markup(markup) => markup.value,
        HoverContents::Scalar(value) => marked(value),
        HoverContents::Array(values) => {
            values.into_iter().map(marked).collect::<Vec<_>>().join("\n\n")
        }
    };
    (!text.trim().is_empty()).then_some(text)
}

/// 1-based (line, character) of an LSP position; (1, 1) when there is none.
fn one_based(position: Option<Position>) -> (u32, u32) {
    position.map_or((1, 1), |p| (p.line.saturating_add(1), p.character.saturating_add(1)))
}

/// `range` in the file at `path`, with the excerpt of its first line (none without a
/// range).
async fn location_at(path: PathBuf, range: Option<Range>, texts: &mut Texts<'_>) -> Location {
    let (line, character) = one_based(range.map(|r| r.start));
    let (end_line, end_character) = one_based(range.map(|r| r.end));
    let excerpt = match range {
        Some(_) => texts
            .get(&path)
            .await
            .map(|text| position::excerpt(text, line - 1, EXCERPT_CHARS))
            .unwrap_or_default(),
        None => String::new(),
    };
    Location { path, line, character, end_line, end_character, excerpt }
}

/// Location | Location[] | LocationLink[] | null, as locations (a link's target is the
/// name it points at, its selection range).
fn definition_targets(response: Option<GotoDefinitionResponse>) -> Vec<lsp_types::Location> {
    match response {
        None => Vec::new(),
        Some(GotoDefinitionResponse::Scalar(location)) => vec![location],
        Some(GotoDefinitionResponse::Array(locations)) => locations,
        Some(GotoDefinitionResponse::Link(links)) => links
            .into_iter()
            .map(|link| lsp_types::Location {
                uri: link.target_uri,
                range: link.target_selection_range,
            })
            .collect(),
    }
}

async fn locations(found: Vec<lsp_types::Location>, texts: &mut Texts<'_>) -> Vec<Location> {
    let mut out = Vec::with_capacity(found.len());
    for location in found {
        out.push(location_at(uri::path_or_text(&location.uri), Some(location.range), texts).await);
    }
    out
}

fn diagnostic(item: &lsp_types::Diagnostic, path: &Path, text: &str) -> Diagnostic {
    let (line, character) = one_based(Some(item.range.start));
    let (end_line, end_character) = one_based(Some(item.range.end));
    let severity = match item.severity {
        Some(DiagnosticSeverity::WARNING) => "warning",
        Some(DiagnosticSeverity::INFORMATION) => "information",
        Some(DiagnosticSeverity::HINT) => "hint",
        // Errors, and severities left to the client (missing or unknown), show as errors.
        _ => "error",
    };
    Diagnostic {
        path: path.to_path_buf(),
        severity: severity.to_owned(),
        line,
        character,
        end_line,
        end_character,
        message: item.message.clone(),
        source: item.source.clone(),
        code: item.code.as_ref().map(|code| match code {
            NumberOrString::Number(number) => number.to_string(),
            NumberOrString::String(text) => text.clone(),
        }),
        excerpt: position::excerpt(text, line - 1, EXCERPT_CHARS),
    }
}

/// How a symbol kind is shown: the protocol's names, in words.
fn symbol_kind(kind: SymbolKind) -> &'static str {
    match kind {
        SymbolKind::FILE => "file",
        SymbolKind::MODULE => "module",
        SymbolKind::NAMESPACE => "namespace",
        SymbolKind::PACKAGE => "package",
        SymbolKind::CLASS => "class",
        SymbolKind::METHOD => "method",
        SymbolKind::PROPERTY => "property",
        SymbolKind::FIELD => "field",
        SymbolKind::CONSTRUCTOR => "constructor",
        SymbolKind::ENUM => "enum",
        SymbolKind::INTERFACE => "interface",
        SymbolKind::FUNCTION => "function",
        SymbolKind::VARIABLE => "variable",
        SymbolKind::CONSTANT => "constant",
        SymbolKind::STRING => "string",
        SymbolKind::NUMBER => "number",
        SymbolKind::BOOLEAN => "boolean",
        SymbolKind::ARRAY => "array",
        SymbolKind::OBJECT => "object",
        SymbolKind::KEY => "key",
        SymbolKind::NULL => "null",
        SymbolKind::ENUM_MEMBER => "enum member",
        SymbolKind::STRUCT => "struct",
        SymbolKind::EVENT => "event",
        SymbolKind::OPERATOR => "operator",
        SymbolKind::TYPE_PARAMETER => "type parameter",
        _ => "symbol",
    }
}

/// A symbol from any of the protocol's three shapes, before its excerpt is read.
struct FoundSymbol {
    name: String,
    kind: SymbolKind,
    container: Option<String>,
    depth: usize,
    path: PathBuf,
    range: Option<Range>,
}

impl FoundSymbol {
    /// A SymbolInformation (document or workspace symbols as a flat list).
    fn listed(symbol: SymbolInformation) -> Self {
        Self {
            name: symbol.name,
            kind: symbol.kind,
            container: symbol.container_name.filter(|c| !c.is_empty()),
            depth: 0,
            path: uri::path_or_text(&symbol.location.uri),
            range: Some(symbol.location.range),
        }
    }

    /// A WorkspaceSymbol, whose location may be a bare URI (no range).
    fn searched(symbol: WorkspaceSymbol) -> Self {
        let (uri, range) = match symbol.location {
            OneOf::Left(location) => (location.uri, Some(location.range)),
            OneOf::Right(location) => (location.uri, None),
        };
        Self {
            name: symbol.name,
            kind: symbol.kind,
            container: symbol.container_name.filter(|c| !c.is_empty()),
            depth: 0,
            path: uri::path_or_text(&uri),
            range,
        }
    }
}

/// A document outline, depth first, each child contained in its parent.
fn flatten_outline(
    outline: Vec<DocumentSymbol>,
    path: &Path,
    container: Option<&str>,
    depth: usize,
    out: &mut Vec<FoundSymbol>,
) {
    for symbol in outline {
        out.push(FoundSymbol {
            name: symbol.name.clone(),
            kind: symbol.kind,
            container: container.map(str::to_owned),
            depth,
            path: path.to_path_buf(),
            range: Some(symbol.selection_range),
        });
        if let Some(children) = symbol.children {
            flatten_outline(children, path, Some(&symbol.name), depth + 1, out);
        }
    }
}

async fn symbols(found: Vec<FoundSymbol>, texts: &mut Texts<'_>) -> Vec<Symbol> {
    let mut out = Vec::with_capacity(found.len());
    for symbol in found {
        out.push(Symbol {
            name: symbol.name,
            kind: symbol_kind(symbol.kind).to_owned(),
            container: symbol.container,
            depth: symbol.depth,
            location: location_at(symbol.path, symbol.range, texts).await,
        });
    }
    out
}

/// The edits of a WorkspaceEdit (`changes` and `documentChanges`) as a per-file preview;
/// file operations are not edits and are left out.
async fn rename_preview(edit: Option<WorkspaceEdit>, texts: &mut Texts<'_>) -> Vec<FileEdits> {
    fn document_edits(edit: TextDocumentEdit) -> (Uri, Vec<TextEdit>) {
        let edits = edit
            .edits
            .into_iter()
            .map(|edit| match edit {
                OneOf::Left(edit) => edit,
                OneOf::Right(annotated) => annotated.text_edit,
            })
            .collect();
        (edit.text_document.uri, edits)
    }
    let mut per_file: Vec<(Uri, Vec<TextEdit>)> = Vec::new();
    if let Some(edit) = edit {
        let mut changes: Vec<_> = edit.changes.unwrap_or_default().into_iter().collect();
        // The map has no order; by URI, files that land on one path keep a stable one.
        changes.sort_by(|a, b| a.0.cmp(&b.0));
        per_file.extend(changes);
        match edit.document_changes {
            None => {}
            Some(DocumentChanges::Edits(edits)) => {
                per_file.extend(edits.into_iter().map(document_edits));
            }
            Some(DocumentChanges::Operations(operations)) => {
                per_file.extend(operations.into_iter().filter_map(|operation| match operation {
                    DocumentChangeOperation::Edit(edit) => Some(document_edits(edit)),
                    DocumentChangeOperation::Op(_) => None,
                }));
            }
        }
    }
    let mut out = Vec::new();
    for (file_uri, edits) in per_file {
        let path = uri::path_or_text(&file_uri);
        let mut previews = Vec::new();
        for edit in edits {
            let location = location_at(path.clone(), Some(edit.range), texts).await;
            previews.push(TextEditPreview {
                line: location.line,
                character: location.character,
                end_line: location.end_line,
                end_character: location.end_character,
                new_text: edit.new_text,
                excerpt: location.excerpt,
            });
        }
        previews.sort_by_key(|e| (e.line, e.character));
        out.push(FileEdits { path, edits: previews });
    }
    out.sort_by(|a, b| a.path.cmp(&b.path));
    out
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use serde_json::{Value, json};

    use super::*;

    /// A server's JSON as the typed value the engine receives.
    fn typed<T: serde::de::DeserializeOwned>(value: Value) -> T {
        serde_json::from_value(value).unwrap()
    }

    #[test]
    fn hover_contents_of_every_shape_render_as_markdown() {
        let hover = |value: Value| {
            typed::<Option<lsp_types::Hover>>(value).and_then(|hover| render_hover(hover.contents))
        };
        let markup = json!({ "contents": { "kind": "markdown", "value": "**x** 你好" } });
        assert_eq!(hover(markup).unwrap(), "**x** 你好");
        let marked = json!({ "contents": [ { "language": "python", "value": "def f()" }, "doc" ] });
        assert_eq!(hover(marked).unwrap(), "```python\ndef f()\n```\n\ndoc");
        let single = json!({ "contents": { "language": "ts", "value": "let x" } });
        assert_eq!(hover(single).unwrap(), "```ts\nlet x\n```");
        assert_eq!(hover(json!({ "contents": "" })), None);
        assert_eq!(hover(json!({ "contents": { "kind": "plaintext", "value": " \n" } })), None);
        assert_eq!(hover(Value::Null), None);
    }

    #[test]
    fn diagnostics_are_one_based_with_severity_and_excerpt() {
        let item = typed(json!({
            "range": { "start": { "line": 1, "character": 4 }, "end": { "line": 1, "character": 6 } },
            "severity": 2, "message": "m", "source": "pyright", "code": "reportX"
        }));
        let d = diagnostic(&item, Path::new("/w/a.py"), "x\n 🎉 yz\n");
        assert_eq!((d.line, d.character, d.end_character), (2, 5, 7));
        assert_eq!((d.severity.as_str(), d.excerpt.as_str()), ("warning", "🎉 yz"));
        assert_eq!(d.code.as_deref(), Some("reportX"));
        assert_eq!(d.source.as_deref(), Some("pyright"));
        // A numeric code, no severity (an error), no source.
        let item = typed(json!({
            "range": { "start": { "line": 0, "character": 0 }, "end": { "line": 0, "character": 1 } },
            "message": "bad", "code": 2322
        }));
        let d = diagnostic(&item, Path::new("/w/a.ts"), "x\n");
        assert_eq!(
            (d.severity.as_str(), d.code.as_deref(), d.source, d.excerpt.as_str()),
            ("error", Some("2322"), None, "x")
        );
    }

    /// The lines `reporting` gives while 12 s of work run, its first after `first`.
    async fn reported(first: Duration) -> Vec<String> {
        let lines = Arc::new(Mutex::new(Vec::new()));
        let sink = Arc::clone(&lines);
        let progress: Progress = Arc::new(move |line: &str| sink.lock().unwrap().push(line.into()));
        let work = tokio::time::sleep(Duration::from_secs(12));
        reporting(Some(&progress), first, "installing x@1", async {
            work.await;
            7
        })
        .await;
        lines.lock().unwrap().clone()
    }

    #[tokio::test(start_paused = true)]
    async fn a_wait_is_reported_after_its_quiet_time_then_every_five_seconds() {
        assert_eq!(
            reported(CACHE_QUIET).await,
            ["installing x@1…", "installing x@1… 5 s", "installing x@1… 10 s"]
        );
        assert_eq!(
            reported(Duration::ZERO).await,
            ["installing x@1…", "installing x@1… 5 s", "installing x@1… 10 s"]
        );
        // Work done within the quiet time says nothing; no sink, nothing to say.
        assert!(reported(Duration::from_secs(13)).await.is_empty());
        let quick = reporting(None, Duration::ZERO, "x", async { 7 }).await;
        assert_eq!(quick, 7);
    }

    #[test]
    fn every_symbol_kind_has_its_protocol_name() {
        assert_eq!(symbol_kind(SymbolKind::FILE), "file");
        assert_eq!(symbol_kind(SymbolKind::FUNCTION), "function");
        assert_eq!(symbol_kind(SymbolKind::ENUM_MEMBER), "enum member");
        assert_eq!(symbol_kind(SymbolKind::TYPE_PARAMETER), "type parameter");
        assert_eq!(symbol_kind(typed(json!(27))), "symbol");
        assert_eq!(symbol_kind(typed(json!(0))), "symbol");
    }

    /// A workspace with `a.py` (two lines), and the excerpt reader over it.
    fn workspace() -> (tempfile::TempDir, PathBuf, dsh_core::host::Host) {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("a.py");
        std::fs::write(&file, "def f():\n    return \"你好 🎉\"\n").unwrap();
        (dir, file, dsh_core::host::Host::new())
    }

    fn texts(fs: &dsh_core::host::Host) -> Texts<'_> {
        Texts { fs, max_bytes: 1 << 20, cache: HashMap::new() }
    }

    #[tokio::test]
    async fn definitions_of_every_shape_become_located_excerpts() {
        let (_dir, file, fs) = workspace();
        let uri = uri::from_path(&file);
        let range = json!({ "start": { "line": 1, "character": 4 }, "end": { "line": 1, "character": 10 } });
        let name =
            json!({ "start": { "line": 0, "character": 4 }, "end": { "line": 0, "character": 5 } });
        let fs = &fs;
        let found = |value: Value| async move {
            locations(definition_targets(typed(value)), &mut texts(fs)).await
        };
        let expected = Location {
            path: file.clone(),
            line: 2,
            character: 5,
            end_line: 2,
            end_character: 11,
            excerpt: "return \"你好 🎉\"".into(),
        };
        let scalar = found(json!({ "uri": uri, "range": range })).await;
        assert_eq!((scalar.len(), &scalar[0]), (1, &expected));
        let array = found(json!([{ "uri": uri, "range": range }, { "uri": uri, "range": range }]));
        assert_eq!(array.await, [expected.clone(), expected]);
        let link = json!([{
            "targetUri": uri, "targetRange": range, "targetSelectionRange": name,
            "originSelectionRange": range
        }]);
        let name_location = Location {
            path: file.clone(),
            line: 1,
            character: 5,
            end_line: 1,
            end_character: 6,
            excerpt: "def f():".into(),
        };
        assert_eq!(found(link).await, [name_location]);
        assert_eq!(found(Value::Null).await, []);
        // A URI that names no local file is shown as sent, without an excerpt.
        let remote = found(json!({ "uri": "untitled:Untitled-1", "range": range })).await;
        assert_eq!(remote[0].path, PathBuf::from("untitled:Untitled-1"));
        assert_eq!(remote[0].excerpt, "");
    }

    #[tokio::test]
    async fn symbols_of_every_shape_are_flattened_with_depth_and_container() {
        let (_dir, file, fs) = workspace();
        let uri = uri::from_path(&file);
        let span = |line: u32, from: u32, to: u32| json!({ "start": { "line": line, "character": from }, "end": { "line": line, "character": to } });
        let outline: Vec<DocumentSymbol> = typed(json!([{
            "name": "f", "kind": 12, "range": span(0, 0, 8), "selectionRange": span(0, 4, 5),
            "children": [{ "name": "inner", "kind": 13, "range": span(1, 4, 10), "selectionRange": span(1, 4, 10) }]
        }]));
        let mut found = Vec::new();
        flatten_outline(outline, &file, None, 0, &mut found);
        let outline = symbols(found, &mut texts(&fs)).await;
        let shown: Vec<_> = outline
            .iter()
            .map(|s| {
                let at = (s.location.line, s.location.character, s.location.excerpt.as_str());
                (s.name.as_str(), s.kind.as_str(), s.container.as_deref(), s.depth, at)
            })
            .collect();
        assert_eq!(
            shown,
            [
                ("f", "function", None, 0, (1, 5, "def f():")),
                ("inner", "variable", Some("f"), 1, (2, 5, "return \"你好 🎉\"")),
            ]
        );
        assert!(outline.iter().all(|s| s.location.path == file));

        let listed: Vec<SymbolInformation> = typed(json!([
            { "name": "f", "kind": 12, "location": { "uri": uri, "range": span(0, 4, 5) }, "containerName": "" },
            { "name": "g", "kind": 6, "location": { "uri": uri, "range": span(1, 4, 5) }, "containerName": "C" }
        ]));
        let listed =
            symbols(listed.into_iter().map(FoundSymbol::listed).collect(), &mut texts(&fs)).await;
        assert_eq!(listed[0].container, None);
        assert_eq!(
            (listed[1].kind.as_str(), listed[1].container.as_deref()),
            ("method", Some("C"))
        );
        assert_eq!((listed[1].location.line, listed[1].location.character), (2, 5));

        // A workspace symbol may point at a whole file: no range, no excerpt.
        let searched: Vec<WorkspaceSymbol> =
            typed(json!([{ "name": "a", "kind": 2, "location": { "uri": uri } }]));
        let searched =
            symbols(searched.into_iter().map(FoundSymbol::searched).collect(), &mut texts(&fs))
                .await;
        let whole_file = Location {
            path: file.clone(),
            line: 1,
            character: 1,
            end_line: 1,
            end_character: 1,
            excerpt: String::new(),
        };
        assert_eq!((searched[0].kind.as_str(), &searched[0].location), ("module", &whole_file));
    }

    #[tokio::test]
    async fn rename_previews_gather_every_edit_shape_per_file_in_order() {
        let (dir, file, fs) = workspace();
        let other = dir.path().join("b c.py");
        std::fs::write(&other, "f()\n").unwrap();
        let (uri, other_uri) = (uri::from_path(&file), uri::from_path(&other));
        let edit = |line: u32, from: u32, to: u32| {
            json!({
                "range": { "start": { "line": line, "character": from }, "end": { "line": line, "character": to } },
                "newText": "g"
            })
        };
        let fs = &fs;
        let preview =
            |value: Value| async move { rename_preview(typed(value), &mut texts(fs)).await };
        let changes = json!({ "changes": { uri.clone(): [edit(0, 4, 5)], other_uri.clone(): [edit(0, 0, 1)] } });
        let expected = [
            FileEdits {
                path: file.clone(),
                edits: vec![TextEditPreview {
                    line: 1,
                    character: 5,
                    end_line: 1,
                    end_character: 6,
                    new_text: "g".into(),
                    excerpt: "def f():".into(),
                }],
            },
            FileEdits {
                path: other.clone(),
                edits: vec![TextEditPreview {
                    line: 1,
                    character: 1,
                    end_line: 1,
                    end_character: 2,
                    new_text: "g".into(),
                    excerpt: "f()".into(),
                }],
            },
        ];
        assert_eq!(preview(changes).await, expected);
        // documentChanges: plain and annotated edits, edits sorted; file operations skipped.
        let mut annotated = edit(0, 4, 5);
        annotated["annotationId"] = json!("rename");
        let document_changes = json!({ "documentChanges": [
            { "kind": "create", "uri": "file:///new.py" },
            { "textDocument": { "uri": other_uri, "version": null }, "edits": [edit(0, 0, 1)] },
            { "textDocument": { "uri": uri, "version": 1 }, "edits": [edit(1, 11, 12), annotated] }
        ] });
        let previews = preview(document_changes).await;
        assert_eq!(previews.len(), 2);
        assert_eq!(previews[1], expected[1]);
        let starts: Vec<_> = previews[0].edits.iter().map(|e| (e.line, e.character)).collect();
        assert_eq!((previews[0].path.clone(), starts), (file.clone(), vec![(1, 5), (2, 12)]));
        assert_eq!(preview(Value::Null).await, []);
    }
}
