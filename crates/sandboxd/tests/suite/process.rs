//! The process tree: our init is pid 1, the payload pid 3 (pid 2 was the short-lived
//! holder of the sandbox's user namespace), and killing the init leaves nothing behind.

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::fs;
use std::os::unix::process::ExitStatusExt;
use std::path::Path;

use dsh_sandboxd::Error;

use crate::common::{Shell, base_spec, host_mounts_under, launcher, run_ok};

#[test]
fn the_shell_is_pid_3_under_our_init_and_sees_only_sandbox_processes() {
    let (_dir, spec) = base_spec("pids");
    // Shell builtins only, so no extra process shows up in /proc.
    let out = run_ok(
        &spec,
        "echo $$; for p in /proc/[0-9]*; do echo ${p#/proc/}; done; read comm < /proc/1/comm; echo $comm",
    );
    assert_eq!(out, "3\n1\n3\ndsh-sandbox-ini\n");
    // `ls` itself is pid 4 (no pipeline, so nothing else runs meanwhile)
    let out = run_ok(&spec, "ls /proc > /tmp/ls; grep -E '^[0-9]+$' /tmp/ls");
    assert_eq!(out, "1\n3\n4\n");
}

#[test]
fn spawn_sandboxed_finds_the_init_and_passes_arguments_and_environment() {
    let (_dir, spec) = base_spec("free-fn");
    let env = BTreeMap::from([("GREETING".to_owned(), "hello".to_owned())]);
    let args: Vec<OsString> = vec![
        "-c".into(),
        "test \"$GREETING\" = hello && test \"$LANG\" = C.UTF-8 && test \"$(pwd)\" = /home/user && exit 5"
            .into(),
    ];
    let mut process =
        dsh_sandboxd::spawn_sandboxed(&spec, Path::new("/bin/sh"), &args, &env).unwrap();
    assert_eq!(process.payload_pid(), 3);
    assert_eq!(process.wait().unwrap().code(), Some(5));
    dsh_sandboxd::destroy(&spec).unwrap();
}

#[test]
fn an_embedded_init_gets_its_subcommand_argument() {
    let (_dir, spec) = base_spec("init-arg");
    let launcher = launcher().init_arg("sandbox-init");
    let shell = Shell::start_with(&launcher, &spec, "tr '\\0' ' ' < /proc/1/cmdline").unwrap();
    let done = shell.finish();
    // argv[0] is a plain name: the init binary's host path must not show inside.
    assert_eq!(done.stdout, "dsh-sandbox-init sandbox-init ");
}

#[test]
fn the_payload_exit_code_is_the_sandbox_exit_code() {
    let (_dir, spec) = base_spec("exit");
    let done = Shell::start(&spec, "exit 3").finish();
    assert_eq!(done.status.code(), Some(3));
    let (_dir, spec) = base_spec("exit");
    let done = Shell::start(&spec, "kill -KILL $$").finish();
    assert_eq!(done.status.code(), Some(128 + 9));
}

#[test]
fn orphans_are_reaped_by_our_init() {
    let (_dir, spec) = base_spec("orphans");
    // The inner shell exits at once; its background sleep is re-parented to pid 1 and
    // exits 0.2 s later. The script waits (10 s at most, with builtins only) until just
    // pid 1 and itself are left: a zombie the init never reaps would keep its entry.
    let script = "sh -c 'sleep 0.2 &'; \
        i=0; while [ $i -lt 100 ]; do set -- /proc/[0-9]*; [ $# -le 2 ] && break; \
        sleep 0.1; i=$((i+1)); done; \
        for s in /proc/[0-9]*/stat; do read line < $s; echo \"$line\"; done";
    let out = run_ok(&spec, script);
    let states: Vec<(String, String)> = out
        .lines()
        .map(|l| {
            let (head, rest) = l.rsplit_once(") ").unwrap();
            let pid = head.split_once(' ').unwrap().0.to_owned();
            (pid, rest[..1].to_owned())
        })
        .collect();
    assert!(states.iter().all(|(_, state)| state != "Z"), "{out}");
    let pids: Vec<&str> = states.iter().map(|(pid, _)| pid.as_str()).collect();
    assert_eq!(pids, ["1", "3"], "{out}");
}

