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
use std::net::Ipv4Addr;
use std::os::fd::AsRawFd;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use anyhow::{Context, bail};

use crate::gvisor_net;
pub use crate::server::attached::Attached;
use crate::server::domains::{DIVERT_MARK, DIVERTED_PORTS};
pub use crate::server::egress::{Allowed, Cidr, Egress, LAN, MAX_RULES};
pub use crate::server::host_addresses::{host_addresses, is_host_address};
pub(crate) use crate::server::netns::run_in;
use crate::spec::private_net;

/// The nftables ruleset of a sandbox's namespace (replacing any earlier one).
/// `host` are the host's own addresses, never reachable. `divert_port`: where the
/// daemon's domain filter listens on the sandbox's loopback (see `domains.rs`).
pub fn ruleset(
    egress: &Egress,
    host: &[Ipv4Addr],
    divert_port: Option<u16>,
) -> Result<String, String> {
    let (mut allow, mut domains) = (Vec::new(), false);
    for entry in egress.allowed()? {
        match entry {
            Allowed::Cidr(cidr) => allow.push(cidr.to_string()),
            Allowed::Domain(_) => domains = true,
        }
    }
    let deny: Vec<String> = egress.denied()?.iter().map(ToString::to_string).collect();
    let set = |items: &[String]| format!("{{ {} }}", items.join(", "));
    let lan: Vec<String> = LAN.iter().map(|s| (*s).to_owned()).collect();
    let mark = format!("{DIVERT_MARK:#x}");
    let mut out = String::new();
    out.push_str("table inet dsh\ndelete table inet dsh\ntable inet dsh {\n");
    // The host's addresses are a set of their own: the daemon replaces its elements
    // whenever the host gains or loses one (see `follow_host_addresses`).
    let _ = writeln!(
        out,
        "  set host {{\n    type ipv4_addr\n    elements = {}\n  }}",
        set(&host_elements(host))
    );
    // The checks every connection out of the sandbox goes through: its own (`output`)
    // and, for a gVisor sandbox, those its user-space kernel sends over the guest link
    // (`forward`, see `gvisor_net.rs`).
    let mut checks = Vec::new();
    checks.push(format!(
        "ip daddr {} meta l4proto {{ tcp, udp }} th dport 53 accept",
        private_net::DNS
    ));
    checks.push("ip daddr @host reject with icmpx admin-prohibited".to_owned());
    if !allow.is_empty() {
        checks.push(format!("ip daddr {} accept", set(&allow)));
    }
    checks.push(format!("ip daddr {} reject with icmpx admin-prohibited", set(&lan)));
    // The daemon's connections for allowed domains; never the host's or the LAN's.
    checks.push(format!("meta mark {mark} accept"));
    if !deny.is_empty() {
        checks.push(format!("ip daddr {} reject with icmpx admin-prohibited", set(&deny)));
    }
    if egress.internet_denied {
        checks.push("reject with icmpx admin-prohibited".to_owned());
    }
    checks.push("meta nfproto ipv6 reject with icmpx admin-prohibited".to_owned());
    let chain = |out: &mut String, name: &str, hook: &str, first: &[String], body: &[String]| {
        let _ = writeln!(out, "  chain {name} {{\n    type {hook}; policy accept;");
        for line in first.iter().chain(body) {
            let _ = writeln!(out, "    {line}");
        }
        out.push_str("  }\n");
    };

    // With domains allowed, what the address rules would refuse on ports 80 and 443 goes
    // to the domain filter instead (`chain divert` below, which runs first). With header
    // rules, every connection to ports 80 and 443 goes there (the filter serves those to
    // rule domains, and refuses or passes the rest as the address rules would); with an
    // egress proxy, every TCP connection (the filter tunnels it). The filter chain then
    // sees the redirected address but still the original interface.
    let refused_by_rules = !deny.is_empty() || egress.internet_denied;
    let every_flow = !egress.rules.is_empty() || egress.egress_proxy.is_some();
    let divert = match divert_port {
        Some(port) if (domains && refused_by_rules) || every_flow => Some(port),
        _ => None,
    };
    // The namespace's own connections to a gVisor guest are the daemon's (to its envd
    // and ports): never refused by the sandbox's rules.
    let mut first = vec![
        "oifname \"lo\" accept".to_owned(),
        format!("oifname \"{}\" accept", gvisor_net::LINK),
    ];
    if let Some(port) = divert {
        first.push(format!("ct status dnat ip daddr 127.0.0.1 tcp dport {port} accept"));
    }
    chain(&mut out, "output", "filter hook output priority filter", &first, &checks);
    let guest = format!("iifname != \"{}\"", gvisor_net::LINK);
    let guest_first = ["ct state established,related accept".to_owned(), format!("{guest} drop")];
    chain(&mut out, "forward", "filter hook forward priority filter", &guest_first, &checks);
    // The guest reaches nothing of the sandbox's namespace itself but the domain filter
    // (diverted to it); the daemon's connections to the guest's envd come back.
    let input = [
        format!("{guest} accept"),
        "ct state established,related accept".to_owned(),
        "ct status dnat accept".to_owned(),
        "drop".to_owned(),
    ];
    chain(&mut out, "input", "filter hook input priority filter", &input, &[]);
    let masquerade = [format!(
        "oifname \"{}\" ip saddr {}/{} masquerade",
        private_net::INTERFACE,
        gvisor_net::GUEST_NET,
        gvisor_net::PREFIX
    )];
    chain(&mut out, "guest_out", "nat hook postrouting priority srcnat", &masquerade, &[]);
    if let Some(port) = divert {
        let ports = DIVERTED_PORTS.map(|p| p.to_string()).join(", ");
        let body = |action: &str| -> Vec<String> {
            let mut body = vec!["ip daddr @host return".to_owned()];
            if every_flow {
                // Everything but the host, pasta's DNS and the LAN not allowed.
                let flows = if egress.egress_proxy.is_some() {
                    "meta l4proto tcp".to_owned()
                } else {
                    format!("tcp dport {{ {ports} }}")
                };
                body.push(format!("ip daddr {} return", private_net::DNS));
                if !allow.is_empty() {
                    body.push(format!("ip daddr {} {flows} {action}", set(&allow)));
                }
                body.push(format!("ip daddr {} return", set(&lan)));
                body.push(format!("{flows} {action}"));
                return body;
            }
            if !allow.is_empty() {
                body.push(format!("ip daddr {} return", set(&allow)));
            }
            body.push(format!("ip daddr {} return", set(&lan)));
            let rule = format!("tcp dport {{ {ports} }} {action}");
            body.push(if egress.internet_denied {
                rule
            } else {
                format!("ip daddr {} {rule}", set(&deny))
            });
            body
        };
        let own = [format!("meta mark {mark} return"), "oifname \"lo\" return".to_owned()];
        chain(
            &mut out,
            "divert",
            "nat hook output priority -100",
            &own,
            &body(&format!("redirect to :{port}")),
        );
        chain(
            &mut out,
            "divert_guest",
            "nat hook prerouting priority -100",
            &[format!("{guest} return")],
            &body(&format!("dnat ip to 127.0.0.1:{port}")),
        );
    }
    out.push_str("}\n");
    Ok(out)
}

