//! The control plane: an E2B-compatible REST API over local sandboxes, and one address
//! that also routes envd traffic to every sandbox.
//!
//! - [`Daemon::start`] binds, recovers the sandboxes of an earlier run (as paused) and
//!   serves until [`Daemon::shutdown`], which pauses every running sandbox (a gVisor
//!   sandbox's memory saved to disk, the others' processes stopped).
//! - [`serve`] is the same as one call, for `dsh-sandboxd serve` or an embedding binary.
//!
//! Layout of the state directory: `api-key` (0600), `sandboxes/<id>.json` (the record of
//! one sandbox, 0600) and `sandboxes/<id>/` (its isolation state: overlay layers, /home,
//! /root, /var, `envd.log`), and `layers/` (read-only layers shared by every sandbox;
//! see `layers.rs`).

mod api;
mod builds;
mod code_interpreter;
mod described;
pub mod disk;
pub mod domains;
mod envd_client;
mod fork;
mod gvisor_sandbox;
pub mod layers;
mod lifecycle;
mod metrics;
mod template_api;
mod templates;
pub use api::check_body;
pub use lifecycle::kill_stray_init;

/// Removes the gVisor containers (and their bundles) of the daemon whose state directory
/// is `state_dir`: runsc's processes do not die with their daemon. A start does this; so
/// does a test that drops a daemon without its shutdown.
pub fn clean_up_gvisor(state_dir: &std::path::Path) {
    if let Ok(runsc) = crate::gvisor::Runsc::new(None, state_dir.join(RUNSC_DIR)) {
        gvisor_sandbox::clean_up(&runsc, state_dir);
    }
}
mod netns;
pub mod network;
pub mod open_files;
mod pool;
pub use pool::machine_cap as pool_cap;
mod proxy;
pub mod registry;
mod snapshots;
pub mod spare_netns;
mod volume_content;
mod volume_ids;
mod volume_quota;
mod volumes;

use std::collections::HashMap;
use std::future::Future;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use anyhow::{Context, bail};
use axum::Json;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};

use crate::cgroup::Cgroups;
use crate::launch::Launcher;
use crate::requirements::{MissingTools, Need};
use crate::spec::{IdRange, Isolation, IsolationLevel};
use crate::template::Templates;
use registry::{Phase, Slot, Store};

/// The envd version the control plane reports (dsh-envd speaks envd 0.6.13).
pub const ENVD_VERSION: &str = "0.6.13";
/// Where images pulled for template builds are kept, under the state directory.
const IMAGES_DIR: &str = "images";
/// Environment variable naming the dsh-envd binary.
pub const ENVD_BINARY_ENV: &str = "DSH_ENVD_BIN";
pub const ENVD_BINARY_NAME: &str = "dsh-envd";
pub const API_KEY_FILE: &str = "api-key";
/// `clientID` of every sandbox (deprecated in E2B's API, still required by the SDK).
pub const CLIENT_ID: &str = "dsh-sandboxd";
pub const DEFAULT_TIMEOUT_SECS: u64 = 300;
pub const MAX_TIMEOUT_SECS: u64 = 86_400;
/// Sandboxes' cgroups live under `<the daemon's own cgroup>/dsh-sandboxes/<id>`.
pub const CGROUP_PARENT: &str = "dsh-sandboxes";
/// The gVisor runtime of a daemon over `state_dir`: runsc (new enough) and `ip` (which
/// links a gVisor sandbox's network, see `gvisor_net.rs`), or what is missing.
fn gvisor_runtime(state_dir: &std::path::Path) -> Result<crate::gvisor::Runsc, String> {
    if !rustix::process::geteuid().is_root() || crate::rootless::blocks_inside().is_some() {
        return Err("an ordinary user's daemon runs no gVisor sandboxes (runsc runs as root here: its network and cgroup set-up need it)".into());
    }
    let runsc =
        crate::gvisor::Runsc::new(None, state_dir.join(RUNSC_DIR)).map_err(|e| e.to_string())?;
    if !crate::requirements::on_path(crate::gvisor_net::IP, None) {
        return Err(format!(
            "{} (iproute2) is not on PATH: gVisor sandboxes' networks are linked with it",
            crate::gvisor_net::IP
        ));
    }
    Ok(runsc)
}

/// runsc's own state (`--root`) under the state directory.
pub const RUNSC_DIR: &str = "runsc";
/// How long one layer build (an npm install) may take.
/// Threads kept in cgroups of their own for the next launches (see `staging.rs`): four,
/// so that forks one after another (one every 30 ms) do not outrun the refill, which
/// waits 100 ms after a take. Each is an idle thread and an empty cgroup.
pub const STAGED_THREADS: usize = 4;
pub const LAYER_BUILD_TIMEOUT: Duration = Duration::from_secs(600);

