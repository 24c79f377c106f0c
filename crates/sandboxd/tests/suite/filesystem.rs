//! What the sandbox sees: the allow-listed host directories, its own /proc, /dev, /tmp,
//! /home and /root, and nothing else of the host; writes never reach the host.

use std::fs;
use std::path::{Path, PathBuf};

use crate::common::{Shell, base_spec, run_ok, unique};

#[test]
fn hostname_is_the_sandbox_id() {
    let (_dir, spec) = base_spec("host");
    let out = run_ok(&spec, "hostname; uname -n; cat /etc/hostname");
    assert_eq!(out, format!("{0}\n{0}\n{0}\n", spec.id));
}

#[test]
fn only_the_allow_list_and_the_sandboxs_own_directories_are_at_the_root() {
    let (_dir, spec) = base_spec("root");
    let out = run_ok(&spec, "ls -A /");
    let mut expected = vec![
        ".dsh", "bin", "dev", "etc", "home", "lib", "lib64", "opt", "proc", "root", "run", "sbin",
        "sys", "tmp", "usr", "var",
    ];
    if Path::new("/lib32").exists() {
        expected.push("lib32");
        expected.sort_unstable();
    }
    assert_eq!(out.lines().collect::<Vec<_>>(), expected);
    // merged-usr symlinks are recreated as symlinks
    let out = run_ok(&spec, "readlink /bin /lib");
    assert_eq!(out, "usr/bin\nusr/lib\n");
}

/// A host file that is removed again when the test ends, even if it fails.
struct Marker(PathBuf);

impl Marker {
    fn new(path: PathBuf) -> Marker {
        fs::write(&path, "secret").unwrap();
        Marker(path)
    }
}

impl Drop for Marker {
    fn drop(&mut self) {
        let _ = fs::remove_file(&self.0);
    }
}

#[test]
fn host_files_outside_the_allow_list_are_invisible() {
    let (dir, spec) = base_spec("hidden");
    let root_marker =
        Marker::new(Path::new("/root").join(format!(".{}", unique("dsh-sandboxd-marker"))));
    let tmp_marker = Marker::new(std::env::temp_dir().join(unique("dsh-sandboxd-marker")));
    let checkout_file = Path::new(env!("CARGO_MANIFEST_DIR")).join("Cargo.toml");
    assert!(checkout_file.exists());
    let paths = [
        root_marker.0.as_path(),
        tmp_marker.0.as_path(),
        checkout_file.as_path(),
        Path::new("/work"),
        Path::new("/root/.cargo"),
        Path::new("/mnt"),
        Path::new("/srv"),
        Path::new("/media"),
        Path::new("/boot"),
        Path::new("/home/cloudsdk"),
        dir.path(),
    ];
    let script: String = paths
        .iter()
        .map(|p| format!("test -e '{0}' && echo 'visible {0}'; ", p.display()))
        .chain(["ls -A /tmp /root /run /var/tmp; echo done".to_owned()])
        .collect();
    let out = run_ok(&spec, &script);
    assert_eq!(out, "/root:\n\n/run:\n\n/tmp:\n\n/var/tmp:\ndone\n");
}

