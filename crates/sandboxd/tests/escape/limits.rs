//! Resource exhaustion stays inside: a sandbox over its memory limit loses the offending
//! process (and nothing else), a fork bomb stops at the pids limit, and RLIMIT_NPROC
//! counts the sandbox's own uids, not the host's uid 1000. Every probe is bounded (at
//! most 512 MiB asked for, at most 200 forks of sleeping processes) and ends with a kill.

use std::fs;
use std::os::unix::process::CommandExt;
use std::process::{Child, Command};
use std::sync::Arc;
use std::time::{Duration, Instant};

use dsh_sandboxd::cgroup::{Cgroups, Resources};

use super::probe::{PROBE_PATH, python};
use crate::common::{Shell, base_spec, launcher};

/// A cgroup parent of this test's own (`dsh-escape-<pid>-<test>`); its sandboxes'
/// cgroups and then its directories are removed on drop, whatever happened.
struct Parent {
    cgroups: Arc<Cgroups>,
    names: Vec<String>,
}

impl Parent {
    fn new(test: &str) -> Parent {
        let name = format!("dsh-escape-{}-{test}", std::process::id());
        Parent { cgroups: Arc::new(Cgroups::probe(&name).unwrap()), names: Vec::new() }
    }

    /// A shell in a sandbox of its own cgroup with `resources`.
    fn start(
        &mut self,
        prefix: &str,
        resources: Resources,
        script: &str,
    ) -> (tempfile::TempDir, Shell) {
        let (dir, mut spec) = base_spec(prefix);
        spec.resources = resources;
        self.names.push(spec.id.clone());
        let launcher = launcher().cgroups(self.cgroups.clone());
        let shell = Shell::start_with(&launcher, &spec, script).unwrap();
        (dir, shell)
    }
}

impl Drop for Parent {
    fn drop(&mut self) {
        for name in &self.names {
            let sandbox = self.cgroups.open(name);
            let _ = sandbox.kill_all();
            let _ = sandbox.remove();
        }
        for dir in self.cgroups.paths() {
            let _ = fs::remove_dir(dir);
        }
    }
}

/// `python3 <probe> <role>` for a probe body (no header lines: one role per sandbox).
fn probe_script(body: &str, role: &str) -> String {
    format!(
        "cat > {PROBE_PATH} <<'DSH_PROBE_END'\n{}DSH_PROBE_END\npython3 {PROBE_PATH} {role} 2>&1\n",
        python(body)
    )
}

#[test]
fn a_process_over_the_memory_limit_is_killed_and_the_sandbox_survives() {
    let mut parent = Parent::new("memory");
    let limit = 128 << 20;
    let resources =
        Resources { memory_bytes: Some(limit), swap_bytes: Some(0), ..Resources::default() };
    // 512 MiB, every page written (a repeated non-zero byte), as root and then as user.
    let hog = "python3 -c 'bytearray(b\"\\x01\") * (512 << 20); print(\"allocated\")'";
    let script = format!(
        "{hog}; echo root=$?\n\
         setpriv --reuid=1000 --regid=1000 --clear-groups {hog}; echo user=$?\n\
         echo alive; exec sleep 10\n"
    );
    let started = Instant::now();
    let (_dir, mut shell) = parent.start("oom", resources, &script);
    let lines: Vec<String> = (0..3).map(|_| shell.read_line()).collect();
    eprintln!("both hogs killed after {:?}", started.elapsed());
    // The shell reports 128 + SIGKILL for each, and lives on.
    assert_eq!(lines, ["root=137", "user=137", "alive"]);
    assert!(shell.process.try_wait().unwrap().is_none(), "the sandbox died with its hog");
    let usage = shell.process.cgroup().unwrap().usage().unwrap();
    assert_eq!(usage.memory_limit_bytes, Some(limit));
    assert!(usage.oom_kills >= 2, "{usage:?}");
    assert!(usage.memory_bytes <= limit, "{usage:?}");
    shell.process.kill().unwrap();
    shell.process.wait().unwrap();
}

/// Forks until the kernel refuses (at most 200), each child sleeping 10 s; prints how
/// many started and how the next fork failed.
const FORK_LOOP: &str = r#"
started = 0
for attempt_number in range(200):
    try:
        pid = os.fork()
    except OSError as e:
        out("fork failed", ename(e.errno))
        break
    if pid == 0:
        time.sleep(10)
        os._exit(0)
    started += 1
out("started", started)
time.sleep(10)
"#;

#[test]
fn forks_beyond_the_pids_limit_fail() {
    let mut parent = Parent::new("pids");
    let resources = Resources { pids: Some(64), ..Resources::default() };
    for role in ["root", "user"] {
        let (_dir, mut shell) = parent.start("forks", resources, &probe_script(FORK_LOOP, role));
        let lines: Vec<String> = (0..2).map(|_| shell.read_line()).collect();
        // The cgroup holds the init, the shell and python: 61 children fill it.
        assert_eq!(lines, ["fork failed=EAGAIN", "started=61"], "as {role}");
        let pids = shell.process.cgroup().unwrap().usage().unwrap().pids;
        assert_eq!(pids, 64, "as {role}");
        shell.process.kill().unwrap();
        shell.process.wait().unwrap();
    }
}

/// Host processes as the host's uid 1000 (killed on drop).
struct HostProcesses(Vec<Child>);

impl Drop for HostProcesses {
    fn drop(&mut self) {
        for child in &mut self.0 {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

/// RLIMIT_NPROC is counted per user namespace and uid: `user` inside is host uid
/// `host_base + 1000`, so the host's own uid 1000 (here running 20 processes, more than
/// the limit) does not count, and the limit binds root inside too (it lacks
/// CAP_SYS_RESOURCE over the host).
#[test]
fn rlimit_nproc_counts_the_sandboxs_own_uids() {
    // Rootless, uid 1000 does not exist in the daemon's namespace: the daemon's own user
    // (0 there) stands for the host's other processes.
    let rootless = dsh_sandboxd::rootless::blocks_inside().is_some();
    let mut host = HostProcesses(Vec::new());
    for _ in 0..20 {
        let mut sleep = Command::new("sleep");
        sleep.arg("10");
        if !rootless {
            sleep.uid(1000).gid(1000);
        }
        host.0.push(sleep.spawn().unwrap());
    }
    // Root inside counts the shell (pid 3) and python: 8 more fit under 10. `user` counts
    // only python: 9 more. Were the host's uid 1000 counted, `user` would start none.
    for (role, expected) in [
        ("root", ["fork failed=EAGAIN", "started=8"]),
        ("user", ["fork failed=EAGAIN", "started=9"]),
    ] {
        let (_dir, mut spec) = base_spec("nproc");
        spec.limits.max_processes = Some(10);
        let started = Instant::now();
        let mut shell = Shell::start(&spec, &probe_script(FORK_LOOP, role));
        let lines: Vec<String> = (0..2).map(|_| shell.read_line()).collect();
        assert!(started.elapsed() < Duration::from_secs(5));
        assert_eq!(lines, expected, "as {role}");
        shell.process.kill().unwrap();
        shell.process.wait().unwrap();
    }
}
