#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use super::*;
use crate::exec::{self, StepError};
use crate::spec::{IdRange, Isolation, Limits};
use crate::syscall::{Call, RecordingSyscall};
use crate::template::Template;

const PROGRAM: &str = "/work/target/debug/dsh-envd";

fn dir_entry(mode: u32) -> HostEntry {
    HostEntry::Dir { mode, uid: 0, gid: 0 }
}

fn link(target: &str) -> HostEntry {
    HostEntry::Symlink { target: PathBuf::from(target) }
}

/// A merged-usr Debian host like ours: /bin, /sbin, /lib, /lib64 are symlinks into /usr,
/// and there is no /lib32.
fn merged_usr_host() -> HostLayout {
    HostLayout::from_entries([
        ("/usr".into(), dir_entry(0o755)),
        ("/bin".into(), link("usr/bin")),
        ("/sbin".into(), link("usr/sbin")),
        ("/lib".into(), link("usr/lib")),
        ("/lib64".into(), link("usr/lib64")),
        ("/lib32".into(), HostEntry::Missing),
        ("/etc".into(), dir_entry(0o755)),
        ("/opt".into(), dir_entry(0o755)),
    ])
}

/// Strict isolation with the host uid block 100000-165535, so owners read well.
const IDS: IdRange = IdRange { host_base: 100_000 };

fn base_spec() -> SandboxSpec {
    let mut spec = SandboxSpec::new("sbx-1", "/s", Template::base());
    spec.isolation = Isolation::strict(IDS);
    spec.limits = Limits {
        max_processes: Some(100),
        max_open_files: Some(512),
        max_file_size: Some(1 << 20),
        max_memory: None,
    };
    spec
}

/// ` in ROOT` for account files read inside an image's root.
fn inside(root: &Option<PathBuf>) -> String {
    root.as_ref().map_or(String::new(), |root| format!(" in {}", root.display()))
}

fn render(steps: &[Step]) -> String {
    let mut out = String::new();
    for step in steps {
        let line = match step {
            Step::SetUmask { mask } => format!("umask {mask:03o}"),
            Step::CreateUserNamespace { ids } => format!("userns 0-65535 = {}+", ids.host_base),
            Step::JoinNetworkNamespace { path } => format!("join netns {}", path.display()),
            Step::Unshare { namespaces } => format!("unshare {namespaces}"),
            Step::MakeMountsPrivate => "make-rprivate /".into(),
            Step::MakeMountsSlave => "make-rslave /".into(),
            Step::MakeTreePrivate { target } => format!("make-rprivate {}", target.display()),
            Step::BindLayers { source, target } => {
                format!("rbind-layers {} at {}", source.display(), target.display())
            }
            Step::SetHostname { name } => format!("hostname {name}"),
            Step::LoopbackUp => "lo up".into(),
            Step::MakeDir { path, mode, owner } => {
                let owner = owner.map_or(String::new(), |(u, g)| format!(" {u}:{g}"));
                format!("mkdir {} {mode:04o}{owner}", path.display())
            }
            Step::EnsureDir { path, mode, owner } => {
                let owner = owner.map_or(String::new(), |(u, g)| format!(" {u}:{g}"));
                format!("ensure-dir {} {mode:04o}{owner}", path.display())
            }
            Step::WriteFile { path, contents, mode, replace, owner } => {
                let contents = match contents {
                    Contents::Text(text) => format!("{text:?}"),
                    Contents::RandomUuid => "random-uuid".to_owned(),
                    Contents::PasswdWithUser { host, root } => {
                        format!("passwd+user({}{})", host.display(), inside(root))
                    }
                    Contents::GroupWithUser { host, root } => {
                        format!("group+user({}{})", host.display(), inside(root))
                    }
                };
                let keep = if *replace { "" } else { " keep-existing" };
                let owner = owner.map_or(String::new(), |(u, g)| format!(" {u}:{g}"));
                format!("write {} {mode:04o} {contents}{keep}{owner}", path.display())
            }
            Step::CreateFile { path, mode } => format!("touch {} {mode:04o}", path.display()),
            Step::Symlink { target, link } => {
                format!("symlink {} -> {}", link.display(), target.display())
            }
            Step::MountTmpfs { target, mode, size, flags, owner } => {
                let owner = owner.map_or(String::new(), |(u, g)| format!(" {u}:{g}"));
                format!(
                    "tmpfs {} mode={mode:04o} size={}k {flags}{owner}",
                    target.display(),
                    size >> 10
                )
            }
            Step::Chdir { path } => format!("cd {}", path.display()),
            Step::MountIdmapped { source, target, from: Some(from) } => {
                format!(
                    "idmap {} at {} from {}",
                    source.display(),
                    target.display(),
                    from.host_base
                )
            }
            Step::MountIdmapped { source, target, from: None } => {
                format!("idmap {} at {}", source.display(), target.display())
            }
            Step::MountOverlay { lower, upper, work, target, flags, .. } => {
                let mut line = format!("overlay {} lower={}", target.display(), lower.display());
                if let (Some(upper), Some(work)) = (upper, work) {
                    line.push_str(&format!(" upper={} work={}", upper.display(), work.display()));
                }
                format!("{line} {flags}")
            }
            Step::MaskDir { target } => format!("mask-dir {}", target.display()),
            Step::MaskFile { target, null } => {
                format!("mask-file {} with {}", target.display(), null.display())
            }
            Step::BindFile { source, target } => {
                format!("bind-file {} over {}", source.display(), target.display())
            }
            Step::ReadOnly { target } => format!("read-only {}", target.display()),
            Step::Bind { source, target, read_only } => format!(
                "bind {} {} {}",
                source.display(),
                target.display(),
                if *read_only { "ro" } else { "rw" }
            ),
            Step::MountProc { target } => format!("proc {}", target.display()),
            Step::MountSysfs { target } => format!("sysfs {}", target.display()),
            Step::MountDevpts { target } => format!("devpts {}", target.display()),
            Step::PivotRoot { new_root } => format!("pivot_root {}", new_root.display()),
            Step::SetRlimit { resource, limit } => format!("rlimit {resource} {limit}"),
        };
        writeln!(out, "{line}").unwrap();
    }
    out
}

