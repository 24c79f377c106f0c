//! Starting a process as a sandbox user, in its own session (so its whole tree can be
//! signalled as one group), and pumping its output into the fanout.

use std::collections::BTreeMap;
use std::io;
use std::os::fd::AsFd as _;
use std::os::unix::process::ExitStatusExt as _;
use std::path::PathBuf;
use std::process::{ExitStatus, Stdio};
use std::sync::Arc;

use bytes::Bytes;
use dsh_proto::connect::ConnectError;
use dsh_proto::process::{ProcessConfig, ProcessEvent, process_event};
use futures_util::FutureExt as _;
use tokio::io::{AsyncRead, AsyncReadExt as _};

use super::{Input, ManagedProcess, Subscription};
use crate::state::Envd;
use crate::users::User;

const PIPE_CHUNK: usize = 32 * 1024;
const PTY_CHUNK: usize = 16 * 1024;

pub struct SpawnSpec {
    pub config: ProcessConfig,
    pub tag: Option<String>,
    /// `(cols, rows)` for a PTY process.
    pub pty: Option<(u16, u16)>,
    pub stdin_open: bool,
    pub user: User,
    pub cwd: PathBuf,
    pub env: BTreeMap<String, String>,
}

#[derive(Clone, Copy)]
enum Stream {
    Stdout,
    Stderr,
    Pty,
}

/// Spawns the process and returns it with a subscription taken before any output
/// could be produced, so the caller misses nothing.
pub fn spawn(
    envd: &Arc<Envd>,
    spec: SpawnSpec,
) -> Result<(Arc<ManagedProcess>, Subscription), ConnectError> {
    envd.processes.check_room(spec.pty.is_some(), &envd.config.caps)?;
    let credentials = Credentials::for_user(&spec.user)?;
    let program = spec.config.cmd.clone();
    let args = spec.config.args.clone();
    if envd.config.strict.is_some() && spec.pty.is_none() {
        // As E2B's envd: no new session or group, the command under its `/bin/sh` wrapper.
        let wrapped = crate::strict::command_line(&program, &args);
        return spawn_as(envd, &spec, &credentials, "/bin/sh", &wrapped, false)
            .map_err(SpawnFailure::into_error);
    }
    match spawn_program(envd, &spec, &credentials, &program, &args) {
        Err(SpawnFailure::ProgramMissing(_)) => {
            // E2B execs through `/bin/sh`, so a missing program is an exit status
            // (127 with sh's message), not an RPC error. Only this rare path pays for
            // the shell.
            let mut wrapped =
                vec!["-c".to_owned(), "exec \"$@\"".to_owned(), "sh".to_owned(), program];
            wrapped.extend(args);
            spawn_program(envd, &spec, &credentials, "/bin/sh", &wrapped)
                .map_err(SpawnFailure::into_error)
        }
        other => other.map_err(SpawnFailure::into_error),
    }
}

enum SpawnFailure {
    ProgramMissing(io::Error),
    Other(ConnectError),
}

impl SpawnFailure {
    fn into_error(self) -> ConnectError {
        match self {
            SpawnFailure::ProgramMissing(err) => {
                ConnectError::invalid_argument(format!("error starting process: {err}"))
            }
            SpawnFailure::Other(err) => err,
        }
    }

    fn from_io(err: io::Error) -> Self {
        match err.kind() {
            io::ErrorKind::NotFound | io::ErrorKind::PermissionDenied => {
                SpawnFailure::ProgramMissing(err)
            }
            _ => SpawnFailure::Other(ConnectError::invalid_argument(format!(
                "error starting process: {err}"
            ))),
        }
    }
}

fn spawn_program(
    envd: &Arc<Envd>,
    spec: &SpawnSpec,
    credentials: &Credentials,
    program: &str,
    args: &[String],
) -> Result<(Arc<ManagedProcess>, Subscription), SpawnFailure> {
    spawn_as(envd, spec, credentials, program, args, true)
}

/// `program` with `args`, only `spec`'s environment, in `spec`'s directory.
fn command_for(program: &str, args: &[String], spec: &SpawnSpec) -> tokio::process::Command {
    let mut command = tokio::process::Command::new(program);
    command.args(args).env_clear().envs(&spec.env).current_dir(&spec.cwd);
    command
}

