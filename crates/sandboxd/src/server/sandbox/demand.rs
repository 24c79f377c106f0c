//! Recent creates per template, what an auto pool is sized by (see `pool.rs`), and the
//! most sandboxes one template's pool may hold on this machine.

use std::collections::{HashMap, VecDeque};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// What a pooled sandbox may cost in memory, for [`machine_cap`]: its init, envd and
/// pasta take about 35 MiB (docs/benchmarks.md), with room to spare.
const POOLED_SANDBOX_BYTES: u64 = 64 << 20;
/// The template every auto pool keeps one sandbox of.
pub(crate) const DEFAULT_TEMPLATE: &str = "base";

/// Recent creates per template: what an auto pool is sized by.
pub(crate) struct Demand {
    creates: Mutex<HashMap<String, VecDeque<Instant>>>,
    /// The most sandboxes one template's auto pool holds.
    pub(crate) cap: usize,
    /// Set while a trim runs.
    pub(crate) trimming: std::sync::atomic::AtomicBool,
}

impl Default for Demand {
    fn default() -> Self {
        Demand { creates: Mutex::default(), cap: machine_cap(), trimming: Default::default() }
    }
}

impl Demand {
    pub(crate) fn note(&self, template: &str) {
        let mut creates = self.creates.lock().unwrap_or_else(|e| e.into_inner());
        let recent = creates.entry(template.to_owned()).or_default();
        recent.push_back(Instant::now());
        // Only the count within the window matters; more than the cap adds nothing.
        while recent.len() > self.cap {
            recent.pop_front();
        }
    }

    pub(crate) fn recent(&self, template: &str, window: Duration) -> usize {
        let mut creates = self.creates.lock().unwrap_or_else(|e| e.into_inner());
        let Some(recent) = creates.get_mut(template) else { return 0 };
        while recent.front().is_some_and(|at| at.elapsed() > window) {
            recent.pop_front();
        }
        recent.len()
    }
}

/// The most sandboxes an auto pool keeps of one template on this machine: two per CPU,
/// at most 8, and their memory within 1/32 of what the host has available; at least 1.
pub fn machine_cap() -> usize {
    let cpus = std::thread::available_parallelism().map_or(1, usize::from);
    let available = std::fs::read_to_string("/proc/meminfo")
        .ok()
        .and_then(|text| {
            let line = text.lines().find(|l| l.starts_with("MemAvailable:"))?;
            line.split_whitespace().nth(1)?.parse::<u64>().ok()
        })
        .map_or(0, |kib| kib << 10);
    let by_memory = usize::try_from(available / 32 / POOLED_SANDBOX_BYTES).unwrap_or(usize::MAX);
    (2 * cpus).min(8).min(by_memory).max(1)
}
