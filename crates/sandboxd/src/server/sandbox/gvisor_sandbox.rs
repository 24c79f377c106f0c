//! A sandbox whose record names `runtime: "gvisor"`: its root and bundle made from the
//! same [`SandboxSpec`] a native launch gets, and its container started with runsc
//! (`gvisor.rs`), or restored from the checkpoint its directory holds. The daemon then
//! treats it as any other: the sandbox's network (pinned namespace, pasta, egress rules)
//! is the same, with gVisor's own namespace linked behind it (`gvisor_net.rs`), where
//! envd is reached at the guest's address; `running.rs` stops and kills it.
//!
//! Its files are a native sandbox's, in the same places of its state directory (see
//! `state.rs`): the root is the root's upper layer, `/home`, `/root` and `/var` are their
//! directories, and each host directory the template shows is an overlay the daemon
//! mounts on the host over the same upper layer a native sandbox writes. So a sandbox
//! from a template built natively sees what the build installed, a snapshot or a fork
//! may run under either runtime, and root inside writes in `/usr` or `/etc` as in a
//! native sandbox. An image template's directories come from the image's root, as a
//! native sandbox's do. runsc starts in
//! the cgroup a native sandbox would have, made with its limits (memory, tasks, CPU), so
//! the container and gVisor's memory (its sentry's shared memory) are limited and
//! sampled there. Volumes are shown as a native sandbox's are (an idmapped view of their
//! block). A pause that keeps memory writes it to disk ([`MEMORY_DIR`]).

use std::io::Write as _;
use std::os::unix::fs::{OpenOptionsExt as _, PermissionsExt as _};
use std::path::{Path, PathBuf};

use anyhow::{Context, bail};

use crate::gvisor::{Container, GvisorSpec, Overlay, Runsc};
use crate::launch::{Output, Payload};
use crate::spec::{Net, SandboxSpec, VolumeMount};
use crate::state::StateDir;

/// Bundles (and the idmapped views of roots) under the daemon's state directory: outside
/// the sandboxes' directories, whose kill checks that no mount is left in them.
pub const BUNDLES_DIR: &str = "runsc-bundles";
/// The checkpoint of a sandbox paused with its memory, inside its state directory (so
/// that it counts against its disk quota and a fork's copy of the directory has it).
pub const MEMORY_DIR: &str = "memory";

/// Makes the root and the bundle of `spec`'s sandbox and starts `payload` in a runsc
/// container (blocking, ~200 ms), or, with `image`, restores the container saved there
/// (`payload` then only makes the bundle match the one saved). `cgroup`: the sandbox's,
/// made with its limits, where runsc starts (the daemon reads its usage there).
/// `layers`: the daemon's layer store, shown at [`crate::plan::LAYERS_DIR`].
pub fn start(
    runsc: &Runsc,
    daemon_state: &Path,
    spec: &SandboxSpec,
    payload: Payload,
    image: Option<&Path>,
    cgroup: Option<crate::cgroup::SandboxCgroup>,
    layers: Option<PathBuf>,
) -> anyhow::Result<Container> {
    let gvisor = gvisor_spec(daemon_state, spec, payload, cgroup, layers)?;
    match image {
        None => Container::start(runsc, gvisor).context("starting the gvisor container"),
        Some(image) => Container::restore(runsc, gvisor, image)
            .with_context(|| format!("restoring the gvisor container from {}", image.display())),
    }
}

/// Makes `path` a directory of `mode` owned by `uid` (a host id), unless it is one. The
/// state directory's contents are the sandbox's to change while it runs: what it left at
/// a path is never followed (a symlink `home/user -> /etc` would have the daemon chown a
/// host directory). A directory stays as it is; anything else is replaced.
fn make_dir(path: &Path, mode: u32, uid: u32, gid: u32) -> anyhow::Result<()> {
    match std::fs::symlink_metadata(path) {
        Ok(meta) if meta.is_dir() => return Ok(()),
        Ok(_) => std::fs::remove_file(path)
            .with_context(|| format!("removing what the sandbox left at {}", path.display()))?,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(e) => return Err(e).with_context(|| format!("inspecting {}", path.display())),
    }
    std::fs::create_dir(path).with_context(|| format!("creating {}", path.display()))?;
    std::os::unix::fs::lchown(path, Some(uid), Some(gid))
        .with_context(|| format!("chown {}", path.display()))?;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode))
        .with_context(|| format!("chmod {}", path.display()))?;
    Ok(())
}

