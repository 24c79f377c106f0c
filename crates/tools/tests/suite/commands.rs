//! bash, task_output, task_kill on both backends, with real processes.

use std::time::Duration;

use dsh_tools::ToolError;
use serde_json::json;

use crate::both;
use crate::common::{Harness, group_gone, group_members};

both!(
    bash_reports_exit_codes_stdout_stderr_and_workdir,
    bash_timeout_kills_the_whole_process_group,
    bash_output_of_50_mib_keeps_head_and_tail,
    background_task_output_is_incremental_and_kill_ends_the_group,
    dispose_terminates_every_background_task,
    cancelling_a_bash_call_kills_its_process_group,
);

async fn bash_reports_exit_codes_stdout_stderr_and_workdir(h: Harness) {
    let ok = h
        .ok("bash", json!({ "command": "echo out; echo err >&2", "description": "both streams" }))
        .await;
    assert_eq!(ok.value["exit_code"], 0);
    assert_eq!(ok.value["status"], "exited");
    assert_eq!(
        (ok.value["stdout"].clone(), ok.value["stderr"].clone()),
        ("out\n".into(), "err\n".into())
    );
    assert!(ok.text.starts_with("out\n[stderr]\nerr\n[exit code 0 · "), "{}", ok.text);

    let failed = h.ok("bash", json!({ "command": "exit 3", "description": "fail" })).await;
    assert_eq!(failed.value["exit_code"], 3);
    assert!(failed.text.starts_with("(no output)\n[exit code 3 · "), "{}", failed.text);

    let signalled = h.ok("bash", json!({ "command": "kill -9 $$", "description": "die" })).await;
    assert_eq!(
        (signalled.value["exit_code"].clone(), signalled.value["signal"].clone()),
        (json!(null), json!(9))
    );

    h.write("deep/dir/marker", "").await;
    let wd = h
        .ok("bash", json!({ "command": "pwd; ls", "description": "where", "workdir": "deep/dir" }))
        .await;
    assert_eq!(wd.value["stdout"], format!("{}\nmarker\n", h.p("deep/dir")));
    assert!(matches!(
        h.err("bash", json!({ "command": "pwd", "description": "x", "workdir": "nope" })).await,
        ToolError::NotFound { .. }
    ));
    // The environment is exactly the context's (plus what the backend adds, like HOME).
    let env = h
        .ok(
            "bash",
            json!({ "command": "echo \"$LANG|${E2B_API_KEY-unset}\"", "description": "env" }),
        )
        .await;
    assert_eq!(env.value["stdout"], "C.UTF-8|unset\n");
}

async fn bash_timeout_kills_the_whole_process_group(h: Harness) {
    let out = h
        .ok(
            "bash",
            json!({ "command": "sleep 100 & sleep 100", "description": "hang", "timeoutMs": 1000 }),
        )
        .await;
    assert_eq!(out.value["status"], "timed_out");
    assert_eq!(out.value["exit_code"], json!(null));
    assert!(out.text.contains("[timed out after "), "{}", out.text);
    assert!(out.text.contains("every process it started were killed"), "{}", out.text);
    let pgid = out.value["pid"].as_u64().unwrap();
    assert_eq!(group_gone(pgid).await, Vec::<u64>::new());
}

async fn bash_output_of_50_mib_keeps_head_and_tail(h: Harness) {
    let out = h
        .ok(
            "bash",
            json!({
                "command": "printf START; head -c 52428800 /dev/zero | tr '\\0' a; printf END",
                "description": "flood",
            }),
        )
        .await;
    assert_eq!(out.value["exit_code"], 0);
    assert_eq!(out.value["stdout_bytes"], 52_428_800 + 8);
    assert!(out.truncated);
    let stdout = out.value["stdout"].as_str().unwrap();
    assert!(stdout.starts_with("STARTaaaa"));
    assert!(stdout.ends_with("aaaaEND"));
    assert!(stdout.contains(" bytes dropped ...]"));
    assert!(out.text.len() <= 256 * 1024, "{}", out.text.len());
    let kept = stdout.len() - stdout.matches(|c| c != 'a').count();
    assert!(kept > 100_000, "{kept}");
}

