//! A sandbox's private network (`net = "private"`), host side.
//!
//! The daemon makes the sandbox's network namespace (owned by the host's user namespace,
//! so nothing inside may change it) before the sandbox is set up, and
//! 1. pins it to a file (`<netns dir>/<id>`), which the sandbox's init joins: pasta
//!    attaches to namespaces by path, and exits by itself when the file goes;
//! 2. loads the egress rules into it (nftables, `nft -f -` run in the namespace): the
//!    host's own addresses and pasta's gateway are always refused, the LAN's private
//!    ranges unless allowed, then E2B's `allowOut` (first: allow wins) and `denyOut`;
//! 3. starts pasta on it (2 and 3 at once, while the sandbox is set up): an interface with [`private_net`]'s address, a default route
//!    through pasta to the host's network, a DNS forwarder, no port of the host mapped in
//!    and none of the sandbox's mapped out (inbound goes through the daemon's proxy).

use std::fmt::Write as _;
use std::io::Write as _;
use std::net::Ipv4Addr;
use std::os::fd::AsRawFd;
use std::os::unix::process::CommandExt as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use anyhow::{Context, bail};
use serde::{Deserialize, Serialize};

use crate::spec::private_net;

/// Entries in `allowOut` or `denyOut` at most.
pub const MAX_RULES: usize = 1000;

/// Private and special ranges the sandbox may not reach unless `allowOut` names them:
/// the host's LAN, link-local (cloud metadata services), carrier-grade NAT, loopback.
const LAN: &[&str] = &[
    "10.0.0.0/8",
    "172.16.0.0/12",
    "192.168.0.0/16",
    "169.254.0.0/16",
    "100.64.0.0/10",
    "127.0.0.0/8",
    "0.0.0.0/8",
];

/// An IPv4 address or CIDR block, as `allowOut`/`denyOut` name them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Cidr {
    pub address: Ipv4Addr,
    pub prefix: u8,
}

impl std::fmt::Display for Cidr {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/{}", self.address, self.prefix)
    }
}

impl Cidr {
    /// `203.0.113.4` or `203.0.113.0/24`; the error says what is wrong, for a 400.
    pub fn parse(text: &str) -> Result<Cidr, String> {
        let text = text.trim();
        if text.is_empty() {
            return Err("an empty entry".into());
        }
        let (address, prefix) = match text.split_once('/') {
            Some((address, prefix)) => {
                let prefix = prefix
                    .parse::<u8>()
                    .ok()
                    .filter(|p| *p <= 32)
                    .ok_or_else(|| format!("{text:?}: the prefix must be 0-32"))?;
                (address, prefix)
            }
            None => (text, 32),
        };
        let address = address.parse::<Ipv4Addr>().map_err(|_| {
            if address.contains(':') {
                format!("{text:?}: IPv6 is not routed in local sandboxes")
            } else if address.chars().any(|c| c.is_ascii_alphabetic()) {
                format!("{text:?}: domain names are not supported by local sandboxes yet; use IP addresses or CIDR blocks")
            } else {
                format!("{text:?} is not an IPv4 address or CIDR block")
            }
        })?;
        // The network address, so `10.1.2.3/8` and `10.0.0.0/8` are the same rule.
        let mask = if prefix == 0 { 0 } else { u32::MAX << (32 - prefix) };
        Ok(Cidr { address: Ipv4Addr::from(u32::from(address) & mask), prefix })
    }
}

/// E2B's egress settings of one sandbox.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Egress {
    #[serde(default)]
    pub allow_out: Vec<String>,
    #[serde(default)]
    pub deny_out: Vec<String>,
    /// `allow_internet_access: false`: everything not allowed is denied.
    #[serde(default)]
    pub internet_denied: bool,
}

