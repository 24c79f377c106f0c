//! `dsh tour`: the product's main job end to end. One sandbox; files, commands, a
//! terminal, a language server and Code Mode all used through the same tools an agent
//! gets; isolation checked from the host; everything torn down. Progress goes to stderr,
//! the report (or `--json`) to stdout; a failed step makes the exit code non-zero.

use std::future::Future;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::config::{BackendKind, Config};
use anyhow::{Context as _, anyhow, bail, ensure};
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
        // Nothing opened: name the backend it was asked to open.
        let intended = if args.backend == "e2b" {
            "E2B cloud"
        } else if args.daemon.configured() {
            "local sandbox daemon"
        } else {
            "local sandbox (embedded dsh-sandboxd)"
        };
        return finish(printer, intended.to_owned(), None, steps, started);
    };
    let registry = workbench.registry(OWNER);
    // Every step runs even after one fails, so the report shows the whole picture.
    step(&mut steps, "files <-> commands", || files_and_commands(&registry)).await;
    step(&mut steps, "terminal", || terminal(&registry)).await;
    step(&mut steps, "language server", || language_server(&registry)).await;
    step(&mut steps, "code mode", || code_mode(&registry, &workbench)).await;
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
            "\n{} in {:.1} s on {} ({})",
            if report.ok { "tour passed" } else { "tour FAILED" },
            started.elapsed().as_secs_f64(),
            report.backend,
            match &report.sandbox_id {
                Some(id) => format!("sandbox {id}"),
                None => "no sandbox was opened".to_owned(),
            }
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

const LSP_DEMO: &str = r#"def greet(name: str) -> str:
    """Say hello: 你好 café."""
    return "hi " + name


message = "你好 café 🎉"; result = greet("world")
count: int = "not a number"
"#;

/// The first `lsp` request provides pyright (pinned) unless the sandbox already has it: a
/// layer the local sandbox daemon builds once per machine, or npm into dsh's private
/// directory in the sandbox. The tour relies on that, as an agent does.
async fn language_server(registry: &ToolRegistry) -> anyhow::Result<Value> {
    call(registry, "write", json!({"file_path": "lsp_demo.py", "content": LSP_DEMO})).await?;
    let call_line = LSP_DEMO.lines().nth(5).context("demo line")?;
    let byte = call_line.find("greet(").context("call site")?;
    let column = call_line[..byte].encode_utf16().count() + 1;
    let hover = registry
        .call("lsp", json!({"operation": "hover", "file_path": "lsp_demo.py", "line": 6, "character": column}))
        .await
        .map_err(|err| anyhow!("lsp hover: {err}"))?;
    ensure!(hover.text.contains("你好 café"), "hover did not show the docstring: {}", hover.text);
    let definition = registry
        .call("lsp", json!({"operation": "goToDefinition", "file_path": "lsp_demo.py", "line": 6, "character": column}))
        .await
        .map_err(|err| anyhow!("lsp goToDefinition: {err}"))?;
    let target = &definition.value["output"]["items"][0];
    ensure!(
        (
            target["line"].as_u64(),
            target["character"].as_u64(),
            target["end_line"].as_u64(),
            target["end_character"].as_u64()
        ) == (Some(1), Some(5), Some(1), Some(10)),
        "definition range {target}"
    );
    let diagnostics = registry
        .call("lsp", json!({"operation": "diagnostics", "file_path": "lsp_demo.py"}))
        .await
        .map_err(|err| anyhow!("lsp diagnostics: {err}"))?;
    let planted = diagnostics.value["output"]["items"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|d| d["line"] == 7 && d["severity"] == "error")
        .cloned();
    ensure!(planted.is_some(), "the planted type error was not reported: {}", diagnostics.text);
    Ok(json!({
        "server": hover.value["server"],
        "callSiteColumnUtf16": column,
        "definition": target,
        "diagnostic": planted,
    }))
}

const PARALLEL_PROGRAM: &str = r#"const base: number = 21;
const [file, echoed, written] = await Promise.all([
  tools.read({ file_path: "from-fs.txt" }),
  tools.bash({ command: "echo " + base, description: "echo a number" }),
  tools.write({ file_path: "from-code.txt", content: "written-by-code\n" }),
]);
const doubled: number = Number((echoed as { stdout: string }).stdout.trim()) * 2;
console.log("remote-log 你好 " + doubled);
return { doubled, typed: typeof file.content === "string" && written.operation === "create" };
"#;

const TAMPERING_PROGRAM: &str = r#"JSON.stringify = () => "tampered";
Promise.prototype.then = function () { throw new Error("tampered then"); };
Object.defineProperty(Object.prototype, "toJSON", { value: () => "tampered", configurable: true, writable: true });
try {
  await tools.read({ file_path: "no-such-file.txt" });
  return "the failing tool did not throw";
} catch (error) {
  console.log("post-mutation");
  return { name: error.name, toolName: error.toolName };
}
"#;

