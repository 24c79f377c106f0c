//! The `sudo` program of a sandbox: parses sudo's common options, hands its stdin,
//! stdout and stderr and the request to envd's privilege service, relays signals, and
//! ends with the command's status (re-raising the signal that killed it, as sudo does).

use std::ffi::OsString;
use std::os::fd::{AsFd as _, BorrowedFd, OwnedFd};
use std::time::Duration;

use rustix::net::{SendAncillaryBuffer, SendAncillaryMessage, SendFlags};
use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _, Interest};
use tokio::net::UnixStream;

use super::{
    ClientFrame, DEFAULT_SOCKET, MAX_FRAME_BYTES, MAX_REQUEST_BYTES, Mode, RELAYED_SIGNALS, Reply,
    Request, SOCKET_ENV,
};

/// Connecting and handing over the request must not take longer than this (the service
/// answers at once; a full backlog or a stuck envd must not hang the caller forever).
const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);

const USAGE: &str = "usage: sudo [-EHnS] [-u user] [--preserve-env=list] [--] command [arg ...]
       sudo [-EHnS] [-u user] -i|-s [command [arg ...]]
       sudo -v | -k | -K | -l | -h | -V";

const HELP: &str = "sudo - execute a command as another user (in this dsh sandbox, through \
dsh-envd's privilege service: every user may, without a password)

options:
  -E, --preserve-env          keep the caller's environment
      --preserve-env=list     keep these variables of the caller's
  -H, --set-home              HOME is the target user's (the default)
  -h, --help                  this help
  -i, --login                 the target user's login shell in its home (-c command, if given)
  -K, -k                      no-ops (there is no password to remember)
  -l, --list                  what the caller may run (everything)
  -n, --non-interactive       no-op (sudo never prompts here)
  -S, --stdin                 no-op (there is no password to read)
  -s, --shell                 a shell ($SHELL, else the target's; -c command, if given)
  -u, --user=user             run as this user (default root)
  -V, --version               the version
  -v, --validate              no-op
  --                          end of options";

/// What the command line asks for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Action {
    Run(Request),
    Help,
    Version,
    List,
    /// `-v`, `-k`, `-K` without a command.
    Nothing,
}

/// Runs the client with sudo's arguments (without the program name); returns the exit
/// status, or does not return when the command was killed by a signal (that signal is
/// raised on the client too).
pub fn main(args: &[OsString]) -> i32 {
    let mut words = Vec::with_capacity(args.len());
    for arg in args {
        match arg.to_str() {
            Some(word) => words.push(word.to_owned()),
            None => return fail("sudo: arguments must be valid UTF-8"),
        }
    }
    let mut request = match parse(&words) {
        Ok(Action::Run(request)) => request,
        Ok(Action::Help) => {
            println!("{HELP}\n\n{USAGE}");
            return 0;
        }
        Ok(Action::Version) => {
            println!("sudo for dsh sandboxes (dsh-envd {})", env!("CARGO_PKG_VERSION"));
            return 0;
        }
        Ok(Action::List) => {
            let users = crate::users::UserDb::system();
            let name = users.user_name(rustix::process::getuid().as_raw());
            let host = rustix::system::uname().nodename().to_string_lossy().into_owned();
            println!(
                "User {name} may run the following commands on {host}:\n    (ALL : ALL) NOPASSWD: ALL"
            );
            return 0;
        }
        Ok(Action::Nothing) => return 0,
        Err(message) => return fail(&message),
    };
    // Variables that are not UTF-8 cannot travel in JSON; they are simply not passed.
    request.env = std::env::vars_os()
        .filter_map(|(key, value)| Some((key.into_string().ok()?, value.into_string().ok()?)))
        .collect();
    request.cwd =
        std::env::current_dir().ok().and_then(|cwd| cwd.into_os_string().into_string().ok());
    let socket = std::env::var_os(SOCKET_ENV).unwrap_or_else(|| DEFAULT_SOCKET.into());
    let runtime = match tokio::runtime::Builder::new_current_thread().enable_all().build() {
        Ok(runtime) => runtime,
        Err(err) => return fail(&format!("sudo: cannot start: {err}")),
    };
    let reply = runtime.block_on(run(&socket, &request));
    drop(runtime);
    match reply {
        Ok(Reply::Exit { code }) => code,
        Ok(Reply::Signal { signal }) => {
            // As sudo does: die of the same signal, so the caller's shell sees it.
            // SAFETY: resetting a disposition and raising a signal touch no memory.
            unsafe {
                libc::signal(signal, libc::SIG_DFL);
                libc::raise(signal);
            }
            128 + signal
        }
        Ok(Reply::Error { message }) => fail(&message),
        Err(message) => fail(&message),
    }
}

