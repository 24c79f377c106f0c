//! Private networks made ahead: a network namespace with its loopback up, the domain
//! filter's listener bound in it, pasta attached and the default egress rules loaded, so
//! that a launch that cannot come from the pool (a fork, a restart, a burst) does not
//! set one up on its critical path.
//!
//! On this project's 2-core CI host pasta takes 15-30 ms to attach (it touches 16 MiB of
//! static tables at start), `nft` 9-20 ms to load the rules, and the namespace with its
//! loopback 12-25 ms (the pernet lock, and `rtnl_lock`, which a namespace being torn down
//! beside it holds across RCU grace periods): each alone longer than the rest of a fork.
//!
//! A spare is pinned at `netns/spare-<hex>`, pasta's pid file beside it. A launch that
//! takes one pins the same namespace at `netns/<id>` too (a bind mount, microseconds;
//! pasta watches its own file name, which stays) and copies the pid file to
//! `netns/<id>.pasta.pid`, so everything that finds a sandbox's network by its id still
//! does; the detach removes both. A daemon's start removes spares an earlier one left.

use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use crate::server::network::{self, Egress};
use crate::syscall::Syscall as _;

pub use crate::server::config::SPARES;

/// How long after a take the refill starts: it waits on the same kernel locks as the
/// launch that took one, so it comes once that launch is done.
const REFILL_DELAY: Duration = Duration::from_millis(100);

/// Names of spares' pins start with this (never a sandbox id, which has no `-`).
pub const PREFIX: &str = "spare-";

/// A private network made ahead (see the module's documentation). Dropped unused, it
/// is detached: pasta stopped, the pin removed.
pub struct SpareNetwork {
    pin: PathBuf,
    pid_file: PathBuf,
    listener: Option<TcpListener>,
    /// The ruleset loaded in it (what [`network::ruleset`] gave for the default egress).
    loaded: String,
}

/// What a launch gets of a spare: where it is pinned, pasta's pid file, the domain
/// filter's listener and the rules loaded in it. The caller owns the cleanup from then on.
pub struct TakenNetwork {
    pub pin: PathBuf,
    pub pid_file: PathBuf,
    pub listener: TcpListener,
    pub loaded: String,
}

impl SpareNetwork {
    /// Makes one under `dir`: blocking, tens of milliseconds.
    fn make(dir: &Path) -> anyhow::Result<SpareNetwork> {
        use anyhow::Context as _;
        let name = format!("{PREFIX}{}", crate::exec::random_uuid().replace('-', ""));
        let pin = dir.join(&name);
        std::fs::File::create(&pin).with_context(|| format!("creating {}", pin.display()))?;
        let mut spare = SpareNetwork {
            pid_file: dir.join(format!("{name}.pasta.pid")),
            pin,
            listener: None,
            loaded: String::new(),
        };
        let listener =
            new_namespace_pinned_at(&spare.pin).context("making a network namespace ahead")?;
        let port = listener.local_addr().context("the domain filter's port")?.port();
        spare.listener = Some(listener);
        network::start_pasta(&spare.pin, &spare.pid_file)?;
        let rules = network::ruleset(&Egress::default(), &network::host_addresses(), Some(port))
            .map_err(anyhow::Error::msg)?;
        network::nft_in(&spare.pin, &rules).context("nft refused the default egress rules")?;
        spare.loaded = rules;
        Ok(spare)
    }

    fn take(mut self) -> Option<TakenNetwork> {
        let listener = self.listener.take()?;
        Some(TakenNetwork {
            pin: std::mem::take(&mut self.pin),
            pid_file: std::mem::take(&mut self.pid_file),
            listener,
            loaded: std::mem::take(&mut self.loaded),
        })
    }
}

impl Drop for SpareNetwork {
    fn drop(&mut self) {
        if !self.pin.as_os_str().is_empty() {
            network::detach_pinned(&self.pin, &self.pid_file);
        }
    }
}

/// Makes a network namespace on a thread of its own (which ends with it: a thread that
/// unshared its network namespace cannot always enter the daemon's again, an ordinary
/// user's), pins it at `pin` (an existing empty file), brings its loopback up and binds
/// the domain filter's listener in it.
pub fn new_namespace_pinned_at(pin: &Path) -> std::io::Result<TcpListener> {
    pin_new_namespace(pin, || {
        crate::syscall::LinuxSyscall::default().loopback_up()?;
        crate::server::domains::Divert::listener_here()
    })
}

pub(crate) use crate::server::netns::pin_new_namespace;

