//! The `dsh-envd` command line.

use std::ffi::OsString;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::{Envd, EnvdConfig};
use anyhow::Context as _;
use clap::Parser;

/// An E2B-compatible envd: filesystem and process services over Connect RPC, plus /files.
#[derive(Debug, Parser)]
#[command(name = "dsh-envd", version, about)]
struct Args {
    /// Port to listen on, on all interfaces (E2B's default is 49983).
    #[arg(long, default_value_t = dsh_proto::ENVD_PORT, conflicts_with = "listen")]
    port: u16,
    /// Exact address to listen on, e.g. 127.0.0.1:49983 (overrides --port).
    #[arg(long)]
    listen: Option<SocketAddr>,
    /// User for requests that name none (E2B templates use `user`).
    #[arg(long, default_value = "root")]
    default_user: String,
    /// Directory empty paths and process cwds resolve to (default: the user's home).
    #[arg(long)]
    default_workdir: Option<PathBuf>,
    /// Require this X-Access-Token on requests (it can also be set through /init).
    #[arg(long, env = "DSH_ENVD_ACCESS_TOKEN", hide_env_values = true)]
    access_token: Option<String>,
    /// Exported to processes as E2B_SANDBOX_ID.
    #[arg(long)]
    sandbox_id: Option<String>,
    /// Exported to processes as E2B_TEMPLATE_ID.
    #[arg(long)]
    template_id: Option<String>,
    /// Write the bound address to this file once listening (for supervisors and tests).
    #[arg(long)]
    ready_file: Option<PathBuf>,
    /// Serve `sudo` on this unix socket (e.g. /run/dsh/sudo.sock): any user of the
    /// sandbox may run commands as any user. Only where root inside is not root of the host.
    #[arg(long)]
    sudo_socket: Option<PathBuf>,
    /// Plant the `sudo` program here (e.g. /usr/local/bin/sudo): a client of
    /// --sudo-socket, or with --sudo-disabled one that says why and fails.
    #[arg(long)]
    sudo_install: Option<PathBuf>,
    /// Why sudo is off in this sandbox (what the planted `sudo` says).
    #[arg(long, conflicts_with = "sudo_socket")]
    sudo_disabled: Option<String>,
    /// `NAME=TARGET` (repeatable): when no `NAME` is on the standard PATH but `TARGET` is,
    /// link `/usr/local/bin/NAME` to it (`python=python3`: E2B's images have `python`).
    #[arg(long = "command-alias", value_name = "NAME=TARGET")]
    command_aliases: Vec<String>,
    /// Behave as E2B's own envd of this version (`0.3.0`, `0.5.1`, ...): SendSignal takes
    /// only SIGTERM/SIGKILL to the pid, no dsh extensions, and the version's refusals. For
    /// testing clients against what E2B cloud sandboxes do.
    #[arg(long, value_name = "VERSION", value_parser = parse_strict)]
    e2b_strict: Option<crate::strict::StrictVersion>,
}

fn parse_strict(text: &str) -> Result<crate::strict::StrictVersion, String> {
    crate::strict::StrictVersion::parse(text)
        .ok_or_else(|| format!("expected a version MAJOR.MINOR.PATCH, got '{text}'"))
}

/// The first argument that runs E2B's code-interpreter server instead of envd.
pub const CODE_INTERPRETER_ARG: &str = "code-interpreter";

/// Runs the daemon with command-line `args` (the first is the program name), on its own
/// tokio runtime. The `dsh-envd` binary and `dsh`'s hidden `__envd` subcommand call this.
///
/// The same binary is the sandbox's `sudo` client: `dsh-envd __sudo ARGS…`, or any
/// program name `sudo` (then this ends the process with the command's status).
pub fn main_with_args(args: impl IntoIterator<Item = std::ffi::OsString>) -> anyhow::Result<()> {
    let args: Vec<OsString> = args.into_iter().collect();
    let named_sudo = args
        .first()
        .and_then(|program| Path::new(program).file_name())
        .is_some_and(|name| name == "sudo");
    if named_sudo {
        std::process::exit(crate::sudo::client::main(&args[1..]));
    }
    if args.get(1).is_some_and(|arg| arg == crate::sudo::CLIENT_ARG) {
        std::process::exit(crate::sudo::client::main(&args[2..]));
    }
    // E2B's code-interpreter server (port 49999), which the `code-interpreter-v1`
    // template starts: the envd binary is in every sandbox.
    if args.get(1).is_some_and(|arg| arg == CODE_INTERPRETER_ARG) {
        return dsh_code_interpreter::main_with_args(args[2..].iter().cloned());
    }
    let invocation = own_invocation(&args);
    let args = Args::parse_from(args);
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?
        .block_on(run(args, invocation))
}

