//! One persistent terminal session: the shell runs in the sandbox (behind the terminal
//! seam); the transcript, the viewport and the "is the prompt back?" decision live here.
//!
//! Readiness comes from the stream, not from guessing: the shell prints an OSC 133
//! `D;<status>` marker from `PROMPT_COMMAND` right before its prompt, so a send is over
//! when a marker newer than the send has arrived, the prompt has been printed after it,
//! and output has been quiet for a moment.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use dsh_core::{ExitStatus, Signal, Terminal, TerminalSize};
use tokio::sync::watch;

use crate::filter::{ControlFilter, Piece};
use crate::screen::Screen;
use crate::scrollback::{Caps, Scrollback, Window};
use crate::utf8::Utf8Decoder;

/// The prompt dsh's shells print; readiness checks that it follows the marker.
pub const PROMPT: &str = "$ ";

/// Why a send returned.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum WaitReason {
    /// The prompt is back: the shell reads stdin again.
    StdinRead,
    /// No output for the idle period, but no prompt either (a REPL, a pager, a prompt of
    /// the program's own).
    InferredIdle,
    /// The send's time ran out while output was still coming.
    Timeout,
    /// The shell exited.
    SessionExit,
}

#[derive(Debug, Clone, Copy)]
pub struct Readiness {
    /// Output must have been quiet this long after the prompt.
    pub quiet: Duration,
    /// With no prompt, this much silence ends a send as `inferred_idle`.
    pub idle: Duration,
}

impl Default for Readiness {
    fn default() -> Self {
        Self { quiet: Duration::from_millis(30), idle: Duration::from_secs(3) }
    }
}

/// What the output pump has seen, shared with senders.
struct View {
    screen: Screen,
    decoder: Utf8Decoder,
    filter: ControlFilter,
    scrollback: Scrollback,
    /// Markers seen so far, and the exit status the last one carried.
    markers: u64,
    last_status: Option<i32>,
    /// Characters printed since the last marker (the prompt, then what follows it).
    since_marker: String,
    last_output: Instant,
    closed: bool,
}

impl View {
    fn absorb(&mut self, bytes: &[u8]) {
        self.screen.process(bytes);
        let text = self.decoder.decode(bytes);
        let View { filter, scrollback, markers, last_status, since_marker, .. } = self;
        filter.feed(&text, |piece| {
            match &piece {
                Piece::Osc(payload) => {
                    if let Some(status) = payload.strip_prefix("133;D") {
                        *markers += 1;
                        *last_status = status.trim_start_matches(';').parse().ok();
                        since_marker.clear();
                    }
                }
                Piece::Text(text) if since_marker.len() < 256 => {
                    let room = 256 - since_marker.len();
                    let cut = text
                        .char_indices()
                        .map(|(i, _)| i)
                        .find(|i| *i >= room)
                        .unwrap_or(text.len());
                    since_marker.push_str(&text[..cut]);
                }
                Piece::Char(c) if since_marker.len() < 256 => since_marker.push(*c),
                Piece::LineFeed if since_marker.len() < 256 => since_marker.push('\n'),
                _ => {}
            }
            scrollback.apply(&piece);
        });
        self.last_output = Instant::now();
    }

    fn prompt_shown(&self) -> bool {
        self.since_marker.starts_with(PROMPT)
    }
}

/// A live session.
pub struct Session {
    pub id: String,
    pub name: Option<String>,
    terminal: Terminal,
    view: Arc<Mutex<View>>,
    /// Bumped on every output chunk and at close, so waiters wake up.
    changes: watch::Receiver<u64>,
    /// Serialises sends: one at a time per session.
    send_lock: tokio::sync::Mutex<()>,
    readiness: Readiness,
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    match mutex.lock() {
        Ok(guard) => guard,
        Err(poisoned) => poisoned.into_inner(),
    }
}

/// The result of a send.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SendOutcome {
    pub viewport: String,
    pub wait_reason: WaitReason,
    /// Text the send produced (from the transcript).
    pub output: String,
    /// `output` lost lines to the transcript caps.
    pub truncated: bool,
    /// The status the last prompt marker reported.
    pub last_status: Option<i32>,
    pub running: bool,
}

