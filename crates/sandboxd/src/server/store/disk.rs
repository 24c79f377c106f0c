//! Disk quotas: how much each sandbox may write.
//!
//! A sandbox writes its files (the overlays' writable layers, `/home`, `/root`, `/var`)
//! into its directory under `<state>/sandboxes`. With quotas on, that directory is a
//! btrfs filesystem in one sparse image file (`<state>/disk.img`, loop-mounted), and
//! each sandbox's directory is a subvolume whose referenced bytes are limited: a sandbox
//! that fills its share gets `EDQUOT` (a 507 on `/files`), the others and the host keep
//! theirs, and the image never grows past its size, so the host keeps its space.
//!
//! Why btrfs in an image: ext4 and xfs project quotas need kernel options (`QFMT_V2`,
//! `XFS_QUOTA`) that common kernels (this project's CI among them) lack, and a
//! filesystem image per sandbox costs 150-250 ms per create (mkfs, mount, umount),
//! measured. A btrfs subvolume with a qgroup limit costs two ioctls. `docs/sandboxes.md`
//! says what each host gets.
//!
//! Without `mkfs.btrfs` (package `btrfs-progs`), without privilege to mount, or with a
//! state directory that already holds sandboxes from before quotas, the daemon runs
//! without quotas and says why (in its log and in [`Disk::unlimited_reason`]).

use std::os::unix::fs::OpenOptionsExt as _;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use anyhow::{Context, bail};

use crate::btrfs;
use crate::syscall::{LinuxSyscall, MountFlags, Syscall};

/// The image file, in the daemon's state directory.
pub const IMAGE_FILE: &str = "disk.img";
/// btrfs needs about 110 MiB for itself.
const MIN_IMAGE_MB: u64 = 256;
const MKFS_TIMEOUT: Duration = Duration::from_secs(60);
/// A fork's copy without quotas (no snapshots): bounded, however much the sandbox holds.
const COPY_TIMEOUT: Duration = Duration::from_secs(600);

/// The sandboxes' disk: quota'd (btrfs image) or not (plain directory).
pub struct Disk {
    /// `<state>/sandboxes`: the image's mount point, or a plain directory.
    root: PathBuf,
    quota: Result<Quota, String>,
    /// What one sandbox may hold, in MiB (see [`Disk::sandbox_mb`]), found at open.
    sandbox_mb: u64,
    /// Set by a daemon dropped without shutting down (as a crash would leave it): its
    /// sandboxes still run on the image, so it must stay mounted.
    keep_mounted: AtomicBool,
    unmounted: AtomicBool,
}

#[derive(Debug, Clone, Copy)]
struct Quota {
    /// Each new sandbox's limit; 0: none (quotas turned off over an existing image).
    sandbox_bytes: u64,
    /// The image's size: what all sandboxes together may hold.
    image_bytes: u64,
}

impl Disk {
    /// Mounts the image at `<state>/sandboxes` (making it on first use, sized `image_mb`
    /// or half the free space of the state directory's filesystem), or finds it mounted
    /// by an earlier run. `sandbox_mb` 0 turns quotas off: no image is made, but one that
    /// exists is still mounted (its sandboxes' files are in it; new ones get no limit).
    /// Call before the sandbox records are read: they live in the image.
    pub fn open(state_dir: &Path, sandbox_mb: u64, image_mb: Option<u64>) -> Disk {
        let root = state_dir.join("sandboxes");
        let has_image = state_dir.join(IMAGE_FILE).is_file();
        let quota = if sandbox_mb == 0 && !has_image {
            Err("disk quotas are off (disk_mb = 0)".to_owned())
        } else {
            mount_image(state_dir, &root, image_mb)
                .map(|image_bytes| Quota { sandbox_bytes: sandbox_mb << 20, image_bytes })
                .map_err(|err| {
                    let reason = format!("{err:#}");
                    tracing::warn!(%reason, "sandboxes run without disk quotas");
                    reason
                })
        };
        let sandbox_mb = match &quota {
            Ok(Quota { sandbox_bytes: 0, image_bytes }) => image_bytes >> 20,
            Ok(quota) => quota.sandbox_bytes.min(quota.image_bytes) >> 20,
            // The plain directory `sandboxes/` (maybe not made yet) is on this filesystem.
            Err(_) => rustix::fs::statvfs(state_dir)
                .map_or(0, |s| s.f_blocks.saturating_mul(s.f_frsize) >> 20),
        };
        Disk {
            root,
            quota,
            sandbox_mb,
            keep_mounted: AtomicBool::new(false),
            unmounted: AtomicBool::new(false),
        }
    }

