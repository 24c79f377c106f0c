//! The host's layout kept between launches while nothing under it changed.
//!
//! A template that shows host directories has them searched for private entries at every
//! launch (`HostLayout::probe`): 1,200 entries of `/etc` and `/opt` take 3-7 ms on this
//! project's CI host, a host with a large `/opt` far more, and that search was the largest
//! part of a fork's launch before the init runs. The search must stay exact (a host file
//! made private just before a launch must be masked in it), so the result is kept only
//! while an inotify instance watching every directory it read, and the parent of every
//! shown path, reported nothing. inotify's events are queued by the very system call that
//! changed the file, so a change that completed before the launch is seen by the launch's
//! check: a launch never uses a layout older than the last change before it. Any event at
//! all, a queue overflow, or an error reading the queue means a new search. Where inotify
//! is unavailable (instances used up), every launch searches, as before.

use std::ffi::CString;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use crate::layout::HostLayout;
use crate::template::Template;

/// What a change to a watched directory or one of its entries raises. Reads (atime) are
/// not among them; writes to a file's contents are not either: a file's contents do not
/// change whether it is private (its mode does: `IN_ATTRIB`).
const CHANGES: u32 = libc::IN_ATTRIB
    | libc::IN_CREATE
    | libc::IN_DELETE
    | libc::IN_MOVED_FROM
    | libc::IN_MOVED_TO
    | libc::IN_DELETE_SELF
    | libc::IN_MOVE_SELF;

/// The last host layout probed, for one list of shown paths.
#[derive(Default)]
pub struct LayoutCache {
    kept: Mutex<Option<Kept>>,
}

impl std::fmt::Debug for LayoutCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LayoutCache").finish_non_exhaustive()
    }
}

struct Kept {
    paths: Vec<PathBuf>,
    layout: HostLayout,
    /// The inotify instance watching everything `layout` was read from.
    watch: OwnedFd,
}

impl LayoutCache {
    /// [`HostLayout::probe_template`], from the kept layout when nothing it was read from
    /// changed since.
    pub fn probe_template(&self, template: &Template) -> HostLayout {
        // An image's root is the sandbox's own: it is not searched, and costs little.
        if template.rootfs.is_some() {
            return HostLayout::probe_template(template);
        }
        let mut kept = self.kept.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(found) = kept.as_ref()
            && found.paths == template.read_only_paths
            && !changed(&found.watch)
        {
            return found.layout.clone();
        }
        let Some(watch) = new_instance() else {
            *kept = None;
            return HostLayout::probe_template(template);
        };
        // Watched before each is read: a change during the search is seen next time.
        let mut watching = true;
        for path in &template.read_only_paths {
            let parent = path.parent().unwrap_or(Path::new("/"));
            watching &= add_watch(&watch, parent);
        }
        let layout = HostLayout::probe_seeing_dirs(
            template.read_only_paths.iter().map(PathBuf::as_path),
            &mut |dir| watching &= add_watch(&watch, dir),
        );
        *kept = watching.then(|| Kept {
            paths: template.read_only_paths.clone(),
            layout: layout.clone(),
            watch,
        });
        layout
    }
}

fn new_instance() -> Option<OwnedFd> {
    // SAFETY: inotify_init1 takes flags only; a valid descriptor is owned from here.
    let fd = unsafe { libc::inotify_init1(libc::IN_NONBLOCK | libc::IN_CLOEXEC) };
    if fd < 0 {
        return None;
    }
    // SAFETY: fd was just returned by inotify_init1 and nothing else owns it.
    Some(unsafe { OwnedFd::from_raw_fd(fd) })
}

/// Watches `dir` (not following a final symlink); false when it cannot be watched (then
/// nothing probed with it may be kept). A path that is missing is not a failure: its
/// parent's watch sees it appear.
fn add_watch(watch: &OwnedFd, dir: &Path) -> bool {
    let Ok(path) = CString::new(dir.as_os_str().as_bytes()) else { return false };
    let mask = CHANGES | libc::IN_ONLYDIR | libc::IN_DONT_FOLLOW;
    // SAFETY: a valid inotify descriptor and a NUL-terminated path.
    let added = unsafe { libc::inotify_add_watch(watch.as_raw_fd(), path.as_ptr(), mask) };
    added >= 0
        || matches!(
            std::io::Error::last_os_error().raw_os_error(),
            Some(libc::ENOENT | libc::ENOTDIR)
        )
}

