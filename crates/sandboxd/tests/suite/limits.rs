//! Resource limits.

use dsh_sandboxd::Limits;

use crate::common::{Shell, base_spec, run_ok};

#[test]
fn configured_rlimits_are_applied() {
    let (_dir, mut spec) = base_spec("limits");
    spec.limits = Limits {
        max_processes: Some(123),
        max_open_files: Some(456),
        max_file_size: Some(1 << 20),
        max_memory: Some(4 << 30),
    };
    // dash reports -f in 512-byte blocks and -v in KiB
    let out = run_ok(&spec, "ulimit -n; ulimit -p; ulimit -f; ulimit -v; ulimit -H -n");
    assert_eq!(out, "456\n123\n2048\n4194304\n456\n");
}

/// Without CAP_SYS_RESOURCE (as on this machine) limits cannot exceed our own hard ones.
fn grantable(value: u64, resource: rustix::process::Resource) -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap();
    let caps = status
        .lines()
        .find_map(|l| l.strip_prefix("CapEff:"))
        .map(|hex| u64::from_str_radix(hex.trim(), 16).unwrap())
        .unwrap();
    let hard = rustix::process::getrlimit(resource).maximum;
    match hard {
        Some(hard) if caps & (1 << 24) == 0 => value.min(hard),
        _ => value,
    }
}

#[test]
fn default_limits_are_applied() {
    let (_dir, spec) = base_spec("default-limits");
    let expected = format!(
        "{}\n{}\n",
        grantable(65536, rustix::process::Resource::Nofile),
        grantable(8192, rustix::process::Resource::Nproc)
    );
    assert_eq!(run_ok(&spec, "ulimit -n; ulimit -p"), expected);
}

#[test]
fn the_file_size_limit_is_enforced() {
    let (_dir, mut spec) = base_spec("fsize");
    spec.limits.max_file_size = Some(1 << 20);
    let done = Shell::start(
        &spec,
        "head -c 2000000 /dev/zero > /tmp/big; echo status=$?; wc -c < /tmp/big",
    )
    .finish();
    // head dies of SIGXFSZ (128 + 25)
    assert_eq!(done.stdout, "status=153\n1048576\n", "{}", done.stderr);
}
