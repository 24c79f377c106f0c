//! The `Subprocess` contract: output, stdin, sessions and groups, and every way a group
//! ends (exit, signal, timeout, cancellation, terminate, drop).

use std::path::PathBuf;
use std::time::{Duration, Instant};

use bytes::Bytes;

use super::{BackendUnderTest, Deviation};
use crate::{
    CancellationToken, EndReason, OutputMode, ProcessError, Signal, StdinMode, WriteExpectation,
};

/// A group of three: bash and two sleeps (bash does not exec the last command of a list
/// that has a background job, so the leader stays bash).
const THREE: &str = "sleep 100 & sleep 100";

pub async fn captures_output_and_exit_code(b: &BackendUnderTest) {
    let process = b.subprocess.spawn(b.sh("echo out; echo err >&2; exit 3")).await.unwrap();
    let status = process.wait().await;
    assert_eq!((status.code, status.signal, status.reason), (Some(3), None, EndReason::Exited));
    assert_eq!(process.stdout().snapshot().to_string_lossy(), "out\n");
    assert_eq!(process.stderr().snapshot().to_string_lossy(), "err\n");
}

pub async fn runs_in_its_own_session_and_group_in_the_given_cwd(b: &BackendUnderTest) {
    let cwd = b.path("sub");
    b.fs.make_dir(&cwd, false).await.unwrap();
    let mut spec = b.sh("echo $$ $(ps -o pgid= -o sid= -p $$) $(pwd)");
    spec.cwd = cwd.clone();
    let process = b.subprocess.spawn(spec).await.unwrap();
    process.wait().await;
    let out = process.stdout().snapshot().to_string_lossy();
    let fields: Vec<_> = out.split_whitespace().collect();
    let pid = process.pid().to_string();
    assert_eq!(fields[..3], [pid.as_str(), pid.as_str(), pid.as_str()], "{out}");
    assert_eq!(PathBuf::from(fields[3]), cwd);
}

pub async fn stdin_data_and_pipe(b: &BackendUnderTest) {
    let mut with_data = b.spec(&["cat"]);
    with_data.stdin = StdinMode::Data(Bytes::from_static("given données\n".as_bytes()));
    let process = b.subprocess.spawn(with_data).await.unwrap();
    assert!(process.wait().await.success());
    assert_eq!(process.stdout().snapshot().to_string_lossy(), "given données\n");

    let mut piped = b.spec(&["cat"]);
    piped.stdin = StdinMode::Pipe;
    let process = b.subprocess.spawn(piped).await.unwrap();
    process.write_stdin(b"typed ").await.unwrap();
    process.write_stdin(b"later").await.unwrap();
    process.close_stdin().await.unwrap();
    assert!(process.wait().await.success());
    assert_eq!(process.stdout().snapshot().to_string_lossy(), "typed later");
    let err = process.write_stdin(b"x").await.unwrap_err();
    if b.deviates(Deviation::EndedProcessStdinIsExited) {
        assert!(matches!(err, ProcessError::Exited), "{err:?}");
    } else {
        assert!(matches!(err, ProcessError::StdinClosed), "{err:?}");
    }

    // Ignored stdin reads as empty; the process then stays alive (so the refusal below is
    // about stdin, not about a process that has already ended).
    let ignored = b.subprocess.spawn(b.sh("cat; echo eof; exec sleep 100")).await.unwrap();
    ignored.stdout().wait_beyond(0).await;
    assert_eq!(ignored.stdout().snapshot().to_string_lossy(), "eof\n");
    let err = ignored.write_stdin(b"x").await.unwrap_err();
    assert!(matches!(err, ProcessError::StdinClosed), "{err:?}");
    assert_eq!(ignored.terminate().await.signal, Some(libc::SIGTERM));
}

