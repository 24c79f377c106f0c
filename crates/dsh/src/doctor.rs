//! `dsh doctor`: can this machine run dsh's local sandboxes, and what do agents find in
//! them? Each check says what it found and, when something is missing, what to install or
//! change. `dsh doctor --fix` installs the missing packages where it can (apt-get, dnf).
//!
//! It checks everything the daemon checks at start (the host programs come from the one
//! list in `crates/sandbox/system-tools.txt`), so the daemon cannot refuse to start for
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

/// A missing program's package on the families `--fix` installs on (None: the family has
/// none, `-` in the list).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Packages {
    apt: Option<&'static str>,
    dnf: Option<&'static str>,
}

impl Packages {
    const fn both(apt: &'static str, dnf: &'static str) -> Packages {
        Packages { apt: Some(apt), dnf: Some(dnf) }
    }
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
    /// Something optional is missing: ok, with how to get it.
    fn note(name: &'static str, found: impl Into<String>, fix: impl Into<String>) -> Check {
        Check { fix: fix.into(), ..Check::ok(name, found) }
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
            // A program this family has no package for is named by its check's fix.
            if let Some(name) = name
                && !packages.contains(&name)
            {
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
            // Which runsc matters, not only whether there is one.
            Need::Gvisor if tool.program == "runsc" => {
                let on_path = requirements::on_path(tool.program, None);
                let path = std::env::var_os("PATH").unwrap_or_default();
                let version =
                    on_path.then(|| first_line(&path, tool.program, &["--version"])).flatten();
                let os_release = std::fs::read_to_string("/etc/os-release").unwrap_or_default();
                checks.push(runsc(&tool, on_path, version.as_deref(), bookworm(&os_release)));
                continue;
            }
            // gVisor's other tools (`ip`, which links its sandboxes' networks): missing,
            // they matter where runsc is there (gVisor is optional).
            Need::Gvisor if requirements::on_path("runsc", None) => Status::Warn,
            Need::Gvisor => Status::Ok,
        };
        let packages = Packages { apt: tool.debian, dnf: tool.fedora };
        checks.push(if requirements::on_path(tool.program, None) {
            Check::ok(tool.program, format!("on PATH ({})", tool.need.purpose()))
        } else {
            let instead = match tool.need {
                Need::Network => " (or run sandboxes with [sandboxd] net = \"none\")",
                Need::Quota | Need::Rootless | Need::Gvisor => "",
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
            Packages::both("nodejs", "nodejs"),
            Status::Fail,
            "Code Mode runs programs with it",
        ),
        (
            "npm",
            "npm",
            &["--version"][..],
            Packages::both("npm", "npm"),
            Status::Warn,
            "language servers are installed with it on first use",
        ),
        (
            "python3",
            "python3",
            &["--version"][..],
            Packages::both("python3", "python3"),
            Status::Warn,
            "agents run Python",
        ),
        (
            "python",
            "python",
            &["--version"][..],
            Packages::both("python-is-python3", "python-unversioned-command"),
            Status::Warn,
            "E2B's images have `python`",
        ),
        (
            "git",
            "git",
            &["--version"][..],
            Packages::both("git", "git"),
            Status::Warn,
            "agents use it",
        ),
        (
            "curl",
            "curl",
            &["--version"][..],
            Packages::both("curl", "curl"),
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
                format!(
                    "dsh doctor --fix, or apt-get install {} ({why})",
                    packages.apt.unwrap_or(program)
                ),
            )
            .installs(packages),
        });
    }
    checks
}

/// Whether `/etc/os-release` (its text) is Debian 12's, whose own runsc is too old.
fn bookworm(os_release: &str) -> bool {
    os_release.lines().any(|line| {
        line.trim()
            .strip_prefix("VERSION_CODENAME=")
            .is_some_and(|name| name.trim_matches('"') == "bookworm")
    })
}

/// How Debian 12 gets a runsc new enough: its backports suite's.
const BOOKWORM_RUNSC: &str = "as root, add bookworm-backports to apt's sources and apt-get install -t bookworm-backports runsc (scripts/setup --all does both)";

/// gVisor's runsc (`tool`, its line of the list): whether it is on PATH, the first line
/// its `--version` printed (None: it failed), and whether this is Debian 12. gVisor is
/// optional: its absence is a note (ok, with how to get it), a runsc too old to use a
/// warning. `--fix` installs neither: Debian 12 needs backports for it, Fedora and Arch
/// have no package.
fn runsc(
    tool: &requirements::SystemTool,
    on_path: bool,
    version: Option<&str>,
    bookworm: bool,
) -> Check {
    let oldest = requirements::RUNSC_OLDEST;
    let newer = || {
        if bookworm {
            BOOKWORM_RUNSC.to_owned()
        } else {
            format!(
                "install runsc {oldest} or newer: gVisor's release from https://gvisor.dev/docs/user_guide/install/, or a newer package of your distribution"
            )
        }
    };
    let name = tool.program;
    match (on_path, version.map(|v| (v, requirements::runsc_release(v)))) {
        (false, _) => {
            let install = if bookworm {
                BOOKWORM_RUNSC.to_owned()
            } else {
                requirements::install_commands(std::slice::from_ref(tool))
            };
            Check::note(
                name,
                format!("runsc not on PATH: no {}, which are optional", tool.need.purpose()),
                format!("to have them, {install}"),
            )
        }
        (true, None) => Check::bad(
            name,
            Status::Warn,
            "runsc is on PATH but `runsc --version` failed: gVisor sandboxes may not work",
            newer(),
        ),
        (true, Some((_, Some(release)))) if release >= oldest => {
            Check::ok(name, format!("runsc {release}: gVisor sandboxes available"))
        }
        (true, Some((_, Some(release)))) => Check::bad(
            name,
            Status::Warn,
            format!(
                "runsc {release} is older than {oldest}: too old for gVisor sandboxes (runtime \"gvisor\")"
            ),
            newer(),
        ),
        (true, Some((version, None))) => Check::bad(
            name,
            Status::Warn,
            format!(
                "`runsc --version` says {version:?}: no release date, so maybe older than {oldest}"
            ),
            newer(),
        ),
    }
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
    first_line(std::ffi::OsStr::new(SANDBOX_PATH), program, args)
}

