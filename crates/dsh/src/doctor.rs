//! `dsh doctor`: can this machine run dsh's local sandboxes, and what do agents find in
//! them? Each check says what it found and, when something is missing, what to install or
//! change. `dsh doctor --fix` installs the missing packages where it can (apt-get, dnf).
//!
//! It checks everything the daemon checks at start (the host programs come from the one
//! list in `crates/sandboxd/system-tools.txt`), so the daemon cannot refuse to start for
//! a reason this did not name.

use std::process::{Command, ExitCode, Stdio};
use std::time::Duration;

use dsh_sandboxd::requirements::{self, Need};
use serde::Serialize;

use crate::output::{Printer, table};

/// How bad a missing piece is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    Ok,
    /// dsh works; something agents expect is missing, or a weaker mode is all there is.
    Warn,
    /// Local sandboxes cannot start (with the default settings).
    Fail,
}

#[derive(Debug, Clone, Serialize)]
pub struct Check {
    pub name: &'static str,
    pub status: Status,
    /// What was found.
    pub found: String,
    /// What to do about it (empty when nothing needs doing).
    pub fix: String,
    /// The packages that bring what is missing, for `--fix`.
    #[serde(skip)]
    packages: Option<Packages>,
}

/// A missing program's package on the families `--fix` installs on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Packages {
    apt: &'static str,
    dnf: &'static str,
}

impl Check {
    fn ok(name: &'static str, found: impl Into<String>) -> Check {
        Check { name, status: Status::Ok, found: found.into(), fix: String::new(), packages: None }
    }
    fn bad(
        name: &'static str,
        status: Status,
        found: impl Into<String>,
        fix: impl Into<String>,
    ) -> Check {
        Check { name, status, found: found.into(), fix: fix.into(), packages: None }
    }
    fn installs(mut self, packages: Packages) -> Check {
        self.packages = Some(packages);
        self
    }
}

/// What `--fix` did.
#[derive(Debug, Clone, Serialize)]
pub struct Fixed {
    /// The packages it installed (empty: nothing was missing, or it could not).
    pub installed: Vec<String>,
    /// The command it ran, or the one to run (as root) when it could not.
    pub command: String,
    /// Why it could not, if it could not.
    pub error: Option<String>,
}

#[derive(Serialize)]
struct FixReport<'a> {
    fixed: &'a Fixed,
    checks: &'a [Check],
}

