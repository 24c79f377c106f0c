//! A missing server comes from the server cache before npm runs in the sandbox: the
//! cache's program directory is used (and remembered across a restart), a cache that
//! cannot serve here falls back to npm, a failing one is an install failure naming the
//! command to run; the wait is reported through the request's progress sink, in order.
//!
//! The cache is `FixedCache`, a named fake standing in for the sandbox daemon (whose
//! real layers are tested in dsh's MCP suite): it answers what it is told, after a
//! delay, and records what it was asked. The servers are real: pyright from
//! `<repo>/.tools/node_modules/.bin`.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use dsh_core::{BoxFuture, Progress};
use dsh_lsp::{CachedServer, LspConfig, LspError, Operation, ServerCache, ServerConfig};

use super::common::{Backend, Harness, hover_text, tools_bin};
use super::provision::{package, server};

const PYRIGHT: &str = "pyright@1.1.414";

#[derive(Debug, Clone)]
enum Answer {
    Serve { bin: PathBuf, cached: bool },
    NotHere,
    Fail(String),
}

#[derive(Debug)]
struct FixedCache {
    answer: Answer,
    delay: Duration,
    /// The packages of every call, in order.
    asked: Mutex<Vec<Vec<String>>>,
    busy: AtomicUsize,
    /// The most calls that ran at once.
    most_at_once: AtomicUsize,
}

impl FixedCache {
    fn new(answer: Answer, delay: Duration) -> Arc<Self> {
        Arc::new(Self {
            answer,
            delay,
            asked: Mutex::new(Vec::new()),
            busy: AtomicUsize::new(0),
            most_at_once: AtomicUsize::new(0),
        })
    }

    fn asked(&self) -> Vec<Vec<String>> {
        self.asked.lock().unwrap().clone()
    }
}

impl ServerCache for FixedCache {
    fn provide<'a>(
        &'a self,
        packages: &'a [String],
        _progress: Option<&'a Progress>,
    ) -> BoxFuture<'a, Result<Option<CachedServer>, String>> {
        Box::pin(async move {
            self.asked.lock().unwrap().push(packages.to_vec());
            let now = self.busy.fetch_add(1, Ordering::SeqCst) + 1;
            self.most_at_once.fetch_max(now, Ordering::SeqCst);
            tokio::time::sleep(self.delay).await;
            self.busy.fetch_sub(1, Ordering::SeqCst);
            match &self.answer {
                Answer::Serve { bin, cached } => {
                    Ok(Some(CachedServer { bin: bin.clone(), cached: *cached }))
                }
                Answer::NotHere => Ok(None),
                Answer::Fail(message) => Err(message.clone()),
            }
        })
    }
}

/// A progress sink and the lines it received.
fn collector() -> (Progress, Arc<Mutex<Vec<String>>>) {
    let lines = Arc::new(Mutex::new(Vec::new()));
    let sink = Arc::clone(&lines);
    (Arc::new(move |line: &str| sink.lock().unwrap().push(line.to_owned())), lines)
}

fn pyright() -> ServerConfig {
    let server = dsh_lsp::default_servers().into_iter().find(|s| s.name == "pyright").unwrap();
    assert_eq!(server.install, [PYRIGHT]);
    server
}

/// npm's prefix in the workspace, on the search path; the cache `cache`; `servers`.
async fn harness(cache: &Arc<FixedCache>, servers: Vec<ServerConfig>) -> Harness {
    let cache: Arc<dyn ServerCache> = cache.clone();
    Harness::new(Backend::Host, move |c: &mut LspConfig| {
        let prefix = c.workspace_root.join(".dsh-e2b/servers");
        c.search_path = vec![prefix.join("node_modules/.bin")];
        c.install_prefix = Some(prefix);
        c.servers = servers;
        c.server_cache = Some(cache);
        c.request_timeout = Duration::from_secs(60);
    })
    .await
}

