//! A real envd for other crates' tests: listening on 127.0.0.1:<ephemeral>, with a
//! private passwd/group holding `root` and `user` (uid 1000, home a fresh temporary
//! directory), so tests run the same on any host. `/init`'s `caBundle` goes to a trust
//! bundle in a temporary directory too ([`TestDaemon::ca_paths`], neither file there at
//! start), never to the host's. Enabled by the `test-support` feature.

use std::path::PathBuf;
use std::sync::Arc;

use crate::cacerts::CaPaths;
use crate::users::UserDb;
use crate::{Envd, EnvdConfig};

pub struct TestDaemon {
    /// `http://127.0.0.1:<port>`
    pub base_url: String,
    /// The home directory of `user`.
    pub home: PathBuf,
    /// Where `/init`'s `caBundle` is installed.
    pub ca_paths: CaPaths,
    pub envd: Arc<Envd>,
    _dir: tempfile::TempDir,
    shutdown: Option<tokio::sync::oneshot::Sender<()>>,
}

impl Drop for TestDaemon {
    fn drop(&mut self) {
        if let Some(tx) = self.shutdown.take() {
            let _ = tx.send(());
        }
        self.envd.processes.kill_all();
    }
}

/// Starts an envd whose default user is `user`.
pub async fn start() -> std::io::Result<TestDaemon> {
    start_with(EnvdConfig { default_user: "user".into(), ..EnvdConfig::default() }).await
}

pub async fn start_with(config: EnvdConfig) -> std::io::Result<TestDaemon> {
    let dir = tempfile::tempdir()?;
    let home = dir.path().join("home-user");
    std::fs::create_dir(&home)?;
    if rustix::process::geteuid().is_root() {
        std::os::unix::fs::chown(&home, Some(1000), Some(1000))?;
    }
    let passwd = dir.path().join("passwd");
    let group = dir.path().join("group");
    std::fs::write(
        &passwd,
        format!(
            "root:x:0:0:root:/root:/bin/bash\nuser:x:1000:1000::{}:/bin/bash\n",
            home.display()
        ),
    )?;
    std::fs::write(&group, "root:x:0:\nuser:x:1000:\n")?;
    let ca = dir.path().join("ca");
    let ca_paths = CaPaths {
        bundle: ca.join("etc/ssl/certs/ca-certificates.crt"),
        extra: ca.join("usr/local/share/ca-certificates/dsh-egress-ca.crt"),
    };
    let users = UserDb::from_files(&passwd, &group);
    let envd = Arc::new(Envd::with_users_and_ca_paths(config, users, ca_paths.clone()));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    let base_url = format!("http://{}", listener.local_addr()?);
    let (tx, rx) = tokio::sync::oneshot::channel::<()>();
    let served = Arc::clone(&envd);
    tokio::spawn(async move {
        let _ = crate::serve(listener, served, async {
            let _ = rx.await;
        })
        .await;
    });
    Ok(TestDaemon { base_url, home, ca_paths, envd, _dir: dir, shutdown: Some(tx) })
}
