//! envd's side of `sudo`: accepts clients on a unix socket, checks and runs their
//! requests as the target user with the client's own stdin, stdout and stderr, relays
//! their signals, and kills the command's process group when the client goes away.

use std::collections::BTreeMap;
use std::io;
use std::mem::MaybeUninit;
use std::os::fd::{AsFd as _, OwnedFd};
use std::os::unix::process::ExitStatusExt as _;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::Arc;
use std::time::Duration;

use rustix::net::{RecvAncillaryBuffer, RecvAncillaryMessage, RecvFlags, ReturnFlags};
use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _, Interest};
use tokio::net::{UnixListener, UnixStream};
use tokio::sync::Semaphore;

use super::{
    ClientFrame, MAX_FRAME_BYTES, MAX_REQUEST_BYTES, Mode, RELAYED_SIGNALS, Reply, Request,
    SECURE_PATH,
};
use crate::process::spawn::{Credentials, signal_group};
use crate::state::Envd;
use crate::users::User;

/// sudo sessions running at once; a client beyond that is told so and refused.
pub const MAX_SESSIONS: usize = 64;

/// A client has this long to send its whole request after connecting.
pub const REQUEST_TIMEOUT: Duration = Duration::from_secs(10);

/// After SIGKILL of a command whose client went away, how long to wait for it to be
/// reaped before leaving it to the reaper of the sandbox's init.
const KILL_WAIT: Duration = Duration::from_secs(5);

/// The caller's variables a reset environment keeps (sudo's default `env_keep`, trimmed
/// to what matters for a terminal and a locale).
const KEPT_VARIABLES: &[&str] =
    &["TERM", "COLORTERM", "COLORS", "LS_COLORS", "DISPLAY", "LANG", "LANGUAGE", "TZ"];

/// Makes the socket's directory (0755: only root inside may create in it) and binds
/// `path` there with mode 0666 (every user of the sandbox may ask, as E2B's passwordless
/// sudo lets `user` do anything). A stale socket from an earlier envd is replaced.
pub fn bind(path: &Path) -> io::Result<UnixListener> {
    use std::os::unix::fs::{DirBuilderExt as _, FileTypeExt as _, PermissionsExt as _};
    if let Some(dir) = path.parent() {
        std::fs::DirBuilder::new().recursive(true).mode(0o755).create(dir)?;
    }
    if std::fs::symlink_metadata(path).is_ok_and(|meta| meta.file_type().is_socket()) {
        std::fs::remove_file(path)?;
    }
    let listener = UnixListener::bind(path)?;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o666))?;
    Ok(listener)
}

/// Serves clients until the listener fails (it does not, short of envd's end).
pub async fn serve(listener: UnixListener, envd: Arc<Envd>) {
    let sessions = Arc::new(Semaphore::new(MAX_SESSIONS));
    loop {
        let stream = match listener.accept().await {
            Ok((stream, _)) => stream,
            Err(err) => {
                // EMFILE and the like pass; back off instead of spinning on them.
                tracing::warn!(%err, "sudo: accept failed");
                tokio::time::sleep(Duration::from_millis(100)).await;
                continue;
            }
        };
        let permit = Arc::clone(&sessions).try_acquire_owned();
        let envd = Arc::clone(&envd);
        tokio::spawn(async move {
            let mut stream = stream;
            let Ok(_permit) = permit else {
                let message =
                    format!("sudo: too many sudo sessions at once (at most {MAX_SESSIONS})");
                send_reply(&mut stream, &Reply::Error { message }).await;
                return;
            };
            session(stream, &envd).await;
        });
    }
}

/// Who is asking, from `SO_PEERCRED`.
#[derive(Debug, Clone)]
struct Caller {
    uid: u32,
    gid: u32,
    name: String,
}

