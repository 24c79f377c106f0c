//! The host's filesystem: no host path shows inside, files outside the allow-list are
//! invisible, writes stay in the sandbox's state directory under the sandbox's own host
//! uids, and what a sandbox leaves in its persistent directories cannot turn the next
//! start (run as host root) against the host.

use std::fs;
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};

use super::probe::{
    HostPath, assert_output, assert_probe, both_roles, expected_each, hex_paths, host_base,
};
use crate::common::{Shell, base_spec, run_ok, unique};

/// Host paths that must not show anywhere inside: (label, path).
fn host_paths(dir: &Path, state: &Path) -> Vec<(&'static str, PathBuf)> {
    let manifest = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let workspace = manifest.parent().and_then(Path::parent).unwrap().to_owned();
    let init = crate::common::init_binary();
    let target = init.parent().unwrap().to_owned();
    vec![
        ("state dir", state.to_owned()),
        ("test dir", dir.to_owned()),
        ("crate", manifest),
        ("workspace", workspace),
        ("init binary", init),
        ("target dir", target),
    ]
}

#[test]
fn no_host_path_or_host_only_file_is_visible() {
    let (dir, spec) = base_spec("paths");
    fs::create_dir_all(&spec.state_dir).unwrap();
    let state = fs::canonicalize(&spec.state_dir).unwrap();
    let tmp_marker =
        HostPath::file(std::env::temp_dir().join(unique("dsh-escape-marker")), "secret");
    // Root's home; rootless, the daemon's user's (what a rootless sandbox must not see).
    let private_home = match dsh_sandboxd::rootless::blocks_inside() {
        None => PathBuf::from("/root"),
        Some(_) => PathBuf::from(std::env::var_os("HOME").unwrap()),
    };
    let root_marker = HostPath::file(private_home.join(unique(".dsh-escape-marker")), "secret");
    let forbidden = host_paths(dir.path(), &state);
    // Hex-encoded: the probe is part of the shell's command line (/proc/3/cmdline), which
    // must not hold the paths it looks for.
    let needles = hex_paths(&forbidden);
    let body = format!(
        r#"
import glob
NEEDLES = [(label, bytes.fromhex(hex).decode()) for label, hex in {needles:?}]

def leaks(text):
    found = [label for label, needle in NEEDLES if needle in text]
    return ",".join(found) or "none"

def text_of(path):
    with open(path, "rb") as f:
        return f.read().decode(errors="replace")

for source in ("/proc/self/mountinfo", "/proc/self/mounts", "/proc/1/mountinfo", "/proc/self/maps",
               "/proc/self/environ", "/proc/self/cgroup", "/proc/1/cmdline", "/proc/3/cmdline"):
    out(f"leaks({{source}})", attempt(lambda: leaks(text_of(source))))
everything = []
for path in glob.glob("/proc/[0-9]*/cmdline") + glob.glob("/proc/[0-9]*/environ"):
    try:
        everything.append(text_of(path))
    except OSError:
        pass
out("leaks(every readable cmdline and environ)", leaks("\n".join(everything)))
for label, path in NEEDLES:
    out(f"exists({{label}})", os.path.exists(path))
out("exists(host /tmp marker)", os.path.exists({tmp:?}))
out("exists(host home marker)", os.path.exists({root:?}))
for path in ("/tmp", "/root", "/run", "/var/tmp"):
    out(f"listdir({{path}})", attempt(lambda: ",".join(sorted(os.listdir(path))) or "empty"))
"#,
        tmp = tmp_marker.path().display().to_string(),
        root = root_marker.path().display().to_string(),
    );
    let mut rows: Vec<(String, &str, &str)> = [
        "/proc/self/mountinfo",
        "/proc/self/mounts",
        "/proc/1/mountinfo",
        "/proc/self/maps",
        "/proc/self/environ",
        "/proc/self/cgroup",
        "/proc/1/cmdline",
        "/proc/3/cmdline",
    ]
    .iter()
    .map(|source| {
        // A process that changed its uid from 0 is not dumpable: its own environ then
        // belongs to root (a quirk, not a leak).
        let user = if *source == "/proc/self/environ" { "EACCES" } else { "none" };
        (format!("leaks({source})"), "none", user)
    })
    .collect();
    rows.push(("leaks(every readable cmdline and environ)".into(), "none", "none"));
    rows.extend(forbidden.iter().map(|(label, _)| (format!("exists({label})"), "False", "False")));
    rows.push(("exists(host /tmp marker)".into(), "False", "False"));
    rows.push(("exists(host home marker)".into(), "False", "False"));
    rows.push(("listdir(/tmp)".into(), "empty", "empty"));
    rows.push(("listdir(/root)".into(), "empty", "EACCES"));
    rows.push(("listdir(/run)".into(), "dsh-probe.py", "dsh-probe.py"));
    rows.push(("listdir(/var/tmp)".into(), "empty", "empty"));
    let rows: Vec<(&str, &str, &str)> = rows.iter().map(|(l, r, u)| (l.as_str(), *r, *u)).collect();
    assert_probe(&spec, &body, &rows);
}

