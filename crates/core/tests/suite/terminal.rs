use std::time::Duration;

use dsh_core::host::Host;
use dsh_core::{
    Signal, Terminal, TerminalError, TerminalOutput, TerminalSize, TerminalSpec, Terminals,
};

use crate::common::{clean_env, eventually, group_members, group_runs};

const SIZE: TerminalSize = TerminalSize { rows: 24, cols: 80 };

/// Reads the stream into `seen` until it contains `needle` (after `from`).
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

async fn shell() -> (Terminal, TerminalOutput) {
    let mut env = clean_env();
    env.insert("TERM".into(), "xterm".into());
    env.insert("PS1".into(), "PROMPT> ".into());
    let spec = TerminalSpec::new(["bash", "--norc", "--noprofile", "-i"], "/tmp", env, SIZE);
    let terminal = Host::new().spawn_terminal(spec).await.unwrap();
    let output = terminal.take_output().unwrap();
    (terminal, output)
}

#[tokio::test]
async fn bytes_arrive_exactly_and_resize_is_visible() {
    let mut env = clean_env();
    env.insert("TERM".into(), "xterm".into());
    let script = "echo héllo; stty size; read _; stty size";
    let spec = TerminalSpec::new(["sh", "-c", script], "/tmp", env, SIZE);
    let terminal = Host::new().spawn_terminal(spec).await.unwrap();
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

#[tokio::test]
async fn a_job_gets_its_own_foreground_group_and_sigint_returns_the_prompt() {
    let (terminal, mut output) = shell().await;
    let shell_pid = terminal.pid();
    let mut seen = Vec::new();
    read_until(&mut output, &mut seen, 0, b"PROMPT> ").await;
    assert_eq!(terminal.foreground_group().await.unwrap(), shell_pid);

    terminal.write(b"sleep 30\r").await.unwrap();
    let job_started = eventually(Duration::from_secs(5), || async {
        terminal.foreground_group().await.is_ok_and(|pgid| pgid != shell_pid)
    })
    .await;
    assert!(job_started);
    let job = terminal.foreground_group().await.unwrap();
    assert_ne!(job, shell_pid);
    assert!(eventually(Duration::from_secs(5), || async { group_runs(job, "sleep") }).await);

    let mark = seen.len();
    assert_eq!(terminal.signal_foreground(Signal::Int).await.unwrap(), job);
    read_until(&mut output, &mut seen, mark, b"PROMPT> ").await;
    assert!(
        eventually(Duration::from_secs(5), || async {
            terminal.foreground_group().await.is_ok_and(|pgid| pgid == shell_pid)
        })
        .await
    );
    assert!(eventually(Duration::from_secs(5), || async { group_members(job).is_empty() }).await);
    assert!(terminal.try_wait().is_none(), "the shell survives SIGINT to its job");
}

#[tokio::test]
async fn signals_are_confined_to_the_terminal_session() {
    let (terminal, _output) = shell().await;
    let err = terminal.signal_group(1, Signal::Term).await.unwrap_err();
    assert!(matches!(err, TerminalError::NotInSession(1)), "{err:?}");
    let own = std::process::id();
    let err = terminal.signal_group(own, Signal::Term).await.unwrap_err();
    assert!(matches!(err, TerminalError::NotInSession(_)), "{err:?}");
}

#[tokio::test]
async fn terminate_ends_the_shell_and_its_foreground_job() {
    let (terminal, mut output) = shell().await;
    let shell_pid = terminal.pid();
    let mut seen = Vec::new();
    read_until(&mut output, &mut seen, 0, b"PROMPT> ").await;
    terminal.write(b"trap '' TERM HUP; sleep 100\r").await.unwrap();
    assert!(
        eventually(Duration::from_secs(5), || async {
            terminal.foreground_group().await.is_ok_and(|pgid| pgid != shell_pid)
        })
        .await
    );
    let job = terminal.foreground_group().await.unwrap();
    drop(output);
    let status = terminal.terminate().await;
    assert!(status.code.is_some() || status.signal.is_some());
    for group in [shell_pid, job] {
        assert!(
            eventually(Duration::from_secs(5), || async { group_members(group).is_empty() }).await,
            "{:?}",
            group_members(group)
        );
    }
}

#[tokio::test]
async fn terminal_spawn_errors_are_typed() {
    let local = Host::new();
    let spec = TerminalSpec::new(["sh"], "/tmp", clean_env(), TerminalSize { rows: 0, cols: 80 });
    let err = local.spawn_terminal(spec).await.unwrap_err();
    assert!(matches!(err, TerminalError::InvalidSpec(_)), "{err:?}");
    let spec = TerminalSpec::new(["/no/such/shell"], "/tmp", clean_env(), SIZE);
    let err = local.spawn_terminal(spec).await.unwrap_err();
    assert!(matches!(err, TerminalError::SpawnFailed { .. }), "{err:?}");
    let spec = TerminalSpec::new(["sh"], "/no/such/dir", clean_env(), SIZE);
    let err = local.spawn_terminal(spec).await.unwrap_err();
    assert!(matches!(err, TerminalError::CwdNotFound(_)), "{err:?}");
}

#[tokio::test]
async fn cancellation_ends_a_terminal() {
    let mut env = clean_env();
    env.insert("TERM".into(), "xterm".into());
    let mut spec = TerminalSpec::new(["sleep", "100"], "/tmp", env, SIZE);
    spec.grace = Duration::from_millis(200);
    let cancel = spec.cancel.clone();
    let terminal = Host::new().spawn_terminal(spec).await.unwrap();
    let pid = terminal.pid();
    cancel.cancel();
    let status = terminal.wait().await;
    assert_eq!(status.reason, dsh_core::EndReason::Cancelled);
    assert!(eventually(Duration::from_secs(5), || async { group_members(pid).is_empty() }).await);
}
