//! `sudo` inside a sandbox without setuid: envd (root of the sandbox) runs a privilege
//! service on a unix socket, and the `sudo` program is a client of it.
//!
//! setuid cannot work in a dsh sandbox (`no_new_privs`, every writable mount `nosuid`),
//! and the host may have no sudo at all. So the client (`sudo …`, an argv dispatch of
//! this binary: see [`client`]) connects to [`DEFAULT_SOCKET`], hands over its stdin,
//! stdout and stderr with `SCM_RIGHTS` together with a [`Request`], and envd starts the
//! command as the target user with those descriptors ([`server`]). Signals the client
//! gets are relayed to the command's process group; when the client goes away the group
//! is killed; the command's end comes back as a [`Reply`].
//!
//! Wire: frames of a big-endian `u32` length and that many bytes of JSON, both ways. The
//! client's first frame is its [`Request`] (the three descriptors ride on its first
//! byte); later ones are [`ClientFrame`]s. The server answers with one [`Reply`].
//!
//! dsh-sandboxd offers this only under strict isolation, where the sandbox's root is an
//! unprivileged host uid: see `docs/sandboxes.md`.

pub mod client;
pub mod server;

use std::collections::BTreeMap;
use std::path::Path;

use serde::{Deserialize, Serialize};

/// Where dsh-sandboxd has envd listen: `/run` is a fresh tmpfs of the sandbox owned by
/// its root, so only root inside can create or replace anything in `/run/dsh`.
pub const DEFAULT_SOCKET: &str = "/run/dsh/sudo.sock";

/// Overrides [`DEFAULT_SOCKET`] for the client (tests run envd outside a sandbox). It
/// grants nothing: whoever sets it only points their own client elsewhere.
pub const SOCKET_ENV: &str = "DSH_SUDO_SOCKET";

/// The first argument that selects the client in `dsh-envd __sudo ARGS…`.
pub const CLIENT_ARG: &str = "__sudo";

/// The largest request: argv plus the caller's environment (`-E` sends all of it).
/// Linux's own limit for argv + envp of one exec is 2 MiB; a quarter of that is plenty.
pub const MAX_REQUEST_BYTES: usize = 512 * 1024;

/// The largest later frame (signal relays, replies).
pub const MAX_FRAME_BYTES: usize = 64 * 1024;

/// sudo's default `secure_path` on Debian: the PATH of a command run with a reset
/// environment.
pub const SECURE_PATH: &str = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";

/// How the command is started.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Mode {
    /// `sudo CMD…`: the command itself, found on the PATH.
    #[default]
    Command,
    /// `sudo -s [CMD…]`: a shell (`$SHELL`, else the target's), `-c CMD…` if given.
    Shell,
    /// `sudo -i [CMD…]`: the target's login shell in its home, `-c CMD…` if given.
    Login,
}

/// What the client asks for. Every field may be missing in what arrives; the server
/// validates it all.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct Request {
    pub argv: Vec<String>,
    /// `None`: root.
    pub user: Option<String>,
    pub mode: Mode,
    /// `-E`: keep the caller's whole environment.
    pub preserve_env: bool,
    /// `--preserve-env=A,B`: keep these variables of the caller's.
    pub keep: Vec<String>,
    /// `-H`: HOME is the target's even with `-E`.
    pub set_home: bool,
    /// The caller's environment.
    pub env: BTreeMap<String, String>,
    /// The caller's working directory.
    pub cwd: Option<String>,
}

/// What the client sends after its request.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ClientFrame {
    /// Deliver this signal to the command's process group.
    Signal { signal: i32 },
}

/// The server's one answer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Reply {
    /// The command exited with this code.
    Exit { code: i32 },
    /// The command was killed by this signal.
    Signal { signal: i32 },
    /// Nothing was run (or it could not be waited for): say this on stderr, exit 1.
    Error { message: String },
}

/// Signals the client relays (sudo relays these too); any other number in a
/// [`ClientFrame::Signal`] is ignored.
pub const RELAYED_SIGNALS: &[i32] =
    &[libc::SIGHUP, libc::SIGINT, libc::SIGQUIT, libc::SIGTERM, libc::SIGUSR1, libc::SIGUSR2];

/// `len(u32, big-endian) ++ json`.
pub fn encode<T: Serialize>(value: &T) -> Vec<u8> {
    // Serializing these plain structs cannot fail; an empty body would be refused by
    // the peer as malformed rather than crash anything.
    let body = serde_json::to_vec(value).unwrap_or_default();
    let mut frame = Vec::with_capacity(4 + body.len());
    frame.extend_from_slice(&(body.len() as u32).to_be_bytes());
    frame.extend_from_slice(&body);
    frame
}

