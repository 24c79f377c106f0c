//! `dsh shell` under a real terminal (tmux): type a command and see its output, Ctrl-C a
//! `sleep`, follow a window resize, detach with Ctrl-].
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::process::Command;
use std::time::{Duration, Instant};

fn tmux(args: &[&str]) -> String {
    let output =
        Command::new("tmux").args(args).output().expect("tmux is installed by scripts/test");
    String::from_utf8_lossy(&output.stdout).into_owned()
}

fn screen(session: &str) -> String {
    tmux(&["capture-pane", "-p", "-t", session])
}

fn wait_for(session: &str, needle: &str) -> String {
    let began = Instant::now();
    loop {
        let text = screen(session);
        if text.contains(needle) {
            return text;
        }
        assert!(began.elapsed() < Duration::from_secs(20), "{needle:?} never appeared:\n{text}");
        std::thread::sleep(Duration::from_millis(100));
    }
}

#[test]
fn dsh_shell_runs_commands_interrupts_resizes_and_detaches() {
    let session = format!("dsh-shell-test-{}", std::process::id());
    let command = format!("{} shell; echo SHELL-EXIT=$?; sleep 30", env!("CARGO_BIN_EXE_dsh"));
    tmux(&["new-session", "-d", "-s", &session, "-x", "100", "-y", "30", &command]);
    wait_for(&session, "Ctrl-] detaches");
    tmux(&["send-keys", "-t", &session, "echo hi-from-$(hostname | wc -c)", "Enter"]);
    wait_for(&session, "\nhi-from-21");
    // `job-42` comes from the job's own `sh`, once the shell's fork has exec'd it: Ctrl-C
    // after that line reaches the job (the fork would ignore it before the exec).
    tmux(&["send-keys", "-t", &session, "sh -c 'echo job-$((6*7)); exec sleep 30'", "Enter"]);
    wait_for(&session, "\njob-42");
    let interrupted = Instant::now();
    tmux(&["send-keys", "-t", &session, "C-c"]);
    tmux(&["send-keys", "-t", &session, "echo after-interrupt", "Enter"]);
    wait_for(&session, "\nafter-interrupt");
    assert!(interrupted.elapsed() < Duration::from_secs(5));
    tmux(&["send-keys", "-t", &session, "stty size", "Enter"]);
    wait_for(&session, "\n30 100");
    tmux(&["resize-window", "-t", &session, "-x", "120", "-y", "40"]);
    // The resize reaches the sandbox's terminal asynchronously: ask until it shows.
    let began = Instant::now();
    loop {
        tmux(&["send-keys", "-t", &session, "stty size", "Enter"]);
        std::thread::sleep(Duration::from_millis(300));
        let text = screen(&session);
        if text.contains("\n40 120") {
            break;
        }
        assert!(began.elapsed() < Duration::from_secs(20), "the resize never arrived:\n{text}");
    }
    tmux(&["send-keys", "-t", &session, "C-]"]);
    let after = wait_for(&session, "SHELL-EXIT=0");
    assert!(after.contains("[detached]"), "{after}");
    tmux(&["kill-session", "-t", &session]);
}