impl Egress {
    /// Checks every entry; the error is for a 400.
    pub fn validate(&self) -> Result<(), String> {
        for (name, list) in [("allowOut", &self.allow_out), ("denyOut", &self.deny_out)] {
            if list.len() > MAX_RULES {
                return Err(format!("{name} has {} entries; at most {MAX_RULES}", list.len()));
            }
            for entry in list {
                Cidr::parse(entry).map_err(|e| format!("{name}: {e}"))?;
            }
        }
        Ok(())
    }
}

/// The nftables ruleset of a sandbox's namespace (replacing any earlier one).
/// `host` are the host's own addresses, never reachable.
pub fn ruleset(egress: &Egress, host: &[Ipv4Addr]) -> Result<String, String> {
    let parse = |list: &[String]| -> Result<Vec<Cidr>, String> {
        list.iter().map(|entry| Cidr::parse(entry)).collect()
    };
    let (allow, deny) = (parse(&egress.allow_out)?, parse(&egress.deny_out)?);
    let set = |items: Vec<String>| format!("{{ {} }}", items.join(", "));
    let mut host: Vec<String> = host.iter().map(ToString::to_string).collect();
    host.push(private_net::GATEWAY.to_owned());
    let mut out = String::new();
    out.push_str("table inet dsh\ndelete table inet dsh\ntable inet dsh {\n");
    out.push_str("  chain output {\n    type filter hook output priority filter; policy accept;\n");
    out.push_str("    oifname \"lo\" accept\n");
    let _ = writeln!(
        out,
        "    ip daddr {} meta l4proto {{ tcp, udp }} th dport 53 accept",
        private_net::DNS
    );
    let _ = writeln!(out, "    ip daddr {} reject with icmpx admin-prohibited", set(host));
    if !allow.is_empty() {
        let _ = writeln!(
            out,
            "    ip daddr {} accept",
            set(allow.iter().map(ToString::to_string).collect())
        );
    }
    let lan = LAN.iter().map(|s| (*s).to_owned()).collect();
    let _ = writeln!(out, "    ip daddr {} reject with icmpx admin-prohibited", set(lan));
    if !deny.is_empty() {
        let deny = deny.iter().map(ToString::to_string).collect();
        let _ = writeln!(out, "    ip daddr {} reject with icmpx admin-prohibited", set(deny));
    }
    if egress.internet_denied {
        out.push_str("    reject with icmpx admin-prohibited\n");
    }
    out.push_str("    meta nfproto ipv6 reject with icmpx admin-prohibited\n  }\n}\n");
    Ok(out)
}

/// The host's own IPv4 addresses (every interface's).
pub fn host_addresses() -> Vec<Ipv4Addr> {
    let mut addresses = Vec::new();
    let mut list: *mut libc::ifaddrs = std::ptr::null_mut();
    // SAFETY: getifaddrs allocates the list, read below and freed with freeifaddrs.
    if unsafe { libc::getifaddrs(&mut list) } != 0 {
        return addresses;
    }
    let mut entry = list;
    while !entry.is_null() {
        // SAFETY: `entry` is a node of the list getifaddrs returned.
        let addr = unsafe { (*entry).ifa_addr };
        // SAFETY: an AF_INET ifa_addr points to a sockaddr_in.
        if !addr.is_null() && unsafe { (*addr).sa_family } == libc::AF_INET as libc::sa_family_t {
            let inet = unsafe { &*(addr as *const libc::sockaddr_in) };
            let address = Ipv4Addr::from(u32::from_be(inet.sin_addr.s_addr));
            if !addresses.contains(&address) {
                addresses.push(address);
            }
        }
        // SAFETY: as above.
        entry = unsafe { (*entry).ifa_next };
    }
    // SAFETY: the list came from getifaddrs.
    unsafe { libc::freeifaddrs(list) };
    addresses
}

