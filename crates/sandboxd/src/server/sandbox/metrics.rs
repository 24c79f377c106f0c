//! Per-sandbox metrics in E2B's shape (`GET /sandboxes/{id}/metrics`): the daemon samples
//! every running sandbox's cgroup (CPU time, memory, page cache) and the size of its
//! writable layers on each tick, and keeps the samples for the sandbox's life in a
//! bounded ring. A paused sandbox runs nothing and gets no samples; a killed one's go
//! with it.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::server::Shared;
use crate::server::files::now_ms;
use crate::server::record::Phase;

/// Samples kept per sandbox: an hour at E2B's 5 s interval.
const RING: usize = 720;
/// The writable layers are walked every this many ticks (a walk costs a stat per file).
const DISK_EVERY: u32 = 6;
/// Entries one walk visits at most; beyond them the size is a lower bound.
const DISK_WALK_LIMIT: usize = 200_000;

pub use crate::server::series::Sample;

/// Samples every running sandbox each `tick`, until the daemon stops (the task is
/// aborted).
pub(crate) async fn sampler(shared: Arc<Shared>, tick: Duration) {
    let mut interval = tokio::time::interval(tick);
    interval.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        interval.tick().await;
        let running: Vec<_> = shared
            .slots()
            .into_iter()
            .filter(|slot| {
                let inner = slot.lock();
                inner.record.phase == Phase::Running && inner.process.is_some() && !inner.pooled
            })
            .collect();
        for slot in running {
            let shared = shared.clone();
            // Reading cgroup files and walking directories blocks.
            let sampled = tokio::task::spawn_blocking(move || sample(&shared, &slot)).await;
            if let Err(e) = sampled {
                tracing::warn!(error = %e, "sampling a sandbox's metrics panicked");
            }
        }
    }
}

fn sample(shared: &Shared, slot: &crate::server::slot::Slot) {
    let Some(cgroups) = &shared.cgroups else { return };
    let usage = match cgroups.open(&slot.id).usage() {
        Ok(usage) => usage,
        Err(e) => {
            tracing::debug!(sandbox = %slot.id, error = %e, "no metrics sample");
            return;
        }
    };
    let (cpu_count, started_ms, walk) = {
        let mut inner = slot.lock();
        let cpu_count = inner.record.cpu_count.unwrap_or(shared.config.defaults.cpu_count);
        let series = &mut inner.metrics;
        let walk = series.ticks.is_multiple_of(DISK_EVERY);
        series.ticks = series.ticks.wrapping_add(1);
        (cpu_count, inner.record.started_at_ms, walk)
    };
    let disk_used = walk.then(|| writable_size(&shared.store.sandbox_dir(&slot.id)));
    let now = Instant::now();
    let now_ms = now_ms();
    let mut inner = slot.lock();
    let mem_total = inner.record.memory_mb.unwrap_or(shared.config.defaults.memory_mb) << 20;
    let series = &mut inner.metrics;
    // CPU used since the previous sample; for the first, since the sandbox started.
    let (busy_usec, wall) = match series.last_cpu {
        Some((at, used)) => (usage.cpu_usage_usec.saturating_sub(used), now - at),
        None => {
            let wall = Duration::from_millis(now_ms.saturating_sub(started_ms).max(1));
            (usage.cpu_usage_usec, wall)
        }
    };
    series.last_cpu = Some((now, usage.cpu_usage_usec));
    let capacity_usec = wall.as_secs_f64() * 1e6 * cpu_count.max(1) as f64;
    let cpu_used_pct = (busy_usec as f64 / capacity_usec * 100.0).clamp(0.0, 100.0);
    if let Some(disk_used) = disk_used {
        series.disk_used = disk_used;
    }
    let sample = Sample {
        timestamp: crate::server::files::rfc3339(now_ms),
        timestamp_unix: now_ms / 1000,
        cpu_count,
        // Two decimals, as E2B reports it.
        cpu_used_pct: (cpu_used_pct * 100.0).round() / 100.0,
        mem_used: usage.memory_bytes,
        mem_total,
        mem_cache: usage.memory_cache_bytes,
        disk_used: series.disk_used,
        disk_total: shared.disk.sandbox_mb() << 20,
    };
    if series.samples.len() == RING {
        series.samples.pop_front();
    }
    series.samples.push_back(sample);
}

/// Bytes in the sandbox's writable layers (its state directory), not following links,
/// counting at most [`DISK_WALK_LIMIT`] entries.
fn writable_size(dir: &Path) -> u64 {
    let mut total = 0u64;
    let mut stack: Vec<PathBuf> = vec![dir.to_path_buf()];
    let mut seen = 0usize;
    while let Some(dir) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else { continue };
        for entry in entries.flatten() {
            seen += 1;
            if seen > DISK_WALK_LIMIT {
                return total;
            }
            let Ok(meta) = entry.metadata() else { continue };
            if meta.is_dir() {
                stack.push(entry.path());
            } else {
                // Allocated blocks, as `du` counts them (a sparse file costs what it uses).
                total += std::os::unix::fs::MetadataExt::blocks(&meta) * 512;
            }
        }
    }
    total
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::super::series::Series;
    use super::*;

    fn at(unix: u64) -> Sample {
        Sample {
            timestamp: String::new(),
            timestamp_unix: unix,
            cpu_count: 2,
            cpu_used_pct: 0.0,
            mem_used: 0,
            mem_total: 0,
            mem_cache: 0,
            disk_used: 0,
            disk_total: 0,
        }
    }

    #[test]
    fn samples_are_picked_by_an_inclusive_time_range() {
        let series = Series { samples: (10..15).map(at).collect(), ..Series::default() };
        let times = |s: Option<u64>, e: Option<u64>| -> Vec<u64> {
            series.between(s, e).iter().map(|s| s.timestamp_unix).collect()
        };
        assert_eq!(times(None, None), [10, 11, 12, 13, 14]);
        assert_eq!(times(Some(11), Some(13)), [11, 12, 13]);
        assert_eq!(times(Some(14), None), [14]);
        assert_eq!(times(None, Some(9)), Vec::<u64>::new());
    }

    #[test]
    fn the_walk_counts_allocated_bytes_of_files_below() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("a/b")).unwrap();
        std::fs::write(dir.path().join("a/b/f"), vec![1u8; 64 * 1024]).unwrap();
        std::os::unix::fs::symlink("/usr", dir.path().join("link")).unwrap();
        let size = writable_size(dir.path());
        // 64 KiB of data (filesystems allocate at least that, at most a little more).
        assert!((64 * 1024..=68 * 1024).contains(&size), "{size}");
    }
}
