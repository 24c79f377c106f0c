//! Applies a plan through the [`Syscall`] seam.

use std::io;
use std::path::Path;

use crate::plan::{Contents, Step};
use crate::syscall::{MountFlags, Syscall};
use crate::users;

/// The step that failed and why.
#[derive(Debug, thiserror::Error)]
#[error("{step}: {source}")]
pub struct StepError {
    pub step: Step,
    #[source]
    pub source: io::Error,
}

/// Runs `steps` in order and stops at the first failure.
pub fn apply(sys: &dyn Syscall, steps: &[Step]) -> Result<(), StepError> {
    for step in steps {
        run(sys, step).map_err(|source| StepError { step: step.clone(), source })?;
    }
    Ok(())
}

fn run(sys: &dyn Syscall, step: &Step) -> io::Result<()> {
    match step {
        Step::SetUmask { mask } => sys.umask(*mask),
        Step::CreateUserNamespace { ids } => sys.create_user_namespace(*ids),
        Step::Unshare { namespaces } => sys.unshare(*namespaces),
        Step::JoinNetworkNamespace { path } => sys.join_network_namespace(path),
        Step::MakeMountsPrivate => {
            sys.mount(None, Path::new("/"), None, MountFlags::REC | MountFlags::PRIVATE, None)
        }
        Step::MakeMountsSlave => {
            sys.mount(None, Path::new("/"), None, MountFlags::REC | MountFlags::SLAVE, None)
        }
        Step::MakeTreePrivate { target } => {
            sys.mount(None, target, None, MountFlags::REC | MountFlags::PRIVATE, None)
        }
        Step::BindLayers { source, target } => {
            // Recursive: the layers already mounted come along; as a slave of the
            // daemon's view, the ones it mounts later arrive too. Each layer is itself
            // a read-only overlay; the remount makes the view's own directory read-only.
            sys.mount(Some(source), target, None, MountFlags::BIND | MountFlags::REC, None)?;
            remount_read_only(sys, target, MountFlags::NOEXEC)
        }
        Step::SetHostname { name } => sys.set_hostname(name),
        Step::LoopbackUp => sys.loopback_up(),
        Step::MakeDir { path, mode, owner } => {
            make_dir(sys, path, *mode)?;
            sys.chmod(path, *mode)?;
            match owner {
                Some((uid, gid)) => sys.chown(path, *uid, *gid),
                None => Ok(()),
            }
        }
        Step::EnsureDir { path, mode, owner } => {
            if sys.is_directory(path) {
                return Ok(());
            }
            if let Err(e) = sys.mkdir(path, *mode) {
                if e.kind() != io::ErrorKind::AlreadyExists {
                    return Err(e);
                }
                sys.remove_file(path)?;
                sys.mkdir(path, *mode)?;
            }
            sys.chmod(path, *mode)?;
            match owner {
                Some((uid, gid)) => sys.chown(path, *uid, *gid),
                None => Ok(()),
            }
        }
        Step::WriteFile { path, contents, mode, replace, owner } => {
            if !replace && sys.exists(path) {
                return Ok(());
            }
            let bytes = match contents {
                Contents::Text(text) => text.clone().into_bytes(),
                Contents::RandomUuid => format!("{}\n", random_uuid()).into_bytes(),
                Contents::PasswdWithUser { host, root } => {
                    users::passwd_with_user(&read_text(sys, host, root.as_deref())?).into_bytes()
                }
                Contents::GroupWithUser { host, root } => {
                    users::group_with_user(&read_text(sys, host, root.as_deref())?).into_bytes()
                }
            };
            sys.write_file(path, &bytes, *mode)?;
            match owner {
                Some((uid, gid)) => sys.chown(path, *uid, *gid),
                None => Ok(()),
            }
        }
        Step::CreateFile { path, mode } => with_parents(sys, path, || sys.create_file(path, *mode)),
        Step::Symlink { target, link } => {
            match with_parents(sys, link, || sys.symlink(target, link)) {
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists => Ok(()),
                other => other,
            }
        }
        Step::MountTmpfs { target, mode, size, flags, owner } => {
            let mut options = format!("mode={mode:04o},size={size}");
            if let Some((uid, gid)) = owner {
                options.push_str(&format!(",uid={uid},gid={gid}"));
            }
            sys.mount(Some(Path::new("tmpfs")), target, Some("tmpfs"), *flags, Some(&options))
        }
        Step::Chdir { path } => sys.chdir(path),
        Step::MountIdmapped { source, target, from } => sys.mount_idmapped(source, target, *from),
        Step::MountOverlay { lower, upper, work, target, flags, user_xattr } => {
            let mut options = format!("lowerdir={}", lower.display());
            if let (Some(upper), Some(work)) = (upper, work) {
                options.push_str(&format!(
                    ",upperdir={},workdir={}",
                    upper.display(),
                    work.display()
                ));
            }
            if *user_xattr {
                options.push_str(",userxattr");
            }
            sys.mount(Some(Path::new("overlay")), target, Some("overlay"), *flags, Some(&options))
        }
        Step::Bind { source, target, read_only } => {
            sys.mount(Some(source), target, None, MountFlags::BIND, None)?;
            if *read_only {
                remount_read_only(sys, target, MountFlags::EMPTY)?;
            }
            Ok(())
        }
        Step::MountProc { target } => sys.mount(
            Some(Path::new("proc")),
            target,
            Some("proc"),
            MountFlags::NOSUID | MountFlags::NODEV | MountFlags::NOEXEC,
            None,
        ),
        Step::MountSysfs { target } => sys.mount(
            Some(Path::new("sysfs")),
            target,
            Some("sysfs"),
            MountFlags::RDONLY | MountFlags::NOSUID | MountFlags::NODEV | MountFlags::NOEXEC,
            None,
        ),
        Step::MountDevpts { target } => sys.mount(
            Some(Path::new("devpts")),
            target,
            Some("devpts"),
            MountFlags::NOSUID | MountFlags::NOEXEC,
            Some(crate::plan::DEVPTS_OPTIONS),
        ),
        Step::MaskDir { target } => {
            if !sys.exists(target) {
                return Ok(());
            }
            sys.mount(
                Some(Path::new("tmpfs")),
                target,
                Some("tmpfs"),
                MountFlags::RDONLY | MountFlags::NOSUID | MountFlags::NODEV | MountFlags::NOEXEC,
                Some("size=0,mode=0555"),
            )
        }
        Step::MaskFile { target, null: source } | Step::BindFile { source, target } => {
            if !sys.exists(target) {
                return Ok(());
            }
            sys.mount(Some(source), target, None, MountFlags::BIND, None)
        }
        Step::ReadOnly { target } => {
            if !sys.exists(target) {
                return Ok(());
            }
            sys.mount(Some(target), target, None, MountFlags::BIND | MountFlags::REC, None)?;
            remount_read_only(sys, target, MountFlags::NOEXEC)
        }
        Step::PivotRoot { new_root } => {
            // pivot_root(".", ".") stacks the old root on top of the new one; detaching
            // it leaves only the new root, with no put_old directory needed.
            sys.chdir(new_root)?;
            sys.pivot_root(Path::new("."), Path::new("."))?;
            sys.umount(Path::new("."), true)?;
            sys.chdir(Path::new("/"))
        }
        Step::SetRlimit { resource, limit } => sys.set_rlimit(*resource, *limit, *limit),
    }
}