#[test]
fn writes_stay_in_the_sandbox_and_persistent_ones_survive_a_restart() {
    let (_dir_a, spec_a) = base_spec("write-a");
    let (_dir_b, spec_b) = base_spec("write-b");
    let name = unique("dsh-sandboxd-written");
    let files = [
        format!("/tmp/{name}"),
        format!("/home/user/{name}"),
        format!("/root/{name}"),
        format!("/usr/local/{name}"),
        format!("/etc/{name}"),
        format!("/opt/{name}"),
    ];
    let write: String = files.iter().map(|f| format!("echo x > {f} && ")).collect();
    assert_eq!(run_ok(&spec_a, &format!("{write} echo written")), "written\n");

    for file in &files {
        assert!(!Path::new(file).exists(), "{file} appeared on the host");
    }
    // ... but the overlay's upper layer in the state directory has it
    let upper = spec_a.state_dir.join("overlay/usr/upper/local").join(&name);
    assert_eq!(fs::read_to_string(upper).unwrap(), "x\n");

    let list: String = files
        .iter()
        .map(|f| format!("test -e {f} && echo {f}; "))
        .chain(["true".to_owned()])
        .collect();
    assert_eq!(run_ok(&spec_b, &list), "", "a second sandbox sees the first one's files");
    // The same sandbox started again: /tmp is fresh, everything else persisted.
    assert_eq!(
        run_ok(&spec_a, &list),
        files[1..].iter().map(|f| format!("{f}\n")).collect::<String>()
    );
}

#[test]
fn users_root_and_user_exist_and_home_belongs_to_user() {
    let (_dir, spec) = base_spec("users");
    let out = run_ok(
        &spec,
        "id -u user; id -g user; id -un 0; getent passwd user; getent group user; \
         stat -c '%u:%g %a' /home/user; stat -c '%a' /etc /usr /tmp /dev/shm /root; pwd; \
         grep -c ':1000:' /etc/passwd; id -u",
    );
    assert_eq!(
        out,
        "1000\n1000\nroot\nuser:x:1000:1000::/home/user:/bin/bash\nuser:x:1000:\n\
         1000:1000 755\n755\n755\n1777\n1777\n700\n/home/user\n1\n0\n"
    );
    let host_passwd = fs::read_to_string("/etc/passwd").unwrap();
    assert!(!host_passwd.contains("user:x:1000:1000::/home/user"));
}

#[test]
fn dev_is_minimal_and_ptys_work() {
    let (_dir, spec) = base_spec("dev");
    let out = run_ok(
        &spec,
        "ls -A /dev; readlink /dev/ptmx /dev/fd; echo hi > /dev/null; head -c 5 /dev/urandom | wc -c; \
         python3 -c 'import os; m, s = os.openpty(); print(os.ttyname(s))'",
    );
    assert_eq!(
        out,
        "fd\nfull\nnull\nptmx\npts\nrandom\nshm\nstderr\nstdin\nstdout\ntty\nurandom\nzero\n\
         pts/ptmx\n/proc/self/fd\n5\n/dev/pts/0\n"
    );
}

#[test]
fn node_and_python_from_the_host_work_inside() {
    let (_dir, spec) = base_spec("tools");
    let out = run_ok(
        &spec,
        "/usr/bin/env node -e 'console.log(1+1)'; python3 -c 'print(6*7)'; npm --version >/dev/null && echo npm-ok",
    );
    assert_eq!(out, "2\n42\nnpm-ok\n");
}

#[test]
fn the_payload_runs_from_a_read_only_overlay() {
    let (_dir, spec) = base_spec("program");
    let done = Shell::start(
        &spec,
        "echo $0; touch /.dsh/bin/sh 2>/dev/null || echo read-only; \
         grep -c ' /.dsh/bin ro,' /proc/self/mountinfo",
    )
    .finish();
    assert_eq!(done.stdout, "/.dsh/bin/sh\nread-only\n1\n", "{}", done.stderr);
}

#[test]
fn host_files_only_root_may_read_stay_unreadable_to_root_inside() {
    // Root inside owns what host root owns (idmapped layers), so private host files in
    // the shown directories are masked: /etc/shadow's hashes never reach a sandbox.
    let shadow = fs::read_to_string("/etc/shadow").unwrap();
    assert!(shadow.starts_with("root:"));
    let (_dir, spec) = base_spec("private");
    let out = run_ok(
        &spec,
        "wc -c < /etc/shadow; ls -A /etc/ssl/private | wc -l; cat /etc/passwd >/dev/null && echo passwd-readable",
    );
    assert_eq!(out, "0\n0\npasswd-readable\n");
}