/// The spares, refilled in the background after each take. Filling starts at the first
/// take: a daemon whose sandboxes never have a network of their own makes none.
pub struct SpareNetworks {
    dir: PathBuf,
    size: usize,
    ready: Mutex<Vec<SpareNetwork>>,
    refilling: AtomicBool,
    /// The refill's thread, joined at shutdown: one cut short would leave pasta running.
    refiller: Mutex<Option<std::thread::JoinHandle<()>>>,
    /// Set when making one failed (or at shutdown): launches set up their own from
    /// then on.
    off: AtomicBool,
}

impl Drop for SpareNetworks {
    /// A daemon dropped without a shutdown (a test's) must not leave a pasta behind.
    fn drop(&mut self) {
        self.shut_down();
    }
}

impl SpareNetworks {
    /// `size` spares under `dir` (the daemon's `netns` directory), after removing those
    /// an earlier daemon left there.
    pub fn new(dir: PathBuf, size: usize) -> SpareNetworks {
        clean_up(&dir);
        SpareNetworks {
            dir,
            size,
            ready: Mutex::new(Vec::new()),
            refilling: AtomicBool::new(false),
            refiller: Mutex::new(None),
            off: AtomicBool::new(size == 0),
        }
    }

    /// A spare, if one is ready; a refill starts either way.
    pub fn take(self: &Arc<Self>) -> Option<TakenNetwork> {
        let taken = self.lock().pop();
        self.refill();
        taken.and_then(SpareNetwork::take)
    }

    /// Stops refilling, waits for a refill under way, and detaches every spare (at the
    /// daemon's shutdown, and when it is dropped). Blocking.
    pub fn shut_down(&self) {
        self.off.store(true, Ordering::SeqCst);
        let refiller = self.refiller.lock().unwrap_or_else(|e| e.into_inner()).take();
        // Dropped by the refill itself (its brief hold was the last): it ends right after.
        if let Some(refiller) = refiller
            && refiller.thread().id() != std::thread::current().id()
        {
            let _ = refiller.join();
        }
        let spares = std::mem::take(&mut *self.lock());
        drop(spares);
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<SpareNetwork>> {
        self.ready.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn refill(self: &Arc<Self>) {
        if self.off.load(Ordering::SeqCst) || self.refilling.swap(true, Ordering::SeqCst) {
            return;
        }
        // Weak, and no strong hold while one is made (tens of milliseconds): the last hold
        // is then the daemon's, whose drop joins this thread (see `Drop`), and a spare
        // made for a daemon gone meanwhile is detached here.
        let spares = Arc::downgrade(self);
        let spawned = std::thread::Builder::new().name("dsh-netns-spares".into()).spawn(move || {
            // In steps, so that a shutdown (which joins this thread) need not wait.
            let waiting = std::time::Instant::now();
            while waiting.elapsed() < REFILL_DELAY {
                match spares.upgrade() {
                    Some(spares) if !spares.off.load(Ordering::SeqCst) => {}
                    _ => return,
                }
                std::thread::sleep(Duration::from_millis(10));
            }
            loop {
                let dir = match spares.upgrade() {
                    Some(spares)
                        if !spares.off.load(Ordering::SeqCst)
                            && spares.lock().len() < spares.size =>
                    {
                        spares.dir.clone()
                    }
                    Some(spares) => {
                        spares.refilling.store(false, Ordering::SeqCst);
                        return;
                    }
                    None => return,
                };
                let made = SpareNetwork::make(&dir);
                let Some(spares) = spares.upgrade() else { return };
                match made {
                    // A shutdown meanwhile: this one goes at once (dropped here).
                    Ok(spare) if spares.off.load(Ordering::SeqCst) => drop(spare),
                    Ok(spare) => spares.lock().push(spare),
                    Err(e) => {
                        tracing::warn!(error = format!("{e:#}"), "setting up a private network ahead failed; launches set up their own");
                        spares.off.store(true, Ordering::SeqCst);
                        spares.refilling.store(false, Ordering::SeqCst);
                        return;
                    }
                }
            }
        });
        match spawned {
            Ok(thread) => {
                *self.refiller.lock().unwrap_or_else(|e| e.into_inner()) = Some(thread);
            }
            Err(_) => self.refilling.store(false, Ordering::SeqCst),
        }
    }

    /// How many are ready.
    pub fn ready(&self) -> usize {
        self.lock().len()
    }
}

/// Removes every spare under `dir` (the daemon's `netns` directory) with its pasta: what a
/// daemon that died left, used or not (a sandbox's own pin is removed by its id).
pub fn clean_up(dir: &Path) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        if name.starts_with(PREFIX) && !name.ends_with(".pasta.pid") {
            network::clean_up(dir, &name);
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use std::os::fd::AsRawFd;
    use std::time::Instant;

    use super::*;

    /// Whether `lo` is up and `port` answers on 127.0.0.1, seen from inside the
    /// namespace pinned at `pin`.
    fn inside(pin: &Path, port: u16) -> (bool, bool) {
        let namespace = std::fs::File::open(pin).unwrap();
        std::thread::spawn(move || {
            // SAFETY: setns(2) of this thread (which ends here) into a namespace file.
            let joined = unsafe { libc::setns(namespace.as_raw_fd(), libc::CLONE_NEWNET) };
            assert_eq!(joined, 0, "{}", std::io::Error::last_os_error());
            let answered = std::net::TcpStream::connect(("127.0.0.1", port)).is_ok();
            (loopback_is_up(), answered)
        })
        .join()
        .unwrap()
    }

    /// IFF_UP of `lo` in the current thread's network namespace.
    fn loopback_is_up() -> bool {
        // SAFETY: plain socket(2), closed below.
        let fd = unsafe { libc::socket(libc::AF_INET, libc::SOCK_DGRAM | libc::SOCK_CLOEXEC, 0) };
        assert!(fd >= 0);
        // SAFETY: ifreq is plain old data; all-zero is valid.
        let mut req: libc::ifreq = unsafe { std::mem::zeroed() };
        for (dst, src) in req.ifr_name.iter_mut().zip(b"lo\0") {
            *dst = *src as libc::c_char;
        }
        // SAFETY: a socket and a properly sized ifreq.
        let got = unsafe { libc::ioctl(fd, libc::SIOCGIFFLAGS, &mut req) };
        // SAFETY: fd opened above.
        unsafe { libc::close(fd) };
        assert_eq!(got, 0);
        // SAFETY: SIOCGIFFLAGS filled the flags member.
        let flags = unsafe { req.ifr_ifru.ifru_flags };
        flags & libc::IFF_UP as libc::c_short != 0
    }

    fn pasta_of(pid_file: &Path) -> Option<u32> {
        let pid: u32 = std::fs::read_to_string(pid_file).ok()?.trim().parse().ok()?;
        let cmdline = std::fs::read(format!("/proc/{pid}/cmdline")).ok()?;
        cmdline.starts_with(b"pasta").then_some(pid)
    }

    fn names_in(dir: &Path) -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(dir)
            .unwrap()
            .flatten()
            .map(|entry| entry.file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    }

    fn filled(spares: &Arc<SpareNetworks>) {
        let deadline = Instant::now() + Duration::from_secs(20);
        while spares.ready() < SPARES && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(10));
        }
        assert_eq!(spares.ready(), SPARES);
    }