/// Root inside owns the shown host directories (through the idmapped lower layers) and
/// may write there, but every write lands in the sandbox's upper layer, owned on the host
/// by the sandbox's ids, never by host root; ids outside the block cannot be set.
///
/// Rootless (an ordinary user's daemon, no idmapped layers), the host's files are
/// nobody's inside (65534) and not root's to write; root inside writes where the
/// sandbox's root owns the upper layer (`/etc`, `/usr/local/bin`), with the same result.
#[test]
fn writes_land_in_the_state_directory_under_the_sandboxs_own_host_ids() {
    let (_dir, spec) = base_spec("writes");
    let base = host_base(&spec);
    let name = unique("dsh-escape-probe");
    let rootless = dsh_sandboxd::rootless::blocks_inside().is_some();
    // Where root inside may write a program; its upper-layer directory on the host.
    let (bin, upper_bin) = match rootless {
        false => ("/usr/bin", "overlay/usr/upper/bin"),
        true => ("/usr/local/bin", "overlay/usr/upper/local/bin"),
    };
    let body = format!(
        r#"
NAME = {name:?}
BIN = {bin:?}
def touch(path):
    open(path, "a").close()
if ROLE == "root":
    out("touch(/usr/bin/NAME)", attempt(lambda: touch(f"/usr/bin/{{NAME}}")))
    out("touch(BIN/NAME)", attempt(lambda: touch(f"{{BIN}}/{{NAME}}")))
    out("touch(/etc/NAME)", attempt(lambda: touch(f"/etc/{{NAME}}")))
    out("chown(/etc/NAME, 1000)", attempt(lambda: os.chown(f"/etc/{{NAME}}", 1000, 1000)))
    out("chown(BIN/NAME, 65536)", attempt(lambda: os.chown(f"{{BIN}}/{{NAME}}", 65536, 65536)))
    out("owner(BIN/NAME)", os.stat(f"{{BIN}}/{{NAME}}").st_uid)
    out("owner(/usr/bin/python3)", os.stat("/usr/bin/python3").st_uid)
else:
    out("touch(/usr/bin/NAME)", attempt(lambda: touch(f"/usr/bin/{{NAME}}-user")))
    out("touch(/etc/NAME)", attempt(lambda: touch(f"/etc/{{NAME}}-user")))
    out("touch(/home/user/NAME)", attempt(lambda: touch(f"/home/user/{{NAME}}")))
    out("open_wronly(/usr/bin/python3)", attempt(lambda: os.close(os.open("/usr/bin/python3", os.O_WRONLY))))
"#
    );
    let done = Shell::start(&spec, &both_roles(&body)).finish();
    assert_output(
        &done,
        &expected_each(
            &[
                ("touch(/usr/bin/NAME)", if rootless { "EACCES" } else { "ok" }),
                ("touch(BIN/NAME)", "ok"),
                ("touch(/etc/NAME)", "ok"),
                ("chown(/etc/NAME, 1000)", "ok"),
                // Ids outside the block do not exist inside.
                ("chown(BIN/NAME, 65536)", "EINVAL"),
                ("owner(BIN/NAME)", "0"),
                // Host root's: root's inside, or nobody's in a user's namespace.
                ("owner(/usr/bin/python3)", if rootless { "65534" } else { "0" }),
            ],
            &[
                ("touch(/usr/bin/NAME)", "EACCES"),
                ("touch(/etc/NAME)", "EACCES"),
                ("touch(/home/user/NAME)", "ok"),
                ("open_wronly(/usr/bin/python3)", "EACCES"),
            ],
        ),
    );
    // Nothing reached the host's own directories...
    for path in [
        format!("/usr/bin/{name}"),
        format!("/usr/local/bin/{name}"),
        format!("/etc/{name}"),
        format!("/usr/bin/{name}-user"),
    ] {
        assert!(!Path::new(&path).exists(), "{path} appeared on the host");
    }
    // ... and the upper layers hold the files under the block's ids.
    let owner = |path: PathBuf| {
        let meta =
            fs::symlink_metadata(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        (meta.uid(), meta.gid())
    };
    let state = &spec.state_dir;
    assert_eq!(owner(state.join(upper_bin).join(&name)), (base, base));
    assert_eq!(owner(state.join("overlay/etc/upper").join(&name)), (base + 1000, base + 1000));
    assert_eq!(owner(state.join("home/user").join(&name)), (base + 1000, base + 1000));
    // The directory written in is root's inside, `base` on the host (copied up from host
    // root's /usr/bin, or made by the plan rootless).
    assert_eq!(owner(state.join(upper_bin)), (base, base));
}

/// The init runs the next start's plan as host root, and the plan's `MakeDir` steps chmod
/// and chown `<state>/home/user` and `<state>/var/tmp`, which are `/home/user` and
/// `/var/tmp` inside and so the sandbox's to replace. They once followed a symlink left
/// there (found by this suite: `ln -s /etc /var/tmp` inside, and the next start made the
/// host's /etc mode 1777, owned by the sandbox's root); now a non-directory there is
/// replaced by a fresh directory, chmod opens `O_NOFOLLOW` and chown is `lchown`.
///
/// The probe points the symlinks at a directory and a file this test owns.
#[test]
fn symlinks_left_in_persistent_directories_are_not_followed_by_the_next_start() {
    let (dir, spec) = base_spec("symlink");
    let target_dir = HostPath::dir(dir.path().join("host-dir"));
    fs::set_permissions(target_dir.path(), fs::Permissions::from_mode(0o700)).unwrap();
    let target_file = HostPath::file(dir.path().join("host-file"), "host secret");
    fs::set_permissions(target_file.path(), fs::Permissions::from_mode(0o600)).unwrap();
    let before = |path: &Path| {
        let meta = fs::symlink_metadata(path).unwrap();
        (meta.mode() & 0o7777, meta.uid(), meta.gid())
    };
    let dir_before = before(target_dir.path());
    let file_before = before(target_file.path());

    let plant = format!(
        "rm -rf /var/tmp /home/user && ln -s {} /var/tmp && ln -s {} /home/user && echo planted",
        target_dir.path().display(),
        target_file.path().display()
    );
    assert_eq!(run_ok(&spec, &plant), "planted\n");
    // The next start of the same sandbox works, with real directories again.
    let next = run_ok(&spec, "stat -c '%F %a %U' /var/tmp /home/user");
    assert_eq!(next, "directory 1777 root\ndirectory 755 user\n");

    let mut changed = Vec::new();
    for (what, path, was) in [
        ("directory behind /var/tmp", target_dir.path(), dir_before),
        ("file behind /home/user", target_file.path(), file_before),
    ] {
        let now = before(path);
        if now != was {
            changed.push(format!(
                "the host {what} went from mode {:o} owner {}:{} to mode {:o} owner {}:{}",
                was.0, was.1, was.2, now.0, now.1, now.2
            ));
        }
    }
    assert!(
        changed.is_empty(),
        "the next start followed the sandbox's symlinks:\n{}",
        changed.join("\n")
    );
}

/// The shown host directories are idmapped so that host root's files are root's inside,
/// so root inside could read host files only host root may read (/etc/shadow, SSH host
/// keys, TLS keys, credentials; found by this suite). Each such file is masked with
/// /dev/null (a directory with an empty tmpfs): it reads empty, as root and as user. A
/// root-only marker made for the test stands for them.
#[test]
fn root_only_host_files_in_shown_directories_are_unreadable() {
    // Rootless, the daemon's user cannot make a root-only file in /etc: the host's own
    // /etc/shadow (root's, unreadable to others) stands for them.
    let rootless = dsh_sandboxd::rootless::blocks_inside().is_some();
    let marker = (!rootless).then(|| {
        let marker =
            HostPath::file(Path::new("/etc").join(unique("dsh-escape-secret")), "host secret\n");
        fs::set_permissions(marker.path(), fs::Permissions::from_mode(0o600)).unwrap();
        marker
    });
    let (_dir, spec) = base_spec("secrets");
    let shadow = Path::new("/etc/shadow").exists();
    assert!(shadow || !rootless, "a rootless run needs the host's /etc/shadow to stand in");
    let body = format!(
        r#"
if {marker:?}:
    out("read(root-only marker in /etc)", read({marker:?}))
if {shadow}:
    out("read(/etc/shadow)", read("/etc/shadow"))
"#,
        marker = marker.as_ref().map(|m| m.path().display().to_string()).unwrap_or_default(),
        shadow = if shadow { "True" } else { "False" },
    );
    let mut rows = Vec::new();
    if marker.is_some() {
        rows.push(("read(root-only marker in /etc)", "empty", "empty"));
    }
    if shadow {
        rows.push(("read(/etc/shadow)", "empty", "empty"));
    }
    assert_probe(&spec, &body, &rows);
}

/// A host file the launcher hands in as a descriptor (here the payload's stderr,
/// `Output::File`; under the daemon, envd's log in the sandbox's state directory) showed
/// its host path through the `/proc/<pid>/fd` links, which root inside may read and which
/// reopen the file (found by this suite); now the launcher hands in a pipe and copies it
/// into the file.
#[test]
fn descriptors_handed_in_do_not_reveal_host_paths() {
    let (dir, spec) = base_spec("fds");
    fs::create_dir_all(&spec.state_dir).unwrap();
    let state = fs::canonicalize(&spec.state_dir).unwrap();
    let needles = hex_paths(&host_paths(dir.path(), &state));
    let body = format!(
        r#"
import glob
NEEDLES = [(label, bytes.fromhex(hex).decode()) for label, hex in {needles:?}]
links = []
for link in glob.glob("/proc/[0-9]*/fd/*"):
    try:
        links.append(os.readlink(link))
    except OSError:
        pass
text = "\n".join(links)
out("leaks(fd links)", ",".join(label for label, needle in NEEDLES if needle in text) or "none")
"#
    );
    assert_probe(&spec, &body, &[("leaks(fd links)", "none", "none")]);
}

/// The sandbox's cgroup path on the host (`…/dsh-sandboxes/<id>` under the daemon's
/// own) showed inside in `/proc/self/cgroup` and in mountinfo's cgroup views (found by
/// attacking a sandbox from inside); a cgroup namespace rooted at the sandbox's cgroup
/// now shows `/` for it, whatever the hierarchy.
#[test]
fn the_host_s_cgroup_paths_do_not_show_inside() {
    use dsh_sandboxd::cgroup::{Cgroups, Resources};
    let parent = format!("dsh-escape-{}-cgroupns", std::process::id());
    let cgroups = std::sync::Arc::new(Cgroups::probe(&parent).unwrap());
    let (_dir, spec) = base_spec("cgroupns");
    let launcher = crate::common::launcher().cgroups(cgroups.clone());
    // Every directory of the hierarchy above the sandbox's own, as the host names them.
    let host_paths: Vec<String> =
        cgroups.paths().iter().map(|dir| dir.join(&spec.id).display().to_string()).collect();
    let body = r#"
import re
groups = open("/proc/self/cgroup").read().splitlines()
out("cgroup paths", ",".join(sorted(set(line.split(":", 2)[2] for line in groups))))
names = set()
for line in open("/proc/self/mountinfo"):
    fields = line.split()
    if fields[fields.index("-") + 1].startswith("cgroup"):
        names.add(fields[3])
out("cgroup mount roots", ",".join(sorted(names)) or "none")
"#;
    let resources = Resources { pids: Some(64), ..Resources::default() };
    let mut spec = spec;
    spec.resources = resources;
    let shell = crate::common::Shell::start_with(&launcher, &spec, &super::probe::both_roles(body))
        .unwrap();
    let done = shell.finish();
    let sandbox = cgroups.open(&spec.id);
    let _ = sandbox.kill_all();
    let _ = sandbox.remove();
    for dir in cgroups.paths() {
        let _ = std::fs::remove_dir(dir);
    }
    for path in &host_paths {
        let tail = path.rsplit_once("/sys/fs/cgroup").map_or(path.as_str(), |(_, t)| t);
        let own = tail.split('/').rfind(|s| !s.is_empty()).unwrap_or_default();
        assert!(
            !done.stdout.contains(&parent),
            "the daemon's cgroup shows inside:\n{}",
            done.stdout
        );
        assert!(
            !done.stdout.contains(own),
            "the sandbox's host cgroup shows inside:\n{}",
            done.stdout
        );
    }
    let both = |line: &str| format!("[root]\n{line}\n[user]\n{line}\n");
    assert_eq!(
        done.stdout,
        both("cgroup paths=/\ncgroup mount roots=/"),
        "stderr: {}",
        done.stderr
    );
}
