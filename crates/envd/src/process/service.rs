//! `process.Process` handlers.

use std::collections::BTreeMap;
use std::sync::Arc;

use axum::Router;
use dsh_proto::connect::{Code, ConnectError};
use dsh_proto::process::*;
use tokio::time::Instant;

use super::spawn::{self, SpawnSpec};
use super::{Lookup, ManagedProcess, Subscription};
use crate::rpc::{self, CallContext, RequestStream, StreamWriter};
use crate::state::Envd;

/// The PATH processes get when their request sets none.
pub(crate) const DEFAULT_PATH: &str =
    "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";

pub fn routes() -> Router<Arc<Envd>> {
    Router::new()
        .route("/process.Process/List", rpc::unary_route(list))
        .route("/process.Process/Start", rpc::server_stream_route(start))
        .route("/process.Process/Connect", rpc::server_stream_route(connect))
        .route("/process.Process/Update", rpc::unary_route(update))
        .route("/process.Process/StreamInput", rpc::client_stream_route(stream_input))
        .route("/process.Process/SendInput", rpc::unary_route(send_input))
        .route("/process.Process/SendSignal", rpc::unary_route(send_signal))
        .route("/process.Process/CloseStdin", rpc::unary_route(close_stdin))
}

async fn list(
    envd: Arc<Envd>,
    _: ListRequest,
    _: CallContext,
) -> Result<ListResponse, ConnectError> {
    let processes = envd
        .processes
        .list()
        .into_iter()
        .map(|p| ProcessInfo { config: Some(p.config.clone()), pid: p.pid, tag: p.tag.clone() })
        .collect();
    Ok(ListResponse { processes })
}

/// The environment a process gets: PATH from envd, the user's identity, the global
/// variables, then the request's own (later entries win).
fn process_env(
    envd: &Envd,
    user: &crate::users::User,
    requested: &std::collections::HashMap<String, String>,
) -> BTreeMap<String, String> {
    let mut env = BTreeMap::new();
    env.insert(
        "PATH".to_owned(),
        std::env::var("PATH").unwrap_or_else(|_| DEFAULT_PATH.to_owned()),
    );
    env.insert("HOME".to_owned(), user.home.to_string_lossy().into_owned());
    env.insert("USER".to_owned(), user.name.clone());
    env.insert("LOGNAME".to_owned(), user.name.clone());
    env.extend(envd.global_env());
    env.extend(requested.iter().map(|(k, v)| (k.clone(), v.clone())));
    env
}

async fn start(
    envd: Arc<Envd>,
    request: StartRequest,
    context: CallContext,
    out: StreamWriter<StartResponse>,
) -> Result<(), ConnectError> {
    let config = request
        .process
        .ok_or_else(|| ConnectError::invalid_argument("process config is required"))?;
    if config.cmd.is_empty() {
        return Err(ConnectError::invalid_argument("process cmd is empty"));
    }
    let settings = envd.settings();
    let cwd = crate::paths::resolve(
        config.cwd.as_deref().unwrap_or_default(),
        &context.user,
        settings.default_workdir.as_deref(),
    )?;
    if !cwd.is_dir() {
        return Err(ConnectError::invalid_argument(format!(
            "cwd '{}' does not exist",
            cwd.display()
        )));
    }
    let pty = match &request.pty {
        None => None,
        Some(pty) => {
            let size =
                pty.size.ok_or_else(|| ConnectError::invalid_argument("pty size is required"))?;
            Some(pty_size(size)?)
        }
    };
    let env = process_env(&envd, &context.user, &config.envs);
    let spec = SpawnSpec {
        tag: request.tag.clone(),
        pty,
        stdin_open: request.stdin.unwrap_or(true),
        user: context.user.clone(),
        cwd,
        env,
        config,
    };
    let (process, subscription) = spawn::spawn(&envd, spec)?;
    tracing::debug!(pid = process.pid, cmd = %process.config.cmd, "process started");
    // E2B bounds a started process's life by the call's deadline.
    stream_events(
        &process,
        subscription,
        &context,
        true,
        envd.config.strict.is_some(),
        |event| StartResponse { event: Some(event) },
        &out,
    )
    .await
}

fn pty_size(size: pty::Size) -> Result<(u16, u16), ConnectError> {
    let cols = u16::try_from(size.cols).ok().filter(|c| *c > 0);
    let rows = u16::try_from(size.rows).ok().filter(|r| *r > 0);
    match (cols, rows) {
        (Some(cols), Some(rows)) => Ok((cols, rows)),
        _ => Err(ConnectError::invalid_argument(format!(
            "pty size {}x{} is out of range (1..=65535 each)",
            size.cols, size.rows
        ))),
    }
}

fn start_event(pid: u32) -> ProcessEvent {
    ProcessEvent { event: Some(process_event::Event::Start(process_event::StartEvent { pid })) }
}

