//! The "done when" scenarios, run on the local backend and through a real dsh-envd.

use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use dsh_code::{AbortSignal, JsString, JsValue, Limits, RunErrorKind, RunRequest};
use dsh_core::WriteExpectation;
use serde_json::json;

use crate::common::{self, Setup};

const PARALLEL: &str = r#"
interface Shell { stdout: string; exit_code: number }
type Doubled = { doubled: number; typed: boolean };
const [file, shell, written] = await Promise.all([
  tools.read({ file_path: "input.txt" }) as Promise<{ text: string }>,
  tools.bash({ command: "sleep 0.3; printf 21" }) as Promise<Shell>,
  tools.write({ file_path: "out/result.txt", content: "42" }),
]);
const n: number = Number(shell.stdout);
console.log("remote-log", file.text.trim(), n * 2);
console.log(`write ${written.operation}`);
const result: Doubled = { doubled: n * 2, typed: typeof n === "number" };
return result;
"#;

pub async fn parallel_tools(setup: Setup) {
    let Setup { engine, tools, fs, cwd, .. } = &setup;
    fs.write_text(&cwd.join("input.txt"), "你好\n", WriteExpectation::Any).await.unwrap();
    let outcome = engine.run(RunRequest::new(PARALLEL), tools.clone()).await.unwrap();
    assert_eq!(outcome.error, None, "{outcome:?}");
    assert_eq!(outcome.logs, ["remote-log 你好 42", "write create"]);
    assert_eq!(outcome.result, Some(json!({"doubled": 42, "typed": true})));
    assert_eq!(
        outcome.value,
        Some(JsValue::Object(vec![
            ("doubled".into(), JsValue::Number(42.0)),
            ("typed".into(), JsValue::Bool(true)),
        ]))
    );
    // The three calls were in flight at once, and the write really happened.
    assert!(tools.max_active.load(Ordering::SeqCst) >= 2);
    assert_eq!(fs.read_text(&cwd.join("out/result.txt"), 100).await.unwrap().text, "42");
    finish(setup).await;
}

const TAMPER: &str = r#"
JSON.stringify = () => { throw new Error("tampered stringify"); };
JSON.parse = () => { throw new Error("tampered parse"); };
Promise.prototype.then = function () { throw new Error("tampered then"); };
(Object.prototype as any).toJSON = function () { return "tampered toJSON"; };
Array.prototype.push = function () { throw new Error("tampered push"); };
Array.prototype.join = function () { return "tampered join"; };
Object.keys = () => [];
Object.defineProperty = () => { throw new Error("tampered defineProperty"); };
(globalThis as any).Error = function () { return { fake: true }; };
let caught: any;
try {
  await tools.read({ file_path: "does-not-exist.txt" });
} catch (e) {
  caught = e;
}
console.log("post-mutation");
const ok = await tools.read({ file_path: "input.txt" });
return {
  isToolCallError: caught instanceof ToolCallError,
  toolName: caught.toolName,
  name: caught.name,
  mentionsPath: String(caught.message).includes("does-not-exist.txt"),
  nested: [1, { a: undefined, b: NaN }],
  text: ok.text,
};
"#;

pub async fn tampering(setup: Setup) {
    let Setup { engine, tools, fs, cwd, .. } = &setup;
    fs.write_text(&cwd.join("input.txt"), "你好\n", WriteExpectation::Any).await.unwrap();
    let outcome = engine.run(RunRequest::new(TAMPER), tools.clone()).await.unwrap();
    assert_eq!(outcome.error, None, "{outcome:?}");
    assert_eq!(outcome.logs, ["post-mutation"]);
    assert_eq!(
        outcome.result,
        Some(json!({
            "isToolCallError": true,
            "toolName": "read",
            "name": "ToolCallError",
            "mentionsPath": true,
            "nested": [1, {"a": {"$dsh": "undefined"}, "b": {"$dsh": "nan"}}],
            "text": "你好\n",
        }))
    );
    finish(setup).await;
}

