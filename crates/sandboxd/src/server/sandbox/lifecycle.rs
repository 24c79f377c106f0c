//! Starting and stopping a sandbox's envd, timeouts, and recovery after a restart.
//!
//! Every function that changes a sandbox expects the caller to hold the slot's `ops`
//! lock, so create, pause, resume, kill and the timeout reaper never interleave on one
//! sandbox.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{Context, anyhow, bail};
use http_body_util::{BodyExt, Full};
use hyper::body::Bytes;

use crate::cgroup::Resources;
use crate::launch::{Output, Payload};
use crate::running::Running;
use crate::server::Shared;
use crate::server::files::now_ms;
use crate::server::netns::Reach;
use crate::server::record::{Phase, Record};
use crate::server::runtime::MemoryKept;
use crate::server::slot::Slot;
use crate::server::upstream::{self as proxy, ENVD_PORT, Port};
use crate::spec::{Isolation, Net, SandboxSpec};
use crate::state::StateDir;

use crate::server::ready_file::{READY_DIR_INSIDE, READY_FILE};
/// Where private networks' namespaces are pinned, in the daemon's state directory.
pub const NETNS_DIR: &str = "netns";
/// Time a stopping envd gets between SIGTERM and SIGKILL.
const STOP_GRACE: Duration = Duration::from_secs(2);
pub const DEFAULT_USER: &str = "user";
/// envd's privilege service for `sudo`, on the sandbox's own `/run` (a fresh tmpfs owned
/// by its root: nothing but root inside can put anything in `/run/dsh`).
pub const SUDO_SOCKET: &str = "/run/dsh/sudo.sock";
/// Where envd plants the `sudo` program: on every PATH, in the sandbox's `/usr` overlay.
pub const SUDO_PROGRAM: &str = "/usr/local/bin/sudo";
/// What `sudo` says where the sandbox's root is the host's (`isolation = "namespaces"`).
pub const SUDO_DISABLED: &str = "disabled in this sandbox, because its root would be the \
    host's root (isolation \"namespaces\"); sudo is offered only under strict isolation, where \
    root inside is an unprivileged host uid";

/// envd's arguments for `sudo`: the service only where root inside is an unprivileged
/// host uid, else a `sudo` that explains why there is none. envd itself plants the
/// program (as the sandbox's root, through the overlay): the daemon, host root, never
/// writes through paths the sandbox controls.
pub fn sudo_args(isolation: Isolation) -> [&'static str; 4] {
    match isolation {
        Isolation::Strict { .. } => ["--sudo-socket", SUDO_SOCKET, "--sudo-install", SUDO_PROGRAM],
        Isolation::Namespaces => ["--sudo-disabled", SUDO_DISABLED, "--sudo-install", SUDO_PROGRAM],
    }
}

/// Names agents expect that the host's /usr may lack: envd links them at start when
/// missing (E2B's images have `python` and `pip`; Debian's python3 has neither).
pub const COMMAND_ALIASES: [&str; 4] =
    ["--command-alias", "python=python3", "--command-alias", "pip=pip3"];

/// The spec of a sandbox from its record: its template, its uid block (kept for its
/// whole life) and its limits.
pub fn spec_for(shared: &Shared, record: &Record) -> anyhow::Result<SandboxSpec> {
    let id = &record.sandbox_id;
    let template = shared.template(&record.template_id)?;
    let mut spec = SandboxSpec::new(id, shared.store.sandbox_dir(id), template);
    spec.net = shared.config.net;
    spec.layers = shared.layers.view();
    for mount in &record.volume_mounts {
        let volume =
            crate::server::volumes::by_id(&shared.store, &mount.volume_id).with_context(|| {
                format!(
                    "volume '{}' ({}) mounted at {} is gone",
                    mount.name, mount.volume_id, mount.path
                )
            })?;
        spec.volumes.push(crate::spec::VolumeMount {
            source: crate::server::volumes::files(&shared.store, &volume),
            inside: mount.path.clone().into(),
            ids: volume.ids,
        });
    }
    spec.isolation = match record.isolation {
        Some(isolation) => isolation,
        // A record from before isolation levels were recorded ran without a user
        // namespace: its files are owned by host ids, so it keeps that level.
        None => Isolation::Namespaces,
    };
    // With `pids.max`, what bounds the sandbox's open files (see `open_files.rs`).
    spec.limits.max_open_files = Some(shared.open_files.per_process);
    if shared.cgroups.is_none() {
        // No cgroups to hold limits (an ordinary user's daemon): said once at start.
        return Ok(spec);
    }
    let defaults = shared.config.defaults;
    let memory_mb = record.memory_mb.unwrap_or(defaults.memory_mb);
    spec.resources = Resources {
        memory_bytes: Some(memory_mb << 20),
        // No swap beyond the memory limit: a sandbox over its limit is OOM-killed
        // instead of slowing the host down by swapping.
        swap_bytes: Some(0),
        pids: Some(shared.open_files.tasks),
        cpu_millis: Some(record.cpu_count.unwrap_or(defaults.cpu_count) * 1000),
    };
    Ok(spec)
}

/// Starts envd in the sandbox (a fresh sandbox, or a paused one over its kept files),
/// waits until it is healthy and initializes it. On success the slot is `Running`
/// (the caller sets the deadline and saves).
pub async fn start(shared: &Arc<Shared>, slot: &Slot) -> anyhow::Result<()> {
    if slot.lock().frozen.is_some() {
        return thaw(slot).await;
    }
    launch(shared, slot).await?;
    let record = slot.record();
    if let Some(checkpoint) = record.checkpoint {
        // Restored: its processes went on where they were saved, envd among them, with
        // the token it held then (a fork's own is given to it now).
        activate(shared, slot, checkpoint.envd_access_token.as_deref()).await?;
        return forget_checkpoint(shared, slot).await;
    }
    activate(shared, slot, record.envd_access_token.as_deref()).await?;
    boot(slot).await
}

