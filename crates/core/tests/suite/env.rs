use std::time::Duration;

use dsh_core::host::Host;
use dsh_core::{OutputMode, SpawnSpec, Subprocess, child_env};

#[tokio::test]
async fn secrets_never_reach_a_spawned_process() {
    let parent = [
        ("PATH", "/usr/local/bin:/usr/bin:/bin"),
        ("HOME", "/tmp"),
        ("VISIBLE", "yes"),
        ("E2B_API_KEY", "e2b_secret"),
        ("github_token", "ghp_secret"),
        ("AWS_SECRET_ACCESS_KEY", "aws_secret"),
        ("DSH_ACCESS", "dsh_secret"),
        ("Some_Key_Id", "key_secret"),
    ];
    let env = child_env(parent);
    let mut spec = SpawnSpec::new(["env"], "/", env);
    spec.stdout = OutputMode::Pipe;
    spec.timeout = Some(Duration::from_secs(10));
    let process = Host::new().spawn(spec).await.unwrap();
    assert!(process.wait().await.success());
    let seen = process.stdout().snapshot().to_string_lossy();
    let mut lines: Vec<_> = seen.lines().collect();
    lines.sort_unstable();
    // Exactly the non-secret keys: nothing inherited from the test's own environment.
    assert_eq!(lines, ["HOME=/tmp", "PATH=/usr/local/bin:/usr/bin:/bin", "VISIBLE=yes"]);
    assert!(!seen.contains("secret"), "{seen}");
}
