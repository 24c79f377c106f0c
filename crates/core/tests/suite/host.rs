//! What only the host backend does; the behaviour every backend shares is the contract
//! run from `all.rs`.

use std::time::{Duration, Instant};

use dsh_core::host::live_group_members;
use dsh_core::testkit::{BackendUnderTest, SETTLE};

/// Dropping a process after its runtime is gone still ends its group: the host backend
/// kills it synchronously (an RPC backend cannot without a runtime to talk on).
#[test]
fn a_runtime_shutting_down_leaves_no_process_behind() {
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    let backend = BackendUnderTest::host();
    let (process, pgid) = runtime.block_on(async {
        let spec = backend.spec(&["bash", "--norc", "--noprofile", "-c", "sleep 100 & sleep 100"]);
        let process = backend.subprocess.spawn(spec).await.unwrap();
        let pgid = process.pid();
        assert!(backend.group_reaches(pgid, 3).await, "{:?}", live_group_members(pgid));
        (process, pgid)
    });
    // The runtime goes first: no task is left to run the TERM/grace/KILL sequence.
    drop(runtime);
    drop(process);
    // No runtime to poll on: poll the process table from this thread, with a deadline.
    let deadline = Instant::now() + SETTLE;
    while !live_group_members(pgid).is_empty() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(live_group_members(pgid).is_empty(), "{:?}", live_group_members(pgid));
}
