//! Contract suites for the three seams, written once and run against every backend.
//!
//! A backend's tests describe the backend as a [`BackendUnderTest`] (its seams, a scratch
//! directory on it, and each documented [`Deviation`] from the host backend) and expand
//! [`backend_contract!`](crate::backend_contract) once per backend: one `#[tokio::test]`
//! per contract function, named `<backend>::<seam>_contract::<test>`. The host backend's
//! run is in this crate's `tests/`, the e2b backend's (over a real envd, and over a real
//! local sandbox) in dsh-e2b's.
//!
//! Every contract function asserts exact values; where a backend deviates, the contract
//! asserts what that backend does instead (exactly, unless the deviation is a race).
//! Waits are events (output, exit) or polls of a condition with a deadline, never sleeps.
//!
//! Enabled by the `testkit` feature: it is test code (its failures are panics) and no
//! engine links it.

// A failed step here is a failed test: unwrapping is how the contract says so.
#![allow(clippy::unwrap_used, clippy::expect_used)]

pub mod fs_contract;
pub mod process_contract;
pub mod terminal_contract;

use std::any::Any;
use std::collections::BTreeMap;
use std::future::Future;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use bytes::Bytes;

use crate::host::{Host, HostProcess};
use crate::{BoxFuture, Fs, OutputMode, SpawnSpec, StdinMode, Subprocess, Terminals};

/// How long a change the kernel makes asynchronously (a process exec'ing, a group dying)
/// may take to become visible before a contract calls it missing.
pub const SETTLE: Duration = Duration::from_secs(5);

/// A way a backend departs from the host backend. A contract that meets one asserts what
/// such a backend does instead, exactly where it can, so every difference is named,
/// documented and checked rather than skipped.
///
/// The first group are deliberate (envd behaves as E2B's envd does; the e2b backend
/// chose lexical paths); the second are defects, each to be fixed in its backend and then
/// deleted here and from that backend's list.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Deviation {
    /// [`Fs::resolve`] normalises lexically and leaves symlinks alone (the e2b backend:
    /// "the sandbox resolves on use"), although the seam documents that symlinks in the
    /// existing part are resolved; two spellings of one file may resolve differently.
    LexicalResolve,
    /// A process's end is reported only once its output pipes close (envd, as E2B's), so
    /// `wait` lasts as long as a background child that holds them.
    EndWaitsForThePipes,
    /// A program that cannot be started runs as `sh`'s exec of it and exits 127 with
    /// `sh`'s message (envd, as E2B's, execs a missing program through `/bin/sh`), instead
    /// of failing the spawn with `SpawnFailed`.
    MissingProgramExits127,
    /// Writing to the stdin of a process that has ended reports `Exited` (envd no longer
    /// knows the process) where the host backend, which tracks the pipe itself, reports
    /// `StdinClosed`.
    EndedProcessStdinIsExited,

    /// Defect: a write through a symlink replaces the link with a regular file (the e2b
    /// backend renames its temporary file onto the path itself); the target keeps its old
    /// content.
    WriteReplacesSymlinks,
    /// Defect: `CreateIfAbsent` checks and creates in two steps (the e2b backend stats,
    /// then uploads and renames), so concurrent creators can all succeed.
    CreateIfAbsentRaces,
}

/// A backend as the contract suites see it.
pub struct BackendUnderTest {
    /// Names the backend in assertion messages.
    pub name: &'static str,
    pub fs: Arc<dyn Fs>,
    pub subprocess: Arc<dyn Subprocess>,
    pub terminals: Arc<dyn Terminals>,
    /// A writable, empty scratch directory on the backend, spelled canonically (no
    /// symlink in it), so paths the backend reports back compare equal to paths built
    /// from it.
    pub root: PathBuf,
    /// Whether the backend's pids are this host's pids (the host backend, an envd on this
    /// host). When not (a sandbox with its own pid namespace), the contract reads the
    /// process table through the backend's own `Subprocess`.
    pub same_process_namespace: bool,
    /// Whether `root` is the same directory on this host's filesystem. When it is, the
    /// contract changes and inspects files behind the `Fs` seam's back with `std::fs`
    /// directly (an out-of-band change then lands within microseconds of the read before
    /// it); otherwise through a command run by the backend.
    pub root_on_host: bool,
    /// How this backend departs from the host backend's behaviour; empty for the host.
    pub deviations: Vec<Deviation>,
    keep: Vec<Box<dyn Any + Send>>,
    finish: Option<BoxFuture<'static, ()>>,
}

