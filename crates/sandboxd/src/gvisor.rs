//! gVisor's `runsc`, driven through its OCI interface: an OCI bundle written from a
//! [`GvisorSpec`], `runsc create`/`start`/`exec`/`kill`/`delete`, and `checkpoint`/
//! `restore` (a sandbox's memory written to disk and brought back, in the same sandbox or
//! in forks of it).
//!
//! What it relies on was measured on this project's CI host and is written down in
//! docs/gvisor.md:
//! - runsc 2024-07-29 or newer ([`crate::requirements::RUNSC_OLDEST`]; Debian 12's own
//!   2022 package cannot checkpoint a sandbox with a network): `--platform=systrap`.
//! - gVisor's own network stack (`--network=sandbox`), in a namespace of its own joined
//!   to the sandbox's (`gvisor_net.rs`): the host kernel's sockets (`--network=host`)
//!   cannot be checkpointed. `--net-disconnect-ok`: a checkpoint drops open TCP
//!   connections (as a resumed cloud sandbox's are) instead of failing on them.
//! - runsc decides that it runs in the host's network namespace by a `/proc/sys/net` file
//!   that exists in every namespace on recent kernels, and then refuses to start: `start`
//!   and `restore` run with `/proc/sys/net` hidden ([`hide_proc_sys_net`]).
//! - `--overlay2=none`: the root's writes go to the sandbox's directory on the host (kept,
//!   counted against its disk quota, copied by forks), not to a file-backed overlay.
//! - `runsc create` leaves its output descriptors open in the sandbox's processes for the
//!   container's life: it gets `/dev/null` for input and the log, opened `O_APPEND` (two
//!   writers share it), for output, and nothing is read from it to its end.
//! - container ids are one namespace per host (an abstract socket each): [`container_id`].

use std::fs::{File, OpenOptions};
use std::io;
use std::os::unix::process::CommandExt as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use serde_json::{Value, json};

use crate::gvisor_net::GuestLink;
use crate::spec::IdRange;

/// What a container needs: everything the bundle's `config.json` says.
#[derive(Debug, Clone)]
pub struct GvisorSpec {
    /// The sandbox's id; the container's is [`container_id`] of it.
    pub id: String,
    /// Where the bundle (`config.json`) is written; `rootfs` must not be inside it.
    pub bundle: PathBuf,
    /// The container's root: a writable directory.
    pub rootfs: PathBuf,
    /// Host directories shown writable at `inside`, the sandbox's changes kept in a layer
    /// of its own: overlays made on the host (see [`Overlay`]), mounted first.
    pub overlays: Vec<Overlay>,
    /// Host paths shown read-only at the same path inside (directories or files).
    pub read_only: Vec<PathBuf>,
    /// Host files or directories shown read-only elsewhere: `(host, inside)`, mounted
    /// after `read_only` (so a file may cover one in a shown directory).
    pub binds: Vec<(PathBuf, PathBuf)>,
    /// Volumes: host directories shown writable inside, through an idmapped view of
    /// their block where they have one (see [`crate::spec::VolumeMount`]).
    pub volumes: Vec<crate::spec::VolumeMount>,
    /// The sandbox's network namespace (a pinned file, see `gvisor_net.rs`): gVisor gets
    /// a namespace of its own linked to it. None: gVisor's loopback only.
    pub netns: Option<PathBuf>,
    /// The uid/gid block the root's files are stored in on the host (None: host ids).
    /// The root is shown to runsc through an idmapped mount: what root inside makes
    /// (runsc's gofer, host root, writes it) is stored as the block's root. (runsc's own
    /// user namespace failed with `--network=host` in its 2022 release: EPERM at its
    /// chroot.)
    pub ids: Option<IdRange>,
    /// The sandbox's cgroup, made with its limits: runsc starts in it and configures
    /// none itself (`--ignore-cgroups`), so every process of the container, and the
    /// memory of gVisor's kernel, are in it (a native sandbox's limits and metrics).
    pub cgroup: Option<crate::cgroup::SandboxCgroup>,
    /// The first process: program, arguments, environment (`NAME=value`), directory.
    pub args: Vec<String>,
    pub env: Vec<String>,
    pub cwd: String,
    /// Where its output goes (appended).
    pub log: PathBuf,
}

/// A host directory (`lower`, never written) shown writable at `inside`: an overlay the
/// daemon mounts on the host, whose upper layer is `layers/upper` (work: `layers/work`),
/// stored in the sandbox's block ([`GvisorSpec::ids`]) and seen through an idmapped view
/// of `layers`: a native sandbox's layer of the same directory, in the same format, so
/// that a sandbox's files (a template build's, a fork's, a snapshot's) are the same
/// whichever runtime runs them. runsc's gofer serves the overlay as any directory.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Overlay {
    pub lower: PathBuf,
    pub layers: PathBuf,
    pub inside: PathBuf,
}

/// The runsc container id of sandbox `id`: ids are global to the host.
pub fn container_id(id: &str) -> String {
    format!("dsh-{id}")
}

/// The root runsc is given: `rootfs` itself, or its idmapped view in the bundle.
fn root_path(spec: &GvisorSpec) -> PathBuf {
    match spec.ids {
        Some(_) => spec.bundle.join("rootfs"),
        None => spec.rootfs.clone(),
    }
}