/// The directory a gVisor sandbox's memory is saved in.
fn memory_dir(shared: &Shared, id: &str) -> std::path::PathBuf {
    shared.store.sandbox_dir(id).join(crate::server::gvisor_sandbox::MEMORY_DIR)
}

/// Once a restored sandbox runs, its checkpoint is spent: removed from its directory
/// (and its quota) and from its record.
async fn forget_checkpoint(shared: &Shared, slot: &Slot) -> anyhow::Result<()> {
    let dir = memory_dir(shared, &slot.id);
    tokio::task::spawn_blocking(move || std::fs::remove_dir_all(&dir))
        .await
        .context("the removal task panicked")?
        .or_else(|e| if e.kind() == std::io::ErrorKind::NotFound { Ok(()) } else { Err(e) })
        .context("removing a restored sandbox's checkpoint")?;
    let record = {
        let mut inner = slot.lock();
        inner.record.checkpoint = None;
        inner.record.clone()
    };
    shared.store.save(&record).context("saving the sandbox record")
}

/// Writes a running gVisor sandbox's memory (its processes, their open files and
/// listening sockets) to its directory and stops it; its record says so, and its next
/// start restores it. Its network goes; its files stay. `durable`: synced to the disk
/// before the record names it (a pause, a snapshot: it must outlive the host; a fork's
/// is spent within the request).
pub async fn checkpoint(shared: &Shared, slot: &Slot, durable: bool) -> anyhow::Result<()> {
    if !matches!(slot.lock().process, Some(Running::Gvisor(_))) {
        bail!("sandbox {} does not run under gVisor: its memory cannot be saved", slot.id);
    }
    let (process, network, _) = take_running(slot);
    let Some(Running::Gvisor(container)) = process else {
        bail!("sandbox {} stopped meanwhile", slot.id);
    };
    let dir = memory_dir(shared, &slot.id);
    let started = Instant::now();
    let saved = tokio::task::spawn_blocking(move || -> anyhow::Result<u64> {
        if dir.exists() {
            std::fs::remove_dir_all(&dir).context("removing an older checkpoint")?;
        }
        std::fs::create_dir(&dir).with_context(|| format!("creating {}", dir.display()))?;
        if let Err(e) = container.checkpoint(&dir) {
            let _ = std::fs::remove_dir_all(&dir);
            return Err(e.into());
        }
        let bytes: u64 = std::fs::read_dir(&dir)?
            .flatten()
            .filter_map(|entry| entry.metadata().ok())
            .map(|meta| meta.len())
            .sum();
        if bytes == 0 {
            let _ = std::fs::remove_dir_all(&dir);
            bail!("runsc wrote an empty checkpoint");
        }
        if durable {
            // On disk before the record says so: it must outlive the host.
            for entry in std::fs::read_dir(&dir)?.flatten() {
                std::fs::File::open(entry.path())?.sync_all()?;
            }
            std::fs::File::open(&dir)?.sync_all()?;
        }
        Ok(bytes)
    })
    .await
    .context("the checkpoint task panicked")
    .and_then(|saved| saved);
    // The sandbox's network outlives nothing of it.
    drop(network);
    let bytes = saved?;
    let record = {
        let mut inner = slot.lock();
        let token = inner.record.envd_access_token.clone();
        inner.record.checkpoint =
            Some(crate::server::record::Checkpoint { envd_access_token: token });
        inner.record.clone()
    };
    shared.store.save(&record).context("saving the sandbox record")?;
    tracing::info!(sandbox = %slot.id, bytes, elapsed = ?started.elapsed(), "sandbox's memory saved to disk");
    Ok(())
}

/// A sandbox of a template built here boots as the template says: its start command in
/// the background, then its ready command until it succeeds (at every fresh start: a
/// create, a resume that reboots). A template that does not come up stops the sandbox.
async fn boot(slot: &Slot) -> anyhow::Result<()> {
    let (record, envd) = {
        let inner = slot.lock();
        (inner.record.clone(), inner.envd.clone())
    };
    let Some(startup) = record.startup.filter(|s| s.start_cmd.is_some() || s.ready_cmd.is_some())
    else {
        return Ok(());
    };
    let Some(port) = envd else { bail!("sandbox {} has no running envd", slot.id) };
    let envd = crate::server::envd_client::Envd { port, access_token: record.envd_access_token };
    let mut log = |_: &'static str, line: String| tracing::debug!(sandbox = %slot.id, line, "boot");
    if let Err(message) =
        crate::server::builds::boot(&envd, &startup, &record.env_vars, &mut log).await
    {
        stop(slot).await;
        bail!("template {}: {message}", startup.template_id);
    }
    Ok(())
}

/// Initializes a launched sandbox's envd with the record's env vars and access token
/// (`presented`: the token envd holds now) and marks the slot `Running`.
pub async fn activate(shared: &Shared, slot: &Slot, presented: Option<&str>) -> anyhow::Result<()> {
    let Some(envd) = slot.lock().envd.clone() else {
        bail!("sandbox {} has no running envd", slot.id);
    };
    let initialized = tokio::time::timeout(
        shared.config.envd_start_timeout,
        init(&envd, shared, slot, presented),
    )
    .await
    .unwrap_or_else(|_| Err(anyhow!("envd did not answer POST /init in time")));
    if let Err(e) = initialized {
        stop(slot).await;
        return Err(e.context(format!("envd in sandbox {} did not start", slot.id)));
    }
    slot.lock().record.phase = Phase::Running;
    Ok(())
}

