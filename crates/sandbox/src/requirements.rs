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
    /// gVisor sandboxes (`runtime: "gvisor"`): the daemon starts without it and refuses
    /// them.
    Gvisor,
}

impl Need {
    fn parse(word: &str) -> Option<Need> {
        match word {
            "network" => Some(Need::Network),
            "quota" => Some(Need::Quota),
            "rootless" => Some(Need::Rootless),
            "gvisor" => Some(Need::Gvisor),
            _ => None,
        }
    }

    /// What goes missing without it, for messages.
    pub fn purpose(self) -> &'static str {
        match self {
            Need::Network => "private sandbox networks",
            Need::Quota => "sandbox disk quotas",
            Need::Rootless => "sandboxes as an ordinary user",
            Need::Gvisor => "gVisor sandboxes (runtime \"gvisor\")",
        }
    }

    /// Where a program of this need comes from on a family that has no package for it.
    pub fn by_hand(self) -> &'static str {
        match self {
            Need::Gvisor => {
                "install gVisor's release from https://gvisor.dev/docs/user_guide/install/"
            }
            Need::Network | Need::Quota | Need::Rootless => "install it by hand",
        }
    }
}

/// One program and the package that carries it on each family of distributions (None:
/// the family has none, `-` in the list).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SystemTool {
    pub program: &'static str,
    pub need: Need,
    pub debian: Option<&'static str>,
    pub fedora: Option<&'static str>,
    pub arch: Option<&'static str>,
}

