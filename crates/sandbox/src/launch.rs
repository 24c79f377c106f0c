//! Starting a sandbox: clone the init into a new pid namespace, hand it the plan, wait
//! for its report.
//!
//! The daemon is multi-threaded (tokio), so the only thing done in the cloned child
//! before `execve` is async-signal-safe fd shuffling; every namespace and mount happens
//! in the single-threaded init after `execve`.

use std::collections::BTreeMap;
use std::env;
use std::ffi::{CString, OsString};
use std::fs::{self, File, OpenOptions};
use std::io::{self, Read};
use std::os::fd::{AsFd, AsRawFd, BorrowedFd, FromRawFd, OwnedFd, RawFd};
use std::os::unix::ffi::{OsStrExt, OsStringExt};
use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
use std::os::unix::net::UnixStream;
use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
pub use std::process::ExitStatus;
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

use rustix::process::{WaitId, WaitIdOptions};

use crate::cgroup::{Cgroups, SandboxCgroup};
use crate::error::{Error, Missing, Result};
use crate::layout_cache::LayoutCache;
use crate::plan::{self, Step};
use crate::privileges;
use crate::seccomp::{self, Program};
use crate::spec::{Isolation, SandboxSpec};
use crate::state::StateDir;
use crate::syscall::Resource;
use crate::wire::{self, CONTROL_FD, Confinement, EXEC_FAILED, InitConfig, Report};

/// argv[0] of every init: `/proc/1/cmdline` is readable inside, and the binary's host
/// path must not be.
const INIT_ARGV0: &str = "dsh-sandbox-init";

/// File name of the init helper binary.
pub const INIT_BINARY_NAME: &str = "dsh-sandbox-init";

/// Environment variable that overrides where [`Launcher::locate`] finds the init.
pub const INIT_BINARY_ENV: &str = "DSH_SANDBOX_INIT";

/// Where the sandbox's stdout or stderr goes (the init's and the payload's).
#[derive(Debug, Default)]
pub enum Output {
    /// The daemon's own stream.
    #[default]
    Inherit,
    Null,
    /// Appended to a host file (created 0644 if missing).
    File(PathBuf),
    /// Any open descriptor, e.g. the write end of a pipe.
    Fd(OwnedFd),
}

/// The program run inside the sandbox. `program` is a host path; it is bind-mounted
/// read-only at `/.dsh/bin/<file name>` and executed from there.
#[derive(Debug)]
pub struct Payload {
    pub program: PathBuf,
    pub args: Vec<OsString>,
    /// Applied over the template's environment.
    pub env: BTreeMap<String, String>,
    pub stdout: Output,
    pub stderr: Output,
}

impl Payload {
    pub fn new(program: impl Into<PathBuf>) -> Self {
        Payload {
            program: program.into(),
            args: Vec::new(),
            env: BTreeMap::new(),
            stdout: Output::Inherit,
            stderr: Output::Inherit,
        }
    }

    pub fn arg(mut self, arg: impl Into<OsString>) -> Self {
        self.args.push(arg.into());
        self
    }

    pub fn args<I: IntoIterator<Item = S>, S: Into<OsString>>(mut self, args: I) -> Self {
        self.args.extend(args.into_iter().map(Into::into));
        self
    }

    pub fn env(mut self, key: impl Into<String>, value: impl Into<String>) -> Self {
        self.env.insert(key.into(), value.into());
        self
    }

    pub fn stdout(mut self, output: Output) -> Self {
        self.stdout = output;
        self
    }

    pub fn stderr(mut self, output: Output) -> Self {
        self.stderr = output;
        self
    }
}

/// Starts sandboxes with a given init binary.
#[derive(Debug, Clone)]
pub struct Launcher {
    init_binary: PathBuf,
    init_args: Vec<OsString>,
    setup_timeout: Duration,
    cgroups: Option<Arc<Cgroups>>,
    /// See [`Launcher::staged`].
    staging: Option<Arc<crate::staging::Staging>>,
    /// See [`Launcher::shared_program_dir`].
    shared_program_dir: Option<PathBuf>,
    /// The host's layout, kept while it does not change (see `layout_cache.rs`).
    layouts: Arc<LayoutCache>,
}

impl Launcher {
    pub fn new(init_binary: impl Into<PathBuf>) -> Self {
        Launcher {
            init_binary: init_binary.into(),
            init_args: Vec::new(),
            setup_timeout: Duration::from_secs(30),
            cgroups: None,
            staging: None,
            shared_program_dir: None,
            layouts: Arc::default(),
        }
    }

