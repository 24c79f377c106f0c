//! `dsh secret create|list|delete`: secrets of a local daemon (or E2B), E2B's `/secrets`.
//! A value is read from stdin or a file, never from the command line (where `ps` and the
//! shell's history would show it), and no command prints it.

use std::io::{IsTerminal as _, Read as _};
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context, bail};
use clap::Subcommand;
use dsh_e2b::ControlPlane;

use crate::connect::DaemonArgs;
use crate::output::{Printer, table};

#[derive(Debug, Subcommand)]
pub enum SecretCommand {
    /// Store a secret: its value is read from stdin (one trailing newline dropped) or
    /// from --value-file (as is). The name (1 to 128 letters, digits, '_' or '-') is
    /// stored lower-cased.
    Create {
        name: String,
        /// Read the value from this file, byte for byte.
        #[arg(long)]
        value_file: Option<PathBuf>,
    },
    /// List the secrets (never their values).
    List,
    /// Delete a secret, by name or id.
    Delete { name: String },
}

pub async fn run(
    command: SecretCommand,
    daemon: &DaemonArgs,
    printer: Printer,
) -> anyhow::Result<ExitCode> {
    let connection = daemon.connection()?;
    let control = ControlPlane::new(
        dsh_e2b::http_client_for(&connection)?,
        &connection.api_url,
        &connection.api_key,
    );
    match command {
        SecretCommand::Create { name, value_file } => {
            let value = match value_file {
                Some(path) => {
                    let bytes = std::fs::read(&path)
                        .with_context(|| format!("reading {}", path.display()))?;
                    String::from_utf8(bytes).map_err(|_| {
                        anyhow::anyhow!("{} is not UTF-8 text: a secret is text", path.display())
                    })?
                }
                None => read_stdin()?,
            };
            let secret = control.create_secret(&name, &value).await?;
            printer.print(&secret, || format!("created {} ({})", secret.name, secret.secret_id));
        }
        SecretCommand::List => {
            let secrets = control.list_secrets().await?;
            printer.print(&secrets, || {
                let rows: Vec<Vec<String>> = secrets
                    .iter()
                    .map(|s| {
                        vec![
                            s.name.clone(),
                            s.secret_id.clone(),
                            s.current_version.to_string(),
                            s.updated_at.clone(),
                        ]
                    })
                    .collect();
                table(&["NAME", "SECRET", "VERSION", "UPDATED"], &rows)
            });
        }
        SecretCommand::Delete { name } => {
            if !control.delete_secret(&name).await? {
                bail!("secret {name} does not exist (see `dsh secret list`)");
            }
            printer.print(&serde_json::json!({"deleted": name}), || format!("deleted {name}"));
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// The value from stdin, without one trailing newline (what `echo` and a typed line add).
fn read_stdin() -> anyhow::Result<String> {
    let mut stdin = std::io::stdin();
    if stdin.is_terminal() {
        eprintln!("dsh: reading the secret's value from stdin (end it with Ctrl-D)");
    }
    let mut bytes = Vec::new();
    stdin.read_to_end(&mut bytes).context("reading the value from stdin")?;
    let mut value = String::from_utf8(bytes)
        .map_err(|_| anyhow::anyhow!("the value on stdin is not UTF-8 text: a secret is text"))?;
    if value.ends_with('\n') {
        value.pop();
        if value.ends_with('\r') {
            value.pop();
        }
    }
    Ok(value)
}
