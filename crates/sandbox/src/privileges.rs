//! Can this process create sandboxes? Checked before cloning so the caller gets a
//! precise [`Missing`] instead of a bare EPERM.

use std::fs;

use caps::{CapSet, Capability};

use crate::error::Missing;

/// What decides whether namespaces can be created.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Facts {
    pub euid: u32,
    pub cap_sys_admin: bool,
    /// `Ok` if unprivileged user namespaces are available, else why not.
    pub user_namespaces: Result<(), String>,
}

impl Facts {
    pub fn of_this_process() -> Facts {
        Facts {
            euid: rustix::process::geteuid().as_raw(),
            cap_sys_admin: has_effective(Capability::CAP_SYS_ADMIN),
            user_namespaces: unprivileged_user_namespaces(),
        }
    }
}

/// The decision, as a pure function of the facts.
pub fn classify(facts: &Facts) -> Result<(), Missing> {
    if facts.euid != 0 {
        return Err(match &facts.user_namespaces {
            Err(why) => {
                Missing::RootAndUserNamespaces { euid: facts.euid, user_namespaces: why.clone() }
            }
            Ok(()) => Missing::Root { euid: facts.euid },
        });
    }
    if !facts.cap_sys_admin {
        return Err(Missing::CapSysAdmin);
    }
    Ok(())
}

/// Whether this process may raise hard rlimits (containers often drop the capability).
pub fn can_raise_hard_limits() -> bool {
    // Root of a user's namespace holds the bit, but the kernel checks rlimits against
    // the host's namespace.
    has_effective(Capability::CAP_SYS_RESOURCE) && crate::ids::blocks_inside().is_none()
}

/// Checks this process.
pub fn check() -> Result<(), Missing> {
    classify(&Facts::of_this_process())
}

/// What strict isolation needs beyond [`check`]: user namespaces, and idmapped mounts
/// of overlay lower layers (Linux 5.19).
pub fn check_strict() -> Result<(), Missing> {
    check()?;
    let release = fs::read_to_string("/proc/sys/kernel/osrelease").unwrap_or_default();
    strict_supported(
        &release,
        fs::read_to_string("/proc/sys/user/max_user_namespaces").ok().as_deref(),
    )
}

/// The decision of [`check_strict`] as a pure function of the kernel release and
/// `user.max_user_namespaces`.
pub fn strict_supported(release: &str, max_user_namespaces: Option<&str>) -> Result<(), Missing> {
    match max_user_namespaces.map(str::trim) {
        None => {
            return Err(Missing::StrictIsolation {
                what: "the kernel has no user namespaces".into(),
            });
        }
        Some("0") => {
            return Err(Missing::StrictIsolation {
                what: "user.max_user_namespaces is 0 (set it above 0 with sysctl)".into(),
            });
        }
        Some(_) => {}
    }
    let mut numbers = release.trim().split(|c: char| !c.is_ascii_digit()).filter(|s| !s.is_empty());
    let major: u32 = numbers.next().and_then(|n| n.parse().ok()).unwrap_or(0);
    let minor: u32 = numbers.next().and_then(|n| n.parse().ok()).unwrap_or(0);
    if (major, minor) < (5, 19) {
        return Err(Missing::StrictIsolation {
            what: format!(
                "Linux {} has no idmapped overlay layers (5.19 or later is needed)",
                release.trim()
            ),
        });
    }
    Ok(())
}

/// Whether this thread holds `capability` in its effective set (capget(2)); `false` when
/// the kernel does not say.
fn has_effective(capability: Capability) -> bool {
    caps::has_cap(None, CapSet::Effective, capability).unwrap_or(false)
}

/// `Ok` when an ordinary user may make user namespaces, else why not.
pub fn unprivileged_user_namespaces() -> Result<(), String> {
    let read = |path: &str| fs::read_to_string(path).ok().map(|s| s.trim().to_owned());
    match read("/proc/sys/user/max_user_namespaces").as_deref() {
        None => return Err("the kernel has no user namespaces".into()),
        Some("0") => return Err("user.max_user_namespaces is 0".into()),
        Some(_) => {}
    }
    if read("/proc/sys/kernel/unprivileged_userns_clone").as_deref() == Some("0") {
        return Err("kernel.unprivileged_userns_clone is 0".into());
    }
    if read("/proc/sys/kernel/apparmor_restrict_unprivileged_userns").as_deref() == Some("1") {
        return Err("kernel.apparmor_restrict_unprivileged_userns is 1".into());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;

    #[test]
    fn effective_capabilities_are_those_proc_reports() {
        let status = fs::read_to_string("/proc/self/status").unwrap();
        let cap_eff = status.lines().find_map(|l| l.strip_prefix("CapEff:")).unwrap();
        let cap_eff = u64::from_str_radix(cap_eff.trim(), 16).unwrap();
        for capability in [Capability::CAP_SYS_ADMIN, Capability::CAP_SYS_RESOURCE] {
            let bit = cap_eff & (1 << capability.index()) != 0;
            assert_eq!(has_effective(capability), bit, "{capability}");
        }
    }

    #[test]
    fn root_with_cap_sys_admin_may_create_sandboxes() {
        let facts = Facts {
            euid: 0,
            cap_sys_admin: true,
            user_namespaces: Err("user.max_user_namespaces is 0".into()),
        };
        assert_eq!(classify(&facts), Ok(()));
    }

    #[test]
    fn missing_privileges_are_named() {
        let no_userns = Facts {
            euid: 1000,
            cap_sys_admin: false,
            user_namespaces: Err("user.max_user_namespaces is 0".into()),
        };
        let err = classify(&no_userns).unwrap_err();
        assert_eq!(
            err.to_string(),
            "not running as root (euid 1000) and unprivileged user namespaces are unavailable (user.max_user_namespaces is 0); run dsh-sandboxd as root"
        );

        let userns = Facts { user_namespaces: Ok(()), ..no_userns };
        assert_eq!(classify(&userns), Err(Missing::Root { euid: 1000 }));

        let capless_root = Facts { euid: 0, cap_sys_admin: false, user_namespaces: Ok(()) };
        assert_eq!(classify(&capless_root), Err(Missing::CapSysAdmin));
    }

    #[test]
    fn strict_isolation_needs_user_namespaces_and_linux_5_19() {
        assert_eq!(strict_supported("6.18.44-fc-v857\n", Some("96364\n")), Ok(()));
        assert_eq!(strict_supported("5.19.0", Some("10")), Ok(()));
        assert_eq!(
            strict_supported("5.15.0-91-generic", Some("10")).unwrap_err().to_string(),
            "strict isolation is unavailable: Linux 5.15.0-91-generic has no idmapped overlay layers (5.19 or later is needed); set [sandboxd] isolation = \"namespaces\" in dsh.toml only for code you trust"
        );
        assert!(strict_supported("6.1.0", Some("0")).is_err());
        assert!(strict_supported("6.1.0", None).is_err());
    }

    #[test]
    fn this_test_process_is_root_as_on_ci() {
        // The integration tests need root; make a missing privilege obvious here.
        assert_eq!(check(), Ok(()), "{:?}", Facts::of_this_process());
    }
}