impl std::fmt::Debug for BackendUnderTest {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BackendUnderTest")
            .field("name", &self.name)
            .field("root", &self.root)
            .finish_non_exhaustive()
    }
}

impl BackendUnderTest {
    /// A backend whose seams behave as the host backend's do (no deviation, same pid
    /// namespace, `root` on this host); set the fields that differ after this.
    pub fn new(
        name: &'static str,
        fs: Arc<dyn Fs>,
        subprocess: Arc<dyn Subprocess>,
        terminals: Arc<dyn Terminals>,
        root: impl Into<PathBuf>,
    ) -> Self {
        Self {
            name,
            fs,
            subprocess,
            terminals,
            root: root.into(),
            same_process_namespace: true,
            root_on_host: true,
            deviations: Vec::new(),
            keep: Vec::new(),
            finish: None,
        }
    }

    /// The host backend over a fresh temporary directory.
    pub fn host() -> Self {
        let dir = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(dir.path()).unwrap();
        let host = Arc::new(Host::new());
        Self::new("host", host.clone(), host.clone(), host, root).keep(dir)
    }

    /// Keeps `guard` (a temporary directory, a daemon) alive as long as the backend.
    pub fn keep(mut self, guard: impl Any + Send) -> Self {
        self.keep.push(Box::new(guard));
        self
    }

    /// Runs `finish` at the end of a test that passed (an orderly shutdown of what the
    /// backend needs; a failing test's process exits and takes it down anyway).
    pub fn on_finish(mut self, finish: impl Future<Output = ()> + Send + 'static) -> Self {
        self.finish = Some(Box::pin(finish));
        self
    }

    /// Ends the backend: its finish step, then the kept guards.
    pub async fn finish(mut self) {
        if let Some(finish) = self.finish.take() {
            finish.await;
        }
    }

    /// Whether this backend has `deviation`.
    pub fn deviates(&self, deviation: Deviation) -> bool {
        self.deviations.contains(&deviation)
    }

    /// `rel` inside the scratch directory.
    pub fn path(&self, rel: &str) -> PathBuf {
        self.root.join(rel)
    }

    /// The environment the contract's processes get: no shell init files, no host
    /// secrets, `HOME` the scratch directory.
    pub fn env(&self) -> BTreeMap<String, String> {
        BTreeMap::from([
            ("PATH".to_owned(), "/usr/local/bin:/usr/bin:/bin".to_owned()),
            ("HOME".to_owned(), self.root.display().to_string()),
            ("LANG".to_owned(), "C.UTF-8".to_owned()),
        ])
    }

    /// `argv` in the scratch directory, with a 30 s timeout so a broken contract ends.
    pub fn spec(&self, argv: &[&str]) -> SpawnSpec {
        let mut spec = SpawnSpec::new(argv.iter().copied(), &self.root, self.env());
        spec.timeout = Some(Duration::from_secs(30));
        spec
    }

    /// `sh -c script`, as [`Self::spec`].
    pub fn sh(&self, script: &str) -> SpawnSpec {
        self.spec(&["sh", "-c", script])
    }