    /// Sandboxes' directories on the state directory's own filesystem, without quotas,
    /// for `reason` (said once, here).
    pub fn without_quota(state_dir: &Path, reason: &str) -> Disk {
        tracing::warn!(%reason, "sandboxes run without disk quotas");
        Disk {
            root: state_dir.join("sandboxes"),
            quota: Err(reason.to_owned()),
            sandbox_mb: rustix::fs::statvfs(state_dir)
                .map_or(0, |s| s.f_blocks.saturating_mul(s.f_frsize) >> 20),
            keep_mounted: AtomicBool::new(false),
            unmounted: AtomicBool::new(false),
        }
    }

    /// What one sandbox may hold, in MiB: its quota, or with none the size of the
    /// filesystem under the state directory.
    pub fn sandbox_mb(&self) -> u64 {
        self.sandbox_mb
    }

    /// The image's size in MiB (what every sandbox and volume together may hold); `None`
    /// without the image.
    pub fn image_mb(&self) -> Option<u64> {
        self.quota.as_ref().ok().map(|quota| quota.image_bytes >> 20)
    }

    /// Why sandboxes have no disk quota here; `None` when they have one.
    pub fn unlimited_reason(&self) -> Option<&str> {
        self.quota.as_ref().err().map(String::as_str)
    }

    /// Makes a new sandbox's directory: a subvolume limited to the sandbox's quota. A
    /// directory that exists (a sandbox resumed) is left as it is.
    pub fn make_sandbox_dir(&self, dir: &Path) -> anyhow::Result<()> {
        let Ok(quota) = &self.quota else { return Ok(()) };
        if dir.exists() {
            return Ok(());
        }
        btrfs::create_subvolume(dir)
            .with_context(|| format!("creating the subvolume {}", dir.display()))?;
        limit(dir, quota)
    }

    /// Gives the new directory `to` the files of the sandbox directory `from` (a fork, a
    /// snapshot, a sandbox from a snapshot): with quotas, a btrfs snapshot (every block
    /// shared until either side writes; the same few milliseconds whatever `from` holds)
    /// limited like a new sandbox; without, a copy (`cp -a`, reflinked where the
    /// filesystem can). What belonged to `from`'s running processes is left out.
    pub fn copy_sandbox_dir(&self, from: &Path, to: &Path) -> anyhow::Result<()> {
        self.copy_files(from, to)?;
        clear_run_state(to)
    }

    fn copy_files(&self, from: &Path, to: &Path) -> anyhow::Result<()> {
        match &self.quota {
            Ok(quota) => {
                btrfs::snapshot(from, to).with_context(|| {
                    format!("snapshotting {} as {}", from.display(), to.display())
                })?;
                limit(to, quota)
            }
            Err(_) => {
                let mut cp = std::process::Command::new("cp");
                cp.args(["-a", "--reflink=auto", "--"]).arg(from).arg(to);
                crate::command::run_checked(&mut cp, COPY_TIMEOUT)
                    .with_context(|| format!("copying {} to {}", from.display(), to.display()))
            }
        }
    }

    /// Keeps the image mounted when this is dropped (a daemon dropped without shutdown).
    pub fn keep_mounted(&self) {
        self.keep_mounted.store(true, Ordering::SeqCst);
    }

    /// Unmounts the image (at shutdown, once every sandbox is stopped).
    pub fn unmount(&self) {
        if self.quota.is_err() || self.unmounted.swap(true, Ordering::SeqCst) {
            return;
        }
        // Written through before the (lazy) unmount: a process still ending (a gVisor
        // container's gofer) may hold the filesystem a moment longer, and the next
        // daemon mounts the image afresh, seeing only what reached it.
        if let Ok(root) = std::fs::File::open(&self.root) {
            // SAFETY: syncfs(2) on a descriptor we hold.
            unsafe { libc::syncfs(std::os::fd::AsRawFd::as_raw_fd(&root)) };
        }
        if let Err(err) = LinuxSyscall::new().umount(&self.root, true) {
            tracing::warn!(root = %self.root.display(), %err, "unmounting the sandboxes' disk");
        }
    }
}

/// Puts the quota on the subvolume `dir` (none when quotas are off).
fn limit(dir: &Path, quota: &Quota) -> anyhow::Result<()> {
    if quota.sandbox_bytes == 0 {
        return Ok(());
    }
    btrfs::limit_referenced(dir, quota.sandbox_bytes)
        .with_context(|| format!("limiting {} to its quota", dir.display()))
}