    /// Keeps `size` threads staged in cgroups of their own, so that an init is cloned
    /// straight into its sandbox's cgroup instead of being moved there (see
    /// `staging.rs`): cgroup v1 only (elsewhere, and without [`Launcher::cgroups`],
    /// nothing changes). Call it after `cgroups`.
    pub fn staged(mut self, size: usize) -> Self {
        if let Some(cgroups) = self.cgroups.as_ref().filter(|cgroups| cgroups.is_v1() && size > 0) {
            self.staging = Some(crate::staging::Staging::new(Arc::clone(cgroups), size));
        }
        self
    }

    /// Puts every sandbox in a cgroup of its own under `cgroups`, with the spec's
    /// [`crate::cgroup::Resources`] as limits. Without it, `resources` must be unset.
    pub fn cgroups(mut self, cgroups: Arc<Cgroups>) -> Self {
        self.cgroups = Some(cgroups);
        self
    }

    /// Every payload lives in `dir`, a host directory that holds nothing else (it is
    /// shown at `/.dsh/bin`): each sandbox's `program` is then a symlink to it instead
    /// of a link or copy of the binary. Where sandboxes' state directories lie on another
    /// filesystem than the binary (a disk image), this saves a copy per sandbox and lets
    /// every sandbox share the binary's page cache.
    pub fn shared_program_dir(mut self, dir: impl Into<PathBuf>) -> Self {
        self.shared_program_dir = Some(dir.into());
        self
    }

    /// Finds `dsh-sandbox-init`: `$DSH_SANDBOX_INIT`, else next to the current
    /// executable or one directory up (where cargo puts binaries for test executables).
    pub fn locate() -> Result<Self> {
        let mut searched = Vec::new();
        if let Some(path) = env::var_os(INIT_BINARY_ENV) {
            let path = PathBuf::from(path);
            if path.is_file() {
                return Ok(Launcher::new(path));
            }
            searched.push(path);
        }
        if let Ok(exe) = env::current_exe() {
            for dir in exe.ancestors().skip(1).take(2) {
                let candidate = dir.join(INIT_BINARY_NAME);
                if candidate.is_file() {
                    return Ok(Launcher::new(candidate));
                }
                searched.push(candidate);
            }
        }
        Err(Error::InitBinaryNotFound { searched })
    }

    /// An argument for the init binary, for a binary that embeds the init as a hidden
    /// subcommand (calling [`crate::init::main`]) instead of shipping `dsh-sandbox-init`.
    pub fn init_arg(mut self, arg: impl Into<OsString>) -> Self {
        self.init_args.push(arg.into());
        self
    }

    /// How long the init may take to set the sandbox up before it is killed.
    pub fn setup_timeout(mut self, timeout: Duration) -> Self {
        self.setup_timeout = timeout;
        self
    }

    pub fn init_binary(&self) -> &Path {
        &self.init_binary
    }