    #[test]
    fn spares_come_with_loopback_listener_pasta_and_default_rules_and_leave_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let spares = Arc::new(SpareNetworks::new(dir.path().to_owned(), SPARES));
        assert!(spares.take().is_none(), "none before the first take");
        filled(&spares);
        assert_eq!(names_in(dir.path()).len(), 2 * SPARES, "{:?}", names_in(dir.path()));

        let taken = spares.take().unwrap();
        let port = taken.listener.local_addr().unwrap().port();
        assert!(taken.pin.file_name().unwrap().to_string_lossy().starts_with(PREFIX));
        assert_eq!(inside(&taken.pin, port), (true, true));
        assert!(pasta_of(&taken.pid_file).is_some(), "pasta attached");
        let default =
            network::ruleset(&Egress::default(), &network::host_addresses(), Some(port)).unwrap();
        assert_eq!(taken.loaded, default);
        let pasta = pasta_of(&taken.pid_file).unwrap();
        network::detach_pinned(&taken.pin, &taken.pid_file);
        assert!(
            !std::path::Path::new(&format!("/proc/{pasta}/cmdline")).exists()
                || std::fs::read(format!("/proc/{pasta}/cmdline")).unwrap().is_empty()
        );

        // A daemon that died left its spares: the next one's start removes them.
        filled(&spares);
        let left: Vec<u32> = names_in(dir.path())
            .iter()
            .filter(|name| name.ends_with(".pasta.pid"))
            .filter_map(|name| pasta_of(&dir.path().join(name)))
            .collect();
        assert_eq!(left.len(), SPARES);
        let next = SpareNetworks::new(dir.path().to_owned(), SPARES);
        assert_eq!(names_in(dir.path()), Vec::<String>::new());
        for pid in left {
            let cmdline = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
            assert!(!cmdline.starts_with(b"pasta"), "pasta {pid} is left");
        }
        // The first one's now point at nothing; a shutdown leaves nothing either.
        spares.lock().iter_mut().for_each(|spare| spare.pin = PathBuf::new());
        spares.shut_down();
        next.shut_down();
        assert_eq!(names_in(dir.path()), Vec::<String>::new());
    }
}
