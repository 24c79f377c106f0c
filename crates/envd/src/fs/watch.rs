//! Directory watching over inotify: the streaming `WatchDir` and the polling watchers
//! (`CreateWatcher` / `GetWatcherEvents` / `RemoveWatcher`) that sync clients use.

use std::collections::HashMap;
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use axum::Router;
use dsh_proto::connect::{Code, ConnectError};
use dsh_proto::filesystem::*;
use futures_util::StreamExt as _;
use inotify::{EventMask, Inotify, WatchDescriptor, WatchMask, Watches};
use rand::Rng as _;
use tokio::time::Instant;

use crate::rpc::{self, CallContext, StreamWriter};
use crate::state::Envd;

/// Events a polling watcher keeps between polls; older ones are dropped past this.
const MAX_BUFFERED_EVENTS: usize = 100_000;

pub fn routes() -> Router<Arc<Envd>> {
    Router::new()
        .route("/filesystem.Filesystem/WatchDir", rpc::server_stream_route(watch_dir))
        .route("/filesystem.Filesystem/CreateWatcher", rpc::unary_route(create_watcher))
        .route("/filesystem.Filesystem/GetWatcherEvents", rpc::unary_route(get_watcher_events))
        .route("/filesystem.Filesystem/RemoveWatcher", rpc::unary_route(remove_watcher))
}

/// What to watch.
struct WatchSpec {
    root: PathBuf,
    recursive: bool,
    include_entry: bool,
}

fn validate(
    envd: &Envd,
    path: &str,
    allow_network: bool,
    context: &CallContext,
) -> Result<PathBuf, ConnectError> {
    let root = super::resolve(envd, path, &context.user)?;
    let meta = std::fs::metadata(&root).map_err(|err| super::io_error(&root, &err))?;
    if !meta.is_dir() {
        return Err(ConnectError::invalid_argument(format!(
            "path '{}' is not a directory",
            root.display()
        )));
    }
    if !allow_network && super::is_network_mount(&root) {
        return Err(ConnectError::invalid_argument(format!(
            "path '{}' is on a network mount; set allow_network_mounts to watch it",
            root.display()
        )));
    }
    Ok(root)
}

/// An inotify watch over a directory (and, when recursive, its subdirectories).
struct DirWatch {
    spec: WatchSpec,
    events: inotify::EventStream<Vec<u8>>,
    /// The same inotify instance, to ask the kernel whether events wait unread.
    pending: std::os::fd::OwnedFd,
    watches: Watches,
    /// Each watched directory, relative to the root.
    dirs: HashMap<WatchDescriptor, PathBuf>,
    users: crate::users::UserDb,
    /// E2B-strict: entries carry fields 1 to 11 only (see `crate::strict::entry`).
    strict: bool,
}

const MASK: WatchMask = WatchMask::CREATE
    .union(WatchMask::MODIFY)
    .union(WatchMask::DELETE)
    .union(WatchMask::MOVED_FROM)
    .union(WatchMask::MOVED_TO)
    .union(WatchMask::ATTRIB)
    .union(WatchMask::ONLYDIR)
    .union(WatchMask::DONT_FOLLOW);

impl DirWatch {
    fn new(spec: WatchSpec, envd: &Envd) -> Result<Self, ConnectError> {
        let (users, strict) = (envd.users.clone(), envd.config.strict.is_some());
        let inotify = Inotify::init()
            .map_err(|err| ConnectError::internal(format!("error creating watcher: {err}")))?;
        let watches = inotify.watches();
        let pending = std::os::fd::AsFd::as_fd(&inotify)
            .try_clone_to_owned()
            .map_err(|err| ConnectError::internal(format!("error creating watcher: {err}")))?;
        let events = inotify
            .into_event_stream(vec![0u8; 64 * 1024])
            .map_err(|err| ConnectError::internal(format!("error creating watcher: {err}")))?;
        let mut watch =
            Self { spec, events, pending, watches, dirs: HashMap::new(), users, strict };
        let root = watch.spec.root.clone();
        watch.add_tree(&root, PathBuf::new()).map_err(|err| {
            ConnectError::internal(format!("error watching '{}': {err}", root.display()))
        })?;
        Ok(watch)
    }

    fn add_tree(&mut self, dir: &Path, relative: PathBuf) -> std::io::Result<()> {
        let wd = self.watches.add(dir, MASK)?;
        self.dirs.insert(wd, relative.clone());
        if self.spec.recursive {
            let mut children: Vec<OsString> = std::fs::read_dir(dir)?
                .filter_map(Result::ok)
                .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
                .map(|e| e.file_name())
                .collect();
            children.sort();
            for child in children {
                // A directory that vanished meanwhile is simply not watched.
                let _ = self.add_tree(&dir.join(&child), relative.join(&child));
            }
        }
        Ok(())
    }

    /// Waits for the next batch of changes.
    async fn next(&mut self) -> Result<Vec<FilesystemEvent>, ConnectError> {
        loop {
            let event = self.events.next().await;
            if let Some(batch) = self.handle(event)? {
                return Ok(batch);
            }
        }
    }