/// Where the guest namespace of `spec`'s sandbox is pinned: beside the sandbox's own.
fn guest_pin(spec: &GvisorSpec) -> Option<PathBuf> {
    let netns = spec.netns.as_ref()?;
    Some(GuestLink::pin_for(netns.parent()?, &spec.id))
}

/// Where runsc finds volume `n` of `spec`: its idmapped view in the bundle, or the
/// volume itself when it has no block.
fn volume_source(spec: &GvisorSpec, n: usize) -> PathBuf {
    match spec.volumes.get(n) {
        Some(volume) if volume.ids.is_some() => spec.bundle.join(format!("{VOLUME_VIEW}{n}")),
        Some(volume) => volume.source.clone(),
        None => PathBuf::new(),
    }
}

/// The prefix of volumes' views in a bundle.
const VOLUME_VIEW: &str = "volume-";
/// The prefix of overlays in a bundle: `overlay-N` is overlay `N`, `overlay-N-layers` the
/// idmapped view of its layers.
const OVERLAY_MOUNT: &str = "overlay-";

/// Where runsc finds overlay `n` of `spec`, and where its layers are seen from.
fn overlay_paths(spec: &GvisorSpec, n: usize) -> (PathBuf, PathBuf) {
    let mount = spec.bundle.join(format!("{OVERLAY_MOUNT}{n}"));
    let layers = match (spec.ids, spec.overlays.get(n)) {
        (None, Some(overlay)) => overlay.layers.clone(),
        _ => spec.bundle.join(format!("{OVERLAY_MOUNT}{n}-layers")),
    };
    (mount, layers)
}

/// The bundle's `config.json` for `spec` (OCI runtime spec 1.0).
pub fn config(spec: &GvisorSpec) -> Value {
    // No `/dev` mount: gVisor's own (its devices, `/dev/pts`) is what a terminal needs.
    let mut mounts = vec![
        json!({"destination": "/proc", "type": "proc", "source": "proc"}),
        json!({"destination": "/tmp", "type": "tmpfs", "source": "tmpfs"}),
        json!({"destination": "/sys", "type": "sysfs", "source": "sysfs",
               "options": ["nosuid", "noexec", "nodev", "ro"]}),
    ];
    for (n, overlay) in spec.overlays.iter().enumerate() {
        mounts.push(json!({
            "destination": overlay.inside, "type": "bind", "source": overlay_paths(spec, n).0,
            "options": ["rbind", "rw", "nosuid", "nodev"],
        }));
    }
    for path in &spec.read_only {
        mounts.push(json!({
            "destination": path, "type": "bind", "source": path,
            "options": ["rbind", "ro", "nosuid", "nodev"],
        }));
    }
    for (source, destination) in &spec.binds {
        mounts.push(json!({
            "destination": destination, "type": "bind", "source": source,
            "options": ["rbind", "ro", "nosuid", "nodev"],
        }));
    }
    for (n, volume) in spec.volumes.iter().enumerate() {
        mounts.push(json!({
            "destination": volume.inside, "type": "bind", "source": volume_source(spec, n),
            "options": ["rbind", "rw", "nosuid", "nodev"],
        }));
    }
    let mut namespaces = vec![
        json!({"type": "pid"}),
        json!({"type": "ipc"}),
        json!({"type": "uts"}),
        json!({"type": "mount"}),
    ];
    match guest_pin(spec) {
        Some(path) => namespaces.push(json!({"type": "network", "path": path})),
        None => namespaces.push(json!({"type": "network"})),
    }
    let linux = json!({"namespaces": namespaces});
    // Docker's default capability set: what root inside a native sandbox has.
    let caps = json!([
        "CAP_CHOWN",
        "CAP_DAC_OVERRIDE",
        "CAP_FSETID",
        "CAP_FOWNER",
        "CAP_MKNOD",
        "CAP_NET_RAW",
        "CAP_SETGID",
        "CAP_SETUID",
        "CAP_SETFCAP",
        "CAP_SETPCAP",
        "CAP_NET_BIND_SERVICE",
        "CAP_SYS_CHROOT",
        "CAP_KILL",
        "CAP_AUDIT_WRITE",
    ]);
    json!({
        "ociVersion": "1.0.0",
        "process": {
            "terminal": false,
            "user": {"uid": 0, "gid": 0},
            "args": spec.args,
            "env": spec.env,
            "cwd": spec.cwd,
            "capabilities": {"bounding": caps, "effective": caps, "permitted": caps},
            "noNewPrivileges": true,
        },
        "root": {"path": root_path(spec), "readonly": false},
        "hostname": spec.id,
        "mounts": mounts,
        "linux": linux,
    })
}

/// A container runsc started: its network (gVisor's namespace linked to the sandbox's)
/// and the runsc process that started it and waits for it in the foreground.
#[derive(Debug)]
pub struct Started {
    pub link: Option<GuestLink>,
    runner: std::process::Child,
}

impl Started {
    /// Waits (at most [`EXIT_WAIT`]) for the runsc process, which ends, removing what it
    /// keeps of the container, once the container's processes are gone.
    fn wait(&mut self) {
        let deadline = std::time::Instant::now() + EXIT_WAIT;
        while std::time::Instant::now() < deadline {
            if !matches!(self.runner.try_wait(), Ok(None)) {
                return;
            }
            std::thread::sleep(Duration::from_millis(5));
        }
        let _ = self.runner.kill();
        let _ = self.runner.wait();
    }
}

