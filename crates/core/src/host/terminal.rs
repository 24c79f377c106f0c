//! [`Terminals`] on host PTYs.

use std::os::fd::{AsFd, OwnedFd};
use std::sync::Arc;

use bytes::Bytes;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::sync::mpsc;

use super::Host;
use crate::BoxFuture;
use crate::process::{ProcessError, Signal};
use crate::terminal::{
    Terminal, TerminalControl, TerminalError, TerminalParts, TerminalSize, TerminalSpec, Terminals,
};

/// Chunks in flight between the PTY and the consumer before the program is held back.
const OUTPUT_QUEUE: usize = 64;
const READ_CHUNK: usize = 64 * 1024;

struct LocalTerminal {
    /// The session leader, whose pid is also the session id.
    pid: u32,
    /// A duplicate of the PTY master, for resize and `tcgetpgrp`.
    master: OwnedFd,
    writer: tokio::sync::Mutex<pty_process::OwnedWritePty>,
}

fn pty_error(err: pty_process::Error) -> TerminalError {
    match err {
        pty_process::Error::Io(io) => TerminalError::Io(io),
        pty_process::Error::Rustix(errno) => TerminalError::Io(errno.into()),
        other => TerminalError::Io(std::io::Error::other(other.to_string())),
    }
}

fn from_process(err: ProcessError) -> TerminalError {
    match err {
        ProcessError::Exited => TerminalError::Exited,
        ProcessError::InvalidSpec(message) => TerminalError::InvalidSpec(message),
        ProcessError::CwdNotFound(cwd) => TerminalError::CwdNotFound(cwd),
        ProcessError::SpawnFailed { program, source } => {
            TerminalError::SpawnFailed { program, source }
        }
        ProcessError::Io(io) => TerminalError::Io(io),
        other => TerminalError::Io(std::io::Error::other(other.to_string())),
    }
}

impl LocalTerminal {
    fn foreground(&self) -> Result<u32, TerminalError> {
        match rustix::termios::tcgetpgrp(&self.master) {
            Ok(pid) => Ok(pid.as_raw_nonzero().get().unsigned_abs()),
            // No session holds the terminal any more.
            Err(rustix::io::Errno::NOTTY | rustix::io::Errno::IO) => Err(TerminalError::Exited),
            Err(errno) => Err(TerminalError::Io(errno.into())),
        }
    }

    fn in_session(&self, pgid: u32) -> bool {
        if pgid == self.pid {
            return true;
        }
        let Ok(leader) = i32::try_from(pgid) else { return false };
        // libc rather than rustix: getsid answers 0 for a process whose session lies
        // outside our pid namespace, which rustix's `Pid` cannot represent.
        // SAFETY: getsid only reads its integer argument.
        let session = unsafe { libc::getsid(leader) };
        match u32::try_from(session) {
            Ok(session) => session == self.pid,
            // The group's leader has exited; its group is still addressable when it is
            // the terminal's foreground group.
            Err(_) => self.foreground().is_ok_and(|foreground| foreground == pgid),
        }
    }
}

impl Drop for LocalTerminal {
    /// As for processes: nothing outlives its handle, even when the runtime shuts down.
    fn drop(&mut self) {
        if let Ok(foreground) = self.foreground() {
            let _ = super::signal_group(foreground, Signal::Kill);
        }
        let _ = super::signal_group(self.pid, Signal::Kill);
    }
}

impl TerminalControl for LocalTerminal {
    fn write<'a>(&'a self, data: &'a [u8]) -> BoxFuture<'a, Result<(), TerminalError>> {
        Box::pin(async move {
            let mut writer = self.writer.lock().await;
            writer.write_all(data).await?;
            writer.flush().await?;
            Ok(())
        })
    }

    fn resize(&self, size: TerminalSize) -> BoxFuture<'_, Result<(), TerminalError>> {
        Box::pin(async move {
            let winsize = rustix::termios::Winsize {
                ws_row: size.rows,
                ws_col: size.cols,
                ws_xpixel: 0,
                ws_ypixel: 0,
            };
            // The kernel sends SIGWINCH to the foreground group itself.
            rustix::termios::tcsetwinsize(&self.master, winsize)
                .map_err(|errno| TerminalError::Io(errno.into()))
        })
    }

    fn foreground_group(&self) -> BoxFuture<'_, Result<u32, TerminalError>> {
        Box::pin(async move { self.foreground() })
    }

    fn signal_group(&self, pgid: u32, signal: Signal) -> BoxFuture<'_, Result<(), TerminalError>> {
        Box::pin(async move {
            if !self.in_session(pgid) {
                return Err(TerminalError::NotInSession(pgid));
            }
            super::signal_group(pgid, signal).map_err(from_process)
        })
    }
}

fn spawn(spec: &TerminalSpec) -> Result<TerminalParts, TerminalError> {
    super::process::validate(&spec.argv, &spec.cwd).map_err(from_process)?;
    if spec.size.rows == 0 || spec.size.cols == 0 {
        return Err(TerminalError::InvalidSpec("terminal size must be at least 1x1".into()));
    }
    let program = &spec.argv[0];
    let (pty, pts) = pty_process::open().map_err(pty_error)?;
    pty.resize(pty_process::Size::new(spec.size.rows, spec.size.cols)).map_err(pty_error)?;
    let master = rustix::io::fcntl_dupfd_cloexec(pty.as_fd(), 0)
        .map_err(|errno| TerminalError::Io(errno.into()))?;
    // pty-process makes the child a session leader with the PTY as its controlling
    // terminal, so its pid is its session and process group id.
    let command = pty_process::Command::new(program)
        .args(&spec.argv[1..])
        .env_clear()
        .envs(&spec.env)
        .current_dir(&spec.cwd)
        .kill_on_drop(false);
    let child = command.spawn(pts).map_err(|err| match err {
        pty_process::Error::Io(source) => {
            TerminalError::SpawnFailed { program: program.clone(), source }
        }
        other => pty_error(other),
    })?;
    let pid = child.id().ok_or(TerminalError::Exited)?;
    let (mut reader, writer) = pty.into_split();

    let (output_tx, output) = mpsc::channel(OUTPUT_QUEUE);
    tokio::spawn(async move {
        let mut chunk = vec![0; READ_CHUNK];
        loop {
            // EIO once every slave descriptor is closed: the end of the stream.
            match reader.read(&mut chunk).await {
                Ok(0) | Err(_) => break,
                // Once the consumer has gone, keep draining so the program never blocks
                // on a full terminal.
                Ok(_) if output_tx.is_closed() => {}
                Ok(read) => {
                    let _ = output_tx.send(Bytes::copy_from_slice(&chunk[..read])).await;
                }
            }
        }
    });

    let exit = super::watch_exit(child);

    let control = Arc::new(LocalTerminal { pid, master, writer: tokio::sync::Mutex::new(writer) });
    Ok(TerminalParts { pid, control, output, exit })
}

impl Terminals for Host {
    fn spawn_terminal(&self, spec: TerminalSpec) -> BoxFuture<'_, Result<Terminal, TerminalError>> {
        Box::pin(async move {
            let parts = spawn(&spec)?;
            Ok(Terminal::start(parts, &spec))
        })
    }
}