fn fail(message: &str) -> i32 {
    eprintln!("{message}");
    1
}

/// sudo's options, up to the command (sudo stops at the first word that is not one).
pub fn parse(args: &[String]) -> Result<Action, String> {
    let mut request = Request::default();
    let (mut login, mut shell, mut list, mut nothing) = (false, false, false, false);
    let mut index = 0;
    let usage = |message: String| format!("{message}\n{USAGE}");
    while let Some(arg) = args.get(index) {
        if arg == "--" {
            index += 1;
            break;
        }
        if !arg.starts_with('-') || arg == "-" {
            break;
        }
        index += 1;
        if let Some(long) = arg.strip_prefix("--") {
            let (name, value) = match long.split_once('=') {
                Some((name, value)) => (name, Some(value.to_owned())),
                None => (long, None),
            };
            let mut take_value = |what: &str| match value.clone() {
                Some(value) => Ok(value),
                None => {
                    let next = args.get(index).cloned();
                    index += 1;
                    next.ok_or_else(|| {
                        usage(format!("sudo: option '--{what}' requires an argument"))
                    })
                }
            };
            match name {
                "user" => request.user = Some(take_value("user")?),
                "login" => login = true,
                "shell" => shell = true,
                "preserve-env" => match value {
                    Some(list) => request
                        .keep
                        .extend(list.split(',').filter(|name| !name.is_empty()).map(str::to_owned)),
                    None => request.preserve_env = true,
                },
                "set-home" => request.set_home = true,
                "non-interactive" | "stdin" => {}
                "prompt" => drop(take_value("prompt")?),
                "validate" | "reset-timestamp" | "remove-timestamp" => nothing = true,
                "list" => list = true,
                "help" => return Ok(Action::Help),
                "version" => return Ok(Action::Version),
                _ => return Err(usage(format!("sudo: unrecognized option '--{name}'"))),
            }
            continue;
        }
        let flags: Vec<char> = arg[1..].chars().collect();
        let mut at = 0;
        while let Some(&flag) = flags.get(at) {
            at += 1;
            match flag {
                'u' | 'p' => {
                    let rest: String = flags[at..].iter().collect();
                    at = flags.len();
                    let value = if rest.is_empty() {
                        let next = args.get(index).cloned();
                        index += 1;
                        next.ok_or_else(|| {
                            usage(format!("sudo: option requires an argument -- '{flag}'"))
                        })?
                    } else {
                        rest
                    };
                    if flag == 'u' {
                        request.user = Some(value);
                    }
                }
                'E' => request.preserve_env = true,
                'H' => request.set_home = true,
                'i' => login = true,
                's' => shell = true,
                'n' | 'S' => {}
                'v' | 'k' | 'K' => nothing = true,
                'l' => list = true,
                'h' => return Ok(Action::Help),
                'V' => return Ok(Action::Version),
                other => return Err(usage(format!("sudo: invalid option -- '{other}'"))),
            }
        }
    }
    if login && shell {
        return Err(usage("sudo: you may not specify both the -i and -s options".into()));
    }
    request.argv = args[index.min(args.len())..].to_vec();
    request.mode = match (login, shell) {
        (true, _) => Mode::Login,
        (_, true) => Mode::Shell,
        _ => Mode::Command,
    };
    if list {
        return Ok(Action::List);
    }
    if request.mode == Mode::Command && request.argv.is_empty() {
        return if nothing { Ok(Action::Nothing) } else { Err(USAGE.to_owned()) };
    }
    if nothing && request.argv.is_empty() {
        return Ok(Action::Nothing);
    }
    Ok(Action::Run(request))
}