async fn session(mut stream: UnixStream, envd: &Arc<Envd>) {
    let reply = match run(&mut stream, envd).await {
        Ok(reply) => reply,
        Err(message) => Reply::Error { message: format!("sudo: {message}") },
    };
    send_reply(&mut stream, &reply).await;
}

async fn send_reply(stream: &mut UnixStream, reply: &Reply) {
    // A client that left cannot be told; its command was already dealt with.
    let _ = tokio::time::timeout(REQUEST_TIMEOUT, stream.write_all(&super::encode(reply))).await;
}

async fn run(stream: &mut UnixStream, envd: &Arc<Envd>) -> Result<Reply, String> {
    let credentials = stream.peer_cred().map_err(|e| format!("cannot identify the caller: {e}"))?;
    // A peer outside the sandbox's pid namespace shows pid 0; nothing there has any
    // business here.
    if credentials.pid().is_none_or(|pid| pid <= 0) {
        return Err("the caller is not a process of this sandbox".into());
    }
    let caller = Caller {
        uid: credentials.uid(),
        gid: credentials.gid(),
        name: envd.users.user_name(credentials.uid()),
    };
    let (request, fds) = tokio::time::timeout(REQUEST_TIMEOUT, read_request(stream))
        .await
        .map_err(|_| format!("no complete request within {}s", REQUEST_TIMEOUT.as_secs()))??;
    let [stdin, stdout, stderr] = <[OwnedFd; 3]>::try_from(fds).map_err(|fds| {
        format!(
            "expected stdin, stdout and stderr (3 descriptors) with the request, got {}",
            fds.len()
        )
    })?;
    let user_name = request.user.as_deref().unwrap_or("root");
    let target = envd.users.lookup(user_name).ok_or_else(|| format!("unknown user {user_name}"))?;
    let launch = plan(&request, &target, &caller)?;
    // The program only: arguments may hold secrets, and this log is on the host.
    tracing::info!(caller = %caller.name, uid = caller.uid, target = %target.name, program = %launch.shown, "sudo");

    let credentials = Credentials::for_user(&target).map_err(|e| e.message)?;
    let mut command = tokio::process::Command::new(&launch.program);
    if let Some(arg0) = &launch.arg0 {
        command.arg0(arg0);
    }
    command
        .args(&launch.args)
        .env_clear()
        .envs(&launch.env)
        .current_dir(&launch.cwd)
        .stdin(Stdio::from(stdin))
        .stdout(Stdio::from(stdout))
        .stderr(Stdio::from(stderr));
    let pre_exec = credentials.pre_exec(true);
    // SAFETY: the closure only calls async-signal-safe functions (setsid, setgroups,
    // setgid, setuid) on data allocated before the fork.
    unsafe { command.pre_exec(pre_exec) };
    let spawned = command.spawn();
    // The client's descriptors now live only in the command: its pipes see EOF when it
    // (and what it started) close them, not when envd does.
    drop(command);
    let mut child = spawned.map_err(|err| match err.kind() {
        io::ErrorKind::NotFound => format!("{}: command not found", launch.shown),
        _ => format!("cannot run {}: {err}", launch.shown),
    })?;
    // Leader of its own session (setsid above), so its id is its group's.
    let group = child.id().unwrap_or_default();

    let mut header = [0u8; 4];
    loop {
        tokio::select! {
            status = child.wait() => {
                let status = status.map_err(|e| format!("waiting for the command: {e}"))?;
                return Ok(match (status.code(), status.signal()) {
                    (Some(code), _) => Reply::Exit { code },
                    (None, Some(signal)) => Reply::Signal { signal },
                    (None, None) => Reply::Exit { code: 1 },
                });
            }
            frame = read_frame(stream, &mut header) => match frame {
                Ok(ClientFrame::Signal { signal }) => {
                    if RELAYED_SIGNALS.contains(&signal) {
                        signal_group(group, signal);
                    }
                }
                Err(_) => {
                    // The client is gone (killed, or it hung up) or spoke nonsense: the
                    // command must not outlive it.
                    signal_group(group, libc::SIGKILL);
                    let _ = tokio::time::timeout(KILL_WAIT, child.wait()).await;
                    return Err("the client went away".into());
                }
            },
        }
    }
}

