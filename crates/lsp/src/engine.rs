//! The engine the `lsp` tool calls: picks the server for a file, starts it lazily (one per
//! server and project root), keeps documents in sync through the Fs seam, runs one
//! operation and renders the answer with 1-based UTF-16 positions and excerpts.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use dsh_core::{Fs, FsError, Subprocess};
use serde_json::{Value, json};

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
    version: i64,
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

fn extension_of(path: &Path) -> String {
    path.extension().map(|e| e.to_string_lossy().to_ascii_lowercase()).unwrap_or_default()
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
            json!({ "line": l, "character": c })
        } else {
            Value::Null
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
            if let Err(error) = self.ensure_started(&mut slot).await {
                if matches!(error, LspError::ServerExited { .. }) && attempt == 0 {
                    last_error = Some(error);
                    continue;
                }
                return Err(error);
            }
            let outcome = self.run(&mut slot, &op, &path, &extension, &text, &lsp_position).await;
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

    async fn ensure_started(&self, slot: &mut Slot) -> Result<(), LspError> {
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
        let Some(program) = find_program(self.fs.as_ref(), &program_name, &path).await else {
            return Err(LspError::ServerNotFound {
                server: slot.server.name.clone(),
                program: program_name,
                path,
                hint: slot.server.install_hint.clone(),
            });
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
                    connection
                        .notify(
                            "textDocument/didClose",
                            json!({ "textDocument": { "uri": uri::from_path(&other) } }),
                        )
                        .await?;
                }
                Err(_) => {}
            }
        }
        if documents.contains_key(path) {
            change_document(connection, documents, path, text.to_owned()).await?;
        } else {
            connection
                .notify(
                    "textDocument/didOpen",
                    json!({ "textDocument": {
                        "uri": uri::from_path(path),
                        "languageId": language_id(extension),
                        "version": 1,
                        "text": text,
                    } }),
                )
                .await?;
            documents.insert(
                path.to_path_buf(),
                Document { version: 1, text: text.to_owned(), synced_seq: connection.seq() },
            );
        }
        Ok(())
    }

    async fn run(
        &self,
        slot: &mut Slot,
        op: &Operation,
        path: &Path,
        extension: &str,
        text: &str,
        position: &Value,
    ) -> Result<LspOutput, LspError> {
        self.sync(slot, path, extension, text).await?;
        let Some(connection) = slot.connection.as_ref() else {
            return Err(LspError::Disposed);
        };
        let file_uri = uri::from_path(path);
        let document = json!({ "uri": file_uri });
        let at = json!({ "textDocument": document, "position": position });
        let timeout = self.config.request_timeout;
        let mut texts = Texts {
            fs: self.fs.as_ref(),
            max_bytes: self.config.max_file_bytes,
            cache: HashMap::from([(path.to_path_buf(), Some(text.to_owned()))]),
        };
        let require = |capability: &str| {
            if connection.supports(capability) {
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
                require("hoverProvider")?;
                let result = connection.request("textDocument/hover", at, timeout).await?;
                Ok(LspOutput::Hover(render_hover(&result)))
            }
            Operation::GoToDefinition | Operation::GoToImplementation => {
                let (method, capability) = if *op == Operation::GoToDefinition {
                    ("textDocument/definition", "definitionProvider")
                } else {
                    ("textDocument/implementation", "implementationProvider")
                };
                require(capability)?;
                let result = connection.request(method, at, timeout).await?;
                Ok(LspOutput::Locations(locations(&result, &mut texts).await))
            }
            Operation::FindReferences => {
                require("referencesProvider")?;
                let mut params = at;
                params["context"] = json!({ "includeDeclaration": true });
                let result = connection.request("textDocument/references", params, timeout).await?;
                Ok(LspOutput::Locations(locations(&result, &mut texts).await))
            }
            Operation::Diagnostics => {
                let items = if connection.supports("diagnosticProvider") {
                    let result = connection
                        .request(
                            "textDocument/diagnostic",
                            json!({ "textDocument": document }),
                            timeout,
                        )
                        .await?;
                    result.get("items").and_then(Value::as_array).cloned().unwrap_or_default()
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
                                method: "textDocument/publishDiagnostics".into(),
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
                require("documentSymbolProvider")?;
                let result = connection
                    .request(
                        "textDocument/documentSymbol",
                        json!({ "textDocument": document }),
                        timeout,
                    )
                    .await?;
                let mut out = Vec::new();
                if let Some(items) = result.as_array() {
                    for item in items {
                        symbols(item, path, None, 0, &mut texts, &mut out).await;
                    }
                }
                Ok(LspOutput::Symbols(out))
            }
            Operation::WorkspaceSymbols { query } => {
                require("workspaceSymbolProvider")?;
                let result = connection
                    .request("workspace/symbol", json!({ "query": query }), timeout)
                    .await?;
                let mut out = Vec::new();
                if let Some(items) = result.as_array() {
                    for item in items {
                        symbols(item, path, None, 0, &mut texts, &mut out).await;
                    }
                }
                Ok(LspOutput::Symbols(out))
            }
            Operation::Rename { new_name } => {
                require("renameProvider")?;
                let mut params = at;
                params["newName"] = json!(new_name);
                let result = connection.request("textDocument/rename", params, timeout).await?;
                Ok(LspOutput::Rename(rename_preview(&result, &mut texts).await))
            }
        }
    }
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
    connection
        .notify(
            "textDocument/didChange",
            json!({
                "textDocument": { "uri": uri::from_path(path), "version": version },
                "contentChanges": [ { "text": text } ],
            }),
        )
        .await?;
    doc.version = version;
    doc.text = text;
    doc.synced_seq = connection.seq();
    Ok(())
}