/// The elements of the `host` set: the host's addresses and pasta's gateway.
fn host_elements(host: &[Ipv4Addr]) -> Vec<String> {
    let mut elements: Vec<String> = host.iter().map(ToString::to_string).collect();
    elements.push(private_net::GATEWAY.to_owned());
    elements.dedup();
    elements
}

/// The commands that make a loaded ruleset's `host` set exactly `host` (one
/// transaction: the set is never empty in between).
pub fn host_set_update(host: &[Ipv4Addr]) -> String {
    format!(
        "flush set inet dsh host\nadd element inet dsh host {{ {} }}\n",
        host_elements(host).join(", ")
    )
}

/// Programs the private network needs on the host.
pub const PASTA: &str = "pasta";
pub const NFT: &str = "nft";

/// Loads `egress` into the namespace pinned at `pin`, replacing its rules; connections
/// to allowed domains go to the filter at `divert_port`. Blocking.
pub fn load(pin: &Path, egress: &Egress, divert_port: Option<u16>) -> anyhow::Result<()> {
    let rules = ruleset(egress, &host_addresses(), divert_port).map_err(anyhow::Error::msg)?;
    nft_in(pin, &rules).context("nft refused the egress rules")
}

/// Runs `nft -f -` with `commands` in the namespace pinned at `pin`. Blocking.
pub(crate) fn nft_in(pin: &Path, commands: &str) -> anyhow::Result<()> {
    run_in(pin, NFT, &["-f", "-"], commands)
}