/// How to start this very program as envd again (its path and the arguments before
/// `args`' own): `dsh-envd`, or `dsh __envd` when a binary embeds envd and forwards the
/// rest of its command line here. The planted `sudo` runs that, plus `__sudo`.
fn own_invocation(args: &[OsString]) -> Vec<String> {
    let real: Vec<OsString> = std::env::args_os().collect();
    let tail = args.get(1..).unwrap_or_default();
    let exe = std::env::current_exe()
        .ok()
        .map(PathBuf::into_os_string)
        .or_else(|| real.first().cloned())
        .unwrap_or_default();
    let mut invocation = vec![exe];
    if real.len() > tail.len() && real.ends_with(tail) {
        invocation.extend(real[1..real.len() - tail.len()].iter().cloned());
    }
    invocation.into_iter().map(|word| word.to_string_lossy().into_owned()).collect()
}

async fn run(args: Args, invocation: Vec<String>) -> anyhow::Result<()> {
    // A second subscriber (when embedded in a binary that set one) is simply ignored.
    let _ = tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env()
                .unwrap_or_else(|_| "dsh_envd=info".into()),
        )
        .with_writer(std::io::stderr)
        .try_init();
    let address = args.listen.unwrap_or_else(|| SocketAddr::from(([0, 0, 0, 0], args.port)));
    let config = EnvdConfig {
        default_user: args.default_user.clone(),
        default_workdir: args.default_workdir.clone(),
        access_token: args.access_token.clone().filter(|t| !t.is_empty()),
        sandbox_id: args.sandbox_id.clone(),
        template_id: args.template_id.clone(),
        strict: args.e2b_strict,
        ..EnvdConfig::default()
    };
    let envd = Arc::new(Envd::new(config));
    if envd.users.lookup(&envd.config.default_user).is_none() {
        anyhow::bail!("default user '{}' does not exist in /etc/passwd", envd.config.default_user);
    }
    start_sudo(&args, &invocation, &envd);
    for (name, target) in plant_aliases(&args.command_aliases, Path::new("/usr/local/bin")) {
        tracing::info!(name, target = %target.display(), "command alias planted");
    }
    let listener =
        dsh_http::bind(address).with_context(|| format!("cannot listen on {address}"))?;
    let bound = listener.local_addr()?;
    tracing::info!(%bound, version = dsh_proto::ENVD_VERSION, "dsh-envd listening");
    if let Some(path) = &args.ready_file {
        std::fs::write(path, bound.to_string())
            .with_context(|| format!("cannot write {}", path.display()))?;
    }
    crate::serve(listener, envd, shutdown_signal()).await?;
    Ok(())
}

/// Links `/usr/local/bin/NAME` to `TARGET` for each `NAME=TARGET` whose name is missing
/// and whose target exists on the PATH processes get by default (see `--command-alias`).
/// Returns the links made.
pub fn plant_aliases(aliases: &[String], bin: &Path) -> Vec<(String, PathBuf)> {
    let find = |name: &str| {
        crate::process::service::DEFAULT_PATH
            .split(':')
            .map(|dir| Path::new(dir).join(name))
            .find(|path| path.is_file())
    };
    let mut made = Vec::new();
    for alias in aliases {
        let Some((name, target)) = alias.split_once('=') else {
            tracing::warn!(%alias, "a command alias is NAME=TARGET");
            continue;
        };
        let plain = |s: &str| !s.is_empty() && !s.contains('/') && s != "." && s != "..";
        // An absolute TARGET is linked as it is (a gVisor sandbox's daemon names the
        // host's links this way), a plain one found on the PATH.
        let absolute = Path::new(target).is_absolute();
        if !plain(name)
            || !(plain(target) || absolute)
            || find(name).is_some()
            || bin.join(name).exists()
        {
            continue;
        }
        let found = if absolute {
            Some(PathBuf::from(target)).filter(|t| t.is_file())
        } else {
            find(target)
        };
        let Some(target) = found else { continue };
        let link = bin.join(name);
        match std::fs::create_dir_all(bin).and_then(|()| std::os::unix::fs::symlink(&target, &link))
        {
            Ok(()) => made.push((name.to_owned(), target)),
            Err(err) => {
                tracing::warn!(link = %link.display(), %err, "cannot plant a command alias")
            }
        }
    }
    made
}