    /// Creates the sandbox and starts `payload` in it. Blocks until the sandbox is set
    /// up (call it from `spawn_blocking` in async code).
    pub fn spawn(&self, spec: &SandboxSpec, payload: Payload) -> Result<SandboxProcess> {
        spec.validate()?;
        privileges::check()?;
        if !self.init_binary.is_file() {
            return Err(Error::InitBinaryNotFound { searched: vec![self.init_binary.clone()] });
        }
        if !payload.program.is_absolute() || !payload.program.is_file() {
            return Err(Error::ProgramNotFound { path: payload.program });
        }
        let mut spec = prepare_state_dir(spec)?;
        let state = StateDir::new(&spec.state_dir);
        if let Some(pid) =
            state.live_init().map_err(|e| Error::io("reading the init pid file", e))?
        {
            return Err(Error::AlreadyRunning { pid });
        }
        if !privileges::can_raise_hard_limits() {
            spec.limits = spec.limits.clamped(own_hard_limit);
        }

        let Payload { program, args, env, stdout, stderr } = payload;
        let layout = self.layouts.probe_template(&spec.template);
        let program_inside = plan::program_inside(&program)?;
        match &self.shared_program_dir {
            Some(dir) => link_program_dir(&program, dir, &state.program())?,
            None => link_program(&program, &state.program())?,
        }
        let mut full_env = spec.template.env.clone();
        full_env.extend(env);
        let confine = match spec.isolation {
            Isolation::Strict { .. } => Some(Confinement { seccomp: seccomp_filters()?.to_vec() }),
            Isolation::Namespaces => None,
        };
        // Where the sandbox's cgroup will be (made below, once nothing else can fail).
        let views = match &self.cgroups {
            Some(cgroups) => cgroups.open(&spec.id).views(),
            None => Vec::new(),
        };
        let steps = plan::build_with_cgroup(&spec, &layout, &program, &views)?;
        let config = InitConfig {
            steps,
            program: program_inside.clone(),
            args: args.into_iter().map(OsString::into_vec).collect(),
            env: full_env.into_iter().collect(),
            workdir: spec.template.workdir.clone(),
            confine,
        };
        let config = serde_json::to_vec(&config)
            .map_err(|e| Error::io("encoding the sandbox plan", io::Error::other(e)))?;
        if self.cgroups.is_none() && spec.resources != Default::default() {
            return Err(Error::InvalidLimit {
                limit: "resources",
                value: 0,
                reason: "cgroup limits need a launcher with a cgroup hierarchy (Launcher::cgroups)",
            });
        }
        // An init cloned by a staged thread starts in its cgroup; else it is moved there.
        let mut staged = self.staging.as_ref().and_then(|staging| staging.take());
        let cgroup = match (&self.cgroups, staged.as_mut()) {
            (Some(_), Some(thread)) => Some(thread.take_cgroup(&spec.id, &spec.resources)?),
            (Some(cgroups), None) => Some(cgroups.create(&spec.id, &spec.resources)?),
            (None, _) => None,
        };
        let in_cgroup = staged.is_some();
        let started = self.start_init(state, stdout, stderr, move |fds, path, argv| match staged {
            Some(thread) => thread
                .run(move || {
                    let cloned = clone_init(&fds, &path, &argv);
                    (fds, cloned)
                })
                .map_or_else(
                    || Err(io::Error::other("the staged thread died")),
                    |(_, cloned)| cloned,
                ),
            None => clone_init(&fds, &path, &argv),
        });
        let (control, mut process) = match started {
            Ok(started) => started,
            Err(e) => {
                if let Some(cgroup) = &cgroup {
                    let _ = cgroup.remove();
                }
                return Err(e);
            }
        };
        // The plan goes first: the init sets the sandbox up while it is moved into the
        // cgroup, a move that costs the kernel an RCU grace period (13 ms on cgroup v1
        // here), and starts the payload only on `GO`, once it is there (see `wire.rs`).
        // A failed write means the init died; its report (or silence) says why.
        let length = (config.len() as u64).to_le_bytes();
        let _ = send_all(&control, &length).and_then(|()| send_all(&control, &config));
        if let Some(cgroup) = cgroup {
            let added = if in_cgroup { Ok(()) } else { cgroup.add(process.pid) };
            process.cgroup = Some(cgroup);
            if let Err(e) = added {
                // An init that failed meanwhile (a step, its exec) is not in the cgroup
                // to move: what it reported says more than the move's error.
                let _ = process.kill();
                let answer = read_answer(&control, Duration::from_secs(1));
                let status = process.wait();
                return Err(match answer {
                    Ok(failure @ (Answer::Report(_) | Answer::ExecFailed(_))) => {
                        failure_error(failure, status, &program_inside, &self.init_binary)
                    }
                    _ => e.into(),
                });
            }
        }
        let _ = send_all(&control, &[crate::wire::GO])
            .and_then(|()| control.shutdown(std::net::Shutdown::Write));
        let answer = match read_answer(&control, self.setup_timeout) {
            Ok(answer) => answer,
            Err(e) => {
                let _ = process.kill();
                let _ = process.wait();
                return Err(e);
            }
        };
        match answer {
            Answer::Report(Report::Ready { payload_pid }) => {
                process.payload_pid = payload_pid;
                // Our end of the control socket is the sandbox's lifeline: the init ends
                // the sandbox when it closes (this handle dropped, or the daemon gone).
                process.lifeline = Some(control);
                if let Err(e) = process.state.write_pid(process.pid) {
                    let _ = process.kill();
                    let _ = process.wait();
                    return Err(Error::io("recording the init pid", e));
                }
                Ok(process)
            }
            failure => {
                let status = process.wait();
                Err(failure_error(failure, status, &program_inside, &self.init_binary))
            }
        }
    }