/// Starts the sandbox and its envd and waits until envd is healthy (not yet
/// initialized: [`activate`] does that). On success the slot holds the process and
/// envd's address.
pub async fn launch(shared: &Arc<Shared>, slot: &Slot) -> anyhow::Result<()> {
    let record = slot.record();
    let spec = spec_for(shared, &record)?;
    let ready_host = spec.state_dir.join(READY_DIR_INSIDE.trim_start_matches('/'));
    let log = spec.state_dir.join("envd.log");
    let started = Instant::now();

    // On the host's network envd takes a free port and says which; in a network of the
    // sandbox's own it has E2B's port, reached through the namespace.
    let host_network = spec.net == Net::Host;
    let runtime = crate::server::runtime::of(record.runtime);
    let listen = match host_network {
        true => "127.0.0.1:0".to_owned(),
        false => runtime.envd_listen(),
    };
    let mut payload = Payload::new(&shared.envd_binary)
        .args(shared.config.envd_args.iter().cloned())
        .arg("--listen")
        .arg(listen);
    if host_network {
        payload = payload.arg("--ready-file").arg(format!("{READY_DIR_INSIDE}/{READY_FILE}"));
    }
    let mut payload = payload
        .arg("--sandbox-id")
        .arg(&record.sandbox_id)
        .arg("--template-id")
        .arg(&record.template_id)
        .arg("--default-user")
        .arg(default_user(&record))
        .arg("--default-workdir")
        .arg(default_workdir(&record, &spec))
        .args(sudo_args(spec.isolation))
        .args(COMMAND_ALIASES)
        .stdout(Output::File(log.clone()))
        .stderr(Output::File(log));
    // Where `user` may read envd's environment (gVisor), its token is given only by the
    // first `/init` (see `activate`), which the daemon sends before anything else runs.
    if let (Some(token), true) = (&record.envd_access_token, runtime.token_in_environment()) {
        payload = payload.env("DSH_ENVD_ACCESS_TOKEN", token);
    }
    if let Ok(filter) = std::env::var("DSH_SANDBOXD_ENVD_LOG") {
        payload = payload.env("RUST_LOG", filter);
    }
    let mut spec = spec;
    let attached = if spec.net == Net::Private {
        let dir = shared.config.state_dir.join(NETNS_DIR);
        let (id, egress) = (record.sandbox_id.clone(), record.network.egress.clone());
        let spares = Arc::clone(&shared.spare_netns);
        let interception = shared.interception.clone();
        let attached = tokio::task::spawn_blocking(move || {
            crate::server::attached::Attached::start(&dir, &id, &egress, &spares, interception)
        })
        .await
        .context("the network task panicked")??;
        spec.netns = Some(attached.pin().to_owned());
        Some(attached)
    } else {
        None
    };
    let netns_pinned = started.elapsed();
    let spawn_spec = spec.clone();
    let ready_dir = ready_host.clone();
    let disk_owner = shared.clone();
    let image = record.checkpoint.as_ref().map(|_| memory_dir(shared, &record.sandbox_id));
    let spawned = tokio::task::spawn_blocking(move || -> anyhow::Result<Running> {
        let making = Instant::now();
        disk_owner.disk.make_sandbox_dir(&spawn_spec.state_dir)?;
        if host_network {
            prepare_ready_dir(&spawn_spec.state_dir.join("var"), spawn_spec.isolation.files_id(0))
                .with_context(|| format!("preparing {}", ready_dir.display()))?;
        }
        let dir_made = making.elapsed();
        let running = runtime.launch(&disk_owner, &spawn_spec, payload, image.as_deref())?;
        tracing::debug!(sandbox = %spawn_spec.id, ?netns_pinned, ?dir_made, spawned = ?making.elapsed() - dir_made, runtime = %runtime.kind(), "sandbox set up");
        Ok(running)
    })
    .await
    .context("the sandbox launch task panicked")
    .and_then(|spawned| spawned);
    let process = match spawned {
        Ok(process) => process,
        Err(e) => {
            // The network is being set up meanwhile: the failure is answered once pasta
            // is gone (dropped unawaited, its detach ran on a thread that a daemon ending
            // right after, as an embedded one in `dsh exec` does, would cut short).
            if let Some(mut attached) = attached {
                let detached = tokio::task::spawn_blocking(move || {
                    let _ = attached.wait_ready();
                    drop(attached);
                })
                .await;
                if let Err(join) = detached {
                    tracing::warn!(error = %join, "detaching a failed sandbox's network");
                }
            }
            return Err(e);
        }
    };

    let pid = process.pid();
    let set_up = started.elapsed();
    // From here on the process must not leak: hand it to the slot at once, so that any
    // failure path (and kill) can stop it.
    slot.lock().process = Some(process);
    // The network comes up while the sandbox is set up: its namespace is made and
    // pinned first, for the sandbox's init to join.
    let network = async {
        let Some(mut attached) = attached else { return anyhow::Ok(None) };
        let attached = tokio::task::spawn_blocking(move || {
            attached.wait_ready()?;
            anyhow::Ok(attached)
        })
        .await
        .context("the network task panicked")??;
        Ok(Some(attached))
    };
    let ready = async {
        let envd = if host_network {
            let addr = wait_for_address(&ready_host.join(READY_FILE), slot).await?;
            Port { reach: Reach::Host, port: addr.port() }
        } else {
            Port { reach: runtime.envd_reach(pid, spec.netns.as_deref())?, port: ENVD_PORT }
        };
        wait_healthy(&envd, slot).await?;
        anyhow::Ok(envd)
    };
    let both = async {
        let (envd, network) = tokio::join!(ready, network);
        anyhow::Ok((envd?, network.context("setting up the sandbox's network")?))
    };
    let (envd, network) = match tokio::time::timeout(shared.config.envd_start_timeout, both).await {
        Ok(Ok(both)) => both,
        Ok(Err(e)) => {
            stop(slot).await;
            return Err(e.context(format!("envd in sandbox {} did not start", slot.id)));
        }
        Err(_) => {
            stop(slot).await;
            bail!(
                "envd in sandbox {} did not become healthy within {:?} (log: {})",
                slot.id,
                shared.config.envd_start_timeout,
                spec.state_dir.join("envd.log").display()
            );
        }
    };
    tracing::info!(sandbox = %slot.id, init_pid = pid, %envd, elapsed = ?started.elapsed(), ?set_up, "sandbox launched");
    let mut inner = slot.lock();
    inner.envd = Some(envd);
    inner.network = network;
    Ok(())
}