async fn code_mode(registry: &ToolRegistry, workbench: &Workbench) -> anyhow::Result<Value> {
    let parallel = call(
        registry,
        "run_code",
        json!({"code": PARALLEL_PROGRAM, "description": "parallel tools"}),
    )
    .await?;
    ensure!(parallel["error"].is_null(), "program failed: {}", parallel["error"]);
    ensure!(
        parallel["result"] == json!({"doubled": 42, "typed": true}),
        "result {}",
        parallel["result"]
    );
    ensure!(parallel["logs"] == json!(["remote-log 你好 42"]), "logs {}", parallel["logs"]);

    let tampered = call(
        registry,
        "run_code",
        json!({"code": TAMPERING_PROGRAM, "description": "tamper with intrinsics"}),
    )
    .await?;
    ensure!(tampered["error"].is_null(), "tampering program failed: {}", tampered["error"]);
    ensure!(
        tampered["result"] == json!({"name": "ToolCallError", "toolName": "read"}),
        "result {}",
        tampered["result"]
    );
    ensure!(tampered["logs"] == json!(["post-mutation"]), "logs {}", tampered["logs"]);

    let flood = call(
        registry,
        "run_code",
        json!({"code": "while (true) console.log('x'.repeat(1000));", "description": "print forever", "maxOutputBytes": 16384}),
    )
    .await?;
    ensure!(flood["error"]["kind"] == "output-limit", "flood ended with {}", flood["error"]);

    let spin_started = Instant::now();
    let spin = call(
        registry,
        "run_code",
        json!({"code": "while (true) {}", "description": "spin", "timeoutMs": 2000}),
    )
    .await?;
    let spin_took = spin_started.elapsed();
    ensure!(spin["error"]["kind"] == "timeout", "spin ended with {}", spin["error"]);
    ensure!(spin_took < Duration::from_secs(10), "timeout took {spin_took:?}");

    let abort = dsh_code::AbortSignal::new();
    let aborter = {
        let abort = abort.clone();
        tokio::spawn(async move {
            tokio::time::sleep(Duration::from_millis(300)).await;
            abort.abort("tour: aborted from the host");
        })
    };
    let request = dsh_code::RunRequest::new(
        "await new Promise((resolve) => setTimeout(resolve, 60000)); return 1;",
    )
    .with_abort(abort);
    let aborted = workbench.code.run(request, Arc::new(NoTools)).await?;
    aborter.await?;
    let abort_error = aborted.error.context("the long sleep was not aborted")?;
    ensure!(
        abort_error.kind == dsh_code::RunErrorKind::Abort,
        "aborted run ended with {abort_error:?}"
    );
    ensure!(
        abort_error.message.contains("tour: aborted from the host"),
        "message {:?}",
        abort_error.message
    );

    // Disposal ends the runner and its workers; nothing of Code Mode stays in the sandbox.
    workbench.code.dispose().await;
    let left = call(
        registry,
        "bash",
        json!({"command": "grep -l 'code-[r]unner' /proc/[0-9]*/cmdline 2>/dev/null | wc -l", "description": "count code runners"}),
    )
    .await?;
    ensure!(left["stdout"] == "0\n", "code runner processes left: {}", left["stdout"]);
    Ok(json!({
        "parallel": {"result": parallel["result"], "logs": parallel["logs"]},
        "tampering": {"result": tampered["result"], "logs": tampered["logs"]},
        "outputLimit": flood["error"]["kind"],
        "timeoutAfterMs": spin_took.as_millis(),
        "abort": abort_error.message,
        "runnersLeft": 0,
    }))
}

/// A program that needs no tools.
struct NoTools;

impl dsh_code::ToolDispatcher for NoTools {
    fn tools(&self) -> Vec<dsh_code::ToolInfo> {
        Vec::new()
    }
    fn call<'a>(
        &'a self,
        name: &'a str,
        _args: Value,
    ) -> dsh_core::BoxFuture<'a, Result<Value, dsh_code::ToolCallFailure>> {
        Box::pin(async move {
            Err(dsh_code::ToolCallFailure {
                tool_name: name.to_owned(),
                message: "no tools here".into(),
            })
        })
    }
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
    // Root inside must be nobody on the host: on the embedded local sandbox, uid 0 maps
    // to an unprivileged host uid, and root keeps no way to gain privileges back.
    let identity = call(
        registry,
        "bash",
        json!({"command": "cat /proc/self/uid_map; grep -E '^(NoNewPrivs|Seccomp):' /proc/self/status", "description": "how root inside maps to the host"}),
    )
    .await?;
    let identity = identity["stdout"].as_str().unwrap_or_default().to_owned();
    let mut fields = identity.split_whitespace();
    let (inside, host) = (fields.next(), fields.next().and_then(|h| h.parse::<u64>().ok()));
    if workbench.is_embedded() {
        ensure!(
            inside == Some("0") && host.is_some_and(|host| host > 65_535),
            "root inside is not an unprivileged host uid: {identity:?}"
        );
        ensure!(
            identity.contains("NoNewPrivs:\t1") && identity.contains("Seccomp:\t2"),
            "no_new_privs or seccomp missing: {identity:?}"
        );
    }
    Ok(json!({
        "hostCopyUntouched": cwd,
        "secretRead": out.trim_end(),
        "rootOnHost": host,
        "noNewPrivs": identity.contains("NoNewPrivs:\t1"),
        "seccomp": identity.contains("Seccomp:\t2"),
    }))
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
