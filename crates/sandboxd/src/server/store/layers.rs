//! Read-only layers shared by every sandbox of this daemon: language servers (npm
//! packages at pinned versions) installed once per machine instead of once per sandbox.
//!
//! Layout under `<state>/layers/`:
//! - `store/sha256-<hex>/`: a finished layer, never written again. Its name is the digest
//!   of its content (paths, kinds, modes, file bytes, link targets), so two recipes that
//!   produce the same files share one layer.
//! - `store/sha256-<hex>.json`: its manifest (recipe, size, file count, build time).
//! - `recipes/<hex>.json`: which layer a recipe produced (the recipe's own digest).
//! - `build/<random>/`: a layer being built; moved into `store/` when complete.
//! - `empty/`: the second lower layer a read-only overlay needs.
//! - `view/`: a tmpfs with shared propagation. Each layer is mounted under it as a
//!   read-only overlay; every sandbox binds the view recursively as a slave (see
//!   [`crate::plan::LAYERS_DIR`]), so a layer mounted here appears at once in every
//!   running sandbox and in every later one.
//!
//! Overlays name their lower layers through `/proc/self/fd/<n>`, so mountinfo inside a
//! sandbox shows no host path, as with every other mount of a sandbox.
//!
//! npm runs on the host, as the daemon's user, with `--ignore-scripts`: no package code
//! runs at install, and nothing inside a sandbox can write to a layer (the overlays are
//! read-only and owned by host ids).

use std::collections::HashMap;
use std::io::{Read, Write};
use std::os::fd::AsRawFd;
use std::os::unix::fs::{MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{Context, bail};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::syscall::{LinuxSyscall, MountFlags, Syscall};

/// Most packages one recipe may name.
pub const MAX_PACKAGES: usize = 16;
/// npm's own limit on a package name.
const MAX_NAME_LEN: usize = 214;
const MAX_VERSION_LEN: usize = 64;
/// How much of npm's stderr is kept for an error message.
const STDERR_TAIL: usize = 16 * 1024;

/// What a layer is built from: npm packages, each pinned to one exact version.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Recipe {
    pub npm: Vec<String>,
}

impl Recipe {
    /// Checks every package spec is `name@version` with an exact version (no ranges,
    /// tags, URLs, paths or git specs: a layer is reproducible and names what it holds).
    pub fn validate(&self) -> Result<(), String> {
        if self.npm.is_empty() {
            return Err("the recipe names no npm package".into());
        }
        if self.npm.len() > MAX_PACKAGES {
            return Err(format!(
                "at most {MAX_PACKAGES} packages per layer, got {}",
                self.npm.len()
            ));
        }
        let mut seen = std::collections::HashSet::new();
        for spec in &self.npm {
            let (name, version) = split_spec(spec).ok_or_else(|| {
                format!("{spec:?} is not name@version (an exact version, like pyright@1.1.414)")
            })?;
            if !valid_name(name) {
                return Err(format!("{name:?} is not an npm package name"));
            }
            if !valid_version(version) {
                return Err(format!(
                    "{spec:?}: the version must be exact (digits, letters, '.', '-', '+'), not a range or tag"
                ));
            }
            if !seen.insert(name) {
                return Err(format!("{name:?} is named twice"));
            }
        }
        Ok(())
    }

    /// The digest a recipe is looked up by: independent of the order packages are named.
    fn key(&self) -> String {
        let mut packages: Vec<&str> = self.npm.iter().map(String::as_str).collect();
        packages.sort_unstable();
        let mut hasher = Sha256::new();
        hasher.update(b"npm\n");
        for package in packages {
            hasher.update(package.as_bytes());
            hasher.update(b"\n");
        }
        format!("{:x}", hasher.finalize())
    }
}

/// `@scope/name@1.2.3` → (`@scope/name`, `1.2.3`).
fn split_spec(spec: &str) -> Option<(&str, &str)> {
    let at = spec.get(1..)?.rfind('@')? + 1;
    Some((&spec[..at], &spec[at + 1..]))
}