/// The privilege service and the planted `sudo` (see [`crate::sudo`]). Failing to set
/// them up costs `sudo`, not envd: it is logged and envd serves on.
fn start_sudo(args: &Args, invocation: &[String], envd: &Arc<Envd>) {
    let script = match (&args.sudo_socket, &args.sudo_disabled) {
        (Some(socket), _) => match crate::sudo::server::bind(socket) {
            Ok(listener) => {
                tokio::spawn(crate::sudo::server::serve(listener, Arc::clone(envd)));
                tracing::info!(socket = %socket.display(), "sudo service listening");
                let mut script = crate::sudo::client_script(invocation);
                if socket != Path::new(crate::sudo::DEFAULT_SOCKET) {
                    let at = crate::sudo::shell_quote(&socket.to_string_lossy());
                    script =
                        script.replace("exec ", &format!("{}={at} exec ", crate::sudo::SOCKET_ENV));
                }
                script
            }
            Err(err) => {
                tracing::warn!(socket = %socket.display(), %err, "sudo service unavailable");
                crate::sudo::refusal_script(&format!(
                    "the privilege service could not start: {err}"
                ))
            }
        },
        (None, Some(reason)) => crate::sudo::refusal_script(reason),
        (None, None) => return,
    };
    if let Some(path) = &args.sudo_install
        && let Err(err) = crate::sudo::install(path, &script)
    {
        tracing::warn!(path = %path.display(), %err, "cannot plant sudo");
    }
}

async fn shutdown_signal() {
    use tokio::signal::unix::{SignalKind, signal};
    let (Ok(mut term), Ok(mut int)) =
        (signal(SignalKind::terminate()), signal(SignalKind::interrupt()))
    else {
        // Without signal handlers the daemon still serves; it just cannot shut down gracefully.
        return std::future::pending().await;
    };
    tokio::select! {
        _ = term.recv() => {}
        _ = int.recv() => {}
    }
}

#[cfg(test)]
mod alias_tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn an_alias_is_linked_only_when_its_name_is_missing_and_its_target_exists() {
        let bin = tempfile::tempdir().unwrap();
        let aliases =
            ["dsh-test-shell=sh", "sh=bash", "dsh-test-none=dsh-no-such", "bad", "../x=sh"]
                .map(str::to_owned);
        let made = plant_aliases(&aliases, bin.path());
        assert_eq!(made.len(), 1);
        assert_eq!(made[0].0, "dsh-test-shell");
        let link = std::fs::read_link(bin.path().join("dsh-test-shell")).unwrap();
        assert_eq!(link, made[0].1);
        assert!(link.ends_with("sh"));
        assert_eq!(std::fs::read_dir(bin.path()).unwrap().count(), 1);
        // Planted once: a second start leaves it.
        assert!(plant_aliases(&aliases, bin.path()).is_empty());
    }

    #[test]
    fn an_absolute_target_is_linked_as_it_is_when_it_is_a_file() {
        let bin = tempfile::tempdir().unwrap();
        let aliases =
            ["dsh-test-env=/usr/bin/env", "dsh-test-gone=/no/such/file", "dsh-test-dir=/usr"]
                .map(str::to_owned);
        let made = plant_aliases(&aliases, bin.path());
        assert_eq!(made, [("dsh-test-env".to_owned(), PathBuf::from("/usr/bin/env"))]);
        assert_eq!(
            std::fs::read_link(bin.path().join("dsh-test-env")).unwrap(),
            Path::new("/usr/bin/env")
        );
        assert_eq!(std::fs::read_dir(bin.path()).unwrap().count(), 1);
    }
}