/// The first line (at most 60 characters) a program found on `path` (a `PATH` value, which
/// it runs with) prints for `args`, or None when it cannot run (5 s at most).
fn first_line(path: &std::ffi::OsStr, program: &str, args: &[&str]) -> Option<String> {
    let found = std::env::split_paths(path)
        .map(|dir| dir.join(program))
        .find(|candidate| candidate.is_file())?;
    let mut child = Command::new(found)
        .args(args)
        .env("PATH", path)
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
    /// cgroups, pasta, btrfs-progs, runsc from bookworm-backports, iproute2, node, npm, python3):
    /// every check a sandbox needs passes.
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
                "runsc",
                "ip",
                "node",
                "npm",
                "python3",
                "python",
                "git",
                "curl"
            ]
        );
        for check in &checks[..9] {
            assert_eq!(check.status, Status::Ok, "{check:?}");
        }
    }

    const DEBIAN_12: &str = "PRETTY_NAME=\"Debian GNU/Linux 12 (bookworm)\"\nNAME=\"Debian GNU/Linux\"\nVERSION_ID=\"12\"\nVERSION=\"12 (bookworm)\"\nVERSION_CODENAME=bookworm\nID=debian\n";

    #[test]
    fn debian_12_is_told_by_its_codename() {
        assert!(bookworm(DEBIAN_12));
        assert!(bookworm("ID=debian\nVERSION_CODENAME=\"bookworm\"\n"));
        assert!(!bookworm("ID=debian\nVERSION_CODENAME=trixie\n"));
        assert!(!bookworm("ID=fedora\nVERSION_ID=41\n"));
        assert!(!bookworm(""));
    }

    fn runsc_check(
        on_path: bool,
        version: Option<&str>,
        bookworm: bool,
    ) -> (Status, String, String) {
        let tool = requirements::system_tools().into_iter().find(|t| t.program == "runsc").unwrap();
        let check = runsc(&tool, on_path, version, bookworm);
        assert_eq!(check.name, "runsc");
        // `--fix` installs no runsc (backports on Debian 12; no package elsewhere).
        assert_eq!(check.packages, None);
        (check.status, check.found, check.fix)
    }

    #[test]
    fn a_runsc_new_enough_gives_gvisor_sandboxes() {
        for (version, release) in [
            ("runsc version 0.0~20240729.0", "20240729"),
            ("runsc version release-20250512.0", "20250512"),
        ] {
            assert_eq!(
                runsc_check(true, Some(version), true),
                (Status::Ok, format!("runsc {release}: gVisor sandboxes available"), String::new())
            );
        }
    }

    #[test]
    fn a_runsc_too_old_warns_with_backports_on_debian_12() {
        let old = Some("runsc version 0.0~20221219.0");
        assert_eq!(
            runsc_check(true, old, true),
            (
                Status::Warn,
                "runsc 20221219 is older than 20240729: too old for gVisor sandboxes (runtime \"gvisor\")".to_owned(),
                "as root, add bookworm-backports to apt's sources and apt-get install -t bookworm-backports runsc (scripts/setup --all does both)".to_owned()
            )
        );
        assert_eq!(
            runsc_check(true, old, false).2,
            "install runsc 20240729 or newer: gVisor's release from https://gvisor.dev/docs/user_guide/install/, or a newer package of your distribution"
        );
        // A release it cannot tell, or no answer at all, warns the same way.
        assert_eq!(runsc_check(true, Some("runsc version VERSION_MISSING"), true).0, Status::Warn);
        assert_eq!(
            runsc_check(true, Some("runsc version VERSION_MISSING"), false).1,
            "`runsc --version` says \"runsc version VERSION_MISSING\": no release date, so maybe older than 20240729"
        );
        assert_eq!(
            runsc_check(true, None, true).1,
            "runsc is on PATH but `runsc --version` failed: gVisor sandboxes may not work"
        );
    }

    #[test]
    fn no_runsc_is_a_note_with_how_to_get_it() {
        assert_eq!(
            runsc_check(false, None, true),
            (
                Status::Ok,
                "runsc not on PATH: no gVisor sandboxes (runtime \"gvisor\"), which are optional".to_owned(),
                "to have them, as root, add bookworm-backports to apt's sources and apt-get install -t bookworm-backports runsc (scripts/setup --all does both)".to_owned()
            )
        );
        assert_eq!(
            runsc_check(false, None, false).2,
            "to have them, Debian/Ubuntu: apt-get install runsc; Fedora: no package for runsc (install gVisor's release from https://gvisor.dev/docs/user_guide/install/); Arch: no package for runsc (install gVisor's release from https://gvisor.dev/docs/user_guide/install/)"
        );
    }
}