/// One later frame from the client. Cancel-safe only between frames, which is enough:
/// the select above drops a partial read only when the command has ended.
async fn read_frame(stream: &mut UnixStream, header: &mut [u8; 4]) -> io::Result<ClientFrame> {
    stream.read_exact(header).await?;
    let len = u32::from_be_bytes(*header) as usize;
    if len > MAX_FRAME_BYTES {
        return Err(io::Error::new(io::ErrorKind::InvalidData, "frame too large"));
    }
    let mut body = vec![0u8; len];
    stream.read_exact(&mut body).await?;
    serde_json::from_slice(&body).map_err(|e| io::Error::new(io::ErrorKind::InvalidData, e))
}

/// The request and the descriptors that came with its first bytes. Descriptors arriving
/// later are not collected (plain reads: the kernel closes them).
async fn read_request(stream: &mut UnixStream) -> Result<(Request, Vec<OwnedFd>), String> {
    let mut header = [0u8; 4];
    let mut filled = 0;
    let mut fds = Vec::new();
    while filled < header.len() {
        let (n, more) = stream
            .async_io(Interest::READABLE, || receive(stream, &mut header[filled..]))
            .await
            .map_err(|e| format!("reading the request: {e}"))?;
        if n == 0 {
            return Err("the request ended early".into());
        }
        filled += n;
        fds.extend(more.map_err(|e| format!("reading the request: {e}"))?);
    }
    let len = u32::from_be_bytes(header) as usize;
    if len > MAX_REQUEST_BYTES {
        return Err(format!(
            "the request is too large ({len} bytes; at most {MAX_REQUEST_BYTES}): fewer \
             arguments or variables, please"
        ));
    }
    let mut body = vec![0u8; len];
    stream.read_exact(&mut body).await.map_err(|_| "the request ended early".to_owned())?;
    let request = serde_json::from_slice(&body).map_err(|e| format!("malformed request: {e}"))?;
    Ok((request, fds))
}

/// Up to 8 descriptors per read: the client sends 3; more, or a truncated control
/// message, is an error (the extra descriptors are closed either way).
fn receive(
    stream: &UnixStream,
    buffer: &mut [u8],
) -> io::Result<(usize, Result<Vec<OwnedFd>, String>)> {
    let mut space = [MaybeUninit::<u8>::uninit(); rustix::cmsg_space!(ScmRights(8))];
    let mut control = RecvAncillaryBuffer::new(&mut space);
    let received = rustix::net::recvmsg(
        stream.as_fd(),
        &mut [io::IoSliceMut::new(buffer)],
        &mut control,
        RecvFlags::CMSG_CLOEXEC | RecvFlags::DONTWAIT,
    )?;
    let mut fds = Vec::new();
    for message in control.drain() {
        if let RecvAncillaryMessage::ScmRights(received) = message {
            fds.extend(received);
        }
    }
    let fds = if received.flags.contains(ReturnFlags::CTRUNC) {
        Err("too many descriptors with the request (3 expected)".to_owned())
    } else {
        Ok(fds)
    };
    Ok((received.bytes, fds))
}

/// What to execute for a request: program, argv[0], arguments, environment, directory.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Launch {
    pub program: String,
    pub arg0: Option<String>,
    pub args: Vec<String>,
    pub env: BTreeMap<String, String>,
    pub cwd: PathBuf,
    /// How the command is named in messages.
    pub shown: String,
}