/// Daemon configuration.
#[derive(Debug, Clone)]
pub struct Config {
    /// `127.0.0.1:3000` by default; port 0 picks a free port ([`Daemon::addr`]).
    pub listen: SocketAddr,
    pub state_dir: PathBuf,
    /// dsh-envd; default: `$DSH_ENVD_BIN`, else next to the current executable (or one
    /// directory up).
    pub envd_binary: Option<PathBuf>,
    /// Arguments put before envd's own (for a binary that embeds envd as a hidden
    /// subcommand, like `dsh`).
    pub envd_args: Vec<std::ffi::OsString>,
    /// dsh-sandbox-init; default: [`Launcher::locate`].
    pub init_binary: Option<PathBuf>,
    /// Arguments for the init binary (for a binary that embeds the init as a hidden
    /// subcommand).
    pub init_args: Vec<std::ffi::OsString>,
    /// `domain` reported to clients (the SDK builds `https://49983-<id>.<domain>` from it
    /// unless `E2B_SANDBOX_URL` is set).
    pub domain: Option<String>,
    pub templates: Templates,
    /// How long envd may take to become healthy after the sandbox is spawned.
    pub envd_start_timeout: Duration,
    /// How often sandbox deadlines are checked.
    pub reaper_tick: Duration,
    /// How often running sandboxes' metrics are sampled (E2B: 5 s).
    pub metrics_tick: Duration,
    /// The isolation every sandbox gets; a host that cannot give it fails to start.
    pub isolation: IsolationLevel,
    /// First host uid of the uid blocks handed to sandboxes (strict isolation).
    pub id_base: u32,
    /// How many blocks there are from `id_base` (None: up to the end of the id space).
    /// A daemon run by an ordinary user has the blocks of its subordinate ids.
    pub id_blocks: Option<u32>,
    /// Limits of a sandbox whose create request names none (each in its own cgroup).
    pub defaults: SandboxDefaults,
    /// Sandboxes kept started ahead of demand per template; see `pool.rs`.
    pub pool: PoolSize,
    /// How long a create counts as demand for an auto pool (see `pool.rs`).
    pub pool_window: Duration,
    /// What runs a sandbox whose create request names no `runtime`: this daemon's own
    /// launcher (`native`), or gVisor's runsc (`gvisor`, see `gvisor.rs`).
    pub runtime: crate::gvisor::Runtime,
    /// Private networks kept set up ahead for launches that cannot come from the pool
    /// (forks, restarts, bursts); see `spare_netns.rs`. 0: none.
    pub spare_networks: usize,
    /// The network every sandbox gets: by default a private one (see `network.rs`);
    /// `Net::Host` shares the host's (unsafe: the host and its LAN are reachable).
    pub net: crate::spec::Net,
    /// The control plane's door: connection cap, header and idle timeouts.
    pub http: dsh_http::Limits,
    /// Where layers are stored (several daemons of a machine may share it); default
    /// `<state_dir>/layers`. Each daemon mounts its own view of it.
    pub layer_store: Option<PathBuf>,
    /// Size of the image holding every sandbox's files (MiB), when it is first made;
    /// default: half the free space under the state directory. See `disk.rs`.
    pub disk_image_mb: Option<u64>,
    /// Size of a volume whose create request names none (MiB; each volume is a subvolume
    /// limited to its size, see `volume_quota.rs`); default `defaults.disk_mb`, and at
    /// most the image.
    pub volume_mb: Option<u64>,
}

/// How many sandboxes a daemon keeps started ahead of demand, per template.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum PoolSize {
    /// Sized to the machine and to demand (see `pool.rs`): the default.
    #[default]
    Auto,
    /// Exactly this many (0: none).
    Fixed(usize),
}

impl std::str::FromStr for PoolSize {
    type Err = String;
    fn from_str(text: &str) -> Result<Self, String> {
        match text {
            "auto" => Ok(PoolSize::Auto),
            number => number
                .parse()
                .map(PoolSize::Fixed)
                .map_err(|_| format!("pool {number:?}: give a number of sandboxes or \"auto\"")),
        }
    }
}

/// Per-sandbox cgroup limits used when the create request does not set them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SandboxDefaults {
    pub cpu_count: u64,
    pub memory_mb: u64,
    pub max_processes: u64,
    /// What a sandbox may write to its files, in MiB (0: no quota); see `disk.rs`.
    pub disk_mb: u64,
}

impl Default for SandboxDefaults {
    fn default() -> Self {
        // Enough for a language server, a build and a test run side by side; a create
        // request's cpuCount/memoryMB change it per sandbox.
        SandboxDefaults { cpu_count: 2, memory_mb: 4096, max_processes: 4096, disk_mb: 10 * 1024 }
    }
}

