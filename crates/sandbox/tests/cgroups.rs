//! Real cgroups (needs root, as on this machine and CI): limits that hold against real
//! processes. Every test works in a parent cgroup of its own (`dsh-test-<pid>-<test>`),
//! removed again by a guard even when the test fails.

use std::fs;
use std::io::Write;
use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::thread;
use std::time::{Duration, Instant};

use dsh_sandbox::cgroup::{CgroupError, Cgroups, Resources, SandboxCgroup, Version};

/// Removes the test's sandbox cgroups and then its parent directories, whatever happened.
struct Parent {
    cgroups: Cgroups,
    names: Vec<String>,
}

impl Parent {
    fn new(test: &str) -> Parent {
        let name = format!("dsh-test-{}-{test}", std::process::id());
        Parent { cgroups: Cgroups::probe(&name).unwrap(), names: Vec::new() }
    }

    fn create(&mut self, name: &str, resources: &Resources) -> SandboxCgroup {
        self.names.push(name.into());
        self.cgroups.create(name, resources).unwrap()
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

/// A shell that waits for a line on stdin before running `script`, so that it can be put
/// into a cgroup before it does anything. Killed on drop.
struct Held {
    child: Child,
}

impl Held {
    fn spawn(script: &str) -> Held {
        Held::spawn_with(script, Stdio::null())
    }

    fn spawn_with(script: &str, stderr: impl Into<Stdio>) -> Held {
        let child = Command::new("/bin/sh")
            .arg("-c")
            .arg(format!("read _ || exit 1; {script}"))
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(stderr)
            .spawn()
            .unwrap();
        Held { child }
    }

    fn pid(&self) -> u32 {
        self.child.id()
    }

    fn go(&mut self) {
        self.child.stdin.take().unwrap().write_all(b"go\n").unwrap();
    }

    fn wait(&mut self, within: Duration) -> ExitStatus {
        let deadline = Instant::now() + within;
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                return status;
            }
            assert!(Instant::now() < deadline, "child still running after {within:?}");
            thread::sleep(Duration::from_millis(10));
        }
    }
}

