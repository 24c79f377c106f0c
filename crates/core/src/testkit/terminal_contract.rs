//! The `Terminals` contract: the exact byte stream, resize, the foreground group and
//! signals confined to the terminal's session.

use std::collections::BTreeMap;
use std::time::Duration;

use super::{BackendUnderTest, Deviation, SETTLE, eventually};
use crate::host::HostProcess;
use crate::{
    EndReason, Signal, Terminal, TerminalError, TerminalOutput, TerminalSize, TerminalSpec,
};

const SIZE: TerminalSize = TerminalSize { rows: 24, cols: 80 };

/// Between HUP/TERM and KILL for the contract's shells: short, since some ignore both.
const GRACE: Duration = Duration::from_millis(500);

/// Reads the stream into `seen` until it contains `needle` (after `from`), 10 s at most.
async fn read_until(output: &mut TerminalOutput, seen: &mut Vec<u8>, from: usize, needle: &[u8]) {
    let found =
        |seen: &[u8]| seen[from.min(seen.len())..].windows(needle.len()).any(|w| w == needle);
    let wait = async {
        while !found(seen) {
            match output.next().await {
                Some(chunk) => seen.extend_from_slice(&chunk),
                None => break,
            }
        }
    };
    let _ = tokio::time::timeout(Duration::from_secs(10), wait).await;
    assert!(
        found(seen),
        "no {:?} in {:?}",
        String::from_utf8_lossy(needle),
        String::from_utf8_lossy(seen)
    );
}

fn term_env(b: &BackendUnderTest) -> BTreeMap<String, String> {
    let mut env = b.env();
    env.insert("TERM".into(), "xterm".into());
    env
}

/// An interactive bash without init files, prompting `PROMPT> `.
async fn shell(b: &BackendUnderTest) -> (Terminal, TerminalOutput) {
    let mut env = term_env(b);
    env.insert("PS1".into(), "PROMPT> ".into());
    let mut spec = TerminalSpec::new(["bash", "--norc", "--noprofile", "-i"], &b.root, env, SIZE);
    spec.grace = GRACE;
    let terminal = b.terminals.spawn_terminal(spec).await.unwrap();
    let output = terminal.take_output().unwrap();
    (terminal, output)
}

/// Waits until the terminal's foreground group is (or is not) the shell's own.
async fn foreground_is_shell(terminal: &Terminal, shell: bool) -> bool {
    eventually(SETTLE, || async {
        terminal.foreground_group().await.is_ok_and(|pgid| (pgid == terminal.pid()) == shell)
    })
    .await
}

pub async fn bytes_arrive_exactly_and_resize_is_visible(b: &BackendUnderTest) {
    let script = "echo héllo; stty size; read _; stty size";
    let spec = TerminalSpec::new(["sh", "-c", script], &b.root, term_env(b), SIZE);
    let terminal = b.terminals.spawn_terminal(spec).await.unwrap();
    let mut output = terminal.take_output().unwrap();
    assert!(terminal.take_output().is_none());
    let mut seen = Vec::new();
    read_until(&mut output, &mut seen, 0, b"24 80\r\n").await;
    // UTF-8 untouched, the terminal's own newline translation visible.
    assert_eq!(seen, "héllo\r\n24 80\r\n".as_bytes());

    terminal.resize(TerminalSize { rows: 30, cols: 100 }).await.unwrap();
    terminal.write(b"\n").await.unwrap();
    let mark = seen.len();
    read_until(&mut output, &mut seen, mark, b"30 100\r\n").await;
    let status = terminal.wait().await;
    assert_eq!(status.code, Some(0));
    // The stream ends once the program is gone.
    while output.next().await.is_some() {}
}

pub async fn a_job_gets_its_own_foreground_group_and_sigint_returns_the_prompt(
    b: &BackendUnderTest,
) {
    let (terminal, mut output) = shell(b).await;
    let shell_pid = terminal.pid();
    let mut seen = Vec::new();
    read_until(&mut output, &mut seen, 0, b"PROMPT> ").await;
    assert_eq!(terminal.foreground_group().await.unwrap(), shell_pid);

    terminal.write(b"sleep 30\r").await.unwrap();
    assert!(foreground_is_shell(&terminal, false).await);
    let job = terminal.foreground_group().await.unwrap();
    assert_ne!(job, shell_pid);
    assert!(b.group_runs(job, "sleep").await);

    let mark = seen.len();
    assert_eq!(terminal.signal_foreground(Signal::Int).await.unwrap(), job);
    read_until(&mut output, &mut seen, mark, b"PROMPT> ").await;
    assert!(foreground_is_shell(&terminal, true).await);
    assert!(b.group_reaches(job, 0).await, "{:?}", b.group_members(job).await);
    assert!(terminal.try_wait().is_none(), "the shell survives SIGINT to its job");
    // Ended here rather than by the drop, so a sandbox torn down next finds it gone.
    terminal.terminate().await;
}

