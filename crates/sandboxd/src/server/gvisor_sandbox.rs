//! A sandbox whose record names `runtime: "gvisor"`: its root and bundle made from the
//! same [`SandboxSpec`] a native launch gets, and its container started with runsc
//! (`gvisor.rs`), or restored from the checkpoint its directory holds. The daemon then
//! treats it as any other: the sandbox's network (pinned namespace, pasta, egress rules)
//! is the same, with gVisor's own namespace linked behind it (`gvisor_net.rs`), where
//! envd is reached at the guest's address; `running.rs` stops and kills it.
//!
//! What differs from a native sandbox, for now: the host's shown directories are
//! read-only (a native sandbox writes over them into its own layer), the root is a plain
//! directory of the sandbox's (`gvisor-root`, copied by forks and snapshots as the rest),
//! and image templates are not run (host templates only). runsc starts in the cgroup a
//! native sandbox would have, made with its limits (memory, tasks, CPU), so the container
//! and gVisor's memory (its sentry's shared memory) are limited and sampled there.
//! Volumes are shown as a native sandbox's are (an idmapped view of their block).
//! A pause that keeps memory writes it to disk ([`MEMORY_DIR`]).

use std::path::{Path, PathBuf};

use anyhow::{Context, bail};

use crate::gvisor::{Container, GvisorSpec, Runsc};
use crate::launch::{Output, Payload};
use crate::spec::{Net, SandboxSpec};

/// The sandbox's root, inside its state directory.
pub const ROOT_DIR: &str = "gvisor-root";
/// Account and resolver files shown over the host's `/etc`, inside its state directory.
const ETC_DIR: &str = "gvisor-etc";
/// Bundles (and the idmapped views of roots) under the daemon's state directory: outside
/// the sandboxes' directories, whose kill checks that no mount is left in them.
pub const BUNDLES_DIR: &str = "runsc-bundles";
/// The checkpoint of a sandbox paused with its memory, inside its state directory (so
/// that it counts against its disk quota and a fork's copy of the directory has it).
pub const MEMORY_DIR: &str = "memory";
/// A directory of the host's `/usr` the sandbox writes to: envd plants `sudo` and the
/// `python`/`pip` aliases there, as in a native sandbox (whose `/usr` is an overlay). Under
/// gVisor it is a directory in gVisor's memory (kept by checkpoints, made afresh at a cold
/// start) holding each of the host's entries, shown read-only.
pub const SCRATCH_BIN: &str = "/usr/local/bin";
/// More entries than this in the host's [`SCRATCH_BIN`], and it is shown read-only as it
/// is (one mount per entry).
const SCRATCH_ENTRIES_MAX: usize = 256;

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

