mod codec_js;
mod fuzz;
mod hostile;
mod scenarios;
mod strip_golden;

use crate::common;

macro_rules! both_backends {
    ($($name:ident),* $(,)?) => {
        mod local {
            $(
                #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
                async fn $name() {
                    super::scenarios::$name(crate::common::local()).await;
                }
            )*
        }
        mod sandbox {
            $(
                #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
                async fn $name() {
                    super::scenarios::$name(crate::common::sandbox().await).await;
                }
            )*
        }
    };
}

both_backends!(parallel_tools, tampering, budgets_and_failures, lossless_values, hostile_programs);

#[tokio::test]
async fn the_runner_is_installed_privately_and_verified() {
    use std::os::unix::fs::PermissionsExt;
    let setup = common::local();
    setup.engine.warm().await.unwrap();
    let dir = setup.engine.runner_dir();
    let mode = std::fs::metadata(&dir).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o700);
    let files: Vec<_> = std::fs::read_dir(&dir).unwrap().flatten().map(|e| e.path()).collect();
    assert_eq!(files.len(), 1);
    assert_eq!(std::fs::read_to_string(&files[0]).unwrap(), dsh_code::RUNNER_SOURCE);
    // A tampered install is replaced before the next start.
    setup.engine.dispose().await;
    std::fs::write(&files[0], "process.exit(1)").unwrap();
    let engine = dsh_code::CodeEngine::new(
        setup.fs.clone(),
        std::sync::Arc::new(dsh_core::host::Host::new()),
        &setup.cwd,
        dsh_code::CodeConfig::default(),
    );
    let outcome =
        engine.run(dsh_code::RunRequest::new("return 5"), setup.tools.clone()).await.unwrap();
    assert_eq!(outcome.result, Some(serde_json::json!(5)));
    assert_eq!(std::fs::read_to_string(&files[0]).unwrap(), dsh_code::RUNNER_SOURCE);
    engine.dispose().await;
    common::assert_gone(&dir.to_string_lossy()).await;
}

#[tokio::test]
async fn concurrent_runs_queue_on_one_runner_and_the_next_worker_is_prespawned() {
    let setup = common::local();
    let engine = std::sync::Arc::new(setup.engine);
    engine.warm().await.unwrap();
    let pid = engine.runner_pid().await.unwrap();
    let mut handles = Vec::new();
    for i in 0..6 {
        let engine = engine.clone();
        let tools = setup.tools.clone();
        handles.push(tokio::spawn(async move {
            engine.run(dsh_code::RunRequest::new(format!("return {i} * 2")), tools).await.unwrap()
        }));
    }
    for (i, handle) in handles.into_iter().enumerate() {
        assert_eq!(handle.await.unwrap().result, Some(serde_json::json!(i * 2)));
    }
    assert_eq!(engine.runner_pid().await, Some(pid));
    // Idle: the main thread plus one pre-spawned worker (Node's own helper threads
    // come on top), and no more workers than that pile up.
    let idle_threads = common::settled_thread_count(pid).await;
    for _ in 0..5 {
        engine.run(dsh_code::RunRequest::new("return 1"), setup.tools.clone()).await.unwrap();
    }
    assert_eq!(common::settled_thread_count(pid).await, idle_threads);
    engine.dispose().await;
    common::assert_gone(&engine.runner_dir().to_string_lossy()).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn dispose_ends_a_run_in_progress_with_abort() {
    let setup = common::local();
    let engine = std::sync::Arc::new(setup.engine);
    // Warm: the bound below is about stopping a run, not about booting a runner.
    engine.warm().await.unwrap();
    let running = {
        let engine = engine.clone();
        let tools = setup.tools.clone();
        tokio::spawn(async move {
            let busy = "await tools.echo({}); while (true) {}";
            engine.run(dsh_code::RunRequest::new(busy), tools).await.unwrap()
        })
    };
    // Running (it has called a tool) before the dispose.
    assert!(common::calls_reach(&setup.tools, 1).await, "the program never ran");
    let started = std::time::Instant::now();
    engine.dispose().await;
    assert!(started.elapsed() < std::time::Duration::from_secs(4));
    let outcome = running.await.unwrap();
    assert_eq!(outcome.error.map(|e| e.kind), Some(dsh_code::RunErrorKind::Abort));
    common::assert_gone(&engine.runner_dir().to_string_lossy()).await;
    let refused = engine.run(dsh_code::RunRequest::new("return 1"), setup.tools.clone()).await;
    assert!(matches!(refused, Err(dsh_code::CodeError::Disposed)));
}
