//! The `dsh-envd` command line.

use std::net::SocketAddr;
use std::path::PathBuf;
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
}

/// Runs the daemon with command-line `args` (the first is the program name), on its own
/// tokio runtime. The `dsh-envd` binary and `dsh`'s hidden `__envd` subcommand call this.
pub fn main_with_args(args: impl IntoIterator<Item = std::ffi::OsString>) -> anyhow::Result<()> {
    let args = Args::parse_from(args);
    tokio::runtime::Builder::new_multi_thread().enable_all().build()?.block_on(run(args))
}

async fn run(args: Args) -> anyhow::Result<()> {
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
        default_user: args.default_user,
        default_workdir: args.default_workdir,
        access_token: args.access_token.filter(|t| !t.is_empty()),
        sandbox_id: args.sandbox_id,
        template_id: args.template_id,
        ..EnvdConfig::default()
    };
    let envd = Arc::new(Envd::new(config));
    if envd.users.lookup(&envd.config.default_user).is_none() {
        anyhow::bail!("default user '{}' does not exist in /etc/passwd", envd.config.default_user);
    }
    let listener = tokio::net::TcpListener::bind(address)
        .await
        .with_context(|| format!("cannot listen on {address}"))?;
    let bound = listener.local_addr()?;
    tracing::info!(%bound, version = dsh_proto::ENVD_VERSION, "dsh-envd listening");
    if let Some(path) = &args.ready_file {
        std::fs::write(path, bound.to_string())
            .with_context(|| format!("cannot write {}", path.display()))?;
    }
    crate::serve(listener, envd, shutdown_signal()).await?;
    Ok(())
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