    /// Clones the init with the descriptors it needs; returns our end of the control
    /// socket and the (not yet set up) sandbox.
    /// `clone` clones the init (`clone_init`, here or on a staged thread) with the
    /// descriptors, path and arguments given; it owns them until it returns.
    fn start_init(
        &self,
        state: StateDir,
        stdout: Output,
        stderr: Output,
        clone: impl FnOnce(ChildFds, CString, Vec<CString>) -> io::Result<(u32, OwnedFd)>,
    ) -> Result<(UnixStream, SandboxProcess)> {
        let stdin = File::open("/dev/null").map_err(|e| Error::io("opening /dev/null", e))?;
        let mut loggers = Vec::new();
        let stdout = open_output(stdout, &mut loggers)?;
        let stderr = open_output(stderr, &mut loggers)?;
        let (control, child_control) =
            UnixStream::pair().map_err(|e| Error::io("creating the control socket", e))?;
        let child = ChildFds {
            // Above 2 and CONTROL_FD, so the dup2s in the child cannot clobber a source.
            stdin: high_fd(stdin.as_fd())?,
            stdout: stdout.as_ref().map(|fd| high_fd(fd.as_fd())).transpose()?,
            stderr: stderr.as_ref().map(|fd| high_fd(fd.as_fd())).transpose()?,
            control: high_fd(child_control.as_fd())?,
        };
        let nul = |_| Error::InvalidPath {
            what: "init binary or argument",
            path: self.init_binary.clone(),
            reason: "it contains a NUL byte",
        };
        let path = CString::new(self.init_binary.as_os_str().as_bytes()).map_err(nul)?;
        let argv = std::iter::once(std::ffi::OsStr::new(INIT_ARGV0))
            .chain(self.init_args.iter().map(OsString::as_os_str))
            .map(|arg| CString::new(arg.as_bytes()))
            .collect::<Result<Vec<CString>, _>>()
            .map_err(nul)?;

        let (pid, pidfd) = clone(child, path, argv).map_err(|e| match e.raw_os_error() {
            Some(errno @ (libc::EPERM | libc::EINVAL | libc::ENOSPC | libc::EUSERS)) => {
                Error::NamespacesUnavailable(Missing::KernelRefused {
                    namespace: "pid".into(),
                    errno,
                })
            }
            _ => Error::io("cloning the sandbox init", e),
        })?;
        // The child has its copies; ours must close so that EOF on `control` means the
        // init is done (or gone).
        drop((child_control, stdin, stdout, stderr));
        Ok((
            control,
            SandboxProcess {
                pid,
                pidfd,
                payload_pid: 0,
                state,
                status: None,
                lifeline: None,
                cgroup: None,
                loggers,
            },
        ))
    }
}

/// Starts `program` with `args` and `env` in the sandbox `spec`, with output inherited,
/// using the init binary found by [`Launcher::locate`].
pub fn spawn_sandboxed(
    spec: &SandboxSpec,
    program: &Path,
    args: &[OsString],
    env: &BTreeMap<String, String>,
) -> Result<SandboxProcess> {
    let mut payload = Payload::new(program).args(args.iter().cloned());
    payload.env = env.clone();
    Launcher::locate()?.spawn(spec, payload)
}

/// A running sandbox, seen through its init (pid 1 inside). Killing the init kills
/// every process in the sandbox: when a pid namespace's init dies, the kernel kills the
/// rest, and the mounts go with the mount namespace. Dropping this does not kill.
#[derive(Debug)]
pub struct SandboxProcess {
    pid: u32,
    pidfd: OwnedFd,
    payload_pid: u32,
    state: StateDir,
    status: Option<ExitStatus>,
    /// Held while the sandbox should live; closing it (drop, or the daemon dying, even by
    /// SIGKILL) makes the init end the sandbox.
    lifeline: Option<UnixStream>,
    /// The sandbox's own cgroup, removed once the init is reaped.
    cgroup: Option<SandboxCgroup>,
    /// Threads copying output pipes into log files; joined once the init is reaped, so
    /// a log is complete when `wait` returns.
    loggers: Vec<std::thread::JoinHandle<()>>,
}

impl SandboxProcess {
    /// Host pid of the sandbox's init.
    pub fn pid(&self) -> u32 {
        self.pid
    }

    /// Pid of the payload as seen inside the sandbox (3 with strict isolation: the init is
    /// 1 and the short-lived holder of the new user namespace was 2; else 2).
    pub fn payload_pid(&self) -> u32 {
        self.payload_pid
    }

    /// The sandbox's cgroup (limits and accounting), if the launcher had a hierarchy.
    pub fn cgroup(&self) -> Option<&SandboxCgroup> {
        self.cgroup.as_ref()
    }