fn render_calls(calls: &[Call]) -> String {
    let mut out = String::new();
    for call in calls {
        let line = match call {
            Call::Umask(mask) => format!("umask({mask:03o})"),
            Call::Unshare(ns) => format!("unshare({ns})"),
            Call::Mount { source, target, fstype, flags, data } => format!(
                "mount({}, {}, {}, {flags}, {})",
                source.as_ref().map_or("NULL".into(), |s| s.display().to_string()),
                target.display(),
                fstype.as_deref().unwrap_or("NULL"),
                data.as_deref().unwrap_or("NULL")
            ),
            Call::Umount { target, detach } => format!(
                "umount2({}, {})",
                target.display(),
                if *detach { "MNT_DETACH" } else { "0" }
            ),
            Call::Chdir(path) => format!("chdir({})", path.display()),
            Call::PivotRoot { new_root, put_old } => {
                format!("pivot_root({}, {})", new_root.display(), put_old.display())
            }
            Call::SetHostname(name) => format!("sethostname({name})"),
            Call::LoopbackUp => "loopback_up()".into(),
            Call::Mkdir { path, mode } => format!("mkdir({}, {mode:04o})", path.display()),
            Call::Chmod { path, mode } => format!("chmod({}, {mode:04o})", path.display()),
            Call::Chown { path, uid, gid } => format!("chown({}, {uid}, {gid})", path.display()),
            Call::Symlink { target, link } => {
                format!("symlink({}, {})", target.display(), link.display())
            }
            Call::CreateFile { path, mode } => format!("create({}, {mode:04o})", path.display()),
            Call::WriteFile { path, contents, mode } => {
                format!("write({}, {contents:?}, {mode:04o})", path.display())
            }
            Call::SetRlimit { resource, soft, hard } => {
                format!("setrlimit({resource}, {soft}, {hard})")
            }
            Call::CreateUserNamespace(ids) => format!("userns({})", ids.host_base),
            Call::JoinNetworkNamespace(path) => format!("setns_net({})", path.display()),
            Call::RemoveFile(path) => format!("unlink({})", path.display()),
            Call::MountIdmapped { source, target, .. } => {
                format!("idmapped_mount({}, {})", source.display(), target.display())
            }
        };
        writeln!(out, "{line}").unwrap();
    }
    out
}

