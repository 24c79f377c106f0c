//! A fresh machine, as far as the daemon's host programs go: a `PATH` without any of
//! them. The set-up step (`scripts/setup`, which `scripts/tour` runs before building),
//! `dsh doctor` and the daemon's start-up refusal must name the same programs, all read
//! from the one list (`crates/sandbox/system-tools.txt`).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The programs of the list, by need (parsed here independently of the daemon's parser).
fn listed(need: &str) -> BTreeSet<String> {
    let list = std::fs::read_to_string(repo().join("crates/sandbox/system-tools.txt")).unwrap();
    list.lines()
        .filter(|line| !line.trim().is_empty() && !line.starts_with('#'))
        .filter_map(|line| {
            let words: Vec<&str> = line.split_whitespace().collect();
            (need == "*" || words[1] == need).then(|| words[0].to_owned())
        })
        .collect()
}

/// (program, Debian package) of every line of the list, in its order.
fn debian_packages() -> Vec<(String, String)> {
    let list = std::fs::read_to_string(repo().join("crates/sandbox/system-tools.txt")).unwrap();
    list.lines()
        .filter(|line| !line.trim().is_empty() && !line.starts_with('#'))
        .map(|line| {
            let words: Vec<&str> = line.split_whitespace().collect();
            (words[0].to_owned(), words[2].to_owned())
        })
        .collect()
}

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// A directory of links to every program of the usual directories but the list's: a
/// `PATH` of a machine where none of them is installed.
fn path_without_the_list() -> tempfile::TempDir {
    let hidden = listed("*");
    let bin = tempfile::tempdir().unwrap();
    for dir in ["/usr/local/sbin", "/usr/local/bin", "/usr/sbin", "/usr/bin", "/sbin", "/bin"] {
        let Ok(entries) = std::fs::read_dir(dir) else { continue };
        for entry in entries.flatten() {
            let name = entry.file_name();
            if hidden.contains(name.to_str().unwrap_or_default()) {
                continue;
            }
            let link = bin.path().join(&name);
            if !link.exists() {
                let _ = std::os::unix::fs::symlink(entry.path(), link);
            }
        }
    }
    for program in &hidden {
        assert!(!bin.path().join(program).exists());
    }
    bin
}