/// A bind mount ignores MS_RDONLY: read-only (and nosuid, nodev, `extra`) takes a remount.
fn remount_read_only(sys: &dyn Syscall, target: &Path, extra: MountFlags) -> io::Result<()> {
    let flags = MountFlags::BIND
        | MountFlags::REMOUNT
        | MountFlags::RDONLY
        | MountFlags::NOSUID
        | MountFlags::NODEV
        | extra;
    sys.mount(None, target, None, flags, None)
}

/// The text at `path` (inside `root`, resolved there, when one is given: an image
/// without the file, or whose link leads nowhere inside it, reads as empty).
fn read_text(sys: &dyn Syscall, path: &Path, root: Option<&Path>) -> io::Result<String> {
    let bytes = match root {
        Some(root) => match sys.read_file_in(root, path) {
            Err(e) if e.kind() == io::ErrorKind::NotFound => Vec::new(),
            read => read?,
        },
        None => sys.read_file(path)?,
    };
    String::from_utf8(bytes).map_err(|_| {
        io::Error::new(io::ErrorKind::InvalidData, format!("{} is not UTF-8", path.display()))
    })
}

/// mkdir that tolerates an existing directory and creates missing parents (0755).
/// Anything else already there (in the sandbox's writable layers: a symlink it planted
/// at `/var/tmp`, say) is replaced, never followed.
fn make_dir(sys: &dyn Syscall, path: &Path, mode: u32) -> io::Result<()> {
    match with_parents(sys, path, || sys.mkdir(path, mode)) {
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {
            if sys.is_directory(path) {
                return Ok(());
            }
            sys.remove_file(path)?;
            sys.mkdir(path, mode)
        }
        other => other,
    }
}

/// Runs `op`; if it fails because the parent directory is missing, creates the parents
/// and runs it again.
fn with_parents(sys: &dyn Syscall, path: &Path, op: impl Fn() -> io::Result<()>) -> io::Result<()> {
    match op() {
        Err(e) if e.kind() == io::ErrorKind::NotFound => match path.parent() {
            Some(parent) if parent != path && !parent.as_os_str().is_empty() => {
                make_dir(sys, parent, 0o755)?;
                op()
            }
            _ => Err(e),
        },
        other => other,
    }
}

/// A random (version 4) UUID, as boot ids and E2B's volume ids are.
pub fn random_uuid() -> String {
    let mut bytes: [u8; 16] = rand::random();
    bytes[6] = (bytes[6] & 0x0f) | 0x40;
    bytes[8] = (bytes[8] & 0x3f) | 0x80;
    let hex = format!("{:032x}", u128::from_be_bytes(bytes));
    format!("{}-{}-{}-{}-{}", &hex[..8], &hex[8..12], &hex[12..16], &hex[16..20], &hex[20..])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_random_uuid_is_a_lowercase_version_4_uuid() {
        for _ in 0..64 {
            let uuid = random_uuid();
            let groups: Vec<&str> = uuid.split('-').collect();
            let lengths: Vec<usize> = groups.iter().map(|g| g.len()).collect();
            assert_eq!(lengths, [8, 4, 4, 4, 12], "{uuid}");
            assert!(
                uuid.bytes().all(|b| b == b'-' || matches!(b, b'0'..=b'9' | b'a'..=b'f')),
                "{uuid}"
            );
            assert!(groups[2].starts_with('4'), "{uuid}");
            assert!(groups[3].starts_with(['8', '9', 'a', 'b']), "{uuid}");
        }
    }
}