/// Puts `egress` into a running sandbox's private network, if it has one: the domain
/// filter's names at once, the nftables rules off the runtime and without the slot's
/// lock (the caller's hold on the slot's `ops` lock keeps the namespace pinned). New
/// connections follow them; open ones stay.
pub async fn load_egress(
    slot: &Slot,
    egress: &crate::server::network::Egress,
) -> anyhow::Result<()> {
    let network = slot.lock().network.as_ref().map(|network| {
        network.set_policy(egress);
        (network.pin().to_owned(), network.divert_port())
    });
    let Some((pin, divert_port)) = network else { return Ok(()) };
    let egress = egress.clone();
    tokio::task::spawn_blocking(move || crate::server::network::load(&pin, &egress, divert_port))
        .await
        .context("the rules task panicked")?
}

/// Fails early when the sandbox died before it was ready.
fn check_alive(slot: &Slot) -> anyhow::Result<()> {
    let mut inner = slot.lock();
    match inner.process.as_mut().map(Running::try_wait) {
        Some(Ok(None)) => Ok(()),
        Some(Ok(Some(status))) => Err(anyhow!("the sandbox exited during start-up ({status})")),
        Some(Err(e)) => Err(e.into()),
        None => Err(anyhow!("the sandbox was stopped during start-up")),
    }
}

/// Makes `<state>/var/lib/dsh-sandboxd` (where envd, root of the sandbox's user
/// namespace, writes its address) owned by the sandbox's root `root`, and removes a stale
/// address file. `/var` is the sandbox's to write, so nothing it may have planted there is
/// followed: each component is opened `O_NOFOLLOW` beneath the previous one. A
/// non-directory in the place of dsh's own directory is replaced; in the place of
/// `/var/lib`, refused.
fn prepare_ready_dir(var: &std::path::Path, root: u32) -> anyhow::Result<()> {
    use rustix::fs::{AtFlags, Mode, OFlags};
    let flags = OFlags::RDONLY | OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::CLOEXEC;
    // The upper layer's root: the daemon's own, the sandbox cannot replace it.
    std::fs::create_dir_all(var)?;
    let var = rustix::fs::open(var, flags, Mode::empty())?;
    let owner = (Some(rustix::fs::Uid::from_raw(root)), Some(rustix::fs::Gid::from_raw(root)));
    let subdir = |parent: &std::os::fd::OwnedFd, name: &str, replace: bool| -> anyhow::Result<_> {
        match rustix::fs::mkdirat(parent, name, Mode::from_raw_mode(0o755)) {
            Ok(()) | Err(rustix::io::Errno::EXIST) => {}
            Err(e) => return Err(e.into()),
        }
        let dir = match rustix::fs::openat(parent, name, flags, Mode::empty()) {
            Err(rustix::io::Errno::LOOP | rustix::io::Errno::NOTDIR) if replace => {
                rustix::fs::unlinkat(parent, name, AtFlags::empty())?;
                rustix::fs::mkdirat(parent, name, Mode::from_raw_mode(0o755))?;
                rustix::fs::openat(parent, name, flags, Mode::empty())?
            }
            Err(rustix::io::Errno::LOOP | rustix::io::Errno::NOTDIR) => {
                bail!("the sandbox replaced /var/{name} with something other than a directory")
            }
            other => other?,
        };
        rustix::fs::fchown(&dir, owner.0, owner.1)?;
        Ok(dir)
    };
    let lib = subdir(&var, "lib", false)?;
    let ready = subdir(&lib, "dsh-sandboxd", true)?;
    match rustix::fs::unlinkat(&ready, READY_FILE, AtFlags::empty()) {
        Ok(()) | Err(rustix::io::Errno::NOENT) => Ok(()),
        Err(e) => Err(anyhow::Error::from(e).context("removing a stale envd address file")),
    }
}