#[test]
fn base_plan_on_a_merged_usr_host() {
    let steps = build(&base_spec(), &merged_usr_host(), Path::new(PROGRAM)).unwrap();
    let expected = r#"umask 022
userns 0-65535 = 100000+
unshare mount|uts|ipc|cgroup
make-rprivate /
hostname sbx-1
mkdir /s/rootfs 0755
cd /s
mkdir /s/empty 0755
mkdir /s/rootfs-upper 0755 100000:100000
mkdir /s/rootfs-work 0700
overlay /s/rootfs lower=empty upper=rootfs-upper work=rootfs-work NOSUID|NODEV
mkdir /s/overlay/usr/upper 0755 100000:100000
mkdir /s/overlay/usr/work 0700
mkdir /s/overlay/usr/lower 0755
idmap /usr at /s/overlay/usr/lower
mkdir /s/rootfs/usr 0755 100000:100000
overlay /s/rootfs/usr lower=overlay/usr/lower upper=overlay/usr/upper work=overlay/usr/work NOSUID|NODEV
symlink /s/rootfs/bin -> usr/bin
symlink /s/rootfs/sbin -> usr/sbin
symlink /s/rootfs/lib -> usr/lib
symlink /s/rootfs/lib64 -> usr/lib64
mkdir /s/overlay/etc/upper 0755 100000:100000
mkdir /s/overlay/etc/work 0700
write /s/overlay/etc/upper/passwd 0644 passwd+user(/etc/passwd) keep-existing 100000:100000
write /s/overlay/etc/upper/group 0644 group+user(/etc/group) keep-existing 100000:100000
write /s/overlay/etc/upper/hostname 0644 "sbx-1\n" 100000:100000
write /s/overlay/etc/upper/hosts 0644 "127.0.0.1\tlocalhost\n::1\tlocalhost ip6-localhost ip6-loopback\n127.0.1.1\tsbx-1\n" keep-existing 100000:100000
mkdir /s/overlay/etc/lower 0755
idmap /etc at /s/overlay/etc/lower
mkdir /s/rootfs/etc 0755 100000:100000
overlay /s/rootfs/etc lower=overlay/etc/lower upper=overlay/etc/upper work=overlay/etc/work NOSUID|NODEV
mkdir /s/overlay/opt/upper 0755 100000:100000
mkdir /s/overlay/opt/work 0700
mkdir /s/overlay/opt/lower 0755
idmap /opt at /s/overlay/opt/lower
mkdir /s/rootfs/opt 0755 100000:100000
overlay /s/rootfs/opt lower=overlay/opt/lower upper=overlay/opt/upper work=overlay/opt/work NOSUID|NODEV
mkdir /s/rootfs/proc 0555
proc /s/rootfs/proc
mkdir /s/rootfs/sys 0555
sysfs /s/rootfs/sys
mkdir /s/rootfs/dev 0755
tmpfs /s/rootfs/dev mode=0755 size=1024k NOSUID|NODEV|NOEXEC 100000:100000
touch /s/rootfs/dev/null 0666
bind /dev/null /s/rootfs/dev/null rw
touch /s/rootfs/dev/zero 0666
bind /dev/zero /s/rootfs/dev/zero rw
touch /s/rootfs/dev/full 0666
bind /dev/full /s/rootfs/dev/full rw
touch /s/rootfs/dev/random 0666
bind /dev/random /s/rootfs/dev/random rw
touch /s/rootfs/dev/urandom 0666
bind /dev/urandom /s/rootfs/dev/urandom rw
touch /s/rootfs/dev/tty 0666
bind /dev/tty /s/rootfs/dev/tty rw
mkdir /s/rootfs/dev/pts 0755 100000:100000
devpts /s/rootfs/dev/pts
symlink /s/rootfs/dev/ptmx -> pts/ptmx
mkdir /s/rootfs/dev/shm 1777 100000:100000
tmpfs /s/rootfs/dev/shm mode=1777 size=524288k NOSUID|NODEV|NOEXEC 100000:100000
symlink /s/rootfs/dev/fd -> /proc/self/fd
symlink /s/rootfs/dev/stdin -> /proc/self/fd/0
symlink /s/rootfs/dev/stdout -> /proc/self/fd/1
symlink /s/rootfs/dev/stderr -> /proc/self/fd/2
mkdir /s/rootfs/tmp 0755 100000:100000
tmpfs /s/rootfs/tmp mode=1777 size=1048576k NOSUID|NODEV 100000:100000
mkdir /s/rootfs/run 0755 100000:100000
tmpfs /s/rootfs/run mode=0755 size=65536k NOSUID|NODEV 100000:100000
mkdir /s/home 0755 100000:100000
mkdir /s/home/user 0755 101000:101000
mkdir /s/overlay/home/work 0700
mkdir /s/rootfs/home 0755 100000:100000
overlay /s/rootfs/home lower=empty upper=home work=overlay/home/work NOSUID|NODEV
mkdir /s/root 0700 100000:100000
mkdir /s/overlay/root/work 0700
mkdir /s/rootfs/root 0700 100000:100000
overlay /s/rootfs/root lower=empty upper=root work=overlay/root/work NOSUID|NODEV
mkdir /s/var 0755 100000:100000
mkdir /s/var/tmp 1777 100000:100000
mkdir /s/overlay/var/work 0700
mkdir /s/rootfs/var 0755 100000:100000
overlay /s/rootfs/var lower=empty upper=var work=overlay/var/work NOSUID|NODEV
ensure-dir /s/rootfs/.dsh 0755 100000:100000
mkdir /s/rootfs/.dsh/bin 0755 100000:100000
overlay /s/rootfs/.dsh/bin lower=program:empty RDONLY|NOSUID|NODEV
mask-dir /s/rootfs/proc/acpi
mask-dir /s/rootfs/proc/asound
mask-dir /s/rootfs/proc/scsi
mask-dir /s/rootfs/sys/firmware
mask-dir /s/rootfs/sys/devices/virtual/powercap
mask-file /s/rootfs/proc/kcore with /s/rootfs/dev/null
mask-file /s/rootfs/proc/keys with /s/rootfs/dev/null
mask-file /s/rootfs/proc/latency_stats with /s/rootfs/dev/null
mask-file /s/rootfs/proc/timer_list with /s/rootfs/dev/null
mask-file /s/rootfs/proc/timer_stats with /s/rootfs/dev/null
mask-file /s/rootfs/proc/sched_debug with /s/rootfs/dev/null
write /s/rootfs/.dsh/boot_id 0444 random-uuid 100000:100000
bind-file /s/rootfs/.dsh/boot_id over /s/rootfs/proc/sys/kernel/random/boot_id
read-only /s/rootfs/proc/bus
read-only /s/rootfs/proc/fs
read-only /s/rootfs/proc/irq
read-only /s/rootfs/proc/sys
read-only /s/rootfs/proc/sysrq-trigger
pivot_root /s/rootfs
rlimit RLIMIT_NPROC 100
rlimit RLIMIT_NOFILE 512
rlimit RLIMIT_FSIZE 1048576
"#;
    assert_eq!(render(&steps), expected);
}

#[test]
fn namespaces_only_isolation_has_no_user_namespace_and_host_owners() {
    let mut spec = base_spec();
    spec.isolation = Isolation::Namespaces;
    let text = render(&build(&spec, &merged_usr_host(), Path::new(PROGRAM)).unwrap());
    assert!(!text.contains("userns") && !text.contains("idmap"), "{text}");
    assert!(text.contains(
        "overlay /s/rootfs/usr lower=/usr upper=overlay/usr/upper work=overlay/usr/work NOSUID|NODEV\n"
    ));
    assert!(text.contains("mkdir /s/home/user 0755 1000:1000\n"));
    assert!(text.contains("tmpfs /s/rootfs/tmp mode=1777 size=1048576k NOSUID|NODEV 0:0\n"));
}

#[test]
fn no_network_adds_a_net_namespace_with_loopback_up() {
    let mut spec = base_spec();
    spec.net = Net::None;
    let steps = build(&spec, &merged_usr_host(), Path::new(PROGRAM)).unwrap();
    assert_eq!(
        render(&steps[..7]),
        "umask 022\nuserns 0-65535 = 100000+\nunshare mount|uts|ipc|net|cgroup\nmake-rprivate /\nhostname sbx-1\nlo up\nmkdir /s/rootfs 0755\n"
    );
}

