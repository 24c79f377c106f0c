//! A real dsh-sandboxd for other crates' tests: on a free loopback port, over a
//! temporary state directory, with `dsh-sandbox-init` and `dsh-envd` taken from the
//! directory the test binary was built into (build every binary first, as
//! `scripts/test` does). Enabled by the `test-support` feature.

use std::path::{Path, PathBuf};

use crate::server::{Config, Daemon};

pub struct TestDaemon {
    daemon: Option<Daemon>,
    _state: tempfile::TempDir,
}

/// A workspace binary next to the running test executable (`target/<profile>/<name>`).
pub fn sibling_binary(name: &str) -> std::io::Result<PathBuf> {
    let exe = std::env::current_exe()?;
    let dir = exe
        .parent()
        .and_then(Path::parent)
        .ok_or_else(|| std::io::Error::other("test binary has no parent"))?;
    let path = dir.join(name);
    if path.is_file() {
        Ok(path)
    } else {
        Err(std::io::Error::other(format!(
            "{} missing: run `cargo build --workspace --bins` first",
            path.display()
        )))
    }
}

impl TestDaemon {
    pub async fn start() -> anyhow::Result<Self> {
        Self::start_with(|_| {}).await
    }

    /// A daemon whose configuration `adjust` changes first (e.g. `envd_args`).
    pub async fn start_with(adjust: impl FnOnce(&mut Config)) -> anyhow::Result<Self> {
        let state = tempfile::Builder::new().prefix("dsh-test-sandboxd-").tempdir()?;
        let mut config = Config::new(state.path().join("state"));
        config.listen = "127.0.0.1:0".parse()?;
        config.init_binary = Some(sibling_binary("dsh-sandbox-init")?);
        config.envd_binary = Some(sibling_binary("dsh-envd")?);
        // Each test's own daemon: a sandbox started ahead would only compete with it.
        config.pool = crate::server::PoolSize::Fixed(0);
        adjust(&mut config);
        let daemon = Daemon::start(config).await?;
        Ok(Self { daemon: Some(daemon), _state: state })
    }

    pub fn daemon(&self) -> Option<&Daemon> {
        self.daemon.as_ref()
    }

    /// The daemon's base URL (control plane and envd router).
    pub fn url(&self) -> String {
        self.daemon.as_ref().map(Daemon::url).unwrap_or_default()
    }

    pub fn api_key(&self) -> String {
        self.daemon.as_ref().map(|d| d.api_key().to_owned()).unwrap_or_default()
    }

    /// Stops the daemon (its sandboxes are paused, then removed with the state dir).
    pub async fn stop(mut self) -> anyhow::Result<()> {
        if let Some(daemon) = self.daemon.take() {
            daemon.shutdown().await?;
        }
        Ok(())
    }
}

/// A test that ends without [`TestDaemon::stop`] leaves its sandboxes as a crash would,
/// but not the daemon's layer view and disk image mounted in a directory about to be
/// removed.
impl Drop for TestDaemon {
    fn drop(&mut self) {
        if let Some(daemon) = self.daemon.take() {
            drop(daemon);
            let state = self._state.path().join("state");
            crate::server::layers::clean_up(&state);
            crate::server::disk::clean_up(&state);
        }
    }
}
