//! gVisor's `runsc`, driven through its OCI interface: the first part of the gVisor
//! runtime (an OCI bundle written from a [`GvisorSpec`], `runsc create`/`start`/`exec`/
//! `kill`/`delete`), not yet behind the daemon's launch seam.
//!
//! What it relies on was measured on this project's CI host with Debian 12's `runsc`
//! (2022-12-19) and is written down in docs/gvisor.md:
//! - `--platform=ptrace`: the only platform that runs there (`kvm` hangs in a nested VM).
//! - `--network=host` with the OCI network namespace set to a path: gVisor's sockets are
//!   then the host kernel's, in the namespace the daemon made and pinned, so envd is
//!   reached on that namespace's `127.0.0.1:49983` as a native sandbox's is. gVisor's own
//!   network stack (needed for checkpoints) refuses every namespace on kernel 6.18: this
//!   build tests for the root namespace by a `/proc/sys/net` file that exists in all.
//! - `runsc create` leaves its output descriptors open in the sandbox's processes for the
//!   container's life: it gets `/dev/null` for input and the log, opened `O_APPEND` (two
//!   writers share it), for output, and nothing is read from it to its end.
//! - container ids are one namespace per host (an abstract socket each): [`container_id`].

use std::fs::{File, OpenOptions};
use std::io;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::Duration;

use serde_json::{Value, json};

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
    /// Host paths shown read-only at the same path inside (directories or files).
    pub read_only: Vec<PathBuf>,
    /// Host files or directories shown read-only elsewhere: `(host, inside)`, mounted
    /// after `read_only` (so a file may cover one in a shown directory).
    pub binds: Vec<(PathBuf, PathBuf)>,
    /// The network namespace (a pinned file) to run in; None: gVisor's loopback only.
    pub netns: Option<PathBuf>,
    /// The uid/gid block the root's files are stored in on the host (None: host ids).
    /// runsc's own user namespace cannot be used with `--network=host` (its sandbox
    /// process then fails to set up its chroot: EPERM), so the root is shown to runsc
    /// through an idmapped mount instead: what root inside makes (runsc's gofer, host
    /// root, writes it) is stored as the block's root.
    pub ids: Option<IdRange>,
    /// The cgroup path (relative to each hierarchy's root) and the memory limit.
    pub cgroup: Option<String>,
    pub memory_bytes: Option<u64>,
    /// The first process: program, arguments, environment (`NAME=value`), directory.
    pub args: Vec<String>,
    pub env: Vec<String>,
    pub cwd: String,
    /// Where its output goes (appended).
    pub log: PathBuf,
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

/// The bundle's `config.json` for `spec` (OCI runtime spec 1.0).
pub fn config(spec: &GvisorSpec) -> Value {
    // No `/dev` mount: gVisor's own (its devices, `/dev/pts`) is what a terminal needs.
    let mut mounts = vec![
        json!({"destination": "/proc", "type": "proc", "source": "proc"}),
        json!({"destination": "/tmp", "type": "tmpfs", "source": "tmpfs"}),
        json!({"destination": "/sys", "type": "sysfs", "source": "sysfs",
               "options": ["nosuid", "noexec", "nodev", "ro"]}),
    ];
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
    let mut namespaces = vec![
        json!({"type": "pid"}),
        json!({"type": "ipc"}),
        json!({"type": "uts"}),
        json!({"type": "mount"}),
    ];
    match &spec.netns {
        Some(path) => namespaces.push(json!({"type": "network", "path": path})),
        None => namespaces.push(json!({"type": "network"})),
    }
    let mut linux = json!({"namespaces": namespaces});
    if let Some(cgroup) = &spec.cgroup {
        linux["cgroupsPath"] = json!(cgroup);
    }
    if let Some(bytes) = spec.memory_bytes {
        linux["resources"] = json!({"memory": {"limit": bytes}});
    }
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

/// Failures of runsc, with what it said.
#[derive(Debug, thiserror::Error)]
pub enum GvisorError {
    #[error("runsc not found at {0} (Debian/Ubuntu: apt-get install runsc)")]
    NotFound(PathBuf),
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
        Ok(Runsc { binary, root })
    }

    fn command(&self) -> Command {
        let mut command = Command::new(&self.binary);
        command.arg("--root").arg(&self.root).args(["--platform=ptrace", "--network=host"]);
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

    /// Writes the bundle and creates and starts the container; returns once its first
    /// process runs (not once it is ready: envd's health says that).
    pub fn start(&self, spec: &GvisorSpec) -> Result<(), GvisorError> {
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
        let log = || {
            OpenOptions::new()
                .create(true)
                .append(true)
                .open(&spec.log)
                .map_err(io_error(format!("opening {}", spec.log.display())))
        };
        let id = container_id(&spec.id);
        let mut create = self.command();
        create
            .arg("create")
            .arg("--bundle")
            .arg(&spec.bundle)
            .arg(&id)
            .stdin(File::open("/dev/null").map_err(io_error("opening /dev/null"))?)
            .stdout(log()?)
            .stderr(log()?);
        let output = finish(create, "create")?;
        if !output.status.success() {
            let said = std::fs::read_to_string(&spec.log).unwrap_or_default();
            return Err(GvisorError::Failed {
                command: "create".into(),
                status: output.status.to_string(),
                output: said.lines().rev().take(5).collect::<Vec<_>>().join(" | "),
            });
        }
        self.run(&["start", &id]).map(drop)
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
        if spec.ids.is_some() {
            let view = root_path(spec);
            if let Ok(path) = std::ffi::CString::new(view.as_os_str().as_encoded_bytes()) {
                // SAFETY: umount2 of a valid path; one not mounted fails harmlessly.
                unsafe { libc::umount2(path.as_ptr(), libc::MNT_DETACH) };
            }
        }
        // Never a recursive removal: a view still mounted holds the sandbox's files, and
        // rmdir refuses a mount point or a directory with anything in it.
        let _ = std::fs::remove_file(spec.bundle.join("config.json"));
        let _ = std::fs::remove_dir(root_path(spec));
        let _ = std::fs::remove_dir(&spec.bundle);
        deleted
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
    spec: GvisorSpec,
    pid: u32,
    /// Its start time (`/proc/<pid>/stat`), so a reused pid is not taken for it.
    started: u64,
    /// Set once it is gone and deleted.
    status: Option<std::process::ExitStatus>,
}

/// How long a container gets to go after SIGKILL before `wait` gives up.
const EXIT_WAIT: Duration = Duration::from_secs(10);

impl Container {
    /// Writes the bundle, creates and starts the container (blocking, ~150 ms).
    pub fn start(runsc: &Runsc, spec: GvisorSpec) -> Result<Container, GvisorError> {
        runsc.start(&spec)?;
        let started = runsc.sandbox_pid(&spec.id).and_then(|pid| {
            crate::state::running_start_time(pid).map(|time| (pid, time)).ok_or_else(|| {
                GvisorError::Failed {
                    command: "state".into(),
                    status: "0".into(),
                    output: format!("the sandbox process {pid} is gone"),
                }
            })
        });
        match started {
            Ok((pid, started)) => {
                Ok(Container { runsc: runsc.clone(), spec, pid, started, status: None })
            }
            Err(e) => {
                let _ = runsc.destroy(&spec);
                Err(e)
            }
        }
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
        self.runsc.destroy(&self.spec)?;
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