    /// Runs `script` in the scratch directory (stdin `input`), asserts it succeeded and
    /// returns its stdout: the contract's way to arrange and inspect things through the
    /// backend but outside the seam under test.
    pub async fn run(&self, script: &str, input: &[u8]) -> String {
        let mut spec = self.sh(script);
        // Only a script that reads gets data: the e2b backend delivers it after the start,
        // and a script that ended by then fails the spawn.
        if !input.is_empty() {
            spec.stdin = StdinMode::Data(Bytes::copy_from_slice(input));
        }
        spec.stdout = OutputMode::Pipe;
        let process = self.subprocess.spawn(spec).await.unwrap();
        let status = process.wait().await;
        let stderr = process.stderr().snapshot().to_string_lossy();
        assert!(status.success(), "[{}] {script}: {status:?} {stderr}", self.name);
        process.stdout().snapshot().to_string_lossy()
    }

    /// Replaces the content of `path` behind the `Fs` seam's back.
    pub async fn write_behind(&self, path: &Path, content: &[u8]) {
        if self.root_on_host {
            std::fs::write(path, content).unwrap();
        } else {
            self.run(&format!("cat > '{}'", path.display()), content).await;
        }
    }

    /// The content of `path`, read behind the `Fs` seam's back.
    pub async fn read_behind(&self, path: &Path) -> String {
        if self.root_on_host {
            std::fs::read_to_string(path).unwrap()
        } else {
            self.run(&format!("cat '{}'", path.display()), b"").await
        }
    }

    /// The names in `dir` (dot files included), sorted, read behind the `Fs` seam's back.
    pub async fn names(&self, dir: &Path) -> Vec<String> {
        let mut names: Vec<String> = if self.root_on_host {
            std::fs::read_dir(dir)
                .unwrap()
                .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
                .collect()
        } else {
            let listing = self.run(&format!("ls -A1 '{}'", dir.display()), b"").await;
            listing.lines().map(str::to_owned).collect()
        };
        names.sort();
        names
    }

    /// The live processes in the backend's pid namespace.
    pub async fn processes(&self) -> Vec<HostProcess> {
        if self.same_process_namespace {
            return crate::host::live_processes();
        }
        // A process that ends while `cat` runs makes it complain: the rest still counts.
        let mut spec = self.sh("cat /proc/[0-9]*/stat 2>/dev/null; exit 0");
        spec.stdout = OutputMode::Pipe;
        let probe = self.subprocess.spawn(spec).await.unwrap();
        assert!(probe.wait().await.success());
        let table = probe.stdout().snapshot().to_string_lossy();
        table
            .lines()
            .filter_map(HostProcess::from_stat)
            .filter(|p| p.group != probe.pid())
            .collect()
    }