fn plan(request: &Request, target: &User, caller: &Caller) -> Result<Launch, String> {
    if request
        .argv
        .iter()
        .chain(request.env.keys())
        .chain(request.env.values())
        .any(|s| s.contains('\0'))
    {
        return Err("malformed request: a NUL byte in an argument or variable".into());
    }
    if request.env.keys().any(|key| key.is_empty() || key.contains('=')) {
        return Err("malformed request: a variable name that is empty or holds '='".into());
    }
    let home = target.home.to_string_lossy().into_owned();
    let shell = if target.shell.is_empty() { "/bin/sh".to_owned() } else { target.shell.clone() };
    let mut env = BTreeMap::new();
    if request.preserve_env {
        env.extend(request.env.iter().map(|(k, v)| (k.clone(), v.clone())));
    } else {
        for (key, value) in &request.env {
            let kept = KEPT_VARIABLES.contains(&key.as_str())
                || key.starts_with("LC_")
                || request.keep.contains(key);
            if kept {
                env.insert(key.clone(), value.clone());
            }
        }
    }
    // A reset environment gets sudo's secure_path (unless `--preserve-env=PATH` kept the
    // caller's); `-E` keeps the caller's PATH, which is what an agent's `sudo -E pip`
    // in a virtualenv means (Debian's sudo would not, but here it gives no extra power).
    env.entry("PATH".to_owned()).or_insert_with(|| SECURE_PATH.to_owned());
    if !request.preserve_env || request.set_home || request.mode == Mode::Login {
        env.insert("HOME".into(), home.clone());
        env.insert("SHELL".into(), shell.clone());
    }
    env.insert("USER".into(), target.name.clone());
    env.insert("LOGNAME".into(), target.name.clone());
    env.insert("SUDO_USER".into(), caller.name.clone());
    env.insert("SUDO_UID".into(), caller.uid.to_string());
    env.insert("SUDO_GID".into(), caller.gid.to_string());
    env.insert("SUDO_COMMAND".into(), request.argv.join(" "));

    let cwd = match (&request.cwd, request.mode) {
        (_, Mode::Login) => target.home.clone(),
        (Some(cwd), _) if Path::new(cwd).is_absolute() && Path::new(cwd).is_dir() => {
            PathBuf::from(cwd)
        }
        // sudo would refuse; a missing or relative directory falls back to the home.
        _ => target.home.clone(),
    };
    let cwd = if cwd.is_dir() { cwd } else { PathBuf::from("/") };

    let launch = |program: String, arg0: Option<String>, args: Vec<String>, shown: String| Launch {
        program,
        arg0,
        args,
        env: env.clone(),
        cwd: cwd.clone(),
        shown,
    };
    let command_line =
        || request.argv.iter().map(|arg| escape_for_shell(arg)).collect::<Vec<_>>().join(" ");
    Ok(match request.mode {
        Mode::Command => {
            let Some((program, args)) = request.argv.split_first() else {
                return Err("no command given".into());
            };
            if program.is_empty() {
                return Err("an empty command name".into());
            }
            launch(program.clone(), None, args.to_vec(), program.clone())
        }
        Mode::Shell => {
            // sudo -s runs $SHELL (the caller's), else the target's shell.
            let shell = match request.env.get("SHELL") {
                Some(own) if Path::new(own).is_absolute() => own.clone(),
                _ => shell,
            };
            let args = if request.argv.is_empty() {
                Vec::new()
            } else {
                vec!["-c".into(), command_line()]
            };
            launch(shell.clone(), None, args, shell)
        }
        Mode::Login => {
            let name = Path::new(&shell)
                .file_name()
                .map(|name| name.to_string_lossy().into_owned())
                .unwrap_or_else(|| "sh".into());
            let args = if request.argv.is_empty() {
                Vec::new()
            } else {
                vec!["-c".into(), command_line()]
            };
            launch(shell.clone(), Some(format!("-{name}")), args, shell)
        }
    })
}