impl Config {
    pub fn new(state_dir: impl Into<PathBuf>) -> Config {
        Config {
            listen: SocketAddr::from(([127, 0, 0, 1], 3000)),
            state_dir: state_dir.into(),
            envd_binary: None,
            envd_args: Vec::new(),
            init_binary: None,
            init_args: Vec::new(),
            domain: Some("localhost".into()),
            templates: Templates::builtin(),
            envd_start_timeout: Duration::from_secs(20),
            reaper_tick: Duration::from_millis(200),
            metrics_tick: Duration::from_secs(5),
            isolation: IsolationLevel::Strict,
            id_base: IdRange::DEFAULT_BASE,
            id_blocks: None,
            defaults: SandboxDefaults::default(),
            pool: PoolSize::Auto,
            pool_window: pool::DEMAND_WINDOW,
            spare_networks: spare_netns::SPARES,
            runtime: crate::gvisor::Runtime::Native,
            net: crate::spec::Net::Private,
            http: dsh_http::Limits { max_connections: 16_384, ..dsh_http::Limits::default() },
            layer_store: None,
            disk_image_mb: None,
            volume_mb: None,
        }
    }
}

/// State shared by the handlers, the proxy and the reaper.
pub(crate) struct Shared {
    config: Config,
    api_key: String,
    store: Store,
    launcher: Launcher,
    envd_binary: PathBuf,
    /// None where the daemon may not make cgroups (an ordinary user's, without a
    /// delegated hierarchy): sandboxes then run without limits.
    cgroups: Option<Arc<Cgroups>>,
    /// Read-only layers every sandbox sees at `/.dsh/layers`.
    layers: layers::Layers,
    /// Where sandboxes keep their files, with a quota each when the host allows.
    disk: disk::Disk,
    sandboxes: Mutex<HashMap<String, Arc<Slot>>>,
    /// Templates whose pool is being refilled.
    refilling: Mutex<std::collections::HashSet<String>>,
    /// Set by shutdown: no new pooled sandboxes.
    stopping: std::sync::atomic::AtomicBool,
    /// Held while a snapshot, volume or template is made or deleted, or a template's tags
    /// change: a name is checked, then taken.
    names_lock: tokio::sync::Mutex<()>,
    /// Template builds asked for since the start.
    builds: builds::Builds,
    /// Images pulled for builds `fromImage` (`<state>/images`).
    images: crate::oci::ImageStore,
    /// The tasks and files per process each sandbox gets (see `open_files.rs`).
    open_files: open_files::OpenFileBound,
    /// Teardowns of killed sandboxes still running after their kill was answered.
    teardowns: Teardowns,
    /// Recent creates per template, for an auto pool's size.
    demand: pool::Demand,
    /// Private networks made ahead for launches (see `spare_netns.rs`).
    spare_netns: Arc<spare_netns::SpareNetworks>,
    /// gVisor's runsc, where it is installed and new enough, or why not (then
    /// `runtime: "gvisor"` is refused with it).
    runsc: Result<crate::gvisor::Runsc, String>,
}

/// Background work the daemon owes before it may stop: the teardowns of killed sandboxes
/// (see `lifecycle::kill_then_tear_down`). Shutdown awaits every one.
#[derive(Default)]
pub(crate) struct Teardowns(Mutex<tokio::task::JoinSet<()>>);

impl Teardowns {
    pub(crate) fn spawn(&self, work: impl std::future::Future<Output = ()> + Send + 'static) {
        let mut set = self.0.lock().unwrap_or_else(|e| e.into_inner());
        // Finished ones are dropped here, so the set holds only what still runs.
        while set.try_join_next().is_some() {}
        set.spawn(work);
    }

    /// Waits for every teardown started so far.
    pub(crate) async fn wait(&self) {
        let mut set = std::mem::take(&mut *self.0.lock().unwrap_or_else(|e| e.into_inner()));
        while set.join_next().await.is_some() {}
    }
}

/// A template by name: the configured ones (`base`), then, when `images` is given, an
/// image pulled here (`image:sha256:<hex>`, what sandboxes of a template built
/// `fromImage` run on).
pub(crate) fn find_template(
    templates: &Templates,
    images: Option<&crate::oci::ImageStore>,
    name: &str,
) -> crate::error::Result<crate::template::Template> {
    if let (Some(images), Some(digest)) = (images, name.strip_prefix(crate::oci::TEMPLATE_PREFIX))
        && let Ok(Some(image)) = images.cached(digest)
    {
        return Ok(image.template());
    }
    templates.get(name).cloned()
}

impl Shared {
    /// The template `name` (see [`find_template`]).
    pub(crate) fn template(&self, name: &str) -> crate::error::Result<crate::template::Template> {
        find_template(&self.config.templates, Some(&self.images), name)
    }

    pub(crate) fn stopping(&self) -> bool {
        self.stopping.load(std::sync::atomic::Ordering::SeqCst)
    }