/// Removes from a copy of a sandbox directory what belongs to the original's processes:
/// its init's pid file (the copy would seem to run already), envd's log and the address
/// envd announced.
fn clear_run_state(dir: &Path) -> anyhow::Result<()> {
    crate::state::StateDir::new(dir).remove_pid();
    for path in [dir.join("envd.log"), crate::server::ready_file::ready_file(dir)] {
        match std::fs::remove_file(&path) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
                return Err(e).with_context(|| format!("removing {}", path.display()));
            }
            _ => {}
        }
    }
    Ok(())
}

/// A daemon whose start failed after the image was mounted does not leave it mounted.
impl Drop for Disk {
    fn drop(&mut self) {
        if !self.keep_mounted.load(Ordering::SeqCst) {
            self.unmount();
        }
    }
}

/// Unmounts the disk image of the daemon whose state directory is `state_dir`, as its
/// shutdown would (for tests that dropped or killed a daemon, after its sandboxes died).
pub fn clean_up(state_dir: &Path) {
    let root = state_dir.join("sandboxes");
    if state_dir.join(IMAGE_FILE).is_file() && btrfs::is_btrfs(&root).unwrap_or(false) {
        let _ = LinuxSyscall::new().umount(&root, true);
    }
}

/// Mounts (making it first if needed) the image at `root`; returns its size in bytes.
fn mount_image(state_dir: &Path, root: &Path, image_mb: Option<u64>) -> anyhow::Result<u64> {
    let image = state_dir.join(IMAGE_FILE);
    if btrfs::is_btrfs(root).unwrap_or(false) {
        // Left mounted by a daemon that was killed: its sandboxes' files are in it.
        return image_size(&image, root);
    }
    if !image.exists() {
        let holds_sandboxes = std::fs::read_dir(root).is_ok_and(|mut d| d.next().is_some());
        if holds_sandboxes {
            bail!(
                "{} holds sandboxes made before disk quotas; they keep running without one",
                root.display()
            );
        }
        make_image(state_dir, &image, image_mb)?;
    }
    std::fs::create_dir_all(root).with_context(|| format!("creating {}", root.display()))?;
    let device = btrfs::attach_loop(&image)
        .with_context(|| format!("attaching {} to a loop device", image.display()))?;
    // discard: blocks freed inside are punched out of the image, given back to the host.
    LinuxSyscall::new()
        .mount(
            Some(device.path()),
            root,
            Some("btrfs"),
            MountFlags::NOSUID | MountFlags::NODEV,
            Some("discard=async"),
        )
        .with_context(|| format!("mounting {} at {}", image.display(), root.display()))?;
    let mounted = (|| {
        btrfs::enable_quota(root).context("enabling quotas")?;
        crate::server::files::set_mode(root, 0o700).context("setting the mode")?;
        image_size(&image, root)
    })();
    if mounted.is_err() {
        let _ = LinuxSyscall::new().umount(root, true);
    }
    mounted
}

/// A sparse image of `image_mb`, or of half the free space under `state_dir` (at least
/// [`MIN_IMAGE_MB`]), holding a fresh btrfs filesystem.
fn make_image(state_dir: &Path, image: &Path, image_mb: Option<u64>) -> anyhow::Result<()> {
    let mb = match image_mb {
        Some(mb) => mb,
        None => {
            let stat = rustix::fs::statvfs(state_dir).context("reading the free space")?;
            (stat.f_bavail.saturating_mul(stat.f_frsize) / 2) >> 20
        }
    }
    .max(MIN_IMAGE_MB);
    let made = (|| {
        let file = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o600)
            .open(image)
            .with_context(|| format!("creating {}", image.display()))?;
        file.set_len(mb << 20).context("sizing the image")?;
        drop(file);
        btrfs::make_filesystem(image, MKFS_TIMEOUT).context("making the filesystem")
    })();
    match &made {
        Ok(()) => {
            tracing::info!(image = %image.display(), size_mb = mb, "made the sandboxes' disk image")
        }
        Err(_) => {
            let _ = std::fs::remove_file(image);
        }
    }
    made
}

fn image_size(image: &Path, root: &Path) -> anyhow::Result<u64> {
    let len = std::fs::metadata(image).map(|m| m.len());
    len.with_context(|| {
        format!("reading the size of {} (mounted at {})", image.display(), root.display())
    })
}
