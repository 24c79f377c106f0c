//! Template builds' progress as the status route reports it (status, logs, the reason a
//! build failed), kept in memory for the builds asked for since the start.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Instant;

use serde::Serialize;

use crate::server::files::{now_ms, rfc3339};

/// Builds whose progress is kept in memory (finished ones beyond it are forgotten; their
/// status still reads `ready` from disk).
pub(crate) const KEPT_PROGRESS: usize = 256;
/// Log entries one build keeps (a runaway step's output is cut there).
pub(crate) const MAX_LOG_ENTRIES: usize = 20_000;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    Waiting,
    Building,
    Ready,
    Error,
}

impl Status {
    /// As the status route says it.
    pub fn name(self) -> &'static str {
        match self {
            Status::Waiting => "waiting",
            Status::Building => "building",
            Status::Ready => "ready",
            Status::Error => "error",
        }
    }
}

/// One line of a build's log, as the status route answers it.
pub use dsh_proto::control::BuildLogEntry as LogEntry;

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Reason {
    pub message: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub step: Option<String>,
}

/// One build's progress, as the status route reports it.
#[derive(Debug)]
pub struct Progress {
    pub template_id: String,
    /// The tags the build gets once it is ready.
    pub tags: Vec<String>,
    pub cpu_count: Option<u64>,
    pub memory_mb: Option<u64>,
    pub runtime: Option<crate::gvisor::Runtime>,
    pub status: Status,
    pub logs: Vec<LogEntry>,
    pub reason: Option<Reason>,
    pub requested_at: Instant,
}

impl Progress {
    pub(crate) fn log(
        &mut self,
        level: &'static str,
        step: Option<&str>,
        message: impl Into<String>,
    ) {
        if self.logs.len() == MAX_LOG_ENTRIES {
            self.logs.push(LogEntry {
                timestamp: rfc3339(now_ms()),
                level: "warn".to_owned(),
                message: format!("(the log is cut here: at most {MAX_LOG_ENTRIES} entries)"),
                step: step.map(str::to_owned),
            });
        }
        if self.logs.len() > MAX_LOG_ENTRIES {
            return;
        }
        self.logs.push(LogEntry {
            timestamp: rfc3339(now_ms()),
            level: level.to_owned(),
            message: message.into(),
            step: step.map(str::to_owned),
        });
    }
}

/// Builds asked for since the daemon started.
#[derive(Default)]
pub struct Builds {
    by_id: Mutex<HashMap<String, Arc<Mutex<Progress>>>>,
}

pub(crate) fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

impl Builds {
    /// Registers a requested build (waiting for its start).
    pub fn request(&self, build_id: &str, progress: Progress) {
        let mut map = lock(&self.by_id);
        if map.len() >= KEPT_PROGRESS {
            // Forget the oldest finished one.
            let oldest = map
                .iter()
                .filter(|(_, p)| matches!(lock(p).status, Status::Ready | Status::Error))
                .min_by_key(|(_, p)| lock(p).requested_at)
                .map(|(id, _)| id.clone());
            if let Some(id) = oldest {
                map.remove(&id);
            }
        }
        map.insert(build_id.to_owned(), Arc::new(Mutex::new(progress)));
    }

    pub fn get(&self, build_id: &str) -> Option<Arc<Mutex<Progress>>> {
        lock(&self.by_id).get(build_id).cloned()
    }
}
