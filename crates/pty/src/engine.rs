//! The session registry: ids `pty-N`, one owner (agent) per session, rollback of a
//! failed open, and closing everything an owner had when it goes away.

use std::collections::{BTreeMap, HashMap};
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use dsh_core::{ExitStatus, Signal, TerminalSize, TerminalSpec, Terminals};

use crate::scrollback::{Caps, Window};
use crate::session::{PROMPT, Readiness, SendOutcome, Session, SessionError};

#[derive(Debug, Clone)]
pub struct EngineConfig {
    /// The shell and its flags; it must be bash-compatible (PROMPT_COMMAND, PS1).
    pub shell: Vec<String>,
    /// The shell's environment (already stripped of secrets by the caller).
    pub env: BTreeMap<String, String>,
    /// Where sessions start unless `open` names a directory.
    pub cwd: PathBuf,
    pub size: TerminalSize,
    pub caps: Caps,
    pub readiness: Readiness,
    /// How long `open` waits for the first prompt.
    pub open_timeout: Duration,
}

impl EngineConfig {
    pub fn new(cwd: impl Into<PathBuf>, env: BTreeMap<String, String>) -> Self {
        Self {
            shell: vec!["/bin/bash".into(), "--noprofile".into(), "--norc".into(), "-i".into()],
            env,
            cwd: cwd.into(),
            size: TerminalSize { rows: 24, cols: 80 },
            caps: Caps::default(),
            readiness: Readiness::default(),
            open_timeout: Duration::from_secs(5),
        }
    }