/// Failures of runsc, with what it said.
#[derive(Debug, thiserror::Error)]
pub enum GvisorError {
    #[error("runsc not found at {0} ({INSTALL})")]
    NotFound(PathBuf),
    #[error("{binary} is runsc {release}; the gvisor runtime needs {oldest} or newer ({INSTALL})", oldest = crate::requirements::RUNSC_OLDEST)]
    TooOld { binary: PathBuf, release: String },
    #[error("{what}: {source}")]
    Io {
        what: String,
        #[source]
        source: io::Error,
    },
    #[error("runsc {command} failed ({status}): {output}")]
    Failed { command: String, status: String, output: String },
    #[error("runsc {command} did not finish within {timeout:?}")]
    TimedOut { command: String, timeout: Duration },
}

fn io_error(what: impl Into<String>) -> impl FnOnce(io::Error) -> GvisorError {
    let what = what.into();
    move |source| GvisorError::Io { what, source }
}

/// Runs `command` (runsc's `name` subcommand) to its end, within [`COMMAND_TIMEOUT`].
fn finish(mut command: Command, name: &str) -> Result<std::process::Output, GvisorError> {
    let child = command.spawn().map_err(io_error(format!("starting runsc {name}")))?;
    crate::command::wait_with_timeout(child, COMMAND_TIMEOUT)
        .map_err(|_| GvisorError::TimedOut { command: name.to_owned(), timeout: COMMAND_TIMEOUT })
}

/// How to get a runsc new enough, for messages.
pub const INSTALL: &str = "Debian 12: apt-get install -t bookworm-backports runsc, after adding bookworm-backports to apt's sources (scripts/setup --all does both); Debian 13 and Ubuntu 24.10: apt-get install runsc; elsewhere gVisor's release from https://gvisor.dev/docs/user_guide/install/";

/// One runsc binary and its state directory (`--root`).
#[derive(Debug, Clone)]
pub struct Runsc {
    binary: PathBuf,
    root: PathBuf,
}

/// How long one runsc command may take (a `delete` of a running container polls for
/// ~1.8 s on the CI host).
const COMMAND_TIMEOUT: Duration = Duration::from_secs(30);

impl Runsc {
    /// `runsc` on PATH (or `binary`), keeping its state under `root`.
    pub fn new(binary: Option<PathBuf>, root: PathBuf) -> Result<Runsc, GvisorError> {
        let binary = match binary {
            Some(binary) => binary,
            None => std::env::var_os("PATH")
                .iter()
                .flat_map(std::env::split_paths)
                .map(|dir| dir.join("runsc"))
                .find(|candidate| candidate.is_file())
                .ok_or_else(|| GvisorError::NotFound(PathBuf::from("runsc")))?,
        };
        if !binary.is_file() {
            return Err(GvisorError::NotFound(binary));
        }
        // An older runsc cannot checkpoint a sandbox with a network (nor knows the flags
        // used here): refused here rather than at a sandbox's first start.
        let version = Command::new(&binary)
            .arg("--version")
            .stdin(Stdio::null())
            .stderr(Stdio::null())
            .output()
            .map_err(io_error(format!("running {} --version", binary.display())))?;
        let said = String::from_utf8_lossy(&version.stdout);
        match crate::requirements::runsc_release(&said) {
            Some(release) if release >= crate::requirements::RUNSC_OLDEST => {
                Ok(Runsc { binary, root })
            }
            Some(release) => Err(GvisorError::TooOld { binary, release: release.to_string() }),
            None => Err(GvisorError::TooOld {
                binary,
                release: format!("of an unknown release ({:?})", said.trim()),
            }),
        }
    }

    fn command(&self) -> Command {
        self.command_with(&[])
    }

    /// [`Runsc::command`] with more global flags.
    fn command_with(&self, flags: &[&str]) -> Command {
        let mut command = Command::new(&self.binary);
        command.args(flags);
        command.arg("--root").arg(&self.root).args([
            "--platform=systrap",
            "--network=sandbox",
            "--net-disconnect-ok",
            "--overlay2=none",
        ]);
        // DSH_RUNSC_DEBUG=dir: runsc's own debug logs, one per process, in `dir`.
        if let Some(dir) = std::env::var_os("DSH_RUNSC_DEBUG") {
            let mut log = dir;
            log.push("/");
            command.arg("--debug").arg("--debug-log").arg(log);
        }
        command
    }