fn run(command: &mut Command) -> Output {
    for key in ["E2B_API_KEY", "E2B_API_URL", "E2B_SANDBOX_URL", "E2B_DOMAIN", "DSH_BACKEND"] {
        command.env_remove(key);
    }
    command.output().unwrap()
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// The programs `scripts/setup --check` says are missing.
fn setup_says(path: &Path, args: &[&str]) -> BTreeSet<String> {
    let output =
        run(Command::new(repo().join("scripts/setup")).arg("--check").args(args).env("PATH", path));
    assert_eq!(output.status.code(), Some(1), "{}", text(&output.stderr));
    let stdout = text(&output.stdout);
    let missing = stdout
        .lines()
        .next()
        .and_then(|line| line.strip_prefix("system tools: missing "))
        .unwrap_or_else(|| panic!("unexpected answer: {stdout}"));
    missing.split_whitespace().map(str::to_owned).collect()
}

#[test]
fn set_up_doctor_and_the_daemon_name_the_same_missing_programs() {
    // Root's view, as CI runs it (an ordinary user's differs only by the rootless
    // helpers, which the rootless step of scripts/test exercises for real).
    assert!(rustix::process::geteuid().is_root(), "this test runs as root, as CI does");
    let bin = path_without_the_list();
    let network = listed("network");
    let quota = listed("quota");
    assert_eq!(network, BTreeSet::from(["nft".to_owned(), "pasta".to_owned()]));

    // The set-up step: root's needs, and every need (what scripts/test installs).
    let roots: BTreeSet<String> = network.union(&quota).cloned().collect();
    assert_eq!(setup_says(bin.path(), &[]), roots);
    assert_eq!(setup_says(bin.path(), &["--all"]), listed("*"));

    // dsh doctor: the required ones fail, the quota's warns; each named as the program.
    let output = run(Command::new(env!("CARGO_BIN_EXE_dsh"))
        .args(["doctor", "--json"])
        .env("PATH", bin.path()));
    assert_eq!(output.status.code(), Some(1), "{}", text(&output.stderr));
    let checks: Vec<serde_json::Value> = serde_json::from_slice(&output.stdout).unwrap();
    let with_status = |status: &str| -> BTreeSet<String> {
        checks
            .iter()
            .filter(|c| c["status"] == status && listed("*").contains(c["name"].as_str().unwrap()))
            .map(|c| c["name"].as_str().unwrap().to_owned())
            .collect()
    };
    assert_eq!(with_status("fail"), network);
    assert_eq!(with_status("warn"), quota);
    let pasta = checks.iter().find(|c| c["name"] == "pasta").unwrap();
    assert_eq!(pasta["found"], "pasta not on PATH: no private sandbox networks");
    // gVisor is optional: no runsc is a note, not a warning (its fix says how to get it).
    let runsc = checks.iter().find(|c| c["name"] == "runsc").unwrap();
    assert_eq!(runsc["status"], "ok");
    assert_eq!(
        runsc["found"],
        "runsc not on PATH: no gVisor sandboxes (runtime \"gvisor\"), which are optional"
    );

    // The daemon refuses to start, naming exactly doctor's failures, in one message.
    let state = tempfile::tempdir().unwrap();
    let output = run(Command::new(env!("CARGO_BIN_EXE_dsh"))
        .args(["sandbox", "serve", "--listen", "127.0.0.1:0", "--state-dir"])
        .arg(state.path())
        .env("PATH", bin.path()));
    assert_eq!(output.status.code(), Some(1));
    let stderr = text(&output.stderr);
    let refusal = stderr.lines().find(|l| l.starts_with("dsh: ")).unwrap_or_default();
    assert_eq!(
        refusal,
        "dsh: the local sandbox daemon cannot start (`dsh doctor --fix` installs what is missing; [sandboxd] net = \"none\" runs sandboxes without a network instead): missing programs: pasta (for private sandbox networks), nft (for private sandbox networks); install them: Debian/Ubuntu: apt-get install passt nftables; Fedora: dnf install passt nftables; Arch: pacman -S passt nftables"
    );
    let named: BTreeSet<String> = refusal
        .split("missing programs: ")
        .nth(1)
        .unwrap()
        .split(';')
        .next()
        .unwrap()
        .split(", ")
        .map(|entry| entry.split(' ').next().unwrap().to_owned())
        .collect();
    assert_eq!(named, with_status("fail"));
}

/// A runsc that says `version` (a script standing in for it) on a `PATH` without the
/// list's programs: what `scripts/setup --check --all` says is missing and `dsh doctor`'s
/// runsc check (status, found).
fn with_runsc_saying(version: &str) -> (BTreeSet<String>, (String, String)) {
    let bin = path_without_the_list();
    let runsc = bin.path().join("runsc");
    std::fs::write(&runsc, format!("#!/bin/sh\nprintf '{version}\\nspec: 1.0.2-dev\\n'\n"))
        .unwrap();
    std::fs::set_permissions(&runsc, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let missing = setup_says(bin.path(), &["--all"]);
    let output = run(Command::new(env!("CARGO_BIN_EXE_dsh"))
        .args(["doctor", "--json"])
        .env("PATH", bin.path()));
    let checks: Vec<serde_json::Value> = serde_json::from_slice(&output.stdout).unwrap();
    let check = checks.iter().find(|c| c["name"] == "runsc").unwrap();
    let field = |name: &str| check[name].as_str().unwrap().to_owned();
    (missing, (field("status"), field("found")))
}

/// Debian 12's own runsc (20221219) is too old for the gVisor runtime: the set-up step
/// counts it as missing (and so upgrades it), and doctor warns; bookworm-backports' and
/// upstream's releases are new enough.
#[test]
fn a_runsc_older_than_the_oldest_the_runtime_works_with_counts_as_missing() {
    let all = listed("*");
    let without_runsc: BTreeSet<String> = all.iter().filter(|p| *p != "runsc").cloned().collect();
    assert_eq!(
        with_runsc_saying("runsc version 0.0~20221219.0"),
        (
            all,
            (
                "warn".to_owned(),
                "runsc 20221219 is older than 20240729: too old for gVisor sandboxes (runtime \"gvisor\")".to_owned()
            )
        )
    );
    for (version, release) in [
        ("runsc version 0.0~20240729.0", "20240729"),
        ("runsc version release-20250512.0", "20250512"),
    ] {
        assert_eq!(
            with_runsc_saying(version),
            (
                without_runsc.clone(),
                ("ok".to_owned(), format!("runsc {release}: gVisor sandboxes available"))
            )
        );
    }
}

#[test]
fn with_everything_installed_the_set_up_step_says_so_at_once() {
    let output = run(Command::new(repo().join("scripts/setup")).arg("--all"));
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    assert_eq!(text(&output.stdout), "system tools: all present\n");
}

/// `dsh doctor --fix` as an ordinary user cannot install: it names the packages of what
/// is missing (the user's needs: the network's and the id-mapping helpers') and the
/// command to run as root, and installs nothing.
#[test]
fn doctor_fix_without_root_says_the_command_and_installs_nothing() {
    let bin = path_without_the_list();
    // `nobody` may read the links (the directory is made world-readable for it).
    std::fs::set_permissions(bin.path(), std::os::unix::fs::PermissionsExt::from_mode(0o755))
        .unwrap();
    let output = run(Command::new("setpriv")
        .args(["--reuid=nobody", "--regid=nogroup", "--clear-groups", "--"])
        .arg(env!("CARGO_BIN_EXE_dsh"))
        .args(["doctor", "--fix", "--json"])
        .env("PATH", bin.path())
        .env("HOME", "/nonexistent"));
    assert_eq!(output.status.code(), Some(1), "{}", text(&output.stderr));
    // An ordinary user's dsh also looks in the sbin directories (Debian's nft is there).
    let in_sbin = |program: &str| {
        ["/usr/local/sbin", "/usr/sbin", "/sbin"]
            .iter()
            .any(|d| Path::new(d).join(program).exists())
    };
    let user_needs: BTreeSet<String> = listed("network")
        .union(&listed("rootless"))
        .filter(|program| !in_sbin(program))
        .cloned()
        .collect();
    let report: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    let checks = report["checks"].as_array().unwrap();
    // The packages: the list's, for the user's missing programs; and Debian's for what
    // agents expect inside that this machine lacks (doctor's own table).
    let mut packages: BTreeSet<String> = debian_packages()
        .into_iter()
        .filter(|(program, _)| user_needs.contains(program))
        .map(|(_, package)| package)
        .collect();
    let agents = [
        ("node", "nodejs"),
        ("npm", "npm"),
        ("python3", "python3"),
        ("python", "python-is-python3"),
        ("git", "git"),
        ("curl", "curl"),
    ];
    for (name, package) in agents {
        if checks.iter().any(|c| c["name"] == name && c["status"] != "ok") {
            packages.insert(package.to_owned());
        }
    }
    assert_eq!(report["fixed"]["installed"], serde_json::json!([]));
    let error = report["fixed"]["error"].as_str().unwrap();
    let named = error
        .strip_prefix("installing packages needs root: sudo apt-get install -y ")
        .unwrap_or_else(|| panic!("{error}"));
    assert_eq!(named.split(' ').map(str::to_owned).collect::<BTreeSet<_>>(), packages);
    let failed: BTreeSet<String> = checks
        .iter()
        .filter(|c| c["status"] == "fail" && listed("*").contains(c["name"].as_str().unwrap()))
        .map(|c| c["name"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(failed, user_needs);
}