/// rtnetlink's multicast group of IPv4 address changes (`RTMGRP_IPV4_IFADDR`).
const RTMGRP_IPV4_IFADDR: u32 = 0x10;

/// Keeps every running sandbox's `host` set equal to the host's addresses as they
/// change (a DHCP renewal, a VPN, a new interface): a thread that listens to the
/// kernel's address events and, after each burst of them, loads the host's addresses
/// into the namespaces `pins` names. It ends when `pins` returns `None` (its daemon is
/// gone), within a second.
pub fn follow_host_addresses(
    pins: impl Fn() -> Option<Vec<PathBuf>> + Send + 'static,
) -> std::io::Result<std::thread::JoinHandle<()>> {
    let socket = address_events()?;
    std::thread::Builder::new().name("dsh-host-addresses".into()).spawn(move || {
        let mut buffer = vec![0u8; 16 * 1024];
        loop {
            // SAFETY: recv into our own buffer; the socket times out every 500 ms.
            let n = unsafe {
                libc::recv(socket.as_raw_fd(), buffer.as_mut_ptr().cast(), buffer.len(), 0)
            };
            let event = n > 0
                || (n == -1 && std::io::Error::last_os_error().raw_os_error() == Some(libc::ENOBUFS));
            let Some(pins) = pins() else { return };
            if !event {
                continue;
            }
            // The rest of the burst (an interface brings several), without waiting.
            // SAFETY: as above, non-blocking.
            while unsafe {
                libc::recv(
                    socket.as_raw_fd(),
                    buffer.as_mut_ptr().cast(),
                    buffer.len(),
                    libc::MSG_DONTWAIT,
                )
            } > 0
            {}
            let update = host_set_update(&host_addresses());
            for pin in pins {
                if let Err(e) = nft_in(&pin, &update) {
                    // A sandbox stopping meanwhile has no namespace left: nothing to do.
                    tracing::debug!(pin = %pin.display(), error = format!("{e:#}"), "updating the host's addresses");
                }
            }
            tracing::debug!("the host's addresses changed: every sandbox's rules follow");
        }
    })
}

/// A netlink socket subscribed to IPv4 address changes, timing out every 500 ms.
fn address_events() -> std::io::Result<std::os::fd::OwnedFd> {
    use std::os::fd::FromRawFd;
    // SAFETY: socket(2) with constant arguments.
    let fd = unsafe {
        libc::socket(libc::AF_NETLINK, libc::SOCK_RAW | libc::SOCK_CLOEXEC, libc::NETLINK_ROUTE)
    };
    if fd == -1 {
        return Err(std::io::Error::last_os_error());
    }
    // SAFETY: a descriptor we just opened and own.
    let socket = unsafe { std::os::fd::OwnedFd::from_raw_fd(fd) };
    // SAFETY: sockaddr_nl is plain old data; all-zero is valid.
    let mut address: libc::sockaddr_nl = unsafe { std::mem::zeroed() };
    address.nl_family = libc::AF_NETLINK as libc::sa_family_t;
    address.nl_groups = RTMGRP_IPV4_IFADDR;
    // SAFETY: bind with a sockaddr_nl of the right length.
    let bound = unsafe {
        libc::bind(
            socket.as_raw_fd(),
            (&raw const address).cast(),
            std::mem::size_of::<libc::sockaddr_nl>() as libc::socklen_t,
        )
    };
    if bound == -1 {
        return Err(std::io::Error::last_os_error());
    }
    let timeout = libc::timeval { tv_sec: 0, tv_usec: 500_000 };
    // SAFETY: setsockopt with a timeval of the right length.
    let set = unsafe {
        libc::setsockopt(
            socket.as_raw_fd(),
            libc::SOL_SOCKET,
            libc::SO_RCVTIMEO,
            (&raw const timeout).cast(),
            std::mem::size_of::<libc::timeval>() as libc::socklen_t,
        )
    };
    if set == -1 {
        return Err(std::io::Error::last_os_error());
    }
    Ok(socket)
}