#[test]
fn sigterm_to_the_init_reaches_the_payload() {
    let (_dir, spec) = base_spec("term");
    let mut shell = Shell::start(
        &spec,
        "trap 'echo got-term; exit 7' TERM; echo ready; while true; do sleep 0.1; done",
    );
    assert_eq!(shell.read_line(), "ready");
    shell.process.signal(libc::SIGTERM).unwrap();
    let done = shell.finish();
    assert_eq!(done.status.code(), Some(7));
    assert_eq!(done.stdout, "got-term\n");
}

#[test]
fn kill_and_destroy_leave_no_process_mount_or_directory() {
    let (_dir, spec) = base_spec("kill");
    let mut shell = Shell::start(&spec, "sleep 1000 & sleep 1000 & echo ready; wait");
    assert_eq!(shell.read_line(), "ready");
    let state_dir = fs::canonicalize(&spec.state_dir).unwrap();
    let pids = shell.host_pids();
    // init, sh, two sleeps
    assert_eq!(pids.len(), 4, "{pids:?}");
    assert!(pids.contains(&shell.process.pid()));
    // Mounts are made in the sandbox's own mount namespace: none is visible on the host,
    // even while it runs.
    assert_eq!(host_mounts_under(&state_dir), Vec::<std::path::PathBuf>::new());
    let mountinfo = fs::read_to_string("/proc/self/mountinfo").unwrap();
    assert!(!mountinfo.contains(state_dir.to_str().unwrap()), "{mountinfo}");

    // destroy refuses while the sandbox runs
    let err = dsh_sandboxd::destroy(&spec).unwrap_err();
    assert!(matches!(err, Error::StillRunning { pid } if pid == shell.process.pid()), "{err:?}");

    shell.process.kill().unwrap();
    let status = shell.process.wait().unwrap();
    assert_eq!(status.signal(), Some(libc::SIGKILL));
    for pid in &pids {
        assert!(!Path::new(&format!("/proc/{pid}")).exists(), "process {pid} survived the kill");
    }
    assert!(host_mounts_under(&state_dir).is_empty());
    dsh_sandboxd::destroy(&spec).unwrap();
    assert!(!state_dir.exists());
    let mountinfo = fs::read_to_string("/proc/self/mountinfo").unwrap();
    assert!(!mountinfo.contains(state_dir.to_str().unwrap()), "{mountinfo}");
}

#[test]
fn terminate_escalates_to_kill_after_the_grace_period() {
    let (_dir, spec) = base_spec("grace");
    let mut shell = Shell::start(&spec, "trap '' TERM; echo ready; while true; do sleep 0.1; done");
    assert_eq!(shell.read_line(), "ready");
    let started = std::time::Instant::now();
    let status = shell.process.terminate(std::time::Duration::from_millis(300)).unwrap();
    assert_eq!(status.signal(), Some(libc::SIGKILL));
    assert!(started.elapsed() >= std::time::Duration::from_millis(300));
}

/// How the (tokio) control plane will use it: spawn on a blocking thread while the
/// runtime's other threads run, then await the exit through the pidfd.
#[test]
fn sandboxes_start_from_a_multi_threaded_tokio_runtime_and_are_awaited_by_pidfd() {
    use tokio::io::Interest;
    use tokio::io::unix::AsyncFd;

    let runtime =
        tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
    runtime.block_on(async {
        let busy = tokio::spawn(async {
            loop {
                tokio::time::sleep(std::time::Duration::from_millis(1)).await;
            }
        });
        let mut sandboxes = Vec::new();
        for n in 0..4 {
            let (dir, spec) = base_spec("tokio");
            let process = tokio::task::spawn_blocking(move || {
                let payload =
                    dsh_sandboxd::Payload::new("/bin/sh").args(["-c", &format!("exit {n}")]);
                launcher().spawn(&spec, payload).unwrap()
            })
            .await
            .unwrap();
            sandboxes.push((dir, n, process));
        }
        for (_dir, n, mut process) in sandboxes {
            let fd = process.pidfd().try_clone_to_owned().unwrap();
            // SAFETY: `fd` is an owned pidfd that stays open while the AsyncFd owns it.
            let exited = unsafe { AsyncFd::register_with_interest(fd, Interest::READABLE) }
                .map_err(|e| e.to_string())
                .unwrap();
            let _ready = exited.readable().await.unwrap();
            assert_eq!(process.try_wait().unwrap().and_then(|s| s.code()), Some(n));
        }
        busy.abort();
    });
}