async fn run(socket: &std::ffi::OsStr, request: &Request) -> Result<Reply, String> {
    let body = super::encode(request);
    // Said here, not by the service: it would refuse after the header while this is still
    // writing, and the client would only see a broken pipe.
    if body.len().saturating_sub(4) > MAX_REQUEST_BYTES {
        return Err(format!(
            "sudo: the request is too large ({} bytes; at most {MAX_REQUEST_BYTES}): fewer \
             arguments or variables, please",
            body.len().saturating_sub(4)
        ));
    }
    let path = std::path::Path::new(socket);
    let mut stream = match tokio::time::timeout(CONNECT_TIMEOUT, UnixStream::connect(path)).await {
        Ok(Ok(stream)) => stream,
        Ok(Err(err)) => {
            return Err(format!(
                "sudo: the sandbox's privilege service is not available at {}: {err}",
                path.display()
            ));
        }
        Err(_) => return Err("sudo: the sandbox's privilege service did not answer".into()),
    };
    // Signals are taken from here on: before, the default action (die) is right.
    let mut signals = Vec::new();
    for &signal in RELAYED_SIGNALS {
        let kind = tokio::signal::unix::SignalKind::from_raw(signal);
        match tokio::signal::unix::signal(kind) {
            Ok(stream) => signals.push((signal, stream)),
            Err(err) => return Err(format!("sudo: cannot take signal {signal}: {err}")),
        }
    }
    tokio::time::timeout(CONNECT_TIMEOUT, send_request(&mut stream, &body))
        .await
        .map_err(|_| "sudo: the sandbox's privilege service did not take the request".to_owned())?
        .map_err(|err| format!("sudo: sending the request: {err}"))?;

    let (mut reader, mut writer) = stream.into_split();
    let reply = async move {
        let mut header = [0u8; 4];
        reader.read_exact(&mut header).await?;
        let len = u32::from_be_bytes(header) as usize;
        if len > MAX_FRAME_BYTES {
            return Err(std::io::Error::new(std::io::ErrorKind::InvalidData, "reply too large"));
        }
        let mut body = vec![0u8; len];
        reader.read_exact(&mut body).await?;
        serde_json::from_slice::<Reply>(&body)
            .map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidData, e))
    };
    tokio::pin!(reply);
    loop {
        let relayed =
            futures_util::future::select_all(signals.iter_mut().map(|(signal, stream)| {
                Box::pin(async move { stream.recv().await.map(|_| *signal) })
            }));
        tokio::select! {
            reply = &mut reply => {
                return reply.map_err(|err| format!("sudo: the sandbox's privilege service went away: {err}"));
            }
            (signal, _, _) = relayed => {
                let Some(signal) = signal else { continue };
                // Bounded: a service that stopped reading must not hang the relay.
                let frame = super::encode(&ClientFrame::Signal { signal });
                let _ = tokio::time::timeout(CONNECT_TIMEOUT, writer.write_all(&frame)).await;
            }
        }
    }
}

/// The request's header with the three descriptors attached, then its body.
async fn send_request(stream: &mut UnixStream, body: &[u8]) -> std::io::Result<()> {
    let standard = standard_descriptors()?;
    let fds: Vec<BorrowedFd<'_>> = standard.iter().map(|fd| fd.as_fd()).collect();
    let (header, rest) = body.split_at(4.min(body.len()));
    let mut sent = 0;
    while sent == 0 {
        sent = stream
            .async_io(Interest::WRITABLE, || {
                let mut space =
                    [std::mem::MaybeUninit::<u8>::uninit(); rustix::cmsg_space!(ScmRights(3))];
                let mut control = SendAncillaryBuffer::new(&mut space);
                if !control.push(SendAncillaryMessage::ScmRights(&fds)) {
                    return Err(std::io::Error::other("no room for the descriptors"));
                }
                rustix::net::sendmsg(
                    stream.as_fd(),
                    &[std::io::IoSlice::new(header)],
                    &mut control,
                    SendFlags::DONTWAIT | SendFlags::NOSIGNAL,
                )
                .map_err(std::io::Error::from)
            })
            .await?;
    }
    // The descriptors went with the first byte; the rest of the header follows plainly.
    stream.write_all(&header[sent..]).await?;
    stream.write_all(rest).await
}