    /// Runs `runsc <args>` to its end; its output when it succeeded.
    fn run(&self, args: &[&str]) -> Result<String, GvisorError> {
        let mut command = self.command();
        command.args(args).stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::piped());
        let name = args.first().copied().unwrap_or_default().to_owned();
        let output = finish(command, &name)?;
        let text = |bytes: &[u8]| String::from_utf8_lossy(bytes).trim().to_owned();
        if !output.status.success() {
            return Err(GvisorError::Failed {
                command: name,
                status: output.status.to_string(),
                output: format!("{} {}", text(&output.stdout), text(&output.stderr))
                    .trim()
                    .to_owned(),
            });
        }
        Ok(text(&output.stdout))
    }

    /// Writes the bundle and the root's view, and links the guest namespace (returned:
    /// the container's network lives as long as it is held).
    fn prepare(&self, spec: &GvisorSpec) -> Result<Option<GuestLink>, GvisorError> {
        std::fs::create_dir_all(&self.root)
            .map_err(io_error("creating runsc's state directory"))?;
        std::fs::create_dir_all(&spec.bundle).map_err(io_error("creating the bundle"))?;
        let config = serde_json::to_vec_pretty(&config(spec)).map_err(|e| GvisorError::Io {
            what: "encoding config.json".into(),
            source: io::Error::other(e),
        })?;
        std::fs::write(spec.bundle.join("config.json"), config)
            .map_err(io_error("writing config.json"))?;
        if let Some(ids) = spec.ids {
            let view = root_path(spec);
            std::fs::create_dir_all(&view).map_err(io_error("creating the root's view"))?;
            crate::syscall::mount_idmapped_with(
                &spec.rootfs,
                &view,
                &[(ids.host_base, 0, IdRange::SIZE)],
            )
            .map_err(io_error(format!(
                "showing {} to runsc with its block's ids",
                spec.rootfs.display()
            )))?;
        }
        for (n, volume) in spec.volumes.iter().enumerate() {
            let Some(ids) = volume.ids else { continue };
            let view = volume_source(spec, n);
            std::fs::create_dir_all(&view).map_err(io_error("creating a volume's view"))?;
            crate::syscall::mount_idmapped_with(
                &volume.source,
                &view,
                &[(ids.host_base, 0, IdRange::SIZE)],
            )
            .map_err(io_error(format!(
                "showing volume {} to runsc with its block's ids",
                volume.source.display()
            )))?;
        }
        for n in 0..spec.overlays.len() {
            mount_overlay(spec, n)?;
        }
        match (&spec.netns, guest_pin(spec)) {
            (Some(router), Some(pin)) => {
                GuestLink::attach(router, &pin).map(Some).map_err(|e| GvisorError::Io {
                    what: "linking gVisor's network".into(),
                    source: io::Error::other(format!("{e:#}")),
                })
            }
            _ => Ok(None),
        }
    }

    /// The log, opened for appending, as a runsc command's output.
    fn log(spec: &GvisorSpec) -> Result<File, GvisorError> {
        OpenOptions::new()
            .create(true)
            .append(true)
            .open(&spec.log)
            .map_err(io_error(format!("opening {}", spec.log.display())))
    }

    /// Writes the bundle and starts the container (`runsc run`, in the foreground);
    /// returns once its first process runs (not once it is ready: envd's health says
    /// that).
    pub fn start(&self, spec: &GvisorSpec) -> Result<Started, GvisorError> {
        let link = self.prepare(spec)?;
        let mut run = self.command_with(cgroup_flags(spec));
        run.arg("run").arg("--bundle").arg(&spec.bundle).arg(container_id(&spec.id));
        self.run_in_foreground(run, "run", spec, link)
    }

    /// Writes the bundle and restores the container from the checkpoint in `image`
    /// (see [`Runsc::checkpoint`]; `runsc restore` in the foreground): its processes go
    /// on where they were saved.
    pub fn restore(&self, spec: &GvisorSpec, image: &Path) -> Result<Started, GvisorError> {
        let link = self.prepare(spec)?;
        let mut restore = self.command_with(cgroup_flags(spec));
        restore
            .arg("restore")
            .arg("--image-path")
            .arg(image)
            .arg("--bundle")
            .arg(&spec.bundle)
            .arg(container_id(&spec.id));
        self.run_in_foreground(restore, "restore", spec, link)
    }

    /// Starts `command` (`runsc run` or `restore` without `--detach`), whose process
    /// stays the parent of the container's sandbox process and reaps it the moment it
    /// ends. (Detached, the sandbox process is an orphan of the host's init, which here
    /// reaps ~1.6 s late; runsc's `delete` waits for that.) Returns once runsc says the
    /// container runs.
    fn run_in_foreground(
        &self,
        mut command: Command,
        name: &str,
        spec: &GvisorSpec,
        link: Option<GuestLink>,
    ) -> Result<Started, GvisorError> {
        hide_proc_sys_net(&mut command);
        if let Some(cgroup) = &spec.cgroup {
            start_in_cgroup(&mut command, cgroup)?;
        }
        command
            .stdin(File::open("/dev/null").map_err(io_error("opening /dev/null"))?)
            .stdout(Self::log(spec)?)
            .stderr(Self::log(spec)?);
        let mut runner = spawn_tied(command).map_err(io_error(format!("starting runsc {name}")))?;
        let deadline = std::time::Instant::now() + COMMAND_TIMEOUT;
        loop {
            if let Ok(Some(status)) = runner.try_wait() {
                return Err(GvisorError::Failed {
                    command: name.into(),
                    status: status.to_string(),
                    output: log_tail(&spec.log),
                });
            }
            if self.state(&spec.id).is_ok_and(|state| state == "running") {
                return Ok(Started { link, runner });
            }
            if std::time::Instant::now() >= deadline {
                let _ = runner.kill();
                let _ = runner.wait();
                return Err(GvisorError::TimedOut {
                    command: name.into(),
                    timeout: COMMAND_TIMEOUT,
                });
            }
            std::thread::sleep(Duration::from_millis(5));
        }
    }

    /// Saves the container's whole state (its processes' memory, open files, sockets
    /// listening; open connections are dropped) to `image` (an empty directory), which
    /// stops it. Its files stay where they are: a restore needs them as they were.
    pub fn checkpoint(&self, id: &str, image: &Path) -> Result<(), GvisorError> {
        let image = image.to_str().ok_or_else(|| GvisorError::Io {
            what: "the checkpoint's directory".into(),
            source: io::Error::new(io::ErrorKind::InvalidInput, "not UTF-8"),
        })?;
        self.run(&["checkpoint", "--image-path", image, &container_id(id)]).map(drop)
    }

    /// Runs `args` in the container to its end: (stdout, exit code).
    pub fn exec(&self, id: &str, args: &[&str]) -> Result<(String, i32), GvisorError> {
        let mut command = self.command();
        command
            .arg("exec")
            .arg(container_id(id))
            .args(args)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        let output = finish(command, "exec")?;
        Ok((
            String::from_utf8_lossy(&output.stdout).into_owned(),
            output.status.code().unwrap_or(-1),
        ))
    }

    /// `runsc state` of sandbox `id`'s container, parsed.
    fn state_json(&self, id: &str) -> Result<Value, GvisorError> {
        let out = self.run(&["state", &container_id(id)])?;
        serde_json::from_str(&out).map_err(|e| GvisorError::Failed {
            command: "state".into(),
            status: "0".into(),
            output: format!("{e}: {out}"),
        })
    }

    /// The container's state as runsc reports it (`running`, `stopped`, ...).
    pub fn state(&self, id: &str) -> Result<String, GvisorError> {
        Ok(self.state_json(id)?["status"].as_str().unwrap_or_default().to_owned())
    }

    /// The host pid of the container's sandbox process (its processes' parent).
    pub fn sandbox_pid(&self, id: &str) -> Result<u32, GvisorError> {
        let state = self.state_json(id)?;
        state["pid"].as_u64().and_then(|pid| u32::try_from(pid).ok()).ok_or_else(|| {
            GvisorError::Failed {
                command: "state".into(),
                status: "0".into(),
                output: format!("no pid in {state}"),
            }
        })
    }

    /// Kills every process of the container and removes it (what runsc keeps of it and
    /// the root's view included); a container that is not there is not an error.
    pub fn destroy(&self, spec: &GvisorSpec) -> Result<(), GvisorError> {
        let id = container_id(&spec.id);
        let _ = self.run(&["kill", &id, "KILL"]);
        let deleted = match self.run(&["delete", "-force", &id]) {
            Ok(_) => Ok(()),
            Err(GvisorError::Failed { output, .. })
                if output.contains("does not exist") || output.contains("not found") =>
            {
                Ok(())
            }
            Err(e) => Err(e),
        };
        let unmount = |view: &Path| {
            if let Ok(path) = std::ffi::CString::new(view.as_os_str().as_encoded_bytes()) {
                // SAFETY: umount2 of a valid path; one not mounted fails harmlessly.
                unsafe { libc::umount2(path.as_ptr(), libc::MNT_DETACH) };
            }
        };
        if spec.ids.is_some() {
            unmount(&root_path(spec));
        }
        // Every overlay and view the bundle holds (a leftover's spec names none): the
        // overlays before the views their layers are seen through.
        let mut mounts: Vec<PathBuf> = std::fs::read_dir(&spec.bundle)
            .into_iter()
            .flatten()
            .flatten()
            .filter(|entry| {
                let name = entry.file_name();
                let name = name.to_string_lossy();
                name.starts_with(VOLUME_VIEW) || name.starts_with(OVERLAY_MOUNT)
            })
            .map(|entry| entry.path())
            .collect();
        mounts.sort_by_key(|path| path.to_string_lossy().ends_with("-layers"));
        for path in mounts {
            unmount(&path);
            let _ = std::fs::remove_dir(&path);
        }
        // Never a recursive removal: a view still mounted holds the sandbox's files, and
        // rmdir refuses a mount point or a directory with anything in it.
        let _ = std::fs::remove_file(spec.bundle.join("config.json"));
        let _ = std::fs::remove_dir(root_path(spec));
        let _ = std::fs::remove_dir(&spec.bundle);
        deleted
    }
}

