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
//! /root, /var, `envd.log`), `layers/` (read-only layers shared by every sandbox;
//! see `layers.rs`), and `secrets/` (0700: one `<secretID>.json` per secret, 0600; see
//! `store/secrets.rs`).

mod config;
mod control;
mod http;
pub mod net;
pub mod sandbox;
pub mod store;

// Every module by its name, whichever layer holds it (see docs/architecture.md).
pub(crate) use control::context;
pub(crate) use control::error as control_error;
pub(crate) use control::{
    build_progress, builds, code_interpreter, snapshots, templates, volume_ids, volume_quota,
    volume_subvolumes, volumes,
};
// The secrets' operations; `secrets` is their store's name (below).
pub(crate) use control::secrets as secret_ops;
pub(crate) use http::{api, api_body, api_error, proxy, secrets_api, template_api, volume_content};
pub use net::domains;
pub(crate) use net::upstream;
pub use net::{
    attached, egress_ca, host_addresses, intercept, netns, network, socks5, spare_netns,
};
pub use sandbox::open_files;
pub(crate) use sandbox::{
    demand, envd_client, fork, gvisor_sandbox, lifecycle, metrics, pool, runtime, series, shared,
    slot, startup,
};
pub(crate) use store::{
    described, domain, egress, files, header_rules, held_blocks, ready_file, record, volume_records,
};
pub use store::{disk, layers, secrets};

pub use api::check_body;
pub use lifecycle::kill_stray_init;

/// The egress path's header rules: the daemon's CA (made on first start) and its
/// configured names. A CA that cannot be made is logged and leaves rules refused.
fn interception(
    state_dir: &std::path::Path,
    egress_hosts: Option<&std::path::Path>,
    egress_trust: Option<&std::path::Path>,
    secrets: &secrets::Secrets,
) -> anyhow::Result<Option<Arc<intercept::Interception>>> {
    let hosts = match egress_hosts {
        Some(path) => intercept::read_hosts(
            &std::fs::read_to_string(path)
                .with_context(|| format!("reading {}", path.display()))?,
        ),
        None => Default::default(),
    };
    match egress_ca::EgressCa::open(state_dir, egress_trust) {
        Ok(ca) => Ok(Some(Arc::new(intercept::Interception {
            ca: Arc::new(ca),
            secrets: Arc::new(secrets.clone()),
            hosts,
        }))),
        Err(e) => {
            tracing::warn!(error = format!("{e:#}"), "no egress CA: header rules are refused");
            Ok(None)
        }
    }
}

/// Removes the gVisor containers (and their bundles) of the daemon whose state directory
/// is `state_dir`: runsc's processes do not die with their daemon. A start does this; so
/// does a test that drops a daemon without its shutdown.
pub fn clean_up_gvisor(state_dir: &std::path::Path) {
    if let Ok(runsc) = crate::gvisor::Runsc::new(None, state_dir.join(RUNSC_DIR)) {
        gvisor_sandbox::clean_up(&runsc, state_dir);
    }
}
pub use pool::machine_cap as pool_cap;

use std::collections::HashMap;
use std::future::Future;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use anyhow::{Context, bail};

use crate::cgroup::Cgroups;
use crate::launch::Launcher;
use crate::requirements::{MissingTools, Need};
use crate::spec::IsolationLevel;
use record::{Phase, Store};
use slot::Slot;

pub(crate) use api_error::ApiError;
pub use config::*;
pub(crate) use shared::{Shared, Teardowns, find_template};

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
        files::set_mode(&state_dir, 0o700)?;
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
        let secrets = secrets::Secrets::open(state_dir.join(secrets::DIR))?;
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
        let interception = interception(
            &state_dir,
            config.egress_hosts.as_deref(),
            config.egress_trust.as_deref(),
            &secrets,
        )?;
        let shared = Arc::new(Shared {
            interception,
            runsc,
            open_files,
            teardowns: Teardowns::default(),
            demand: demand::Demand::default(),
            spare_netns: Arc::new(spare_netns::SpareNetworks::new(
                state_dir.join(lifecycle::NETNS_DIR),
                config.spare_networks,
            )),
            config: Config { state_dir: state_dir.clone(), ..config },
            api_key: api_key.clone(),
            store,
            secrets,
            launcher,
            envd_binary,
            cgroups,
            layers,
            disk,
            sandboxes: Mutex::new(HashMap::new()),
            refilling: Mutex::new(Default::default()),
            stopping: std::sync::atomic::AtomicBool::new(false),
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
        // The control layer's context over the sandbox layer's.
        let control = Arc::new(context::Control::new(shared.clone()));
        snapshots::recover(&control);
        volumes::recover(&control);
        {
            let control = control.clone();
            tokio::task::spawn_blocking(move || {
                volume_subvolumes::migrate_to_subvolumes(&control);
                volume_ids::migrate(&control);
            })
            .await
            .context("converting volumes panicked")?;
        }
        templates::recover(&control);
        let templates: Vec<String> = shared.config.templates.names().map(str::to_owned).collect();
        for template in templates {
            pool::refill(&shared, &template);
        }

        let addr = listener.local_addr()?;
        let app = api::router(control);
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

    /// The daemon's secrets (E2B's `/secrets`): what an embedding program or a test
    /// resolves a secret's value with.
    pub fn secrets(&self) -> &secrets::Secrets {
        &self.shared.secrets
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
    let key = format!("e2b_{}", files::random_hex(20));
    let tmp = state_dir.join(".api-key.tmp");
    files::write_private(&tmp, &path, format!("{key}\n").as_bytes())
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