    fn map(&self) -> std::sync::MutexGuard<'_, HashMap<String, Arc<Slot>>> {
        self.sandboxes.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    pub(crate) fn slot(&self, id: &str) -> Option<Arc<Slot>> {
        self.map().get(id).cloned()
    }

    pub(crate) fn slots(&self) -> Vec<Arc<Slot>> {
        self.map().values().cloned().collect()
    }

    /// Inserts a new slot; `false` when the id is taken.
    pub(crate) fn insert_slot(&self, slot: Arc<Slot>) -> bool {
        let mut map = self.map();
        if map.contains_key(&slot.id) {
            return false;
        }
        map.insert(slot.id.clone(), slot);
        true
    }

    /// Inserts a slot for a new sandbox with a fresh id and, under strict isolation, the
    /// lowest uid block nothing of this daemon holds.
    pub(crate) fn insert_new(&self, record: &registry::Record) -> anyhow::Result<Arc<Slot>> {
        let strict = self.config.isolation == IsolationLevel::Strict;
        let held = if strict { self.held_blocks() } else { Vec::new() };
        let mut map = self.map();
        let isolation = match strict {
            true => Isolation::strict(self.free_block(&map, &held, None)?),
            false => Isolation::Namespaces,
        };
        let record = registry::Record { isolation: Some(isolation), ..record.clone() };
        Ok(insert_with_new_id(&mut map, record))
    }

    /// Inserts a slot for a sandbox whose files start as another's (a fork's parent, a
    /// snapshot, a template build: `record.isolation` is theirs): a fresh id, and under
    /// strict isolation a block of its own to run in, over the files' block (see
    /// [`Isolation::Strict`]'s `files`). An ordinary user's daemon has no idmapped mounts
    /// to shift the files with: there the sandbox keeps the files' block.
    pub(crate) fn insert_fork(&self, record: &registry::Record) -> anyhow::Result<Arc<Slot>> {
        let Some(origin @ Isolation::Strict { .. }) = record.isolation else {
            return Ok(insert_with_new_id(&mut self.map(), record.clone()));
        };
        if crate::rootless::blocks_inside().is_some() {
            return Ok(insert_with_new_id(&mut self.map(), record.clone()));
        }
        let held = self.held_blocks();
        let mut map = self.map();
        let ids = self.free_block(&map, &held, Some(origin))?;
        let record = registry::Record { isolation: Some(origin.running_in(ids)), ..record.clone() };
        Ok(insert_with_new_id(&mut map, record))
    }

    /// Blocks of snapshots and template builds (their files are owned by them), read
    /// from disk before the registry is locked.
    fn held_blocks(&self) -> Vec<Isolation> {
        let mut held = snapshots::held_blocks(self);
        held.extend(templates::index(self).held_blocks());
        held.extend(builds::held_blocks(self));
        held
    }

    /// The lowest block nothing holds: no sandbox in `map` (for its processes or its
    /// files), nothing in `held`, nor `origin` (whose files a new sandbox starts from).
    /// The caller inserts under the same lock, so two creates never get one block.
    fn free_block(
        &self,
        map: &HashMap<String, Arc<Slot>>,
        held: &[Isolation],
        origin: Option<Isolation>,
    ) -> anyhow::Result<IdRange> {
        let taken: std::collections::HashSet<u32> = map
            .values()
            .filter_map(|slot| slot.lock().record.isolation)
            .chain(held.iter().copied())
            .chain(origin)
            .flat_map(Isolation::blocks)
            // Volumes' files are owned by theirs (a daemon configured below it).
            .chain(std::iter::once(IdRange::VOLUMES))
            .map(|ids| ids.host_base)
            .collect();
        let blocks = self.config.id_blocks.unwrap_or(u32::MAX);
        (0..blocks)
            .map_while(|slot| IdRange::slot(self.config.id_base, slot))
            .find(|ids| !taken.contains(&ids.host_base))
            .with_context(|| match self.config.id_blocks {
                Some(blocks) => format!(
                    "every uid block is taken (the user's subordinate ids hold {blocks}): kill some sandboxes, or give the user a larger range in /etc/subuid and /etc/subgid"
                ),
                None => "every uid block is taken: kill some sandboxes".to_owned(),
            })
    }

    pub(crate) fn remove_slot(&self, id: &str) {
        self.map().remove(id);
    }
}

fn insert_with_new_id(map: &mut HashMap<String, Arc<Slot>>, record: registry::Record) -> Arc<Slot> {
    loop {
        let id = registry::new_sandbox_id();
        if map.contains_key(&id) {
            continue;
        }
        let slot = Arc::new(Slot::new(registry::Record { sandbox_id: id.clone(), ..record }));
        map.insert(id, slot.clone());
        return slot;
    }
}

/// An error answered as `{"code": <status>, "message": "..."}`.
#[derive(Debug)]
pub struct ApiError {
    pub status: StatusCode,
    pub message: String,
}