/// sudo's escaping of a command for `-s`/`-i`: every character but letters, digits, `_`,
/// `-` and `$` gets a backslash, so words stay words and variables still expand.
fn escape_for_shell(arg: &str) -> String {
    let mut escaped = String::with_capacity(arg.len() * 2);
    for c in arg.chars() {
        if !(c.is_ascii_alphanumeric() || c == '_' || c == '-' || c == '$') {
            escaped.push('\\');
        }
        escaped.push(c);
    }
    escaped
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn root() -> User {
        User {
            name: "root".into(),
            uid: 0,
            gid: 0,
            home: "/".into(),
            shell: "/bin/sh".into(),
            groups: vec![0],
        }
    }

    fn caller() -> Caller {
        Caller { uid: 1000, gid: 1000, name: "user".into() }
    }

    fn request(argv: &[&str]) -> Request {
        Request {
            argv: argv.iter().map(|s| s.to_string()).collect(),
            env: [("FOO", "bar"), ("PATH", "/mine"), ("TERM", "xterm"), ("HOME", "/home/user")]
                .into_iter()
                .map(|(k, v)| (k.to_owned(), v.to_owned()))
                .collect(),
            cwd: Some("/".into()),
            ..Request::default()
        }
    }

    #[test]
    fn a_reset_environment_keeps_only_the_terminal_and_says_who_asked() {
        let launch = plan(&request(&["id", "-u"]), &root(), &caller()).unwrap();
        assert_eq!(
            (launch.program.as_str(), launch.args.as_slice()),
            ("id", &["-u".to_owned()][..])
        );
        let env: Vec<String> = launch.env.iter().map(|(k, v)| format!("{k}={v}")).collect();
        assert_eq!(
            env,
            [
                "HOME=/",
                "LOGNAME=root",
                &format!("PATH={SECURE_PATH}"),
                "SHELL=/bin/sh",
                "SUDO_COMMAND=id -u",
                "SUDO_GID=1000",
                "SUDO_UID=1000",
                "SUDO_USER=user",
                "TERM=xterm",
                "USER=root",
            ]
        );
    }

    #[test]
    fn preserve_env_keeps_the_callers_variables() {
        let mut preserved = request(&["env"]);
        preserved.preserve_env = true;
        let launch = plan(&preserved, &root(), &caller()).unwrap();
        assert_eq!(launch.env["FOO"], "bar");
        assert_eq!(launch.env["PATH"], "/mine");
        assert_eq!(launch.env["HOME"], "/home/user");
        assert_eq!(launch.env["USER"], "root");
        let mut listed = request(&["env"]);
        listed.keep = vec!["FOO".into()];
        let launch = plan(&listed, &root(), &caller()).unwrap();
        assert_eq!(launch.env["FOO"], "bar");
        assert_eq!(launch.env["PATH"], SECURE_PATH);
    }

    #[test]
    fn shells_get_an_escaped_command_line() {
        let mut login = request(&["echo", "a b", "$HOME"]);
        login.mode = Mode::Login;
        let launch = plan(&login, &root(), &caller()).unwrap();
        assert_eq!(launch.program, "/bin/sh");
        assert_eq!(launch.arg0.as_deref(), Some("-sh"));
        assert_eq!(launch.args, ["-c", "echo a\\ b $HOME"]);
        assert_eq!(launch.cwd, PathBuf::from("/"));
        let mut shell = request(&[]);
        shell.mode = Mode::Shell;
        let launch = plan(&shell, &root(), &caller()).unwrap();
        assert_eq!((launch.program.as_str(), launch.args.len()), ("/bin/sh", 0));
    }

    #[test]
    fn malformed_requests_are_refused() {
        assert_eq!(plan(&request(&[]), &root(), &caller()).unwrap_err(), "no command given");
        assert!(plan(&request(&["a\0b"]), &root(), &caller()).unwrap_err().contains("NUL"));
        let mut bad = request(&["id"]);
        bad.env.insert("A=B".into(), "c".into());
        assert!(plan(&bad, &root(), &caller()).unwrap_err().contains("'='"));
    }
}