/// envd's address from the file it wrote, read without following a symlink anywhere on
/// the path and only from a regular file (the sandbox could plant a fifo or a link).
fn read_address(path: &std::path::Path) -> Option<SocketAddr> {
    use rustix::fs::{Mode, OFlags, ResolveFlags};
    let flags = OFlags::RDONLY | OFlags::NOFOLLOW | OFlags::NONBLOCK | OFlags::CLOEXEC;
    let file =
        rustix::fs::openat2(rustix::fs::CWD, path, flags, Mode::empty(), ResolveFlags::NO_SYMLINKS)
            .ok()?;
    if !rustix::fs::FileType::from_raw_mode(rustix::fs::fstat(&file).ok()?.st_mode).is_file() {
        return None;
    }
    let mut buffer = [0u8; 128];
    let read = rustix::io::read(&file, &mut buffer).ok()?;
    std::str::from_utf8(&buffer[..read]).ok()?.trim().parse().ok()
}

async fn wait_for_address(path: &std::path::Path, slot: &Slot) -> anyhow::Result<SocketAddr> {
    let mut delay = Duration::from_millis(1);
    loop {
        if let Some(addr) = read_address(path) {
            return Ok(addr);
        }
        check_alive(slot)?;
        tokio::time::sleep(delay).await;
        delay = (delay + Duration::from_millis(1)).min(Duration::from_millis(4));
    }
}

async fn wait_healthy(envd: &Port, slot: &Slot) -> anyhow::Result<()> {
    // envd listens 10-30 ms after the start: polls 1 ms apart at first, then at most 4
    // (a refused connection costs microseconds; a doubling delay overshot by up to 10 ms).
    let mut delay = Duration::from_millis(1);
    loop {
        let request = hyper::Request::get("/health")
            .header(hyper::header::HOST, format!("127.0.0.1:{}", envd.port))
            .body(Full::new(Bytes::new()))?;
        if let Ok(response) = proxy::send(envd, request).await
            && response.status().is_success()
        {
            return Ok(());
        }
        check_alive(slot)?;
        tokio::time::sleep(delay).await;
        delay = (delay * 2).min(Duration::from_millis(20));
    }
}

async fn init(
    envd: &Port,
    shared: &Shared,
    slot: &Slot,
    presented: Option<&str>,
) -> anyhow::Result<()> {
    let record = slot.record();
    let spec = spec_for(shared, &record)?;
    // The template's (an image's ENV), then the egress CA's, then the create's over them.
    let mut env_vars = spec.template.process_env.clone();
    // An ordinary user's daemon: the sandbox's `/etc` is the host's, which root inside
    // cannot write; its own bundle is made in its `/var` instead.
    let own_bundle = crate::rootless::blocks_inside().is_some();
    let ca_bundle = match (&shared.interception, spec.net) {
        (Some(interception), Net::Private) => {
            env_vars.extend(trust_env(own_bundle));
            Some(interception.ca.certificate_pem())
        }
        _ => None,
    };
    env_vars.extend(record.env_vars.clone());
    let body = serde_json::json!({
        "envVars": env_vars,
        "accessToken": record.envd_access_token,
        "defaultUser": default_user(&record),
        "defaultWorkdir": default_workdir(&record, &spec),
        "caBundle": ca_bundle,
        "caBundlePath": own_bundle.then_some(OWN_TRUST_BUNDLE),
    });
    let mut request = hyper::Request::post("/init")
        .header(hyper::header::HOST, format!("127.0.0.1:{}", envd.port))
        .header(hyper::header::CONTENT_TYPE, "application/json");
    if let Some(token) = presented {
        request = request.header("X-Access-Token", token);
    }
    let request = request.body(Full::new(Bytes::from(serde_json::to_vec(&body)?)))?;
    let response = proxy::send(envd, request).await.map_err(|e| anyhow!("POST /init: {e}"))?;
    let status = response.status();
    if !status.is_success() {
        let body = response.into_body().collect().await.map(|b| b.to_bytes()).unwrap_or_default();
        bail!("envd answered POST /init with {status}: {}", String::from_utf8_lossy(&body));
    }
    Ok(())
}

/// Where a sandbox's programs find the trust store that envd's `/init caBundle` puts the
/// daemon's egress CA in (see `egress_ca.rs`), for those that do not read it by default:
/// Node and npm (their own bundled store, to which this adds), Python's requests and pip
/// (certifi's bundle, which this replaces by the system's). curl, git, OpenSSL and
/// Python's `ssl` read the system store already; with a bundle of the sandbox's own
/// (`own`, see [`OWN_TRUST_BUNDLE`]) they are pointed at it too.
fn trust_env(own: bool) -> Vec<(String, String)> {
    const SYSTEM_BUNDLE: &str = "/etc/ssl/certs/ca-certificates.crt";
    let (bundle, names): (&str, &[&str]) = if own {
        let names: &[&str] = &[
            "NODE_EXTRA_CA_CERTS",
            "REQUESTS_CA_BUNDLE",
            "PIP_CERT",
            "SSL_CERT_FILE",
            "CURL_CA_BUNDLE",
            "GIT_SSL_CAINFO",
        ];
        (OWN_TRUST_BUNDLE, names)
    } else {
        (SYSTEM_BUNDLE, &["NODE_EXTRA_CA_CERTS", "REQUESTS_CA_BUNDLE", "PIP_CERT"])
    };
    names.iter().map(|name| ((*name).to_owned(), bundle.to_owned())).collect()
}

/// The trust bundle of a sandbox whose system store cannot be written (an ordinary
/// user's daemon): the system's plus the egress CA, in the sandbox's own `/var`.
const OWN_TRUST_BUNDLE: &str = "/var/lib/dsh-egress/ca-certificates.crt";

/// Who commands run as by default: the built template's last `USER`, else `user`.
fn default_user(record: &Record) -> &str {
    record.startup.as_ref().map_or(DEFAULT_USER, |s| s.user.as_str())
}