/// Duplicates of stdin, stdout and stderr; one that is closed becomes `/dev/null`, so the
/// command gets three descriptors whatever the caller left open.
fn standard_descriptors() -> std::io::Result<Vec<OwnedFd>> {
    let mut fds = Vec::with_capacity(3);
    for raw in 0..3 {
        // SAFETY: the descriptor is only borrowed for the duplication below, which fails
        // cleanly (EBADF) when it is not open.
        let borrowed = unsafe { BorrowedFd::borrow_raw(raw) };
        match rustix::io::fcntl_dupfd_cloexec(borrowed, 3) {
            Ok(fd) => fds.push(fd),
            Err(rustix::io::Errno::BADF) => {
                fds.push(std::fs::File::options().read(true).write(true).open("/dev/null")?.into())
            }
            Err(err) => return Err(err.into()),
        }
    }
    Ok(fds)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn parsed(args: &[&str]) -> Result<Action, String> {
        parse(&args.iter().map(|s| s.to_string()).collect::<Vec<_>>())
    }

    fn run_request(args: &[&str]) -> Request {
        match parsed(args) {
            Ok(Action::Run(request)) => request,
            other => panic!("{args:?}: {other:?}"),
        }
    }

    #[test]
    fn common_forms() {
        let plain = run_request(&["id", "-u"]);
        assert_eq!(
            (plain.argv, plain.user, plain.mode),
            (vec!["id".into(), "-u".into()], None, Mode::Command)
        );
        let other = run_request(&["-u", "user", "id", "-un"]);
        assert_eq!((other.user.as_deref(), other.argv.len()), (Some("user"), 2));
        assert_eq!(run_request(&["-uuser", "id"]).user.as_deref(), Some("user"));
        assert_eq!(run_request(&["--user=user", "id"]).user.as_deref(), Some("user"));
        assert_eq!(run_request(&["--user", "user", "id"]).user.as_deref(), Some("user"));
        let combined = run_request(&["-nEu", "root", "--", "-weird"]);
        assert!(combined.preserve_env);
        assert_eq!(combined.argv, ["-weird"]);
        assert_eq!(run_request(&["-i"]).mode, Mode::Login);
        assert_eq!(run_request(&["-s", "echo", "hi"]).mode, Mode::Shell);
        assert_eq!(run_request(&["--preserve-env=A,B", "env"]).keep, ["A", "B"]);
        assert_eq!(run_request(&["-k", "true"]).argv, ["true"]);
        // Options end at the command: its own flags are its own.
        assert_eq!(run_request(&["ls", "-u"]).argv, ["ls", "-u"]);
    }

    #[test]
    fn no_ops_and_errors() {
        assert_eq!(parsed(&["-v"]), Ok(Action::Nothing));
        assert_eq!(parsed(&["-k"]), Ok(Action::Nothing));
        assert_eq!(parsed(&["-n", "-v"]), Ok(Action::Nothing));
        assert_eq!(parsed(&["-l"]), Ok(Action::List));
        assert_eq!(parsed(&["-h"]), Ok(Action::Help));
        assert!(parsed(&[]).unwrap_err().starts_with("usage: sudo"));
        assert!(parsed(&["-x", "id"]).unwrap_err().starts_with("sudo: invalid option -- 'x'\n"));
        assert!(parsed(&["--frobnicate"]).unwrap_err().starts_with("sudo: unrecognized option"));
        assert!(parsed(&["-u"]).unwrap_err().contains("requires an argument"));
        assert!(parsed(&["-i", "-s"]).unwrap_err().contains("both the -i and -s"));
    }
}