fn valid_name(name: &str) -> bool {
    let part = |p: &str| {
        !p.is_empty()
            && !p.starts_with('.')
            && !p.starts_with('_')
            && p.bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b"-._~".contains(&b))
    };
    if name.is_empty() || name.len() > MAX_NAME_LEN {
        return false;
    }
    match name.strip_prefix('@') {
        Some(scoped) => scoped.split_once('/').is_some_and(|(scope, pkg)| part(scope) && part(pkg)),
        None => part(name),
    }
}

fn valid_version(version: &str) -> bool {
    !version.is_empty()
        && version.len() <= MAX_VERSION_LEN
        && version.as_bytes()[0].is_ascii_digit()
        && version.bytes().all(|b| b.is_ascii_alphanumeric() || b"-.+".contains(&b))
}

/// One finished layer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Manifest {
    #[serde(rename = "layerID")]
    pub layer_id: String,
    pub recipe: Recipe,
    pub bytes: u64,
    pub files: u64,
    pub build_ms: u64,
}

/// The answer to `POST /layers`: a layer, where every sandbox sees it, and whether it
/// was already there.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Provided {
    #[serde(rename = "layerID")]
    pub layer_id: String,
    /// The layer's directory inside every sandbox.
    pub path: String,
    /// Its npm executables inside every sandbox.
    pub bin: String,
    pub cached: bool,
    pub build_ms: u64,
    pub bytes: u64,
    pub files: u64,
}

impl Manifest {
    /// The layer's directory and its npm executables, inside every sandbox.
    pub fn inside(&self) -> (String, String) {
        let path = format!("{}/{}", crate::plan::LAYERS_DIR, self.layer_id);
        let bin = format!("{path}/node_modules/.bin");
        (path, bin)
    }
}

impl Provided {
    fn of(manifest: &Manifest, cached: bool) -> Provided {
        let (path, bin) = manifest.inside();
        Provided {
            layer_id: manifest.layer_id.clone(),
            bin,
            path,
            cached,
            build_ms: manifest.build_ms,
            bytes: manifest.bytes,
            files: manifest.files,
        }
    }
}

/// Why a layer could not be provided; each maps to one HTTP status.
#[derive(Debug, thiserror::Error)]
pub enum LayerError {
    #[error("{0}")]
    BadRecipe(String),
    #[error("layers are unavailable on this daemon: {0}")]
    Unavailable(String),
    #[error("{0}")]
    BuildFailed(String),
    #[error("building the layer took longer than {0:?}")]
    TimedOut(Duration),
}

/// The daemon's layers: the store, the view every sandbox binds, and the builds running.
pub struct Layers {
    /// The store (`store/`, `recipes/`, `build/`, `empty/`): this daemon's state directory,
    /// or a directory several daemons of the machine share.
    root: PathBuf,
    /// This daemon's view (a mount of its own).
    view: PathBuf,
    /// Why layers cannot be mounted here (no privilege to mount, say); `None` when they can.
    unavailable: Option<String>,
    /// One lock per recipe: identical requests wait for one build.
    builds: tokio::sync::Mutex<HashMap<String, Arc<tokio::sync::Mutex<()>>>>,
    build_timeout: Duration,
    /// Set once the view is unmounted, so that shutdown and drop unmount it once.
    unmounted: std::sync::atomic::AtomicBool,
}

impl Layers {
    /// Prepares `<state>/layers`, mounts the view (or finds it mounted by an earlier run)
    /// and every layer in the store. A host where mounting fails still runs sandboxes:
    /// layers are then unavailable and the reason is kept for the API's answers.
    pub fn open(state_dir: &Path, store: Option<&Path>, build_timeout: Duration) -> Layers {
        let root = store.map_or_else(|| state_dir.join("layers"), Path::to_owned);
        let view = state_dir.join("layers").join("view");
        let unavailable = match prepare(&root, &view, build_timeout) {
            Ok(()) => None,
            Err(err) => {
                let reason = format!("{err:#}");
                tracing::warn!(%reason, "layers (language servers installed once per machine) are unavailable");
                Some(reason)
            }
        };
        Layers {
            root,
            view,
            unavailable,
            builds: tokio::sync::Mutex::new(HashMap::new()),
            build_timeout,
            unmounted: std::sync::atomic::AtomicBool::new(false),
        }
    }

