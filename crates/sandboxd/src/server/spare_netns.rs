//! Network namespaces made ahead, each with its loopback up and the domain filter's
//! listener bound in it, so that a launch that cannot come from the pool (a fork, a
//! restart, a burst) does not make one on its critical path.
//!
//! Making a network namespace and bringing its `lo` up both wait on the kernel: the
//! first for the pernet lock and its RCU work, the second for `rtnl_lock`, which a
//! namespace being torn down beside it (a sandbox just killed) holds across RCU grace
//! periods. On this project's 2-core CI host the two cost 12-25 ms together, most of a
//! fork's round trip. A spare is held only by a descriptor: a daemon that dies leaves
//! nothing pinned. A launch takes one and pins it where the sandbox's namespace is
//! expected (a bind mount, microseconds); where none is ready it makes one as before.

use std::os::fd::{AsRawFd, OwnedFd};
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use crate::syscall::Syscall as _;

/// How many namespaces are kept ready.
const SPARES: usize = 2;

/// How long after a take the refill starts: it waits on the same kernel locks as the
/// launch that took one, so it comes once that launch is done.
const REFILL_DELAY: Duration = Duration::from_millis(100);

/// A network namespace made ahead: its loopback is up and `listener` is bound on it.
pub struct SpareNamespace {
    namespace: OwnedFd,
    listener: std::net::TcpListener,
}

impl SpareNamespace {
    /// Makes one on a thread of its own, which ends with it (a thread that unshared its
    /// network namespace cannot always enter the daemon's again: an ordinary user's).
    pub fn make() -> std::io::Result<SpareNamespace> {
        std::thread::Builder::new()
            .name("dsh-netns-new".into())
            .spawn(make_here)?
            .join()
            .map_err(|_| std::io::Error::other("the namespace thread panicked"))?
    }

    /// Pins the namespace at `pin` (an existing empty file) and returns the domain
    /// filter's listener made in it.
    pub fn pin_at(self, pin: &Path) -> std::io::Result<std::net::TcpListener> {
        let source = format!("/proc/self/fd/{}", self.namespace.as_raw_fd());
        super::network::bind(&source, pin)?;
        Ok(self.listener)
    }
}

fn make_here() -> std::io::Result<SpareNamespace> {
    // SAFETY: unshare(CLONE_NEWNET) moves only this thread, which ends afterwards.
    if unsafe { libc::unshare(libc::CLONE_NEWNET) } == -1 {
        return Err(std::io::Error::last_os_error());
    }
    let namespace = std::fs::File::open("/proc/thread-self/ns/net")?.into();
    crate::syscall::LinuxSyscall::default().loopback_up()?;
    let listener = super::domains::Divert::listener_here()?;
    Ok(SpareNamespace { namespace, listener })
}

/// The spares, refilled in the background after each take. Filling starts at the first
/// take: a daemon whose sandboxes never have a network of their own makes none.
#[derive(Default)]
pub struct SpareNamespaces {
    ready: Mutex<Vec<SpareNamespace>>,
    refilling: AtomicBool,
    /// Set when making one failed: launches make their own from then on, said once.
    failed: AtomicBool,
}

impl SpareNamespaces {
    /// A spare, if one is ready; a refill starts either way.
    pub fn take(self: &Arc<Self>) -> Option<SpareNamespace> {
        let taken = self.lock().pop();
        self.refill();
        taken
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<SpareNamespace>> {
        self.ready.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn refill(self: &Arc<Self>) {
        if self.failed.load(Ordering::SeqCst) || self.refilling.swap(true, Ordering::SeqCst) {
            return;
        }
        // Weak: a daemon dropped meanwhile frees its spares without waiting for this.
        let spares = Arc::downgrade(self);
        let spawned = std::thread::Builder::new().name("dsh-netns-spares".into()).spawn(move || {
            std::thread::sleep(REFILL_DELAY);
            while let Some(spares) = spares.upgrade() {
                if spares.lock().len() >= SPARES {
                    spares.refilling.store(false, Ordering::SeqCst);
                    return;
                }
                match SpareNamespace::make() {
                    Ok(spare) => spares.lock().push(spare),
                    Err(e) => {
                        tracing::warn!(error = %e, "making a network namespace ahead failed; launches make their own");
                        spares.failed.store(true, Ordering::SeqCst);
                        spares.refilling.store(false, Ordering::SeqCst);
                        return;
                    }
                }
            }
        });
        if spawned.is_err() {
            self.refilling.store(false, Ordering::SeqCst);
        }
    }

    /// How many are ready (for tests and metrics).
    pub fn ready(&self) -> usize {
        self.lock().len()
    }
}

#[cfg(test)]
mod tests {
    use std::time::Instant;

    use super::*;

    /// Whether `lo` is up and the listener answers, seen from inside `namespace`.
    fn inside(namespace: &std::fs::File, port: u16) -> (bool, bool) {
        let namespace = namespace.try_clone().unwrap();
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

    #[test]
    fn spares_are_made_after_the_first_take_and_pinned_with_loopback_up_and_listener() {
        let spares = Arc::new(SpareNamespaces::default());
        assert!(spares.take().is_none(), "none before the first take");
        let deadline = Instant::now() + Duration::from_secs(10);
        while spares.ready() < SPARES && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(10));
        }
        assert_eq!(spares.ready(), SPARES);

        let dir = tempfile::tempdir().unwrap();
        let pin = dir.path().join("sbx");
        std::fs::File::create(&pin).unwrap();
        let listener = spares.take().unwrap().pin_at(&pin).unwrap();
        let port = listener.local_addr().unwrap().port();
        let pinned = std::fs::File::open(&pin).unwrap();
        let own = std::fs::metadata("/proc/self/ns/net").unwrap();
        use std::os::unix::fs::MetadataExt as _;
        assert_ne!(pinned.metadata().unwrap().ino(), own.ino(), "a namespace of its own");
        assert_eq!(inside(&pinned, port), (true, true));

        // SAFETY: umount2 of the pin made above.
        let pin_c = std::ffi::CString::new(pin.as_os_str().as_encoded_bytes()).unwrap();
        assert_eq!(unsafe { libc::umount2(pin_c.as_ptr(), libc::MNT_DETACH) }, 0);
    }
}