pub async fn budgets_and_failures(setup: Setup) {
    let Setup { engine, tools, .. } = &setup;
    let tools: Arc<dyn dsh_code::ToolDispatcher> = tools.clone();
    let limits = |f: fn(&mut Limits)| {
        let mut limits = Limits::default();
        f(&mut limits);
        limits
    };

    // output-limit: what fit is kept.
    let code = r#"for (let i = 0; i < 50; i++) console.log("x".repeat(99)); return 1;"#;
    let request = RunRequest::new(code).with_limits(limits(|l| l.max_output_bytes = 1000));
    let outcome = engine.run(request, tools.clone()).await.unwrap();
    let error = outcome.error.unwrap();
    assert_eq!(error.kind, RunErrorKind::OutputLimit, "{error:?}");
    assert_eq!(outcome.logs.len(), 10);
    assert_eq!(outcome.result, None);
    // A result that does not fit.
    let code = r#"console.log("kept"); return "y".repeat(5000);"#;
    let request = RunRequest::new(code).with_limits(limits(|l| l.max_output_bytes = 1000));
    let outcome = engine.run(request, tools.clone()).await.unwrap();
    assert_eq!(outcome.error.map(|e| e.kind), Some(RunErrorKind::OutputLimit));
    assert_eq!(outcome.logs, ["kept"]);

    let pid = engine.runner_pid().await.unwrap();
    // timeout: 2 s of wall time on a busy loop.
    let started = Instant::now();
    let request =
        RunRequest::new("while (true) {}").with_limits(limits(|l| l.wall = Duration::from_secs(2)));
    let outcome = engine.run(request, tools.clone()).await.unwrap();
    let elapsed = started.elapsed();
    assert_eq!(outcome.error.as_ref().map(|e| e.kind), Some(RunErrorKind::Timeout), "{outcome:?}");
    assert!(elapsed >= Duration::from_secs(2) && elapsed < Duration::from_secs(4), "{elapsed:?}");
    // timeout: 2 s of busy compute.
    let started = Instant::now();
    let request =
        RunRequest::new("while (true) {}").with_limits(limits(|l| l.cpu = Duration::from_secs(2)));
    let outcome = engine.run(request, tools.clone()).await.unwrap();
    let error = outcome.error.unwrap();
    assert_eq!(error.kind, RunErrorKind::Timeout);
    assert!(error.message.contains("busy-compute"), "{error:?}");
    assert!(started.elapsed() < Duration::from_secs(4), "{:?}", started.elapsed());
    // Stopping a worker keeps the runner.
    assert_eq!(engine.runner_pid().await, Some(pid));

    // abort, with the caller's message.
    let abort = AbortSignal::new();
    let trigger = abort.clone();
    let watched = setup.tools.clone();
    let before = watched.calls.load(Ordering::SeqCst);
    tokio::spawn(async move {
        // Once the program has called a tool, its log (sent before the call, on the same
        // stream) has reached the host: logs that arrive after an abort are dropped.
        if common::calls_reach(&watched, before + 1).await {
            trigger.abort("the user pressed stop");
        }
    });
    let code = "console.log('waiting'); await tools.echo({}); await new Promise((r) => setTimeout(r, 60_000));";
    let outcome = engine.run(RunRequest::new(code).with_abort(abort), tools.clone()).await.unwrap();
    let error = outcome.error.unwrap();
    assert_eq!(
        (error.kind, error.message.as_str()),
        (RunErrorKind::Abort, "the user pressed stop")
    );
    assert_eq!(outcome.logs, ["waiting"]);

    // worker-exit: process.exit inside the worker ends only the worker.
    let outcome = engine.run(RunRequest::new("process.exit(7)"), tools.clone()).await.unwrap();
    let error = outcome.error.unwrap();
    assert_eq!(error.kind, RunErrorKind::WorkerExit);
    assert!(error.message.contains('7'), "{error:?}");
    assert_eq!(engine.runner_pid().await, Some(pid));

    // An exception keeps its name, message and the model's line.
    let code = "const a = 1;\nconst b: number = 2;\nthrow new TypeError(`boom ${a + b}`);";
    let outcome = engine.run(RunRequest::new(code), tools.clone()).await.unwrap();
    let error = outcome.error.unwrap();
    assert_eq!(error.kind, RunErrorKind::Exception);
    assert!(error.message.starts_with("TypeError: boom 3"), "{error:?}");
    assert!(error.message.contains("program.ts:3:"), "{error:?}");

    // A syntax error never reaches the sandbox.
    let outcome =
        engine.run(RunRequest::new("let x = 1;\nlet y = ;"), tools.clone()).await.unwrap();
    let error = outcome.error.unwrap();
    assert_eq!(error.kind, RunErrorKind::Exception);
    assert_eq!(error.location.map(|l| (l.line, l.column)), Some((2, 9)), "{error:?}");
    let outcome = engine.run(RunRequest::new("enum E { A }"), tools.clone()).await.unwrap();
    assert!(outcome.error.unwrap().message.contains("UnsupportedSyntax"));

    // A failing tool call that is not caught.
    let outcome = engine
        .run(RunRequest::new("await tools.read({file_path: 'nope'});"), tools.clone())
        .await
        .unwrap();
    let error = outcome.error.unwrap();
    assert!(error.message.starts_with("ToolCallError:"), "{error:?}");

    // Still the same runner, and it still works.
    let outcome = engine.run(RunRequest::new("return 1"), tools.clone()).await.unwrap();
    assert_eq!(outcome.result, Some(json!(1)));
    assert_eq!(engine.runner_pid().await, Some(pid));

    // The heap cap.
    let code = "const keep = []; for (;;) keep.push(new Array(1e6).fill(1));";
    let request = RunRequest::new(code).with_limits(limits(|l| l.heap_mb = 64));
    let outcome = engine.run(request, tools.clone()).await.unwrap();
    let error = outcome.error.unwrap();
    assert_eq!(error.kind, RunErrorKind::WorkerExit, "{error:?}");
    assert!(error.message.contains("heap"), "{error:?}");
    finish(setup).await;
}

