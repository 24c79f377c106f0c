//! The sandbox's account files, derived from the host's: `root` and `user` (1000:1000).

pub const USER_NAME: &str = "user";
pub const USER_UID: u32 = 1000;
pub const USER_GID: u32 = 1000;
pub const USER_HOME: &str = "/home/user";
pub const USER_SHELL: &str = "/bin/bash";

/// The host's passwd without entries that would clash with `user` (its name or uid
/// 1000), plus `user`; `root` is added if the host somehow lacks it.
pub fn passwd_with_user(host: &str) -> String {
    let mut out = String::new();
    let mut has_root = false;
    for line in host.lines() {
        let fields: Vec<&str> = line.split(':').collect();
        if fields.len() >= 7 {
            if fields[0] == USER_NAME || fields[2] == USER_UID.to_string() {
                continue;
            }
            has_root |= fields[0] == "root";
        }
        out.push_str(line);
        out.push('\n');
    }
    if !has_root {
        out.insert_str(0, "root:x:0:0:root:/root:/bin/bash\n");
    }
    out.push_str(&format!("{USER_NAME}:x:{USER_UID}:{USER_GID}::{USER_HOME}:{USER_SHELL}\n"));
    out
}

/// The host's group file without entries clashing with group `user` (name or gid
/// 1000), plus `user`; `root` is added if missing.
pub fn group_with_user(host: &str) -> String {
    let mut out = String::new();
    let mut has_root = false;
    for line in host.lines() {
        let fields: Vec<&str> = line.split(':').collect();
        if fields.len() >= 4 {
            if fields[0] == USER_NAME || fields[2] == USER_GID.to_string() {
                continue;
            }
            has_root |= fields[0] == "root";
        }
        out.push_str(line);
        out.push('\n');
    }
    if !has_root {
        out.insert_str(0, "root:x:0:\n");
    }
    out.push_str(&format!("{USER_NAME}:x:{USER_GID}:\n"));
    out
}

/// `/etc/hosts` for a sandbox: loopback names plus its own hostname.
pub fn hosts(id: &str) -> String {
    format!("127.0.0.1\tlocalhost\n::1\tlocalhost ip6-localhost ip6-loopback\n127.0.1.1\t{id}\n")
}

/// `/etc/hostname` for a sandbox.
pub fn hostname(id: &str) -> String {
    format!("{id}\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    const HOST_PASSWD: &str = "root:x:0:0:root:/root:/bin/bash\n\
        daemon:x:1:1:daemon:/usr/sbin:/usr/sbin/nologin\n\
        cloudsdk:x:1000:1000::/home/cloudsdk:/bin/bash\n\
        user:x:1001:1001::/home/user:/bin/sh\n\
        postgres:x:101:104:PostgreSQL administrator,,,:/var/lib/postgresql:/bin/bash\n";

    #[test]
    fn passwd_drops_clashing_entries_and_appends_user() {
        assert_eq!(
            passwd_with_user(HOST_PASSWD),
            "root:x:0:0:root:/root:/bin/bash\n\
             daemon:x:1:1:daemon:/usr/sbin:/usr/sbin/nologin\n\
             postgres:x:101:104:PostgreSQL administrator,,,:/var/lib/postgresql:/bin/bash\n\
             user:x:1000:1000::/home/user:/bin/bash\n"
        );
    }

    #[test]
    fn group_drops_clashing_entries_and_appends_user() {
        let host =
            "root:x:0:\ntty:x:5:\ncloudsdk:x:1000:\nuser:x:1002:alice\nssl-cert:x:103:postgres\n";
        assert_eq!(
            group_with_user(host),
            "root:x:0:\ntty:x:5:\nssl-cert:x:103:postgres\nuser:x:1000:\n"
        );
    }

    #[test]
    fn root_is_added_when_the_host_lacks_it() {
        assert_eq!(
            passwd_with_user(""),
            "root:x:0:0:root:/root:/bin/bash\nuser:x:1000:1000::/home/user:/bin/bash\n"
        );
        assert_eq!(group_with_user("# comment\n"), "root:x:0:\n# comment\nuser:x:1000:\n");
    }

    #[test]
    fn hosts_and_hostname_name_the_sandbox() {
        assert_eq!(hostname("sbx-1"), "sbx-1\n");
        assert!(hosts("sbx-1").ends_with("127.0.1.1\tsbx-1\n"));
    }
}