    /// The host mount a sandbox binds at `/.dsh/layers`, when layers are available.
    pub fn view(&self) -> Option<PathBuf> {
        self.unavailable.is_none().then(|| self.view.clone())
    }

    /// The store's finished layers, when layers are available: plain directories named
    /// as in the view, which a sandbox that cannot follow the view's later mounts shows
    /// instead (gVisor's gofer sees the mounts of its start only); a layer stored later
    /// appears there too.
    pub fn store(&self) -> Option<PathBuf> {
        self.unavailable.is_none().then(|| self.root.join("store"))
    }

    /// The layer built from `recipe`: from the store, or built now (one build per recipe
    /// at a time; a request that waited for another's build gets its result). When this
    /// returns, the layer is mounted in every sandbox.
    pub async fn provide(&self, recipe: Recipe) -> Result<Provided, LayerError> {
        recipe.validate().map_err(LayerError::BadRecipe)?;
        if let Some(reason) = &self.unavailable {
            return Err(LayerError::Unavailable(reason.clone()));
        }
        let key = recipe.key();
        let lock = {
            let mut builds = self.builds.lock().await;
            builds.entry(key.clone()).or_default().clone()
        };
        let _building = lock.lock().await;
        // And across daemons sharing the store: one build per recipe on the machine.
        let lock_path = self.root.join("recipes").join(format!("{key}.lock"));
        let timeout = self.build_timeout;
        let _machine_wide =
            blocking(move || lock_file(&lock_path, timeout)).await.map_err(internal)?;
        if let Some(manifest) = self.lookup(&key) {
            let (root, view) = (self.root.clone(), self.view.clone());
            let id = manifest.layer_id.clone();
            blocking(move || mount_layer(&root, &view, &id)).await.map_err(internal)?;
            return Ok(Provided::of(&manifest, true));
        }
        let manifest = self.build(&key, recipe).await?;
        Ok(Provided::of(&manifest, false))
    }

    /// Every layer in the store.
    pub fn list(&self) -> Vec<Manifest> {
        let Ok(entries) = std::fs::read_dir(self.root.join("store")) else {
            return Vec::new();
        };
        let mut layers: Vec<Manifest> = entries
            .flatten()
            .filter(|e| e.path().extension().is_some_and(|x| x == "json"))
            .filter_map(|e| read_json::<Manifest>(&e.path()))
            .filter(|m| self.root.join("store").join(&m.layer_id).is_dir())
            .collect();
        layers.sort_by(|a, b| a.layer_id.cmp(&b.layer_id));
        layers
    }

    /// Unmounts the view and its layers (at shutdown, once no sandbox runs).
    pub fn unmount(&self) {
        if self.unavailable.is_some()
            || self.unmounted.swap(true, std::sync::atomic::Ordering::SeqCst)
        {
            return;
        }
        let view = &self.view;
        if let Err(err) = LinuxSyscall::new().umount(view, true) {
            tracing::warn!(view = %view.display(), %err, "unmounting the layer view");
        }
    }

    fn lookup(&self, key: &str) -> Option<Manifest> {
        #[derive(Deserialize)]
        struct Index {
            #[serde(rename = "layerID")]
            layer_id: String,
        }
        let index = read_json::<Index>(&self.root.join("recipes").join(format!("{key}.json")))?;
        if !valid_layer_id(&index.layer_id) {
            return None;
        }
        let store = self.root.join("store");
        if !store.join(&index.layer_id).is_dir() {
            return None;
        }
        read_json::<Manifest>(&store.join(format!("{}.json", index.layer_id)))
    }

    async fn build(&self, key: &str, recipe: Recipe) -> Result<Manifest, LayerError> {
        let started = Instant::now();
        let dir = self.root.join("build").join(crate::server::files::random_hex(8));
        std::fs::create_dir_all(&dir).map_err(|e| internal(e.into()))?;
        tracing::info!(packages = ?recipe.npm, "building a layer");
        let installed = run_npm(&dir, &recipe.npm, self.build_timeout).await;
        if let Err(err) = installed {
            let _ = std::fs::remove_dir_all(&dir);
            return Err(err);
        }
        let (root, view) = (self.root.clone(), self.view.clone());
        let key = key.to_owned();
        let manifest = blocking(move || {
            let result = publish(&root, &view, &dir, &key, recipe, started);
            if result.is_err() {
                let _ = std::fs::remove_dir_all(&dir);
            }
            result
        })
        .await
        .map_err(internal)?;
        tracing::info!(layer = %manifest.layer_id, bytes = manifest.bytes, files = manifest.files, ms = manifest.build_ms, "layer built");
        Ok(manifest)
    }
}

