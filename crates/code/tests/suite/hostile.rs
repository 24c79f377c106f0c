//! A deliberately hostile runner (tests/hostile_runner.js, swapped in through the
//! config): every protocol violation is a typed result, the runner's group is killed,
//! nothing hangs, and host memory stays bounded.

use std::time::{Duration, Instant};

use dsh_code::{CodeConfig, Limits, RunErrorKind, RunRequest, RunnerScript};

use crate::common;

fn hostile_config() -> CodeConfig {
    CodeConfig {
        runner: RunnerScript::custom("hostile-runner.js", include_str!("../hostile_runner.js")),
        max_frame_bytes: 1024 * 1024,
        stdout_cap: 4 * 1024 * 1024,
        ..CodeConfig::default()
    }
}

async fn each_violation(setup: common::Setup) {
    let engine = &setup.engine;
    let dir = engine.runner_dir().to_string_lossy().into_owned();
    let cases = [
        ("malformed-json", RunErrorKind::InvalidOutput),
        ("not-base64", RunErrorKind::InvalidOutput),
        ("unknown-kind", RunErrorKind::InvalidOutput),
        ("extra-field", RunErrorKind::InvalidOutput),
        ("reply-to-unknown-call", RunErrorKind::InvalidOutput),
        ("duplicate-call", RunErrorKind::InvalidOutput),
        ("unknown-tool", RunErrorKind::InvalidOutput),
        ("wrong-run", RunErrorKind::InvalidOutput),
        ("bad-value", RunErrorKind::InvalidOutput),
        ("done-twice-shape", RunErrorKind::InvalidOutput),
        ("lone-surrogate", RunErrorKind::InvalidOutput),
        ("oversize", RunErrorKind::InvalidOutput),
        ("truncated", RunErrorKind::InvalidOutput),
        ("flood", RunErrorKind::OutputLimit),
        ("ignore-stop", RunErrorKind::Timeout),
    ];
    for (mode, kind) in cases {
        let started = Instant::now();
        let limits = Limits { wall: Duration::from_secs(1), ..Limits::default() };
        let request = RunRequest::new(format!("// mode={mode}\nreturn 1;")).with_limits(limits);
        let outcome = engine.run(request, setup.tools.clone()).await.unwrap();
        let error = outcome.error.clone().unwrap_or_else(|| panic!("{mode}: {outcome:?}"));
        assert_eq!(error.kind, kind, "{mode}: {error:?}");
        assert!(started.elapsed() < Duration::from_secs(6), "{mode}: {:?}", started.elapsed());
        // The runner's whole group is gone; the next run starts a new one.
        assert_eq!(engine.runner_pid().await, None, "{mode}");
        common::assert_gone(&dir).await;
        if mode == "flood" {
            assert!(
                !outcome.logs.is_empty()
                    && outcome.logs.iter().map(String::len).sum::<usize>() <= 64 * 1024
            );
        }
    }
    // The hostile runner behaving: its result is accepted.
    let outcome = engine.run(RunRequest::new("return 1"), setup.tools.clone()).await.unwrap();
    assert_eq!(outcome.result, Some(serde_json::json!("fine")));
    engine.dispose().await;
    common::assert_gone(&dir).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn local_hostile_runner() {
    each_violation(common::local_with(hostile_config())).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sandbox_hostile_runner() {
    each_violation(common::sandbox_with(hostile_config()).await).await;
}

#[tokio::test]
async fn a_runner_that_is_not_node_or_lies_about_its_hash_does_not_start() {
    let config = CodeConfig {
        runner: RunnerScript::custom(
            "liar.js",
            "process.stdout.write(Buffer.from(JSON.stringify({k:'boot',v:1,pid:process.pid,sha:'00'})).toString('base64') + '\\n'); setInterval(() => {}, 1000);",
        ),
        ..CodeConfig::default()
    };
    let setup = common::local_with(config);
    let error =
        setup.engine.run(RunRequest::new("return 1"), setup.tools.clone()).await.unwrap_err();
    assert!(error.to_string().contains("SHA-256"), "{error}");
    common::assert_gone(&setup.engine.runner_dir().to_string_lossy()).await;
    let config = CodeConfig { node: "/nonexistent/node".into(), ..CodeConfig::default() };
    let setup = common::local_with(config);
    let error =
        setup.engine.run(RunRequest::new("return 1"), setup.tools.clone()).await.unwrap_err();
    assert!(matches!(error, dsh_code::CodeError::Start(_)), "{error}");
}