fn keepalive_event() -> ProcessEvent {
    ProcessEvent { event: Some(process_event::Event::Keepalive(process_event::KeepAlive {})) }
}

/// How long a deadline's reply waits for the killed process to be reaped.
const REAP_AFTER_DEADLINE: std::time::Duration = std::time::Duration::from_secs(2);

/// Streams `start`, live output, keepalives while idle, and `end`.
async fn stream_events<M: dsh_proto::connect::WireMessage>(
    process: &ManagedProcess,
    mut subscription: Subscription,
    context: &CallContext,
    kill_at_deadline: bool,
    strict: bool,
    wrap: impl Fn(ProcessEvent) -> M,
    out: &StreamWriter<M>,
) -> Result<(), ConnectError> {
    let deadline = context.timeout.map(|t| Instant::now() + t);
    out.send(&wrap(start_event(process.pid))).await?;
    loop {
        let idle = tokio::time::sleep(context.keepalive);
        let deadline_passed = async {
            match deadline {
                Some(at) => tokio::time::sleep_until(at).await,
                None => std::future::pending().await,
            }
        };
        tokio::select! {
            event = subscription.recv() => match event {
                Some(event) => {
                    let is_end = matches!(event.event, Some(process_event::Event::End(_)));
                    out.send(&wrap(event)).await?;
                    if is_end {
                        return Ok(());
                    }
                }
                None => return Ok(()),
            },
            () = idle => out.send(&wrap(keepalive_event())).await?,
            () = deadline_passed => {
                if kill_at_deadline && strict {
                    // start.go: the timeout is `exec.CommandContext`'s context, whose
                    // `Cancel` kills the pid alone; `outCtx` derives from it.
                    process.cut_output();
                    let _ = spawn::signal_process(process.pid, libc::SIGKILL);
                } else if kill_at_deadline {
                    spawn::signal_group(process.pid, libc::SIGKILL);
                }
                if kill_at_deadline {
                    // Answer once the process is reaped, so a List right after this reply
                    // no longer shows it. Bounded: a grandchild that left the group may
                    // hold the output pipes open.
                    let reaped = async {
                        while let Some(event) = subscription.recv().await {
                            if matches!(event.event, Some(process_event::Event::End(_))) {
                                break;
                            }
                        }
                    };
                    let _ = tokio::time::timeout(REAP_AFTER_DEADLINE, reaped).await;
                }
                return Err(ConnectError::new(Code::DeadlineExceeded, "the call's deadline passed"));
            }
        }
    }
}

async fn connect(
    envd: Arc<Envd>,
    request: ConnectRequest,
    context: CallContext,
    out: StreamWriter<ConnectResponse>,
) -> Result<(), ConnectError> {
    let selector = request
        .process
        .ok_or_else(|| ConnectError::invalid_argument("process selector is required"))?;
    let wrap = |event| ConnectResponse { event: Some(event) };
    match envd.processes.find(&selector)? {
        Lookup::Exited { pid, end } => send_retained_exit(pid, end, &out).await,
        Lookup::Running(process) => match process.subscribe() {
            Ok(subscription) => {
                stream_events(&process, subscription, &context, false, false, wrap, &out).await
            }
            Err(end) => send_retained_exit(process.pid, end, &out).await,
        },
    }
}

/// A late `Connect` to a process that already ended gets its start and end.
async fn send_retained_exit(
    pid: u32,
    end: process_event::EndEvent,
    out: &StreamWriter<ConnectResponse>,
) -> Result<(), ConnectError> {
    out.send(&ConnectResponse { event: Some(start_event(pid)) }).await?;
    let end = ProcessEvent { event: Some(process_event::Event::End(end)) };
    out.send(&ConnectResponse { event: Some(end) }).await?;
    Ok(())
}

async fn update(
    envd: Arc<Envd>,
    request: UpdateRequest,
    _: CallContext,
) -> Result<UpdateResponse, ConnectError> {
    let selector = request
        .process
        .ok_or_else(|| ConnectError::invalid_argument("process selector is required"))?;
    let process = envd.processes.running(&selector)?;
    if let Some(pty) = request.pty {
        let size =
            pty.size.ok_or_else(|| ConnectError::invalid_argument("pty size is required"))?;
        let (cols, rows) = pty_size(size)?;
        process.resize(cols, rows)?;
    }
    Ok(UpdateResponse {})
}

async fn write_input(
    process: &ManagedProcess,
    input: Option<ProcessInput>,
) -> Result<(), ConnectError> {
    match input.and_then(|i| i.input) {
        Some(process_input::Input::Stdin(data)) => process.write_stdin(&data).await,
        Some(process_input::Input::Pty(data)) => process.write_pty(&data).await,
        None => Err(ConnectError::invalid_argument("input is empty: give stdin or pty bytes")),
    }
}