/// Mounts overlay `n` of `spec` in the bundle: its layers seen through an idmapped view
/// of the sandbox's block (what root inside writes is stored as the block's root, and the
/// host's files, root's, copy up as the block's), the layers named through this process's
/// descriptors (no path is parsed out of the option string).
fn mount_overlay(spec: &GvisorSpec, n: usize) -> Result<(), GvisorError> {
    use std::os::fd::AsRawFd as _;
    use std::os::unix::fs::OpenOptionsExt as _;

    use crate::syscall::{LinuxSyscall, MountFlags, Syscall as _};

    let Some(overlay) = spec.overlays.get(n) else { return Ok(()) };
    let (mount, layers) = overlay_paths(spec, n);
    if let Some(ids) = spec.ids {
        std::fs::create_dir_all(&layers).map_err(io_error("creating an overlay's view"))?;
        crate::syscall::mount_idmapped_with(
            &overlay.layers,
            &layers,
            &[(ids.host_base, 0, IdRange::SIZE)],
        )
        .map_err(io_error(format!(
            "showing {} to runsc with its block's ids",
            overlay.layers.display()
        )))?;
    }
    let open = |path: &Path| {
        OpenOptions::new()
            .read(true)
            .custom_flags(libc::O_PATH | libc::O_DIRECTORY | libc::O_NOFOLLOW)
            .open(path)
            .map_err(io_error(format!("opening {}", path.display())))
    };
    let lower = open(&overlay.lower)?;
    let upper = open(&layers.join("upper"))?;
    let work = open(&layers.join("work"))?;
    let options = format!(
        "lowerdir=/proc/self/fd/{},upperdir=/proc/self/fd/{},workdir=/proc/self/fd/{}",
        lower.as_raw_fd(),
        upper.as_raw_fd(),
        work.as_raw_fd()
    );
    std::fs::create_dir_all(&mount).map_err(io_error("creating an overlay's mount point"))?;
    LinuxSyscall::new()
        .mount(
            Some(Path::new("overlay")),
            &mount,
            Some("overlay"),
            MountFlags::NOSUID | MountFlags::NODEV,
            Some(&options),
        )
        .map_err(io_error(format!("mounting the overlay of {}", overlay.inside.display())))
}

