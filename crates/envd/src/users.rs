//! The sandbox's users, read from `/etc/passwd` and `/etc/group`.
//!
//! Parsed by hand rather than through libc's `getpwnam`: the files are tiny, parsing is
//! async-safe, and a reload when their mtime changes keeps `useradd` inside the sandbox
//! visible without restarting envd.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, RwLock};
use std::time::SystemTime;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct User {
    pub name: String,
    pub uid: u32,
    pub gid: u32,
    pub home: PathBuf,
    pub shell: String,
    /// Supplementary groups, the primary group included.
    pub groups: Vec<u32>,
}

#[derive(Debug, Default)]
struct Snapshot {
    stamp: Option<(SystemTime, SystemTime)>,
    users: HashMap<String, User>,
    user_names: HashMap<u32, String>,
    group_names: HashMap<u32, String>,
}

/// Lookups against the passwd and group files, reloaded when either changes.
#[derive(Debug, Clone)]
pub struct UserDb {
    passwd: PathBuf,
    group: PathBuf,
    snapshot: Arc<RwLock<Arc<Snapshot>>>,
}

impl UserDb {
    pub fn system() -> Self {
        Self::from_files("/etc/passwd", "/etc/group")
    }

    pub fn from_files(passwd: impl Into<PathBuf>, group: impl Into<PathBuf>) -> Self {
        Self {
            passwd: passwd.into(),
            group: group.into(),
            snapshot: Arc::new(RwLock::new(Arc::new(Snapshot::default()))),
        }
    }

    fn current(&self) -> Arc<Snapshot> {
        let stamp = modified(&self.passwd).zip(modified(&self.group));
        if let Ok(snapshot) = self.snapshot.read()
            && snapshot.stamp.is_some()
            && snapshot.stamp == stamp
        {
            return Arc::clone(&snapshot);
        }
        let passwd = std::fs::read_to_string(&self.passwd).unwrap_or_default();
        let group = std::fs::read_to_string(&self.group).unwrap_or_default();
        let fresh = Arc::new(parse(stamp, &passwd, &group));
        if let Ok(mut slot) = self.snapshot.write() {
            *slot = Arc::clone(&fresh);
        }
        fresh
    }

    pub fn lookup(&self, name: &str) -> Option<User> {
        self.current().users.get(name).cloned()
    }

    /// The user name for `uid`, or the number as text when it has no entry.
    pub fn user_name(&self, uid: u32) -> String {
        self.current().user_names.get(&uid).cloned().unwrap_or_else(|| uid.to_string())
    }

    /// The group name for `gid`, or the number as text when it has no entry.
    pub fn group_name(&self, gid: u32) -> String {
        self.current().group_names.get(&gid).cloned().unwrap_or_else(|| gid.to_string())
    }
}

fn modified(path: &Path) -> Option<SystemTime> {
    std::fs::metadata(path).and_then(|m| m.modified()).ok()
}

fn parse(stamp: Option<(SystemTime, SystemTime)>, passwd: &str, group: &str) -> Snapshot {
    let mut snapshot = Snapshot { stamp, ..Snapshot::default() };
    let mut members: HashMap<&str, Vec<u32>> = HashMap::new();
    for line in group.lines() {
        let fields: Vec<&str> = line.split(':').collect();
        let [name, _, gid, list] = fields[..] else { continue };
        let Ok(gid) = gid.parse::<u32>() else { continue };
        snapshot.group_names.entry(gid).or_insert_with(|| name.to_owned());
        for member in list.split(',').filter(|m| !m.is_empty()) {
            members.entry(member).or_default().push(gid);
        }
    }
    for line in passwd.lines() {
        let fields: Vec<&str> = line.split(':').collect();
        let [name, _, uid, gid, _, home, shell] = fields[..] else { continue };
        let (Ok(uid), Ok(gid)) = (uid.parse::<u32>(), gid.parse::<u32>()) else { continue };
        let mut groups = vec![gid];
        for extra in members.get(name).into_iter().flatten() {
            if !groups.contains(extra) {
                groups.push(*extra);
            }
        }
        snapshot.user_names.entry(uid).or_insert_with(|| name.to_owned());
        snapshot.users.entry(name.to_owned()).or_insert(User {
            name: name.to_owned(),
            uid,
            gid,
            home: PathBuf::from(home),
            shell: shell.to_owned(),
            groups,
        });
    }
    snapshot
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn parses_users_groups_and_membership() {
        let dir = tempfile::tempdir().unwrap();
        let passwd = dir.path().join("passwd");
        let group = dir.path().join("group");
        std::fs::write(
            &passwd,
            "root:x:0:0:root:/root:/bin/bash\n# comment\nbroken line\nuser:x:1000:1000::/home/user:/bin/bash\n",
        )
        .unwrap();
        std::fs::write(&group, "root:x:0:\nuser:x:1000:\ndocker:x:999:user,other\n").unwrap();
        let db = UserDb::from_files(&passwd, &group);
        let user = db.lookup("user").unwrap();
        assert_eq!(user.uid, 1000);
        assert_eq!(user.home, PathBuf::from("/home/user"));
        assert_eq!(user.groups, vec![1000, 999]);
        assert_eq!(db.lookup("root").unwrap().groups, vec![0]);
        assert_eq!(db.lookup("nobody-here"), None);
        assert_eq!(db.user_name(1000), "user");
        assert_eq!(db.user_name(4242), "4242");
        assert_eq!(db.group_name(999), "docker");
        assert_eq!(db.group_name(4242), "4242");
    }
}