impl Drop for Held {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn expected_version() -> Version {
    if Path::new("/sys/fs/cgroup/cgroup.controllers").exists() { Version::V2 } else { Version::V1 }
}

/// The content of a controller file of the sandbox, from whichever directory has it.
fn file(sandbox: &SandboxCgroup, name: &str) -> String {
    let dir = sandbox
        .paths()
        .into_iter()
        .find(|dir| dir.join(name).exists())
        .unwrap_or_else(|| panic!("no {name} in {:?}", sandbox.paths()));
    fs::read_to_string(dir.join(name)).unwrap().trim().to_string()
}

fn procs(sandbox: &SandboxCgroup) -> Vec<i32> {
    let mut pids: Vec<i32> = sandbox
        .paths()
        .iter()
        .flat_map(|dir| {
            fs::read_to_string(dir.join("cgroup.procs"))
                .unwrap_or_default()
                .lines()
                .map(String::from)
                .collect::<Vec<_>>()
        })
        .map(|line| line.parse().unwrap())
        .collect();
    pids.sort_unstable();
    pids.dedup();
    pids
}

#[test]
fn a_process_over_the_memory_limit_is_oom_killed_and_the_host_is_not() {
    let mut parent = Parent::new("memory");
    let limit = 64 << 20;
    let sandbox = parent.create(
        "oom",
        &Resources { memory_bytes: Some(limit), swap_bytes: Some(0), ..Resources::default() },
    );
    // tail -c keeps the last 300 MiB of a pipe in buffers it reads into: real, touched
    // memory. (On /dev/zero itself it would just seek to the end.) The pipe is its stdin,
    // fed from here, so that the sandbox holds this one process.
    let mut hog = Held::spawn("exec tail -c 300M");
    sandbox.add(hog.pid()).unwrap();
    // The same amount of memory, outside the cgroup, at the same time.
    let outside = Command::new("/bin/sh")
        .arg("-c")
        .arg("head -c 300M /dev/zero | tail -c 256M | wc -c")
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let started = Instant::now();
    let mut stdin = hog.child.stdin.take().unwrap();
    let feeder = thread::spawn(move || {
        stdin.write_all(b"go\n").unwrap();
        let zeros = vec![0u8; 1 << 20];
        let mut fed = 0u64;
        // Ends with EPIPE once the hog is dead.
        while fed < 320 << 20 && stdin.write_all(&zeros).is_ok() {
            fed += zeros.len() as u64;
        }
        fed
    });

    let status = hog.wait(Duration::from_secs(8));
    eprintln!("hog ended after {:?}: {status:?}", started.elapsed());
    assert_eq!(status.signal(), Some(libc::SIGKILL), "{status:?}");
    let fed = feeder.join().unwrap();
    assert!(fed < 300 << 20, "the hog read all {fed} bytes");
    let usage = sandbox.usage().unwrap();
    assert!(usage.oom_kills >= 1, "{usage:?}");
    assert_eq!(usage.memory_limit_bytes, Some(limit));
    assert!(usage.memory_bytes <= limit, "{usage:?}");

    let outside = outside.wait_with_output().unwrap();
    assert!(outside.status.success(), "{:?}", outside.status);
    assert_eq!(String::from_utf8_lossy(&outside.stdout).trim(), (256u64 << 20).to_string());
}

#[test]
fn forks_beyond_the_pids_limit_fail() {
    // The shell's background sleeps outlive it (the shell gives up at the first failed
    // fork); as a subreaper this test gets them back to reap, so that pids.current, which
    // counts zombies, can reach 0.
    // SAFETY: prctl with integer arguments changes only this process's reaping.
    assert_eq!(unsafe { libc::prctl(libc::PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) }, 0);
    let mut parent = Parent::new("pids");
    let sandbox = parent.create("forks", &Resources { pids: Some(10), ..Resources::default() });
    let stderr = tempfile::NamedTempFile::new().unwrap();
    let mut shell = Held::spawn_with(
        "i=0; while [ $i -lt 30 ]; do sleep 5 & i=$((i+1)); done; wait",
        stderr.reopen().unwrap(),
    );
    sandbox.add(shell.pid()).unwrap();
    shell.go();

    // dash exits at the first failed fork; bash retries with growing sleeps: either way
    // the count sits at the limit.
    let started = Instant::now();
    let mut most = 0;
    let mut at_limit_since = None;
    while started.elapsed() < Duration::from_secs(4) {
        let pids = sandbox.usage().unwrap().pids;
        most = most.max(pids);
        if pids == 10 {
            at_limit_since.get_or_insert_with(Instant::now);
        }
        let exited = shell.child.try_wait().unwrap().is_some();
        if exited || at_limit_since.is_some_and(|t| t.elapsed() > Duration::from_millis(500)) {
            break;
        }
        thread::sleep(Duration::from_millis(5));
    }
    assert_eq!(most, 10, "pids.current peaked at {most}");

    let members = procs(&sandbox);
    sandbox.kill_all().unwrap();
    assert_eq!(procs(&sandbox), Vec::<i32>::new());
    shell.wait(Duration::from_secs(2));
    reap(&members, shell.pid());
    let deadline = Instant::now() + Duration::from_secs(2);
    while sandbox.usage().unwrap().pids != 0 && Instant::now() < deadline {
        thread::sleep(Duration::from_millis(10));
    }
    assert_eq!(sandbox.usage().unwrap().pids, 0);

    let errors = fs::read_to_string(stderr.path()).unwrap();
    assert!(errors.to_lowercase().contains("fork"), "shell's stderr: {errors:?}");
}

/// Reaps the processes this (subreaper) test inherited.
fn reap(pids: &[i32], except: u32) {
    let deadline = Instant::now() + Duration::from_secs(2);
    for &pid in pids.iter().filter(|&&pid| pid as u32 != except) {
        loop {
            let mut status = 0;
            // SAFETY: waitpid of a child with a valid status pointer.
            let reaped = unsafe { libc::waitpid(pid, &mut status, libc::WNOHANG) };
            if reaped != 0 || Instant::now() >= deadline {
                break;
            }
            thread::sleep(Duration::from_millis(5));
        }
    }
}

#[test]
fn cpu_bandwidth_caps_a_busy_loop() {
    let mut parent = Parent::new("cpu");
    let sandbox =
        parent.create("busy", &Resources { cpu_millis: Some(200), ..Resources::default() });
    let mut spinner = Held::spawn("while :; do :; done");
    sandbox.add(spinner.pid()).unwrap();
    let before = sandbox.usage().unwrap().cpu_usage_usec;
    spinner.go();
    let started = Instant::now();
    thread::sleep(Duration::from_secs(1));
    let used = sandbox.usage().unwrap().cpu_usage_usec - before;
    let wall = started.elapsed();
    sandbox.kill_all().unwrap();
    assert_eq!(spinner.wait(Duration::from_secs(2)).signal(), Some(libc::SIGKILL));
    eprintln!("{used} µs of CPU in {wall:?}");
    assert!((100_000..=350_000).contains(&used), "{used} µs of CPU in {wall:?} at 0.2 CPU");
}

#[test]
fn create_reuse_remove_and_names() {
    let mut parent = Parent::new("lifecycle");
    assert_eq!(parent.cgroups.version(), expected_version());
    let again = Cgroups::probe(&format!("dsh-test-{}-lifecycle", std::process::id())).unwrap();
    assert_eq!(again.paths(), parent.cgroups.paths());

    let limited = Resources {
        memory_bytes: Some(128 << 20),
        swap_bytes: Some(0),
        pids: Some(50),
        cpu_millis: Some(500),
    };
    let sandbox = parent.create("life", &limited);
    let paths = sandbox.paths();
    assert!(paths.iter().all(|p| p.is_dir()), "{paths:?}");
    assert!(
        paths.iter().all(|p| parent.cgroups.paths().contains(&p.parent().unwrap().to_path_buf()))
    );
    assert_eq!(sandbox.usage().unwrap().memory_limit_bytes, Some(128 << 20));
    assert_eq!(file(&sandbox, "pids.max"), "50");
    match expected_version() {
        Version::V1 => {
            assert_eq!(file(&sandbox, "memory.limit_in_bytes"), "134217728");
            if paths.iter().any(|p| p.join("memory.memsw.limit_in_bytes").exists()) {
                assert_eq!(file(&sandbox, "memory.memsw.limit_in_bytes"), "134217728");
            }
            assert_eq!(file(&sandbox, "cpu.cfs_period_us"), "100000");
            assert_eq!(file(&sandbox, "cpu.cfs_quota_us"), "50000");
        }
        Version::V2 => {
            assert_eq!(file(&sandbox, "memory.max"), "134217728");
            assert_eq!(file(&sandbox, "memory.swap.max"), "0");
            assert_eq!(file(&sandbox, "cpu.max"), "50000 100000");
        }
    }

    // Reused (as after a daemon restart): the old limits are gone.
    let reused = parent.create("life", &Resources::default());
    assert_eq!(reused.paths(), paths);
    assert_eq!(reused.usage().unwrap().memory_limit_bytes, None);
    assert_eq!(file(&reused, "pids.max"), "max");
    match expected_version() {
        Version::V1 => assert_eq!(file(&reused, "cpu.cfs_quota_us"), "-1"),
        Version::V2 => {
            assert_eq!(file(&reused, "memory.swap.max"), "max");
            assert_eq!(file(&reused, "cpu.max"), "max 100000");
        }
    }

    reused.remove().unwrap();
    assert!(paths.iter().all(|p| !p.exists()), "{paths:?}");
    reused.remove().unwrap();
    parent.cgroups.open("life").remove().unwrap();
    parent.cgroups.open("never-created").remove().unwrap();
    parent.cgroups.open("never-created").kill_all().unwrap();
}

#[test]
fn a_cgroup_with_a_live_process_is_removed_only_after_kill_all() {
    let mut parent = Parent::new("busy");
    let sandbox = parent.create("live", &Resources::default());
    let mut waiting = Held::spawn("");
    sandbox.add(waiting.pid()).unwrap();

    let started = Instant::now();
    let err = sandbox.remove().unwrap_err();
    eprintln!("remove refused after {:?}: {err}", started.elapsed());
    match &err {
        CgroupError::Busy { pids, .. } => assert_eq!(pids, &[waiting.pid()]),
        other => panic!("expected Busy, got {other:?}"),
    }
    assert!(sandbox.paths().iter().all(|p| p.is_dir()));

    sandbox.kill_all().unwrap();
    assert_eq!(waiting.wait(Duration::from_secs(2)).signal(), Some(libc::SIGKILL));
    sandbox.remove().unwrap();
    assert!(sandbox.paths().iter().all(|p| !p.exists()));
}

#[test]
fn names_that_could_escape_are_refused() {
    let parent = Parent::new("names");
    let parents: Vec<PathBuf> = parent.cgroups.paths();
    let escapes: Vec<(PathBuf, bool)> = parents
        .iter()
        .map(|dir| dir.parent().unwrap().join("x"))
        .map(|x| {
            let existed = x.exists();
            (x, existed)
        })
        .collect();
    for bad in ["../x", "..", ".", "", "a/b", "/x", "x y"] {
        let err = parent.cgroups.create(bad, &Resources::default()).unwrap_err();
        assert!(matches!(err, CgroupError::InvalidName { .. }), "{bad:?}: {err:?}");
        let opened = parent.cgroups.open(bad);
        assert!(opened.paths().is_empty());
        assert!(matches!(opened.remove(), Err(CgroupError::InvalidName { .. })));
        assert!(matches!(opened.add(std::process::id()), Err(CgroupError::InvalidName { .. })));
    }
    for (x, existed) in escapes {
        assert_eq!(x.exists(), existed, "{x:?}");
    }
    for dir in &parents {
        let children = fs::read_dir(dir).unwrap().filter(|e| e.as_ref().unwrap().path().is_dir());
        assert_eq!(children.count(), 0, "{dir:?}");
    }
    assert!(matches!(Cgroups::probe("../escape"), Err(CgroupError::InvalidName { .. })));
}