/// Attaches pasta to the namespace pinned at `pin`; returns once its interface is up.
pub(crate) fn start_pasta(pin: &Path, pid_file: &Path) -> anyhow::Result<()> {
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
    let output = crate::command::wait_with_timeout(child, Duration::from_secs(10))?;
    if !output.status.success() {
        bail!("pasta failed: {}", String::from_utf8_lossy(&output.stderr).trim());
    }
    Ok(())
}

/// Unpins the namespace pinned at `pin` (pasta exits when its file goes) and stops the
/// pasta whose pid file is `pid_file`, waiting until it is gone.
pub(crate) fn detach_pinned(pin: &Path, pid_file: &Path) {
    if let Ok(pin) = std::ffi::CString::new(pin.as_os_str().as_encoded_bytes()) {
        // SAFETY: umount2 of a valid path; a pin that is not mounted fails harmlessly.
        unsafe { libc::umount2(pin.as_ptr(), libc::MNT_DETACH) };
    }
    let _ = std::fs::remove_file(pin);
    if let Some(pid) = std::fs::read_to_string(pid_file)
        .ok()
        .and_then(|text| text.trim().parse::<libc::pid_t>().ok())
        .filter(|pid| *pid > 1 && is_pasta(*pid))
    {
        stop_pasta(pid);
    }
    let _ = std::fs::remove_file(pid_file);
}

/// How long pasta gets to exit after SIGTERM (it exits within a millisecond or two when
/// the machine is idle), then after SIGKILL.
const PASTA_EXIT_WAIT: Duration = Duration::from_secs(2);

/// SIGTERM, then SIGKILL if it is still there after [`PASTA_EXIT_WAIT`]; returns once
/// `pid` no longer runs pasta (gone, or a zombie its parent has yet to reap: its command
/// line is empty) or the second wait ran out. pasta is not the daemon's child (it
/// daemonizes), so there is nothing to wait(2) for: its command line is polled.
fn stop_pasta(pid: libc::pid_t) {
    for signal in [libc::SIGTERM, libc::SIGKILL] {
        // SAFETY: plain kill(2) of a pid checked to be pasta just before.
        unsafe { libc::kill(pid, signal) };
        let deadline = std::time::Instant::now() + PASTA_EXIT_WAIT;
        while is_pasta(pid) {
            if std::time::Instant::now() >= deadline {
                break;
            }
            std::thread::sleep(Duration::from_millis(1));
        }
        if !is_pasta(pid) {
            return;
        }
    }
    tracing::warn!(pid, "pasta did not exit after SIGKILL");
}

pub(crate) fn is_pasta(pid: libc::pid_t) -> bool {
    std::fs::read(format!("/proc/{pid}/cmdline")).is_ok_and(|cmdline| {
        cmdline.starts_with(b"pasta") || cmdline.starts_with(b"/usr/bin/pasta")
    })
}