/// Whether anything was queued on `watch` (which is then drained: the caller replaces it).
fn changed(watch: &OwnedFd) -> bool {
    let mut buffer = [0u8; 4096];
    // SAFETY: reading into a buffer of the given length from a descriptor we own.
    let read = unsafe { libc::read(watch.as_raw_fd(), buffer.as_mut_ptr().cast(), buffer.len()) };
    !(read < 0 && std::io::Error::last_os_error().kind() == std::io::ErrorKind::WouldBlock)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use std::os::unix::fs::PermissionsExt;

    use super::*;
    use crate::layout::Private;

    fn template_of(paths: &[&Path]) -> Template {
        let mut template = Template::base();
        template.read_only_paths = paths.iter().map(|path| path.to_path_buf()).collect();
        template
    }

    fn private_paths(layout: &HostLayout) -> Vec<PathBuf> {
        layout.private().iter().map(|Private { path, .. }| path.clone()).collect()
    }

    #[test]
    fn a_change_anywhere_in_a_searched_tree_is_seen_by_the_next_probe() {
        let dir = tempfile::tempdir().unwrap();
        let shown = dir.path().join("etc");
        let deep = shown.join("a/b");
        std::fs::create_dir_all(&deep).unwrap();
        let key = deep.join("key");
        std::fs::write(&key, "secret").unwrap();
        std::fs::set_permissions(&key, std::fs::Permissions::from_mode(0o644)).unwrap();
        let cache = LayoutCache::default();
        let template = template_of(&[&shown]);

        assert_eq!(private_paths(&cache.probe_template(&template)), Vec::<PathBuf>::new());
        // Made private just before the next launch: that launch masks it.
        std::fs::set_permissions(&key, std::fs::Permissions::from_mode(0o600)).unwrap();
        assert_eq!(private_paths(&cache.probe_template(&template)), std::slice::from_ref(&key));
        // Unchanged: the kept layout, still with it.
        assert_eq!(private_paths(&cache.probe_template(&template)), std::slice::from_ref(&key));
        // A new private file in a new directory, made in two steps.
        let newer = shown.join("c");
        std::fs::create_dir(&newer).unwrap();
        assert_eq!(private_paths(&cache.probe_template(&template)), std::slice::from_ref(&key));
        let other = newer.join("other");
        std::fs::write(&other, "").unwrap();
        std::fs::set_permissions(&other, std::fs::Permissions::from_mode(0o640)).unwrap();
        assert_eq!(private_paths(&cache.probe_template(&template)), [key.clone(), other]);
        // A shown path replaced by a symlink is seen through its parent's watch.
        std::fs::remove_dir_all(&shown).unwrap();
        std::os::unix::fs::symlink("elsewhere", &shown).unwrap();
        let layout = cache.probe_template(&template);
        assert_eq!(
            layout.get(&shown),
            &crate::layout::HostEntry::Symlink { target: "elsewhere".into() }
        );
        assert_eq!(private_paths(&layout), Vec::<PathBuf>::new());
    }

    #[test]
    fn another_list_of_paths_is_probed_afresh() {
        let dir = tempfile::tempdir().unwrap();
        let (one, two) = (dir.path().join("one"), dir.path().join("two"));
        std::fs::create_dir(&one).unwrap();
        std::fs::create_dir(&two).unwrap();
        std::fs::write(two.join("key"), "").unwrap();
        std::fs::set_permissions(two.join("key"), std::fs::Permissions::from_mode(0o600)).unwrap();
        let cache = LayoutCache::default();
        assert_eq!(
            private_paths(&cache.probe_template(&template_of(&[&one]))),
            Vec::<PathBuf>::new()
        );
        assert_eq!(private_paths(&cache.probe_template(&template_of(&[&two]))), [two.join("key")]);
    }
}
