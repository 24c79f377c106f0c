//! The daemon's configuration and the constants the rest of the control plane names.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

use crate::spec::{IdRange, IsolationLevel};
use crate::template::Templates;

/// The envd version the control plane reports (dsh-envd's).
pub use dsh_proto::ENVD_VERSION;
/// Where images pulled for template builds are kept, under the state directory.
pub(crate) const IMAGES_DIR: &str = "images";
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
    /// A hosts(5) file: names the egress path resolves itself (header rules over plain
    /// HTTP go only to a name's own addresses; see `intercept.rs`), before the host's
    /// resolver.
    pub egress_hosts: Option<PathBuf>,
    /// PEM certificates trusted, besides the host's store, for the destinations of
    /// header rules over HTTPS (a company's CA; a test's stand-in).
    pub egress_trust: Option<PathBuf>,
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
            pool_window: DEMAND_WINDOW,
            spare_networks: SPARES,
            runtime: crate::gvisor::Runtime::Native,
            net: crate::spec::Net::Private,
            http: dsh_http::Limits { max_connections: 16_384, ..dsh_http::Limits::default() },
            layer_store: None,
            disk_image_mb: None,
            volume_mb: None,
            egress_hosts: None,
            egress_trust: None,
        }
    }
}

/// How long a create counts as demand for its template's pool (the default of
/// `Config::pool_window`).
pub const DEMAND_WINDOW: Duration = Duration::from_secs(10);
/// How many networks are kept ready by default. Each holds a pasta (~20 MiB).
pub const SPARES: usize = 2;