/// Where commands run by default: the built template's last `WORKDIR`, else the
/// template's.
fn default_workdir(record: &Record, spec: &SandboxSpec) -> String {
    match &record.startup {
        Some(startup) => startup.workdir.clone(),
        None => spec.template.workdir.to_string_lossy().into_owned(),
    }
}

/// What a running sandbox holds, taken out of its slot to stop it: its process, its
/// network, and whether it was frozen; envd is no longer reachable through the slot.
fn take_running(slot: &Slot) -> (Option<Running>, Option<crate::server::attached::Attached>, bool) {
    let mut inner = slot.lock();
    inner.envd = None;
    inner.idle.clear();
    inner.metrics.stopped();
    inner.stops.send_modify(|stops| *stops += 1);
    (inner.process.take(), inner.network.take(), inner.frozen.take().is_some())
}

/// Stops every process of the sandbox (SIGTERM to its init, SIGKILL after a grace
/// period) and waits until they are gone. Files are kept.
pub async fn stop(slot: &Slot) {
    let (process, network, frozen) = take_running(slot);
    // Unpinned (and pasta stopped) once the sandbox is gone, whatever happens below.
    let _network = network;
    if let Some(mut process) = process {
        let id = slot.id.clone();
        let result = tokio::task::spawn_blocking(move || {
            // A frozen process cannot act on SIGTERM (nor die of SIGKILL on cgroup v1).
            if frozen && let Some(Err(e)) = process.cgroup().map(|cgroup| cgroup.thaw()) {
                tracing::warn!(error = %e, "thawing a sandbox paused with its memory");
            }
            process.terminate(STOP_GRACE)
        })
        .await;
        match result {
            Ok(Ok(status)) => tracing::debug!(sandbox = %id, %status, "sandbox stopped"),
            Ok(Err(e)) => tracing::warn!(sandbox = %id, error = %e, "stopping the sandbox"),
            Err(e) => tracing::warn!(sandbox = %id, error = %e, "stopping the sandbox panicked"),
        }
    }
}

/// Pauses and records `Paused`. With `keep_memory` (E2B's default) the processes are
/// frozen where they stand (cgroup freezer), or a gVisor sandbox's are saved to disk
/// ([`checkpoint`]): resumed, they go on as if nothing happened. Without it, or where
/// that fails, they are stopped and the files kept (resume is a reboot).
pub async fn pause(shared: &Shared, slot: &Slot, keep_memory: bool) -> anyhow::Result<()> {
    if keep_memory {
        // gVisor's memory goes to disk, where it outlives the daemon and the host; a
        // native sandbox's processes are frozen in place.
        let (kept, how) = match crate::server::runtime::of(slot.record().runtime).memory_kept() {
            MemoryKept::OnDisk => (checkpoint(shared, slot, true).await, "memory on disk"),
            MemoryKept::Frozen => (freeze(slot).await, "processes frozen, memory kept"),
        };
        match kept {
            Ok(()) => {
                let record = {
                    let mut inner = slot.lock();
                    inner.record.phase = Phase::Paused;
                    inner.record.clone()
                };
                shared.store.save(&record).context("saving the sandbox record")?;
                tracing::info!(sandbox = %slot.id, how, "sandbox paused");
                return Ok(());
            }
            Err(e) => tracing::warn!(
                sandbox = %slot.id,
                error = format!("{e:#}"),
                "cannot keep the sandbox's memory: stopping its processes instead"
            ),
        }
    }
    stop(slot).await;
    let record = {
        let mut inner = slot.lock();
        inner.record.phase = Phase::Paused;
        inner.record.clone()
    };
    shared.store.save(&record).context("saving the sandbox record")?;
    tracing::info!(sandbox = %slot.id, "sandbox paused");
    Ok(())
}

/// The cgroup of the sandbox's running (or frozen) processes.
fn cgroup_of(slot: &Slot) -> anyhow::Result<crate::cgroup::SandboxCgroup> {
    let inner = slot.lock();
    let process = inner.process.as_ref().context("the sandbox has no process")?;
    process.cgroup().cloned().context("the sandbox has no cgroup")
}

/// Freezes the sandbox's processes (its envd's port is kept for [`thaw`]).
async fn freeze(slot: &Slot) -> anyhow::Result<()> {
    let cgroup = cgroup_of(slot)?;
    tokio::task::spawn_blocking(move || cgroup.freeze())
        .await
        .context("the freeze task panicked")??;
    let mut inner = slot.lock();
    inner.frozen = inner.envd.take();
    inner.idle.clear();
    inner.metrics.stopped();
    Ok(())
}

/// Lets a sandbox paused with its memory run again; it answers at once (its envd never
/// stopped). The caller marks it running.
async fn thaw(slot: &Slot) -> anyhow::Result<()> {
    let cgroup = cgroup_of(slot)?;
    tokio::task::spawn_blocking(move || cgroup.thaw())
        .await
        .context("the thaw task panicked")??;
    let mut inner = slot.lock();
    inner.envd = inner.frozen.take();
    inner.record.phase = Phase::Running;
    tracing::info!(sandbox = %slot.id, "sandbox resumed (thawed)");
    Ok(())
}

