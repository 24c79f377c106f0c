//! Limits as the cgroup files write them (CPU quota, memory and swap, v1 and v2
//! spellings), and the values read back.

use std::path::Path;

use super::files::*;
use super::types::*;

/// `cpu_millis` as a CFS quota in µs against [`CPU_PERIOD_US`].
pub(super) fn cpu_quota_us(cpu_millis: Option<u64>) -> Result<Option<u64>> {
    let Some(millis) = cpu_millis else { return Ok(None) };
    let invalid = |reason| CgroupError::InvalidLimit { limit: "cpu_millis", value: millis, reason };
    let quota = millis
        .checked_mul(CPU_PERIOD_US / 1000)
        .ok_or_else(|| invalid("is larger than the kernel's largest CPU quota"))?;
    if quota < MIN_CPU_QUOTA_US {
        return Err(invalid("is below 10 (the kernel's smallest CPU quota is 1 ms per 100 ms)"));
    }
    if quota > MAX_CPU_QUOTA_US {
        return Err(invalid("is larger than the kernel's largest CPU quota"));
    }
    Ok(Some(quota))
}

/// v2's cpu.max line: "<quota> <period>" or "max <period>".
pub(super) fn cpu_max_v2(quota_us: Option<u64>) -> String {
    match quota_us {
        Some(quota) => format!("{quota} {CPU_PERIOD_US}"),
        None => format!("max {CPU_PERIOD_US}"),
    }
}

/// v1's spelling of a limit: bytes, or -1 for none.
pub(super) fn v1_limit(limit: Option<u64>) -> String {
    limit.map_or_else(|| "-1".into(), |n| n.to_string())
}

/// v2's (and v1 pids.max's) spelling of a limit: the number, or "max" for none.
pub(super) fn max_limit(limit: Option<u64>) -> String {
    limit.map_or_else(|| "max".into(), |n| n.to_string())
}

/// v1's memsw limit (memory + swap), or None when it cannot or need not be capped.
pub(super) fn v1_memsw_limit(resources: &Resources) -> Option<u64> {
    match (resources.memory_bytes, resources.swap_bytes) {
        (Some(memory), Some(swap)) => Some(memory.saturating_add(swap)),
        _ => None,
    }
}

pub(super) fn write_v1(
    memory: &Path,
    pids: &Path,
    cpu: &Path,
    resources: &Resources,
    quota_us: Option<u64>,
) -> Result<()> {
    let memsw = memory.join("memory.memsw.limit_in_bytes");
    // Absent when the kernel does not account swap (swapaccount=0): swap is then ignored.
    let has_memsw = memsw.exists();
    // memsw >= memory always holds in the kernel; lifting memsw first lets a reused
    // cgroup's memory limit move in either direction.
    if has_memsw {
        write(&memsw, "-1")?;
    }
    write(&memory.join("memory.limit_in_bytes"), &v1_limit(resources.memory_bytes))?;
    if has_memsw {
        write(&memsw, &v1_limit(v1_memsw_limit(resources)))?;
    }
    write(&pids.join("pids.max"), &max_limit(resources.pids))?;
    // With the quota lifted first, changing the period can never make an old quota
    // exceed what the parent allows (v1 checks quota/period against the ancestors).
    let quota = cpu.join("cpu.cfs_quota_us");
    write(&quota, "-1")?;
    write(&cpu.join("cpu.cfs_period_us"), &CPU_PERIOD_US.to_string())?;
    if let Some(quota_us) = quota_us {
        write(&quota, &quota_us.to_string())?;
    }
    Ok(())
}

pub(super) fn write_v2(dir: &Path, resources: &Resources, quota_us: Option<u64>) -> Result<()> {
    write(&dir.join("memory.max"), &max_limit(resources.memory_bytes))?;
    let swap = dir.join("memory.swap.max");
    // Absent when the kernel does not account swap: swap is then ignored.
    if swap.exists() {
        write(&swap, &max_limit(resources.swap_bytes))?;
    }
    write(&dir.join("pids.max"), &max_limit(resources.pids))?;
    write(&dir.join("cpu.max"), &cpu_max_v2(quota_us))?;
    Ok(())
}

/// The value of `key` in a flat-keyed file ("oom_kill 3" lines: memory.oom_control,
/// memory.events, cpu.stat).
pub(super) fn keyed_value(text: &str, key: &str) -> Option<u64> {
    text.lines().find_map(|line| {
        let (k, v) = line.split_once(' ')?;
        if k == key { v.trim().parse().ok() } else { None }
    })
}

/// v1 writes "no limit" as the largest page-aligned value the counter holds
/// (9223372036854771712 with 4 KiB pages).
pub(super) fn parse_v1_limit(text: &str) -> Result<Option<u64>, String> {
    let value: u64 = text.trim().parse().map_err(|_| format!("not a number: {:?}", text.trim()))?;
    // Anything within a (huge) page of i64::MAX is the unlimited value for some page size.
    Ok(if value >= (i64::MAX as u64) - (1 << 30) { None } else { Some(value) })
}

pub(super) fn parse_v2_max(text: &str) -> Result<Option<u64>, String> {
    match text.trim() {
        "max" => Ok(None),
        value => value.parse().map(Some).map_err(|_| format!("not a number or max: {value:?}")),
    }
}