#[test]
fn a_private_network_joins_the_daemons_namespace_whose_loopback_is_up_already() {
    let mut spec = base_spec();
    spec.net = Net::Private;
    spec.netns = Some(PathBuf::from("/state/netns/sbx-1"));
    let steps = build(&spec, &merged_usr_host(), Path::new(PROGRAM)).unwrap();
    assert_eq!(
        render(&steps[..7]),
        "umask 022\nuserns 0-65535 = 100000+\nunshare mount|uts|ipc|cgroup\nmake-rprivate /\nhostname sbx-1\njoin netns /state/netns/sbx-1\nmkdir /s/rootfs 0755\n"
    );
}

#[test]
fn template_extras_files_nesting_and_memory_limit() {
    let mut spec = base_spec();
    spec.template = Template {
        name: "custom".into(),
        read_only_paths: vec![
            "/usr".into(),
            "/usr/local/lib".into(), // covered by /usr
            "/srv/models".into(),
            "/srv/models".into(), // duplicate
            "/srv/motd".into(),
            "/nowhere".into(),
        ],
        env: Default::default(),
        workdir: "/home/user".into(),
        rootfs: None,
        process_env: Default::default(),
    };
    spec.limits = Limits {
        max_processes: None,
        max_open_files: None,
        max_file_size: None,
        max_memory: Some(2 << 30),
    };
    let layout = HostLayout::from_entries([
        ("/usr".into(), dir_entry(0o755)),
        ("/usr/local/lib".into(), dir_entry(0o755)),
        ("/srv/models".into(), HostEntry::Dir { mode: 0o750, uid: 0, gid: 1000 }),
        ("/srv/motd".into(), HostEntry::File),
    ]);
    assert_eq!(
        shown_paths(&spec),
        [
            Path::new("/usr"),
            Path::new("/srv/models"),
            Path::new("/srv/motd"),
            Path::new("/nowhere")
        ]
    );
    let steps = build(&spec, &layout, Path::new(PROGRAM)).unwrap();
    let text = render(&steps);
    let start = text.find("mkdir /s/overlay/srv%2Fmodels").unwrap();
    let end = text.find("mkdir /s/rootfs/proc").unwrap();
    assert_eq!(
        &text[start..end],
        "mkdir /s/overlay/srv%2Fmodels/upper 0750 100000:101000
mkdir /s/overlay/srv%2Fmodels/work 0700
mkdir /s/overlay/srv%2Fmodels/lower 0755
idmap /srv/models at /s/overlay/srv%2Fmodels/lower
mkdir /s/rootfs/srv/models 0755 100000:100000
overlay /s/rootfs/srv/models lower=overlay/srv%2Fmodels/lower upper=overlay/srv%2Fmodels/upper work=overlay/srv%2Fmodels/work NOSUID|NODEV
touch /s/rootfs/srv/motd 0644
bind /srv/motd /s/rootfs/srv/motd ro
mkdir /s/rootfs/etc 0755 100000:100000
write /s/rootfs/etc/passwd 0644 passwd+user(/etc/passwd) 100000:100000
write /s/rootfs/etc/group 0644 group+user(/etc/group) 100000:100000
write /s/rootfs/etc/hostname 0644 \"sbx-1\\n\" 100000:100000
write /s/rootfs/etc/hosts 0644 \"127.0.0.1\\tlocalhost\\n::1\\tlocalhost ip6-localhost ip6-loopback\\n127.0.1.1\\tsbx-1\\n\" 100000:100000
"
    );
    assert!(!text.contains("/usr/local/lib"));
    assert!(!text.contains("nowhere"));
    assert!(text.ends_with("pivot_root /s/rootfs\nrlimit RLIMIT_AS 2147483648\n"));
}

#[test]
fn invalid_specs_and_programs_are_rejected_before_any_step() {
    let mut spec = base_spec();
    spec.id = "not a hostname".into();
    assert!(matches!(
        build(&spec, &merged_usr_host(), Path::new(PROGRAM)),
        Err(Error::InvalidId { .. })
    ));
    assert!(matches!(
        build(&base_spec(), &merged_usr_host(), Path::new("relative/envd")),
        Err(Error::InvalidPath { what: "program", .. })
    ));
    assert_eq!(program_inside(Path::new("/bin/sh")).unwrap(), Path::new("/.dsh/bin/sh"));
}

/// A template small enough to pin every recorded system call.
fn minimal_spec() -> (SandboxSpec, HostLayout) {
    let mut spec = SandboxSpec::new("box", "/s", Template::base());
    spec.isolation = Isolation::strict(IDS);
    spec.template.read_only_paths = vec!["/etc".into(), "/bin".into()];
    spec.limits = Limits {
        max_processes: None,
        max_open_files: Some(256),
        max_file_size: None,
        max_memory: None,
    };
    spec.net = Net::None;
    let layout = HostLayout::from_entries([
        ("/etc".into(), dir_entry(0o755)),
        ("/bin".into(), link("usr/bin")),
    ]);
    (spec, layout)
}

fn host_account_files() -> RecordingSyscall {
    RecordingSyscall::new()
        .with_file(
            "/etc/passwd",
            "root:x:0:0:root:/root:/bin/bash\nalice:x:1000:1000::/home/alice:/bin/sh\n",
        )
        .with_file("/etc/group", "root:x:0:\nalice:x:1000:\n")
}