/// `Hover.contents` (MarkupContent, MarkedString or MarkedString[]) as markdown.
fn render_hover(result: &Value) -> Option<String> {
    fn marked(value: &Value) -> Option<String> {
        match value {
            Value::String(s) => Some(s.clone()),
            Value::Object(o) => {
                let text = o.get("value").and_then(Value::as_str)?;
                match (o.get("kind"), o.get("language").and_then(Value::as_str)) {
                    (Some(_), _) => Some(text.to_owned()),
                    (None, Some(language)) => Some(format!("```{language}\n{text}\n```")),
                    (None, None) => Some(text.to_owned()),
                }
            }
            _ => None,
        }
    }
    let contents = result.get("contents")?;
    let text = match contents {
        Value::Array(items) => items.iter().filter_map(marked).collect::<Vec<_>>().join("\n\n"),
        other => marked(other)?,
    };
    (!text.trim().is_empty()).then_some(text)
}

/// 1-based (line, character) of an LSP `Position`.
fn one_based(position: Option<&Value>) -> (u32, u32) {
    let get = |key: &str| {
        position.and_then(|p| p.get(key)).and_then(Value::as_u64).unwrap_or(0) as u32 + 1
    };
    (get("line"), get("character"))
}

async fn location_of(uri_text: &str, range: Option<&Value>, texts: &mut Texts<'_>) -> Location {
    let path = uri::to_path(uri_text).unwrap_or_else(|| PathBuf::from(uri_text));
    let (line, character) = one_based(range.and_then(|r| r.get("start")));
    let (end_line, end_character) = one_based(range.and_then(|r| r.get("end")));
    let excerpt = match texts.get(&path).await {
        Some(text) if range.is_some() => position::excerpt(text, line - 1, EXCERPT_CHARS),
        _ => String::new(),
    };
    Location { path, line, character, end_line, end_character, excerpt }
}

/// Location | Location[] | LocationLink[] | null.
async fn locations(result: &Value, texts: &mut Texts<'_>) -> Vec<Location> {
    let items = match result {
        Value::Array(items) => items.clone(),
        Value::Null => Vec::new(),
        other => vec![other.clone()],
    };
    let mut out = Vec::new();
    for item in &items {
        if let Some(target) = item.get("targetUri").and_then(Value::as_str) {
            let range = item.get("targetSelectionRange").or_else(|| item.get("targetRange"));
            out.push(location_of(target, range, texts).await);
        } else if let Some(uri_text) = item.get("uri").and_then(Value::as_str) {
            out.push(location_of(uri_text, item.get("range"), texts).await);
        }
    }
    out
}

fn diagnostic(item: &Value, path: &Path, text: &str) -> Diagnostic {
    let range = item.get("range");
    let (line, character) = one_based(range.and_then(|r| r.get("start")));
    let (end_line, end_character) = one_based(range.and_then(|r| r.get("end")));
    let severity = match item.get("severity").and_then(Value::as_u64) {
        Some(1) => "error",
        Some(2) => "warning",
        Some(3) => "information",
        Some(4) => "hint",
        _ => "error",
    };
    Diagnostic {
        path: path.to_path_buf(),
        severity: severity.to_owned(),
        line,
        character,
        end_line,
        end_character,
        message: item.get("message").and_then(Value::as_str).unwrap_or("").to_owned(),
        source: item.get("source").and_then(Value::as_str).map(str::to_owned),
        code: match item.get("code") {
            Some(Value::String(s)) => Some(s.clone()),
            Some(Value::Number(n)) => Some(n.to_string()),
            _ => None,
        },
        excerpt: position::excerpt(text, line - 1, EXCERPT_CHARS),
    }
}

const SYMBOL_KINDS: [&str; 26] = [
    "file",
    "module",
    "namespace",
    "package",
    "class",
    "method",
    "property",
    "field",
    "constructor",
    "enum",
    "interface",
    "function",
    "variable",
    "constant",
    "string",
    "number",
    "boolean",
    "array",
    "object",
    "key",
    "null",
    "enum member",
    "struct",
    "event",
    "operator",
    "type parameter",
];