/// The container's spec: its root and account files made, the template's host
/// directories shown.
fn gvisor_spec(
    daemon_state: &Path,
    spec: &SandboxSpec,
    payload: Payload,
    cgroup: Option<crate::cgroup::SandboxCgroup>,
    layers: Option<PathBuf>,
) -> anyhow::Result<GvisorSpec> {
    if spec.template.rootfs.is_some() {
        bail!("the gvisor runtime runs host templates only (not image templates) for now");
    }
    // The daemon reaches envd through the sandbox's namespace, linked to gVisor's.
    let netns = match (spec.net, &spec.netns) {
        (Net::Private, Some(pin)) => Some(pin.clone()),
        (net, _) => bail!("the gvisor runtime needs a private network, not {net:?}"),
    };
    let ids = spec.isolation.files_block();
    let owner = |inside: u32| spec.isolation.files_id(inside);
    let root = spec.state_dir.join(ROOT_DIR);
    // The root is the sandbox's to change while it runs: what it left at these paths
    // is never followed (a symlink `home -> /etc` would have the daemon make and chown
    // `/etc/user` on the host). A directory stays; anything else is replaced.
    let make_dir = |path: &Path, mode: u32, uid: u32| -> anyhow::Result<()> {
        match std::fs::symlink_metadata(path) {
            Ok(meta) if meta.is_dir() => return Ok(()),
            Ok(_) => std::fs::remove_file(path)
                .with_context(|| format!("removing what the sandbox left at {}", path.display()))?,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(e).with_context(|| format!("inspecting {}", path.display())),
        }
        std::fs::create_dir(path).with_context(|| format!("creating {}", path.display()))?;
        std::os::unix::fs::lchown(path, Some(owner(uid)), Some(owner(uid)))
            .with_context(|| format!("chown {}", path.display()))?;
        std::fs::set_permissions(path, std::os::unix::fs::PermissionsExt::from_mode(mode))
            .with_context(|| format!("chmod {}", path.display()))?;
        Ok(())
    };
    make_dir(&root, 0o755, 0)?;
    make_dir(&root.join("root"), 0o700, 0)?;
    make_dir(&root.join("home"), 0o755, 0)?;
    make_dir(&root.join("home/user"), 0o755, crate::users::USER_UID)?;

    let mut read_only = Vec::new();
    for path in &spec.template.read_only_paths {
        match std::fs::symlink_metadata(path) {
            Ok(meta) if meta.file_type().is_symlink() => {
                let link = root.join(path.strip_prefix("/").unwrap_or(path));
                if std::fs::symlink_metadata(&link).is_err() {
                    let target = std::fs::read_link(path)?;
                    std::os::unix::fs::symlink(&target, &link)
                        .with_context(|| format!("linking {}", link.display()))?;
                }
            }
            Ok(_) => read_only.push(path.clone()),
            Err(_) => {}
        }
    }

    // The host's account files with the sandbox's `user`, its name and its resolver.
    let etc = spec.state_dir.join(ETC_DIR);
    std::fs::create_dir_all(&etc).with_context(|| format!("creating {}", etc.display()))?;
    let host =
        |name: &str| std::fs::read_to_string(Path::new("/etc").join(name)).unwrap_or_default();
    let mut files = vec![
        ("passwd", crate::users::passwd_with_user(&host("passwd"))),
        ("group", crate::users::group_with_user(&host("group"))),
        ("hostname", crate::users::hostname(&spec.id)),
        ("hosts", crate::users::hosts(&spec.id)),
    ];
    if spec.net == Net::Private {
        files.push(("resolv.conf", format!("nameserver {}\n", crate::spec::private_net::DNS)));
    }
    let mut binds = Vec::new();
    for (name, contents) in files {
        let path = etc.join(name);
        std::fs::write(&path, contents).with_context(|| format!("writing {}", path.display()))?;
        binds.push((path, Path::new("/etc").join(name)));
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
    let (mut scratch, mut links) = (Vec::new(), Vec::new());
    let host_bin: Vec<PathBuf> = std::fs::read_dir(SCRATCH_BIN)
        .map(|entries| entries.flatten().map(|entry| entry.path()).collect())
        .unwrap_or_default();
    if Path::new(SCRATCH_BIN).is_dir() && host_bin.len() <= SCRATCH_ENTRIES_MAX {
        scratch.push(PathBuf::from(SCRATCH_BIN));
        // runsc resolves a mount's destination through the host's links, so a link is
        // not shown by a mount: envd makes it again (`--command-alias NAME=/target`).
        for path in host_bin {
            let Ok(meta) = std::fs::symlink_metadata(&path) else { continue };
            if !meta.file_type().is_symlink() {
                binds.push((path.clone(), path));
            } else if let (Some(name), Ok(target)) =
                (path.file_name(), std::fs::canonicalize(&path))
            {
                links.push(format!("{}={}", name.to_string_lossy(), target.display()));
            }
        }
    }
    let bundle = daemon_state.join(BUNDLES_DIR).join(&spec.id);
    Ok(GvisorSpec {
        id: spec.id.clone(),
        bundle,
        rootfs: root,
        read_only,
        binds,
        scratch,
        volumes: spec.volumes.clone(),
        netns,
        ids,
        cgroup,
        args: std::iter::once(program_inside.display().to_string())
            .chain(args.iter().map(|arg| arg.to_string_lossy().into_owned()))
            .chain(links.into_iter().flat_map(|link| ["--command-alias".to_owned(), link]))
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
            read_only: Vec::new(),
            binds: Vec::new(),
            scratch: Vec::new(),
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
