//! Templates: which host directories a sandbox sees, its base environment and workdir.

use std::collections::BTreeMap;
use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};

/// Name of the default template.
pub const BASE: &str = "base";

/// What a sandbox is made of.
///
/// Every path in `read_only_paths` is shown inside at the same path. A directory becomes
/// an overlay (lower = the host directory, never written; upper = the sandbox's state), a
/// symlink is recreated as the same symlink, a file is bind-mounted read-only, and a
/// missing path is skipped. Paths nested in another listed path are already covered by
/// it and are skipped.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Template {
    pub name: String,
    pub read_only_paths: Vec<PathBuf>,
    /// Base environment of the payload; the caller's environment is applied over it.
    pub env: BTreeMap<String, String>,
    /// Working directory of the payload inside the sandbox.
    pub workdir: PathBuf,
    /// Where the shown paths come from: the host's own (`None`), or an unpacked image's
    /// root (`read_only_paths` are then paths inside it, each shown at the same place).
    #[serde(default)]
    pub rootfs: Option<PathBuf>,
    /// What every process in the sandbox gets (below the create's `envVars`): an
    /// image's `ENV`. Not the payload's: envd keeps [`Template::env`].
    #[serde(default)]
    pub process_env: BTreeMap<String, String>,
}

impl Template {
    /// The host path shown at `inside`.
    pub fn source(&self, inside: &std::path::Path) -> PathBuf {
        match &self.rootfs {
            Some(root) => root.join(inside.strip_prefix("/").unwrap_or(inside)),
            None => inside.to_owned(),
        }
    }

    /// The default: the host's system directories, so the host's toolchains (`node`,
    /// `python3`, npm globals under `/usr/lib/node_modules`, `/usr/local`) work inside.
    pub fn base() -> Template {
        let read_only_paths = ["/usr", "/bin", "/sbin", "/lib", "/lib64", "/lib32", "/etc", "/opt"]
            .into_iter()
            .map(PathBuf::from)
            .collect();
        let env = [
            ("PATH", "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"),
            ("LANG", "C.UTF-8"),
            ("HOME", "/root"),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_owned(), v.to_owned()))
        .collect();
        Template {
            name: BASE.to_owned(),
            read_only_paths,
            env,
            workdir: PathBuf::from(crate::users::USER_HOME),
            rootfs: None,
            process_env: BTreeMap::new(),
        }
    }
}

/// A registry of templates by name; starts with the built-in ones.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Templates {
    by_name: BTreeMap<String, Template>,
}

impl Default for Templates {
    fn default() -> Self {
        Self::builtin()
    }
}

impl Templates {
    /// The built-in templates (`base`).
    pub fn builtin() -> Self {
        let mut templates = Templates { by_name: BTreeMap::new() };
        templates.insert(Template::base());
        templates
    }

    /// Adds (or replaces) a template; returns the one it replaced.
    pub fn insert(&mut self, template: Template) -> Option<Template> {
        self.by_name.insert(template.name.clone(), template)
    }

    /// Looks a template up by name.
    pub fn get(&self, name: &str) -> Result<&Template> {
        self.by_name.get(name).ok_or_else(|| Error::UnknownTemplate {
            name: name.to_owned(),
            known: self.names().collect::<Vec<_>>().join(", "),
        })
    }

    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.by_name.keys().map(String::as_str)
    }
}

/// Looks a built-in template up by name.
pub fn builtin(name: &str) -> Result<Template> {
    Templates::builtin().get(name).cloned()
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;

    #[test]
    fn base_is_the_default_and_lists_the_system_directories() {
        let base = builtin("base").unwrap();
        let paths: Vec<_> = base.read_only_paths.iter().map(|p| p.to_str().unwrap()).collect();
        assert_eq!(paths, ["/usr", "/bin", "/sbin", "/lib", "/lib64", "/lib32", "/etc", "/opt"]);
        assert_eq!(base.workdir, PathBuf::from("/home/user"));
        assert_eq!(
            base.env.get("PATH").map(String::as_str),
            Some("/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin")
        );
    }

    #[test]
    fn unknown_template_is_a_typed_error_naming_the_known_ones() {
        let err = builtin("gpu").unwrap_err();
        assert!(
            matches!(&err, Error::UnknownTemplate { name, known } if name == "gpu" && known == "base"),
            "{err:?}"
        );
        assert_eq!(err.to_string(), "unknown template \"gpu\" (known templates: base)");
    }

    #[test]
    fn registry_accepts_custom_templates() {
        let mut templates = Templates::builtin();
        let mut data = Template::base();
        data.name = "data".into();
        data.read_only_paths.push("/srv/datasets".into());
        assert!(templates.insert(data.clone()).is_none());
        assert_eq!(templates.get("data").unwrap(), &data);
        assert_eq!(templates.names().collect::<Vec<_>>(), ["base", "data"]);
    }
}