pub async fn output_is_readable_from_offsets_while_running(b: &BackendUnderTest) {
    let mut spec = b.sh("echo one; read _; echo two");
    spec.stdin = StdinMode::Pipe;
    let process = b.subprocess.spawn(spec).await.unwrap();
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

pub async fn a_gibibyte_of_output_is_capped_with_head_and_tail_kept(b: &BackendUnderTest) {
    const GIB: u64 = 1 << 30;
    let mut spec = b.sh("printf START; head -c 1073741824 /dev/zero; printf END");
    spec.stdout = OutputMode::Capped { max_bytes: 64 * 1024 };
    let started = Instant::now();
    let process = b.subprocess.spawn(spec).await.unwrap();
    let status = process.wait().await;
    let elapsed = started.elapsed();
    assert!(status.success(), "{status:?}");
    let out = process.stdout().snapshot();
    assert_eq!(out.total, GIB + 8);
    assert_eq!((out.head.len(), out.tail.len()), (32 * 1024, 32 * 1024));
    assert!(out.head.starts_with(b"START\0"));
    assert!(out.tail.ends_with(b"\0END"));
    assert_eq!(out.dropped, GIB + 8 - 64 * 1024);
    eprintln!("[{}] 1 GiB through a capped pipe in {elapsed:?}", b.name);
    assert!(elapsed < Duration::from_secs(20), "{elapsed:?}");
}

pub async fn a_process_ignoring_sigterm_is_killed_after_the_grace(b: &BackendUnderTest) {
    let mut spec = b.sh("trap '' TERM; sleep 100");
    spec.grace = Duration::from_millis(300);
    let process = b.subprocess.spawn(spec).await.unwrap();
    // `sleep` runs only once the trap is set.
    assert!(b.group_runs(process.pid(), "sleep").await);
    let started = Instant::now();
    let status = process.terminate().await;
    let took = started.elapsed();
    assert_eq!((status.signal, status.reason), (Some(libc::SIGKILL), EndReason::Terminated));
    assert!(took >= Duration::from_millis(300) && took < Duration::from_secs(3), "{took:?}");
    assert!(b.group_reaches(process.pid(), 0).await, "{:?}", b.group_members(process.pid()).await);
}

pub async fn sigterm_ends_a_cooperative_process_without_waiting_for_the_grace(
    b: &BackendUnderTest,
) {
    let mut spec = b.spec(&["sleep", "100"]);
    spec.grace = Duration::from_secs(10);
    let process = b.subprocess.spawn(spec).await.unwrap();
    let started = Instant::now();
    let status = process.terminate().await;
    assert_eq!(status.signal, Some(libc::SIGTERM));
    assert!(started.elapsed() < Duration::from_secs(2));
}

pub async fn timeout_kills_the_whole_group(b: &BackendUnderTest) {
    let mut spec = b.spec(&["bash", "--norc", "--noprofile", "-c", THREE]);
    // Long enough for the group to be seen whole before it is killed.
    spec.timeout = Some(Duration::from_millis(1500));
    spec.grace = Duration::from_millis(200);
    let process = b.subprocess.spawn(spec).await.unwrap();
    let pgid = process.pid();
    assert!(b.group_reaches(pgid, 3).await, "{:?}", b.group_members(pgid).await);
    let status = process.wait().await;
    assert_eq!(status.reason, EndReason::TimedOut);
    assert!(status.duration >= Duration::from_millis(1500));
    assert!(b.group_reaches(pgid, 0).await, "{:?}", b.group_members(pgid).await);
}

pub async fn cancellation_kills_the_whole_group(b: &BackendUnderTest) {
    let cancel = CancellationToken::new();
    let mut spec = b.spec(&["bash", "--norc", "--noprofile", "-c", THREE]);
    spec.cancel = cancel.clone();
    let process = b.subprocess.spawn(spec).await.unwrap();
    let pgid = process.pid();
    assert!(b.group_reaches(pgid, 3).await, "{:?}", b.group_members(pgid).await);
    cancel.cancel();
    let status = process.wait().await;
    assert_eq!(status.reason, EndReason::Cancelled);
    assert!(b.group_reaches(pgid, 0).await, "{:?}", b.group_members(pgid).await);
}

pub async fn dropping_the_handle_kills_the_whole_group(b: &BackendUnderTest) {
    let spec = b.spec(&["bash", "--norc", "--noprofile", "-c", THREE]);
    let process = b.subprocess.spawn(spec).await.unwrap();
    let pgid = process.pid();
    assert!(b.group_reaches(pgid, 3).await, "{:?}", b.group_members(pgid).await);
    drop(process);
    assert!(b.group_reaches(pgid, 0).await, "{:?}", b.group_members(pgid).await);
}

/// A leader that exits while its background child keeps the output pipes open.
pub async fn a_background_child_holding_the_pipes(b: &BackendUnderTest) {
    let process = b.subprocess.spawn(b.sh("sleep 100 & echo started")).await.unwrap();
    let pgid = process.pid();
    let started = Instant::now();
    if !b.deviates(Deviation::EndWaitsForThePipes) {
        let status = process.wait().await;
        assert!(status.success());
        assert!(started.elapsed() < Duration::from_secs(2), "{:?}", started.elapsed());
        assert!(!process.stdout().is_closed(), "the background sleep still holds stdout");
    } else {
        // Once only the background sleep is left in the group the leader has exited, but
        // its end is reported only when the pipes close, and the sleep holds them.
        let sleep_alone = |procs: &[crate::host::HostProcess]| {
            let group: Vec<_> = procs.iter().filter(|p| p.group == pgid).collect();
            group.len() == 1 && group[0].name == "sleep" && group[0].pid != pgid
        };
        assert!(b.wait_for_processes(sleep_alone).await, "{:?}", b.group_members(pgid).await);
        let waited = tokio::time::timeout(Duration::from_millis(500), process.wait()).await;
        assert!(waited.is_err(), "{waited:?}");
        assert!(process.try_wait().is_none());
    }
    process.stdout().wait_beyond(0).await;
    assert_eq!(process.stdout().snapshot().to_string_lossy(), "started\n");
    // The leftover dies with the handle.
    assert_eq!(b.group_members(pgid).await.len(), 1);
    drop(process);
    assert!(b.group_reaches(pgid, 0).await, "{:?}", b.group_members(pgid).await);
}

pub async fn signals_reach_the_group(b: &BackendUnderTest) {
    let process = b.subprocess.spawn(b.spec(&["sleep", "100"])).await.unwrap();
    process.signal(Signal::Int).await.unwrap();
    let status = process.wait().await;
    assert_eq!((status.signal, status.reason), (Some(libc::SIGINT), EndReason::Exited));
    let err = process.signal(Signal::Int).await.unwrap_err();
    assert!(matches!(err, ProcessError::Exited), "{err:?}");
}

pub async fn spawn_errors_are_typed(b: &BackendUnderTest) {
    let missing = b.subprocess.spawn(b.spec(&["/definitely/not/a/program"])).await;
    if b.deviates(Deviation::MissingProgramExits127) {
        let process = missing.unwrap();
        assert_eq!(process.wait().await.code, Some(127));
        let stderr = process.stderr().snapshot().to_string_lossy();
        assert!(stderr.ends_with(": /definitely/not/a/program: not found\n"), "{stderr:?}");
    } else {
        let err = missing.unwrap_err();
        assert!(matches!(err, ProcessError::SpawnFailed { .. }), "{err:?}");
    }
    let mut missing_cwd = b.spec(&["true"]);
    missing_cwd.cwd = "/definitely/not/a/dir".into();
    let err = b.subprocess.spawn(missing_cwd).await.unwrap_err();
    assert!(matches!(err, ProcessError::CwdNotFound(_)), "{err:?}");
    let err = b.subprocess.spawn(b.spec(&[])).await.unwrap_err();
    assert!(matches!(err, ProcessError::InvalidSpec(_)), "{err:?}");
    let mut relative = b.spec(&["true"]);
    relative.cwd = "tmp".into();
    let err = b.subprocess.spawn(relative).await.unwrap_err();
    assert!(matches!(err, ProcessError::InvalidSpec(_)), "{err:?}");
}

pub async fn null_outputs_and_uncapped_pipes(b: &BackendUnderTest) {
    let mut spec = b.sh("echo dropped; echo kept >&2");
    spec.stdout = OutputMode::Null;
    spec.stderr = OutputMode::Pipe;
    let process = b.subprocess.spawn(spec).await.unwrap();
    assert!(process.wait().await.success());
    assert_eq!(process.stdout().total(), 0);
    assert!(process.stdout().snapshot().head.is_empty());
    assert!(process.stdout().is_closed());
    assert_eq!(process.stderr().snapshot().to_string_lossy(), "kept\n");
}

pub async fn files_and_commands_see_the_same_files(b: &BackendUnderTest) {
    let from_fs = b.path("from_fs.txt");
    b.fs.write_text(&from_fs, "written by Fs\n", WriteExpectation::CreateIfAbsent).await.unwrap();
    let spec = b.sh("cat from_fs.txt; echo 'written by a command' > from_cmd.txt");
    let process = b.subprocess.spawn(spec).await.unwrap();
    assert!(process.wait().await.success());
    assert_eq!(process.stdout().snapshot().to_string_lossy(), "written by Fs\n");
    let read = b.fs.read_text(&b.path("from_cmd.txt"), 1024).await.unwrap();
    assert_eq!(read.text, "written by a command\n");
}

/// Spawn-to-exit latency of `true`; prints the median.
pub async fn round_trip_latency_of_true(b: &BackendUnderTest) {
    let mut samples = Vec::new();
    for _ in 0..50 {
        let started = Instant::now();
        let process = b.subprocess.spawn(b.spec(&["true"])).await.unwrap();
        assert!(process.wait().await.success());
        samples.push(started.elapsed());
    }
    samples.sort();
    eprintln!("[{}] `true` round trip: median {:?}, p90 {:?}", b.name, samples[25], samples[45]);
    assert!(samples[25] < Duration::from_millis(500));
}