/// What a restarted daemon does with an init an earlier daemon left running (one whose
/// lifeline did not fire): the recorded pid, checked against its start time, is killed.
#[test]
fn a_restarted_daemon_kills_a_stray_init_it_finds_recorded() {
    let (_dir, spec) = base_spec("stray");
    let mut shell = Shell::start(&spec, "echo ready; exec sleep 30");
    assert_eq!(shell.read_line(), "ready");
    let init = std::fs::read_to_string(spec.state_dir.join("init.pid")).unwrap();
    assert_eq!(init.split_whitespace().next(), Some(shell.process.pid().to_string().as_str()));
    let began = std::time::Instant::now();
    dsh_sandboxd::server::kill_stray_init(&spec.state_dir).unwrap();
    let status = shell.process.wait().unwrap();
    assert!(began.elapsed() < std::time::Duration::from_secs(5), "{:?}", began.elapsed());
    assert_eq!(status.signal(), Some(libc::SIGKILL));
    assert!(!spec.state_dir.join("init.pid").exists());
    // Nothing recorded any more: a second call has nothing to do.
    dsh_sandboxd::server::kill_stray_init(&spec.state_dir).unwrap();
}

/// The owner may let go the moment the launcher returns: the init must already be
/// listening then (it once armed its lifeline only after reporting ready).
#[test]
fn an_owner_that_lets_go_right_after_the_start_still_ends_the_sandbox() {
    for round in 0..20 {
        let (_dir, spec) = base_spec("lifeline-race");
        let mut shell = Shell::start(&spec, "exec sleep 10");
        let began = std::time::Instant::now();
        shell.process.close_lifeline();
        let status = shell.process.wait().unwrap();
        let took = began.elapsed();
        assert!(took < std::time::Duration::from_secs(5), "round {round}: {took:?}");
        assert_eq!(status.code(), Some(128 + 9), "round {round}");
    }
}

#[test]
fn the_sandbox_ends_when_its_owner_goes_away() {
    let (_dir, spec) = base_spec("lifeline");
    let mut shell = Shell::start(&spec, "sleep 30 & echo ready; wait");
    assert_eq!(shell.read_line(), "ready");
    let pids = shell.host_pids();
    assert!(pids.len() >= 3, "init, shell and sleep: {pids:?}");
    let began = std::time::Instant::now();
    // What happens when the daemon holding the handle dies, even by SIGKILL.
    shell.process.close_lifeline();
    let status = shell.process.wait().unwrap();
    assert!(began.elapsed() < std::time::Duration::from_secs(5), "{:?}", began.elapsed());
    assert_eq!(status.code(), Some(128 + 9));
    for pid in pids {
        assert!(
            !std::path::Path::new(&format!("/proc/{pid}")).exists(),
            "pid {pid} outlived its sandbox"
        );
    }
}

#[test]
fn namespaces_only_isolation_is_the_hosts_root_and_says_so() {
    let (_dir, mut spec) = base_spec("namespaces-only");
    spec.isolation = dsh_sandboxd::Isolation::Namespaces;
    let out = run_ok(
        &spec,
        "cat /proc/self/uid_map; grep -E '^(NoNewPrivs|Seccomp):' /proc/self/status; echo $$",
    );
    // No user namespace, no seccomp: the level for code you trust, named as such.
    assert_eq!(out, "         0          0 4294967295\nNoNewPrivs:\t0\nSeccomp:\t0\n2\n");
    assert_eq!(spec.isolation.name(), "namespaces");
}