/// Polls task_output until `done` holds for the accumulated stdout (10 s at most).
async fn poll(h: &Harness, task: &str, seen: &mut String, done: impl Fn(&str) -> bool) {
    for _ in 0..200 {
        let out = h.ok("task_output", json!({ "task_id": task })).await;
        seen.push_str(out.value["stdout"].as_str().unwrap());
        if done(seen) {
            return;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("[{}] task output never satisfied the condition: {seen:?}", h.backend);
}

async fn background_task_output_is_incremental_and_kill_ends_the_group(h: Harness) {
    let started = h
        .ok(
            "bash",
            json!({
                "command": "echo one; while [ ! -e go ]; do sleep 0.05; done; echo two; sleep 100 & sleep 100",
                "description": "server",
                "run_in_background": true,
            }),
        )
        .await;
    assert_eq!(started.value["task_id"], "task-1");
    let pgid = started.value["pid"].as_u64().unwrap();
    assert!(!group_members(pgid).is_empty());

    let mut first = String::new();
    poll(&h, "task-1", &mut first, |s| s.contains("one")).await;
    assert_eq!(first, "one\n");
    let idle = h.ok("task_output", json!({ "task_id": "task-1" })).await;
    assert_eq!(idle.value["stdout"], "");
    assert_eq!(idle.value["status"], "running");
    assert!(idle.text.starts_with("[task-1 running for "), "{}", idle.text);
    assert!(idle.text.ends_with("(no new output)\n"), "{}", idle.text);

    h.write("go", "").await;
    let mut second = String::new();
    poll(&h, "task-1", &mut second, |s| s.contains("two")).await;
    // Only what is new since the previous call.
    assert_eq!(second, "two\n");

    let killed = h.ok("task_kill", json!({ "task_id": "task-1" })).await;
    assert_eq!(killed.value["status"], "terminated");
    assert_eq!(killed.value["already_ended"], false);
    assert!(killed.text.starts_with("Stopped task-1: terminated after "), "{}", killed.text);
    assert_eq!(group_gone(pgid).await, Vec::<u64>::new());
    let after = h.ok("task_output", json!({ "task_id": "task-1" })).await;
    assert_eq!(after.value["status"], "terminated");

    // A task that ends by itself reports its exit code.
    let quick = h
        .ok("bash", json!({ "command": "echo bye; exit 4", "description": "quick", "run_in_background": true }))
        .await;
    assert_eq!(quick.value["task_id"], "task-2");
    let mut out = String::new();
    for _ in 0..200 {
        let polled = h.ok("task_output", json!({ "task_id": "task-2" })).await;
        out.push_str(polled.value["stdout"].as_str().unwrap());
        if polled.value["status"] == "exited" {
            assert_eq!(polled.value["exit_code"], 4);
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert_eq!(out, "bye\n");
    let again = h.ok("task_kill", json!({ "task_id": "task-2" })).await;
    assert_eq!(again.value["already_ended"], true);

    match h.err("task_output", json!({ "task_id": "task-9" })).await {
        ToolError::UnknownTask { task_id, known } => {
            assert_eq!(
                (task_id.as_str(), known),
                ("task-9", vec!["task-1".to_owned(), "task-2".to_owned()])
            );
        }
        other => panic!("{other:?}"),
    }
    assert!(matches!(
        h.err("task_kill", json!({ "task_id": "bogus" })).await,
        ToolError::UnknownTask { .. }
    ));
}

async fn dispose_terminates_every_background_task(h: Harness) {
    let mut groups = Vec::new();
    for _ in 0..3 {
        let started = h
            .ok(
                "bash",
                json!({ "command": "trap '' TERM; sleep 100 & sleep 100", "description": "stubborn", "run_in_background": true }),
            )
            .await;
        groups.push(started.value["pid"].as_u64().unwrap());
    }
    h.registry.dispose().await;
    for pgid in groups {
        assert_eq!(group_gone(pgid).await, Vec::<u64>::new());
    }
    assert!(h.registry.tasks().ids().is_empty());
    let refused = h
        .err("bash", json!({ "command": "true", "description": "late", "run_in_background": true }))
        .await;
    assert!(refused.to_string().contains("shutting down"), "{refused}");
}

async fn cancelling_a_bash_call_kills_its_process_group(h: Harness) {
    let call = h.registry.call(
        "bash",
        json!({ "command": "echo $$ > pid; sleep 100 & sleep 100", "description": "abandoned" }),
    );
    // The caller gives up (drops the call) while the command runs.
    assert!(tokio::time::timeout(Duration::from_millis(1500), call).await.is_err());
    let pid = std::fs::read_to_string(h.path("pid")).unwrap();
    let pgid: u64 = pid.trim().parse().unwrap();
    assert_eq!(group_gone(pgid).await, Vec::<u64>::new());
}