const SOURCE: &str = "def greet() -> str:\n    \"\"\"Say hi.\"\"\"\n    return 'hi'\n\ngreet()\n";

async fn hover(h: &Harness, file: &Path, progress: &Progress) -> Result<String, LspError> {
    let result =
        h.engine.request_with_progress(Operation::Hover, file, 5, 1, Some(progress)).await?;
    Ok(hover_text(&result))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_server_cache_is_asked_before_npm_and_remembered_across_a_restart() {
    let cache = FixedCache::new(Answer::Serve { bin: tools_bin(), cached: true }, Duration::ZERO);
    let h = harness(&cache, vec![pyright()]).await;
    let file = h.write("a.py", SOURCE).await;
    let (progress, lines) = collector();
    let text = hover(&h, &file, &progress).await.unwrap();
    assert!(text.contains("Say hi."), "{text}");
    assert_eq!(cache.asked(), [[PYRIGHT]]);
    assert_eq!(*lines.lock().unwrap(), [format!("{PYRIGHT}: cached on this machine")]);
    // npm never ran in the sandbox.
    assert!(!h.root.join(".dsh-e2b").exists());
    let running = h.engine.running().await;
    assert_eq!(running.len(), 1);

    // The server dies; the next request restarts it from the cache's directory without
    // asking the cache again.
    let pid = running[0].2.to_string();
    assert!(std::process::Command::new("kill").args(["-KILL", &pid]).status().unwrap().success());
    for _ in 0..200 {
        if h.engine.running().await.is_empty() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    assert!(h.engine.running().await.is_empty(), "the killed server still looks alive");
    let again = hover(&h, &file, &progress).await.unwrap();
    assert!(again.contains("Say hi."), "{again}");
    assert_ne!(h.engine.running().await[0].2.to_string(), pid);
    assert_eq!(cache.asked().len(), 1);
    assert_eq!(lines.lock().unwrap().len(), 1, "{:?}", lines.lock().unwrap());
    h.engine.dispose().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_slow_cache_is_reported_as_an_install_and_installs_run_one_at_a_time() {
    let delay = Duration::from_millis(1200);
    let cache = FixedCache::new(Answer::Serve { bin: tools_bin(), cached: false }, delay);
    // A second server on another extension, so two requests need two installs.
    let (mut sources, mut stubs) = (pyright(), pyright());
    sources.extensions = vec!["py".into()];
    stubs.name = "pyright-stubs".into();
    stubs.extensions = vec!["pyi".into()];
    let h = harness(&cache, vec![sources, stubs]).await;
    let file = h.write("a.py", SOURCE).await;
    let stub = h.write("b.pyi", SOURCE).await;
    let (first_progress, first) = collector();
    let (second_progress, second) = collector();
    let (a, b) = tokio::join!(hover(&h, &file, &first_progress), async {
        // Starts once the first install holds the lock.
        tokio::time::sleep(Duration::from_millis(300)).await;
        let result = h
            .engine
            .request_with_progress(Operation::Hover, &stub, 5, 1, Some(&second_progress))
            .await;
        result.map(|r| hover_text(&r))
    });
    assert!(a.unwrap().contains("Say hi."));
    assert!(b.unwrap().contains("Say hi."));
    assert_eq!(cache.asked(), [[PYRIGHT], [PYRIGHT]]);
    assert_eq!(cache.most_at_once.load(Ordering::SeqCst), 1);
    let installing = format!("installing {PYRIGHT} (first use on this machine)…");
    let installed = format!("installed {PYRIGHT} in 1 s");
    assert_eq!(*first.lock().unwrap(), [installing.clone(), installed.clone()]);
    assert_eq!(
        *second.lock().unwrap(),
        [
            "waiting for another language server's install to finish…".to_owned(),
            installing,
            installed
        ]
    );
    h.engine.dispose().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cache_that_cannot_serve_here_falls_back_to_npm_in_the_sandbox() {
    let cache = FixedCache::new(Answer::NotHere, Duration::ZERO);
    let packages = tempfile::tempdir().unwrap();
    let local = package(packages.path());
    let h = harness(&cache, vec![server(vec![local.clone()])]).await;
    let file = h.write("a.py", SOURCE).await;
    let (progress, lines) = collector();
    let text = hover(&h, &file, &progress).await.unwrap();
    assert!(text.contains("Say hi."), "{text}");
    assert_eq!(cache.asked(), [[local.clone()]]);
    let installed = h.root.join(".dsh-e2b/servers/node_modules/.bin/provisioned-pyright");
    assert!(installed.exists(), "{} missing", installed.display());
    let lines = lines.lock().unwrap().clone();
    let waiting = format!("installing {local} in the sandbox (first use)…");
    assert_eq!(lines.first(), Some(&waiting), "{lines:?}");
    // npm may take long enough for "… 5 s" lines in between; the last says it is done.
    let (last, middle) = lines[1..].split_last().unwrap();
    assert!(middle.iter().all(|line| line.starts_with(&format!("{waiting} "))), "{lines:?}");
    let done = last.strip_prefix(&format!("installed {local} in the sandbox in ")).unwrap();
    assert!(done.strip_suffix(" s").unwrap().parse::<u64>().is_ok(), "{lines:?}");
    h.engine.dispose().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_failing_cache_is_an_install_failure_naming_the_command_and_npm_does_not_run() {
    let message = "the sandbox daemon could not provide pyright@1.1.414: building the layer \
                   failed: npm ERR! 404 Not Found";
    let cache = FixedCache::new(Answer::Fail(message.into()), Duration::ZERO);
    let h = harness(&cache, vec![pyright()]).await;
    let file = h.write("a.py", SOURCE).await;
    let (progress, lines) = collector();
    let error = hover(&h, &file, &progress).await.unwrap_err();
    let command = format!(
        "npm install --prefix {} --no-audit --no-fund --loglevel=error {PYRIGHT}",
        h.root.join(".dsh-e2b/servers").display()
    );
    let LspError::InstallFailed { server, command: named, detail } = &error else {
        panic!("{error:?}")
    };
    assert_eq!((server.as_str(), named, detail.as_str()), ("pyright", &command, message));
    assert_eq!(
        error.to_string(),
        format!(
            "language server pyright is not installed and installing it failed: {message}; \
             install it yourself with `{command}` (in the sandbox)"
        )
    );
    assert!(lines.lock().unwrap().is_empty(), "{:?}", lines.lock().unwrap());
    assert!(!h.root.join(".dsh-e2b").exists());

    // A directory without the program is a failure too, naming what is missing.
    let empty = tempfile::tempdir().unwrap();
    let cache = FixedCache::new(
        Answer::Serve { bin: empty.path().to_path_buf(), cached: true },
        Duration::ZERO,
    );
    let h = harness(&cache, vec![pyright()]).await;
    let file = h.write("a.py", SOURCE).await;
    let error = hover(&h, &file, &progress).await.unwrap_err();
    let LspError::InstallFailed { detail, .. } = &error else { panic!("{error:?}") };
    assert_eq!(
        detail,
        &format!("the server cache provided {} without pyright-langserver", empty.path().display())
    );

    // Provisioning off: the cache is not asked.
    let cache = FixedCache::new(Answer::NotHere, Duration::ZERO);
    let shared: Arc<dyn ServerCache> = cache.clone();
    let h = Harness::new(Backend::Host, |c| {
        c.servers = vec![pyright()];
        c.server_cache = Some(shared);
        c.provision = false;
    })
    .await;
    let file = h.write("a.py", SOURCE).await;
    let error = hover(&h, &file, &progress).await.unwrap_err();
    assert!(matches!(error, LspError::ServerNotFound { .. }), "{error:?}");
    assert!(cache.asked().is_empty());
}