/// Starts `command` so that it gets SIGTERM when the daemon dies (a SIGKILLed daemon's
/// runsc in the foreground then ends its container, as a native sandbox's init ends its
/// sandbox when its lifeline closes). The death signal follows the thread that forked,
/// so every such command is forked by one thread kept for the process's whole life.
fn spawn_tied(mut command: Command) -> io::Result<std::process::Child> {
    type Spawn = (Command, std::sync::mpsc::Sender<io::Result<std::process::Child>>);
    static SPAWNER: std::sync::OnceLock<std::sync::Mutex<std::sync::mpsc::Sender<Spawn>>> =
        std::sync::OnceLock::new();
    let daemon = std::process::id() as libc::pid_t;
    // SAFETY: prctl and getppid are async-signal-safe; only the forked child changes.
    unsafe {
        command.pre_exec(move || {
            if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGTERM) == -1 {
                return Err(io::Error::last_os_error());
            }
            // The daemon died between the fork and the prctl: nothing would signal us.
            if libc::getppid() != daemon {
                return Err(io::Error::other("the daemon is gone"));
            }
            Ok(())
        });
    }
    let spawner = SPAWNER.get_or_init(|| {
        let (requests, received) = std::sync::mpsc::channel::<Spawn>();
        let started =
            std::thread::Builder::new().name("dsh-runsc-spawner".into()).spawn(move || {
                for (mut command, reply) in received {
                    let _ = reply.send(command.spawn());
                }
            });
        if let Err(e) = started {
            tracing::warn!(error = %e, "no thread to start runsc from");
        }
        std::sync::Mutex::new(requests)
    });
    let (reply, answer) = std::sync::mpsc::channel();
    let sent = spawner
        .lock()
        .map_err(|_| io::Error::other("the runsc spawner's lock is poisoned"))?
        .send((command, reply));
    if sent.is_err() {
        return Err(io::Error::other("the runsc spawner is gone"));
    }
    answer.recv().map_err(|_| io::Error::other("the runsc spawner answered nothing"))?
}

/// runsc's flags for `spec`'s cgroup: none of its own when the daemon made one.
fn cgroup_flags(spec: &GvisorSpec) -> &'static [&'static str] {
    if spec.cgroup.is_some() { &["--ignore-cgroups"] } else { &[] }
}

/// Makes `command` start in `cgroup` (its `cgroup.procs` written with 0, "this process",
/// before it runs), so the processes runsc starts are there from their first page.
fn start_in_cgroup(
    command: &mut Command,
    cgroup: &crate::cgroup::SandboxCgroup,
) -> Result<(), GvisorError> {
    let procs: Vec<std::ffi::CString> = cgroup
        .paths()
        .iter()
        .map(|dir| std::ffi::CString::new(dir.join("cgroup.procs").as_os_str().as_encoded_bytes()))
        .collect::<Result<_, _>>()
        .map_err(|e| GvisorError::Io {
            what: "the sandbox's cgroup".into(),
            source: io::Error::new(io::ErrorKind::InvalidInput, e),
        })?;
    // SAFETY: open, write and close are async-signal-safe; the paths were made before
    // the fork; only the forked child moves.
    unsafe {
        command.pre_exec(move || {
            for path in &procs {
                let fd = libc::open(path.as_ptr(), libc::O_WRONLY | libc::O_CLOEXEC);
                if fd == -1 {
                    return Err(io::Error::last_os_error());
                }
                let written = libc::write(fd, c"0".as_ptr().cast(), 1);
                libc::close(fd);
                if written != 1 {
                    return Err(io::Error::last_os_error());
                }
            }
            Ok(())
        });
    }
    Ok(())
}

/// The last lines of a container's log (runsc's and its first process's output), joined.
fn log_tail(log: &Path) -> String {
    let said = std::fs::read_to_string(log).unwrap_or_default();
    let mut last: Vec<&str> = said.lines().rev().take(5).collect();
    last.reverse();
    last.join(" | ")
}