#[test]
fn executor_records_the_exact_system_calls() {
    let (spec, layout) = minimal_spec();
    let steps = build(&spec, &layout, Path::new("/bin/sh")).unwrap();
    let sys = host_account_files();
    exec::apply(&sys, &steps).unwrap();
    let expected = r#"umask(022)
userns(100000)
unshare(mount|uts|ipc|net|cgroup)
mount(NULL, /, NULL, REC|PRIVATE, NULL)
sethostname(box)
loopback_up()
mkdir(/s/rootfs, 0755)
chmod(/s/rootfs, 0755)
chdir(/s)
mkdir(/s/empty, 0755)
chmod(/s/empty, 0755)
mkdir(/s/rootfs-upper, 0755)
chmod(/s/rootfs-upper, 0755)
chown(/s/rootfs-upper, 100000, 100000)
mkdir(/s/rootfs-work, 0700)
chmod(/s/rootfs-work, 0700)
mount(overlay, /s/rootfs, overlay, NOSUID|NODEV, lowerdir=empty,upperdir=rootfs-upper,workdir=rootfs-work)
mkdir(/s/overlay/etc/upper, 0755)
chmod(/s/overlay/etc/upper, 0755)
chown(/s/overlay/etc/upper, 100000, 100000)
mkdir(/s/overlay/etc/work, 0700)
chmod(/s/overlay/etc/work, 0700)
write(/s/overlay/etc/upper/passwd, "root:x:0:0:root:/root:/bin/bash\nuser:x:1000:1000::/home/user:/bin/bash\n", 0644)
chown(/s/overlay/etc/upper/passwd, 100000, 100000)
write(/s/overlay/etc/upper/group, "root:x:0:\nuser:x:1000:\n", 0644)
chown(/s/overlay/etc/upper/group, 100000, 100000)
write(/s/overlay/etc/upper/hostname, "box\n", 0644)
chown(/s/overlay/etc/upper/hostname, 100000, 100000)
write(/s/overlay/etc/upper/hosts, "127.0.0.1\tlocalhost\n::1\tlocalhost ip6-localhost ip6-loopback\n127.0.1.1\tbox\n", 0644)
chown(/s/overlay/etc/upper/hosts, 100000, 100000)
mkdir(/s/overlay/etc/lower, 0755)
chmod(/s/overlay/etc/lower, 0755)
idmapped_mount(/etc, /s/overlay/etc/lower)
mkdir(/s/rootfs/etc, 0755)
chmod(/s/rootfs/etc, 0755)
chown(/s/rootfs/etc, 100000, 100000)
mount(overlay, /s/rootfs/etc, overlay, NOSUID|NODEV, lowerdir=overlay/etc/lower,upperdir=overlay/etc/upper,workdir=overlay/etc/work)
symlink(usr/bin, /s/rootfs/bin)
mkdir(/s/rootfs/proc, 0555)
chmod(/s/rootfs/proc, 0555)
mount(proc, /s/rootfs/proc, proc, NOSUID|NODEV|NOEXEC, NULL)
mkdir(/s/rootfs/sys, 0555)
chmod(/s/rootfs/sys, 0555)
mount(sysfs, /s/rootfs/sys, sysfs, RDONLY|NOSUID|NODEV|NOEXEC, NULL)
mkdir(/s/rootfs/dev, 0755)
chmod(/s/rootfs/dev, 0755)
mount(tmpfs, /s/rootfs/dev, tmpfs, NOSUID|NODEV|NOEXEC, mode=0755,size=1048576,uid=100000,gid=100000)
create(/s/rootfs/dev/null, 0666)
mount(/dev/null, /s/rootfs/dev/null, NULL, BIND, NULL)
create(/s/rootfs/dev/zero, 0666)
mount(/dev/zero, /s/rootfs/dev/zero, NULL, BIND, NULL)
create(/s/rootfs/dev/full, 0666)
mount(/dev/full, /s/rootfs/dev/full, NULL, BIND, NULL)
create(/s/rootfs/dev/random, 0666)
mount(/dev/random, /s/rootfs/dev/random, NULL, BIND, NULL)
create(/s/rootfs/dev/urandom, 0666)
mount(/dev/urandom, /s/rootfs/dev/urandom, NULL, BIND, NULL)
create(/s/rootfs/dev/tty, 0666)
mount(/dev/tty, /s/rootfs/dev/tty, NULL, BIND, NULL)
mkdir(/s/rootfs/dev/pts, 0755)
chmod(/s/rootfs/dev/pts, 0755)
chown(/s/rootfs/dev/pts, 100000, 100000)
mount(devpts, /s/rootfs/dev/pts, devpts, NOSUID|NOEXEC, newinstance,ptmxmode=0666,mode=0620)
symlink(pts/ptmx, /s/rootfs/dev/ptmx)
mkdir(/s/rootfs/dev/shm, 1777)
chmod(/s/rootfs/dev/shm, 1777)
chown(/s/rootfs/dev/shm, 100000, 100000)
mount(tmpfs, /s/rootfs/dev/shm, tmpfs, NOSUID|NODEV|NOEXEC, mode=1777,size=536870912,uid=100000,gid=100000)
symlink(/proc/self/fd, /s/rootfs/dev/fd)
symlink(/proc/self/fd/0, /s/rootfs/dev/stdin)
symlink(/proc/self/fd/1, /s/rootfs/dev/stdout)
symlink(/proc/self/fd/2, /s/rootfs/dev/stderr)
mkdir(/s/rootfs/tmp, 0755)
chmod(/s/rootfs/tmp, 0755)
chown(/s/rootfs/tmp, 100000, 100000)
mount(tmpfs, /s/rootfs/tmp, tmpfs, NOSUID|NODEV, mode=1777,size=1073741824,uid=100000,gid=100000)
mkdir(/s/rootfs/run, 0755)
chmod(/s/rootfs/run, 0755)
chown(/s/rootfs/run, 100000, 100000)
mount(tmpfs, /s/rootfs/run, tmpfs, NOSUID|NODEV, mode=0755,size=67108864,uid=100000,gid=100000)
mkdir(/s/home, 0755)
chmod(/s/home, 0755)
chown(/s/home, 100000, 100000)
mkdir(/s/home/user, 0755)
chmod(/s/home/user, 0755)
chown(/s/home/user, 101000, 101000)
mkdir(/s/overlay/home/work, 0700)
chmod(/s/overlay/home/work, 0700)
mkdir(/s/rootfs/home, 0755)
chmod(/s/rootfs/home, 0755)
chown(/s/rootfs/home, 100000, 100000)
mount(overlay, /s/rootfs/home, overlay, NOSUID|NODEV, lowerdir=empty,upperdir=home,workdir=overlay/home/work)
mkdir(/s/root, 0700)
chmod(/s/root, 0700)
chown(/s/root, 100000, 100000)
mkdir(/s/overlay/root/work, 0700)
chmod(/s/overlay/root/work, 0700)
mkdir(/s/rootfs/root, 0700)
chmod(/s/rootfs/root, 0700)
chown(/s/rootfs/root, 100000, 100000)
mount(overlay, /s/rootfs/root, overlay, NOSUID|NODEV, lowerdir=empty,upperdir=root,workdir=overlay/root/work)
mkdir(/s/var, 0755)
chmod(/s/var, 0755)
chown(/s/var, 100000, 100000)
mkdir(/s/var/tmp, 1777)
chmod(/s/var/tmp, 1777)
chown(/s/var/tmp, 100000, 100000)
mkdir(/s/overlay/var/work, 0700)
chmod(/s/overlay/var/work, 0700)
mkdir(/s/rootfs/var, 0755)
chmod(/s/rootfs/var, 0755)
chown(/s/rootfs/var, 100000, 100000)
mount(overlay, /s/rootfs/var, overlay, NOSUID|NODEV, lowerdir=empty,upperdir=var,workdir=overlay/var/work)
mkdir(/s/rootfs/.dsh, 0755)
chmod(/s/rootfs/.dsh, 0755)
chown(/s/rootfs/.dsh, 100000, 100000)
mkdir(/s/rootfs/.dsh/bin, 0755)
chmod(/s/rootfs/.dsh/bin, 0755)
chown(/s/rootfs/.dsh/bin, 100000, 100000)
mount(overlay, /s/rootfs/.dsh/bin, overlay, RDONLY|NOSUID|NODEV, lowerdir=program:empty)
write(/s/rootfs/.dsh/boot_id, "<random uuid>\n", 0444)
chown(/s/rootfs/.dsh/boot_id, 100000, 100000)
chdir(/s/rootfs)
pivot_root(., .)
umount2(., MNT_DETACH)
chdir(/)
setrlimit(RLIMIT_NOFILE, 256, 256)
"#;
    assert_eq!(without_boot_id(&render_calls(&sys.calls())), expected);
}