async fn send_input(
    envd: Arc<Envd>,
    request: SendInputRequest,
    _: CallContext,
) -> Result<SendInputResponse, ConnectError> {
    let selector = request
        .process
        .ok_or_else(|| ConnectError::invalid_argument("process selector is required"))?;
    let process = envd.processes.running(&selector)?;
    write_input(&process, request.input).await?;
    Ok(SendInputResponse {})
}

async fn stream_input(
    envd: Arc<Envd>,
    mut requests: RequestStream<StreamInputRequest>,
    _: CallContext,
) -> Result<StreamInputResponse, ConnectError> {
    let process = match requests.next().await {
        None => {
            return Err(ConnectError::invalid_argument("stream ended before its start message"));
        }
        Some(first) => match first?.event {
            Some(stream_input_request::Event::Start(start)) => {
                let selector = start.process.ok_or_else(|| {
                    ConnectError::invalid_argument("process selector is required")
                })?;
                envd.processes.running(&selector)?
            }
            _ => {
                return Err(ConnectError::invalid_argument(
                    "the first message must be start{process}",
                ));
            }
        },
    };
    while let Some(message) = requests.next().await {
        match message?.event {
            Some(stream_input_request::Event::Data(data)) => {
                write_input(&process, data.input).await?
            }
            Some(stream_input_request::Event::Keepalive(_)) => {}
            Some(stream_input_request::Event::Start(_)) => {
                return Err(ConnectError::invalid_argument("start may only be the first message"));
            }
            None => return Err(ConnectError::unimplemented("unknown stream input message")),
        }
    }
    Ok(StreamInputResponse {})
}

async fn send_signal(
    envd: Arc<Envd>,
    request: SendSignalRequest,
    _: CallContext,
) -> Result<SendSignalResponse, ConnectError> {
    let selector = request
        .process
        .ok_or_else(|| ConnectError::invalid_argument("process selector is required"))?;
    if let Some(version) = envd.config.strict {
        // E2B's envd: SIGTERM and SIGKILL only, to the pid; `target` is a field it does
        // not know, so it is ignored and nothing is answered about groups.
        let signal = match Signal::try_from(request.signal) {
            Ok(Signal::Sigterm) => libc::SIGTERM,
            Ok(Signal::Sigkill) => libc::SIGKILL,
            _ => {
                return Err(ConnectError::unimplemented(format!(
                    "invalid signal: {} (envd {version})",
                    request.signal
                )));
            }
        };
        let process = envd.processes.running(&selector)?;
        // handler.go `SendSignal`: `outCancel()` for TERM and KILL, then
        // `cmd.Process.Signal` (the pid alone).
        process.cut_output();
        spawn::signal_process(process.pid, signal)
            .map_err(|err| ConnectError::internal(format!("error sending signal: {err}")))?;
        return Ok(SendSignalResponse { target_pgid: 0 });
    }
    let target = SignalTarget::try_from(request.target).map_err(|_| {
        ConnectError::invalid_argument(format!("unknown signal target {}", request.target))
    })?;
    let signal = match Signal::try_from(request.signal) {
        // dsh extension: signal 0 aimed at a group is a probe that only reports the group
        // (kill(2) with 0 delivers nothing). Aimed at a pid it stays E2B's error.
        Ok(Signal::Unspecified) if target != SignalTarget::Process => 0,
        Ok(Signal::Unspecified) | Err(_) => {
            return Err(ConnectError::unimplemented(format!("invalid signal: {}", request.signal)));
        }
        // The enum values are the Linux signal numbers.
        Ok(signal) => signal as i32,
    };
    let process = envd.processes.running(&selector)?;
    let target_pgid = match target {
        SignalTarget::Process => {
            spawn::signal_process(process.pid, signal)
                .map_err(|err| ConnectError::internal(format!("error sending signal: {err}")))?;
            return Ok(SendSignalResponse { target_pgid: 0 });
        }
        SignalTarget::ProcessGroup => process.pid,
        SignalTarget::ForegroundGroup => process.foreground_group()?,
    };
    if !spawn::signal_group(target_pgid, signal) {
        return Err(ConnectError::internal(format!(
            "error sending signal to group {target_pgid}: {}",
            std::io::Error::last_os_error()
        )));
    }
    Ok(SendSignalResponse { target_pgid })
}

async fn close_stdin(
    envd: Arc<Envd>,
    request: CloseStdinRequest,
    _: CallContext,
) -> Result<CloseStdinResponse, ConnectError> {
    let selector = request
        .process
        .ok_or_else(|| ConnectError::invalid_argument("process selector is required"))?;
    envd.processes.running(&selector)?.close_stdin().await?;
    Ok(CloseStdinResponse {})
}