/// Kills: stops the processes and removes the sandbox's record, then its directory.
pub async fn kill(shared: &Arc<Shared>, slot: &Slot) -> anyhow::Result<()> {
    stop(slot).await;
    let record = slot.record();
    if let Err(e) = remove_state(shared, &record.sandbox_id).await {
        // The record goes back (a pooled sandbox never had one): a created sandbox is
        // stopped with its files (some may be gone), so paused, and the kill may be
        // retried; a half-made one stays `creating`, which the next start removes.
        let (pooled, record) = {
            let mut inner = slot.lock();
            if inner.record.phase != Phase::Creating {
                inner.record.phase = Phase::Paused;
            }
            (inner.pooled, inner.record.clone())
        };
        if !pooled && let Err(e) = shared.store.save(&record) {
            tracing::error!(sandbox = %slot.id, error = %e, "restoring the record of a failed kill");
        }
        return Err(e);
    }
    {
        let mut inner = slot.lock();
        inner.gone = true;
    }
    shared.remove_slot(&slot.id);
    tracing::info!(sandbox = %slot.id, "sandbox killed");
    Ok(())
}

/// Kills a sandbox as `DELETE /sandboxes/{id}` does, returning as soon as none of its
/// processes can run any more of its code and nothing brings it back: each has SIGKILL
/// pending (its init, and every process of its cgroup), and its record is removed. The
/// rest of the teardown (reaping, its network, cgroup and files) goes on in the
/// background, awaited by the daemon (see [`crate::server::Teardowns`]); its slot stays in the
/// registry, gone, until that ends, so its uid block is not handed out meanwhile. A
/// teardown that fails leaves a directory without a record, which the next start removes.
pub async fn kill_then_tear_down(shared: &Arc<Shared>, slot: &Arc<Slot>) -> anyhow::Result<()> {
    let (process, network, frozen) = take_running(slot);
    let store = shared.store.clone();
    let id = slot.id.clone();
    let dir = shared.store.sandbox_dir(&id);
    let killed = tokio::task::spawn_blocking(move || {
        let signalled = (|| -> anyhow::Result<()> {
            if let Some(process) = &process {
                // A frozen process cannot die of SIGKILL on cgroup v1.
                if frozen && let Some(Err(e)) = process.cgroup().map(|cgroup| cgroup.thaw()) {
                    tracing::warn!(error = %e, "thawing a sandbox paused with its memory");
                }
                process.kill().context("killing the sandbox")?;
                if let Some(cgroup) = process.cgroup() {
                    cgroup.signal_kill().context("killing the sandbox's processes")?;
                }
            }
            // What would stop the removal (a mount left visible on the host) is found
            // before the record goes, so that such a sandbox stays, paused, with its files.
            crate::destroy::no_mount_visible_under(&dir)
                .with_context(|| format!("removing {}", dir.display()))?;
            store.remove(&id).context("removing the sandbox record")
        })();
        // pasta gets SIGKILL before the answer too: a teardown left unfinished (a daemon
        // dropped right after) must not leave it running.
        if let Some(network) = &network {
            network.kill_pasta();
        }
        (process, network, signalled)
    })
    .await
    .context("the kill task panicked");
    let (process, network, signalled) = match killed {
        Ok(killed) => killed,
        Err(e) => (None, None, Err(e)),
    };
    if let Err(e) = signalled {
        // As `kill`: the record stays, the sandbox stopped (paused) with its files.
        if let Some(mut process) = process {
            let reaped = tokio::task::spawn_blocking(move || process.wait()).await;
            if let Ok(Err(e)) = reaped {
                tracing::warn!(sandbox = %slot.id, error = %e, "reaping a sandbox whose kill failed");
            }
        }
        drop(network);
        let record = {
            let mut inner = slot.lock();
            if inner.record.phase != Phase::Creating {
                inner.record.phase = Phase::Paused;
            }
            inner.record.clone()
        };
        if let Err(e) = shared.store.save(&record) {
            tracing::error!(sandbox = %slot.id, error = %e, "restoring the record of a failed kill");
        }
        return Err(e);
    }
    slot.lock().gone = true;
    let (owner, slot) = (shared.clone(), slot.clone());
    shared.teardowns.spawn(async move {
        let id = slot.id.clone();
        let dir = owner.store.sandbox_dir(&id);
        let removed = tokio::task::spawn_blocking(move || {
            if let Some(mut process) = process
                && let Err(e) = process.wait()
            {
                tracing::warn!(sandbox = %id, error = %e, "reaping a killed sandbox");
            }
            drop(network);
            destroy_dir(&id, dir)
        })
        .await;
        match removed {
            Ok(Ok(())) => tracing::info!(sandbox = %slot.id, "sandbox killed"),
            Ok(Err(e)) => tracing::error!(sandbox = %slot.id, error = format!("{e:#}"), "removing a killed sandbox's files; the next start removes them"),
            Err(e) => tracing::error!(sandbox = %slot.id, error = %e, "the teardown task panicked"),
        }
        owner.remove_slot(&slot.id);
    });
    Ok(())
}

/// Removes a stopped sandbox's record, then its directory (refusing while its init lives
/// or a mount is left). In that order, a daemon that dies in between leaves a directory
/// without a record, which its next start removes; the other way round, the next start
/// would bring back (paused) a sandbox whose files were half removed.
async fn remove_state(shared: &Shared, id: &str) -> anyhow::Result<()> {
    let dir = shared.store.sandbox_dir(id);
    let store = shared.store.clone();
    let id = id.to_owned();
    tokio::task::spawn_blocking(move || -> anyhow::Result<()> {
        store.remove(&id).context("removing the sandbox record")?;
        destroy_dir(&id, dir)
    })
    .await
    .context("the destroy task panicked")?
}

