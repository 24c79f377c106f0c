//! A template's sandbox booting: its start command in the background, then its ready
//! command until it succeeds (a build proves it once; every sandbox of the template
//! does it at its start).

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use crate::server::envd_client::{self, Envd};
use crate::server::record::Startup;

/// How long the ready command may take to first succeed.
pub const READY_TIMEOUT: Duration = Duration::from_secs(5 * 60);

/// Where the start command's output goes, inside (the sandbox's own tmpfs).
pub const START_LOG: &str = "/tmp/.dsh-start-cmd.log";

/// Boots a sandbox of a template: its start command in the background (its output in
/// [`START_LOG`]), then its ready command, again every half second, until it exits 0.
pub async fn boot(
    envd: &Envd,
    startup: &Startup,
    envs: &BTreeMap<String, String>,
    log: &mut (dyn FnMut(&'static str, String) + Send),
) -> Result<(), String> {
    if let Some(start) = &startup.start_cmd {
        // Detached into a session of its own: it outlives the shell that starts it.
        let line = format!(
            "setsid bash -l -c {cmd} >{out} 2>&1 </dev/null & echo \"started: pid $!\"",
            cmd = quote(start),
            out = START_LOG
        );
        let command = envd_client::Command {
            line,
            user: startup.user.clone(),
            cwd: Some(startup.workdir.clone()),
            envs: envs.clone(),
            timeout: Duration::from_secs(30),
        };
        let mut sink = |_: envd_client::Stream, text: &str| log("info", text.to_owned());
        let code =
            envd.run(&command, &mut sink).await.map_err(|e| format!("start command: {e:#}"))?;
        if code != 0 {
            return Err(format!("the start command could not be started (exit code {code})"));
        }
    }
    let Some(ready) = &startup.ready_cmd else { return Ok(()) };
    let deadline = Instant::now() + READY_TIMEOUT;
    let mut tries = 0u32;
    loop {
        tries += 1;
        let left = deadline.saturating_duration_since(Instant::now());
        let command = envd_client::Command {
            line: ready.clone(),
            user: startup.user.clone(),
            cwd: Some(startup.workdir.clone()),
            envs: envs.clone(),
            timeout: left.max(Duration::from_secs(1)),
        };
        let mut sink = |_: envd_client::Stream, _: &str| {};
        match envd.run(&command, &mut sink).await {
            Ok(0) => {
                log("info", format!("ready command succeeded (try {tries}): {ready}"));
                return Ok(());
            }
            Ok(_) | Err(_) if Instant::now() >= deadline => {
                return Err(format!(
                    "the ready command did not succeed within {} s: {ready} (the start command's \
                     output is in {START_LOG})",
                    READY_TIMEOUT.as_secs()
                ));
            }
            _ => tokio::time::sleep(Duration::from_millis(500)).await,
        }
    }
}

/// `text` as one shell word.
pub fn quote(text: &str) -> String {
    format!("'{}'", text.replace('\'', r"'\''"))
}