/// Spawns `program`; a pipe process leads a new session when `new_session` (a PTY one
/// always does: the terminal needs one).
fn spawn_as(
    envd: &Arc<Envd>,
    spec: &SpawnSpec,
    credentials: &Credentials,
    program: &str,
    args: &[String],
    new_session: bool,
) -> Result<(Arc<ManagedProcess>, Subscription), SpawnFailure> {
    let (process, child, readers) = match spec.pty {
        None => {
            let mut command = command_for(program, args, spec);
            command
                .stdin(if spec.stdin_open { Stdio::piped() } else { Stdio::null() })
                .stdout(Stdio::piped())
                .stderr(Stdio::piped());
            let pre_exec = credentials.pre_exec(new_session);
            // SAFETY: the closure only calls async-signal-safe functions (setsid,
            // setgroups, setgid, setuid) on data allocated before the fork.
            unsafe { command.pre_exec(pre_exec) };
            let mut child = command.spawn().map_err(SpawnFailure::from_io)?;
            let stdin = child.stdin.take();
            let stdout = child.stdout.take();
            let stderr = child.stderr.take();
            let process = Arc::new(ManagedProcess::new(
                child.id().unwrap_or_default(),
                spec,
                Input::Pipe(tokio::sync::Mutex::new(stdin)),
                None,
            ));
            let mut readers = Vec::new();
            if let Some(stdout) = stdout {
                readers.push(pump(stdout, Stream::Stdout, Arc::clone(&process)).boxed());
            }
            if let Some(stderr) = stderr {
                readers.push(pump(stderr, Stream::Stderr, Arc::clone(&process)).boxed());
            }
            (process, child, readers)
        }
        Some((cols, rows)) => {
            let pty_error = |err: pty_process::Error| {
                SpawnFailure::Other(ConnectError::invalid_argument(format!(
                    "error starting pty: {err}"
                )))
            };
            let (pty, pts) = pty_process::open().map_err(pty_error)?;
            pty.resize(pty_process::Size::new(rows, cols)).map_err(pty_error)?;
            let control = rustix::io::fcntl_dupfd_cloexec(pty.as_fd(), 0).map_err(|err| {
                SpawnFailure::Other(ConnectError::internal(format!("error duplicating pty: {err}")))
            })?;
            // Spawned here rather than by pty-process, whose child checks that setsid(2)
            // returned a positive id: gVisor's returns 0 (its session leader then
            // aborts before exec), and nothing here needs the id.
            let stdio = |pts: &pty_process::Pts| {
                pts.as_fd().try_clone_to_owned().map(Stdio::from).map_err(SpawnFailure::from_io)
            };
            let mut command = command_for(program, args, spec);
            command.stdin(stdio(&pts)?).stdout(stdio(&pts)?).stderr(stdio(&pts)?);
            let mut switch = credentials.pre_exec(false);
            // SAFETY: as above: setsid, ioctl and the credential calls are
            // async-signal-safe. The terminal is the child's standard input by now: it
            // leads a new session whose controlling terminal it becomes.
            unsafe {
                command.pre_exec(move || {
                    if libc::setsid() < 0 || libc::ioctl(0, libc::TIOCSCTTY, 0) < 0 {
                        return Err(std::io::Error::last_os_error());
                    }
                    switch()
                })
            };
            let child = command.spawn().map_err(SpawnFailure::from_io)?;
            drop(pts);
            let (reader, writer) = pty.into_split();
            let process = Arc::new(ManagedProcess::new(
                child.id().unwrap_or_default(),
                spec,
                Input::Pty(tokio::sync::Mutex::new(writer)),
                Some(control),
            ));
            let readers = vec![pump(reader, Stream::Pty, Arc::clone(&process)).boxed()];
            (process, child, readers)
        }
    };
    // Subscribe before any reader runs: the starter sees every byte.
    let subscription = process.subscribe().map_err(|_| {
        SpawnFailure::Other(ConnectError::internal("process ended before it was registered"))
    })?;
    envd.processes.insert(Arc::clone(&process));
    let readers: Vec<_> = readers.into_iter().map(tokio::spawn).collect();
    let envd = Arc::clone(envd);
    let waited = Arc::clone(&process);
    let oom_kills_before = sandbox_memory().map(|memory| memory.oom_kills);
    let mut output_cut = process.output_cut.subscribe();
    tokio::spawn(async move {
        let mut child = child;
        let status = child.wait().await;
        let aborts: Vec<_> = readers.iter().map(|r| r.abort_handle()).collect();
        let drained = async {
            for reader in readers {
                let _ = reader.await;
            }
        };
        tokio::select! {
            () = drained => {}
            _ = output_cut.wait_for(|cut| *cut) => {
                for abort in aborts {
                    abort.abort();
                }
            }
        }
        let end = match status {
            Ok(status) => explain_oom_kill(end_event(status), status, oom_kills_before),
            Err(err) => process_event::EndEvent {
                exit_code: -1,
                exited: false,
                status: "unknown".into(),
                error: Some(format!("wait failed: {err}")),
            },
        };
        envd.processes.retire(waited.pid, end.clone());
        waited.finish(end).await;
    });
    Ok((process, subscription))
}

