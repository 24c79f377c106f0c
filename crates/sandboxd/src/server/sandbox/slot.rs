//! One sandbox in memory: its record, its running processes and network, the
//! connections kept to its ports and its metrics; `ops` serializes what changes it.

use std::sync::Mutex;

use crate::running::Running;
use crate::server::record::Record;

/// One sandbox in memory. `ops` serializes lifecycle operations (create, pause, resume,
/// kill, timeout) on it; `inner` is held only briefly and never across an await.
pub struct Slot {
    pub id: String,
    pub ops: tokio::sync::Mutex<()>,
    pub inner: Mutex<Inner>,
}

pub struct Inner {
    pub record: Record,
    /// The running envd.
    pub envd: Option<crate::server::upstream::Port>,
    pub process: Option<Running>,
    /// Set once the sandbox is killed: the slot is out of the registry.
    pub gone: bool,
    /// A warm-pool sandbox not yet handed out (no record on disk, invisible to the API).
    pub pooled: bool,
    /// A template build's sandbox (`creating` for its whole life: invisible to the API,
    /// removed by the next start if the daemon dies; killed at shutdown).
    pub building: bool,
    /// Its private network, while it runs.
    pub network: Option<crate::server::attached::Attached>,
    /// Kept-alive connections to its ports (see `proxy::send_pooled`), dropped when it
    /// stops.
    pub idle: std::collections::HashMap<
        u16,
        Vec<crate::server::upstream::Kept<crate::server::upstream::RequestBody>>,
    >,
    /// Its metrics samples (kept while it lives; see `metrics.rs`).
    pub metrics: crate::server::series::Series,
    /// Paused with its memory: its processes are frozen in place, and this is the envd
    /// to route to again once they are thawed (`envd` is `None` meanwhile).
    pub frozen: Option<crate::server::upstream::Port>,
    /// Counts its stops (a kill, a pause that ends its processes): responses streaming
    /// from it end when it changes. A gVisor sandbox's end closes none of the daemon's
    /// connections to it (its network stack goes with it, sending nothing).
    pub stops: tokio::sync::watch::Sender<u64>,
}

impl Slot {
    pub fn new(record: Record) -> Slot {
        Slot {
            id: record.sandbox_id.clone(),
            ops: tokio::sync::Mutex::new(()),
            inner: Mutex::new(Inner {
                record,
                envd: None,
                process: None,
                gone: false,
                pooled: false,
                building: false,
                network: None,
                idle: Default::default(),
                metrics: Default::default(),
                frozen: None,
                stops: tokio::sync::watch::channel(0).0,
            }),
        }
    }

    pub fn lock(&self) -> std::sync::MutexGuard<'_, Inner> {
        self.inner.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    pub fn record(&self) -> Record {
        self.lock().record.clone()
    }
}