/// Removes what a daemon that died left of sandbox `id`'s network under `dir`: gVisor's
/// link, the pinned namespace and pasta.
pub fn clean_up(dir: &Path, id: &str) {
    gvisor_net::GuestLink::clean_up(dir, id);
    detach_pinned(&dir.join(id), &dir.join(format!("{id}.pasta.pid")));
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use crate::server::egress::Domain;

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
        // Names: allowed (allowOut) only, as in E2B.
        assert_eq!(
            Allowed::parse("*.Sandbox.test").unwrap(),
            Allowed::Domain(Domain::parse("*.sandbox.test").unwrap())
        );
        assert_eq!(
            Allowed::parse("203.0.113.0/24").unwrap(),
            Allowed::Cidr(Cidr::parse("203.0.113.0/24").unwrap())
        );
        let named = Egress { deny_out: vec!["sandbox.test".into()], ..Egress::default() };
        assert_eq!(
            named.validate().unwrap_err(),
            "denyOut: \"sandbox.test\": domain names may only be allowed (allowOut), as in E2B; denyOut takes IPv4 addresses and CIDR blocks"
        );
        let named = Egress { allow_out: vec!["a..test".into()], ..Egress::default() };
        assert!(
            named.validate().unwrap_err().starts_with("allowOut: \"a..test\" is not a domain name")
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

    /// The `divert` chain's rules after its own two (the daemon's mark, loopback).
    fn ruled_divert(rules: &str) -> String {
        let chain = &rules[rules.find("  chain divert {").unwrap()..];
        let chain = &chain[..chain.find("  }").unwrap()];
        chain.lines().skip(4).map(|line| format!("{line}\n")).collect()
    }

    #[test]
    fn the_host_comes_first_then_allow_then_the_lan_then_deny() {
        let egress = Egress {
            allow_out: vec!["10.1.0.0/16".into()],
            deny_out: vec!["198.51.100.7".into()],
            internet_denied: true,
            ..Egress::default()
        };
        let host = [Ipv4Addr::new(127, 0, 0, 1), Ipv4Addr::new(192, 0, 2, 2)];
        assert_eq!(
            ruleset(&egress, &host, Some(40000)).unwrap(),
            "table inet dsh
delete table inet dsh
table inet dsh {
  set host {
    type ipv4_addr
    elements = { 127.0.0.1, 192.0.2.2, 198.18.0.1 }
  }
  chain output {
    type filter hook output priority filter; policy accept;
    oifname \"lo\" accept
    oifname \"gv0\" accept
    ip daddr 198.18.0.53 meta l4proto { tcp, udp } th dport 53 accept
    ip daddr @host reject with icmpx admin-prohibited
    ip daddr { 10.1.0.0/16 } accept
    ip daddr { 10.0.0.0/8, 172.16.0.0/12, 192.168.0.0/16, 169.254.0.0/16, 100.64.0.0/10, 127.0.0.0/8, 0.0.0.0/8 } reject with icmpx admin-prohibited
    meta mark 0x64736801 accept
    ip daddr { 198.51.100.7/32 } reject with icmpx admin-prohibited
    reject with icmpx admin-prohibited
    meta nfproto ipv6 reject with icmpx admin-prohibited
  }
  chain forward {
    type filter hook forward priority filter; policy accept;
    ct state established,related accept
    iifname != \"gv0\" drop
    ip daddr 198.18.0.53 meta l4proto { tcp, udp } th dport 53 accept
    ip daddr @host reject with icmpx admin-prohibited
    ip daddr { 10.1.0.0/16 } accept
    ip daddr { 10.0.0.0/8, 172.16.0.0/12, 192.168.0.0/16, 169.254.0.0/16, 100.64.0.0/10, 127.0.0.0/8, 0.0.0.0/8 } reject with icmpx admin-prohibited
    meta mark 0x64736801 accept
    ip daddr { 198.51.100.7/32 } reject with icmpx admin-prohibited
    reject with icmpx admin-prohibited
    meta nfproto ipv6 reject with icmpx admin-prohibited
  }
  chain input {
    type filter hook input priority filter; policy accept;
    iifname != \"gv0\" accept
    ct state established,related accept
    ct status dnat accept
    drop
  }
  chain guest_out {
    type nat hook postrouting priority srcnat; policy accept;
    oifname \"eth0\" ip saddr 198.19.0.0/24 masquerade
  }
}
"
        );
    }

    #[test]
    fn with_domains_allowed_what_the_rules_refuse_on_80_and_443_is_diverted() {
        let egress = Egress {
            allow_out: vec!["203.0.113.9".into(), "pkg.test".into(), "*.cdn.test".into()],
            deny_out: vec!["0.0.0.0/0".into()],
            internet_denied: false,
            ..Egress::default()
        };
        assert_eq!(
            egress.domains(),
            [Domain::parse("pkg.test").unwrap(), Domain::parse("*.cdn.test").unwrap()]
        );
        let rules = ruleset(&egress, &[Ipv4Addr::new(192, 0, 2, 2)], Some(40000)).unwrap();
        let divert = &rules[rules.find("  chain divert").unwrap()..];
        assert_eq!(
            divert,
            "  chain divert {
    type nat hook output priority -100; policy accept;
    meta mark 0x64736801 return
    oifname \"lo\" return
    ip daddr @host return
    ip daddr { 203.0.113.9/32 } return
    ip daddr { 10.0.0.0/8, 172.16.0.0/12, 192.168.0.0/16, 169.254.0.0/16, 100.64.0.0/10, 127.0.0.0/8, 0.0.0.0/8 } return
    ip daddr { 0.0.0.0/0 } tcp dport { 80, 443 } redirect to :40000
  }
  chain divert_guest {
    type nat hook prerouting priority -100; policy accept;
    iifname != \"gv0\" return
    ip daddr @host return
    ip daddr { 203.0.113.9/32 } return
    ip daddr { 10.0.0.0/8, 172.16.0.0/12, 192.168.0.0/16, 169.254.0.0/16, 100.64.0.0/10, 127.0.0.0/8, 0.0.0.0/8 } return
    ip daddr { 0.0.0.0/0 } tcp dport { 80, 443 } dnat ip to 127.0.0.1:40000
  }
}
"
        );
        assert!(rules.contains("    ip daddr { 203.0.113.9/32 } accept\n"));
        assert!(rules.contains(
            "  set host {\n    type ipv4_addr\n    elements = { 192.0.2.2, 198.18.0.1 }\n  }\n"
        ));
        assert_eq!(
            host_set_update(&[Ipv4Addr::new(192, 0, 2, 2), Ipv4Addr::new(192, 0, 2, 9)]),
            "flush set inet dsh host\nadd element inet dsh host { 192.0.2.2, 192.0.2.9, 198.18.0.1 }\n"
        );
        assert!(rules.contains(
            "    oifname \"lo\" accept\n    oifname \"gv0\" accept\n    ct status dnat ip daddr 127.0.0.1 tcp dport 40000 accept\n"
        ));
        // With header rules, every connection to 80 and 443 but the host's, DNS's and
        // the LAN's (allowed blocks first: they are diverted too); with a proxy, all TCP.
        let rules = crate::server::header_rules::Rules::from([(
            "api.test".to_owned(),
            vec![crate::server::header_rules::NetworkRule::default()],
        )]);
        let ruled = Egress { rules, ..Egress::default() };
        let text = ruled_divert(&ruleset(&ruled, &[], Some(40000)).unwrap());
        assert_eq!(
            text,
            "    ip daddr @host return
    ip daddr 198.18.0.53 return
    ip daddr { 10.0.0.0/8, 172.16.0.0/12, 192.168.0.0/16, 169.254.0.0/16, 100.64.0.0/10, 127.0.0.0/8, 0.0.0.0/8 } return
    tcp dport { 80, 443 } redirect to :40000
"
        );
        let proxied = Egress {
            allow_out: vec!["10.1.0.0/16".into()],
            egress_proxy: Some(crate::server::header_rules::EgressProxy {
                address: "127.0.0.1:1080".into(),
                ..Default::default()
            }),
            ..Egress::default()
        };
        let text = ruled_divert(&ruleset(&proxied, &[], Some(40000)).unwrap());
        assert_eq!(
            text,
            "    ip daddr @host return
    ip daddr 198.18.0.53 return
    ip daddr { 10.1.0.0/16 } meta l4proto tcp redirect to :40000
    ip daddr { 10.0.0.0/8, 172.16.0.0/12, 192.168.0.0/16, 169.254.0.0/16, 100.64.0.0/10, 127.0.0.0/8, 0.0.0.0/8 } return
    meta l4proto tcp redirect to :40000
"
        );
        // Nothing refused by the rules: nothing to divert.
        let open = Egress { deny_out: Vec::new(), ..egress };
        assert!(!ruleset(&open, &[], Some(40000)).unwrap().contains("chain divert"));
    }
}