    /// Polls the process table until `check` holds or [`SETTLE`] passes; whether it held.
    pub async fn wait_for_processes(&self, mut check: impl FnMut(&[HostProcess]) -> bool) -> bool {
        let deadline = Instant::now() + SETTLE;
        loop {
            if check(&self.processes().await) {
                return true;
            }
            if Instant::now() >= deadline {
                return false;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }

    /// The live members of process group `pgid`.
    pub async fn group_members(&self, pgid: u32) -> Vec<u32> {
        self.processes().await.into_iter().filter(|p| p.group == pgid).map(|p| p.pid).collect()
    }

    /// Waits until group `pgid` has exactly `count` live members; whether it did.
    pub async fn group_reaches(&self, pgid: u32, count: usize) -> bool {
        self.wait_for_processes(|procs| procs.iter().filter(|p| p.group == pgid).count() == count)
            .await
    }

    /// Waits until a member of group `pgid` has exec'd `program`; whether one did.
    ///
    /// A shell makes a new job the terminal's foreground group in the forked child
    /// *before* it execs the program; a signal in that window reaches a copy of the
    /// shell, which may ignore it. Contracts that signal a job wait for the exec first.
    pub async fn group_runs(&self, pgid: u32, program: &str) -> bool {
        self.wait_for_processes(|procs| procs.iter().any(|p| p.group == pgid && p.name == program))
            .await
    }
}

/// Polls `check` until it holds or `timeout` passes; returns whether it held.
pub async fn eventually<F, Fut>(timeout: Duration, mut check: F) -> bool
where
    F: FnMut() -> Fut,
    Fut: Future<Output = bool>,
{
    let deadline = Instant::now() + timeout;
    loop {
        if check().await {
            return true;
        }
        if Instant::now() >= deadline {
            return false;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// Expands to one `#[tokio::test]` per contract function, as `mod <backend> { mod
/// <seam>_contract { fn <test>() } }`. Each test builds its own backend with the
/// expression given (evaluated inside the async test, so it may `.await`), runs the
/// contract function on it and finishes it.
///
/// ```ignore
/// dsh_core::backend_contract!(host => dsh_core::testkit::BackendUnderTest::host());
/// dsh_core::backend_contract!(envd => envd_backend().await);
/// ```
///
/// The list of contract functions lives here once; `contract_names!` lists it for the
/// test that checks every public contract function is in it.
#[macro_export]
macro_rules! backend_contract {
    ($backend:ident => $make:expr) => {
        $crate::backend_contract! { @list (tests $backend, $make) }
    };
    (@list $mode:tt) => {
        $crate::backend_contract! { @each $mode
            fs_contract [
                write_then_read_round_trips_with_versions,
                create_if_absent_refuses_an_existing_file,
                replace_if_version_refuses_a_stale_version,
                edit_refuses_a_stale_version_after_an_out_of_band_change,
                edit_distinguishes_no_match_from_several_matches,
                non_utf8_read_names_the_byte_offset,
                reads_over_the_size_cap_are_refused,
                replacing_keeps_mode_and_symlinks,
                directory_operations_and_their_typed_errors,
                paths_resolve_against_cwd_and_must_otherwise_be_absolute,
                large_write_and_read_throughput,
                concurrent_creates_have_exactly_one_winner,
                readers_never_see_a_half_written_file,
                special_files_are_not_opened,
            ]
            process_contract [
                captures_output_and_exit_code,
                runs_in_its_own_session_and_group_in_the_given_cwd,
                stdin_data_and_pipe,
                output_is_readable_from_offsets_while_running,
                a_gibibyte_of_output_is_capped_with_head_and_tail_kept,
                a_process_ignoring_sigterm_is_killed_after_the_grace,
                sigterm_ends_a_cooperative_process_without_waiting_for_the_grace,
                timeout_kills_the_whole_group,
                cancellation_kills_the_whole_group,
                dropping_the_handle_kills_the_whole_group,
                a_background_child_holding_the_pipes,
                signals_reach_the_group,
                spawn_errors_are_typed,
                null_outputs_and_uncapped_pipes,
                files_and_commands_see_the_same_files,
                round_trip_latency_of_true,
            ]
            terminal_contract [
                bytes_arrive_exactly_and_resize_is_visible,
                a_job_gets_its_own_foreground_group_and_sigint_returns_the_prompt,
                an_interactive_shell_echoes_resizes_and_interrupts_its_job,
                signals_are_confined_to_the_terminal_session,
                terminate_ends_the_shell_and_its_foreground_job,
                terminal_spawn_errors_are_typed,
                cancellation_ends_a_terminal,
            ]
        }
    };
    (@each (tests $backend:ident, $make:expr) $($seam:ident $tests:tt)*) => {
        mod $backend {
            $( $crate::backend_contract! { @seam $seam, $make, $tests } )*
        }
    };
    (@each (names) $($seam:ident [$($test:ident),* $(,)?])*) => {
        [$($(concat!(stringify!($seam), "::", stringify!($test))),*),*]
    };
    (@seam $seam:ident, $make:expr, [$($test:ident),* $(,)?]) => {
        mod $seam {
            $(
                #[tokio::test]
                async fn $test() {
                    let backend: $crate::testkit::BackendUnderTest = $make;
                    $crate::testkit::$seam::$test(&backend).await;
                    backend.finish().await;
                }
            )*
        }
    };
}

/// Every contract function [`backend_contract!`](crate::backend_contract) runs, as
/// `"<seam>::<name>"`.
#[macro_export]
macro_rules! contract_names {
    () => {
        $crate::backend_contract! { @list (names) }
    };
}
