//! A sandbox's private network as the daemon holds it while the sandbox runs: its pinned
//! namespace (made afresh, or taken from the spares), pasta, the egress rules and the
//! domain filter, set up in the background and torn down without leaving a process.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use anyhow::Context;

use crate::server::domains::{Divert, Policy};
use crate::server::host_addresses::host_addresses;
use crate::server::intercept::Interception;
use crate::server::netns::bind;
use crate::server::network::*;
use crate::server::spare_netns::{SpareNetworks, TakenNetwork};

/// A sandbox's network as the daemon holds it: the pinned namespace and pasta.
#[derive(Debug)]
pub struct Attached {
    /// The namespace pinned to a file.
    pin: PathBuf,
    /// pasta's pid file.
    pid_file: PathBuf,
    /// Where a network made ahead was first pinned, and its pasta's pid file (see
    /// `spare_netns.rs`): removed with the rest.
    spare: Option<(PathBuf, PathBuf)>,
    /// The rules and pasta being set up, until [`Attached::wait_ready`].
    setting_up: Option<std::thread::JoinHandle<anyhow::Result<()>>>,
    /// The domain filter on the sandbox's loopback (dropped, and stopped, first).
    divert: Option<Divert>,
    /// What the domain filter serves header rules with.
    interception: Option<Arc<Interception>>,
}

impl Attached {
    /// Makes a network namespace for sandbox `id`, pinned under `dir` (the sandbox's init
    /// joins it), and starts loading `egress` and attaching pasta in the background, so
    /// that the network comes up while the sandbox is set up. [`Attached::wait_ready`]
    /// waits for both. Nothing of the sandbox runs before its create returns, which
    /// waits, so the rules need not be in place before pasta's route is.
    ///
    /// Runs on a thread of the tokio runtime's blocking pool: the domain filter is
    /// served on that runtime.
    pub fn start(
        dir: &Path,
        id: &str,
        egress: &Egress,
        spares: &Arc<SpareNetworks>,
        interception: Option<Arc<Interception>>,
    ) -> anyhow::Result<Attached> {
        std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
        let mut attached = Attached {
            pin: dir.join(id),
            pid_file: dir.join(format!("{id}.pasta.pid")),
            spare: None,
            setting_up: None,
            divert: None,
            interception,
        };
        // A leftover of a daemon that died is replaced.
        attached.detach();
        std::fs::File::create(&attached.pin)
            .with_context(|| format!("creating {}", attached.pin.display()))?;
        match spares.take() {
            Some(spare) => attached.start_from(spare, egress)?,
            None => attached.start_afresh(egress)?,
        }
        Ok(attached)
    }

    /// Takes over a network made ahead: pins it at the sandbox's id too, and loads
    /// `egress` in the background unless the rules loaded already are the same.
    fn start_from(&mut self, spare: TakenNetwork, egress: &Egress) -> anyhow::Result<()> {
        let TakenNetwork { pin, pid_file, listener, loaded } = spare;
        self.spare = Some((pin.clone(), pid_file.clone()));
        bind(&pin.to_string_lossy(), &self.pin)
            .context("pinning the sandbox's network namespace")?;
        let pid = std::fs::read(&pid_file).context("reading pasta's pid file")?;
        std::fs::write(&self.pid_file, pid)
            .with_context(|| format!("writing {}", self.pid_file.display()))?;
        let divert_port = self.serve_divert(listener, egress)?;
        let rules =
            ruleset(egress, &host_addresses(), Some(divert_port)).map_err(anyhow::Error::msg)?;
        if rules != loaded {
            let pin = self.pin.clone();
            self.setting_up = Some(
                std::thread::Builder::new()
                    .name("dsh-netns-up".into())
                    .spawn(move || nft_in(&pin, &rules).context("nft refused the egress rules"))
                    .context("starting a thread")?,
            );
        }
        Ok(())
    }

