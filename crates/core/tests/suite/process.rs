use std::path::PathBuf;
use std::time::{Duration, Instant};

use bytes::Bytes;
use dsh_core::host::Host;
use dsh_core::{
    CancellationToken, EndReason, OutputMode, ProcessError, Signal, SpawnSpec, StdinMode,
    Subprocess,
};

use crate::common::{clean_env, eventually, group_members};

fn spec(argv: &[&str]) -> SpawnSpec {
    let mut spec = SpawnSpec::new(argv.iter().copied(), "/tmp", clean_env());
    spec.timeout = Some(Duration::from_secs(30));
    spec
}

fn sh(script: &str) -> SpawnSpec {
    spec(&["sh", "-c", script])
}

async fn group_is_gone(pgid: u32) -> bool {
    eventually(Duration::from_secs(5), || async move { group_members(pgid).is_empty() }).await
}

#[tokio::test]
async fn captures_output_and_exit_code() {
    let process = Host::new().spawn(sh("echo out; echo err >&2; exit 3")).await.unwrap();
    let status = process.wait().await;
    assert_eq!((status.code, status.signal, status.reason), (Some(3), None, EndReason::Exited));
    assert_eq!(process.stdout().snapshot().to_string_lossy(), "out\n");
    assert_eq!(process.stderr().snapshot().to_string_lossy(), "err\n");
}

#[tokio::test]
async fn runs_in_its_own_session_and_group_in_the_given_cwd() {
    let dir = tempfile::tempdir().unwrap();
    let mut spec = sh("echo $$ $(ps -o pgid= -o sid= -p $$) $(pwd)");
    spec.cwd = dir.path().to_path_buf();
    let process = Host::new().spawn(spec).await.unwrap();
    process.wait().await;
    let out = process.stdout().snapshot().to_string_lossy();
    let fields: Vec<_> = out.split_whitespace().collect();
    let pid = process.pid().to_string();
    assert_eq!(fields[..3], [pid.as_str(), pid.as_str(), pid.as_str()], "{out}");
    assert_eq!(PathBuf::from(fields[3]), std::fs::canonicalize(dir.path()).unwrap());
}

#[tokio::test]
async fn stdin_data_and_pipe() {
    let local = Host::new();
    let mut with_data = spec(&["cat"]);
    with_data.stdin = StdinMode::Data(Bytes::from_static(b"given bytes"));
    let process = local.spawn(with_data).await.unwrap();
    assert!(process.wait().await.success());
    assert_eq!(process.stdout().snapshot().to_string_lossy(), "given bytes");

    let mut piped = spec(&["cat"]);
    piped.stdin = StdinMode::Pipe;
    let process = local.spawn(piped).await.unwrap();
    process.write_stdin(b"typed ").await.unwrap();
    process.write_stdin(b"later").await.unwrap();
    process.close_stdin().await.unwrap();
    assert!(process.wait().await.success());
    assert_eq!(process.stdout().snapshot().to_string_lossy(), "typed later");
    assert!(matches!(process.write_stdin(b"x").await, Err(ProcessError::StdinClosed)));

    let ignored = local.spawn(spec(&["cat"])).await.unwrap();
    assert!(matches!(ignored.write_stdin(b"x").await, Err(ProcessError::StdinClosed)));
    assert!(ignored.wait().await.success());
}

#[tokio::test]
async fn output_is_readable_from_offsets_while_running() {
    let mut spec = sh("echo one; read _; echo two");
    spec.stdin = StdinMode::Pipe;
    let process = Host::new().spawn(spec).await.unwrap();
    let stdout = process.stdout();
    stdout.wait_beyond(0).await;
    let first = stdout.read_from(0, 1024);
    assert_eq!((first.data.as_slice(), first.next_offset, first.closed), (&b"one\n"[..], 4, false));
    assert!(process.try_wait().is_none());

    process.write_stdin(b"go\n").await.unwrap();
    stdout.wait_beyond(first.next_offset).await;
    process.wait().await;
    let second = stdout.read_from(first.next_offset, 1024);
    assert_eq!((second.data.as_slice(), second.skipped, second.closed), (&b"two\n"[..], 0, true));
}