/// Typed input echoed exactly, `stty` seeing each size, and an interrupted job found
/// through the process table (a child of the shell that has exec'd `sleep`).
pub async fn an_interactive_shell_echoes_resizes_and_interrupts_its_job(b: &BackendUnderTest) {
    let (terminal, mut output) = shell(b).await;
    let shell_pid = terminal.pid();
    let mut seen = Vec::new();
    terminal.write(b"echo h\xc3\xa9llo; stty size\n").await.unwrap();
    read_until(&mut output, &mut seen, 0, "héllo\r\n24 80\r\n".as_bytes()).await;
    terminal.resize(TerminalSize { rows: 30, cols: 100 }).await.unwrap();
    terminal.write(b"stty size\n").await.unwrap();
    read_until(&mut output, &mut seen, 0, b"30 100\r\n").await;
    // Once the prompt is back the shell owns the terminal again.
    assert!(foreground_is_shell(&terminal, true).await);
    assert_eq!(terminal.foreground_group().await.unwrap(), shell_pid);

    terminal.write(b"sleep 30\n").await.unwrap();
    // The job must have exec'd `sleep`: before that, its forked shell ignores SIGINT.
    let job_of = |procs: &[HostProcess]| {
        procs.iter().find(|p| p.parent == shell_pid && p.name == "sleep").map(|p| p.group)
    };
    assert!(b.wait_for_processes(|procs| job_of(procs).is_some()).await);
    let job = terminal.foreground_group().await.unwrap();
    assert_eq!(Some(job), job_of(&b.processes().await));
    assert_ne!(job, shell_pid);
    assert_eq!(terminal.signal_foreground(Signal::Int).await.unwrap(), job);
    let mark = seen.len();
    terminal.write(b"echo back-$((40+2))\n").await.unwrap();
    read_until(&mut output, &mut seen, mark, b"back-42\r\n").await;
    let status = terminal.terminate().await;
    assert!(status.signal.is_some() || status.code.is_some());
    assert!(b.wait_for_processes(|procs| procs.iter().all(|p| p.group != shell_pid)).await);
}

pub async fn signals_are_confined_to_the_terminal_session(b: &BackendUnderTest) {
    let (terminal, _output) = shell(b).await;
    let err = terminal.signal_group(1, Signal::Term).await.unwrap_err();
    assert!(matches!(err, TerminalError::NotInSession(1)), "{err:?}");
    let own = std::process::id();
    let err = terminal.signal_group(own, Signal::Term).await.unwrap_err();
    assert!(matches!(err, TerminalError::NotInSession(_)), "{err:?}");
    terminal.terminate().await;
}

pub async fn terminate_ends_the_shell_and_its_foreground_job(b: &BackendUnderTest) {
    let (terminal, mut output) = shell(b).await;
    let shell_pid = terminal.pid();
    let mut seen = Vec::new();
    read_until(&mut output, &mut seen, 0, b"PROMPT> ").await;
    terminal.write(b"trap '' TERM HUP; sleep 100\r").await.unwrap();
    assert!(foreground_is_shell(&terminal, false).await);
    let job = terminal.foreground_group().await.unwrap();
    // The job runs `sleep` (not a fork of the shell yet to exec it) when the signals come.
    assert!(b.group_runs(job, "sleep").await);
    drop(output);
    // Both ignore HUP and TERM: only the KILL after the grace ends them.
    let terminating = terminal.terminate();
    tokio::pin!(terminating);
    let Ok(status) = tokio::time::timeout(GRACE + SETTLE, &mut terminating).await else {
        panic!("terminate outlasted its grace; job group {:?}", b.group_members(job).await)
    };
    assert!(status.code.is_some() || status.signal.is_some());
    for group in [shell_pid, job] {
        assert!(b.group_reaches(group, 0).await, "{:?}", b.group_members(group).await);
    }
}

pub async fn terminal_spawn_errors_are_typed(b: &BackendUnderTest) {
    let zero = TerminalSize { rows: 0, cols: 80 };
    let spec = TerminalSpec::new(["sh"], &b.root, term_env(b), zero);
    let err = b.terminals.spawn_terminal(spec).await.unwrap_err();
    assert!(matches!(err, TerminalError::InvalidSpec(_)), "{err:?}");
    let spec = TerminalSpec::new(["/no/such/shell"], &b.root, term_env(b), SIZE);
    let missing = b.terminals.spawn_terminal(spec).await;
    if b.deviates(Deviation::MissingProgramExits127) {
        let terminal = missing.unwrap();
        let mut output = terminal.take_output().unwrap();
        let mut seen = Vec::new();
        read_until(&mut output, &mut seen, 0, b": /no/such/shell: not found\r\n").await;
        assert_eq!(terminal.wait().await.code, Some(127));
    } else {
        let err = missing.unwrap_err();
        assert!(matches!(err, TerminalError::SpawnFailed { .. }), "{err:?}");
    }
    let spec = TerminalSpec::new(["sh"], "/no/such/dir", term_env(b), SIZE);
    let err = b.terminals.spawn_terminal(spec).await.unwrap_err();
    assert!(matches!(err, TerminalError::CwdNotFound(_)), "{err:?}");
}

pub async fn cancellation_ends_a_terminal(b: &BackendUnderTest) {
    let mut spec = TerminalSpec::new(["sleep", "100"], &b.root, term_env(b), SIZE);
    spec.grace = Duration::from_millis(200);
    let cancel = spec.cancel.clone();
    let terminal = b.terminals.spawn_terminal(spec).await.unwrap();
    let pid = terminal.pid();
    cancel.cancel();
    let status = terminal.wait().await;
    assert_eq!(status.reason, EndReason::Cancelled);
    assert!(b.group_reaches(pid, 0).await, "{:?}", b.group_members(pid).await);
}