/// How long a session whose output closed waits for its shell's exit status.
const ENDED_WAIT: Duration = Duration::from_secs(2);

#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum SessionError {
    /// Another send is in progress on this session; wait for it (or read) first.
    #[error("session {0} is busy with another send")]
    Busy(String),
    /// The session's shell has exited; open a new one.
    #[error("session {0} has exited")]
    Exited(String),
    /// The session's sandbox went away under it (killed, paused, unreachable): how its
    /// shell ended is unknown. Open a new session once the sandbox is back.
    #[error(
        "session {0} was lost: its sandbox went away (killed, paused or unreachable); open a new one with terminal_open once the sandbox is back"
    )]
    Lost(String),
    /// The terminal backend failed (sandbox gone); the message says how.
    #[error("terminal error: {0}")]
    Terminal(String),
}

impl Session {
    /// Wraps a started terminal and starts pumping its output.
    pub fn start(
        id: String,
        name: Option<String>,
        terminal: Terminal,
        size: TerminalSize,
        caps: Caps,
        readiness: Readiness,
    ) -> Arc<Self> {
        let view = Arc::new(Mutex::new(View {
            screen: Screen::new(size.rows, size.cols),
            decoder: Utf8Decoder::new(),
            filter: ControlFilter::new(),
            scrollback: Scrollback::new(caps),
            markers: 0,
            last_status: None,
            since_marker: String::new(),
            last_output: Instant::now(),
            closed: false,
        }));
        let (tx, rx) = watch::channel(0u64);
        if let Some(mut output) = terminal.take_output() {
            let view = Arc::clone(&view);
            tokio::spawn(async move {
                let mut generation = 0u64;
                while let Some(chunk) = output.next().await {
                    lock(&view).absorb(&chunk);
                    generation += 1;
                    let _ = tx.send(generation);
                }
                let mut view = lock(&view);
                let tail = view.decoder.finish();
                if !tail.is_empty() {
                    let View { filter, scrollback, .. } = &mut *view;
                    filter.feed(&tail, |piece| scrollback.apply(&piece));
                }
                view.closed = true;
                drop(view);
                let _ = tx.send(generation + 1);
            });
        }
        Arc::new(Self {
            id,
            name,
            terminal,
            view,
            changes: rx,
            send_lock: tokio::sync::Mutex::new(()),
            readiness,
        })
    }

    pub fn pid(&self) -> u32 {
        self.terminal.pid()
    }

    pub fn running(&self) -> bool {
        self.terminal.try_wait().is_none() && !lock(&self.view).closed
    }

    /// Why a session that is not running ended: its shell exited, or it was lost with its
    /// sandbox. The exit status follows the closed output within moments; without it
    /// the session counts as exited.
    async fn ended(&self) -> SessionError {
        let status = tokio::time::timeout(ENDED_WAIT, self.terminal.wait()).await;
        match status {
            Ok(status) if status.reason == dsh_core::EndReason::Lost => {
                SessionError::Lost(self.id.clone())
            }
            _ => SessionError::Exited(self.id.clone()),
        }
    }

    pub fn viewport(&self) -> String {
        lock(&self.view).screen.text()
    }

    /// Waits until the first prompt (or `limit`); used right after open.
    pub async fn wait_for_prompt(&self, limit: Duration) -> bool {
        self.wait_for_prompt_after(0, limit).await
    }

    /// How many prompt markers the shell has printed so far.
    pub fn markers(&self) -> u64 {
        lock(&self.view).markers
    }

    /// Waits (up to `limit`) until the shell prints a prompt marker beyond the first
    /// `markers_before`; returns whether it did.
    pub async fn wait_for_prompt_after(&self, markers_before: u64, limit: Duration) -> bool {
        let deadline = tokio::time::Instant::now() + limit;
        let mut changes = self.changes.clone();
        loop {
            {
                let view = lock(&self.view);
                if view.markers > markers_before && view.prompt_shown() {
                    return true;
                }
                if view.closed {
                    return false;
                }
            }
            match tokio::time::timeout_at(deadline, changes.changed()).await {
                Ok(Ok(())) => {}
                Ok(Err(_)) | Err(_) => return false,
            }
        }
    }