#[test]
fn no_mount_happens_before_the_mount_namespace_is_private_and_all_land_in_the_new_root() {
    let (spec, layout) = minimal_spec();
    let steps = build(&spec, &layout, Path::new("/bin/sh")).unwrap();
    let sys = host_account_files();
    exec::apply(&sys, &steps).unwrap();
    let calls = sys.calls();
    let unshare = calls.iter().position(|c| matches!(c, Call::Unshare(ns) if ns.mount)).unwrap();
    let mounts: Vec<(usize, &Call)> =
        calls.iter().enumerate().filter(|(_, c)| matches!(c, Call::Mount { .. })).collect();
    let (first_index, first) = mounts[0];
    assert!(unshare < first_index);
    assert_eq!(
        first,
        &Call::Mount {
            source: None,
            target: "/".into(),
            fstype: None,
            flags: MountFlags::REC | MountFlags::PRIVATE,
            data: None,
        }
    );
    for (_, mount) in &mounts[1..] {
        let Call::Mount { target, .. } = mount else { unreachable!() };
        assert!(target.starts_with("/s/rootfs"), "{mount:?} outside the new root");
    }
}

#[test]
fn a_failing_step_stops_the_plan_and_names_the_step() {
    let (spec, layout) = minimal_spec();
    let steps = build(&spec, &layout, Path::new("/bin/sh")).unwrap();
    let sys = host_account_files().fail_when(
        |call| matches!(call, Call::Mount { fstype: Some(t), .. } if t == "overlay"),
        libc::EPERM,
    );
    let err: StepError = exec::apply(&sys, &steps).unwrap_err();
    assert!(matches!(err.step, Step::MountOverlay { .. }));
    assert_eq!(err.source.raw_os_error(), Some(libc::EPERM));
    assert_eq!(
        err.to_string(),
        "mount overlay at /s/rootfs (lower empty): Operation not permitted (os error 1)"
    );
    assert!(matches!(sys.calls().last(), Some(Call::Mount { .. })));
    assert!(!sys.calls().iter().any(|c| matches!(c, Call::PivotRoot { .. })));
}