/// A daemon whose start failed after the view was mounted, or that was dropped without
/// shutting down, does not leave the view mounted in its state directory.
impl Drop for Layers {
    fn drop(&mut self) {
        self.unmount();
    }
}

/// Detaches the layer view of the daemon whose state directory is `state_dir`, as its
/// shutdown would (for a daemon that was dropped or killed instead).
pub fn clean_up(state_dir: &Path) {
    let state_dir = std::fs::canonicalize(state_dir).unwrap_or_else(|_| state_dir.to_owned());
    let view = state_dir.join("layers").join("view");
    if is_mount_point(&view).unwrap_or(false) {
        let _ = LinuxSyscall::new().umount(&view, true);
    }
}

fn internal(err: anyhow::Error) -> LayerError {
    LayerError::BuildFailed(format!("{err:#}"))
}

async fn blocking<T: Send + 'static>(
    work: impl FnOnce() -> anyhow::Result<T> + Send + 'static,
) -> anyhow::Result<T> {
    tokio::task::spawn_blocking(work).await.context("a layer task panicked")?
}

/// Creates the directories, mounts the shared view unless an earlier run left it
/// mounted, and mounts every stored layer not mounted yet.
fn prepare(root: &Path, view: &Path, build_timeout: Duration) -> anyhow::Result<()> {
    let dirs = ["store", "recipes", "build", "empty"].map(|d| root.join(d));
    for dir in dirs.iter().map(PathBuf::as_path).chain([view]) {
        std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    }
    // Builds left unfinished by a crash. Another daemon sharing the store may be building
    // now: only builds older than twice the build timeout are surely abandoned.
    if let Ok(entries) = std::fs::read_dir(root.join("build")) {
        for entry in entries.flatten() {
            let age =
                entry.metadata().and_then(|m| m.modified()).ok().and_then(|t| t.elapsed().ok());
            if age.is_some_and(|age| age > build_timeout * 2) {
                let _ = std::fs::remove_dir_all(entry.path());
            }
        }
    }
    let view = view.to_owned();
    let sys = LinuxSyscall::new();
    if !is_mount_point(&view)? {
        sys.mount(
            Some(Path::new("tmpfs")),
            &view,
            Some("tmpfs"),
            MountFlags::NOSUID | MountFlags::NODEV | MountFlags::NOEXEC,
            Some("mode=0755,size=1m"),
        )
        .with_context(|| format!("mounting a tmpfs at {}", view.display()))?;
    }
    // Shared: what is mounted under it propagates to every sandbox's copy.
    sys.mount(None, &view, None, MountFlags::SHARED, None)
        .with_context(|| format!("making {} shared", view.display()))?;
    let store = root.join("store");
    for entry in std::fs::read_dir(&store)?.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        if valid_layer_id(&name) && entry.path().is_dir() {
            mount_layer(root, &view, &name)?;
        }
    }
    Ok(())
}

/// An exclusive `flock` on `path` (created if missing), waited for at most `timeout`;
/// released when the file is dropped.
fn lock_file(path: &Path, timeout: Duration) -> anyhow::Result<std::fs::File> {
    let file = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .mode(0o600)
        .open(path)
        .with_context(|| format!("opening {}", path.display()))?;
    let deadline = Instant::now() + timeout;
    loop {
        match rustix::fs::flock(&file, rustix::fs::FlockOperation::NonBlockingLockExclusive) {
            Ok(()) => return Ok(file),
            Err(rustix::io::Errno::WOULDBLOCK) if Instant::now() < deadline => {
                std::thread::sleep(Duration::from_millis(200));
            }
            Err(err) => {
                return Err(err).with_context(|| format!("locking {}", path.display()));
            }
        }
    }
}