pub async fn lossless_values(setup: Setup) {
    let Setup { engine, tools, .. } = &setup;
    let code = r#"
const echoed = await tools.echo({ "$dsh": "nan", list: [1, "two", null], big: 12345678901234567 });
return {
  u: undefined, n: NaN, pinf: Infinity, ninf: -Infinity, z: -0, big: 2n ** 70n,
  s: "a\ud800b", arr: [undefined, [NaN, -0]], "$dsh": { x: 1 }, echoed,
  echoedTag: echoed["$dsh"],
};
"#;
    let outcome = engine.run(RunRequest::new(code), tools.clone()).await.unwrap();
    assert_eq!(outcome.error, None, "{outcome:?}");
    let value = outcome.value.unwrap();
    let JsValue::Object(entries) = &value else { panic!("{value:?}") };
    let get =
        |key: &str| entries.iter().find(|(k, _)| k == &JsString::from(key)).map(|(_, v)| v.clone());
    assert_eq!(get("u"), Some(JsValue::Undefined));
    assert!(matches!(get("n"), Some(JsValue::Number(n)) if n.is_nan()));
    assert_eq!(get("pinf"), Some(JsValue::Number(f64::INFINITY)));
    assert_eq!(get("ninf"), Some(JsValue::Number(f64::NEG_INFINITY)));
    assert_eq!(get("z"), Some(JsValue::Number(-0.0)));
    assert_eq!(get("big"), Some(JsValue::BigInt("1180591620717411303424".into())));
    assert_eq!(get("s"), Some(JsValue::String(JsString::from_units(vec![0x61, 0xd800, 0x62]))));
    assert_eq!(
        get("arr"),
        Some(JsValue::Array(vec![
            JsValue::Undefined,
            JsValue::Array(vec![JsValue::Number(f64::NAN), JsValue::Number(-0.0)])
        ]))
    );
    assert_eq!(get("$dsh"), Some(JsValue::Object(vec![("x".into(), JsValue::Number(1.0))])));
    assert_eq!(get("echoedTag"), Some(JsValue::String("nan".into())));
    let Some(JsValue::Object(echoed)) = get("echoed") else { panic!("{value:?}") };
    // Integers beyond 2^53 are doubles, as JSON.parse makes them.
    assert_eq!(
        echoed.iter().find(|(k, _)| k == &JsString::from("big")).map(|(_, v)| v.clone()),
        Some(JsValue::Number(12345678901234568.0))
    );

    // What cannot cross is a typed error naming the path, never null.
    for (code, needle) in [
        ("return { f: () => 1 };", "a function across the boundary at $.f"),
        ("return [1, Symbol('s')];", "a symbol across the boundary at $[1]"),
        (
            "const a: any = { b: {} }; a.b.c = a; return a;",
            "a cyclic structure across the boundary at $.b.c",
        ),
        ("return { when: new Date(0) };", "a Date across the boundary"),
        ("return new Map();", "a Map"),
    ] {
        let outcome = engine.run(RunRequest::new(code), tools.clone()).await.unwrap();
        let error = outcome.error.unwrap();
        assert_eq!(error.kind, RunErrorKind::Exception, "{code}");
        assert!(error.message.contains(needle), "{code}: {error:?}");
    }
    // Arguments a tool cannot take exactly fail the call with a ToolCallError.
    let code = r#"
try { await tools.echo({ a: [1, undefined] }); } catch (e) { return [e instanceof ToolCallError, e.toolName, e.message]; }
"#;
    let outcome = engine.run(RunRequest::new(code), tools.clone()).await.unwrap();
    let result = outcome.result.unwrap();
    assert_eq!((result[0].clone(), result[1].clone()), (json!(true), json!("echo")));
    assert!(result[2].as_str().unwrap().contains("$.a[1]"), "{result}");
    let code = "try { await tools.echo({ f() {} }); } catch (e) { return [e.name, e.path]; }";
    let outcome = engine.run(RunRequest::new(code), tools.clone()).await.unwrap();
    assert_eq!(outcome.result, Some(json!(["LosslessError", "$.f"])));
    finish(setup).await;
}