/// Makes `command` run with `/proc/sys/net` hidden (an empty tmpfs over it, in a mount
/// namespace of its own): runsc takes a namespace with `/proc/sys/net/core/rmem_default`
/// for the host's and refuses to set gVisor's network up there, and on recent kernels
/// every namespace has that file. Only the command's own view changes.
fn hide_proc_sys_net(command: &mut Command) {
    // SAFETY: unshare and mount are async-signal-safe; the paths are static C strings;
    // they change only the forked child's mount namespace.
    unsafe {
        command.pre_exec(|| {
            if libc::unshare(libc::CLONE_NEWNS) == -1 {
                return Err(io::Error::last_os_error());
            }
            let none = std::ptr::null();
            if libc::mount(none, c"/".as_ptr(), none, libc::MS_REC | libc::MS_PRIVATE, none.cast())
                == -1
            {
                return Err(io::Error::last_os_error());
            }
            let flags = libc::MS_NOSUID | libc::MS_NODEV | libc::MS_NOEXEC;
            if libc::mount(
                c"tmpfs".as_ptr(),
                c"/proc/sys/net".as_ptr(),
                c"tmpfs".as_ptr(),
                flags,
                none.cast(),
            ) == -1
            {
                return Err(io::Error::last_os_error());
            }
            Ok(())
        });
    }
}

/// Which runtime runs a sandbox: this crate's own launcher (namespaces, seccomp,
/// cgroups) or gVisor's `runsc` (a user-space kernel between the sandbox and the host).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Runtime {
    #[default]
    Native,
    Gvisor,
}

impl std::str::FromStr for Runtime {
    type Err = String;

    fn from_str(text: &str) -> Result<Runtime, String> {
        match text {
            "native" => Ok(Runtime::Native),
            "gvisor" => Ok(Runtime::Gvisor),
            other => Err(format!("runtime: \"native\" or \"gvisor\", not {other:?}")),
        }
    }
}

impl std::fmt::Display for Runtime {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Runtime::Native => "native",
            Runtime::Gvisor => "gvisor",
        })
    }
}

/// A started runsc container, seen through its sandbox process (every process of the
/// container runs under it: when it is gone, the container is).
#[derive(Debug)]
pub struct Container {
    runsc: Runsc,
    spec: Box<GvisorSpec>,
    pid: u32,
    /// Its start time (`/proc/<pid>/stat`), so a reused pid is not taken for it.
    started: u64,
    /// Set once it is gone and deleted.
    status: Option<std::process::ExitStatus>,
    /// Its runsc process and network (unpinned once it is gone).
    runner: Option<Started>,
}

/// How long a checkpoint may take to be written (~0.5 s per 100 MB of memory here).
const CHECKPOINT_WAIT: Duration = Duration::from_secs(120);

/// How long a container gets to go after SIGKILL before `wait` gives up.
const EXIT_WAIT: Duration = Duration::from_secs(10);

impl Container {
    /// Writes the bundle, creates and starts the container (blocking, ~150 ms).
    pub fn start(runsc: &Runsc, spec: GvisorSpec) -> Result<Container, GvisorError> {
        let started = runsc.start(&spec);
        Container::seen(runsc, spec, started)
    }

    /// Writes the bundle and restores the container from the checkpoint in `image`
    /// (blocking, ~200 ms).
    pub fn restore(
        runsc: &Runsc,
        spec: GvisorSpec,
        image: &Path,
    ) -> Result<Container, GvisorError> {
        let restored = runsc.restore(&spec, image);
        Container::seen(runsc, spec, restored)
    }

    /// The container `spec` names, once `started` (or restored) says it runs; what
    /// runsc keeps of it is removed when it does not.
    fn seen(
        runsc: &Runsc,
        spec: GvisorSpec,
        started: Result<Started, GvisorError>,
    ) -> Result<Container, GvisorError> {
        let seen = started.and_then(|started| {
            let pid = runsc.sandbox_pid(&spec.id)?;
            let time =
                crate::state::running_start_time(pid).ok_or_else(|| GvisorError::Failed {
                    command: "state".into(),
                    status: "0".into(),
                    output: format!(
                        "the sandbox process {pid} is gone; its log ends: {}",
                        log_tail(&spec.log)
                    ),
                })?;
            Ok((pid, time, started))
        });
        match seen {
            Ok((pid, time, started)) => Ok(Container {
                runsc: runsc.clone(),
                spec: Box::new(spec),
                pid,
                started: time,
                status: None,
                runner: Some(started),
            }),
            Err(e) => {
                let _ = runsc.destroy(&spec);
                Err(e)
            }
        }
    }

    /// Saves the container's state to `image` (see [`Runsc::checkpoint`]) and removes
    /// the stopped container; its files stay. Blocking.
    pub fn checkpoint(mut self, image: &Path) -> Result<(), GvisorError> {
        let saved = self.runsc.checkpoint(&self.spec.id, image);
        // `runsc checkpoint` answers once the save is under way; the sandbox process
        // writes the image and then exits. Killed before, it leaves an empty image.
        let written = match saved {
            Ok(()) => match self.wait_for(CHECKPOINT_WAIT) {
                Ok(Some(_)) => Ok(()),
                Ok(None) => Err(GvisorError::TimedOut {
                    command: "checkpoint".into(),
                    timeout: CHECKPOINT_WAIT,
                }),
                Err(e) => Err(e),
            },
            Err(e) => Err(e),
        };
        // Saved or not, the container ends here: a checkpoint that failed half-way may
        // leave it stopped, and the caller then has its files only.
        let _ = self.kill();
        let ended = self.wait();
        written.and(ended.map(drop))
    }