/// The `sudo` program planted on the PATH when the service is on: it runs this binary
/// (`invocation`: the program and the arguments that select envd, e.g.
/// `/.dsh/bin/dsh __envd`) as the client. A script rather than a symlink: the program
/// dsh-sandboxd starts as envd may be `dsh`, whose own argv[0] dispatch is not envd's.
pub fn client_script(invocation: &[String]) -> String {
    let mut words: Vec<String> = invocation.iter().map(|word| shell_quote(word)).collect();
    words.push(CLIENT_ARG.to_owned());
    format!(
        "#!/bin/sh\n# sudo through dsh-envd's privilege service (root of this sandbox is not \
         root of the host).\nexec {} \"$@\"\n",
        words.join(" ")
    )
}

/// The `sudo` program planted when the service is off: it says why and fails.
pub fn refusal_script(reason: &str) -> String {
    format!("#!/bin/sh\necho {} >&2\nexit 1\n", shell_quote(&format!("sudo: {reason}")))
}

/// Writes `script` at `path` (mode 0755), replacing what is there, atomically: a
/// temporary file beside it, then `rename`. envd runs as root *inside* the sandbox, so
/// this can only touch what the sandbox's root may touch anyway.
pub fn install(path: &Path, script: &str) -> std::io::Result<()> {
    use std::io::Write as _;
    use std::os::unix::fs::OpenOptionsExt as _;
    let Some(dir) = path.parent() else {
        return Err(std::io::Error::new(std::io::ErrorKind::InvalidInput, "no parent directory"));
    };
    std::fs::create_dir_all(dir)?;
    let temporary = dir.join(format!(".sudo.dsh-{}", std::process::id()));
    let _ = std::fs::remove_file(&temporary);
    let mut file =
        std::fs::OpenOptions::new().write(true).create_new(true).mode(0o755).open(&temporary)?;
    file.write_all(script.as_bytes())?;
    drop(file);
    std::fs::rename(&temporary, path).inspect_err(|_| {
        let _ = std::fs::remove_file(&temporary);
    })
}

/// `word` as one POSIX shell word.
pub fn shell_quote(word: &str) -> String {
    if !word.is_empty()
        && word.bytes().all(|b| b.is_ascii_alphanumeric() || b"/._-=:,+@%".contains(&b))
    {
        return word.to_owned();
    }
    format!("'{}'", word.replace('\'', "'\\''"))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn frames_are_length_prefixed_json() {
        let frame = encode(&Reply::Exit { code: 7 });
        let body = br#"{"type":"exit","code":7}"#;
        assert_eq!(&frame[..4], &(body.len() as u32).to_be_bytes());
        assert_eq!(&frame[4..], body);
        let signal: ClientFrame =
            serde_json::from_slice(br#"{"type":"signal","signal":2}"#).unwrap();
        assert_eq!(signal, ClientFrame::Signal { signal: 2 });
        // Missing fields take defaults: the server validates what is left.
        let request: Request = serde_json::from_slice(br#"{"argv":["id"]}"#).unwrap();
        assert_eq!(request, Request { argv: vec!["id".into()], ..Request::default() });
    }

    #[test]
    fn scripts_quote_every_word() {
        assert_eq!(
            client_script(&["/.dsh/bin/dsh".into(), "__envd".into()]),
            "#!/bin/sh\n# sudo through dsh-envd's privilege service (root of this sandbox is \
             not root of the host).\nexec /.dsh/bin/dsh __envd __sudo \"$@\"\n"
        );
        assert_eq!(
            refusal_script("it's off"),
            "#!/bin/sh\necho 'sudo: it'\\''s off' >&2\nexit 1\n"
        );
        assert_eq!(shell_quote(""), "''");
        assert_eq!(shell_quote("a b"), "'a b'");
    }

    #[test]
    fn install_replaces_atomically() {
        use std::os::unix::fs::PermissionsExt as _;
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("usr/local/bin/sudo");
        install(&path, "one").unwrap();
        install(&path, "two").unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "two");
        assert_eq!(std::fs::metadata(&path).unwrap().permissions().mode() & 0o7777, 0o755);
        assert_eq!(std::fs::read_dir(path.parent().unwrap()).unwrap().count(), 1);
    }
}