pub async fn hostile_programs(setup: Setup) {
    let Setup { engine, tools, .. } = &setup;
    eprintln!("hostile programs on {}", setup.cwd.display());
    let tools: Arc<dyn dsh_code::ToolDispatcher> = tools.clone();
    // A child that would outlive the program is killed after the run.
    let code = r#"
const cp = process.getBuiltinModule("child_process");
cp.spawn("/bin/sleep", ["987654"], { stdio: "ignore" }).unref();
cp.spawn("/bin/sleep", ["987655"], { stdio: "ignore", detached: true }).unref();
return "spawned";
"#;
    let outcome = engine.run(RunRequest::new(code), tools.clone()).await.unwrap();
    assert_eq!(outcome.result, Some(json!("spawned")), "{outcome:?}");
    common::assert_gone("sleep 987654").await;
    common::assert_gone("sleep 987655").await;

    // A program that blocks on the runner's stdin: typed result, no hang, and the next
    // program runs.
    let started = Instant::now();
    let code =
        r#"process.getBuiltinModule("fs").readSync(0, Buffer.alloc(1 << 16)); return "read";"#;
    let limits = Limits { wall: Duration::from_secs(2), ..Limits::default() };
    let outcome =
        engine.run(RunRequest::new(code).with_limits(limits), tools.clone()).await.unwrap();
    // The runner's stdin is non-blocking: the read fails (EAGAIN) instead of stealing
    // frames; either way a typed result, quickly.
    let error = outcome.error.unwrap();
    eprintln!("blocking read of the runner's stdin: {error:?}");
    assert!(matches!(error.kind, RunErrorKind::Exception | RunErrorKind::Timeout), "{error:?}");
    assert!(started.elapsed() < Duration::from_secs(10), "{:?}", started.elapsed());
    let code =
        r#"await new Promise((resolve) => process.stdin.once("data", resolve)); return "data";"#;
    let outcome =
        engine.run(RunRequest::new(code).with_limits(limits), tools.clone()).await.unwrap();
    let error = outcome.error.unwrap();
    eprintln!("waiting on the worker's stdin: {error:?}");
    assert!(matches!(error.kind, RunErrorKind::Timeout | RunErrorKind::Exception), "{error:?}");
    assert!(started.elapsed() < Duration::from_secs(10), "{:?}", started.elapsed());
    // A program that busy-polls the runner's stdin to steal the host's frames (here:
    // the stop): still the typed timeout, and the runner survives or is replaced.
    let started = Instant::now();
    let code = r#"
const fs = process.getBuiltinModule("fs");
const buffer = Buffer.alloc(1 << 16);
for (;;) { try { if (fs.readSync(0, buffer) > 0) return "stolen"; } catch {} }
"#;
    let outcome =
        engine.run(RunRequest::new(code).with_limits(limits), tools.clone()).await.unwrap();
    assert_eq!(outcome.error.map(|e| e.kind), Some(RunErrorKind::Timeout), "{:?}", outcome.result);
    assert!(started.elapsed() < Duration::from_secs(6), "{:?}", started.elapsed());
    let outcome = engine.run(RunRequest::new("return 2"), tools.clone()).await.unwrap();
    assert_eq!(outcome.result, Some(json!(2)), "{outcome:?}");

    // A program that kills its own runner: worker-exit, then a new runner.
    let pid = engine.runner_pid().await.unwrap();
    let outcome = engine
        .run(RunRequest::new("process.kill(process.pid, 'SIGKILL')"), tools.clone())
        .await
        .unwrap();
    assert_eq!(outcome.error.map(|e| e.kind), Some(RunErrorKind::WorkerExit));
    let outcome = engine.run(RunRequest::new("return 3"), tools.clone()).await.unwrap();
    assert_eq!(outcome.result, Some(json!(3)));
    assert_ne!(engine.runner_pid().await, Some(pid));

    // Writing garbage to the protocol's stdout is invalid-output, and the runner goes.
    let pid = engine.runner_pid().await.unwrap();
    let code = r#"process.getBuiltinModule("fs").writeSync(1, "not a frame\n"); await new Promise(r => setTimeout(r, 1000));"#;
    let outcome = engine.run(RunRequest::new(code), tools.clone()).await.unwrap();
    assert_eq!(outcome.error.map(|e| e.kind), Some(RunErrorKind::InvalidOutput));
    let dir = engine.runner_dir().to_string_lossy().into_owned();
    assert!(!common::processes_matching(&dir).contains(&pid));

    // Up to 10 tool calls at once; the rest queue.
    let code = r#"
const all = await Promise.all(Array.from({ length: 25 }, (_, i) => tools.bash({ command: `sleep 0.1; echo ${i}` })));
return all.map((r: any) => Number(r.stdout));
"#;
    let seam_tools = setup.tools.clone();
    seam_tools.max_active.store(0, Ordering::SeqCst);
    let outcome = engine.run(RunRequest::new(code), tools.clone()).await.unwrap();
    assert_eq!(outcome.result, Some(json!((0..25).collect::<Vec<_>>())));
    assert_eq!(seam_tools.max_active.load(Ordering::SeqCst), 10);

    // A long program (stripped in parts, off the runtime) runs, and its positions are the
    // model's: the exception is reported at the line the model wrote it on.
    let lines = 4000;
    let mut code = String::new();
    for i in 0..lines {
        code.push_str(&format!("const v{i}: number = {i} as number;\n"));
    }
    code.push_str("if (v1 + v3998 === 3999) throw new Error('here');\n");
    assert!(code.len() > 128 << 10, "{}", code.len());
    let outcome = engine.run(RunRequest::new(code), tools.clone()).await.unwrap();
    let error = outcome.error.unwrap();
    // Line 4001, column 32 (`new Error`), as the model wrote it.
    assert_eq!(error.message, format!("Error: here\n    at eval (program.ts:{}:32)", lines + 1));
    // Nesting deep enough to overflow a runtime thread's stack in a parser: the host
    // strips it (its parsers get a stack sized to the program, so the host cannot
    // crash), and V8 in the worker is the one that refuses it.
    let code = format!("return {}1{};", "(".repeat(30_000), ")".repeat(30_000));
    let outcome = engine.run(RunRequest::new(code), tools.clone()).await.unwrap();
    let error = outcome.error.unwrap();
    assert_eq!(error.kind, RunErrorKind::Exception, "{error:?}");
    assert_eq!(error.message, "RangeError: Maximum call stack size exceeded");
    // An oversized program: a typed refusal with its size.
    let code = "let a = 1;\n".repeat(dsh_code::strip::MAX_PROGRAM_BYTES / 11 + 1);
    let outcome = engine.run(RunRequest::new(code), tools.clone()).await.unwrap();
    let error = outcome.error.unwrap();
    assert_eq!(error.kind, RunErrorKind::Exception);
    assert!(error.message.starts_with("ProgramTooLarge at line 1, column 1"), "{error:?}");
    finish(setup).await;
}

/// Dispose, then nothing of the runner is left.
pub async fn finish(setup: Setup) {
    let dir = setup.engine.runner_dir();
    setup.engine.dispose().await;
    common::assert_gone(&dir.to_string_lossy()).await;
}