    /// Every change available now: what the stream holds, and what the kernel has
    /// queued (read as soon as the runtime sees it, until `deadline`).
    async fn drain_now(&mut self, deadline: Instant) -> Result<Vec<FilesystemEvent>, ConnectError> {
        use futures_util::FutureExt as _;
        let mut changes = Vec::new();
        loop {
            let event = match self.events.next().now_or_never() {
                Some(event) => event,
                None if has_pending(&self.pending) => {
                    match tokio::time::timeout_at(deadline, self.events.next()).await {
                        Ok(event) => event,
                        Err(_) => break,
                    }
                }
                None => break,
            };
            if let Some(batch) = self.handle(event)? {
                changes.extend(batch);
            }
        }
        Ok(changes)
    }

    /// One inotify event as E2B's events (none for one that is not reported).
    fn handle(
        &mut self,
        event: Option<std::io::Result<inotify::Event<OsString>>>,
    ) -> Result<Option<Vec<FilesystemEvent>>, ConnectError> {
        {
            let event = match event {
                Some(Ok(event)) => event,
                Some(Err(err)) => {
                    return Err(ConnectError::internal(format!("watcher failed: {err}")));
                }
                None => return Err(ConnectError::internal("watcher stopped")),
            };
            if event.mask.contains(EventMask::IGNORED) {
                self.dirs.remove(&event.wd);
                if self.dirs.is_empty() {
                    return Err(ConnectError::not_found(format!(
                        "watched directory '{}' was removed",
                        self.spec.root.display()
                    )));
                }
                return Ok(None);
            }
            let (Some(base), Some(name)) = (self.dirs.get(&event.wd).cloned(), event.name) else {
                return Ok(None);
            };
            let relative = base.join(&name);
            if self.spec.recursive
                && event.mask.contains(EventMask::ISDIR)
                && event.mask.intersects(EventMask::CREATE | EventMask::MOVED_TO)
            {
                let _ = self.add_tree(&self.spec.root.join(&relative), relative.clone());
            }
            let mut batch = Vec::new();
            // One inotify event can carry several operations; E2B reports them in this order.
            let ops = [
                (EventMask::CREATE | EventMask::MOVED_TO, EventType::Create),
                (EventMask::MOVED_FROM, EventType::Rename),
                (EventMask::ATTRIB, EventType::Chmod),
                (EventMask::MODIFY, EventType::Write),
                (EventMask::DELETE, EventType::Remove),
            ];
            for (mask, kind) in ops {
                if !event.mask.intersects(mask) {
                    continue;
                }
                let entry = (self.spec.include_entry
                    && matches!(kind, EventType::Create | EventType::Write | EventType::Chmod))
                .then(|| {
                    let entry =
                        super::entry::entry_info(&self.spec.root.join(&relative), &self.users);
                    entry.ok().map(|mut entry| {
                        entry.is_symlink &= !self.strict;
                        entry
                    })
                })
                .flatten();
                batch.push(FilesystemEvent {
                    name: relative.to_string_lossy().into_owned(),
                    r#type: kind as i32,
                    entry,
                });
            }
            Ok((!batch.is_empty()).then_some(batch))
        }
    }
}

async fn watch_dir(
    envd: Arc<Envd>,
    request: WatchDirRequest,
    context: CallContext,
    out: StreamWriter<WatchDirResponse>,
) -> Result<(), ConnectError> {
    let root = validate(&envd, &request.path, request.allow_network_mounts, &context)?;
    let spec =
        WatchSpec { root, recursive: request.recursive, include_entry: request.include_entry };
    let mut watch = DirWatch::new(spec, &envd)?;
    let wrap = |event| WatchDirResponse { event: Some(event) };
    out.send(&wrap(watch_dir_response::Event::Start(watch_dir_response::StartEvent {}))).await?;
    let deadline = context.timeout.map(|t| Instant::now() + t);
    loop {
        let deadline_passed = async {
            match deadline {
                Some(at) => tokio::time::sleep_until(at).await,
                None => std::future::pending().await,
            }
        };
        tokio::select! {
            batch = watch.next() => {
                for event in batch? {
                    out.send(&wrap(watch_dir_response::Event::Filesystem(event))).await?;
                }
            }
            () = tokio::time::sleep(context.keepalive) => {
                out.send(&wrap(watch_dir_response::Event::Keepalive(watch_dir_response::KeepAlive {}))).await?;
            }
            () = deadline_passed => {
                return Err(ConnectError::new(Code::DeadlineExceeded, "the call's deadline passed"));
            }
        }
    }
}

/// Polling watchers, by id.
#[derive(Default)]
pub struct WatcherTable {
    watchers: Mutex<HashMap<String, PollingWatcher>>,
}

/// A watch running in its own task, buffering events until the next poll.
struct PollingWatcher {
    buffered: Arc<Mutex<Buffered>>,
    task: tokio::task::JoinHandle<()>,
    /// Asks the task to take in what the kernel holds now, and says when it has.
    flushes: tokio::sync::mpsc::Sender<tokio::sync::oneshot::Sender<()>>,
}

