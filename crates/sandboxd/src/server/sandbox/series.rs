//! A sandbox's metrics samples, kept in its slot (`metrics.rs` takes them).

use std::collections::VecDeque;
use std::time::Instant;

/// One sample, as E2B's `SandboxMetric`.
pub use dsh_proto::control::SandboxMetric as Sample;

/// A sandbox's samples and what the next one is computed from.
#[derive(Debug, Default)]
pub struct Series {
    pub(crate) samples: VecDeque<Sample>,
    /// CPU time used and when, at the previous sample.
    pub(crate) last_cpu: Option<(Instant, u64)>,
    pub(crate) disk_used: u64,
    pub(crate) ticks: u32,
}

impl Series {
    /// Samples whose time is within `[start, end]` (unix seconds, either open).
    pub fn between(&self, start: Option<u64>, end: Option<u64>) -> Vec<Sample> {
        self.samples
            .iter()
            .filter(|s| start.is_none_or(|start| s.timestamp_unix >= start))
            .filter(|s| end.is_none_or(|end| s.timestamp_unix <= end))
            .cloned()
            .collect()
    }

    /// Forgets the CPU baseline (the sandbox stopped: its cgroup starts from zero).
    pub fn stopped(&mut self) {
        self.last_cpu = None;
    }
}
