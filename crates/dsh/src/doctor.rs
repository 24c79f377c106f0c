//! `dsh doctor`: can this machine run dsh's local sandboxes, and what do agents find in
//! them? Each check says what it found and, when something is missing, what to install or
//! change. Nothing is changed on the machine.

use std::process::{Command, ExitCode, Stdio};
use std::time::Duration;

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
}

impl Check {
    fn ok(name: &'static str, found: impl Into<String>) -> Check {
        Check { name, status: Status::Ok, found: found.into(), fix: String::new() }
    }
    fn bad(
        name: &'static str,
        status: Status,
        found: impl Into<String>,
        fix: impl Into<String>,
    ) -> Check {
        Check { name, status, found: found.into(), fix: fix.into() }
    }
}

/// Runs every check and prints them; fails (exit 1) when a check failed.
pub fn run(printer: Printer) -> ExitCode {
    let checks = checks();
    printer.print(&checks, || {
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
    });
    if checks.iter().any(|c| c.status == Status::Fail) {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}

pub fn checks() -> Vec<Check> {
    let mut checks = vec![namespaces(), strict_isolation(), cgroups()];
    checks.push(match dsh_sandboxd::server::network::check_tools() {
        Ok(()) => Check::ok("private networks", "pasta and nft on PATH"),
        Err(e) => Check::bad(
            "private networks",
            Status::Fail,
            format!("{e:#}"),
            "apt-get install passt nftables (or run sandboxes with [sandboxd] net = \"none\")",
        ),
    });
    checks.push(match version_of("mkfs.btrfs", &["--version"]) {
        Some(version) => Check::ok("disk quotas", version),
        None => Check::bad(
            "disk quotas",
            Status::Warn,
            "mkfs.btrfs not on PATH: sandboxes run without a disk quota",
            "apt-get install btrfs-progs (then each sandbox may write [sandboxd] disk_mb)",
        ),
    });
    // What agents expect inside a sandbox: the base template shows the host's /usr.
    for (name, program, args, package, status, why) in [
        (
            "node",
            "node",
            &["--version"][..],
            "nodejs (20 or later)",
            Status::Fail,
            "Code Mode runs programs with it",
        ),
        (
            "npm",
            "npm",
            &["--version"][..],
            "npm",
            Status::Warn,
            "language servers are installed with it on first use",
        ),
        ("python3", "python3", &["--version"][..], "python3", Status::Warn, "agents run Python"),
        (
            "python",
            "python",
            &["--version"][..],
            "python-is-python3",
            Status::Warn,
            "E2B's images have `python`",
        ),
        ("git", "git", &["--version"][..], "git", Status::Warn, "agents use it"),
        ("curl", "curl", &["--version"][..], "curl", Status::Warn, "agents use it"),
    ] {
        checks.push(match version_of(program, args) {
            Some(version) => Check::ok(name, version),
            None => Check::bad(
                name,
                status,
                format!("{program} not in the sandbox's PATH ({SANDBOX_PATH})"),
                format!("apt-get install {package} ({why})"),
            ),
        });
    }
    checks
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
    match dsh_sandboxd::privileges::check_strict() {
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
                "private networks",
                "disk quotas",
                "node",
                "npm",
                "python3",
                "python",
                "git",
                "curl"
            ]
        );
        for check in &checks[..7] {
            assert_eq!(check.status, Status::Ok, "{check:?}");
        }
    }
}
