//! Staged threads: threads already moved into a fresh cgroup of their own, from which a
//! sandbox's init is cloned straight into its cgroup (cgroup v1).
//!
//! Moving a process into a cgroup costs the kernel an RCU grace period (the writer side
//! of `cgroup_threadgroup_rwsem`): 13 ms on this project's CI host, the largest part of a
//! cold start. On cgroup v1 a single thread may be moved into a cgroup of its own, and a
//! process it clones starts there. So a few threads are moved ahead, off the hot path,
//! each into a cgroup named `staged-<random>`, where they wait. A launch takes one: the
//! cgroup is renamed to the sandbox's and given its limits (microseconds), the thread
//! clones the init (and does nothing else: a thread it started would be the daemon's in
//! the sandbox's cgroup, where a kill of every process in it would take the daemon), and
//! ends. Where none is staged (a burst), and on cgroup v2 (where
//! `CLONE_INTO_CGROUP` would do the same), the launcher moves the init as before.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, mpsc};
use std::thread::JoinHandle;

use crate::cgroup::{CgroupError, Cgroups, Resources, SandboxCgroup};

/// Names of staged cgroups start with this (never a sandbox id, which has no `-`).
pub const PREFIX: &str = "staged-";

/// How long after a take the refill starts: a move into a cgroup waits for an RCU grace
/// period, and every other wait for one meanwhile (the launch's own, bringing its
/// loopback up) waits for it too, so it comes once the launch is done.
const REFILL_DELAY: std::time::Duration = std::time::Duration::from_millis(100);

/// A few staged threads, refilled in the background.
pub struct Staging {
    cgroups: Arc<Cgroups>,
    ready: Mutex<Vec<StagedThread>>,
    size: usize,
    refilling: AtomicBool,
    /// Set when staging failed: launches move their init from then on, said once.
    failed: AtomicBool,
}

impl std::fmt::Debug for Staging {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Staging").field("size", &self.size).finish()
    }
}

impl Staging {
    /// Staging of `size` threads over `cgroups` (v1), filled in the background. Staged
    /// cgroups a daemon that died left are removed first.
    pub fn new(cgroups: Arc<Cgroups>, size: usize) -> Arc<Staging> {
        cgroups.remove_stale(PREFIX);
        let staging = Arc::new(Staging {
            cgroups,
            ready: Mutex::new(Vec::new()),
            size,
            refilling: AtomicBool::new(false),
            failed: AtomicBool::new(false),
        });
        staging.refill();
        staging
    }

    /// A staged thread, if one is ready; a refill starts either way.
    pub fn take(self: &Arc<Self>) -> Option<StagedThread> {
        let taken = self.lock().pop();
        self.refill();
        taken
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<StagedThread>> {
        self.ready.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn refill(self: &Arc<Self>) {
        if self.failed.load(Ordering::SeqCst) || self.refilling.swap(true, Ordering::SeqCst) {
            return;
        }
        let staging = Arc::clone(self);
        let spawned = std::thread::Builder::new().name("dsh-staging".into()).spawn(move || {
            std::thread::sleep(REFILL_DELAY);
            while staging.lock().len() < staging.size {
                match staging.stage_one() {
                    Ok(thread) => staging.lock().push(thread),
                    Err(e) => {
                        tracing::warn!(error = %e, "staging a launch thread in a cgroup of its own failed; launches move their init instead");
                        staging.failed.store(true, Ordering::SeqCst);
                        break;
                    }
                }
            }
            staging.refilling.store(false, Ordering::SeqCst);
        });
        if spawned.is_err() {
            self.refilling.store(false, Ordering::SeqCst);
        }
    }

    fn stage_one(&self) -> Result<StagedThread, CgroupError> {
        let name = format!("{PREFIX}{}", crate::exec::random_uuid().replace('-', ""));
        let cgroup = self.cgroups.create(&name, &Resources::default())?;
        let (jobs, received) = mpsc::channel::<Job>();
        let (moved, joined) = mpsc::channel::<Result<(), CgroupError>>();
        let target = cgroup.clone();
        let thread = std::thread::Builder::new().name("dsh-staged".into()).spawn(move || {
            let result = target.add_current_thread();
            let ok = result.is_ok();
            let _ = moved.send(result);
            if ok && let Ok(job) = received.recv() {
                job();
            }
        });
        let thread = match thread {
            Ok(thread) => thread,
            Err(e) => {
                let _ = cgroup.remove();
                return Err(CgroupError::OwnCgroup { reason: format!("no thread to stage: {e}") });
            }
        };
        let staged = StagedThread { cgroup: Some(cgroup), jobs: Some(jobs), thread: Some(thread) };
        match joined.recv() {
            Ok(Ok(())) => Ok(staged),
            Ok(Err(e)) => Err(e),
            Err(_) => Err(CgroupError::OwnCgroup { reason: "the staged thread died".into() }),
        }
    }
}

type Job = Box<dyn FnOnce() + Send>;

/// A thread waiting in a cgroup of its own (see the module's documentation). Dropped
/// unused, it ends and its cgroup is removed.
pub struct StagedThread {
    cgroup: Option<SandboxCgroup>,
    jobs: Option<mpsc::Sender<Job>>,
    thread: Option<JoinHandle<()>>,
}

impl StagedThread {
    /// Renames the thread's cgroup to `name` with `resources` and hands it over: from now
    /// on it is the caller's (dropping this no longer removes it).
    pub fn take_cgroup(
        &mut self,
        name: &str,
        resources: &Resources,
    ) -> Result<SandboxCgroup, CgroupError> {
        let staged = self.cgroup.as_ref().ok_or_else(|| CgroupError::OwnCgroup {
            reason: "a staged thread's cgroup taken twice".into(),
        })?;
        let cgroup = staged.rename_with(name, resources)?;
        self.cgroup = None;
        Ok(cgroup)
    }

    /// Runs `job` on the thread, which then ends; `None` if the thread died. Only what
    /// `job` clones should start in the thread's cgroup: a thread it spawned would put
    /// the daemon itself among the sandbox's processes.
    pub fn run<T: Send + 'static>(mut self, job: impl FnOnce() -> T + Send + 'static) -> Option<T> {
        let (sender, result) = mpsc::channel();
        let job: Job = Box::new(move || {
            let _ = sender.send(job());
        });
        let sent = self.jobs.take().is_some_and(|jobs| jobs.send(job).is_ok());
        let outcome = if sent { result.recv().ok() } else { None };
        self.end();
        outcome
    }

    /// Ends the thread (it leaves its cgroup as it exits).
    fn end(&mut self) {
        drop(self.jobs.take());
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

impl Drop for StagedThread {
    fn drop(&mut self) {
        self.end();
        if let Some(cgroup) = self.cgroup.take()
            && let Err(e) = cgroup.remove()
        {
            tracing::warn!(error = %e, "removing a staged cgroup");
        }
    }
}
