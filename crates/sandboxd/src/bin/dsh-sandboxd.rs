//! `dsh-sandboxd serve`: local sandboxes behind an E2B-compatible control plane.
//!
//! Point the official E2B SDKs at it with
//! `E2B_API_URL=http://127.0.0.1:3000 E2B_SANDBOX_URL=http://127.0.0.1:3000
//!  E2B_API_KEY=$(cat /var/lib/dsh-sandboxd/api-key)`.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

use clap::{Parser, Subcommand};
use dsh_sandboxd::DaemonConfig;

#[derive(Parser)]
#[command(
    name = "dsh-sandboxd",
    version,
    about = "Local sandboxes with an E2B-compatible control plane"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Serve the control plane and route envd traffic to the sandboxes.
    Serve {
        #[arg(long, default_value = "127.0.0.1:3000")]
        listen: SocketAddr,
        #[arg(long, default_value = "/var/lib/dsh-sandboxd")]
        state_dir: PathBuf,
        /// dsh-envd binary (default: $DSH_ENVD_BIN, else next to this executable).
        #[arg(long)]
        envd: Option<PathBuf>,
        /// dsh-sandbox-init binary (default: $DSH_SANDBOX_INIT, else next to this executable).
        #[arg(long)]
        init: Option<PathBuf>,
        /// Domain reported to clients (`domain` of the Sandbox responses).
        #[arg(long, default_value = "localhost")]
        domain: String,
        /// Seconds envd may take to become healthy after a sandbox starts.
        #[arg(long, default_value_t = 20)]
        envd_start_timeout: u64,
        /// strict (user namespace, seccomp, cgroups) or namespaces (root inside is root
        /// on the host: only for code you trust).
        #[arg(long, default_value = "strict")]
        isolation: dsh_sandboxd::IsolationLevel,
        /// Sandboxes kept started ahead of demand per template: a number, or `auto`
        /// (sized to the machine and to demand).
        #[arg(long, default_value = "auto")]
        pool: dsh_sandboxd::server::PoolSize,
        /// Private networks kept set up ahead (namespace, pasta, default rules) for
        /// launches the pool cannot serve: forks, restarts, bursts. 0: none.
        #[arg(long, default_value_t = dsh_sandboxd::server::spare_netns::SPARES)]
        spare_networks: usize,
        /// What runs a sandbox whose create request names no `runtime`: native (this
        /// daemon's launcher) or gvisor (gVisor's runsc; see docs/gvisor.md).
        #[arg(long, default_value = "native")]
        runtime: dsh_sandboxd::gvisor::Runtime,
        /// private (own namespace, egress through pasta, the host out of reach), none
        /// (loopback only) or host (the host's network: unsafe).
        #[arg(long, default_value = "private")]
        net: dsh_sandboxd::Net,
        /// MiB each sandbox may write to its files (0: no quota); needs mkfs.btrfs.
        #[arg(long, default_value_t = 10 * 1024)]
        disk_mb: u64,
        /// MiB of the image holding every sandbox's files, when first made (default: half
        /// the free space under the state directory).
        #[arg(long)]
        disk_image_mb: Option<u64>,
        /// MiB a volume may hold when its create request names no sizeMB (default:
        /// --disk-mb; at most the image).
        #[arg(long)]
        volume_mb: Option<u64>,
        /// A hosts(5) file of names the daemon resolves itself for header rules over
        /// plain HTTP, before the host's resolver (for names the host's DNS does not know).
        #[arg(long)]
        egress_hosts: Option<std::path::PathBuf>,
        /// PEM certificates trusted (besides the host's store) for the destinations of
        /// header rules over HTTPS.
        #[arg(long)]
        egress_trust: Option<std::path::PathBuf>,
    },
}

fn main() -> anyhow::Result<()> {
    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env()
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info")),
        )
        .with_writer(std::io::stderr)
        .init();
    let Cli { command } = Cli::parse();
    let Command::Serve {
        listen,
        state_dir,
        envd,
        init,
        domain,
        envd_start_timeout,
        isolation,
        pool,
        spare_networks,
        runtime,
        net,
        disk_mb,
        disk_image_mb,
        volume_mb,
        egress_hosts,
        egress_trust,
    } = command;
    let mut config = DaemonConfig::new(state_dir);
    config.listen = listen;
    config.envd_binary = envd;
    config.init_binary = init;
    config.domain = Some(domain);
    config.envd_start_timeout = Duration::from_secs(envd_start_timeout);
    config.isolation = isolation;
    config.pool = pool;
    config.spare_networks = spare_networks;
    config.runtime = runtime;
    config.net = net;
    config.defaults.disk_mb = disk_mb;
    config.disk_image_mb = disk_image_mb;
    config.volume_mb = volume_mb;
    config.egress_hosts = egress_hosts;
    config.egress_trust = egress_trust;
    tokio::runtime::Builder::new_multi_thread().enable_all().build()?.block_on(async {
        let shutdown = shutdown_signal()?;
        dsh_sandboxd::serve(config, shutdown).await
    })
}

/// Installs the SIGTERM/SIGINT handlers now, before the daemon listens: a signal during
/// startup then still pauses the sandboxes instead of killing the daemon outright.
fn shutdown_signal() -> anyhow::Result<impl Future<Output = ()>> {
    use tokio::signal::unix::{SignalKind, signal};
    let mut term = signal(SignalKind::terminate())?;
    let mut int = signal(SignalKind::interrupt())?;
    Ok(async move {
        tokio::select! {
            _ = term.recv() => tracing::info!("SIGTERM: pausing sandboxes and stopping"),
            _ = int.recv() => tracing::info!("SIGINT: pausing sandboxes and stopping"),
        }
    })
}