impl ManagedProcess {
    fn new(
        pid: u32,
        spec: &SpawnSpec,
        input: Input,
        pty_control: Option<std::os::fd::OwnedFd>,
    ) -> Self {
        Self {
            pid,
            config: spec.config.clone(),
            tag: spec.tag.clone(),
            input,
            pty_control,
            fanout: Default::default(),
            output_cut: tokio::sync::watch::Sender::new(false),
        }
    }
}

/// Forwards output until EOF. Like envd, the end waits for the pipes to close, so
/// output from background children that keep them open is delivered too.
async fn pump<R: AsyncRead + Unpin>(mut reader: R, stream: Stream, process: Arc<ManagedProcess>) {
    let mut buffer = vec![0u8; if matches!(stream, Stream::Pty) { PTY_CHUNK } else { PIPE_CHUNK }];
    loop {
        let n = match reader.read(&mut buffer).await {
            Ok(0) | Err(_) => break, // EOF, or EIO once the PTY's last slave closed
            Ok(n) => n,
        };
        let chunk = Bytes::copy_from_slice(&buffer[..n]);
        let output = match stream {
            Stream::Stdout => process_event::data_event::Output::Stdout(chunk),
            Stream::Stderr => process_event::data_event::Output::Stderr(chunk),
            Stream::Pty => process_event::data_event::Output::Pty(chunk),
        };
        let event = ProcessEvent {
            event: Some(process_event::Event::Data(process_event::DataEvent {
                output: Some(output),
            })),
        };
        process.publish(event).await;
    }
}

/// The memory state of the sandbox's cgroup, which dsh-sandboxd shows read-only at
/// `/sys/fs/cgroup` (v2: the cgroup itself; v1: its `memory` controller).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SandboxMemory {
    pub oom_kills: u64,
    pub limit_bytes: Option<u64>,
}

/// `None` outside a dsh sandbox (no cgroup shown at `/sys/fs/cgroup`).
pub fn sandbox_memory() -> Option<SandboxMemory> {
    let read = |path: &str| std::fs::read_to_string(path).ok();
    let (events, limit) = match read("/sys/fs/cgroup/memory.events") {
        Some(events) => (events, read("/sys/fs/cgroup/memory.max")),
        None => (
            read("/sys/fs/cgroup/memory/memory.oom_control")?,
            read("/sys/fs/cgroup/memory/memory.limit_in_bytes"),
        ),
    };
    let oom_kills = events
        .lines()
        .find_map(|line| line.strip_prefix("oom_kill "))
        .and_then(|count| count.trim().parse().ok())?;
    // "max" (v2) and v1's huge "unlimited" value both mean no limit.
    let limit_bytes =
        limit.and_then(|text| text.trim().parse::<u64>().ok()).filter(|&bytes| bytes < 1 << 60);
    Some(SandboxMemory { oom_kills, limit_bytes })
}

/// A process killed by SIGKILL (or a shell reporting a child's SIGKILL as 137) while the
/// sandbox's OOM killer struck was, in all likelihood, its victim: say so, with the
/// limit, instead of a bare "signal: killed". The status keeps E2B's wording; the reason
/// goes into `error`.
fn explain_oom_kill(
    mut end: process_event::EndEvent,
    status: ExitStatus,
    oom_kills_before: Option<u64>,
) -> process_event::EndEvent {
    if status.signal() != Some(libc::SIGKILL) && status.code() != Some(128 + libc::SIGKILL) {
        return end;
    }
    let (Some(before), Some(now)) = (oom_kills_before, sandbox_memory()) else { return end };
    if now.oom_kills > before {
        let limit = match now.limit_bytes {
            Some(bytes) => format!("its memory limit of {} MiB", bytes >> 20),
            None => "its memory".to_owned(),
        };
        end.error = Some(format!(
            "{} (out of memory: the sandbox used up {limit} and the kernel killed this process)",
            end.status
        ));
    }
    end
}