    /// A pidfd of the init: readable once it has exited (for async waiting).
    pub fn pidfd(&self) -> BorrowedFd<'_> {
        self.pidfd.as_fd()
    }

    /// Sends `signal` to the init, which forwards termination signals to the payload's
    /// process group. A sandbox that is already gone is not an error.
    pub fn signal(&self, signal: libc::c_int) -> Result<()> {
        // SAFETY: pidfd_send_signal with a pidfd we own and a null siginfo.
        let ret = unsafe {
            libc::syscall(
                libc::SYS_pidfd_send_signal,
                self.pidfd.as_raw_fd(),
                signal,
                std::ptr::null::<libc::siginfo_t>(),
                0u32,
            )
        };
        if ret == -1 {
            let e = io::Error::last_os_error();
            if e.raw_os_error() != Some(libc::ESRCH) {
                return Err(Error::io(format!("signalling sandbox init {}", self.pid), e));
            }
        }
        Ok(())
    }

    /// SIGKILL to the init: everything in the sandbox dies.
    /// Ends the sandbox as if its owner went away: the init notices its lifeline close,
    /// exits, and the kernel takes every process of the namespace with it.
    pub fn close_lifeline(&mut self) {
        self.lifeline = None;
    }

    pub fn kill(&self) -> Result<()> {
        self.signal(libc::SIGKILL)
    }

    /// Reaps the init if it has exited.
    pub fn try_wait(&mut self) -> Result<Option<ExitStatus>> {
        self.reap(WaitIdOptions::EXITED | WaitIdOptions::NOHANG)
    }

    /// Waits for the init to exit. When this returns, every process of the sandbox is
    /// gone and its mounts are released.
    pub fn wait(&mut self) -> Result<ExitStatus> {
        loop {
            if let Some(status) = self.reap(WaitIdOptions::EXITED)? {
                return Ok(status);
            }
        }
    }

    /// Waits at most `timeout`.
    pub fn wait_timeout(&mut self, timeout: Duration) -> Result<Option<ExitStatus>> {
        if let Some(status) = self.status {
            return Ok(Some(status));
        }
        let deadline = Instant::now() + timeout;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let mut poll =
                libc::pollfd { fd: self.pidfd.as_raw_fd(), events: libc::POLLIN, revents: 0 };
            let millis = libc::c_int::try_from(left.as_millis()).unwrap_or(libc::c_int::MAX);
            // SAFETY: one valid pollfd.
            let ready = unsafe { libc::poll(&mut poll, 1, millis) };
            if ready > 0 {
                return self.wait().map(Some);
            }
            if ready == 0 {
                return Ok(None);
            }
            let e = io::Error::last_os_error();
            if e.kind() != io::ErrorKind::Interrupted {
                return Err(Error::io("polling the sandbox init", e));
            }
        }
    }

    /// SIGTERM (forwarded to the payload), then SIGKILL after `grace`; waits.
    pub fn terminate(&mut self, grace: Duration) -> Result<ExitStatus> {
        self.signal(libc::SIGTERM)?;
        if let Some(status) = self.wait_timeout(grace)? {
            return Ok(status);
        }
        self.kill()?;
        self.wait()
    }

    fn reap(&mut self, options: WaitIdOptions) -> Result<Option<ExitStatus>> {
        if let Some(status) = self.status {
            return Ok(Some(status));
        }
        let waited = loop {
            match rustix::process::waitid(WaitId::PidFd(self.pidfd.as_fd()), options) {
                Err(rustix::io::Errno::INTR) => continue,
                other => break other,
            }
        };
        let Some(info) = waited.map_err(|e| Error::io("waiting for the sandbox init", e.into()))?
        else {
            return Ok(None);
        };
        let status = match (info.exit_status(), info.terminating_signal()) {
            (Some(code), _) => ExitStatus::from_raw((code & 0xff) << 8),
            (None, Some(signal)) => {
                ExitStatus::from_raw(signal | if info.dumped() { 0x80 } else { 0 })
            }
            (None, None) => return Ok(None),
        };
        self.status = Some(status);
        self.state.remove_pid();
        // Every writer died with the sandbox, so each logger is at its end of file.
        for logger in self.loggers.drain(..) {
            let _ = logger.join();
        }
        // Every process of the pid namespace is gone once its init is reaped.
        if let Some(cgroup) = self.cgroup.take()
            && let Err(e) = cgroup.remove()
        {
            tracing::warn!(error = %e, "removing a sandbox cgroup");
        }
        Ok(Some(status))
    }
}

/// The seccomp profile, compiled once per process.
fn seccomp_filters() -> Result<&'static [Program]> {
    static FILTERS: OnceLock<std::result::Result<Vec<Program>, String>> = OnceLock::new();
    FILTERS.get_or_init(|| seccomp::compile().map_err(|e| e.to_string())).as_deref().map_err(
        |reason| Error::InitFailed { reason: format!("compiling the seccomp profile: {reason}") },
    )
}

/// Puts the payload binary alone in `dir` (a hard link, or a copy across filesystems),
/// the lower layer of the read-only overlay at `/.dsh/bin`: a bind mount of the host
/// file would show its host path in the sandbox's mountinfo.
fn link_program(program: &Path, dir: &Path) -> Result<()> {
    let context = |what: &str| format!("{what} the payload binary in {}", dir.display());
    match fs::remove_dir_all(dir) {
        Err(e) if e.kind() != io::ErrorKind::NotFound => {
            return Err(Error::io(context("clearing"), e));
        }
        _ => {}
    }
    fs::create_dir(dir).map_err(|e| Error::io(context("making a directory for"), e))?;
    let name =
        program.file_name().ok_or_else(|| Error::ProgramNotFound { path: program.to_owned() })?;
    let target = dir.join(name);
    // The file itself, not a symlink to it (`/bin/sh -> dash` would dangle inside).
    let file = fs::canonicalize(program).map_err(|e| Error::io(context("resolving"), e))?;
    if fs::hard_link(&file, &target).is_err() {
        fs::copy(&file, &target).map_err(|e| Error::io(context("copying"), e))?;
    }
    Ok(())
}