/// Writes `contents` as `dir/name` (mode 0644, owned by `uid`), unless a file is there
/// and `replace` is false (the sandbox may have added users). Written beside and renamed
/// over: a link the sandbox left at `name` is replaced, never followed.
fn write_account_file(
    dir: &Path,
    name: &str,
    contents: &str,
    replace: bool,
    uid: u32,
) -> anyhow::Result<()> {
    let path = dir.join(name);
    if !replace && std::fs::symlink_metadata(&path).is_ok() {
        return Ok(());
    }
    let staged = dir.join(format!(".{name}.dsh-{}", crate::server::files::random_hex(8)));
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .custom_flags(libc::O_NOFOLLOW)
        .mode(0o644)
        .open(&staged)
        .with_context(|| format!("creating {}", staged.display()))?;
    let written = file
        .write_all(contents.as_bytes())
        .and_then(|()| std::os::unix::fs::fchown(&file, Some(uid), Some(uid)))
        .and_then(|()| std::fs::rename(&staged, &path));
    if let Err(e) = written {
        let _ = std::fs::remove_file(&staged);
        return Err(e).with_context(|| format!("writing {}", path.display()));
    }
    Ok(())
}

/// The container's spec: its layers made, its account files written, the template's
/// host directories shown.
fn gvisor_spec(
    daemon_state: &Path,
    spec: &SandboxSpec,
    payload: Payload,
    cgroup: Option<crate::cgroup::SandboxCgroup>,
    layers: Option<PathBuf>,
) -> anyhow::Result<GvisorSpec> {
    // The daemon reaches envd through the sandbox's namespace, linked to gVisor's.
    let netns = match (spec.net, &spec.netns) {
        (Net::Private, Some(pin)) => Some(pin.clone()),
        (net, _) => bail!("the gvisor runtime needs a private network, not {net:?}"),
    };
    let ids = spec.isolation.files_block();
    let owner = |inside: u32| spec.isolation.files_id(inside);
    let state = StateDir::new(&spec.state_dir);
    let root = state.root_upper();
    make_dir(&root, 0o755, owner(0), owner(0))?;

    // `/home`, `/root` and `/var`: their directories, shown as volumes of the block.
    let user = crate::users::USER_UID;
    let persistent = [
        (state.home(), "/home", 0o755),
        (state.root_home(), "/root", 0o700),
        (state.var(), "/var", 0o755),
    ];
    let mut volumes = Vec::new();
    for (source, inside, mode) in persistent {
        make_dir(&source, mode, owner(0), owner(0))?;
        volumes.push(VolumeMount { source, inside: PathBuf::from(inside), ids });
    }
    make_dir(&state.home().join("user"), 0o755, owner(user), owner(crate::users::USER_GID))?;
    make_dir(&state.var().join("tmp"), 0o1777, owner(0), owner(0))?;
    volumes.extend(spec.volumes.iter().cloned());

    // The template's account files (the host's, or an image's, read inside its root: a
    // link there never leads to the host's) with the sandbox's `user`, its name and its
    // resolver, written into `/etc`'s upper layer as a native sandbox's are.
    let host = |name: &str| {
        let path = Path::new("/etc").join(name);
        let bytes = match &spec.template.rootfs {
            Some(root) => {
                use crate::syscall::Syscall as _;
                crate::syscall::LinuxSyscall::default().read_file_in(root, &path)
            }
            None => std::fs::read(&path),
        };
        bytes.ok().and_then(|bytes| String::from_utf8(bytes).ok()).unwrap_or_default()
    };
    let mut account = vec![
        ("passwd", crate::users::passwd_with_user(&host("passwd")), false),
        ("group", crate::users::group_with_user(&host("group")), false),
        ("hostname", crate::users::hostname(&spec.id), true),
        ("hosts", crate::users::hosts(&spec.id), false),
    ];
    if spec.net == Net::Private {
        account.push((
            "resolv.conf",
            format!("nameserver {}\n", crate::spec::private_net::DNS),
            true,
        ));
    }

    let (mut overlays, mut read_only) = (Vec::new(), Vec::new());
    let mut etc_shown = false;
    // Each shown directory of the host's, or of an image's root (`source`), at its place.
    let mut binds = Vec::new();
    for path in crate::plan::shown_paths(spec) {
        let source = spec.template.source(path);
        let Ok(meta) = std::fs::symlink_metadata(&source) else { continue };
        if meta.file_type().is_symlink() {
            let link = root.join(path.strip_prefix("/").unwrap_or(path));
            if std::fs::symlink_metadata(&link).is_err() {
                let target = std::fs::read_link(&source)?;
                std::os::unix::fs::symlink(&target, &link)
                    .with_context(|| format!("linking {}", link.display()))?;
            }
        } else if meta.is_dir() {
            use std::os::unix::fs::MetadataExt as _;
            let layers_dir = state.overlay(path);
            std::fs::create_dir_all(&layers_dir)
                .with_context(|| format!("creating {}", layers_dir.display()))?;
            let upper = state.upper(path);
            make_dir(&upper, meta.mode() & 0o7777, owner(meta.uid()), owner(meta.gid()))?;
            // overlayfs's scratch: made afresh, in the block (the overlay's mounter, host
            // root, is only capable over files its view maps).
            let work = state.work(path);
            if std::fs::symlink_metadata(&work).is_ok() {
                std::fs::remove_dir_all(&work)
                    .with_context(|| format!("emptying {}", work.display()))?;
            }
            make_dir(&work, 0o700, owner(0), owner(0))?;
            if path == Path::new("/etc") {
                for (name, contents, replace) in &account {
                    write_account_file(&upper, name, contents, *replace, owner(0))?;
                }
                etc_shown = true;
            }
            overlays.push(Overlay { lower: source, layers: layers_dir, inside: path.to_owned() });
        } else if spec.template.rootfs.is_some() {
            binds.push((source, path.to_owned()));
        } else {
            read_only.push(path.to_owned());
        }
    }
    if !etc_shown {
        // No host /etc: the account files live on the root's own layer.
        let etc = root.join("etc");
        make_dir(&etc, 0o755, owner(0), owner(0))?;
        for (name, contents, _) in &account {
            write_account_file(&etc, name, contents, true, owner(0))?;
        }
    }

    // The daemon's read-only layers (language servers provisioned once per machine),
    // where a native sandbox has them: their store, where a layer made later appears
    // too (runsc's gofer does not see mounts made in the view after its start).
    if let Some(store) = layers {
        binds.push((store, PathBuf::from(crate::plan::LAYERS_DIR)));
    }
    let program_inside = crate::plan::program_inside(&payload.program)?;
    binds.push((payload.program.clone(), program_inside.clone()));

    let Payload { args, env, stdout, .. } = payload;
    let mut full_env = spec.template.env.clone();
    full_env.extend(env);
    let log = match stdout {
        Output::File(path) => path,
        _ => spec.state_dir.join("envd.log"),
    };
    let bundle = daemon_state.join(BUNDLES_DIR).join(&spec.id);
    Ok(GvisorSpec {
        id: spec.id.clone(),
        bundle,
        rootfs: root,
        overlays,
        read_only,
        binds,
        volumes,
        netns,
        ids,
        cgroup,
        args: std::iter::once(program_inside.display().to_string())
            .chain(args.iter().map(|arg| arg.to_string_lossy().into_owned()))
            .collect(),
        env: full_env.iter().map(|(key, value)| format!("{key}={value}")).collect(),
        cwd: spec.template.workdir.display().to_string(),
        log,
    })
}

/// Removes what a daemon that died left of gVisor sandboxes: every container under
/// `runsc`'s state and every bundle (its root's view unmounted).
pub fn clean_up(runsc: &Runsc, daemon_state: &Path) {
    let bundles = daemon_state.join(BUNDLES_DIR);
    let Ok(entries) = std::fs::read_dir(&bundles) else { return };
    for entry in entries.flatten() {
        let Some(id) = entry.file_name().to_str().map(str::to_owned) else { continue };
        let spec = GvisorSpec {
            id: id.clone(),
            bundle: entry.path(),
            rootfs: PathBuf::new(),
            overlays: Vec::new(),
            read_only: Vec::new(),
            binds: Vec::new(),
            volumes: Vec::new(),
            netns: None,
            ids: Some(crate::spec::IdRange { host_base: 0 }),
            cgroup: None,
            args: Vec::new(),
            env: Vec::new(),
            cwd: String::new(),
            log: PathBuf::new(),
        };
        if let Err(e) = runsc.destroy(&spec) {
            tracing::warn!(sandbox = %id, error = %e, "removing a leftover gvisor container");
        }
    }
}