impl ApiError {
    pub fn new(status: StatusCode, message: impl Into<String>) -> ApiError {
        ApiError { status, message: message.into() }
    }

    pub fn not_found(id: &str) -> ApiError {
        ApiError::new(StatusCode::NOT_FOUND, format!("sandbox {id} not found"))
    }

    pub fn bad_request(message: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::BAD_REQUEST, message)
    }

    pub fn internal(error: &anyhow::Error) -> ApiError {
        let message = chain_text(error);
        tracing::error!(error = %message, "request failed");
        ApiError::new(StatusCode::INTERNAL_SERVER_ERROR, message)
    }

    pub fn response(self) -> Response {
        self.into_response()
    }
}

/// An error and its causes, `: `-separated, skipping a cause the text before it already
/// ends with (an error whose message shows its source, as the launcher's do, would
/// otherwise print the OS error twice).
fn chain_text(error: &anyhow::Error) -> String {
    let mut message = String::new();
    for cause in error.chain() {
        let text = cause.to_string();
        if message.ends_with(&text) {
            continue;
        }
        if !message.is_empty() {
            message.push_str(": ");
        }
        message.push_str(&text);
    }
    message
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let body = serde_json::json!({ "code": self.status.as_u16(), "message": self.message });
        (self.status, Json(body)).into_response()
    }
}

/// `cgroups` if this process may make cgroups in each of its parent directories (which
/// root may have made before, so that the probe found them without writing).
fn writable(cgroups: Cgroups) -> Result<Cgroups, crate::cgroup::CgroupError> {
    for dir in cgroups.paths() {
        rustix::fs::access(&dir, rustix::fs::Access::WRITE_OK).map_err(|errno| {
            crate::cgroup::CgroupError::Io {
                action: "use a cgroup parent".into(),
                path: dir.clone(),
                source: errno.into(),
            }
        })?;
    }
    Ok(cgroups)
}

/// A running control plane.
pub struct Daemon {
    addr: SocketAddr,
    api_key: String,
    state_dir: PathBuf,
    shared: Arc<Shared>,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    server: tokio::task::JoinHandle<std::io::Result<()>>,
    reaper: tokio::task::JoinHandle<()>,
    sampler: tokio::task::JoinHandle<()>,
}

