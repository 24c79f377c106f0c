//! The network of a gVisor sandbox: a namespace of gVisor's own behind the sandbox's.
//!
//! gVisor's own network stack (netstack) is what its checkpoints can save: with the host
//! kernel's sockets (`--network=host`) runsc refuses to checkpoint. netstack takes over
//! the interfaces of the namespace it starts in and talks to them with packet sockets,
//! which the kernel's nftables hooks of that namespace never see. So gVisor does not get
//! the sandbox's namespace (pasta's interface, the egress rules, the domain filter: see
//! `network.rs`) but one of its own, joined to it by a veth pair:
//!
//! ```text
//!   gVisor (netstack)  ──  guest namespace: eth0 198.19.0.2/24, default via .1
//!                           │ veth
//!   sandbox namespace:     gv0 198.19.0.1/24 ── nftables (forward, divert_guest,
//!                           guest_out masquerade) ── eth0 (pasta) ── host sockets
//! ```
//!
//! The sandbox's namespace forwards between the two (its `ip_forward` only: the host's is
//! untouched) through the same checks as a native sandbox's own connections (`chain
//! forward` of its ruleset); what it would refuse on ports 80 and 443 is diverted to the
//! domain filter (`route_localnet` on `gv0` lets the guest's connections be sent to the
//! filter on the namespace's loopback); the guest reaches nothing else of the namespace.
//! The daemon reaches envd and the sandbox's ports at [`GUEST`] from the sandbox's
//! namespace. Every guest has the same addresses: each pair lives in namespaces of its
//! own, and a checkpoint restored into a fresh pair (a resume, a fork) finds the
//! addresses it was saved with.

use std::net::Ipv4Addr;
use std::os::fd::AsRawFd;
use std::path::{Path, PathBuf};

use anyhow::Context;

/// The veth end in the sandbox's namespace.
pub const LINK: &str = "gv0";
/// The router's (the sandbox's namespace's) address on the link.
pub const ROUTER: Ipv4Addr = Ipv4Addr::new(198, 19, 0, 1);
/// gVisor's address: where envd and the sandbox's ports are reached.
pub const GUEST: Ipv4Addr = Ipv4Addr::new(198, 19, 0, 2);
/// The link's network and prefix.
pub const GUEST_NET: Ipv4Addr = Ipv4Addr::new(198, 19, 0, 0);
pub const PREFIX: u8 = 24;
/// The program that makes the link.
pub const IP: &str = "ip";

/// gVisor's namespace, pinned to a file, joined to the sandbox's by a veth pair. Dropped,
/// it is unpinned: the pair goes when its last user (runsc's sandbox process) does.
#[derive(Debug)]
pub struct GuestLink {
    pin: PathBuf,
}

impl GuestLink {
    /// Where sandbox `id`'s guest namespace is pinned, beside its own pin in `dir`.
    pub fn pin_for(dir: &Path, id: &str) -> PathBuf {
        dir.join(format!("{id}.guest"))
    }

    /// Makes the guest namespace (pinned at `pin`) and the link to the sandbox's
    /// namespace pinned at `router`. Blocking (~10 ms: two `ip` runs).
    pub fn attach(router: &Path, pin: &Path) -> anyhow::Result<GuestLink> {
        let link = GuestLink { pin: pin.to_owned() };
        link.unpin();
        std::fs::File::create(pin).with_context(|| format!("creating {}", pin.display()))?;
        crate::server::netns::pin_new_namespace(pin, || Ok(()))
            .context("making the guest's network namespace")?;
        let router_side = format!(
            "link add {LINK} type veth peer name eth0 netns {}\n\
             addr add {ROUTER}/{PREFIX} dev {LINK}\n\
             link set {LINK} up\n",
            pin.display()
        );
        ip_in(router, &router_side).context("linking the guest to the sandbox's namespace")?;
        in_namespace(router, || {
            std::fs::write("/proc/sys/net/ipv4/ip_forward", "1")?;
            std::fs::write(format!("/proc/sys/net/ipv4/conf/{LINK}/route_localnet"), "1")
        })
        .context("letting the sandbox's namespace forward the guest's traffic")?;
        let guest_side = format!(
            "link set lo up\n\
             addr add {GUEST}/{PREFIX} dev eth0\n\
             link set eth0 up\n\
             route add default via {ROUTER}\n"
        );
        ip_in(pin, &guest_side).context("setting up the guest's interface")?;
        Ok(link)
    }

    /// Unpins what a daemon that died left of sandbox `id`'s guest namespace in `dir`.
    pub fn clean_up(dir: &Path, id: &str) {
        drop(GuestLink { pin: GuestLink::pin_for(dir, id) });
    }

    /// The pinned guest namespace (the bundle's network namespace).
    pub fn pin(&self) -> &Path {
        &self.pin
    }

    fn unpin(&self) {
        if let Ok(path) = std::ffi::CString::new(self.pin.as_os_str().as_encoded_bytes()) {
            // SAFETY: umount2 of a valid path; one not mounted fails harmlessly.
            unsafe { libc::umount2(path.as_ptr(), libc::MNT_DETACH) };
        }
        let _ = std::fs::remove_file(&self.pin);
    }
}

impl Drop for GuestLink {
    fn drop(&mut self) {
        self.unpin();
    }
}

/// Runs `ip -batch -` with `commands` in the namespace pinned at `pin`. Blocking.
fn ip_in(pin: &Path, commands: &str) -> anyhow::Result<()> {
    crate::server::netns::run_in(pin, IP, &["-batch", "-"], commands)
        .context("ip (iproute2) failed")
}

/// Runs `work` on a thread that entered the namespace pinned at `pin` (what it opens
/// under `/proc/sys/net` is that namespace's).
fn in_namespace(
    pin: &Path,
    work: impl FnOnce() -> std::io::Result<()> + Send + 'static,
) -> std::io::Result<()> {
    let namespace = std::fs::File::open(pin)?;
    std::thread::Builder::new()
        .name("dsh-netns-sysctl".into())
        .spawn(move || {
            // SAFETY: setns moves only this thread, which ends afterwards.
            if unsafe { libc::setns(namespace.as_raw_fd(), libc::CLONE_NEWNET) } == -1 {
                return Err(std::io::Error::last_os_error());
            }
            work()
        })?
        .join()
        .map_err(|_| std::io::Error::other("the namespace thread panicked"))?
}
