//! The process service: spawning commands (pipes or a PTY) as a sandbox user, fanning
//! their output out to every subscribed stream, and remembering exits for late callers.

pub(crate) mod service;
pub(crate) mod spawn;

pub use service::routes;

use std::collections::HashMap;
use std::os::fd::OwnedFd;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use dsh_proto::connect::ConnectError;
use dsh_proto::process::{ProcessConfig, ProcessEvent, process_event};
use tokio::io::AsyncWriteExt as _;
use tokio::sync::mpsc;

/// How long a finished process stays visible to `Connect` (E2B keeps 30 s).
pub const EXIT_RETENTION: Duration = Duration::from_secs(30);

/// Bounded per-subscriber queue: a slow reader applies backpressure to the process
/// rather than making envd buffer without limit.
const SUBSCRIBER_QUEUE: usize = 64;

/// Where input to a process goes.
pub(crate) enum Input {
    /// A pipe; `None` once closed (or never opened).
    Pipe(tokio::sync::Mutex<Option<tokio::process::ChildStdin>>),
    /// The PTY master's write half.
    Pty(tokio::sync::Mutex<pty_process::OwnedWritePty>),
}

/// One running process.
pub struct ManagedProcess {
    pub pid: u32,
    pub config: ProcessConfig,
    pub tag: Option<String>,
    pub(crate) input: Input,
    /// A duplicate of the PTY master, for resize and `tcgetpgrp`.
    pub(crate) pty_control: Option<OwnedFd>,
    fanout: Mutex<Fanout>,
    /// Set when the end must no longer wait for the output pipes (E2B-strict SIGTERM,
    /// SIGKILL and deadline): see [`ManagedProcess::cut_output`].
    pub(crate) output_cut: tokio::sync::watch::Sender<bool>,
}

#[derive(Default)]
struct Fanout {
    subscribers: Vec<mpsc::Sender<ProcessEvent>>,
    end: Option<process_event::EndEvent>,
}

/// A subscription: live events from the moment of subscribing, ending with `end`.
pub type Subscription = mpsc::Receiver<ProcessEvent>;

impl ManagedProcess {
    /// Stops the end from waiting for the output pipes: it is reported once the process
    /// itself is reaped, and output still in the pipes is dropped. E2B's envd does this on
    /// SIGTERM and SIGKILL (`Handler.SendSignal` calls `outCancel()`,
    /// packages/envd/internal/services/process/handler/handler.go) and when the process's
    /// timeout passes (`outCtx` derives from the `exec.CommandContext` context, same
    /// file, `New`): `Wait` waits on `outCtx.Done()`, then `cmd.Wait()` closes the pipes.
    pub(crate) fn cut_output(&self) {
        self.output_cut.send_replace(true);
    }

    pub fn is_pty(&self) -> bool {
        matches!(self.input, Input::Pty(_))
    }

    /// Subscribes to live output, or returns the end event if the process has ended.
    pub fn subscribe(&self) -> Result<Subscription, process_event::EndEvent> {
        let mut fanout = lock(&self.fanout);
        if let Some(end) = &fanout.end {
            return Err(end.clone());
        }
        let (tx, rx) = mpsc::channel(SUBSCRIBER_QUEUE);
        fanout.subscribers.push(tx);
        Ok(rx)
    }

    /// Delivers one event to every subscriber; output nobody listens to is dropped.
    async fn publish(&self, event: ProcessEvent) {
        let subscribers = lock(&self.fanout).subscribers.clone();
        if subscribers.is_empty() {
            return;
        }
        let mut any_closed = false;
        for subscriber in &subscribers {
            if subscriber.send(event.clone()).await.is_err() {
                any_closed = true;
            }
        }
        if any_closed {
            lock(&self.fanout).subscribers.retain(|s| !s.is_closed());
        }
    }

    /// Records the end and hands it to every subscriber, closing their streams.
    async fn finish(&self, end: process_event::EndEvent) {
        let subscribers = {
            let mut fanout = lock(&self.fanout);
            fanout.end = Some(end.clone());
            std::mem::take(&mut fanout.subscribers)
        };
        let event = ProcessEvent { event: Some(process_event::Event::End(end)) };
        for subscriber in subscribers {
            let _ = subscriber.send(event.clone()).await;
        }
    }

    pub async fn write_stdin(&self, data: &[u8]) -> Result<(), ConnectError> {
        match &self.input {
            Input::Pipe(pipe) => {
                let mut pipe = pipe.lock().await;
                let Some(stdin) = pipe.as_mut() else {
                    return Err(ConnectError::internal("stdin not enabled or closed"));
                };
                stdin.write_all(data).await.map_err(|err| {
                    ConnectError::internal(format!("failed to write to stdin: {err}"))
                })?;
                stdin.flush().await.map_err(|err| {
                    ConnectError::internal(format!("failed to write to stdin: {err}"))
                })
            }
            Input::Pty(_) => {
                Err(ConnectError::internal("process is a PTY: send input as pty bytes"))
            }
        }
    }

    pub async fn write_pty(&self, data: &[u8]) -> Result<(), ConnectError> {
        match &self.input {
            Input::Pty(master) => {
                let mut master = master.lock().await;
                master.write_all(data).await.map_err(|err| {
                    ConnectError::internal(format!("failed to write to pty: {err}"))
                })?;
                master
                    .flush()
                    .await
                    .map_err(|err| ConnectError::internal(format!("failed to write to pty: {err}")))
            }
            Input::Pipe(_) => {
                Err(ConnectError::internal("process has no PTY: send input as stdin bytes"))
            }
        }
    }