    /// Types `text` (plus Enter when `submit`) and waits for readiness, up to `timeout`.
    pub async fn send(
        &self,
        text: &str,
        submit: bool,
        timeout: Duration,
    ) -> Result<SendOutcome, SessionError> {
        let _turn = self.send_lock.try_lock().map_err(|_| SessionError::Busy(self.id.clone()))?;
        if !self.running() {
            return Err(self.ended().await);
        }
        let (markers_before, first_line) = {
            let view = lock(&self.view);
            (view.markers, view.scrollback.total_lines().saturating_sub(1))
        };
        let mut input = text.as_bytes().to_vec();
        if submit {
            input.push(b'\r');
        }
        self.terminal.write(&input).await.map_err(|err| SessionError::Terminal(err.to_string()))?;
        let sent_at = Instant::now();
        let deadline = tokio::time::Instant::now() + timeout;
        let mut changes = self.changes.clone();
        let reason = loop {
            let (ready, idle_for, closed) = {
                let view = lock(&self.view);
                let quiet_for = view.last_output.elapsed();
                let ready = view.markers > markers_before
                    && view.prompt_shown()
                    && quiet_for >= self.readiness.quiet;
                let idle_for = view.last_output.max(sent_at).elapsed();
                (ready, idle_for, view.closed)
            };
            if ready {
                break WaitReason::StdinRead;
            }
            if closed || self.terminal.try_wait().is_some() {
                break WaitReason::SessionExit;
            }
            if idle_for >= self.readiness.idle {
                break WaitReason::InferredIdle;
            }
            // Wake on output, on the quiet/idle horizons, or at the deadline.
            let recheck = self
                .readiness
                .quiet
                .min(self.readiness.idle.saturating_sub(idle_for))
                .max(Duration::from_millis(5));
            let wake = (tokio::time::Instant::now() + recheck).min(deadline);
            match tokio::time::timeout_at(wake, changes.changed()).await {
                Ok(Ok(())) | Err(_) => {}
                Ok(Err(_)) => {
                    // The pump finished: the PTY closed.
                    break WaitReason::SessionExit;
                }
            }
            if tokio::time::Instant::now() >= deadline {
                break WaitReason::Timeout;
            }
        };
        if reason == WaitReason::SessionExit
            && let SessionError::Lost(id) = self.ended().await
        {
            // Not an exit: the send's command, the shell and the screen are gone with
            // the sandbox.
            return Err(SessionError::Lost(id));
        }
        let mut view = lock(&self.view);
        let window = view.scrollback.range(first_line, u64::MAX);
        Ok(SendOutcome {
            viewport: view.screen.text(),
            wait_reason: reason,
            output: window.text,
            truncated: window.truncated,
            last_status: view.last_status,
            running: !view.closed && self.terminal.try_wait().is_none(),
        })
    }

    /// The transcript, newest-relative.
    pub fn read(&self, offset: u64, count: u64) -> Window {
        lock(&self.view).scrollback.read_recent(offset, count)
    }

    pub async fn resize(&self, size: TerminalSize) -> Result<(), SessionError> {
        self.terminal.resize(size).await.map_err(|err| SessionError::Terminal(err.to_string()))?;
        lock(&self.view).screen.resize(size.rows, size.cols);
        Ok(())
    }

    pub async fn foreground_group(&self) -> Result<u32, SessionError> {
        self.terminal
            .foreground_group()
            .await
            .map_err(|err| SessionError::Terminal(err.to_string()))
    }

    /// Signals the foreground group; returns it.
    pub async fn signal_foreground(&self, signal: Signal) -> Result<u32, SessionError> {
        self.terminal
            .signal_foreground(signal)
            .await
            .map_err(|err| SessionError::Terminal(err.to_string()))
    }

    /// TERM (and HUP) to the session's group, grace, KILL; waits for the exit.
    pub async fn close(&self) -> ExitStatus {
        self.terminal.terminate().await
    }
}