/// Makes `link` a symlink to `dir`, the shared directory holding `program` alone.
fn link_program_dir(program: &Path, dir: &Path, link: &Path) -> Result<()> {
    if program.parent() != Some(dir) || !program.is_file() {
        return Err(Error::ProgramNotFound { path: program.to_owned() });
    }
    let context = |what: &str| format!("{what} {}", link.display());
    // A symlink or directory from an earlier start (remove_dir_all does not follow links).
    match fs::remove_dir_all(link) {
        Err(e) if e.kind() != io::ErrorKind::NotFound => {
            return Err(Error::io(context("clearing"), e));
        }
        _ => {}
    }
    std::os::unix::fs::symlink(dir, link).map_err(|e| Error::io(context("linking"), e))
}

/// This process's hard limit for `resource` (`None` = unlimited).
fn own_hard_limit(resource: Resource) -> Option<u64> {
    let resource = match resource {
        Resource::Nproc => rustix::process::Resource::Nproc,
        Resource::Nofile => rustix::process::Resource::Nofile,
        Resource::Fsize => rustix::process::Resource::Fsize,
        Resource::As => rustix::process::Resource::As,
    };
    rustix::process::getrlimit(resource).maximum
}

/// Creates the state directory (0700: it holds the sandbox's files) and returns the spec
/// with its canonical path, re-validated so overlaps through symlinks are caught too.
fn prepare_state_dir(spec: &SandboxSpec) -> Result<SandboxSpec> {
    let dir = &spec.state_dir;
    fs::create_dir_all(dir)
        .map_err(|e| Error::io(format!("creating state directory {}", dir.display()), e))?;
    fs::set_permissions(dir, fs::Permissions::from_mode(0o700))
        .map_err(|e| Error::io(format!("setting the mode of {}", dir.display()), e))?;
    let canonical =
        fs::canonicalize(dir).map_err(|e| Error::io(format!("resolving {}", dir.display()), e))?;
    let spec = SandboxSpec { state_dir: canonical, ..spec.clone() };
    spec.validate()?;
    Ok(spec)
}

fn open_output(
    output: Output,
    loggers: &mut Vec<std::thread::JoinHandle<()>>,
) -> Result<Option<OwnedFd>> {
    match output {
        Output::Inherit => Ok(None),
        Output::Null => File::options()
            .write(true)
            .open("/dev/null")
            .map(|f| Some(f.into()))
            .map_err(|e| Error::io("opening /dev/null", e)),
        Output::File(path) => {
            let file = OpenOptions::new()
                .append(true)
                .create(true)
                .mode(0o644)
                .open(&path)
                .map_err(|e| Error::io(format!("opening {}", path.display()), e))?;
            let (writer, logger) = log_through_pipe(file, &path)?;
            loggers.push(logger);
            Ok(Some(writer))
        }
        Output::Fd(fd) => Ok(Some(fd)),
    }
}

/// The write end of a pipe whose bytes a small thread appends to `file` until every
/// process of the sandbox has closed it. A file descriptor handed in directly would show
/// its host path (the state directory) in `/proc/<pid>/fd` inside the sandbox.
fn log_through_pipe(mut file: File, path: &Path) -> Result<(OwnedFd, std::thread::JoinHandle<()>)> {
    let (mut reader, writer) =
        io::pipe().map_err(|e| Error::io(format!("making a pipe for {}", path.display()), e))?;
    let logger = std::thread::Builder::new()
        .name("dsh-sandbox-log".into())
        .stack_size(64 * 1024)
        .spawn(move || {
            // Ends at EOF (the sandbox is gone) or when the file cannot take more.
            let _ = io::copy(&mut reader, &mut file);
        })
        .map_err(|e| Error::io(format!("starting the log writer for {}", path.display()), e))?;
    Ok((writer.into(), logger))
}

/// A close-on-exec duplicate numbered 10 or above.
fn high_fd(fd: BorrowedFd<'_>) -> Result<OwnedFd> {
    fd.try_clone_to_owned()
        .and_then(|dup| {
            // SAFETY: F_DUPFD_CLOEXEC on a descriptor we own returns a new one we own.
            let high = unsafe { libc::fcntl(dup.as_raw_fd(), libc::F_DUPFD_CLOEXEC, 10) };
            if high == -1 {
                Err(io::Error::last_os_error())
            } else {
                // SAFETY: `high` was just returned by fcntl and is owned by nobody else.
                Ok(unsafe { OwnedFd::from_raw_fd(high) })
            }
        })
        .map_err(|e| Error::io("duplicating a descriptor for the sandbox", e))
}