/// Mounts `store/<id>` at `view/<id>` as a read-only overlay, unless it is mounted.
fn mount_layer(root: &Path, view: &Path, id: &str) -> anyhow::Result<()> {
    let target = view.join(id);
    match std::fs::create_dir(&target) {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
        Err(e) => return Err(e).with_context(|| format!("creating {}", target.display())),
    }
    if is_mount_point(&target)? {
        return Ok(());
    }
    let open = |path: PathBuf| {
        std::fs::OpenOptions::new()
            .read(true)
            .custom_flags(libc::O_PATH | libc::O_DIRECTORY)
            .open(&path)
            .with_context(|| format!("opening {}", path.display()))
    };
    let lower = open(root.join("store").join(id))?;
    let empty = open(root.join("empty"))?;
    // Named through this process's descriptors: the option string (shown in every
    // sandbox's mountinfo) holds no host path.
    let options =
        format!("lowerdir=/proc/self/fd/{}:/proc/self/fd/{}", lower.as_raw_fd(), empty.as_raw_fd());
    LinuxSyscall::new()
        .mount(
            Some(Path::new("overlay")),
            &target,
            Some("overlay"),
            MountFlags::RDONLY | MountFlags::NOSUID | MountFlags::NODEV,
            Some(&options),
        )
        .with_context(|| format!("mounting layer {id}"))
}

fn is_mount_point(path: &Path) -> anyhow::Result<bool> {
    let mountinfo = std::fs::read_to_string("/proc/self/mountinfo")?;
    Ok(crate::destroy::mounts_under(&mountinfo, path).iter().any(|m| m == path))
}

fn valid_layer_id(id: &str) -> bool {
    id.strip_prefix("sha256-")
        .is_some_and(|hex| hex.len() == 64 && hex.bytes().all(|b| b.is_ascii_hexdigit()))
}

/// Runs `npm install` into `dir` (the daemon's environment, so its proxy and registry
/// settings apply), in its own process group, killed whole on timeout.
async fn run_npm(dir: &Path, packages: &[String], timeout: Duration) -> Result<(), LayerError> {
    // `--prefix` also moves npm's global config file; the CA bundle configured there
    // (machines behind a TLS-inspecting proxy need one) is carried over.
    let script = "prefix=$1; shift; \
        cafile=$(npm config get cafile 2>/dev/null); \
        if [ -n \"$cafile\" ] && [ \"$cafile\" != null ]; then export npm_config_cafile=\"$cafile\"; fi; \
        exec npm install --prefix \"$prefix\" --ignore-scripts --no-audit --no-fund --no-update-notifier --loglevel=error \"$@\"";
    let mut command = tokio::process::Command::new("/bin/sh");
    command
        .arg("-c")
        .arg(script)
        .arg("sh")
        .arg(dir)
        .args(packages)
        .current_dir(dir)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .process_group(0)
        .kill_on_drop(true);
    let mut child = command
        .spawn()
        .map_err(|e| LayerError::Unavailable(format!("cannot start /bin/sh to run npm: {e}")))?;
    let pid = child.id();
    let mut stderr = child.stderr.take();
    let reader = tokio::spawn(async move {
        use tokio::io::AsyncReadExt;
        let mut kept = Vec::new();
        let mut chunk = [0u8; 4096];
        if let Some(stderr) = stderr.as_mut() {
            while let Ok(n) = stderr.read(&mut chunk).await {
                if n == 0 {
                    break;
                }
                kept.extend_from_slice(&chunk[..n]);
                // Keep only the end: the error is there.
                if kept.len() > STDERR_TAIL {
                    kept.drain(..kept.len() - STDERR_TAIL);
                }
            }
        }
        kept
    });
    let status = match tokio::time::timeout(timeout, child.wait()).await {
        Ok(status) => status.map_err(|e| internal(e.into()))?,
        Err(_) => {
            if let Some(pid) = pid.and_then(|p| i32::try_from(p).ok()) {
                // SAFETY: kill(2) on the process group this build started.
                unsafe { libc::kill(-pid, libc::SIGKILL) };
            }
            let _ = child.wait().await;
            reader.abort();
            return Err(LayerError::TimedOut(timeout));
        }
    };
    let stderr = reader.await.unwrap_or_default();
    if status.success() {
        return Ok(());
    }
    let text = String::from_utf8_lossy(&stderr);
    let tail: Vec<&str> = text.trim().lines().rev().take(8).collect();
    let tail: Vec<&str> = tail.into_iter().rev().collect();
    let how = match status.code() {
        Some(127) => {
            return Err(LayerError::Unavailable(
                "npm is not installed on the host (install Node.js with npm)".into(),
            ));
        }
        Some(code) => format!("exit code {code}"),
        None => "a signal".to_owned(),
    };
    Err(LayerError::BuildFailed(format!(
        "npm install {} ended with {how}: {}",
        packages.join(" "),
        tail.join(" | ")
    )))
}