    pub async fn close_stdin(&self) -> Result<(), ConnectError> {
        match &self.input {
            Input::Pipe(pipe) => {
                if let Some(mut stdin) = pipe.lock().await.take() {
                    let _ = stdin.shutdown().await;
                }
                Ok(())
            }
            Input::Pty(_) => Err(ConnectError::new(
                dsh_proto::connect::Code::Unknown,
                "cannot close stdin for PTY: send EOF (0x04) instead",
            )),
        }
    }

    pub fn resize(&self, cols: u16, rows: u16) -> Result<(), ConnectError> {
        let Some(master) = &self.pty_control else {
            return Err(ConnectError::internal("process has no PTY to resize"));
        };
        let size =
            rustix::termios::Winsize { ws_row: rows, ws_col: cols, ws_xpixel: 0, ws_ypixel: 0 };
        rustix::termios::tcsetwinsize(master, size)
            .map_err(|err| ConnectError::internal(format!("failed to resize pty: {err}")))
    }

    /// The foreground process group of this process's terminal.
    pub fn foreground_group(&self) -> Result<u32, ConnectError> {
        let Some(master) = &self.pty_control else {
            return Err(ConnectError::new(
                dsh_proto::connect::Code::FailedPrecondition,
                "process has no PTY, so it has no foreground group",
            ));
        };
        rustix::termios::tcgetpgrp(master).map(|pid| pid.as_raw_nonzero().get() as u32).map_err(
            |err| ConnectError::internal(format!("failed to read the foreground group: {err}")),
        )
    }
}

/// A process that ended recently.
#[derive(Clone)]
struct Exited {
    at: Instant,
    end: process_event::EndEvent,
}

/// Every process envd started, by pid.
#[derive(Default)]
pub struct ProcessTable {
    running: Mutex<HashMap<u32, Arc<ManagedProcess>>>,
    exited: Mutex<HashMap<u32, Exited>>,
}

/// What a selector found.
pub enum Lookup {
    Running(Arc<ManagedProcess>),
    /// Ended within the retention window.
    Exited {
        pid: u32,
        end: process_event::EndEvent,
    },
}

impl ProcessTable {
    pub fn list(&self) -> Vec<Arc<ManagedProcess>> {
        let mut processes: Vec<_> = lock(&self.running).values().cloned().collect();
        processes.sort_by_key(|p| p.pid);
        processes
    }

    pub fn running(
        &self,
        selector: &dsh_proto::process::ProcessSelector,
    ) -> Result<Arc<ManagedProcess>, ConnectError> {
        match self.find(selector)? {
            Lookup::Running(process) => Ok(process),
            Lookup::Exited { pid, .. } => {
                Err(ConnectError::not_found(format!("process with pid {pid} not found")))
            }
        }
    }

    pub fn find(
        &self,
        selector: &dsh_proto::process::ProcessSelector,
    ) -> Result<Lookup, ConnectError> {
        use dsh_proto::process::process_selector::Selector;
        match &selector.selector {
            Some(Selector::Pid(pid)) => {
                if let Some(process) = lock(&self.running).get(pid) {
                    return Ok(Lookup::Running(Arc::clone(process)));
                }
                let mut exited = lock(&self.exited);
                exited.retain(|_, e| e.at.elapsed() < EXIT_RETENTION);
                match exited.get(pid) {
                    Some(e) => Ok(Lookup::Exited { pid: *pid, end: e.end.clone() }),
                    None => {
                        Err(ConnectError::not_found(format!("process with pid {pid} not found")))
                    }
                }
            }
            Some(Selector::Tag(tag)) => lock(&self.running)
                .values()
                .filter(|p| p.tag.as_deref() == Some(tag.as_str()))
                .min_by_key(|p| p.pid)
                .cloned()
                .map(Lookup::Running)
                .ok_or_else(|| {
                    ConnectError::not_found(format!("process with tag {tag} not found"))
                }),
            None => Err(ConnectError::invalid_argument(
                "process selector is empty: give a pid or a tag",
            )),
        }
    }

    /// Refuses a new process (a terminal, with `pty`) past the caps: a program that
    /// starts processes through envd without end gets a typed error instead of taking
    /// every descriptor and pid of the sandbox.
    pub fn check_room(&self, pty: bool, caps: &crate::Caps) -> Result<(), ConnectError> {
        let running = lock(&self.running);
        if running.len() >= caps.processes {
            return Err(ConnectError::new(
                dsh_proto::connect::Code::ResourceExhausted,
                format!(
                    "{} processes started through envd are running, the most it runs at once; wait for some to end or kill them",
                    running.len()
                ),
            ));
        }
        let terminals = running.values().filter(|p| p.is_pty()).count();
        if pty && terminals >= caps.terminals {
            return Err(ConnectError::new(
                dsh_proto::connect::Code::ResourceExhausted,
                format!(
                    "{terminals} terminals (PTY processes) are open, the most envd runs at once; close some first"
                ),
            ));
        }
        Ok(())
    }

    fn insert(&self, process: Arc<ManagedProcess>) {
        lock(&self.running).insert(process.pid, process);
    }

    fn retire(&self, pid: u32, end: process_event::EndEvent) {
        lock(&self.running).remove(&pid);
        let mut exited = lock(&self.exited);
        exited.retain(|_, e| e.at.elapsed() < EXIT_RETENTION);
        exited.insert(pid, Exited { at: Instant::now(), end });
    }

    /// SIGKILLs every running process group (daemon shutdown).
    pub fn kill_all(&self) {
        for process in self.list() {
            spawn::signal_group(process.pid, libc::SIGKILL);
        }
    }
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    match mutex.lock() {
        Ok(guard) => guard,
        Err(poisoned) => poisoned.into_inner(),
    }
}