/// Runs every check and prints them (after installing what is missing, with `fix`);
/// fails (exit 1) when a check failed.
pub fn run(printer: Printer, fix: bool) -> ExitCode {
    let mut checks = checks();
    let fixed = fix.then(|| {
        let fixed = install_missing(&checks, printer.json);
        checks = self::checks();
        fixed
    });
    let rows = || {
        let rows: Vec<Vec<String>> = checks
            .iter()
            .map(|c| {
                let status = match c.status {
                    Status::Ok => "ok",
                    Status::Warn => "WARN",
                    Status::Fail => "FAIL",
                };
                vec![status.to_owned(), c.name.to_owned(), c.found.clone(), c.fix.clone()]
            })
            .collect();
        table(&["STATUS", "CHECK", "FOUND", "WHAT TO DO"], &rows)
    };
    match &fixed {
        Some(fixed) => printer.print(&FixReport { fixed, checks: &checks }, || {
            let said = match (&fixed.error, fixed.installed.is_empty()) {
                (Some(error), _) => format!("could not install: {error}\n"),
                (None, true) => "nothing to install\n".to_owned(),
                (None, false) => {
                    format!("installed {} ({})\n", fixed.installed.join(" "), fixed.command)
                }
            };
            format!("{said}\n{}", rows())
        }),
        None => printer.print(&checks, rows),
    }
    if checks.iter().any(|c| c.status == Status::Fail) {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}

/// Installs the packages of every failed or warned check with the machine's package
/// manager (apt-get or dnf), as root; otherwise says the command to run.
fn install_missing(checks: &[Check], quiet: bool) -> Fixed {
    let apt = requirements::on_path("apt-get", None);
    let dnf = requirements::on_path("dnf", None);
    let mut packages: Vec<&str> = Vec::new();
    for check in checks.iter().filter(|c| c.status != Status::Ok) {
        if let Some(p) = check.packages {
            let name = if apt || !dnf { p.apt } else { p.dnf };
            if !packages.contains(&name) {
                packages.push(name);
            }
        }
    }
    let installed = packages.iter().map(|p| (*p).to_owned()).collect::<Vec<_>>();
    let command = match (apt, dnf) {
        (true, _) => format!("apt-get install -y {}", installed.join(" ")),
        (false, true) => format!("dnf install -y {}", installed.join(" ")),
        (false, false) => String::new(),
    };
    let cannot = |error: String| Fixed {
        installed: Vec::new(),
        command: command.clone(),
        error: Some(error),
    };
    if installed.is_empty() {
        return Fixed { installed, command: String::new(), error: None };
    }
    if !apt && !dnf {
        return cannot(format!(
            "no apt-get or dnf here; install what the checks name: {}",
            requirements::install_commands(&requirements::missing(
                &[Need::Network, Need::Quota, Need::Rootless],
                None
            ))
        ));
    }
    if !rustix::process::geteuid().is_root() {
        return cannot(format!("installing packages needs root: sudo {command}"));
    }
    if !quiet {
        eprintln!("dsh doctor: {command}");
    }
    let run = |program: &str, args: &[&str]| -> Result<(), String> {
        let output = Command::new(program)
            .args(args)
            .env("DEBIAN_FRONTEND", "noninteractive")
            .stdin(Stdio::null())
            .output()
            .map_err(|e| format!("{program}: {e}"))?;
        if output.status.success() {
            return Ok(());
        }
        let stderr = String::from_utf8_lossy(&output.stderr);
        Err(format!("{program} {}: {}", args.join(" "), stderr.trim()))
    };
    let result = if apt {
        run("apt-get", &["update", "-qq"]).and_then(|()| {
            let mut args = vec!["install", "-y", "-qq"];
            args.extend(packages.iter().copied());
            run("apt-get", &args)
        })
    } else {
        let mut args = vec!["install", "-y", "-q"];
        args.extend(packages.iter().copied());
        run("dnf", &args)
    };
    match result {
        Ok(()) => Fixed { installed, command, error: None },
        Err(error) => cannot(error),
    }
}

pub fn checks() -> Vec<Check> {
    let host_root = dsh_sandboxd::rootless::is_host_root();
    let mut checks = if host_root {
        vec![namespaces(), strict_isolation(), cgroups()]
    } else {
        vec![rootless(), strict_isolation(), cgroups_as_user(), tun()]
    };
    // The host programs the daemon runs, from the one list it checks at start.
    for tool in requirements::system_tools() {
        let status = match tool.need {
            Need::Network => Status::Fail,
            Need::Quota if host_root => Status::Warn,
            // An ordinary user's sandboxes get no quota anyway.
            Need::Quota => continue,
            Need::Rootless if host_root => continue,
            Need::Rootless => Status::Fail,
        };
        let packages = Packages { apt: tool.debian, dnf: tool.fedora };
        checks.push(if requirements::on_path(tool.program, None) {
            Check::ok(tool.program, format!("on PATH ({})", tool.need.purpose()))
        } else {
            let instead = match tool.need {
                Need::Network => " (or run sandboxes with [sandboxd] net = \"none\")",
                Need::Quota | Need::Rootless => "",
            };
            let install = requirements::install_commands(std::slice::from_ref(&tool));
            let fix = format!("dsh doctor --fix, or {install}{instead}");
            Check::bad(
                tool.program,
                status,
                format!("{} not on PATH: no {}", tool.program, tool.need.purpose()),
                fix,
            )
            .installs(packages)
        });
    }
    // What agents expect inside a sandbox: the base template shows the host's /usr.
    for (name, program, args, packages, status, why) in [
        (
            "node",
            "node",
            &["--version"][..],
            Packages { apt: "nodejs", dnf: "nodejs" },
            Status::Fail,
            "Code Mode runs programs with it",
        ),
        (
            "npm",
            "npm",
            &["--version"][..],
            Packages { apt: "npm", dnf: "npm" },
            Status::Warn,
            "language servers are installed with it on first use",
        ),
        (
            "python3",
            "python3",
            &["--version"][..],
            Packages { apt: "python3", dnf: "python3" },
            Status::Warn,
            "agents run Python",
        ),
        (
            "python",
            "python",
            &["--version"][..],
            Packages { apt: "python-is-python3", dnf: "python-unversioned-command" },
            Status::Warn,
            "E2B's images have `python`",
        ),
        (
            "git",
            "git",
            &["--version"][..],
            Packages { apt: "git", dnf: "git" },
            Status::Warn,
            "agents use it",
        ),
        (
            "curl",
            "curl",
            &["--version"][..],
            Packages { apt: "curl", dnf: "curl" },
            Status::Warn,
            "agents use it",
        ),
    ] {
        checks.push(match version_of(program, args) {
            Some(version) => Check::ok(name, version),
            None => Check::bad(
                name,
                status,
                format!("{program} not in the sandbox's PATH ({SANDBOX_PATH})"),
                format!("dsh doctor --fix, or apt-get install {} ({why})", packages.apt),
            )
            .installs(packages),
        });
    }
    checks
}

/// An ordinary user: what running sandboxes in the user's own namespace needs.
fn rootless() -> Check {
    match dsh_sandboxd::rootless::Identity::of_this_process() {
        Ok(identity) => Check::ok(
            "namespaces",
            format!(
                "as {} (not root): sandboxes in the user's namespace, {} at once (one block of 65536 subordinate ids each)",
                identity.user,
                identity.blocks()
            ),
        ),
        Err(e) => {
            let fix = match &e {
                dsh_sandboxd::rootless::RootlessError::Tools(_) => {
                    "dsh doctor --fix as root".into()
                }
                other => other.to_string(),
            };
            // Missing helpers are checks of their own below, which `--fix` installs.
            Check::bad("namespaces", Status::Fail, e.to_string(), fix)
        }
    }
}

/// An ordinary user's pasta opens the tun device itself.
fn tun() -> Check {
    match dsh_sandboxd::rootless::tun_usable() {
        Ok(()) => Check::ok("tun device", "/dev/net/tun is open to this user (pasta needs it)"),
        Err(why) => Check::bad(
            "tun device",
            Status::Fail,
            why,
            "as root: chmod 0666 /dev/net/tun (or run sandboxes with [sandboxd] net = \"none\")",
        ),
    }
}

/// An ordinary user's daemon has limits only in a cgroup delegated to the user.
fn cgroups_as_user() -> Check {
    let delegated = std::fs::read_to_string("/proc/self/cgroup").ok().and_then(|own| {
        // v2: the one hierarchy; v1: the memory controller's (pids and cpu go with it).
        let path = own.lines().find_map(|line| {
            let mut fields = line.splitn(3, ':');
            let (_, controllers, path) = (fields.next()?, fields.next()?, fields.next()?);
            match controllers {
                "" => Some(format!("/sys/fs/cgroup{path}")),
                c if c.split(',').any(|c| c == "memory") => {
                    Some(format!("/sys/fs/cgroup/memory{path}"))
                }
                _ => None,
            }
        })?;
        rustix::fs::access(path.as_str(), rustix::fs::Access::WRITE_OK).ok().map(|()| path)
    });
    match delegated {
        Some(path) => Check::ok("cgroups", format!("{path} is delegated to this user: limits on")),
        None => Check::bad(
            "cgroups",
            Status::Warn,
            "this user's cgroup is not delegated to it: sandboxes run without memory, process and CPU limits",
            "run dsh in a delegated cgroup (systemd: a user service with Delegate=yes), or as root (see docs/sandboxes.md#rootless)",
        ),
    }
}

fn namespaces() -> Check {
    match dsh_sandboxd::privileges::check() {
        Ok(()) => Check::ok("namespaces", "this process can create sandboxes"),
        Err(missing) => Check::bad(
            "namespaces",
            Status::Fail,
            missing.to_string(),
            "run dsh as root (local sandboxes need it), or point it at E2B with E2B_API_KEY",
        ),
    }
}

fn strict_isolation() -> Check {
    if !dsh_sandboxd::rootless::is_host_root() {
        return Check::ok(
            "strict isolation",
            "a user namespace per sandbox (root inside is a subordinate id of this user on the host); the host's files show as nobody's inside",
        );
    }
    let strict = dsh_sandboxd::privileges::check_strict();
    match strict {
        Ok(()) => Check::ok(
            "strict isolation",
            "user namespaces and idmapped overlay layers: root inside is nobody on the host",
        ),
        Err(missing) => Check::bad(
            "strict isolation",
            Status::Fail,
            missing.to_string(),
            "use Linux 5.19 or later with user namespaces enabled, or accept root inside = root on the host with [sandboxd] isolation = \"namespaces\" (trusted code only)",
        ),
    }
}

fn cgroups() -> Check {
    match dsh_sandboxd::cgroup::Cgroups::detect() {
        Ok(version) => Check::ok("cgroups", format!("{version:?} (memory, pids and CPU limits)")),
        Err(e) => Check::bad(
            "cgroups",
            Status::Fail,
            e.to_string(),
            "mount the cgroup filesystem (v2, or v1 with memory, pids and cpu controllers)",
        ),
    }
}

/// Where a sandbox of the base template looks for programs: the host's /usr and /bin
/// (shown read-only), not this shell's PATH (a `~/.pyenv` or `~/.nvm` is not inside).
const SANDBOX_PATH: &str = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";

/// The first line (at most 60 characters) a program found on [`SANDBOX_PATH`] prints for
/// `args`, or None when it cannot run (5 s at most).
fn version_of(program: &str, args: &[&str]) -> Option<String> {
    let found = SANDBOX_PATH
        .split(':')
        .map(|dir| std::path::Path::new(dir).join(program))
        .find(|candidate| candidate.is_file())?;
    let mut child = Command::new(found)
        .args(args)
        .env("PATH", SANDBOX_PATH)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .ok()?;
    let deadline = std::time::Instant::now() + Duration::from_secs(5);
    loop {
        match child.try_wait() {
            Ok(Some(status)) if status.success() => break,
            Ok(Some(_)) | Err(_) => return None,
            Ok(None) if std::time::Instant::now() > deadline => {
                let _ = child.kill();
                let _ = child.wait();
                return None;
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(10)),
        }
    }
    let mut out = String::new();
    std::io::Read::read_to_string(&mut child.stdout.take()?, &mut out).ok()?;
    Some(out.lines().next().unwrap_or_default().trim().chars().take(60).collect())
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn a_program_that_runs_gives_its_first_line_and_one_that_does_not_none() {
        assert_eq!(version_of("sh", &["-c", "echo one; echo two"]).as_deref(), Some("one"));
        assert_eq!(version_of("sh", &["-c", "exit 3"]), None);
        assert_eq!(version_of("dsh-no-such-program", &[]), None);
    }

    /// On the machines this project is tested on (root, Linux with user namespaces,
    /// cgroups, pasta, btrfs-progs, node, npm, python3): every check a sandbox needs passes.
    #[test]
    fn this_machine_can_run_local_sandboxes() {
        let checks = checks();
        let names: Vec<&str> = checks.iter().map(|c| c.name).collect();
        assert_eq!(
            names,
            [
                "namespaces",
                "strict isolation",
                "cgroups",
                "pasta",
                "nft",
                "mkfs.btrfs",
                "node",
                "npm",
                "python3",
                "python",
                "git",
                "curl"
            ]
        );
        for check in &checks[..8] {
            assert_eq!(check.status, Status::Ok, "{check:?}");
        }
    }
}