#[tokio::test]
async fn a_gibibyte_of_output_is_capped_with_head_and_tail_kept() {
    const GIB: u64 = 1 << 30;
    let mut spec = sh("printf START; head -c 1073741824 /dev/zero; printf END");
    spec.stdout = OutputMode::Capped { max_bytes: 64 * 1024 };
    let started = Instant::now();
    let process = Host::new().spawn(spec).await.unwrap();
    let status = process.wait().await;
    let elapsed = started.elapsed();
    assert!(status.success(), "{status:?}");
    let out = process.stdout().snapshot();
    assert_eq!(out.total, GIB + 8);
    assert_eq!((out.head.len(), out.tail.len()), (32 * 1024, 32 * 1024));
    assert!(out.head.starts_with(b"START\0"));
    assert!(out.tail.ends_with(b"\0END"));
    assert_eq!(out.dropped, GIB + 8 - 64 * 1024);
    eprintln!("1 GiB through a capped pipe in {elapsed:?}");
    assert!(elapsed < Duration::from_secs(20), "{elapsed:?}");
}

#[tokio::test]
async fn a_process_ignoring_sigterm_is_killed_after_the_grace() {
    let mut spec = sh("trap '' TERM; echo ready; sleep 100");
    spec.grace = Duration::from_millis(300);
    let process = Host::new().spawn(spec).await.unwrap();
    process.stdout().wait_beyond(0).await;
    let started = Instant::now();
    let status = process.terminate().await;
    let took = started.elapsed();
    assert_eq!((status.signal, status.reason), (Some(libc::SIGKILL), EndReason::Terminated));
    assert!(took >= Duration::from_millis(300) && took < Duration::from_secs(3), "{took:?}");
    assert!(group_is_gone(process.pid()).await, "{:?}", group_members(process.pid()));
}

#[tokio::test]
async fn sigterm_ends_a_cooperative_process_without_waiting_for_the_grace() {
    let mut spec = spec(&["sleep", "100"]);
    spec.grace = Duration::from_secs(10);
    let process = Host::new().spawn(spec).await.unwrap();
    let started = Instant::now();
    let status = process.terminate().await;
    assert_eq!(status.signal, Some(libc::SIGTERM));
    assert!(started.elapsed() < Duration::from_secs(2));
}

#[tokio::test]
async fn timeout_kills_the_whole_group() {
    let mut spec = spec(&["bash", "--norc", "--noprofile", "-c", "sleep 100 & sleep 100"]);
    // Long enough for the group to be seen whole before it is killed.
    spec.timeout = Some(Duration::from_millis(1500));
    spec.grace = Duration::from_millis(200);
    let process = Host::new().spawn(spec).await.unwrap();
    let pgid = process.pid();
    assert!(eventually(Duration::from_secs(5), || async { group_members(pgid).len() >= 3 }).await);
    let status = process.wait().await;
    assert_eq!(status.reason, EndReason::TimedOut);
    assert!(status.duration >= Duration::from_millis(1500));
    assert!(group_is_gone(pgid).await, "{:?}", group_members(pgid));
}

#[tokio::test]
async fn cancellation_kills_the_whole_group() {
    let cancel = CancellationToken::new();
    let mut spec = spec(&["bash", "--norc", "--noprofile", "-c", "sleep 100 & sleep 100"]);
    spec.cancel = cancel.clone();
    let process = Host::new().spawn(spec).await.unwrap();
    let pgid = process.pid();
    assert!(eventually(Duration::from_secs(5), || async { group_members(pgid).len() >= 3 }).await);
    cancel.cancel();
    let status = process.wait().await;
    assert_eq!(status.reason, EndReason::Cancelled);
    assert!(group_is_gone(pgid).await, "{:?}", group_members(pgid));
}

#[tokio::test]
async fn dropping_the_handle_kills_the_whole_group() {
    let spec = spec(&["bash", "--norc", "--noprofile", "-c", "sleep 100 & sleep 100"]);
    let process = Host::new().spawn(spec).await.unwrap();
    let pgid = process.pid();
    assert!(eventually(Duration::from_secs(5), || async { group_members(pgid).len() >= 3 }).await);
    drop(process);
    assert!(group_is_gone(pgid).await, "{:?}", group_members(pgid));
}

#[tokio::test]
async fn wait_does_not_hang_on_a_background_child_holding_the_pipes() {
    let process = Host::new().spawn(sh("sleep 100 & echo started")).await.unwrap();
    let pgid = process.pid();
    let started = Instant::now();
    let status = process.wait().await;
    assert!(status.success());
    assert!(started.elapsed() < Duration::from_secs(2), "{:?}", started.elapsed());
    assert_eq!(process.stdout().snapshot().to_string_lossy(), "started\n");
    assert!(!process.stdout().is_closed(), "the background sleep still holds stdout");
    // The leftover dies with the handle.
    assert!(!group_members(pgid).is_empty());
    drop(process);
    assert!(group_is_gone(pgid).await, "{:?}", group_members(pgid));
}

