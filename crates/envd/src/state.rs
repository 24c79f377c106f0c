//! The daemon's shared state: users, the settings `/init` can change, and the tables of
//! processes and watchers.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::{Mutex, RwLock};

use crate::cacerts::{CaCertInstaller, CaPaths};
use crate::fs::watch::WatcherTable;
use crate::process::ProcessTable;
use crate::users::UserDb;

/// Start-up configuration of one envd.
#[derive(Debug, Clone)]
pub struct EnvdConfig {
    /// The user RPCs run as when no `Authorization: Basic` header names one.
    pub default_user: String,
    /// Where empty paths and process cwds resolve to (else the user's home).
    pub default_workdir: Option<PathBuf>,
    /// Required in `X-Access-Token` when set (also settable by `/init`).
    pub access_token: Option<String>,
    /// Exported to processes as `E2B_SANDBOX_ID`.
    pub sandbox_id: Option<String>,
    /// Exported to processes as `E2B_TEMPLATE_ID`.
    pub template_id: Option<String>,
    /// The largest RPC message accepted or sent.
    pub max_message_bytes: usize,
    /// The HTTP door's limits; `None`: [`crate::door_limits`] (from the descriptor limit).
    pub door: Option<dsh_http::Limits>,
    /// How many processes, terminals and polling watchers envd keeps at once.
    pub caps: Caps,
    /// E2B-strict mode: behave as E2B's envd of this version (see [`crate::strict`]).
    pub strict: Option<crate::strict::StrictVersion>,
}

/// envd's own caps, each past which a request gets `resource_exhausted` (HTTP 429).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Caps {
    /// Processes started through envd (terminals included) running at once.
    pub processes: usize,
    /// PTY processes among them.
    pub terminals: usize,
    /// Polling watchers (`CreateWatcher`); streaming ones end with their connection.
    pub watchers: usize,
}

impl Default for Caps {
    fn default() -> Self {
        // Each process holds up to four descriptors here (pipes or a PTY, and its pidfd);
        // inotify allows 128 instances per user by default.
        Caps { processes: 1024, terminals: 256, watchers: 100 }
    }
}

impl Default for EnvdConfig {
    fn default() -> Self {
        Self {
            default_user: "root".into(),
            default_workdir: None,
            access_token: None,
            sandbox_id: None,
            template_id: None,
            max_message_bytes: dsh_proto::connect::DEFAULT_MAX_MESSAGE_BYTES,
            door: None,
            caps: Caps::default(),
            strict: None,
        }
    }
}

/// What `/init` may change at run time.
#[derive(Debug, Clone)]
pub struct Settings {
    pub default_user: String,
    pub default_workdir: Option<PathBuf>,
    pub access_token: Option<String>,
    /// The sandbox-wide variables from `/init envVars` (replaced as a whole).
    pub env_vars: BTreeMap<String, String>,
    /// The newest `/init` timestamp seen, as (seconds, nanos); older requests are stale.
    pub last_init: Option<(i64, i32)>,
}

pub struct Envd {
    pub config: EnvdConfig,
    pub users: UserDb,
    pub processes: ProcessTable,
    pub watchers: WatcherTable,
    settings: RwLock<Settings>,
    pub(crate) cpu_sample: Mutex<Option<crate::http_api::CpuSample>>,
    /// Installs `/init`'s `caBundle` into the system trust bundle.
    pub ca_certs: CaCertInstaller,
    /// One `/init` at a time, so that its staleness check, CA install and settings change
    /// are not interleaved with another's (E2B's `initLock`, `internal/api/init.go:189-194`).
    pub(crate) init_lock: tokio::sync::Mutex<()>,
    /// Set at shutdown: every response stream still open is cut.
    cut: tokio::sync::watch::Sender<bool>,
}

impl Envd {
    pub fn new(config: EnvdConfig) -> Self {
        Self::with_users(config, UserDb::system())
    }

    pub fn with_users(config: EnvdConfig, users: UserDb) -> Self {
        Self::with_users_and_ca_paths(config, users, CaPaths::system())
    }

    /// As [`Envd::with_users`], installing `/init`'s `caBundle` at `ca_paths` instead of the
    /// system's trust bundle (for tests: envd itself always uses [`CaPaths::system`]).
    pub fn with_users_and_ca_paths(config: EnvdConfig, users: UserDb, ca_paths: CaPaths) -> Self {
        let settings = Settings {
            default_user: config.default_user.clone(),
            default_workdir: config.default_workdir.clone(),
            access_token: config.access_token.clone(),
            env_vars: BTreeMap::new(),
            last_init: None,
        };
        Self {
            config,
            users,
            processes: ProcessTable::default(),
            watchers: WatcherTable::default(),
            settings: RwLock::new(settings),
            cpu_sample: Mutex::new(None),
            ca_certs: CaCertInstaller::new(ca_paths),
            init_lock: tokio::sync::Mutex::new(()),
            cut: tokio::sync::watch::Sender::new(false),
        }
    }

    /// Cuts every response stream still open, and those started later (shutdown).
    pub fn cut_streams(&self) {
        self.cut.send_replace(true);
    }

    /// Resolves once [`Envd::cut_streams`] is called (never if it is not).
    pub(crate) fn streams_cut(&self) -> impl Future<Output = ()> + Send + 'static {
        let mut cut = self.cut.subscribe();
        async move {
            if cut.wait_for(|cut| *cut).await.is_err() {
                std::future::pending::<()>().await;
            }
        }
    }

    pub fn settings(&self) -> Settings {
        match self.settings.read() {
            Ok(settings) => settings.clone(),
            Err(poisoned) => poisoned.into_inner().clone(),
        }
    }

    pub fn update_settings(&self, change: impl FnOnce(&mut Settings)) {
        let mut guard = match self.settings.write() {
            Ok(guard) => guard,
            Err(poisoned) => poisoned.into_inner(),
        };
        change(&mut guard);
    }

    /// The variables every process gets before its own: E2B's system keys, then the
    /// sandbox-wide `/init` variables.
    pub fn global_env(&self) -> BTreeMap<String, String> {
        let mut env = BTreeMap::new();
        env.insert("E2B_SANDBOX".to_owned(), "true".to_owned());
        if let Some(id) = &self.config.sandbox_id {
            env.insert("E2B_SANDBOX_ID".to_owned(), id.clone());
        }
        if let Some(template) = &self.config.template_id {
            env.insert("E2B_TEMPLATE_ID".to_owned(), template.clone());
        }
        env.extend(self.settings().env_vars);
        env
    }
}