impl Daemon {
    /// Binds `config.listen`, loads (or creates) the API key, recovers the sandboxes of
    /// an earlier run and starts serving.
    pub async fn start(config: Config) -> anyhow::Result<Daemon> {
        // Every connection (and each proxied one twice) takes a descriptor.
        let descriptors = dsh_http::raise_open_files_limit().unwrap_or_else(|err| {
            tracing::warn!(%err, "cannot raise the open files limit");
            dsh_http::open_files_limit()
        });
        // At most half the descriptors for connections: the rest are for sandboxes, their
        // proxied connections and the state files.
        let mut config = config;
        let affordable = usize::try_from(descriptors / 2).unwrap_or(usize::MAX).max(64);
        if config.http.max_connections > affordable {
            tracing::info!(
                descriptors,
                max_connections = affordable,
                "connection cap lowered to half the open files limit"
            );
            config.http.max_connections = affordable;
        }
        std::fs::create_dir_all(&config.state_dir)
            .with_context(|| format!("creating {}", config.state_dir.display()))?;
        let state_dir = std::fs::canonicalize(&config.state_dir)?;
        registry::set_mode(&state_dir, 0o700)?;
        let api_key = load_or_create_api_key(&state_dir)?;
        let mut launcher = match &config.init_binary {
            Some(path) => Launcher::new(path),
            None => Launcher::locate()?,
        };
        for arg in &config.init_args {
            launcher = launcher.init_arg(arg.clone());
        }
        // An ordinary user's daemon (in its own user namespace, see `rootless.rs`).
        let rootless_blocks = crate::rootless::blocks_inside();
        if rootless_blocks.is_some() && config.net == crate::spec::Net::Host {
            bail!(
                "sandboxes sharing the host's network need a daemon run as root (sysfs is mounted only for a network namespace the user's owns): use [sandboxd] net = \"private\" or \"none\""
            );
        }
        if rootless_blocks.is_some() && config.net == crate::spec::Net::Private {
            crate::rootless::tun_usable().map_err(anyhow::Error::msg).context(
                "the local sandbox daemon cannot start ([sandboxd] net = \"none\" runs sandboxes without a network instead)",
            )?;
        }
        if let Some(blocks) = rootless_blocks {
            config.id_base = crate::rootless::BLOCKS_START;
            config.id_blocks = Some(blocks);
        }
        let cgroups = match rootless_blocks {
            // An ordinary user's daemon has limits where its cgroup was delegated to the
            // user (systemd's `Delegate=yes` for a user service, or a directory root
            // gave it); elsewhere it may make none.
            Some(_) => match Cgroups::probe(CGROUP_PARENT).and_then(writable) {
                Ok(cgroups) => Some(Arc::new(cgroups)),
                Err(e) => {
                    tracing::warn!(
                        error = %e,
                        "running as an ordinary user without a delegated cgroup: sandboxes get no cgroup limits (memory, processes, CPU), no pause that keeps memory and no metrics (see docs/sandboxes.md#rootless)"
                    );
                    None
                }
            },
            None => Some(Arc::new(
                Cgroups::probe(CGROUP_PARENT)
                    .context("local sandboxes need cgroups for their limits (memory, pids, CPU)")?,
            )),
        };
        if let Some(cgroups) = &cgroups {
            launcher = launcher.cgroups(cgroups.clone()).staged(STAGED_THREADS);
        }
        // Every program the daemon will run, checked together so one refusal names them
        // all (`dsh doctor` reads the same list).
        let needs: &[Need] =
            if config.net == crate::spec::Net::Private { &[Need::Network] } else { &[] };
        let missing = crate::requirements::missing(needs, None);
        if !missing.is_empty() {
            return Err(anyhow::Error::new(MissingTools(missing))).context(
                "the local sandbox daemon cannot start (`dsh doctor --fix` installs what is missing; [sandboxd] net = \"none\" runs sandboxes without a network instead)",
            );
        }
        if config.isolation == IsolationLevel::Strict {
            crate::privileges::check_strict().context("strict isolation is not available")?;
        }
        let envd_binary = match &config.envd_binary {
            Some(path) => path.clone(),
            None => locate_envd()?,
        };
        if !envd_binary.is_file() {
            bail!("dsh-envd not found at {}", envd_binary.display());
        }
        // Sandboxes are started from other directories: a relative path must not reach
        // the first create as one.
        let envd_binary = std::fs::canonicalize(&envd_binary)
            .with_context(|| format!("resolving {}", envd_binary.display()))?;
        // Before the records are read: with quotas they live in the disk image.
        let disk = match rootless_blocks {
            Some(_) => disk::Disk::without_quota(
                &state_dir,
                "running as an ordinary user: the btrfs image behind disk quotas needs root to mount",
            ),
            None => disk::Disk::open(&state_dir, config.defaults.disk_mb, config.disk_image_mb),
        };
        let store = Store::open(&state_dir)?;
        let envd_binary = share_program(&state_dir, &envd_binary)?;
        launcher = launcher.shared_program_dir(state_dir.join(PROGRAM_DIR));
        // Before anything is mounted: a daemon that cannot listen leaves nothing behind.
        let listener = dsh_http::bind(config.listen)
            .with_context(|| format!("cannot listen on {}", config.listen))?;
        // Before any sandbox starts: each binds the layer view when it starts.
        let layers =
            layers::Layers::open(&state_dir, config.layer_store.as_deref(), LAYER_BUILD_TIMEOUT);
        let file_max = open_files::host_file_max().context("reading the host's fs.file-max")?;
        let open_files =
            open_files::OpenFileBound::for_host(file_max, config.defaults.max_processes);
        if open_files.tasks < config.defaults.max_processes {
            tracing::info!(
                file_max,
                configured = config.defaults.max_processes,
                tasks = open_files.tasks,
                files_per_process = open_files.per_process,
                "sandboxes get fewer tasks than configured: with {} open files each, more would let one sandbox hold over half of the host's file table",
                open_files.per_process
            );
        }
        let runsc = gvisor_runtime(&state_dir);
        if let (crate::gvisor::Runtime::Gvisor, Err(why)) = (config.runtime, &runsc) {
            anyhow::bail!("the default runtime is gvisor, but {why}");
        }
        let shared = Arc::new(Shared {
            runsc,
            open_files,
            teardowns: Teardowns::default(),
            demand: pool::Demand::default(),
            spare_netns: Arc::new(spare_netns::SpareNetworks::new(
                state_dir.join(lifecycle::NETNS_DIR),
                config.spare_networks,
            )),
            config: Config { state_dir: state_dir.clone(), ..config },
            api_key: api_key.clone(),
            store,
            launcher,
            envd_binary,
            cgroups,
            layers,
            disk,
            sandboxes: Mutex::new(HashMap::new()),
            refilling: Mutex::new(Default::default()),
            stopping: std::sync::atomic::AtomicBool::new(false),
            names_lock: tokio::sync::Mutex::new(()),
            builds: builds::Builds::default(),
            images: crate::oci::ImageStore::new(
                state_dir.join(IMAGES_DIR),
                crate::oci::PullOptions::default(),
            ),
        });

        let recovered = {
            let shared = shared.clone();
            tokio::task::spawn_blocking(move || {
                // gVisor containers do not die with their daemon (runsc's sandbox
                // process is nobody's child): those an earlier daemon left go first.
                if let Ok(runsc) = &shared.runsc {
                    gvisor_sandbox::clean_up(runsc, &shared.config.state_dir);
                }
                lifecycle::recover(&shared)
            })
            .await
            .context("recovery panicked")??
        };
        for record in recovered {
            shared.insert_slot(Arc::new(Slot::new(record)));
        }
        snapshots::recover(&shared);
        volumes::recover(&shared);
        {
            let shared = shared.clone();
            tokio::task::spawn_blocking(move || {
                volume_quota::migrate_to_subvolumes(&shared);
                volume_ids::migrate(&shared);
            })
            .await
            .context("converting volumes panicked")?;
        }
        templates::recover(&shared);
        let templates: Vec<String> = shared.config.templates.names().map(str::to_owned).collect();
        for template in templates {
            pool::refill(&shared, &template);
        }

        let addr = listener.local_addr()?;
        let app = api::router(shared.clone());
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let server = tokio::spawn(dsh_http::serve(
            listener,
            app,
            shared.config.http,
            proxy::Peer::of,
            async move {
                let _ = stopped.await;
            },
        ));
        if shared.config.net == crate::spec::Net::Private {
            // The rules refuse the host's own addresses: they follow the host's changes.
            let weak = Arc::downgrade(&shared);
            network::follow_host_addresses(move || {
                let shared = weak.upgrade()?;
                if shared.stopping.load(std::sync::atomic::Ordering::SeqCst) {
                    return None;
                }
                let slots: Vec<Arc<Slot>> = shared.map().values().cloned().collect();
                Some(
                    slots
                        .iter()
                        .filter_map(|slot| slot.lock().network.as_ref().map(|n| n.pin().to_owned()))
                        .collect(),
                )
            })
            .context("listening to the host's address changes")?;
        }
        let reaper = tokio::spawn(lifecycle::reaper(shared.clone(), shared.config.reaper_tick));
        let sampler = tokio::spawn(metrics::sampler(shared.clone(), shared.config.metrics_tick));
        tracing::info!(%addr, state_dir = %state_dir.display(), envd = %shared.envd_binary.display(), "dsh-sandboxd listening");
        Ok(Daemon { addr, api_key, state_dir, shared, stop: Some(stop), server, reaper, sampler })
    }

    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// `http://<addr>`: the value for both `E2B_API_URL` and `E2B_SANDBOX_URL`.
    pub fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    pub fn api_key(&self) -> &str {
        &self.api_key
    }