/// Descriptors the cloned child installs as 0, 1, 2 and CONTROL_FD.
struct ChildFds {
    stdin: OwnedFd,
    stdout: Option<OwnedFd>,
    stderr: Option<OwnedFd>,
    control: OwnedFd,
}

#[cfg(target_arch = "s390x")]
compile_error!("clone(2) takes its first two arguments swapped on s390x; not supported");

/// clone(CLONE_NEWPID | CLONE_PIDFD) without a new stack: fork semantics, with the child
/// as pid 1 of a new pid namespace. Returns the child's host pid and a pidfd.
fn clone_init(fds: &ChildFds, path: &CString, argv: &[CString]) -> io::Result<(u32, OwnedFd)> {
    let path = path.as_ptr();
    let argv: Vec<*const libc::c_char> =
        argv.iter().map(|arg| arg.as_ptr()).chain([std::ptr::null()]).collect();
    let envp: [*const libc::c_char; 1] = [std::ptr::null()];
    let raw = RawFds {
        stdin: fds.stdin.as_raw_fd(),
        stdout: fds.stdout.as_ref().map_or(-1, AsRawFd::as_raw_fd),
        stderr: fds.stderr.as_ref().map_or(-1, AsRawFd::as_raw_fd),
        control: fds.control.as_raw_fd(),
    };
    let mut pidfd: libc::c_int = -1;
    let flags = (libc::CLONE_NEWPID | libc::CLONE_PIDFD | libc::SIGCHLD) as libc::c_ulong;

    // No signal handler of the daemon may run in the child between clone and execve.
    // SAFETY: sigset_t is plain data initialised by sigfillset; this thread's mask is
    // restored right after the clone.
    let old_mask = unsafe {
        let mut all: libc::sigset_t = std::mem::zeroed();
        let mut old: libc::sigset_t = std::mem::zeroed();
        libc::sigfillset(&mut all);
        libc::pthread_sigmask(libc::SIG_SETMASK, &all, &mut old);
        old
    };
    // SAFETY: with a null stack, clone behaves like fork: the child gets a copy of this
    // address space and continues here with one thread. It only calls async-signal-safe
    // functions on data prepared above (no allocation, no locks) and then execve or _exit.
    // The kernel writes the pidfd into `pidfd` (the parent_tid argument, third on x86_64,
    // aarch64 and riscv64).
    let ret = unsafe {
        libc::syscall(
            libc::SYS_clone,
            flags,
            0 as libc::c_ulong,
            &mut pidfd as *mut libc::c_int,
            0 as libc::c_ulong,
            0 as libc::c_ulong,
        )
    };
    if ret == 0 {
        // SAFETY: we are the freshly cloned child; see above.
        unsafe { exec_in_child(&raw, path, argv.as_ptr(), envp.as_ptr()) }
    }
    let clone_error = io::Error::last_os_error();
    // SAFETY: restores the mask saved above.
    unsafe { libc::pthread_sigmask(libc::SIG_SETMASK, &old_mask, std::ptr::null_mut()) };
    if ret < 0 {
        return Err(clone_error);
    }
    // SAFETY: CLONE_PIDFD stored a new descriptor owned by nobody else.
    let pidfd = unsafe { OwnedFd::from_raw_fd(pidfd) };
    let pid = u32::try_from(ret).map_err(|_| io::Error::other("clone returned a bad pid"))?;
    Ok((pid, pidfd))
}

#[derive(Clone, Copy)]
struct RawFds {
    stdin: RawFd,
    stdout: RawFd,
    stderr: RawFd,
    control: RawFd,
}

/// Runs in the cloned child: async-signal-safe calls only.
unsafe fn exec_in_child(
    fds: &RawFds,
    path: *const libc::c_char,
    argv: *const *const libc::c_char,
    envp: *const *const libc::c_char,
) -> ! {
    // SAFETY: every call below is async-signal-safe and works on plain integers or the
    // pointers prepared by the parent before the clone.
    unsafe {
        // Default dispositions before unblocking, so no inherited handler can run here.
        let mut action: libc::sigaction = std::mem::zeroed();
        action.sa_sigaction = libc::SIG_DFL;
        for sig in 1..=64 {
            if sig != libc::SIGKILL && sig != libc::SIGSTOP {
                libc::sigaction(sig, &action, std::ptr::null_mut());
            }
        }
        let mut empty: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut empty);
        libc::sigprocmask(libc::SIG_SETMASK, &empty, std::ptr::null_mut());

        let installs =
            [(fds.stdin, 0), (fds.stdout, 1), (fds.stderr, 2), (fds.control, CONTROL_FD)];
        for (from, to) in installs {
            if from >= 0 && libc::dup2(from, to) == -1 {
                fail(fds.control);
            }
        }
        // Everything else the daemon has open closes on exec (the init also closes them).
        libc::syscall(
            libc::SYS_close_range,
            (CONTROL_FD + 1) as libc::c_uint,
            libc::c_uint::MAX,
            libc::CLOSE_RANGE_CLOEXEC,
        );
        libc::execve(path, argv, envp);
        fail(fds.control)
    }
}