/// Names the built tree by its digest, moves it into the store (or drops it when the
/// store has the same content), records the manifest and the recipe, and mounts it.
fn publish(
    root: &Path,
    view: &Path,
    dir: &Path,
    key: &str,
    recipe: Recipe,
    started: Instant,
) -> anyhow::Result<Manifest> {
    let (digest, bytes, files) = tree_digest(dir)?;
    let layer_id = format!("sha256-{digest}");
    let store = root.join("store");
    let target = store.join(&layer_id);
    if target.is_dir() {
        std::fs::remove_dir_all(dir)?;
    } else if let Err(err) = std::fs::rename(dir, &target) {
        // Another daemon sharing the store stored the same content meanwhile.
        if !target.is_dir() {
            return Err(err).with_context(|| format!("moving the layer to {}", target.display()));
        }
        std::fs::remove_dir_all(dir)?;
    }
    let manifest = Manifest {
        layer_id: layer_id.clone(),
        recipe,
        bytes,
        files,
        build_ms: u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX),
    };
    write_json(&store.join(format!("{layer_id}.json")), &manifest)?;
    write_json(
        &root.join("recipes").join(format!("{key}.json")),
        &serde_json::json!({ "layerID": layer_id }),
    )?;
    mount_layer(root, view, &layer_id)?;
    Ok(manifest)
}

/// SHA-256 over the tree in name order: each entry's relative path, kind and mode, then
/// a file's length and bytes or a link's target. Returns (hex digest, bytes, files).
pub fn tree_digest(root: &Path) -> anyhow::Result<(String, u64, u64)> {
    let mut hasher = Sha256::new();
    let mut bytes = 0u64;
    let mut files = 0u64;
    let mut pending = vec![PathBuf::new()];
    let mut buffer = vec![0u8; 64 * 1024];
    while let Some(relative) = pending.pop() {
        let dir = root.join(&relative);
        let mut names: Vec<std::ffi::OsString> = std::fs::read_dir(&dir)
            .with_context(|| format!("reading {}", dir.display()))?
            .map(|e| e.map(|e| e.file_name()))
            .collect::<Result<_, _>>()?;
        names.sort();
        // Reverse, so popping walks names in order (depth first).
        for name in names.into_iter().rev() {
            let path = relative.join(&name);
            let full = root.join(&path);
            let meta = std::fs::symlink_metadata(&full)?;
            hasher.update(path.as_os_str().as_encoded_bytes());
            hasher.update([0]);
            hasher.update((meta.mode() & 0o177_777).to_le_bytes());
            let kind = meta.file_type();
            if kind.is_symlink() {
                hasher.update(std::fs::read_link(&full)?.as_os_str().as_encoded_bytes());
                hasher.update([0]);
            } else if kind.is_file() {
                files += 1;
                bytes += meta.len();
                hasher.update(meta.len().to_le_bytes());
                let mut file = std::fs::File::open(&full)?;
                loop {
                    let n = file.read(&mut buffer)?;
                    if n == 0 {
                        break;
                    }
                    hasher.update(&buffer[..n]);
                }
            } else if kind.is_dir() {
                pending.push(path);
            } else {
                bail!("{} is neither a file, a directory nor a link", full.display());
            }
        }
    }
    Ok((format!("{:x}", hasher.finalize()), bytes, files))
}

fn read_json<T: for<'de> Deserialize<'de>>(path: &Path) -> Option<T> {
    serde_json::from_slice(&std::fs::read(path).ok()?).ok()
}