    /// What each sandbox may write to its files, in MiB, or why there is no quota.
    pub fn disk_quota_mb(&self) -> Result<u64, &str> {
        match self.shared.disk.unlimited_reason() {
            Some(reason) => Err(reason),
            None => Ok(self.shared.disk.sandbox_mb()),
        }
    }

    pub fn state_dir(&self) -> &Path {
        &self.state_dir
    }

    /// Stops accepting requests and pauses every running sandbox (their files stay;
    /// the next start brings them back as paused).
    pub async fn shutdown(mut self) -> anyhow::Result<()> {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        self.reaper.abort();
        self.sampler.abort();
        self.shared.stopping.store(true, std::sync::atomic::Ordering::SeqCst);
        let spares = Arc::clone(&self.shared.spare_netns);
        if let Err(e) = tokio::task::spawn_blocking(move || spares.shut_down()).await {
            tracing::warn!(error = %e, "detaching the networks made ahead");
        }
        let mut pauses = tokio::task::JoinSet::new();
        for slot in self.shared.slots() {
            let shared = self.shared.clone();
            pauses.spawn(async move {
                let _ops = slot.ops.lock().await;
                let (phase, has_process, pooled, building, gone, runtime) = {
                    let inner = slot.lock();
                    let gone = inner.gone;
                    let record = &inner.record;
                    let (pooled, building) = (inner.pooled, inner.building);
                    (record.phase, inner.process.is_some(), pooled, building, gone, record.runtime)
                };
                // A gVisor sandbox's memory goes to disk and outlives the daemon; other
                // processes cannot.
                let keep_memory =
                    runtime == crate::gvisor::Runtime::Gvisor && phase == Phase::Running;
                if gone {
                    // Killed: its teardown is awaited below.
                } else if pooled || building {
                    // Never handed out, or a build's: nothing of it is worth keeping.
                    pool::discard(&shared, &slot).await;
                } else if (phase == Phase::Running || has_process)
                    && let Err(e) = lifecycle::pause(&shared, &slot, keep_memory).await
                {
                    tracing::error!(sandbox = %slot.id, error = format!("{e:#}"), "pausing at shutdown");
                }
            });
        }
        while pauses.join_next().await.is_some() {}
        self.shared.teardowns.wait().await;
        self.shared.layers.unmount();
        self.shared.disk.unmount();
        // Streams to sandboxes ended with their envd; give idle connections a moment.
        match tokio::time::timeout(Duration::from_secs(5), &mut self.server).await {
            Ok(result) => result.context("the server task panicked")??,
            Err(_) => {
                tracing::warn!("connections still open after 5 s; closing them");
                self.server.abort();
            }
        }
        tracing::info!("dsh-sandboxd stopped");
        Ok(())
    }
}