#[test]
fn a_directory_on_the_way_to_a_mount_point_is_kept_and_a_planted_file_replaced() {
    let ensure = |path: &str| Step::EnsureDir {
        path: PathBuf::from(path),
        mode: 0o755,
        owner: Some((100_000, 100_000)),
    };
    // The sandbox made /s/rootfs/mnt its own earlier: nothing of it changes.
    let sys = RecordingSyscall::new().with_dir("/s/rootfs/mnt");
    exec::apply(&sys, &[ensure("/s/rootfs/mnt")]).unwrap();
    assert_eq!(sys.calls(), []);
    // A symlink (any non-directory) it left where a mount point goes is replaced by a
    // directory before anything is mounted through it.
    let sys = RecordingSyscall::new().with_file("/s/rootfs/.dsh", "-> /");
    exec::apply(&sys, &[ensure("/s/rootfs/.dsh")]).unwrap();
    assert_eq!(
        sys.calls(),
        [
            Call::Mkdir { path: "/s/rootfs/.dsh".into(), mode: 0o755 },
            Call::RemoveFile("/s/rootfs/.dsh".into()),
            Call::Mkdir { path: "/s/rootfs/.dsh".into(), mode: 0o755 },
            Call::Chmod { path: "/s/rootfs/.dsh".into(), mode: 0o755 },
            Call::Chown { path: "/s/rootfs/.dsh".into(), uid: 100_000, gid: 100_000 },
        ]
    );
}

#[test]
fn an_earlier_runs_account_files_and_directories_are_kept() {
    let (spec, layout) = minimal_spec();
    let steps = build(&spec, &layout, Path::new("/bin/sh")).unwrap();
    let sys = host_account_files()
        .with_file("/s/overlay/etc/upper/passwd", "edited inside\n")
        .with_file("/s/overlay/etc/upper/hosts", "edited inside\n")
        .with_dir("/s/home/user");
    exec::apply(&sys, &steps).unwrap();
    let written: Vec<PathBuf> = sys
        .calls()
        .into_iter()
        .filter_map(|c| match c {
            Call::WriteFile { path, .. } => Some(path),
            _ => None,
        })
        .collect();
    assert_eq!(
        written,
        [
            PathBuf::from("/s/overlay/etc/upper/group"),
            PathBuf::from("/s/overlay/etc/upper/hostname"),
            PathBuf::from("/s/rootfs/.dsh/boot_id"),
        ]
    );
    // An existing home is fine, and its owner is put back to user.
    let calls = sys.calls();
    let at = calls
        .iter()
        .position(|c| matches!(c, Call::Mkdir { path, .. } if path == Path::new("/s/home/user")))
        .unwrap();
    assert_eq!(
        &calls[at + 1..at + 3],
        [
            Call::Chmod { path: "/s/home/user".into(), mode: 0o755 },
            Call::Chown { path: "/s/home/user".into(), uid: 101_000, gid: 101_000 }
        ]
    );
}

#[test]
fn private_host_entries_are_masked_like_dockers_paths() {
    let layout = merged_usr_host().with_private([
        crate::layout::Private { path: "/etc/shadow".into(), is_dir: false },
        crate::layout::Private { path: "/etc/ssl/private".into(), is_dir: true },
    ]);
    let text = render(&build(&base_spec(), &layout, Path::new(PROGRAM)).unwrap());
    let start = text.find("mask-file /s/rootfs/etc/shadow").unwrap();
    assert_eq!(
        &text[start..text.find("mask-dir /s/rootfs/proc/acpi").unwrap()],
        "mask-file /s/rootfs/etc/shadow with /s/rootfs/dev/null\nmask-dir /s/rootfs/etc/ssl/private\n"
    );
    assert!(text.find("overlay /s/rootfs/etc").unwrap() < start, "masks come after the overlays");
}

#[test]
fn what_the_sandbox_left_instead_of_a_directory_is_replaced_not_followed() {
    // `rm -rf /var/tmp; ln -s /etc /var/tmp` inside leaves a symlink in the upper layer:
    // the next start must not chmod or chown the host's /etc through it.
    let (spec, layout) = minimal_spec();
    let steps = build(&spec, &layout, Path::new("/bin/sh")).unwrap();
    let sys = host_account_files().with_file("/s/var/tmp", "a symlink to /etc");
    exec::apply(&sys, &steps).unwrap();
    let calls = render_calls(&sys.calls());
    assert!(
        calls.contains(
            "mkdir(/s/var/tmp, 1777)\nunlink(/s/var/tmp)\nmkdir(/s/var/tmp, 1777)\nchmod(/s/var/tmp, 1777)\nchown(/s/var/tmp, 100000, 100000)\n"
        ),
        "{calls}"
    );
}

#[test]
fn the_sandboxs_own_cgroup_is_shown_read_only_under_sys_fs_cgroup() {
    let spec = base_spec();
    let v2 = [(String::new(), PathBuf::from("/sys/fs/cgroup/dsh-sandboxes/sbx-1"))];
    let text =
        render(&build_with_cgroup(&spec, &merged_usr_host(), Path::new(PROGRAM), &v2).unwrap());
    assert!(
        text.contains("sysfs /s/rootfs/sys\nbind /sys/fs/cgroup/dsh-sandboxes/sbx-1 /s/rootfs/sys/fs/cgroup ro\n"),
        "{text}"
    );
    let v1 = [
        ("memory".to_owned(), PathBuf::from("/sys/fs/cgroup/memory/d/sbx-1")),
        ("pids".to_owned(), PathBuf::from("/sys/fs/cgroup/pids/d/sbx-1")),
    ];
    let text =
        render(&build_with_cgroup(&spec, &merged_usr_host(), Path::new(PROGRAM), &v1).unwrap());
    let start = text.find("tmpfs /s/rootfs/sys/fs/cgroup").unwrap();
    assert_eq!(
        &text[start..text.find("mkdir /s/rootfs/dev 0755").unwrap()],
        "tmpfs /s/rootfs/sys/fs/cgroup mode=0755 size=1024k NOSUID|NODEV|NOEXEC
mkdir /s/rootfs/sys/fs/cgroup/memory 0555
bind /sys/fs/cgroup/memory/d/sbx-1 /s/rootfs/sys/fs/cgroup/memory ro
mkdir /s/rootfs/sys/fs/cgroup/pids 0555
bind /sys/fs/cgroup/pids/d/sbx-1 /s/rootfs/sys/fs/cgroup/pids ro
"
    );
}