fn symbol_kind(item: &Value) -> String {
    item.get("kind")
        .and_then(Value::as_u64)
        .and_then(|k| SYMBOL_KINDS.get((k as usize).wrapping_sub(1)))
        .map_or_else(|| "symbol".to_owned(), |k| (*k).to_owned())
}

/// DocumentSymbol (with children), SymbolInformation or WorkspaceSymbol, flattened.
fn symbols<'a>(
    item: &'a Value,
    path: &'a Path,
    container: Option<String>,
    depth: usize,
    texts: &'a mut Texts<'_>,
    out: &'a mut Vec<Symbol>,
) -> std::pin::Pin<Box<dyn std::future::Future<Output = ()> + Send + 'a>> {
    Box::pin(async move {
        let name = item.get("name").and_then(Value::as_str).unwrap_or("").to_owned();
        let kind = symbol_kind(item);
        let location = if let Some(range) = item.get("selectionRange").or_else(|| item.get("range"))
        {
            // DocumentSymbol: ranges are in the requested document.
            location_of(&uri::from_path(path), Some(range), texts).await
        } else if let Some(location) = item.get("location") {
            let uri_text = location.get("uri").and_then(Value::as_str).unwrap_or("");
            location_of(uri_text, location.get("range"), texts).await
        } else {
            location_of(&uri::from_path(path), None, texts).await
        };
        let container = item
            .get("containerName")
            .and_then(Value::as_str)
            .filter(|c| !c.is_empty())
            .map(str::to_owned)
            .or(container);
        out.push(Symbol { name: name.clone(), kind, container, depth, location });
        if let Some(children) = item.get("children").and_then(Value::as_array) {
            for child in children {
                symbols(child, path, Some(name.clone()), depth + 1, texts, out).await;
            }
        }
    })
}

/// WorkspaceEdit (`changes` or `documentChanges`) as a per-file preview.
async fn rename_preview(result: &Value, texts: &mut Texts<'_>) -> Vec<FileEdits> {
    let mut per_file: Vec<(String, Vec<Value>)> = Vec::new();
    if let Some(changes) = result.get("changes").and_then(Value::as_object) {
        for (uri_text, edits) in changes {
            per_file.push((uri_text.clone(), edits.as_array().cloned().unwrap_or_default()));
        }
    }
    if let Some(changes) = result.get("documentChanges").and_then(Value::as_array) {
        for change in changes {
            if let Some(uri_text) =
                change.get("textDocument").and_then(|d| d.get("uri")).and_then(Value::as_str)
            {
                let edits = change.get("edits").and_then(Value::as_array).cloned();
                per_file.push((uri_text.to_owned(), edits.unwrap_or_default()));
            }
        }
    }
    let mut out = Vec::new();
    for (uri_text, edits) in per_file {
        let mut previews = Vec::new();
        for edit in &edits {
            let location = location_of(&uri_text, edit.get("range"), texts).await;
            previews.push(TextEditPreview {
                line: location.line,
                character: location.character,
                end_line: location.end_line,
                end_character: location.end_character,
                new_text: edit.get("newText").and_then(Value::as_str).unwrap_or("").to_owned(),
                excerpt: location.excerpt,
            });
        }
        previews.sort_by_key(|e| (e.line, e.character));
        let path = uri::to_path(&uri_text).unwrap_or_else(|| PathBuf::from(&uri_text));
        out.push(FileEdits { path, edits: previews });
    }
    out.sort_by(|a, b| a.path.cmp(&b.path));
    out
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;

    #[test]
    fn hover_contents_of_every_shape_render_as_markdown() {
        let markup = json!({ "contents": { "kind": "markdown", "value": "**x** 你好" } });
        assert_eq!(render_hover(&markup).unwrap(), "**x** 你好");
        let marked = json!({ "contents": [ { "language": "python", "value": "def f()" }, "doc" ] });
        assert_eq!(render_hover(&marked).unwrap(), "```python\ndef f()\n```\n\ndoc");
        assert_eq!(render_hover(&json!({ "contents": "" })), None);
        assert_eq!(render_hover(&Value::Null), None);
    }

    #[test]
    fn diagnostics_are_one_based_with_severity_and_excerpt() {
        let item = json!({
            "range": { "start": { "line": 1, "character": 4 }, "end": { "line": 1, "character": 6 } },
            "severity": 2, "message": "m", "source": "pyright", "code": "reportX"
        });
        let d = diagnostic(&item, Path::new("/w/a.py"), "x\n 🎉 yz\n");
        assert_eq!((d.line, d.character, d.end_character), (2, 5, 7));
        assert_eq!((d.severity.as_str(), d.excerpt.as_str()), ("warning", "🎉 yz"));
        assert_eq!(d.code.as_deref(), Some("reportX"));
    }
}
