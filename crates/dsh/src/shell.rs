//! `dsh shell`: this terminal attached to a shell in a sandbox. Raw mode locally; every
//! key goes to the sandbox's PTY (so Ctrl-C interrupts the remote foreground job through
//! the remote line discipline), window-size changes follow, and Ctrl-] detaches.

use std::collections::BTreeMap;
use std::os::fd::AsFd as _;
use std::process::ExitCode;

use crate::config::{BackendKind, Config};
use dsh_core::{TerminalSize, TerminalSpec};
use dsh_e2b::OnDispose;
use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};

use crate::connect::DaemonArgs;
use crate::workbench::Workbench;

/// Ctrl-]: leaves the shell (as telnet does).
const DETACH: u8 = 0x1d;

#[derive(Debug, clap::Args)]
pub struct ShellArgs {
    /// Attach to this sandbox (else a fresh one, removed when the shell ends).
    #[arg(long)]
    sandbox: Option<String>,
    #[command(flatten)]
    daemon: DaemonArgs,
}

/// Restores the local terminal's settings however the shell ends.
struct RawMode {
    saved: Option<rustix::termios::Termios>,
}

impl RawMode {
    fn enter() -> Self {
        let stdin = std::io::stdin();
        let Ok(saved) = rustix::termios::tcgetattr(stdin.as_fd()) else {
            return Self { saved: None };
        };
        let mut raw = saved.clone();
        raw.make_raw();
        let _ =
            rustix::termios::tcsetattr(stdin.as_fd(), rustix::termios::OptionalActions::Now, &raw);
        Self { saved: Some(saved) }
    }
}

impl Drop for RawMode {
    fn drop(&mut self) {
        if let Some(saved) = &self.saved {
            let _ = rustix::termios::tcsetattr(
                std::io::stdin().as_fd(),
                rustix::termios::OptionalActions::Now,
                saved,
            );
        }
    }
}

fn local_size() -> TerminalSize {
    match rustix::termios::tcgetwinsize(std::io::stdout().as_fd()) {
        Ok(size) if size.ws_row > 0 && size.ws_col > 0 => {
            TerminalSize { rows: size.ws_row, cols: size.ws_col }
        }
        _ => TerminalSize { rows: 24, cols: 80 },
    }
}

pub async fn run(args: ShellArgs) -> anyhow::Result<ExitCode> {
    let mut config = Config::default();
    config.backend.kind = BackendKind::Sandbox;
    if let Some(id) = &args.sandbox {
        config.sandbox.sandbox_id = Some(id.clone());
        config.sandbox.on_dispose = OnDispose::Leave;
    }
    let workbench = Workbench::open(&config, &args.daemon).await?;
    let mut env: BTreeMap<String, String> = workbench.env.clone();
    env.insert("TERM".into(), std::env::var("TERM").unwrap_or_else(|_| "xterm-256color".into()));
    let spec = TerminalSpec::new(["/bin/bash", "-i"], &workbench.runtime.cwd, env, local_size());
    let terminal = match workbench.runtime.terminals.spawn_terminal(spec).await {
        Ok(terminal) => terminal,
        Err(err) => {
            workbench.shutdown().await?;
            anyhow::bail!("cannot start a shell in the sandbox: {err}");
        }
    };
    let mut output =
        terminal.take_output().ok_or_else(|| anyhow::anyhow!("terminal output already taken"))?;
    // Raw keys and the resize listener come before the banner that invites typing; a
    // resize that came before the listener is caught by sizing the terminal once more.
    let mut winch = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::window_change())?;
    let raw = RawMode::enter();
    let _ = terminal.resize(local_size()).await;
    eprintln!(
        "dsh shell: sandbox {} ({}); Ctrl-] detaches\r",
        workbench.sandbox_id().unwrap_or("-"),
        workbench.backend_name
    );
    let mut stdin = tokio::io::stdin();
    let mut stdout = tokio::io::stdout();
    let mut keys = [0u8; 4096];
    let mut detached = false;
    loop {
        tokio::select! {
            chunk = output.next() => match chunk {
                Some(bytes) => {
                    stdout.write_all(&bytes).await?;
                    stdout.flush().await?;
                }
                None => break,
            },
            read = stdin.read(&mut keys) => {
                let n = read?;
                if n == 0 {
                    break;
                }
                let typed = &keys[..n];
                if let Some(at) = typed.iter().position(|b| *b == DETACH) {
                    if at > 0 {
                        terminal.write(&typed[..at]).await?;
                    }
                    detached = true;
                    break;
                }
                terminal.write(typed).await?;
            },
            _ = winch.recv() => {
                let _ = terminal.resize(local_size()).await;
            }
        }
    }
    drop(raw);
    let status = terminal.terminate().await;
    if detached {
        eprintln!("\r\n[detached]");
    }
    workbench.shutdown().await?;
    Ok(match status.code {
        Some(code) if !detached => ExitCode::from(u8::try_from(code.clamp(0, 255)).unwrap_or(1)),
        _ => ExitCode::SUCCESS,
    })
}