/// A package column of the list: `-` is no package.
fn package(word: &'static str) -> Option<&'static str> {
    (word != "-").then_some(word)
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
                debian: package(words.next()?),
                fedora: package(words.next()?),
                arch: package(words.next()?),
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
/// `tools` (each package once); a program without a package on a family is named with
/// where to get it instead (`no package for runsc (install gVisor's release from …)`).
pub fn install_commands(tools: &[SystemTool]) -> String {
    let family = |install: &str, pick: fn(&SystemTool) -> Option<&'static str>| {
        let mut names: Vec<&str> = Vec::new();
        let mut by_hand: Vec<String> = Vec::new();
        for tool in tools {
            match pick(tool) {
                Some(name) if !names.contains(&name) => names.push(name),
                Some(_) => {}
                None => by_hand.push(format!(
                    "no package for {} ({})",
                    tool.program,
                    tool.need.by_hand()
                )),
            }
        }
        let command = (!names.is_empty()).then(|| format!("{install} {}", names.join(" ")));
        command.into_iter().chain(by_hand).collect::<Vec<_>>().join(", ")
    };
    format!(
        "Debian/Ubuntu: {}; Fedora: {}; Arch: {}",
        family("apt-get install", |t| t.debian),
        family("dnf install", |t| t.fedora),
        family("pacman -S", |t| t.arch)
    )
}

/// The oldest runsc release the gVisor runtime works with (YYYYMMDD).
///
/// Older ones lack `--net-disconnect-ok` (checkpoints of sandboxes with a network) and a
/// working systrap platform. Debian 12's own runsc (20221219) is older; bookworm-backports
/// and Debian 13 have 20240729. scripts/setup holds the same number (a test checks).
pub const RUNSC_OLDEST: u32 = 20240729;

/// The release date of a runsc from its `--version` output (`runsc version 0.0~20240729.0`,
/// or upstream's `release-20240729.0`).
pub fn runsc_release(version_output: &str) -> Option<u32> {
    let version =
        version_output.lines().find_map(|line| line.trim().strip_prefix("runsc version "))?;
    // Debian's packages say `0.0~DATE.N`, upstream's releases `release-DATE.N`.
    let rest = version.strip_prefix("0.0~").or_else(|| version.strip_prefix("release-"))?;
    let (date, after) = (rest.get(..8)?, rest.get(8..)?);
    // Exactly eight digits: `release-2024072.0` or `0.0~202407291` are no date.
    if !date.bytes().all(|b| b.is_ascii_digit()) || after.starts_with(|c: char| c.is_ascii_digit())
    {
        return None;
    }
    date.parse().ok()
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;

    #[test]
    fn the_list_names_every_program_with_its_packages() {
        // `-` is no package: None.
        let tool = |program, need, debian, fedora, arch| {
            let package = |name: &'static str| (name != "-").then_some(name);
            SystemTool {
                program,
                need,
                debian: package(debian),
                fedora: package(fedora),
                arch: package(arch),
            }
        };
        assert_eq!(
            system_tools(),
            [
                tool("pasta", Need::Network, "passt", "passt", "passt"),
                tool("nft", Need::Network, "nftables", "nftables", "nftables"),
                tool("mkfs.btrfs", Need::Quota, "btrfs-progs", "btrfs-progs", "btrfs-progs"),
                tool("newuidmap", Need::Rootless, "uidmap", "shadow-utils", "shadow"),
                tool("newgidmap", Need::Rootless, "uidmap", "shadow-utils", "shadow"),
                // Fedora and Arch package no runsc.
                tool("runsc", Need::Gvisor, "runsc", "-", "-"),
                tool("ip", Need::Gvisor, "iproute2", "iproute", "iproute2"),
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
    fn a_program_without_a_package_is_named_with_where_to_get_it() {
        let mut gvisor = missing(&[Need::Gvisor], Some(OsStr::new("")));
        gvisor.retain(|tool| tool.program == "runsc");
        assert_eq!(
            MissingTools(gvisor.clone()).to_string(),
            "missing programs: runsc (for gVisor sandboxes (runtime \"gvisor\")); install them: Debian/Ubuntu: apt-get install runsc; Fedora: no package for runsc (install gVisor's release from https://gvisor.dev/docs/user_guide/install/); Arch: no package for runsc (install gVisor's release from https://gvisor.dev/docs/user_guide/install/)"
        );
        // With packages of the same family: the command first, then the one by hand.
        let mut both = missing(&[Need::Network], Some(OsStr::new("")));
        both.extend(gvisor);
        assert_eq!(
            install_commands(&both),
            "Debian/Ubuntu: apt-get install passt nftables runsc; Fedora: dnf install passt nftables, no package for runsc (install gVisor's release from https://gvisor.dev/docs/user_guide/install/); Arch: pacman -S passt nftables, no package for runsc (install gVisor's release from https://gvisor.dev/docs/user_guide/install/)"
        );
    }

    #[test]
    fn runsc_says_its_release_date_in_debians_and_upstreams_formats() {
        // Debian 13's and bookworm-backports' package.
        assert_eq!(
            runsc_release("runsc version 0.0~20240729.0\nspec: 1.0.2-dev\n"),
            Some(20240729)
        );
        // Debian 12's own: too old.
        let old = runsc_release("runsc version 0.0~20221219.0\nspec: 1.0.2-dev\n");
        assert_eq!(old, Some(20221219));
        assert!(old < Some(RUNSC_OLDEST));
        // gVisor's release builds.
        assert_eq!(
            runsc_release("runsc version release-20240729.0\nspec: 1.1.0\n"),
            Some(20240729)
        );
        assert_eq!(runsc_release("runsc version release-20250512.0"), Some(20250512));
        // Anything else is no release: a build from source, other programs, half a date.
        for garbage in [
            "",
            "runsc version VERSION_MISSING\nspec: 1.1.0",
            "runsc version 0.0~2024072.0",
            "runsc version 0.0~202407291.0",
            "runsc version release-2024O729.0",
            "runsc version 20240729",
            "gvisor version release-20240729.0",
            "runsc version 0.0~éééé",
        ] {
            assert_eq!(runsc_release(garbage), None, "{garbage:?}");
        }
    }

    /// scripts/setup compares runsc's release with the same oldest one.
    #[test]
    fn scripts_setup_wants_the_same_oldest_runsc() {
        let setup =
            std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../scripts/setup"))
                .unwrap();
        assert!(setup.contains(&format!("\nrunsc_oldest={RUNSC_OLDEST}\n")), "scripts/setup");
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