/// E2B's end event, with Go's `ProcessState.String()` wording.
pub fn end_event(status: ExitStatus) -> process_event::EndEvent {
    if let Some(code) = status.code() {
        let text = format!("exit status {code}");
        return process_event::EndEvent {
            exit_code: code,
            exited: true,
            status: text.clone(),
            error: (code != 0).then_some(text),
        };
    }
    let signal = status.signal().unwrap_or_default();
    let mut text = format!("signal: {}", signal_name(signal));
    if status.core_dumped() {
        text.push_str(" (core dumped)");
    }
    process_event::EndEvent {
        exit_code: -1,
        exited: false,
        status: text.clone(),
        error: Some(text),
    }
}

/// Go's names for signals, as they appear in `signal: <name>`.
fn signal_name(signal: i32) -> String {
    match signal {
        libc::SIGHUP => "hangup".into(),
        libc::SIGINT => "interrupt".into(),
        libc::SIGQUIT => "quit".into(),
        libc::SIGILL => "illegal instruction".into(),
        libc::SIGTRAP => "trace/breakpoint trap".into(),
        libc::SIGABRT => "aborted".into(),
        libc::SIGBUS => "bus error".into(),
        libc::SIGFPE => "floating point exception".into(),
        libc::SIGKILL => "killed".into(),
        libc::SIGUSR1 => "user defined signal 1".into(),
        libc::SIGSEGV => "segmentation fault".into(),
        libc::SIGUSR2 => "user defined signal 2".into(),
        libc::SIGPIPE => "broken pipe".into(),
        libc::SIGALRM => "alarm clock".into(),
        libc::SIGTERM => "terminated".into(),
        other => format!("signal {other}"),
    }
}

/// Sends `signal` to the process group led by `pgid` (every process envd starts leads
/// its own session, so this reaches the whole tree that stayed in it).
pub fn signal_group(pgid: u32, signal: i32) -> bool {
    // SAFETY: kill(2) with a negative pid signals a group; no memory is touched.
    pgid > 0 && unsafe { libc::kill(-(pgid as libc::pid_t), signal) } == 0
}

pub fn signal_process(pid: u32, signal: i32) -> io::Result<()> {
    // SAFETY: kill(2) takes plain integers.
    if unsafe { libc::kill(pid as libc::pid_t, signal) } == 0 {
        Ok(())
    } else {
        Err(io::Error::last_os_error())
    }
}

/// The uid/gid/groups a process runs with, prepared before fork (also used by `sudo`).
pub(crate) struct Credentials {
    uid: u32,
    gid: u32,
    groups: Vec<libc::gid_t>,
    switch: bool,
}

impl Credentials {
    pub(crate) fn for_user(user: &User) -> Result<Self, ConnectError> {
        let euid = rustix::process::geteuid().as_raw();
        let switch = euid == 0;
        if !switch && euid != user.uid {
            return Err(ConnectError::new(
                dsh_proto::connect::Code::PermissionDenied,
                format!(
                    "envd is not running as root, so it cannot run processes as '{}'",
                    user.name
                ),
            ));
        }
        Ok(Self { uid: user.uid, gid: user.gid, groups: user.groups.clone(), switch })
    }

    pub(crate) fn pre_exec(
        &self,
        new_session: bool,
    ) -> impl FnMut() -> io::Result<()> + Send + Sync + 'static {
        let (uid, gid, groups, switch) = (self.uid, self.gid, self.groups.clone(), self.switch);
        move || {
            // SAFETY: called in the forked child before exec; each call is
            // async-signal-safe and reads only memory owned by this closure.
            unsafe {
                if new_session && libc::setsid() < 0 {
                    return Err(io::Error::last_os_error());
                }
                if switch
                    && (libc::setgroups(groups.len(), groups.as_ptr()) < 0
                        || libc::setgid(gid) < 0
                        || libc::setuid(uid) < 0)
                {
                    return Err(io::Error::last_os_error());
                }
            }
            Ok(())
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn end_events_use_go_wording() {
        let ok = end_event(ExitStatus::from_raw(0));
        assert_eq!(
            (ok.exit_code, ok.exited, ok.status.as_str(), ok.error),
            (0, true, "exit status 0", None)
        );
        let failed = end_event(ExitStatus::from_raw(3 << 8));
        assert_eq!(failed.exit_code, 3);
        assert_eq!(failed.error.as_deref(), Some("exit status 3"));
        let killed = end_event(ExitStatus::from_raw(libc::SIGKILL));
        assert_eq!(
            (killed.exit_code, killed.exited, killed.status.as_str()),
            (-1, false, "signal: killed")
        );
        assert_eq!(killed.error.as_deref(), Some("signal: killed"));
        let dumped = end_event(ExitStatus::from_raw(libc::SIGSEGV | 0x80));
        assert_eq!(dumped.status, "signal: segmentation fault (core dumped)");
    }
}