/// Dropping the handle without [`Daemon::shutdown`] stops serving but leaves the
/// sandboxes running (as a crash would); the next start pauses them.
impl Drop for Daemon {
    fn drop(&mut self) {
        self.reaper.abort();
        self.sampler.abort();
        // Its sandboxes still run on their files.
        self.shared.disk.keep_mounted();
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        // The networks made ahead are nobody's once the handle is gone: the tasks still
        // holding the daemon's state may outlive the process, and a pasta (which
        // daemonizes) would outlive it too. Stopped here, a refill under way awaited
        // (shutdown did it already: then this does nothing).
        self.shared.spare_netns.shut_down();
    }
}

/// Runs the daemon until `shutdown` resolves, then pauses every sandbox and returns.
pub async fn serve(config: Config, shutdown: impl Future<Output = ()>) -> anyhow::Result<()> {
    let daemon = Daemon::start(config).await?;
    shutdown.await;
    daemon.shutdown().await
}

/// The daemon's own directory holding envd alone, shown in every sandbox at `/.dsh/bin`.
const PROGRAM_DIR: &str = "program";

/// Puts `binary` alone in `<state>/program/` (a hard link, or a copy across filesystems)
/// and returns its path there: every sandbox's `/.dsh/bin` shows that one file, so no
/// sandbox needs a copy of its own (its files may live in the disk image).
fn share_program(state_dir: &Path, binary: &Path) -> anyhow::Result<PathBuf> {
    let dir = state_dir.join(PROGRAM_DIR);
    std::fs::create_dir_all(&dir).with_context(|| format!("creating {}", dir.display()))?;
    let name = binary.file_name().context("envd's path has no file name")?;
    let shared = dir.join(name);
    let tmp = dir.join(format!(".{}.tmp", name.to_string_lossy()));
    let _ = std::fs::remove_file(&tmp);
    if std::fs::hard_link(binary, &tmp).is_err() {
        std::fs::copy(binary, &tmp)
            .with_context(|| format!("copying {} into {}", binary.display(), dir.display()))?;
    }
    std::fs::rename(&tmp, &shared).with_context(|| format!("replacing {}", shared.display()))?;
    Ok(shared)
}

/// Reads `<state-dir>/api-key`, or generates one (`dsh_` + 40 hex digits, mode 0600).
fn load_or_create_api_key(state_dir: &Path) -> anyhow::Result<String> {
    let path = state_dir.join(API_KEY_FILE);
    match std::fs::read_to_string(&path) {
        Ok(key) if !key.trim().is_empty() => return Ok(key.trim().to_owned()),
        Ok(_) => {}
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(e) => return Err(e).with_context(|| format!("reading {}", path.display())),
    }
    let key = format!("e2b_{}", registry::random_hex(20));
    let tmp = state_dir.join(".api-key.tmp");
    registry::write_private(&tmp, &path, format!("{key}\n").as_bytes())
        .with_context(|| format!("writing {}", path.display()))?;
    tracing::info!(path = %path.display(), "generated a new API key");
    Ok(key)
}

/// `$DSH_ENVD_BIN`, else `dsh-envd` next to the current executable or one directory up.
pub fn locate_envd() -> anyhow::Result<PathBuf> {
    if let Some(path) = std::env::var_os(ENVD_BINARY_ENV) {
        return Ok(PathBuf::from(path));
    }
    let exe = std::env::current_exe()?;
    let mut searched = Vec::new();
    for dir in exe.ancestors().skip(1).take(2) {
        let candidate = dir.join(ENVD_BINARY_NAME);
        if candidate.is_file() {
            return Ok(candidate);
        }
        searched.push(candidate.display().to_string());
    }
    bail!("dsh-envd not found (set {ENVD_BINARY_ENV}); searched {}", searched.join(", "))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    #[test]
    fn an_error_that_shows_its_source_is_not_printed_twice() {
        let os = std::io::Error::from_raw_os_error(libc::ENOSPC);
        let launcher = crate::error::Error::Io { context: "writing /s/program".into(), source: os };
        let error = anyhow::Error::new(launcher).context("creating sandbox abc");
        assert_eq!(
            chain_text(&error),
            "creating sandbox abc: writing /s/program: No space left on device (os error 28)"
        );
        let plain = anyhow::anyhow!("inner").context("outer");
        assert_eq!(chain_text(&plain), "outer: inner");
    }
}