fn write_json(path: &Path, value: &impl Serialize) -> anyhow::Result<()> {
    let tmp = path.with_extension("json.tmp");
    let mut file = std::fs::File::create(&tmp)?;
    file.write_all(&serde_json::to_vec_pretty(value)?)?;
    file.sync_all()?;
    std::fs::rename(&tmp, path)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;

    fn recipe(packages: &[&str]) -> Recipe {
        Recipe { npm: packages.iter().map(|p| (*p).to_owned()).collect() }
    }

    #[test]
    fn recipes_name_exact_versions_of_real_package_names() {
        assert_eq!(recipe(&["pyright@1.1.414"]).validate(), Ok(()));
        assert_eq!(
            recipe(&[
                "typescript-language-server@5.1.3",
                "typescript@5.9.3",
                "@types/node@22.10.1"
            ])
            .validate(),
            Ok(())
        );
        assert_eq!(recipe(&[]).validate().unwrap_err(), "the recipe names no npm package");
        assert_eq!(
            recipe(&["pyright"]).validate().unwrap_err(),
            "\"pyright\" is not name@version (an exact version, like pyright@1.1.414)"
        );
        assert_eq!(
            recipe(&["pyright@^1.1"]).validate().unwrap_err(),
            "\"pyright@^1.1\": the version must be exact (digits, letters, '.', '-', '+'), not a range or tag"
        );
        assert!(recipe(&["pyright@latest"]).validate().is_err());
        assert!(recipe(&["Pyright@1.0.0"]).validate().is_err());
        assert!(recipe(&["../x@1.0.0"]).validate().is_err());
        assert!(recipe(&["file:/etc@1.0.0"]).validate().is_err());
        assert!(recipe(&["@scope@1.0.0"]).validate().is_err());
        assert_eq!(recipe(&["a@1.0.0", "a@2.0.0"]).validate().unwrap_err(), "\"a\" is named twice");
        let many: Vec<String> = (0..17).map(|i| format!("p{i}@1.0.0")).collect();
        assert_eq!(
            Recipe { npm: many }.validate().unwrap_err(),
            "at most 16 packages per layer, got 17"
        );
    }

    #[test]
    fn a_recipes_key_ignores_the_order_of_its_packages() {
        let one = recipe(&["typescript@5.9.3", "typescript-language-server@5.1.3"]).key();
        let other = recipe(&["typescript-language-server@5.1.3", "typescript@5.9.3"]).key();
        assert_eq!(one, other);
        assert_eq!(one.len(), 64);
        assert_ne!(one, recipe(&["typescript@5.9.2", "typescript-language-server@5.1.3"]).key());
    }

    #[test]
    fn the_tree_digest_covers_names_bytes_modes_and_links() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir_all(root.join("node_modules/.bin")).unwrap();
        std::fs::write(root.join("node_modules/a.js"), "console.log(1)\n").unwrap();
        std::fs::write(root.join("package.json"), "{}\n").unwrap();
        std::os::unix::fs::symlink("../a.js", root.join("node_modules/.bin/a")).unwrap();
        let (first, bytes, files) = tree_digest(root).unwrap();
        assert_eq!((bytes, files), (18, 2));
        assert_eq!(tree_digest(root).unwrap().0, first, "deterministic");

        std::fs::set_permissions(
            root.join("node_modules/a.js"),
            std::fs::Permissions::from_mode(0o755),
        )
        .unwrap();
        let (moded, ..) = tree_digest(root).unwrap();
        assert_ne!(moded, first);
        std::fs::write(root.join("node_modules/a.js"), "console.log(2)\n").unwrap();
        let (changed, ..) = tree_digest(root).unwrap();
        assert_ne!(changed, moded);
        std::fs::remove_file(root.join("node_modules/.bin/a")).unwrap();
        std::os::unix::fs::symlink("../b.js", root.join("node_modules/.bin/a")).unwrap();
        assert_ne!(tree_digest(root).unwrap().0, changed);
    }

    #[test]
    fn layer_ids_are_sha256_digests_only() {
        assert!(valid_layer_id(&format!("sha256-{}", "a".repeat(64))));
        assert!(!valid_layer_id(&format!("sha256-{}", "a".repeat(63))));
        assert!(!valid_layer_id("sha256-../../etc"));
        assert!(!valid_layer_id(&"a".repeat(71)));
    }
}