unsafe fn fail(control: RawFd) -> ! {
    // SAFETY: errno location, write and _exit are async-signal-safe.
    unsafe {
        let errno = *libc::__errno_location();
        let mut message = [EXEC_FAILED; 5];
        message[1..].copy_from_slice(&errno.to_ne_bytes());
        libc::write(control, message.as_ptr().cast(), message.len());
        libc::_exit(127)
    }
}

fn send_all(socket: &UnixStream, mut bytes: &[u8]) -> io::Result<()> {
    while !bytes.is_empty() {
        // SAFETY: sends from a valid buffer; MSG_NOSIGNAL turns a dead peer into EPIPE
        // instead of SIGPIPE for the daemon.
        let sent = unsafe {
            libc::send(socket.as_raw_fd(), bytes.as_ptr().cast(), bytes.len(), libc::MSG_NOSIGNAL)
        };
        if sent < 0 {
            let e = io::Error::last_os_error();
            if e.kind() == io::ErrorKind::Interrupted {
                continue;
            }
            return Err(e);
        }
        bytes = &bytes[sent.unsigned_abs()..];
    }
    Ok(())
}

enum Answer {
    Report(Report),
    ExecFailed(io::Error),
    Silence,
}

fn read_answer(mut control: &UnixStream, timeout: Duration) -> Result<Answer> {
    let deadline = Instant::now() + timeout;
    let mut bytes = Vec::new();
    let mut chunk = [0u8; 4096];
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Err(Error::SetupTimeout { after: timeout });
        }
        control
            .set_read_timeout(Some(left))
            .map_err(|e| Error::io("setting the control socket timeout", e))?;
        match control.read(&mut chunk) {
            Ok(0) => break,
            Ok(n) => {
                bytes.extend_from_slice(&chunk[..n]);
                // A report ends with a newline; the init keeps the socket open after it.
                if bytes.first() != Some(&EXEC_FAILED) && bytes.ends_with(b"\n") {
                    break;
                }
            }
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) if matches!(e.kind(), io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut) => {
                return Err(Error::SetupTimeout { after: timeout });
            }
            Err(e) => return Err(Error::io("reading the sandbox init's report", e)),
        }
    }
    if bytes.is_empty() {
        return Ok(Answer::Silence);
    }
    if bytes[0] == EXEC_FAILED {
        let errno =
            bytes.get(1..5).and_then(|b| <[u8; 4]>::try_from(b).ok()).map_or(0, i32::from_ne_bytes);
        return Ok(Answer::ExecFailed(io::Error::from_raw_os_error(errno)));
    }
    serde_json::from_slice(&bytes)
        .map(Answer::Report)
        .map_err(|e| Error::InitFailed { reason: format!("unreadable report ({e})") })
}

fn failure_error(answer: Answer, status: Result<ExitStatus>, program: &Path, init: &Path) -> Error {
    match answer {
        Answer::Report(Report::SetupFailed { step, errno, message }) => {
            if let (Step::MountIdmapped { source, .. }, Some(errno)) = (&step, errno)
                && matches!(errno, libc::EINVAL | libc::ENOSYS | libc::EPERM | libc::EOPNOTSUPP)
            {
                return Error::NamespacesUnavailable(Missing::IdmappedMount {
                    path: source.clone(),
                    errno,
                });
            }
            if let (Step::Unshare { namespaces }, Some(errno)) = (&step, errno)
                && matches!(errno, libc::EPERM | libc::EINVAL | libc::ENOSPC | libc::EUSERS)
            {
                return Error::NamespacesUnavailable(Missing::KernelRefused {
                    namespace: namespaces.to_string(),
                    errno,
                });
            }
            Error::Setup { step: step.to_string(), source: wire::io_error(errno, message) }
        }
        Answer::Report(Report::SpawnFailed { errno, message }) => Error::PayloadSpawn {
            program: program.to_owned(),
            source: wire::io_error(errno, message),
        },
        Answer::Report(Report::Ready { .. }) => {
            Error::InitFailed { reason: "reported ready and failed".into() }
        }
        Answer::ExecFailed(e) => {
            Error::InitFailed { reason: format!("cannot execute {}: {e}", init.display()) }
        }
        Answer::Silence => Error::InitFailed {
            reason: match status {
                Ok(status) => format!("it exited ({status}) without a report"),
                Err(e) => format!("it vanished without a report ({e})"),
            },
        },
    }
}