#[tokio::test]
async fn signals_reach_the_group() {
    let process = Host::new().spawn(spec(&["sleep", "100"])).await.unwrap();
    process.signal(Signal::Int).await.unwrap();
    let status = process.wait().await;
    assert_eq!((status.signal, status.reason), (Some(libc::SIGINT), EndReason::Exited));
    assert!(matches!(process.signal(Signal::Int).await, Err(ProcessError::Exited)));
}

#[tokio::test]
async fn spawn_errors_are_typed() {
    let local = Host::new();
    let err = local.spawn(spec(&["/definitely/not/a/program"])).await.unwrap_err();
    assert!(matches!(err, ProcessError::SpawnFailed { .. }), "{err:?}");
    let mut missing_cwd = spec(&["true"]);
    missing_cwd.cwd = "/definitely/not/a/dir".into();
    let err = local.spawn(missing_cwd).await.unwrap_err();
    assert!(matches!(err, ProcessError::CwdNotFound(_)), "{err:?}");
    let err = local.spawn(spec(&[])).await.unwrap_err();
    assert!(matches!(err, ProcessError::InvalidSpec(_)), "{err:?}");
    let mut relative = spec(&["true"]);
    relative.cwd = "tmp".into();
    let err = local.spawn(relative).await.unwrap_err();
    assert!(matches!(err, ProcessError::InvalidSpec(_)), "{err:?}");
}

#[tokio::test]
async fn the_seams_are_object_safe() {
    let subprocess: std::sync::Arc<dyn Subprocess> = std::sync::Arc::new(Host::new());
    let process = subprocess.spawn(spec(&["true"])).await.unwrap();
    assert!(process.wait().await.success());
    let _fs: std::sync::Arc<dyn dsh_core::Fs> = std::sync::Arc::new(Host::new());
    let _terminals: std::sync::Arc<dyn dsh_core::Terminals> = std::sync::Arc::new(Host::new());
}

#[tokio::test]
async fn null_outputs_and_uncapped_pipes() {
    let mut spec = sh("echo dropped; echo kept >&2");
    spec.stdout = OutputMode::Null;
    spec.stderr = OutputMode::Pipe;
    let process = Host::new().spawn(spec).await.unwrap();
    assert!(process.wait().await.success());
    assert_eq!(process.stdout().total(), 0);
    assert!(process.stdout().is_closed());
    assert_eq!(process.stderr().snapshot().to_string_lossy(), "kept\n");
}

#[tokio::test]
async fn files_and_commands_see_the_same_files() {
    use dsh_core::{Fs, WriteExpectation};
    let dir = tempfile::tempdir().unwrap();
    let local = Host::new();
    let from_fs = dir.path().join("from_fs.txt");
    local.write_text(&from_fs, "written by Fs\n", WriteExpectation::CreateIfAbsent).await.unwrap();
    let mut spec = sh("cat from_fs.txt; echo 'written by a command' > from_cmd.txt");
    spec.cwd = dir.path().to_path_buf();
    let process = local.spawn(spec).await.unwrap();
    assert!(process.wait().await.success());
    assert_eq!(process.stdout().snapshot().to_string_lossy(), "written by Fs\n");
    let read = local.read_text(&dir.path().join("from_cmd.txt"), 1024).await.unwrap();
    assert_eq!(read.text, "written by a command\n");
}

/// Spawn-to-exit latency of `true` with a clean environment; prints the median.
#[tokio::test]
async fn round_trip_latency_of_true() {
    let local = Host::new();
    let mut samples = Vec::new();
    for _ in 0..50 {
        let started = Instant::now();
        let process = local.spawn(spec(&["true"])).await.unwrap();
        assert!(process.wait().await.success());
        samples.push(started.elapsed());
    }
    samples.sort();
    eprintln!("`true` round trip: median {:?}, p90 {:?}", samples[25], samples[45]);
    assert!(samples[25] < Duration::from_millis(500));
}

#[test]
fn a_runtime_shutting_down_leaves_no_process_behind() {
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    let (process, pgid) = runtime.block_on(async {
        let spec = spec(&["bash", "--norc", "--noprofile", "-c", "sleep 100 & sleep 100"]);
        let process = Host::new().spawn(spec).await.unwrap();
        let pgid = process.pid();
        assert!(
            eventually(Duration::from_secs(5), || async { group_members(pgid).len() >= 3 }).await
        );
        (process, pgid)
    });
    // The runtime goes first: no task is left to run the TERM/grace/KILL sequence.
    drop(runtime);
    drop(process);
    let deadline = Instant::now() + Duration::from_secs(5);
    while !group_members(pgid).is_empty() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(group_members(pgid).is_empty(), "{:?}", group_members(pgid));
}