/// Kills an init left running by an earlier daemon (we are not its parent, so poll
/// until it is gone), then removes the directory. Retries briefly: the kernel releases
/// the sandbox's mount namespace just after its last process exits.
pub fn destroy_dir(id: &str, dir: PathBuf) -> anyhow::Result<()> {
    kill_stray_init(&dir)?;
    let spec = SandboxSpec::new(id, &dir, crate::template::Template::base());
    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        match crate::destroy::destroy(&spec) {
            Ok(()) => return Ok(()),
            Err(e) if Instant::now() < deadline => {
                tracing::debug!(sandbox = %id, error = %e, "retrying destroy");
                std::thread::sleep(Duration::from_millis(20));
            }
            Err(e) => return Err(e).with_context(|| format!("removing {}", dir.display())),
        }
    }
}

/// SIGKILLs the init recorded in `<dir>/init.pid` if that very process still runs and
/// waits until it is dead.
pub fn kill_stray_init(dir: &std::path::Path) -> anyhow::Result<()> {
    let state = StateDir::new(dir);
    let Some(pid) = state.live_init()? else { return Ok(()) };
    tracing::info!(pid, dir = %dir.display(), "killing a sandbox init left by an earlier daemon");
    let pid_t = libc::pid_t::try_from(pid)?;
    // SAFETY: plain kill(2); the pid was checked against its start time just above.
    unsafe { libc::kill(pid_t, libc::SIGKILL) };
    let deadline = Instant::now() + Duration::from_secs(10);
    while state.live_init()?.is_some() {
        if Instant::now() > deadline {
            bail!("sandbox init {pid} did not die after SIGKILL");
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    state.remove_pid();
    Ok(())
}

/// What a restarted daemon does with the sandboxes it finds: half-created ones and
/// directories without a record are removed; the others come back paused (any init a
/// crashed daemon left behind is killed first), files intact.
pub fn recover(shared: &Shared) -> anyhow::Result<Vec<crate::server::record::Record>> {
    let (records, orphans) = shared.store.scan().context("reading the sandbox records")?;
    // An earlier daemon that died left its sandboxes' cgroups (empty once their inits are
    // killed below) and pinned networks with their pasta behind.
    let remove_leftovers = |id: &str| {
        if let Some(Err(e)) = shared.cgroups.as_ref().map(|cgroups| cgroups.open(id).remove()) {
            tracing::warn!(sandbox = %id, error = %e, "removing a leftover sandbox cgroup");
        }
        crate::server::network::clean_up(&shared.config.state_dir.join(NETNS_DIR), id);
    };
    // A sandbox an earlier daemon paused with its memory is frozen: thawed, its init can
    // die of the SIGKILL below (its processes cannot outlive their daemon).
    let thaw = |id: &str| {
        if let Some(cgroups) = &shared.cgroups {
            let _ = cgroups.open(id).thaw();
        }
    };
    for name in orphans {
        thaw(&name);
        tracing::warn!(sandbox = %name, "removing a sandbox directory without a record");
        destroy_dir(&name, shared.store.sandbox_dir(&name))?;
        remove_leftovers(&name);
    }
    let mut kept = Vec::new();
    for mut record in records {
        let id = record.sandbox_id.clone();
        thaw(&id);
        if record.phase == Phase::Creating {
            tracing::warn!(sandbox = %id, "removing a sandbox whose create did not complete");
            destroy_dir(&id, shared.store.sandbox_dir(&id))?;
            remove_leftovers(&id);
            shared.store.remove(&id)?;
            continue;
        }
        kill_stray_init(&shared.store.sandbox_dir(&id))?;
        remove_leftovers(&id);
        if record.phase != Phase::Paused {
            record.phase = Phase::Paused;
            shared.store.save(&record)?;
        }
        tracing::info!(sandbox = %id, "recovered sandbox (paused)");
        kept.push(record);
    }
    Ok(kept)
}

/// The timeout reaper: every `tick`, sandboxes past their deadline are killed (or
/// paused with autoPause), and sandboxes whose init died on its own are marked paused.
pub async fn reaper(shared: Arc<Shared>, tick: Duration) {
    let mut interval = tokio::time::interval(tick);
    interval.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        interval.tick().await;
        crate::server::pool::trim(&shared);
        let now = now_ms();
        for slot in shared.slots() {
            let (expired, died) = {
                let mut inner = slot.lock();
                let running = inner.record.phase == Phase::Running && !inner.gone;
                let died = running
                    && matches!(inner.process.as_mut().map(Running::try_wait), Some(Ok(Some(_))));
                (running && inner.record.end_at_ms <= now, died)
            };
            if !(expired || died) {
                continue;
            }
            let shared = shared.clone();
            tokio::spawn(async move {
                let _ops = slot.ops.lock().await;
                let (phase, end_at, auto_pause, keep_memory, gone) = {
                    let inner = slot.lock();
                    (
                        inner.record.phase,
                        inner.record.end_at_ms,
                        inner.record.auto_pause,
                        inner.record.auto_pause_memory,
                        inner.gone,
                    )
                };
                if gone || phase != Phase::Running {
                    return;
                }
                let result = if died {
                    tracing::warn!(sandbox = %slot.id, "sandbox exited on its own; marking it paused");
                    pause(&shared, &slot, false).await
                } else if end_at > now_ms() {
                    Ok(()) // extended meanwhile
                } else if auto_pause {
                    tracing::info!(sandbox = %slot.id, "sandbox timed out: pausing (autoPause)");
                    pause(&shared, &slot, keep_memory).await
                } else {
                    tracing::info!(sandbox = %slot.id, "sandbox timed out: killing");
                    kill(&shared, &slot).await
                };
                if let Err(e) = result {
                    tracing::error!(sandbox = %slot.id, error = format!("{e:#}"), "timeout handling failed");
                }
            });
        }
    }
}
