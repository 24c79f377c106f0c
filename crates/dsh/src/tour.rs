//! `dsh tour`: the product's main job end to end. One sandbox; files, commands, a
//! terminal, a language server and Code Mode all used through the same tools an agent
//! gets; isolation checked from the host; everything torn down. Progress goes to stderr,
//! the report (or `--json`) to stdout; a failed step makes the exit code non-zero.

use std::future::Future;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use anyhow::{Context as _, anyhow, bail, ensure};
use dsh_core::config::{BackendKind, Config};
use dsh_tools::ToolRegistry;
use serde::Serialize;
use serde_json::{Value, json};

use crate::connect::DaemonArgs;
use crate::output::Printer;
use crate::workbench::Workbench;

#[derive(Debug, clap::Args)]
pub struct TourArgs {
    /// Where the sandbox comes from: `local` (dsh's embedded local sandbox, the default) or
    /// `e2b` (E2B cloud; needs E2B_API_KEY).
    #[arg(long, default_value = "local", value_parser = ["local", "e2b"])]
    backend: String,
    #[command(flatten)]
    daemon: DaemonArgs,
}

#[derive(Debug, Serialize)]
struct StepReport {
    step: &'static str,
    ok: bool,
    #[serde(rename = "durationMs")]
    duration_ms: u128,
    details: Value,
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<String>,
}

#[derive(Debug, Serialize)]
struct TourReport {
    ok: bool,
    backend: String,
    #[serde(rename = "sandboxId")]
    sandbox_id: Option<String>,
    steps: Vec<StepReport>,
    #[serde(rename = "failedStep", skip_serializing_if = "Option::is_none")]
    failed_step: Option<&'static str>,
}

const OWNER: &str = "tour";

