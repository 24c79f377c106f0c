//! [`Subprocess`] with host processes.

use std::process::Stdio;
use std::sync::Arc;

use tokio::io::{AsyncRead, AsyncReadExt, AsyncWriteExt};
use tokio::process::ChildStdin;

use super::Host;
use crate::BoxFuture;
use crate::output::{OutputBuffer, OutputMode};
use crate::process::{
    Process, ProcessControl, ProcessError, ProcessParts, Signal, SpawnSpec, StdinMode, Subprocess,
};

/// Read size for output pipes: large reads keep a flood cheap to drain.
const READ_CHUNK: usize = 256 * 1024;

struct LocalControl {
    pgid: u32,
    stdin: tokio::sync::Mutex<Option<ChildStdin>>,
}

impl Drop for LocalControl {
    /// The last owner is gone: normally after the group was already ended, but also when
    /// the runtime shuts down under a running process, when no task is left to run the
    /// polite sequence. Nothing may outlive its handle.
    fn drop(&mut self) {
        let _ = super::signal_group(self.pgid, Signal::Kill);
    }
}

impl ProcessControl for LocalControl {
    fn signal_group(&self, signal: Signal) -> BoxFuture<'_, Result<(), ProcessError>> {
        Box::pin(async move { super::signal_group(self.pgid, signal) })
    }

    fn write_stdin<'a>(&'a self, data: &'a [u8]) -> BoxFuture<'a, Result<(), ProcessError>> {
        Box::pin(async move {
            let mut stdin = self.stdin.lock().await;
            let pipe = stdin.as_mut().ok_or(ProcessError::StdinClosed)?;
            let written = async {
                pipe.write_all(data).await?;
                pipe.flush().await
            };
            match written.await {
                Ok(()) => Ok(()),
                Err(err) if err.kind() == std::io::ErrorKind::BrokenPipe => {
                    *stdin = None;
                    Err(ProcessError::StdinClosed)
                }
                Err(err) => Err(ProcessError::Io(err)),
            }
        })
    }

    fn close_stdin(&self) -> BoxFuture<'_, Result<(), ProcessError>> {
        Box::pin(async move {
            match self.stdin.lock().await.take() {
                Some(mut pipe) => {
                    let _ = pipe.shutdown().await;
                    Ok(())
                }
                None => Err(ProcessError::StdinClosed),
            }
        })
    }
}

fn stdio_for(mode: OutputMode) -> Stdio {
    match mode {
        OutputMode::Null => Stdio::null(),
        OutputMode::Pipe | OutputMode::Capped { .. } => Stdio::piped(),
    }
}

/// Drains a pipe into a buffer as fast as it fills, so the writer never blocks on us.
fn pump(source: Option<impl AsyncRead + Unpin + Send + 'static>, buffer: OutputBuffer) {
    let Some(mut source) = source else {
        buffer.close();
        return;
    };
    tokio::spawn(async move {
        let mut chunk = vec![0; READ_CHUNK];
        loop {
            match source.read(&mut chunk).await {
                Ok(0) | Err(_) => break,
                Ok(read) => buffer.push(&chunk[..read]),
            }
        }
        buffer.close();
    });
}

pub(super) fn validate(argv: &[String], cwd: &std::path::Path) -> Result<(), ProcessError> {
    if argv.first().is_none_or(String::is_empty) {
        return Err(ProcessError::InvalidSpec("argv must name a program".into()));
    }
    if !cwd.is_absolute() {
        return Err(ProcessError::InvalidSpec(format!("cwd must be absolute: {}", cwd.display())));
    }
    if !cwd.is_dir() {
        return Err(ProcessError::CwdNotFound(cwd.to_path_buf()));
    }
    Ok(())
}

fn spawn(spec: &SpawnSpec) -> Result<ProcessParts, ProcessError> {
    validate(&spec.argv, &spec.cwd)?;
    let program = &spec.argv[0];
    let mut command = tokio::process::Command::new(program);
    command
        .args(&spec.argv[1..])
        .env_clear()
        .envs(&spec.env)
        .current_dir(&spec.cwd)
        .stdin(match spec.stdin {
            StdinMode::Ignore => Stdio::null(),
            StdinMode::Pipe | StdinMode::Data(_) => Stdio::piped(),
        })
        .stdout(stdio_for(spec.stdout))
        .stderr(stdio_for(spec.stderr))
        .kill_on_drop(false);
    // SAFETY: setsid is async-signal-safe and touches no memory of the parent.
    unsafe {
        command.pre_exec(|| {
            if libc::setsid() < 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    let mut child = command
        .spawn()
        .map_err(|source| ProcessError::SpawnFailed { program: program.clone(), source })?;
    let pid = child.id().ok_or(ProcessError::Exited)?;

    let stdout = OutputBuffer::new(spec.stdout);
    let stderr = OutputBuffer::new(spec.stderr);
    pump(child.stdout.take(), stdout.clone());
    pump(child.stderr.take(), stderr.clone());

    let mut stdin = child.stdin.take();
    if let StdinMode::Data(data) = &spec.stdin
        && let Some(mut pipe) = stdin.take()
    {
        let data = data.clone();
        tokio::spawn(async move {
            // The process may exit without reading everything; that is its business.
            let _ = pipe.write_all(&data).await;
            let _ = pipe.shutdown().await;
        });
    }

    let exit = super::watch_exit(child);

    let control = Arc::new(LocalControl { pgid: pid, stdin: tokio::sync::Mutex::new(stdin) });
    Ok(ProcessParts { pid, control, stdout, stderr, exit })
}

impl Subprocess for Host {
    fn spawn(&self, spec: SpawnSpec) -> BoxFuture<'_, Result<Process, ProcessError>> {
        Box::pin(async move {
            let parts = spawn(&spec)?;
            Ok(Process::start(parts, &spec))
        })
    }
}