    /// The shell's environment: the caller's, plus the prompt and its marker.
    fn shell_env(&self) -> BTreeMap<String, String> {
        let mut env = self.env.clone();
        env.insert("PS1".into(), PROMPT.into());
        env.insert("PS2".into(), "> ".into());
        env.insert("PROMPT_COMMAND".into(), r#"printf '\033]133;D;%s\007' "$?""#.into());
        env.entry("TERM".into()).or_insert_with(|| "xterm-256color".into());
        env.entry("LANG".into()).or_insert_with(|| "C.UTF-8".into());
        env.entry("LC_ALL".into()).or_insert_with(|| "C.UTF-8".into());
        env.insert("HISTFILE".into(), "/dev/null".into());
        env
    }
}

#[derive(Debug, thiserror::Error)]
pub enum EngineError {
    /// No session with this id belongs to the caller (it may belong to another agent,
    /// which is not revealed). List your sessions with `terminal_list`.
    #[error("no terminal session {0} for this agent")]
    UnknownSession(String),
    /// The shell could not start, or exited before its first prompt; nothing was left running.
    #[error("terminal failed to open: {0}")]
    OpenFailed(String),
    /// SIGKILL aimed at the shell itself; close the session instead.
    #[error("SIGKILL would kill the session's shell itself: use terminal_close")]
    ShellKillRefused,
    #[error(transparent)]
    Session(#[from] SessionError),
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Opened {
    pub session_id: String,
    pub running: bool,
    /// The first screen.
    pub motd: String,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SessionInfo {
    pub session_id: String,
    pub name: Option<String>,
    pub running: bool,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Signalled {
    pub delivered: bool,
    pub target_pgid: u32,
    /// Whether the shell's prompt came back within a short wait after the signal (the
    /// job ended); `false` when the job is still running, or the shell itself was signalled.
    pub prompt_returned: bool,
}

/// How long `signal` waits for the prompt to come back after signalling a job.
const SIGNAL_SETTLE: Duration = Duration::from_millis(1000);

struct Entry {
    owner: String,
    session: Arc<Session>,
}

pub struct TerminalEngine {
    terminals: Arc<dyn Terminals>,
    config: EngineConfig,
    sessions: Mutex<HashMap<String, Entry>>,
    next_id: AtomicU64,
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    match mutex.lock() {
        Ok(guard) => guard,
        Err(poisoned) => poisoned.into_inner(),
    }
}

/// Disposing the runtime closes every session (each awaited).
impl dsh_core::Engine for TerminalEngine {
    fn name(&self) -> &str {
        "terminals"
    }
    fn dispose(&self) -> dsh_core::BoxFuture<'_, ()> {
        Box::pin(async move {
            TerminalEngine::dispose(self).await;
        })
    }
}

impl TerminalEngine {
    pub fn new(terminals: Arc<dyn Terminals>, config: EngineConfig) -> Self {
        Self { terminals, config, sessions: Mutex::new(HashMap::new()), next_id: AtomicU64::new(1) }
    }

    pub async fn open(
        &self,
        owner: &str,
        name: Option<String>,
        cwd: Option<PathBuf>,
    ) -> Result<Opened, EngineError> {
        let spec = TerminalSpec::new(
            self.config.shell.clone(),
            cwd.unwrap_or_else(|| self.config.cwd.clone()),
            self.config.shell_env(),
            self.config.size,
        );
        let terminal = self
            .terminals
            .spawn_terminal(spec)
            .await
            .map_err(|err| EngineError::OpenFailed(err.to_string()))?;
        let id = format!("pty-{}", self.next_id.fetch_add(1, Ordering::Relaxed));
        let session = Session::start(
            id.clone(),
            name,
            terminal,
            self.config.size,
            self.config.caps,
            self.config.readiness,
        );
        let prompted = session.wait_for_prompt(self.config.open_timeout).await;
        if !prompted && !session.running() {
            // Roll back: nothing of a failed open stays behind.
            let status = session.close().await;
            return Err(EngineError::OpenFailed(format!(
                "the shell exited before its first prompt ({}): {}",
                describe_exit(&status),
                session.viewport()
            )));
        }
        let opened =
            Opened { session_id: id.clone(), running: session.running(), motd: session.viewport() };
        lock(&self.sessions).insert(id, Entry { owner: owner.to_owned(), session });
        Ok(opened)
    }

    fn session(&self, owner: &str, id: &str) -> Result<Arc<Session>, EngineError> {
        match lock(&self.sessions).get(id) {
            Some(entry) if entry.owner == owner => Ok(Arc::clone(&entry.session)),
            _ => Err(EngineError::UnknownSession(id.to_owned())),
        }
    }

    pub async fn send(
        &self,
        owner: &str,
        id: &str,
        text: &str,
        submit: bool,
        timeout: Duration,
    ) -> Result<SendOutcome, EngineError> {
        Ok(self.session(owner, id)?.send(text, submit, timeout).await?)
    }

    pub fn read(
        &self,
        owner: &str,
        id: &str,
        offset: u64,
        count: u64,
    ) -> Result<Window, EngineError> {
        Ok(self.session(owner, id)?.read(offset, count))
    }

    pub async fn resize(
        &self,
        owner: &str,
        id: &str,
        size: TerminalSize,
    ) -> Result<(), EngineError> {
        Ok(self.session(owner, id)?.resize(size).await?)
    }

    /// Signals the session's foreground process group.
    pub async fn signal(
        &self,
        owner: &str,
        id: &str,
        signal: Signal,
    ) -> Result<Signalled, EngineError> {
        let session = self.session(owner, id)?;
        let foreground = session.foreground_group().await?;
        if signal == Signal::Kill && foreground == session.pid() {
            return Err(EngineError::ShellKillRefused);
        }
        let markers_before = session.markers();
        let target_pgid = session.signal_foreground(signal).await?;
        // A job that dies of the signal hands the terminal back to the shell, which then
        // prints its prompt. Waiting for that here keeps the prompt out of the next
        // `send`, which would otherwise take it for the end of its own command.
        let prompt_returned = target_pgid != session.pid()
            && session.wait_for_prompt_after(markers_before, SIGNAL_SETTLE).await;
        Ok(Signalled { delivered: true, target_pgid, prompt_returned })
    }

    /// Closes a session: TERM to its group, grace, KILL, then its exit.
    pub async fn close(&self, owner: &str, id: &str) -> Result<ExitStatus, EngineError> {
        let session = self.session(owner, id)?;
        lock(&self.sessions).remove(id);
        Ok(session.close().await)
    }

    /// The caller's sessions only.
    pub fn list(&self, owner: &str) -> Vec<SessionInfo> {
        let mut sessions: Vec<SessionInfo> = lock(&self.sessions)
            .values()
            .filter(|entry| entry.owner == owner)
            .map(|entry| SessionInfo {
                session_id: entry.session.id.clone(),
                name: entry.session.name.clone(),
                running: entry.session.running(),
            })
            .collect();
        sessions.sort_by_key(|s| {
            s.session_id.trim_start_matches("pty-").parse::<u64>().unwrap_or(u64::MAX)
        });
        sessions
    }

    /// Closes every session `owner` has (the agent went away).
    pub async fn close_owner(&self, owner: &str) -> Vec<(String, ExitStatus)> {
        let sessions: Vec<Arc<Session>> = {
            let mut map = lock(&self.sessions);
            let ids: Vec<String> =
                map.iter().filter(|(_, e)| e.owner == owner).map(|(id, _)| id.clone()).collect();
            ids.into_iter().filter_map(|id| map.remove(&id)).map(|e| e.session).collect()
        };
        close_all(sessions).await
    }

    /// Closes every session (engine disposal); returns once all have exited.
    pub async fn dispose(&self) -> Vec<(String, ExitStatus)> {
        let sessions: Vec<Arc<Session>> =
            lock(&self.sessions).drain().map(|(_, e)| e.session).collect();
        close_all(sessions).await
    }
}

async fn close_all(sessions: Vec<Arc<Session>>) -> Vec<(String, ExitStatus)> {
    let closing = sessions.into_iter().map(|session| async move {
        let status = session.close().await;
        (session.id.clone(), status)
    });
    futures_util::future::join_all(closing).await
}

/// "exit code 0", "killed by signal 9".
pub fn describe_exit(status: &ExitStatus) -> String {
    match (status.code, status.signal) {
        (Some(code), _) => format!("exit code {code}"),
        (None, Some(signal)) => format!("killed by signal {signal}"),
        (None, None) => "unknown exit".to_owned(),
    }
}