    /// Makes the namespace now and starts loading `egress` and attaching pasta in the
    /// background.
    fn start_afresh(&mut self, egress: &Egress) -> anyhow::Result<()> {
        let listener = crate::server::spare_netns::new_namespace_pinned_at(&self.pin)
            .context("making the sandbox's network namespace")?;
        let divert_port = self.serve_divert(listener, egress)?;
        let (pin, pid_file, egress) = (self.pin.clone(), self.pid_file.clone(), egress.clone());
        self.setting_up = Some(
            std::thread::Builder::new()
                .name("dsh-netns-up".into())
                .spawn(move || {
                    std::thread::scope(|scope| {
                        let loading = scope.spawn(|| load(&pin, &egress, Some(divert_port)));
                        let started = start_pasta(&pin, &pid_file);
                        let loaded = loading
                            .join()
                            .unwrap_or_else(|_| Err(anyhow::anyhow!("the nft thread panicked")));
                        loaded.and(started)
                    })
                })
                .context("starting a thread")?,
        );
        Ok(())
    }

    /// Serves the domain filter on `listener` (bound in the pinned namespace); its port.
    fn serve_divert(
        &mut self,
        listener: std::net::TcpListener,
        egress: &Egress,
    ) -> anyhow::Result<u16> {
        let namespace = std::fs::File::open(&self.pin).context("opening the pinned namespace")?;
        let divert = Divert::serve(
            listener,
            namespace.into(),
            Policy::of(egress),
            self.interception.clone(),
        )
        .context("starting the sandbox's domain filter")?;
        let port = divert.port();
        self.divert = Some(divert);
        Ok(port)
    }

    /// Waits until the rules are loaded and pasta is up.
    pub fn wait_ready(&mut self) -> anyhow::Result<()> {
        match self.setting_up.take() {
            Some(thread) => {
                thread.join().map_err(|_| anyhow::anyhow!("the network thread panicked"))?
            }
            None => Ok(()),
        }
    }

    /// The file the namespace is pinned to (see [`load`]).
    pub fn pin(&self) -> &Path {
        &self.pin
    }

    /// The domain filter's port on the sandbox's loopback (see [`load`]).
    pub fn divert_port(&self) -> Option<u16> {
        self.divert.as_ref().map(Divert::port)
    }

    /// Replaces what the filter acts on (the nftables rules are [`load`]ed apart).
    pub fn set_policy(&self, egress: &Egress) {
        if let Some(divert) = &self.divert {
            divert.set_policy(Policy::of(egress));
        }
    }
}

impl Attached {
    /// Sends pasta SIGKILL without waiting for it (a kill's answer comes first; the
    /// detach that follows finds it gone).
    pub fn kill_pasta(&self) {
        if let Some(pid) = std::fs::read_to_string(&self.pid_file)
            .ok()
            .and_then(|text| text.trim().parse::<libc::pid_t>().ok())
            .filter(|pid| *pid > 1 && is_pasta(*pid))
        {
            // SAFETY: plain kill(2) of a pid checked to be pasta just before.
            unsafe { libc::kill(pid, libc::SIGKILL) };
        }
    }

    /// Stops the domain filter, unpins the namespace (pasta exits when its file goes)
    /// and stops pasta, waiting until it is gone: a kill that answered must leave no
    /// process of the sandbox behind.
    pub fn detach(&mut self) {
        self.divert = None;
        detach_pinned(&self.pin, &self.pid_file);
        if let Some((pin, pid_file)) = self.spare.take() {
            detach_pinned(&pin, &pid_file);
        }
    }
}

impl Drop for Attached {
    fn drop(&mut self) {
        let Some(setting_up) = self.setting_up.take() else {
            return self.detach();
        };
        // Dropped while pasta may still be starting (a launch that failed early): its pid
        // file is written only once it runs, so a detach now could miss it and leave it
        // running for good. The domain filter stops now; the rest once the setup ended.
        self.divert = None;
        let rest = Attached {
            pin: std::mem::take(&mut self.pin),
            pid_file: std::mem::take(&mut self.pid_file),
            spare: self.spare.take(),
            setting_up: None,
            divert: None,
            interception: None,
        };
        let waiting = std::thread::Builder::new().name("dsh-netns-down".into()).spawn(move || {
            let _ = setting_up.join();
            drop(rest);
        });
        if let Err(e) = waiting {
            tracing::warn!(error = %e, "no thread to detach a network once set up; detaching now");
        }
    }
}
