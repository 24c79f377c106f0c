//! Path resolution shared by the filesystem RPCs, process cwd and `/files` (fact sheet
//! §2.3): empty → default workdir or home; `~` → home; relative → joined to HOME (not
//! the workdir); then cleaned lexically.

use std::path::{Component, Path, PathBuf};

use dsh_proto::connect::ConnectError;

use crate::users::User;

pub fn resolve(
    path: &str,
    user: &User,
    default_workdir: Option<&Path>,
) -> Result<PathBuf, ConnectError> {
    // No system call takes a path with a NUL in it; saying so beats an I/O error.
    if path.contains('\0') {
        return Err(ConnectError::invalid_argument(format!("path {path:?} contains a NUL byte")));
    }
    if path.is_empty() {
        return Ok(match default_workdir {
            Some(workdir) => clean(workdir),
            None => clean(&user.home),
        });
    }
    if let Some(rest) = path.strip_prefix('~') {
        if rest.is_empty() {
            return Ok(clean(&user.home));
        }
        let Some(below_home) = rest.strip_prefix('/') else {
            return Err(ConnectError::invalid_argument(format!(
                "path '{path}': '~user' expansion is not supported"
            )));
        };
        return Ok(clean(&user.home.join(below_home)));
    }
    let path = Path::new(path);
    if path.is_absolute() { Ok(clean(path)) } else { Ok(clean(&user.home.join(path))) }
}

/// Lexical cleaning like Go's `filepath.Clean`: drops `.`, folds `..`, never escapes `/`.
pub fn clean(path: &Path) -> PathBuf {
    let mut out = PathBuf::from("/");
    for component in path.components() {
        match component {
            Component::Normal(part) => out.push(part),
            Component::ParentDir => {
                out.pop();
            }
            Component::RootDir | Component::CurDir | Component::Prefix(_) => {}
        }
    }
    out
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use dsh_proto::connect::Code;

    fn user() -> User {
        User {
            name: "user".into(),
            uid: 1000,
            gid: 1000,
            home: "/home/user".into(),
            shell: "/bin/bash".into(),
            groups: vec![1000],
        }
    }

    #[test]
    fn resolution_follows_envd_rules() {
        let u = user();
        let workdir = Path::new("/work/dir");
        let cases = [
            ("", None, "/home/user"),
            ("", Some(workdir), "/work/dir"),
            ("~", None, "/home/user"),
            ("~/a/b", None, "/home/user/a/b"),
            ("a.txt", Some(workdir), "/home/user/a.txt"),
            ("./x/../y", None, "/home/user/y"),
            ("/etc/../tmp/./f", None, "/tmp/f"),
            ("/../../", None, "/"),
            ("../../../../etc", None, "/etc"),
        ];
        for (input, dir, expected) in cases {
            assert_eq!(resolve(input, &u, dir).unwrap(), PathBuf::from(expected), "{input:?}");
        }
        assert_eq!(resolve("~root/x", &u, None).unwrap_err().code, Code::InvalidArgument);
        let nul = resolve("/tmp/a\0b", &u, None).unwrap_err();
        assert_eq!(
            (nul.code, nul.message.as_str()),
            (Code::InvalidArgument, "path \"/tmp/a\\0b\" contains a NUL byte")
        );
    }
}