/// How long a poll waits for changes the kernel already queued (a write answered before
/// the poll was sent) to reach the buffer: the watcher's task reads them within
/// microseconds unless the machine is loaded.
const PENDING_WAIT: std::time::Duration = std::time::Duration::from_secs(2);

/// Whether `fd` (an inotify instance) has events to read, without reading them.
fn has_pending(fd: &std::os::fd::OwnedFd) -> bool {
    let mut poll =
        libc::pollfd { fd: std::os::fd::AsRawFd::as_raw_fd(fd), events: libc::POLLIN, revents: 0 };
    // SAFETY: poll(2) on one pollfd we own, with no wait.
    let ready = unsafe { libc::poll(&raw mut poll, 1, 0) };
    ready > 0 && poll.revents & libc::POLLIN != 0
}

#[derive(Default)]
struct Buffered {
    events: std::collections::VecDeque<FilesystemEvent>,
    error: Option<ConnectError>,
}

impl Buffered {
    fn take(&mut self, batch: Vec<FilesystemEvent>) {
        self.events.extend(batch);
        while self.events.len() > MAX_BUFFERED_EVENTS {
            self.events.pop_front();
        }
    }
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    match mutex.lock() {
        Ok(guard) => guard,
        Err(poisoned) => poisoned.into_inner(),
    }
}

fn watcher_id() -> String {
    const ALPHABET: &[u8] = b"abcdefghijklmnopqrstuvwxyz0123456789";
    let mut rng = rand::rng();
    let suffix: String =
        (0..20).map(|_| ALPHABET[rng.random_range(0..ALPHABET.len())] as char).collect();
    format!("w{suffix}")
}

async fn create_watcher(
    envd: Arc<Envd>,
    request: CreateWatcherRequest,
    context: CallContext,
) -> Result<CreateWatcherResponse, ConnectError> {
    let root = validate(&envd, &request.path, request.allow_network_mounts, &context)?;
    let open = lock(&envd.watchers.watchers).len();
    if open >= envd.config.caps.watchers {
        return Err(ConnectError::new(
            Code::ResourceExhausted,
            format!("{open} watchers are open, the most envd keeps at once; remove some first"),
        ));
    }
    let spec =
        WatchSpec { root, recursive: request.recursive, include_entry: request.include_entry };
    let mut watch = DirWatch::new(spec, &envd)?;
    let buffered = Arc::new(Mutex::new(Buffered::default()));
    let sink = Arc::clone(&buffered);
    let (flushes, mut asked) = tokio::sync::mpsc::channel::<tokio::sync::oneshot::Sender<()>>(16);
    let task = tokio::spawn(async move {
        loop {
            // The watch first: a flush is taken only while the watch waits on the kernel,
            // so nothing it read is held back in between.
            let outcome = tokio::select! {
                biased;
                batch = watch.next() => batch,
                Some(done) = asked.recv() => {
                    let drained = watch.drain_now(Instant::now() + PENDING_WAIT).await;
                    let _ = done.send(());
                    drained
                }
            };
            match outcome {
                Ok(batch) => lock(&sink).take(batch),
                Err(error) => {
                    lock(&sink).error = Some(error);
                    return;
                }
            }
        }
    });
    let id = watcher_id();
    lock(&envd.watchers.watchers).insert(id.clone(), PollingWatcher { buffered, task, flushes });
    Ok(CreateWatcherResponse { watcher_id: id })
}

fn not_found(id: &str) -> ConnectError {
    ConnectError::not_found(format!("watcher with id {id} not found"))
}

async fn get_watcher_events(
    envd: Arc<Envd>,
    request: GetWatcherEventsRequest,
    _: CallContext,
) -> Result<GetWatcherEventsResponse, ConnectError> {
    let (buffer, flushes) = lock(&envd.watchers.watchers)
        .get(&request.watcher_id)
        .map(|w| (Arc::clone(&w.buffered), w.flushes.clone()))
        .ok_or_else(|| not_found(&request.watcher_id))?;
    // A change made before this poll (a write the caller saw answered) is queued in the
    // kernel already: the task takes it in before the poll answers (E2B's SDK reads the
    // events once, right after its own write). A task that ended answers at once.
    let (done, flushed) = tokio::sync::oneshot::channel();
    if flushes.send(done).await.is_ok() {
        let _ = tokio::time::timeout(PENDING_WAIT * 2, flushed).await;
    }
    let mut buffered = lock(&buffer);
    if let Some(error) = buffered.error.clone() {
        return Err(error);
    }
    Ok(GetWatcherEventsResponse { events: buffered.events.drain(..).collect() })
}

async fn remove_watcher(
    envd: Arc<Envd>,
    request: RemoveWatcherRequest,
    _: CallContext,
) -> Result<RemoveWatcherResponse, ConnectError> {
    let removed = lock(&envd.watchers.watchers).remove(&request.watcher_id);
    let watcher = removed.ok_or_else(|| not_found(&request.watcher_id))?;
    watcher.task.abort();
    Ok(RemoveWatcherResponse {})
}