/// A sandbox's network as the daemon holds it: the pinned namespace and pasta.
#[derive(Debug)]
pub struct Attached {
    /// The namespace pinned to a file.
    pin: PathBuf,
    /// pasta's pid file.
    pid_file: PathBuf,
    /// The rules and pasta being set up, until [`Attached::wait_ready`].
    setting_up: Option<std::thread::JoinHandle<anyhow::Result<()>>>,
}

/// Programs the private network needs on the host.
pub const PASTA: &str = "pasta";
pub const NFT: &str = "nft";

/// Checks that pasta and nft are installed (the daemon refuses to start without them
/// when sandboxes get private networks).
pub fn check_tools() -> anyhow::Result<()> {
    for (tool, package) in [(PASTA, "passt"), (NFT, "nftables")] {
        let found = std::env::var_os("PATH")
            .is_some_and(|path| std::env::split_paths(&path).any(|dir| dir.join(tool).is_file()));
        if !found {
            bail!(
                "private sandbox networks need `{tool}` on PATH: install the `{package}` package (apt-get install {package}), or set [sandboxd] net = \"none\""
            );
        }
    }
    Ok(())
}

impl Attached {
    /// Makes a network namespace for sandbox `id`, pinned under `dir` (the sandbox's init
    /// joins it), and starts loading `egress` and attaching pasta in the background, so
    /// that the network comes up while the sandbox is set up. [`Attached::wait_ready`]
    /// waits for both. Nothing of the sandbox runs before its create returns, which
    /// waits, so the rules need not be in place before pasta's route is.
    pub fn start(dir: &Path, id: &str, egress: &Egress) -> anyhow::Result<Attached> {
        std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
        let mut attached = Attached {
            pin: dir.join(id),
            pid_file: dir.join(format!("{id}.pasta.pid")),
            setting_up: None,
        };
        // A leftover of a daemon that died is replaced.
        attached.detach();
        std::fs::File::create(&attached.pin)
            .with_context(|| format!("creating {}", attached.pin.display()))?;
        let pin = attached.pin.clone();
        std::thread::Builder::new()
            .name("dsh-netns-new".into())
            .spawn(move || new_namespace_pinned_at(&pin))
            .context("starting a thread")?
            .join()
            .map_err(|_| anyhow::anyhow!("the namespace thread panicked"))?
            .context("making the sandbox's network namespace")?;
        let (pin, pid_file, egress) =
            (attached.pin.clone(), attached.pid_file.clone(), egress.clone());
        attached.setting_up = Some(
            std::thread::Builder::new()
                .name("dsh-netns-up".into())
                .spawn(move || {
                    std::thread::scope(|scope| {
                        let loading = scope.spawn(|| load(&pin, &egress));
                        let started = start_pasta(&pin, &pid_file);
                        let loaded = loading
                            .join()
                            .unwrap_or_else(|_| Err(anyhow::anyhow!("the nft thread panicked")));
                        loaded.and(started)
                    })
                })
                .context("starting a thread")?,
        );
        Ok(attached)
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
}

/// Loads `egress` into the namespace pinned at `pin`, replacing its rules. Blocking.
pub fn load(pin: &Path, egress: &Egress) -> anyhow::Result<()> {
    let rules = ruleset(egress, &host_addresses()).map_err(anyhow::Error::msg)?;
    let namespace = std::fs::File::open(pin).context("opening the pinned namespace")?;
    let fd = namespace.as_raw_fd();
    let mut command = Command::new(NFT);
    command.args(["-f", "-"]).stdin(Stdio::piped()).stdout(Stdio::null()).stderr(Stdio::piped());
    // SAFETY: setns is async-signal-safe; it moves only the forked child.
    unsafe {
        command.pre_exec(move || {
            if libc::setns(fd, libc::CLONE_NEWNET) == -1 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    let mut child = command.spawn().context("running nft")?;
    if let Some(mut stdin) = child.stdin.take() {
        stdin.write_all(rules.as_bytes()).context("writing the ruleset to nft")?;
    }
    let output = wait_with_timeout(child, Duration::from_secs(10))?;
    if !output.status.success() {
        bail!("nft refused the egress rules: {}", String::from_utf8_lossy(&output.stderr).trim());
    }
    Ok(())
}

/// Attaches pasta to the namespace pinned at `pin`; returns once its interface is up.
fn start_pasta(pin: &Path, pid_file: &Path) -> anyhow::Result<()> {
    let prefix = private_net::PREFIX.to_string();
    let mut command = Command::new(PASTA);
    command
        .args(["--config-net", "--netns"])
        .arg(pin)
        // As root: pasta drops to nobody by default and then cannot join a namespace
        // of the host's user namespace.
        .args(["--runas", "0", "-q", "-4", "-P"])
        .arg(pid_file)
        .args(["-I", private_net::INTERFACE, "-a", private_net::ADDRESS, "-n", &prefix])
        .args(["-g", private_net::GATEWAY, "--dns-forward", private_net::DNS])
        // Nothing of the host mapped in, nothing of the sandbox mapped out.
        .args(["-t", "none", "-u", "none", "-T", "none", "-U", "none", "--no-map-gw"])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped());
    // pasta forks into the background once the namespace's interface is set up.
    let child = command.spawn().context("starting pasta")?;
    let output = wait_with_timeout(child, Duration::from_secs(10))?;
    if !output.status.success() {
        bail!("pasta failed: {}", String::from_utf8_lossy(&output.stderr).trim());
    }
    Ok(())
}

impl Attached {
    /// Unpins the namespace (pasta exits when its file goes) and stops pasta.
    pub fn detach(&self) {
        if let Ok(pin) = std::ffi::CString::new(self.pin.as_os_str().as_encoded_bytes()) {
            // SAFETY: umount2 of a valid path; a pin that is not mounted fails harmlessly.
            unsafe { libc::umount2(pin.as_ptr(), libc::MNT_DETACH) };
        }
        let _ = std::fs::remove_file(&self.pin);
        if let Some(pid) = std::fs::read_to_string(&self.pid_file)
            .ok()
            .and_then(|text| text.trim().parse::<libc::pid_t>().ok())
            .filter(|pid| *pid > 1 && is_pasta(*pid))
        {
            // SAFETY: plain kill(2) of the pasta the pid file names (checked above).
            unsafe { libc::kill(pid, libc::SIGTERM) };
        }
        let _ = std::fs::remove_file(&self.pid_file);
    }
}

impl Drop for Attached {
    fn drop(&mut self) {
        self.detach();
    }
}

/// Removes what a daemon that died left of sandbox `id`'s network under `dir`.
pub fn clean_up(dir: &Path, id: &str) {
    drop(Attached {
        pin: dir.join(id),
        pid_file: dir.join(format!("{id}.pasta.pid")),
        setting_up: None,
    });
}

/// Runs on a thread of its own, which ends right after: makes a network namespace for
/// itself (a thread may, unlike for user or mount namespaces) and pins it to `pin`.
fn new_namespace_pinned_at(pin: &Path) -> std::io::Result<()> {
    // SAFETY: unshare(CLONE_NEWNET) moves only this thread, which exits afterwards.
    if unsafe { libc::unshare(libc::CLONE_NEWNET) } == -1 {
        return Err(std::io::Error::last_os_error());
    }
    bind("/proc/thread-self/ns/net", pin)
}

fn bind(source: &str, target: &Path) -> std::io::Result<()> {
    let nul = |_| std::io::Error::new(std::io::ErrorKind::InvalidInput, "NUL in a path");
    let source = std::ffi::CString::new(source).map_err(nul)?;
    let target = std::ffi::CString::new(target.as_os_str().as_encoded_bytes()).map_err(nul)?;
    // SAFETY: both are valid NUL-terminated paths; a bind mount takes no data.
    let ret = unsafe {
        libc::mount(
            source.as_ptr(),
            target.as_ptr(),
            std::ptr::null(),
            libc::MS_BIND,
            std::ptr::null(),
        )
    };
    if ret == -1 { Err(std::io::Error::last_os_error()) } else { Ok(()) }
}

fn is_pasta(pid: libc::pid_t) -> bool {
    std::fs::read(format!("/proc/{pid}/cmdline")).is_ok_and(|cmdline| {
        cmdline.starts_with(b"pasta") || cmdline.starts_with(b"/usr/bin/pasta")
    })
}

fn wait_with_timeout(
    mut child: std::process::Child,
    timeout: Duration,
) -> anyhow::Result<std::process::Output> {
    let deadline = std::time::Instant::now() + timeout;
    loop {
        if child.try_wait()?.is_some() {
            return Ok(child.wait_with_output()?);
        }
        if std::time::Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            bail!("timed out after {timeout:?}");
        }
        std::thread::sleep(Duration::from_millis(2));
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn entries_are_addresses_or_cidrs_and_errors_say_why() {
        assert_eq!(Cidr::parse("203.0.113.8").unwrap().to_string(), "203.0.113.8/32");
        assert_eq!(Cidr::parse(" 10.1.2.3/8 ").unwrap().to_string(), "10.0.0.0/8");
        assert_eq!(Cidr::parse("0.0.0.0/0").unwrap().to_string(), "0.0.0.0/0");
        assert_eq!(Cidr::parse("").unwrap_err(), "an empty entry");
        assert_eq!(
            Cidr::parse("203.0.113.4/33").unwrap_err(),
            "\"203.0.113.4/33\": the prefix must be 0-32"
        );
        assert_eq!(
            Cidr::parse("1.2.3").unwrap_err(),
            "\"1.2.3\" is not an IPv4 address or CIDR block"
        );
        assert_eq!(
            Cidr::parse("::1").unwrap_err(),
            "\"::1\": IPv6 is not routed in local sandboxes"
        );
        assert!(
            Cidr::parse("sandbox.test").unwrap_err().contains("domain names are not supported")
        );
        let many =
            Egress { allow_out: vec!["203.0.113.1".into(); MAX_RULES + 1], ..Egress::default() };
        assert_eq!(many.validate().unwrap_err(), "allowOut has 1001 entries; at most 1000");
        let bad = Egress { deny_out: vec!["300.1.1.1".into()], ..Egress::default() };
        assert_eq!(
            bad.validate().unwrap_err(),
            "denyOut: \"300.1.1.1\" is not an IPv4 address or CIDR block"
        );
    }

    #[test]
    fn the_host_comes_first_then_allow_then_the_lan_then_deny() {
        let egress = Egress {
            allow_out: vec!["10.1.0.0/16".into()],
            deny_out: vec!["198.51.100.7".into()],
            internet_denied: true,
        };
        let host = [Ipv4Addr::new(127, 0, 0, 1), Ipv4Addr::new(192, 0, 2, 2)];
        assert_eq!(
            ruleset(&egress, &host).unwrap(),
            "table inet dsh
delete table inet dsh
table inet dsh {
  chain output {
    type filter hook output priority filter; policy accept;
    oifname \"lo\" accept
    ip daddr 198.18.0.53 meta l4proto { tcp, udp } th dport 53 accept
    ip daddr { 127.0.0.1, 192.0.2.2, 198.18.0.1 } reject with icmpx admin-prohibited
    ip daddr { 10.1.0.0/16 } accept
    ip daddr { 10.0.0.0/8, 172.16.0.0/12, 192.168.0.0/16, 169.254.0.0/16, 100.64.0.0/10, 127.0.0.0/8, 0.0.0.0/8 } reject with icmpx admin-prohibited
    ip daddr { 198.51.100.7/32 } reject with icmpx admin-prohibited
    reject with icmpx admin-prohibited
    meta nfproto ipv6 reject with icmpx admin-prohibited
  }
}
"
        );
    }
}
