//! Helpers: a launcher using the crate's own init binary, and shell sandboxes whose
//! output the test reads.

use std::collections::BTreeSet;
use std::fs;
use std::io::{BufRead, BufReader, PipeReader, Read};
use std::path::{Path, PathBuf};
use std::process::ExitStatus;
use std::sync::atomic::{AtomicUsize, Ordering};

use dsh_sandboxd::{Launcher, Output, Payload, SandboxProcess, SandboxSpec, Template};
use tempfile::TempDir;

pub fn launcher() -> Launcher {
    Launcher::new(init_binary())
}

/// The sandbox init: the one cargo built, or `$DSH_SANDBOX_INIT` (scripts/test's rootless
/// step runs this suite as a user who may not reach the build directory).
pub fn init_binary() -> PathBuf {
    std::env::var_os("DSH_SANDBOX_INIT")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_BIN_EXE_dsh-sandbox-init")))
}

/// A unique name for this test process: sandbox ids and host marker files.
pub fn unique(prefix: &str) -> String {
    static NEXT: AtomicUsize = AtomicUsize::new(0);
    format!("{prefix}-{}-{}", std::process::id(), NEXT.fetch_add(1, Ordering::Relaxed))
}

/// A base-template spec whose state directory lives in a fresh temporary directory
/// (kept alive by the returned guard).
pub fn base_spec(prefix: &str) -> (TempDir, SandboxSpec) {
    let dir = tempfile::Builder::new().prefix("dsh-sandboxd-test-").tempdir().unwrap();
    let mut spec = SandboxSpec::new(unique(prefix), dir.path().join("state"), Template::base());
    if dsh_sandboxd::rootless::blocks_inside().is_some() {
        // An ordinary user's sandboxes cannot share the host's network (see plan.rs).
        spec.net = dsh_sandboxd::Net::None;
    }
    (dir, spec)
}

/// A sandboxed `/bin/sh -c script` whose stdout is a pipe to the test; stderr goes to a
/// file next to the state directory.
pub struct Shell {
    pub process: SandboxProcess,
    stdout: BufReader<PipeReader>,
    stderr_path: PathBuf,
}

pub struct Finished {
    pub status: ExitStatus,
    pub stdout: String,
    pub stderr: String,
}

impl Shell {
    pub fn start(spec: &SandboxSpec, script: &str) -> Shell {
        Shell::try_start(spec, script).unwrap()
    }

    pub fn try_start(spec: &SandboxSpec, script: &str) -> dsh_sandboxd::Result<Shell> {
        Shell::start_with(&launcher(), spec, script)
    }

    pub fn start_with(
        launcher: &Launcher,
        spec: &SandboxSpec,
        script: &str,
    ) -> dsh_sandboxd::Result<Shell> {
        let (reader, writer) = std::io::pipe().unwrap();
        let stderr_path = spec.state_dir.with_extension("stderr");
        let payload = Payload::new("/bin/sh")
            .args(["-c", script])
            .stdout(Output::Fd(writer.into()))
            .stderr(Output::File(stderr_path.clone()));
        let process = launcher.spawn(spec, payload)?;
        Ok(Shell { process, stdout: BufReader::new(reader), stderr_path })
    }

    /// The next line of stdout, without its newline.
    pub fn read_line(&mut self) -> String {
        let mut line = String::new();
        self.stdout.read_line(&mut line).unwrap();
        line.trim_end_matches('\n').to_owned()
    }

    /// Reads stdout to its end and waits for the sandbox.
    pub fn finish(mut self) -> Finished {
        let mut stdout = String::new();
        self.stdout.read_to_string(&mut stdout).unwrap();
        let status = self.process.wait().unwrap();
        let stderr = fs::read_to_string(&self.stderr_path).unwrap_or_default();
        Finished { status, stdout, stderr }
    }

    /// Host pids of every process in the sandbox (init included), from the host's /proc.
    pub fn host_pids(&self) -> BTreeSet<u32> {
        let mut pids = BTreeSet::new();
        let mut queue = vec![self.process.pid()];
        while let Some(pid) = queue.pop() {
            if !pids.insert(pid) {
                continue;
            }
            let children =
                fs::read_to_string(format!("/proc/{pid}/task/{pid}/children")).unwrap_or_default();
            queue.extend(children.split_whitespace().map(|c| c.parse::<u32>().unwrap()));
        }
        pids
    }
}

impl Drop for Shell {
    fn drop(&mut self) {
        // A failing test must not leave a sandbox behind.
        let _ = self.process.kill();
        let _ = self.process.wait();
    }
}

/// Runs `script` to completion and checks that it succeeded.
pub fn run_ok(spec: &SandboxSpec, script: &str) -> String {
    let done = Shell::start(spec, script).finish();
    assert!(
        done.status.success(),
        "script failed with {}\nstdout:\n{}\nstderr:\n{}",
        done.status,
        done.stdout,
        done.stderr
    );
    done.stdout
}

/// Mount points on the host at or under `dir`.
pub fn host_mounts_under(dir: &Path) -> Vec<PathBuf> {
    let mountinfo = fs::read_to_string("/proc/self/mountinfo").unwrap();
    dsh_sandboxd::destroy::mounts_under(&mountinfo, dir)
}