#[test]
fn a_layer_view_keeps_the_host_mounts_reaching_only_the_view_and_is_bound_last() {
    let (mut spec, layout) = minimal_spec();
    spec.layers = Some("/d/layers/view".into());
    let steps = build(&spec, &layout, Path::new("/bin/sh")).unwrap();
    let rendered = render(&steps);
    let lines: Vec<&str> = rendered.lines().collect();
    // Slaves instead of private from the start: the view's copy stays a slave of the
    // daemon's view until it is bound in.
    assert_eq!(lines[3], "make-rslave /", "{rendered}");
    assert!(!rendered.contains("make-rprivate /\n"), "{rendered}");
    let pivot = lines.iter().position(|l| l.starts_with("pivot_root")).unwrap();
    assert_eq!(
        lines[pivot - 3..=pivot],
        [
            "make-rprivate /s/rootfs",
            "mkdir /s/rootfs/.dsh/layers 0755 100000:100000",
            "rbind-layers /d/layers/view at /s/rootfs/.dsh/layers",
            "pivot_root /s/rootfs",
        ],
        "{rendered}"
    );

    let sys = host_account_files();
    exec::apply(&sys, &steps).unwrap();
    let calls = sys.calls();
    let mounts: Vec<&Call> = calls.iter().filter(|c| matches!(c, Call::Mount { .. })).collect();
    let mount = |source: Option<&str>, target: &str, flags: MountFlags| Call::Mount {
        source: source.map(PathBuf::from),
        target: target.into(),
        fstype: None,
        flags,
        data: None,
    };
    assert_eq!(mounts[0], &mount(None, "/", MountFlags::REC | MountFlags::SLAVE));
    let last = &mounts[mounts.len() - 3..];
    assert_eq!(
        last,
        [
            &mount(None, "/s/rootfs", MountFlags::REC | MountFlags::PRIVATE),
            &mount(
                Some("/d/layers/view"),
                "/s/rootfs/.dsh/layers",
                MountFlags::BIND | MountFlags::REC
            ),
            &mount(
                None,
                "/s/rootfs/.dsh/layers",
                MountFlags::BIND
                    | MountFlags::REMOUNT
                    | MountFlags::RDONLY
                    | MountFlags::NOSUID
                    | MountFlags::NODEV
                    | MountFlags::NOEXEC
            ),
        ]
    );
}

#[test]
fn memory_backed_filesystems_are_sized_from_the_sandboxs_memory() {
    let (mut spec, layout) = minimal_spec();
    spec.resources.memory_bytes = Some(256 << 20);
    let text = render(&build(&spec, &layout, Path::new("/bin/sh")).unwrap());
    assert!(text.contains("tmpfs /s/rootfs/tmp mode=1777 size=131072k NOSUID|NODEV"), "{text}");
    assert!(text.contains("tmpfs /s/rootfs/dev/shm mode=1777 size=65536k "), "{text}");
    // The root is on disk (an overlay), not in memory.
    assert!(!text.contains("tmpfs /s/rootfs mode"), "{text}");
    assert!(text.contains("tmpfs /s/rootfs/run mode=0755 size=65536k "), "{text}");
    // A tiny sandbox still gets usable ones.
    let small = TmpfsSizes::for_memory(Some(16 << 20));
    assert_eq!((small.tmp, small.shm), (16 << 20, 16 << 20));
}

/// `rendered` with the boot id the executor wrote (checked to be a version 4 UUID, as the
/// kernel's are) replaced by `<random uuid>`.
fn without_boot_id(rendered: &str) -> String {
    let prefix = "write(/s/rootfs/.dsh/boot_id, \"";
    let start = rendered.find(prefix).expect("no boot id written") + prefix.len();
    let uuid = &rendered[start..start + 36];
    let dashes: Vec<usize> = uuid.match_indices('-').map(|(i, _)| i).collect();
    assert_eq!(dashes, [8, 13, 18, 23], "{uuid}");
    assert!(
        uuid.chars().all(|c| c == '-' || c.is_ascii_hexdigit()) && &uuid[14..15] == "4",
        "{uuid}"
    );
    format!("{}<random uuid>{}", &rendered[..start], &rendered[start + 36..])
}

#[test]
fn an_image_templates_paths_come_from_its_unpacked_root() {
    let mut spec = base_spec();
    spec.template.read_only_paths = vec!["/usr".into(), "/etc".into(), "/bin".into()];
    spec.template.rootfs = Some("/images/rootfs-sha256-ab".into());
    let layout = HostLayout::from_entries([
        ("/usr".into(), HostEntry::Dir { mode: 0o755, uid: 0, gid: 0 }),
        ("/etc".into(), HostEntry::Dir { mode: 0o755, uid: 0, gid: 0 }),
        ("/bin".into(), HostEntry::Symlink { target: "usr/bin".into() }),
    ]);
    let text = render(&build(&spec, &layout, Path::new("/bin/sh")).unwrap());
    for line in [
        "idmap /images/rootfs-sha256-ab/usr at /s/overlay/usr/lower\n",
        "idmap /images/rootfs-sha256-ab/etc at /s/overlay/etc/lower\n",
        "passwd+user(/etc/passwd in /images/rootfs-sha256-ab)",
        "group+user(/etc/group in /images/rootfs-sha256-ab)",
        "symlink /s/rootfs/bin -> usr/bin\n",
    ] {
        assert!(text.contains(line), "{line}: {text}");
    }
    assert!(!text.contains("idmap /usr "), "{text}");
}