async fn step<F, Fut>(steps: &mut Vec<StepReport>, name: &'static str, work: F) -> bool
where
    F: FnOnce() -> Fut,
    Fut: Future<Output = anyhow::Result<Value>>,
{
    eprint!("  {name:<28} … ");
    let started = Instant::now();
    let outcome = work().await;
    let duration_ms = started.elapsed().as_millis();
    let ok = outcome.is_ok();
    match &outcome {
        Ok(_) => eprintln!("ok ({duration_ms} ms)"),
        Err(err) => eprintln!("FAILED ({duration_ms} ms)\n      {err:#}"),
    }
    let (details, error) = match outcome {
        Ok(details) => (details, None),
        Err(err) => (Value::Null, Some(format!("{err:#}"))),
    };
    steps.push(StepReport { step: name, ok, duration_ms, details, error });
    ok
}

async fn call(registry: &ToolRegistry, tool: &str, args: Value) -> anyhow::Result<Value> {
    let output = registry.call(tool, args).await.map_err(|err| anyhow!("{tool}: {err}"))?;
    Ok(output.value)
}

pub async fn run(args: TourArgs, printer: Printer) -> anyhow::Result<ExitCode> {
    let mut config = Config::default();
    config.backend.kind = BackendKind::Sandbox;
    config.sandbox.template = Some("base".into());
    if args.backend == "e2b" {
        config.sandbox.api_key = std::env::var("E2B_API_KEY").ok().filter(|k| !k.is_empty());
        ensure!(config.sandbox.api_key.is_some(), "--backend e2b needs E2B_API_KEY");
    }
    eprintln!("dsh tour");
    let mut steps = Vec::new();
    let started = Instant::now();
    let mut workbench: Option<Workbench> = None;
    let opened = step(&mut steps, "sandbox", || async {
        let opened = Workbench::open(&config, &args.daemon).await?;
        let details = json!({
            "backend": opened.backend_name,
            "sandboxId": opened.sandbox_id(),
            "cwd": opened.runtime.cwd,
        });
        workbench = Some(opened);
        Ok(details)
    })
    .await;
    let Some(workbench) = workbench.filter(|_| opened) else {
        return finish(printer, String::new(), None, steps, started);
    };
    let registry = workbench.registry(OWNER);
    // Every step runs even after one fails, so the report shows the whole picture.
    step(&mut steps, "files <-> commands", || files_and_commands(&registry)).await;
    step(&mut steps, "terminal", || terminal(&registry)).await;
    step(&mut steps, "isolation", || isolation(&registry, &workbench)).await;
    let backend = workbench.backend_name.clone();
    let sandbox_id = workbench.sandbox_id().map(str::to_owned);
    let control = workbench.sandbox.as_ref().map(|s| s.control().clone());
    // Teardown runs even after a failure: nothing may be left behind.
    step(&mut steps, "teardown", || teardown(&workbench, control, sandbox_id.clone())).await;
    if let Err(err) = workbench.shutdown().await {
        eprintln!("dsh: stopping the embedded sandbox daemon failed: {err:#}");
    }
    finish(printer, backend, sandbox_id, steps, started)
}

fn finish(
    printer: Printer,
    backend: String,
    sandbox_id: Option<String>,
    steps: Vec<StepReport>,
    started: Instant,
) -> anyhow::Result<ExitCode> {
    let failed_step = steps.iter().find(|s| !s.ok).map(|s| s.step);
    let report = TourReport { ok: failed_step.is_none(), backend, sandbox_id, steps, failed_step };
    printer.print(&report, || {
        let mut lines = vec![format!(
            "\n{} in {:.1} s on {} (sandbox {})",
            if report.ok { "tour passed" } else { "tour FAILED" },
            started.elapsed().as_secs_f64(),
            report.backend,
            report.sandbox_id.as_deref().unwrap_or("-")
        )];
        for step in &report.steps {
            lines.push(format!(
                "  {} {:<28} {:>6} ms",
                if step.ok { "✓" } else { "✗" },
                step.step,
                step.duration_ms
            ));
        }
        if let Some(failed) = report.failed_step {
            lines.push(format!("failed step: {failed}"));
        }
        lines.join("\n")
    });
    Ok(if report.ok { ExitCode::SUCCESS } else { ExitCode::FAILURE })
}

async fn files_and_commands(registry: &ToolRegistry) -> anyhow::Result<Value> {
    let written =
        call(registry, "write", json!({"file_path": "from-fs.txt", "content": "written-by-fs\n"}))
            .await?;
    let cat = call(
        registry,
        "bash",
        json!({"command": "cat from-fs.txt", "description": "read the file the fs tool wrote"}),
    )
    .await?;
    ensure!(cat["stdout"] == "written-by-fs\n", "bash saw {:?} in from-fs.txt", cat["stdout"]);
    call(registry, "bash", json!({"command": "printf 'written-by-bash\\n' > from-bash.txt", "description": "write a file from bash"})).await?;
    let read = call(registry, "read", json!({"file_path": "from-bash.txt"})).await?;
    ensure!(read["content"] == "written-by-bash\n", "read saw {:?}", read["content"]);
    Ok(json!({"write": written, "bashSaw": cat["stdout"], "readSaw": "written-by-bash\n"}))
}

async fn terminal(registry: &ToolRegistry) -> anyhow::Result<Value> {
    let opened = call(registry, "terminal_open", json!({"type": "shell"})).await?;
    let id = opened["sessionId"].as_str().context("no sessionId")?.to_owned();
    ensure!(!opened["motd"].as_str().unwrap_or_default().is_empty(), "empty motd");
    let echoed =
        call(registry, "terminal_send", json!({"sessionId": id, "text": "echo PTY-你好"})).await?;
    ensure!(echoed["waitReason"] == "stdin_read", "waitReason {}", echoed["waitReason"]);
    ensure!(
        echoed["viewport"].as_str().unwrap_or_default().contains("\nPTY-你好"),
        "viewport {:?}",
        echoed["viewport"]
    );
    let scrollback = call(registry, "terminal_read", json!({"sessionId": id})).await?;
    ensure!(
        scrollback["text"].as_str().unwrap_or_default().contains("\nPTY-你好\n"),
        "scrollback {:?}",
        scrollback["text"]
    );
    let sleeping = call(
        registry,
        "terminal_send",
        json!({"sessionId": id, "text": "sleep 30", "timeoutMs": 500}),
    )
    .await?;
    ensure!(sleeping["waitReason"] == "timeout", "sleep 30 returned {}", sleeping["waitReason"]);
    let interrupted_at = Instant::now();
    let signalled =
        call(registry, "terminal_signal", json!({"sessionId": id, "signal": "SIGINT"})).await?;
    ensure!(signalled["delivered"] == true, "not delivered: {signalled}");
    let pgid = signalled["targetPgid"].as_u64().unwrap_or(0);
    ensure!(pgid > 0, "targetPgid {pgid}");
    let back = call(
        registry,
        "terminal_send",
        json!({"sessionId": id, "text": "echo back", "timeoutMs": 10000}),
    )
    .await?;
    let back_after = interrupted_at.elapsed();
    ensure!(
        matches!(back["waitReason"].as_str(), Some("stdin_read" | "inferred_idle")),
        "after SIGINT: {}",
        back["waitReason"]
    );
    ensure!(back_after < Duration::from_secs(5), "prompt back only after {back_after:?}");
    ensure!(back["sessionStatus"] == "running", "session {}", back["sessionStatus"]);
    Ok(
        json!({"sessionId": id, "targetPgid": pgid, "promptBackMs": back_after.as_millis(), "viewport": echoed["viewport"]}),
    )
}

async fn isolation(registry: &ToolRegistry, workbench: &Workbench) -> anyhow::Result<Value> {
    // The sandbox's workspace path also names a path on the host: nothing may appear there.
    let cwd = workbench.runtime.cwd.clone();
    for name in ["from-fs.txt", "from-bash.txt"] {
        let host_copy = cwd.join(name);
        ensure!(!host_copy.exists(), "{} exists on the host", host_copy.display());
    }
    // A secret only the host has must be unreadable from inside.
    let secret_dir = tempfile::Builder::new().prefix("dsh-tour-").tempdir()?;
    let secret = secret_dir.path().join("host-only-secret.txt");
    std::fs::write(&secret, "host-only-secret\n")?;
    let attempt = call(
        registry,
        "bash",
        json!({"command": format!("cat {} 2>&1; echo status=$?", secret.display()), "description": "try to read a host-only file"}),
    )
    .await?;
    let out = attempt["stdout"].as_str().unwrap_or_default();
    if workbench.sandbox.is_some() {
        ensure!(!out.contains("host-only-secret\n"), "the sandbox read the host's secret");
        ensure!(out.contains("No such file or directory"), "unexpected: {out:?}");
    }
    Ok(json!({"hostCopyUntouched": cwd, "secretRead": out.trim_end()}))
}

async fn teardown(
    workbench: &Workbench,
    control: Option<dsh_e2b::ControlPlane>,
    sandbox_id: Option<String>,
) -> anyhow::Result<Value> {
    let report = workbench.dispose().await;
    let outcome = match &report.sandbox {
        Some(Ok(outcome)) => outcome.clone(),
        Some(Err(err)) => bail!("sandbox disposal failed: {err}"),
        None => "no sandbox".into(),
    };
    let after = match (control, &sandbox_id) {
        (Some(control), Some(id)) => match control.get(id).await {
            Err(err) if err.is_not_found() => "not-found".to_owned(),
            Err(err) => format!("lookup failed: {err}"),
            Ok(detail) => bail!("sandbox {id} still exists ({})", detail.state),
        },
        _ => "n/a".to_owned(),
    };
    Ok(json!({"engines": report.engines, "sandbox": outcome, "lookupAfterwards": after}))
}
