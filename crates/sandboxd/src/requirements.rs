//! The host programs the daemon runs, read from `system-tools.txt` (the one list that
//! `scripts/setup`, the daemon's start-up check and `dsh doctor` all read, so what one
//! installs is what the others ask for).

use std::ffi::OsStr;
use std::fmt;
use std::path::Path;

/// The list, compiled in.
const LIST: &str = include_str!("../system-tools.txt");

/// Why the daemon needs a program.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Need {
    /// Private sandbox networks (the default): the daemon refuses to start without it.
    Network,
    /// Disk quotas: without it sandboxes get none.
    Quota,
    /// Running the daemon as an ordinary user.
    Rootless,
}

impl Need {
    fn parse(word: &str) -> Option<Need> {
        match word {
            "network" => Some(Need::Network),
            "quota" => Some(Need::Quota),
            "rootless" => Some(Need::Rootless),
            _ => None,
        }
    }

    /// What goes missing without it, for messages.
    pub fn purpose(self) -> &'static str {
        match self {
            Need::Network => "private sandbox networks",
            Need::Quota => "sandbox disk quotas",
            Need::Rootless => "sandboxes as an ordinary user",
        }
    }
}

/// One program and the package that carries it on each family of distributions.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SystemTool {
    pub program: &'static str,
    pub need: Need,
    pub debian: &'static str,
    pub fedora: &'static str,
    pub arch: &'static str,
}

/// Every program of the list, in its order.
pub fn system_tools() -> Vec<SystemTool> {
    LIST.lines()
        .map(str::trim)
        .filter(|line| !line.is_empty() && !line.starts_with('#'))
        .filter_map(|line| {
            let mut words = line.split_whitespace();
            Some(SystemTool {
                program: words.next()?,
                need: Need::parse(words.next()?)?,
                debian: words.next()?,
                fedora: words.next()?,
                arch: words.next()?,
            })
        })
        .collect()
}

/// The programs of `needs` that are not on `path` (a `PATH` value; this process's when
/// `None`).
pub fn missing(needs: &[Need], path: Option<&OsStr>) -> Vec<SystemTool> {
    system_tools()
        .into_iter()
        .filter(|tool| needs.contains(&tool.need))
        .filter(|tool| !on_path(tool.program, path))
        .collect()
}

/// Whether `program` is an executable file in one of `path`'s directories (this
/// process's `PATH` when `None`).
pub fn on_path(program: &str, path: Option<&OsStr>) -> bool {
    use std::os::unix::fs::PermissionsExt;
    let own = std::env::var_os("PATH");
    path.or(own.as_deref()).is_some_and(|path| {
        std::env::split_paths(path).any(|dir| {
            std::fs::metadata(Path::new(&dir).join(program))
                .is_ok_and(|meta| meta.is_file() && meta.permissions().mode() & 0o111 != 0)
        })
    })
}

/// Missing programs, as the daemon's start-up refusal and `dsh doctor` name them.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub struct MissingTools(pub Vec<SystemTool>);

impl MissingTools {
    /// The install command on each family, e.g. `apt-get install passt nftables`.
    pub fn install_commands(&self) -> String {
        install_commands(&self.0)
    }
}

impl fmt::Display for MissingTools {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let names: Vec<String> = self
            .0
            .iter()
            .map(|tool| format!("{} (for {})", tool.program, tool.need.purpose()))
            .collect();
        write!(
            f,
            "missing programs: {}; install them: {}",
            names.join(", "),
            self.install_commands()
        )
    }
}

/// `Debian/Ubuntu: apt-get install …; Fedora: dnf install …; Arch: pacman -S …` for
/// `tools` (each package once).
pub fn install_commands(tools: &[SystemTool]) -> String {
    let packages = |pick: fn(&SystemTool) -> &'static str| {
        let mut names: Vec<&str> = Vec::new();
        for tool in tools {
            let name = pick(tool);
            if !names.contains(&name) {
                names.push(name);
            }
        }
        names.join(" ")
    };
    format!(
        "Debian/Ubuntu: apt-get install {}; Fedora: dnf install {}; Arch: pacman -S {}",
        packages(|t| t.debian),
        packages(|t| t.fedora),
        packages(|t| t.arch)
    )
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;

    #[test]
    fn the_list_names_every_program_with_its_packages() {
        let programs: Vec<(&str, Need, &str)> =
            system_tools().iter().map(|t| (t.program, t.need, t.debian)).collect();
        assert_eq!(
            programs,
            [
                ("pasta", Need::Network, "passt"),
                ("nft", Need::Network, "nftables"),
                ("mkfs.btrfs", Need::Quota, "btrfs-progs"),
                ("newuidmap", Need::Rootless, "uidmap"),
                ("newgidmap", Need::Rootless, "uidmap"),
            ]
        );
        // Every line of the list that is not a comment is a tool (a typo would drop one).
        let lines = LIST.lines().filter(|l| !l.trim().is_empty() && !l.starts_with('#'));
        assert_eq!(lines.count(), system_tools().len());
    }

    #[test]
    fn missing_programs_are_named_with_the_command_for_each_family() {
        let empty = tempfile::tempdir().unwrap();
        let missing = missing(&[Need::Network, Need::Rootless], Some(empty.path().as_os_str()));
        let names: Vec<&str> = missing.iter().map(|t| t.program).collect();
        assert_eq!(names, ["pasta", "nft", "newuidmap", "newgidmap"]);
        assert_eq!(
            MissingTools(missing).to_string(),
            "missing programs: pasta (for private sandbox networks), nft (for private sandbox networks), newuidmap (for sandboxes as an ordinary user), newgidmap (for sandboxes as an ordinary user); install them: Debian/Ubuntu: apt-get install passt nftables uidmap; Fedora: dnf install passt nftables shadow-utils; Arch: pacman -S passt nftables shadow"
        );
    }

    #[test]
    fn a_program_must_be_an_executable_file() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("pasta");
        std::fs::write(&file, "").unwrap();
        std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o644)).unwrap();
        assert!(!on_path("pasta", Some(dir.path().as_os_str())));
        std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o755)).unwrap();
        assert!(on_path("pasta", Some(dir.path().as_os_str())));
        assert!(!on_path("nft", Some(dir.path().as_os_str())));
    }
}