    /// The sandbox's cgroup (every process of the container is in it).
    pub fn cgroup(&self) -> Option<&crate::cgroup::SandboxCgroup> {
        self.spec.cgroup.as_ref()
    }

    /// The sandbox process's pid (it is in the container's network namespace).
    pub fn pid(&self) -> u32 {
        self.pid
    }

    fn running(&self) -> bool {
        crate::state::running_start_time(self.pid) == Some(self.started)
    }

    /// Sends `signal` (`KILL`, `TERM`) to every process of the container.
    pub fn signal(&self, signal: &str) -> Result<(), GvisorError> {
        if !self.running() {
            return Ok(());
        }
        self.runsc.run(&["kill", "--all", &container_id(&self.spec.id), signal]).map(drop)
    }

    /// SIGKILL to every process of the container, without waiting.
    pub fn kill(&self) -> Result<(), GvisorError> {
        if !self.running() {
            return Ok(());
        }
        // The sandbox process first: nothing of the container runs once it is gone.
        // SAFETY: plain kill(2) of a pid checked (by its start time) to be ours.
        unsafe { libc::kill(self.pid as libc::pid_t, libc::SIGKILL) };
        Ok(())
    }

    /// None while it runs; once gone, what runsc keeps of it is deleted.
    pub fn try_wait(&mut self) -> Result<Option<std::process::ExitStatus>, GvisorError> {
        if let Some(status) = self.status {
            return Ok(Some(status));
        }
        if self.running() {
            return Ok(None);
        }
        if let Some(mut runner) = self.runner.take() {
            // runsc's own process removes the container once it is gone; a delete in
            // the meantime would race it.
            runner.wait();
        }
        self.runsc.destroy(&self.spec)?;
        if let Some(cgroup) = &self.spec.cgroup {
            // Anything of it still there (a stub process of gVisor's) goes with it.
            let _ = cgroup.signal_kill();
            if let Err(e) = cgroup.remove() {
                tracing::warn!(error = %e, "removing a gvisor sandbox's cgroup");
            }
        }
        use std::os::unix::process::ExitStatusExt as _;
        let status = std::process::ExitStatus::from_raw(libc::SIGKILL);
        self.status = Some(status);
        Ok(Some(status))
    }

    /// Waits until it is gone (killing it after [`EXIT_WAIT`]) and deletes it.
    pub fn wait(&mut self) -> Result<std::process::ExitStatus, GvisorError> {
        self.wait_for(EXIT_WAIT)?;
        self.kill()?;
        self.wait_for(EXIT_WAIT)?
            .ok_or(GvisorError::TimedOut { command: "kill".into(), timeout: EXIT_WAIT })
    }

    fn wait_for(
        &mut self,
        timeout: Duration,
    ) -> Result<Option<std::process::ExitStatus>, GvisorError> {
        let deadline = std::time::Instant::now() + timeout;
        loop {
            if let Some(status) = self.try_wait()? {
                return Ok(Some(status));
            }
            if std::time::Instant::now() >= deadline {
                return Ok(None);
            }
            std::thread::sleep(Duration::from_millis(10));
        }
    }

    /// SIGTERM to every process, SIGKILL after `grace`; waits until it is gone.
    pub fn terminate(&mut self, grace: Duration) -> Result<std::process::ExitStatus, GvisorError> {
        let _ = self.signal("TERM");
        if let Some(status) = self.wait_for(grace)? {
            return Ok(status);
        }
        self.kill()?;
        self.wait()
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;

    /// A stand-in runsc (named so) that only prints `version` for `--version`: what the
    /// check reads, for releases this machine does not have.
    fn fake_runsc(dir: &Path, version: &str) -> PathBuf {
        use std::os::unix::fs::PermissionsExt as _;
        let path = dir.join("runsc");
        std::fs::write(&path, format!("#!/bin/sh\necho '{version}'\necho 'spec: 1.0.2-dev'\n"))
            .unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
        path
    }

    #[test]
    fn a_runsc_older_than_the_oldest_that_works_is_refused_and_says_how_to_get_one() {
        let dir = tempfile::tempdir().unwrap();
        let old = fake_runsc(dir.path(), "runsc version 0.0~20221219.0");
        let error = Runsc::new(Some(old.clone()), dir.path().join("root")).unwrap_err();
        assert_eq!(
            error.to_string(),
            format!(
                "{} is runsc 20221219; the gvisor runtime needs 20240729 or newer ({INSTALL})",
                old.display()
            )
        );
        let odd = fake_runsc(dir.path(), "runsc version dev");
        let error = Runsc::new(Some(odd.clone()), dir.path().join("root")).unwrap_err();
        assert_eq!(
            error.to_string(),
            format!(
                "{} is runsc of an unknown release (\"runsc version dev\\nspec: 1.0.2-dev\"); the gvisor runtime needs 20240729 or newer ({INSTALL})",
                odd.display()
            )
        );
        let new = fake_runsc(dir.path(), "runsc version release-20250101.0");
        assert!(Runsc::new(Some(new), dir.path().join("root")).is_ok());
        let missing = dir.path().join("nowhere/runsc");
        assert_eq!(
            Runsc::new(Some(missing.clone()), dir.path().join("root")).unwrap_err().to_string(),
            format!("runsc not found at {} ({INSTALL})", missing.display())
        );
    }
}
