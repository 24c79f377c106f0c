//! Command-line definitions and dispatch.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;

use crate::config::Config;
use anyhow::Context as _;
use clap::{Parser, Subcommand};
use dsh_e2b::OnDispose;
use dsh_e2b::{Connection, ControlPlane, NewSandbox, ProcessOutput, Sandbox, StartOptions};
use futures_util::StreamExt as _;
use tokio::io::AsyncWriteExt as _;

use crate::connect::{DaemonArgs, Embedded, default_state_dir};
use crate::output::{Printer, table};

#[derive(Debug, Parser)]
#[command(
    name = "dsh",
    version,
    about = "The coding environment AI agents work in",
    propagate_version = true
)]
struct Cli {
    /// Print results as JSON (for scripts).
    #[arg(long, global = true)]
    json: bool,
    /// More logging (-v: debug, -vv: trace); RUST_LOG overrides.
    #[arg(short, long, action = clap::ArgAction::Count, global = true)]
    verbose: u8,
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Run the end-to-end tour: one sandbox, every capability, a report.
    Tour(crate::tour::TourArgs),
    /// Check that this machine can run local sandboxes, and what agents will find in them.
    Doctor {
        /// Install what is missing (apt-get or dnf, as root) and say what was done.
        #[arg(long)]
        fix: bool,
    },
    /// Serve every dsh tool to an agent over MCP (stdio by default, or streamable HTTP).
    Mcp(crate::mcp::McpArgs),
    /// Manage sandboxes (a local daemon, or E2B cloud with E2B_API_KEY).
    Sandbox {
        #[command(subcommand)]
        command: SandboxCommand,
        #[command(flatten)]
        daemon: DaemonArgs,
    },
    /// Templates built from steps (a Dockerfile-like file; E2B's Template SDK builds the same).
    Template {
        #[command(subcommand)]
        command: crate::template::TemplateCommand,
        #[command(flatten)]
        daemon: DaemonArgs,
    },
    /// Secrets (E2B's /secrets): values kept by the control plane, never printed.
    Secret {
        #[command(subcommand)]
        command: crate::secret::SecretCommand,
        #[command(flatten)]
        daemon: DaemonArgs,
    },
    /// Run a command in a sandbox, streaming its output; exits with its exit code.
    Exec {
        /// Use this sandbox (else a fresh one is created and removed afterwards).
        #[arg(long)]
        sandbox: Option<String>,
        /// Working directory inside the sandbox (default: the sandbox's own: `/home/user`,
        /// or its template's last WORKDIR).
        #[arg(long)]
        cwd: Option<String>,
        /// Linux user to run as.
        #[arg(long)]
        user: Option<String>,
        #[command(flatten)]
        daemon: DaemonArgs,
        /// The command and its arguments.
        #[arg(trailing_var_arg = true, required = true, num_args = 1..)]
        command: Vec<String>,
    },
    /// Ask a language server in a sandbox: `dsh lsp hover src/app.py:12:5`.
    Lsp {
        /// hover, goToDefinition, findReferences, goToImplementation, diagnostics,
        /// documentSymbols, workspaceSymbols, rename.
        operation: String,
        /// FILE:LINE:COL (1-based line, 1-based UTF-16 column), or FILE for whole-file operations.
        location: String,
        /// workspaceSymbols: what to look for; rename: the new name.
        #[arg(long)]
        query: Option<String>,
        /// Use this sandbox (else a fresh, empty one).
        #[arg(long)]
        sandbox: Option<String>,
        #[command(flatten)]
        daemon: DaemonArgs,
    },
    /// Code Mode programs.
    Code {
        #[command(subcommand)]
        command: CodeCommand,
    },
    /// Attach this terminal to an interactive shell in a sandbox (Ctrl-] detaches).
    Shell(crate::shell::ShellArgs),
    /// Files in a sandbox.
    Fs {
        #[command(subcommand)]
        command: FsCommand,
        /// Use this sandbox (else a fresh one is created and removed afterwards).
        #[arg(long, global = true)]
        sandbox: Option<String>,
        #[command(flatten)]
        daemon: DaemonArgs,
    },
}

#[derive(Debug, Subcommand)]
enum CodeCommand {
    /// Run a TypeScript/JavaScript program (the body of an async function) in a sandbox;
    /// it calls tools as `await tools.bash({...})`. Prints its logs and result.
    Run {
        file: PathBuf,
        /// Wall-clock budget in milliseconds.
        #[arg(long)]
        timeout_ms: Option<u64>,
        /// Use this sandbox (else a fresh one).
        #[arg(long)]
        sandbox: Option<String>,
        #[command(flatten)]
        daemon: DaemonArgs,
    },
}

#[derive(Debug, Subcommand)]
enum SandboxCommand {
    /// Run the local sandbox daemon (E2B-compatible API) in the foreground.
    Serve {
        /// Address to listen on.
        #[arg(long, default_value = "127.0.0.1:3000")]
        listen: std::net::SocketAddr,
        /// The file whose `[sandboxd]` section configures the daemon (missing: defaults).
        #[arg(long, default_value = "dsh.toml", value_name = "FILE")]
        config: PathBuf,
        /// Isolation level, over the file's: strict (default) or namespaces (root inside
        /// is root on the host: only for code you trust).
        #[arg(long, value_parser = ["strict", "namespaces"])]
        isolation: Option<String>,
        /// Sandboxes kept started ahead of demand per template, over the file's: a
        /// number, or `auto` (sized to demand and to the machine).
        #[arg(long)]
        pool: Option<dsh_sandboxd::server::PoolSize>,
        /// Network, over the file's: private (default), none, or host (unsafe: the host
        /// and its LAN are reachable).
        #[arg(long, value_parser = ["private", "none", "host"])]
        net: Option<String>,
    },
    /// Create a sandbox and print its id.
    Create {
        #[arg(long, default_value = "base")]
        template: String,
        /// Seconds until the sandbox times out.
        #[arg(long, default_value_t = 300)]
        timeout: u32,
        /// Pause instead of kill at the timeout.
        #[arg(long)]
        auto_pause: bool,
        /// Metadata as KEY=VALUE (repeatable).
        #[arg(long = "metadata", value_parser = parse_key_value)]
        metadata: Vec<(String, String)>,
        /// Mount a volume as NAME:PATH, PATH in the sandbox's own root such as /mnt/data
        /// (repeatable).
        #[arg(long = "volume", value_parser = parse_volume_mount)]
        volumes: Vec<dsh_e2b::control::VolumeMount>,
        /// What runs it on dsh's local daemon: `native`, or `gvisor` (gVisor: its memory
        /// survives pauses, daemon restarts and reboots, and forks carry its processes).
        /// Default: the daemon's.
        #[arg(long, value_parser = ["native", "gvisor"])]
        runtime: Option<String>,
    },
    /// Make a volume: a directory that outlives sandboxes, mounted with `create --volume`.
    CreateVolume { name: String },
    /// List volumes.
    Volumes,
    /// Delete a volume (by name or id) that no sandbox mounts.
    DeleteVolume { volume: String },
    /// Remove now what nothing uses any more: step cache entries, uploads and pulled
    /// images (the daemon also does it at start and when a template is deleted).
    Gc,
    /// List running and paused sandboxes.
    List,
    /// Kill a sandbox (its processes, files and directory go).
    Kill { id: String },
    /// Print how to reach a port of a sandbox (a server its code runs) from outside.
    Expose {
        id: String,
        /// The port inside the sandbox, 1-65535.
        #[arg(value_parser = clap::value_parser!(u16).range(1..))]
        port: u16,
    },
    /// Pause a sandbox: its processes go on after resume (memory kept: frozen, or for a
    /// gVisor sandbox written to disk, where it survives daemon restarts and reboots);
    /// with --files-only they stop and only its files stay (resume is a reboot).
    Pause {
        id: String,
        #[arg(long)]
        files_only: bool,
    },
    /// Fork a running sandbox: new sandboxes with its files and settings (a gVisor
    /// sandbox's with its running processes too); prints their ids.
    Fork {
        id: String,
        /// How many forks (1-64).
        #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=64))]
        count: u32,
        /// Seconds until each fork times out.
        #[arg(long, default_value_t = 300)]
        timeout: u32,
    },
    /// Keep a sandbox's files as a snapshot; `dsh sandbox create --template <snapshot>`
    /// starts sandboxes from it.
    Snapshot {
        id: String,
        /// A name (`name` or `name:tag`); default: a generated id.
        #[arg(long)]
        name: Option<String>,
    },
    /// List snapshots, newest first.
    Snapshots {
        /// Only the snapshots of this sandbox.
        #[arg(long)]
        sandbox: Option<String>,
    },
    /// Delete a snapshot (sandboxes made from it keep their files).
    DeleteSnapshot { snapshot: String },
    /// Resume a paused sandbox (or extend a running one's timeout).
    Resume {
        id: String,
        #[arg(long, default_value_t = 300)]
        timeout: u32,
    },
    /// Run a command in the user namespace an ordinary user's daemon runs in (as
    /// `podman unshare`): it sees the sandboxes' files and processes as the daemon does.
    /// As root, runs the command as it is.
    Unshare {
        /// The command and its arguments.
        #[arg(trailing_var_arg = true, required = true, num_args = 1..)]
        command: Vec<std::ffi::OsString>,
    },
}

#[derive(Debug, Subcommand)]
enum FsCommand {
    /// List a directory.
    Ls {
        path: String,
        #[arg(long, default_value_t = 1)]
        depth: u32,
    },
    /// Print a file.
    Cat { path: String },
    /// Upload a local file (streamed).
    Put { local: PathBuf, remote: String },
    /// Download a file (streamed).
    Get { remote: String, local: PathBuf },
}

/// `NAME:PATH` of `dsh sandbox create --volume`.
fn parse_volume_mount(text: &str) -> Result<dsh_e2b::control::VolumeMount, String> {
    match text.split_once(':') {
        Some((name, path)) if !name.is_empty() && path.starts_with('/') => {
            Ok(dsh_e2b::control::VolumeMount { name: name.to_owned(), path: path.to_owned() })
        }
        _ => Err(format!("expected NAME:/PATH, got {text:?}")),
    }
}

fn parse_key_value(text: &str) -> Result<(String, String), String> {
    text.split_once('=')
        .map(|(k, v)| (k.to_owned(), v.to_owned()))
        .ok_or_else(|| format!("expected KEY=VALUE, got {text:?}"))
}

pub fn main(args: Vec<OsString>) -> ExitCode {
    let cli = Cli::parse_from(args);
    init_logging(cli.verbose);
    let runtime = match tokio::runtime::Builder::new_multi_thread().enable_all().build() {
        Ok(runtime) => runtime,
        Err(err) => {
            eprintln!("dsh: cannot start the async runtime: {err}");
            return ExitCode::FAILURE;
        }
    };
    let printer = Printer { json: cli.json };
    match runtime.block_on(run(cli.command, printer)) {
        Ok(code) => code,
        Err(err) => {
            eprintln!("dsh: {err:#}");
            ExitCode::FAILURE
        }
    }
}

fn init_logging(verbose: u8) {
    let default = match verbose {
        0 => "warn",
        1 => "dsh=debug,dsh_e2b=debug,dsh_sandboxd=debug",
        _ => "trace",
    };
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new(default));
    let _ =
        tracing_subscriber::fmt().with_env_filter(filter).with_writer(std::io::stderr).try_init();
}

async fn run(command: Command, printer: Printer) -> anyhow::Result<ExitCode> {
    match command {
        Command::Tour(args) => crate::tour::run(args, printer).await,
        Command::Doctor { fix } => Ok(crate::doctor::run(printer, fix)),
        Command::Shell(args) => crate::shell::run(args).await,
        Command::Mcp(args) => crate::mcp::run(args).await,
        Command::Sandbox { command, daemon } => sandbox_command(command, &daemon, printer).await,
        Command::Template { command, daemon } => {
            crate::template::run(command, &daemon, printer).await
        }
        Command::Secret { command, daemon } => crate::secret::run(command, &daemon, printer).await,
        Command::Exec { sandbox, cwd, user, daemon, command } => {
            with_sandbox(&daemon, sandbox, Purpose::Commands, |sbx| async move {
                exec(&sbx, cwd, user, command).await
            })
            .await
        }
        Command::Lsp { operation, location, query, sandbox, daemon } => {
            let (file, line, character) = parse_location(&location)?;
            let mut args = serde_json::json!({"operation": operation, "file_path": file});
            if let (Some(line), Some(character)) = (line, character) {
                args["line"] = line.into();
                args["character"] = character.into();
            }
            if let Some(query) = query {
                let key = if operation == "rename" { "newName" } else { "query" };
                args[key] = query.into();
            }
            with_workbench(&daemon, sandbox, "lsp", args, printer).await
        }
        Command::Code { command: CodeCommand::Run { file, timeout_ms, sandbox, daemon } } => {
            let code = std::fs::read_to_string(&file)
                .with_context(|| format!("cannot read {}", file.display()))?;
            let mut args = serde_json::json!({"code": code, "description": format!("dsh code run {}", file.display())});
            if let Some(ms) = timeout_ms {
                args["timeoutMs"] = ms.into();
            }
            with_workbench(&daemon, sandbox, "run_code", args, printer).await
        }
        Command::Fs { command, sandbox, daemon } => {
            with_sandbox(&daemon, sandbox, Purpose::Tools, |sbx| async move {
                fs_command(&sbx, command, printer).await
            })
            .await
        }
    }
}

/// Runs `work` against the named sandbox (left running afterwards), or against a fresh
/// one on an embedded daemon (removed afterwards).
async fn open(
    connection: &Connection,
    config: &dsh_e2b::SandboxConfig,
    purpose: Purpose,
) -> dsh_e2b::Result<Sandbox> {
    let http = dsh_e2b::http_client_for(connection)?;
    match purpose {
        Purpose::Commands => Sandbox::open_for_commands(http, connection, config).await,
        Purpose::Tools => Sandbox::open(http, connection, config).await,
    }
}

/// What a command opens a sandbox for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Purpose {
    /// Commands only (`dsh exec`): no tools' workspace is made.
    Commands,
    /// Tools, which work in the workspace.
    Tools,
}

async fn with_sandbox<F, Fut>(
    daemon: &DaemonArgs,
    id: Option<String>,
    purpose: Purpose,
    work: F,
) -> anyhow::Result<ExitCode>
where
    F: FnOnce(Arc<Sandbox>) -> Fut,
    Fut: std::future::Future<Output = anyhow::Result<ExitCode>>,
{
    let mut config = Config::default();
    match id {
        Some(id) => {
            config.sandbox.sandbox_id = Some(id);
            config.sandbox.on_dispose = OnDispose::Leave;
            let connection = daemon.connection()?;
            let id = config.sandbox.sandbox_id.clone().unwrap_or_default();
            let sandbox = open(&connection, &config.sandbox, purpose)
                .await
                .map_err(|err| not_found_hint(err, &id))?;
            work(Arc::new(sandbox)).await
        }
        None => {
            let (connection, embedded) = if daemon.configured() {
                (daemon.connection()?, None)
            } else {
                let settings = crate::connect::sandboxd_settings(Path::new("dsh.toml"))?;
                let embedded = Embedded::start(&settings).await?;
                (embedded.connection(), Some(embedded))
            };
            let sandbox = Arc::new(open(&connection, &config.sandbox, purpose).await?);
            let result = work(Arc::clone(&sandbox)).await;
            let disposed = sandbox.dispose().await;
            if let Some(embedded) = embedded {
                embedded.stop().await?;
            }
            disposed?;
            result
        }
    }
}

/// `FILE[:LINE:COL]`.
fn parse_location(text: &str) -> anyhow::Result<(String, Option<u32>, Option<u32>)> {
    let mut parts = text.rsplitn(3, ':');
    let (last, middle, first) = (parts.next(), parts.next(), parts.next());
    match (
        first,
        middle.and_then(|m| m.parse::<u32>().ok()),
        last.and_then(|l| l.parse::<u32>().ok()),
    ) {
        (Some(file), Some(line), Some(column)) => Ok((file.to_owned(), Some(line), Some(column))),
        _ if !text.is_empty() => Ok((text.to_owned(), None, None)),
        _ => anyhow::bail!("expected FILE:LINE:COL (1-based), got {text:?}"),
    }
}

/// Runs one tool in a workbench over the named sandbox (left as it is) or a fresh one
/// (removed afterwards), prints its result, and fails when the tool did.
async fn with_workbench(
    daemon: &DaemonArgs,
    sandbox: Option<String>,
    tool: &str,
    args: serde_json::Value,
    printer: Printer,
) -> anyhow::Result<ExitCode> {
    let mut config = Config::default();
    config.backend.kind = crate::config::BackendKind::Sandbox;
    if let Some(id) = &sandbox {
        config.sandbox.sandbox_id = Some(id.clone());
        config.sandbox.on_dispose = OnDispose::Leave;
    }
    let progress = Arc::new(crate::output::Progress::new());
    progress.say("opening the sandbox");
    let workbench =
        crate::workbench::Workbench::open(&config, daemon).await.map_err(|err| match &sandbox {
            Some(id)
                if err.chain().any(|cause| {
                    cause.downcast_ref::<dsh_e2b::Error>().is_some_and(dsh_e2b::Error::is_not_found)
                }) =>
            {
                anyhow::anyhow!("sandbox {id} does not exist (see `dsh sandbox list`)")
            }
            _ => err,
        })?;
    let registry = workbench.registry("cli");
    progress.say(match tool {
        "lsp" => {
            "asking the language server (the first request installs it if needed, and starts it)"
        }
        "run_code" => "running the program",
        _ => "working",
    });
    // What the tool waits for (a language server installing) replaces the status line.
    let status = Arc::clone(&progress);
    let sink: dsh_core::Progress = Arc::new(move |line: &str| status.say(line));
    let outcome = registry.call_with_progress(tool, args, Some(&sink)).await;
    progress.say("closing");
    workbench.shutdown().await?;
    progress.done();
    match outcome {
        Ok(output) => {
            let failed = output.value.get("error").is_some_and(|e| !e.is_null());
            printer.print(&output.value, || output.text.clone());
            Ok(if failed { ExitCode::FAILURE } else { ExitCode::SUCCESS })
        }
        Err(err) => anyhow::bail!("{tool}: {err}"),
    }
}

async fn exec(
    sandbox: &Sandbox,
    cwd: Option<String>,
    user: Option<String>,
    command: Vec<String>,
) -> anyhow::Result<ExitCode> {
    let Some((program, args)) = command.split_first() else { anyhow::bail!("no command given") };
    let options = StartOptions {
        cmd: program.clone(),
        args: args.to_vec(),
        envs: [(
            "PATH".to_owned(),
            "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin".to_owned(),
        )]
        .into(),
        cwd,
        user,
        ..StartOptions::default()
    };
    let mut stream = sandbox.backend().envd().start(options).await?;
    let (mut stdout, mut stderr) = (tokio::io::stdout(), tokio::io::stderr());
    while let Some(output) = stream.next().await? {
        match output {
            ProcessOutput::Stdout(bytes) | ProcessOutput::Pty(bytes) => {
                stdout.write_all(&bytes).await?;
                stdout.flush().await?;
            }
            ProcessOutput::Stderr(bytes) => {
                stderr.write_all(&bytes).await?;
                stderr.flush().await?;
            }
            ProcessOutput::End(exit) => {
                // A signal death is reported like a shell does: 128 + signal.
                let code = if exit.exited { exit.exit_code } else { 128 + signal_of(&exit.status) };
                return Ok(ExitCode::from(u8::try_from(code.clamp(0, 255)).unwrap_or(1)));
            }
        }
    }
    anyhow::bail!("the command's stream ended without an exit status")
}

fn signal_of(status: &str) -> i32 {
    match status.trim_start_matches("signal: ") {
        "killed" => 9,
        "terminated" => 15,
        "interrupt" => 2,
        "hangup" => 1,
        _ => 0,
    }
}

async fn fs_command(
    sandbox: &Sandbox,
    command: FsCommand,
    printer: Printer,
) -> anyhow::Result<ExitCode> {
    let envd = sandbox.backend().envd();
    match command {
        FsCommand::Ls { path, depth } => {
            let entries = envd.list_dir(&path, depth, None).await?;
            let rows: Vec<serde_json::Value> = entries
                .iter()
                .map(|e| {
                    serde_json::json!({
                        "path": e.path, "name": e.name, "size": e.size, "permissions": e.permissions,
                        "owner": e.owner, "isDir": e.r#type == dsh_proto::filesystem::FileType::Directory as i32,
                    })
                })
                .collect();
            printer.print(&rows, || {
                let table_rows: Vec<Vec<String>> = entries
                    .iter()
                    .map(|e| {
                        vec![
                            e.permissions.clone(),
                            e.owner.clone(),
                            e.size.to_string(),
                            e.path.clone(),
                        ]
                    })
                    .collect();
                table(&["MODE", "OWNER", "SIZE", "PATH"], &table_rows)
            });
        }
        FsCommand::Cat { path } => {
            let mut stream = Box::pin(envd.download(&path, None).await?);
            let mut stdout = tokio::io::stdout();
            while let Some(chunk) = stream.next().await {
                stdout.write_all(&chunk?).await?;
            }
            stdout.flush().await?;
        }
        FsCommand::Put { local, remote } => {
            let file = tokio::fs::File::open(&local)
                .await
                .with_context(|| format!("cannot open {}", local.display()))?;
            let stream = file_chunks(file);
            let written =
                envd.upload(&remote, dsh_e2b::UploadBody::wrap_stream(stream), None).await?;
            printer.print(&serde_json::json!({"path": written.path}), || {
                format!("uploaded {} → {}", local.display(), written.path)
            });
        }
        FsCommand::Get { remote, local } => {
            let mut stream = Box::pin(envd.download(&remote, None).await?);
            let mut file = tokio::fs::File::create(&local)
                .await
                .with_context(|| format!("cannot create {}", local.display()))?;
            let mut bytes = 0u64;
            while let Some(chunk) = stream.next().await {
                let chunk = chunk?;
                bytes += chunk.len() as u64;
                file.write_all(&chunk).await?;
            }
            file.flush().await?;
            printer.print(&serde_json::json!({"path": local, "bytes": bytes}), || {
                format!("downloaded {remote} → {} ({bytes} bytes)", local.display())
            });
        }
    }
    Ok(ExitCode::SUCCESS)
}

fn file_chunks(
    file: tokio::fs::File,
) -> impl futures_util::Stream<Item = std::io::Result<bytes::Bytes>> {
    futures_util::stream::unfold(file, |mut file| async move {
        use tokio::io::AsyncReadExt as _;
        let mut buffer = vec![0u8; 256 * 1024];
        match file.read(&mut buffer).await {
            Ok(0) => None,
            Ok(n) => {
                buffer.truncate(n);
                Some((Ok(bytes::Bytes::from(buffer)), file))
            }
            Err(err) => Some((Err(err), file)),
        }
    })
}

async fn sandbox_command(
    command: SandboxCommand,
    daemon: &DaemonArgs,
    printer: Printer,
) -> anyhow::Result<ExitCode> {
    let control = || -> anyhow::Result<ControlPlane> {
        let connection: Connection = daemon.connection()?;
        Ok(ControlPlane::new(
            dsh_e2b::http_client_for(&connection)?,
            &connection.api_url,
            &connection.api_key,
        ))
    };
    match command {
        SandboxCommand::Unshare { command } => {
            // `main` entered the namespace already; exec replaces this process.
            let (program, args) = command.split_first().context("no command given")?;
            let error = dsh_sandboxd::rootless::exec(program, args);
            anyhow::bail!("cannot run {}: {error}", program.to_string_lossy())
        }
        SandboxCommand::Serve { listen, config, isolation, pool, net } => {
            let mut settings = crate::connect::sandboxd_settings(&config)?;
            match isolation.as_deref() {
                Some("namespaces") => {
                    settings.isolation = crate::config::IsolationSetting::Namespaces;
                }
                Some(_) => settings.isolation = crate::config::IsolationSetting::Strict,
                None => {}
            }
            match pool {
                Some(dsh_sandboxd::server::PoolSize::Fixed(size)) => {
                    settings.pool = Some(u32::try_from(size)?);
                }
                Some(dsh_sandboxd::server::PoolSize::Auto) => settings.pool = None,
                None => {}
            }
            settings.net = match net.as_deref() {
                Some("none") => crate::config::NetSetting::None,
                Some("host") => crate::config::NetSetting::Host,
                Some(_) => crate::config::NetSetting::Private,
                None => settings.net,
            };
            let state_dir = daemon.state_dir.clone().unwrap_or_else(default_state_dir);
            return serve(listen, state_dir, &settings).await;
        }
        SandboxCommand::CreateVolume { name } => {
            // The content API's token stays out of the output, as in `volumes`.
            let volume = dsh_e2b::control::VolumeInfo {
                token: None,
                ..control()?.create_volume(&name).await?
            };
            printer.print(&volume, || volume.volume_id.clone());
        }
        SandboxCommand::Volumes => {
            let volumes = control()?.list_volumes().await?;
            printer.print(&volumes, || {
                let rows: Vec<Vec<String>> =
                    volumes.iter().map(|v| vec![v.volume_id.clone(), v.name.clone()]).collect();
                table(&["VOLUME", "NAME"], &rows)
            });
        }
        SandboxCommand::Gc => {
            let collected = control()?.collect_garbage().await?;
            printer.print(&collected, || {
                let mut lines = Vec::new();
                for (what, items) in [
                    ("image", &collected.images),
                    ("build cache entry", &collected.cache_entries),
                    ("upload", &collected.uploads),
                ] {
                    lines.extend(items.iter().map(|item| format!("removed {what} {item}")));
                }
                if lines.is_empty() { "nothing to collect".to_owned() } else { lines.join("\n") }
            });
        }
        SandboxCommand::DeleteVolume { volume } => {
            let plane = control()?;
            let id = match plane.list_volumes().await?.into_iter().find(|v| v.name == volume) {
                Some(found) => found.volume_id,
                None => volume.clone(),
            };
            if !plane.delete_volume(&id).await? {
                anyhow::bail!("volume {volume} does not exist (see `dsh sandbox volumes`)");
            }
            printer.print(&serde_json::json!({"deleted": id}), || format!("deleted {volume}"));
        }
        SandboxCommand::Create { template, timeout, auto_pause, metadata, volumes, runtime } => {
            let mut new = NewSandbox::from_template(template);
            new.timeout = Some(timeout);
            new.auto_pause = auto_pause;
            new.metadata = metadata.into_iter().collect();
            new.volume_mounts = volumes;
            new.runtime = runtime;
            let info = control()?.create(&new).await?;
            printer.print(
                &serde_json::json!({"sandboxID": info.sandbox_id, "templateID": info.template_id, "envdVersion": info.envd_version, "isolation": info.isolation}),
                || info.sandbox_id.clone(),
            );
        }
        SandboxCommand::List => {
            let plane = control()?;
            let sandboxes = plane.list().await?;
            // The latest sample of each running sandbox, asked for all at once; a sandbox
            // with none yet (or a control plane without metrics) shows none.
            let latest: Vec<Option<dsh_e2b::SandboxMetric>> =
                futures_util::future::join_all(sandboxes.iter().map(|s| {
                    let plane = &plane;
                    async move {
                        if s.state != "running" {
                            return None;
                        }
                        plane.metrics(&s.sandbox_id).await.ok()?.pop()
                    }
                }))
                .await;
            let rows: Vec<serde_json::Value> = sandboxes
                .iter()
                .zip(&latest)
                .map(|(s, m)| serde_json::json!({"sandboxID": s.sandbox_id, "templateID": s.template_id, "state": s.state, "isolation": s.isolation, "metadata": s.metadata, "startedAt": s.started_at, "endAt": s.end_at, "cpuCount": m.as_ref().map(|m| m.cpu_count), "cpuUsedPct": m.as_ref().map(|m| m.cpu_used_pct), "memUsed": m.as_ref().map(|m| m.mem_used), "memTotal": m.as_ref().map(|m| m.mem_total)}))
                .collect();
            printer.print(&rows, || {
                let rows: Vec<Vec<String>> = sandboxes
                    .iter()
                    .zip(&latest)
                    .map(|(s, m)| {
                        vec![
                            s.sandbox_id.clone(),
                            s.template_id.clone(),
                            s.state.clone(),
                            // E2B cloud reports none: its sandboxes are microVMs.
                            s.isolation.clone().unwrap_or_else(|| "microvm".to_owned()),
                            m.as_ref().map_or_else(
                                || "-".to_owned(),
                                |m| format!("{:.0}% of {}", m.cpu_used_pct, m.cpu_count),
                            ),
                            m.as_ref().map_or_else(
                                || "-".to_owned(),
                                |m| format!("{}/{} MiB", m.mem_used >> 20, m.mem_total >> 20),
                            ),
                            s.end_at.clone().unwrap_or_default(),
                        ]
                    })
                    .collect();
                table(
                    &["SANDBOX", "TEMPLATE", "STATE", "ISOLATION", "CPU", "MEMORY", "ENDS"],
                    &rows,
                )
            });
        }
        SandboxCommand::Expose { id, port } => {
            let connection: Connection = daemon.connection()?;
            let info = control()?.get(&id).await.map_err(|err| not_found_hint(err, &id))?;
            let exposed = exposed(&connection, &info.sandbox_id, port);
            printer.print(&exposed, || {
                let mut text = format!("{}\n", exposed["url"].as_str().unwrap_or_default());
                if let Some(curl) = exposed["curl"].as_str() {
                    text.push_str(&format!("  or, with no DNS entry: {curl}\n"));
                }
                text.trim_end().to_owned()
            });
        }
        SandboxCommand::Kill { id } => {
            if !control()?.kill(&id).await? {
                anyhow::bail!("sandbox {id} does not exist (see `dsh sandbox list`)");
            }
            printer.print(&serde_json::json!({"killed": id}), || format!("killed {id}"));
        }
        SandboxCommand::Fork { id, count, timeout } => {
            let results = control()?
                .fork(&id, count, timeout)
                .await
                .map_err(|err| not_found_hint(err, &id))?;
            let forks: Vec<serde_json::Value> = results
                .iter()
                .map(|result| match result {
                    Ok(info) => serde_json::json!({"sandboxID": info.sandbox_id}),
                    Err(err) => serde_json::json!({"error": err.to_string()}),
                })
                .collect();
            printer.print(&serde_json::json!({"parent": id, "forks": forks}), || {
                let lines: Vec<String> = results
                    .iter()
                    .map(|result| match result {
                        Ok(info) => info.sandbox_id.clone(),
                        Err(err) => format!("fork failed: {err}"),
                    })
                    .collect();
                lines.join("\n")
            });
            if results.iter().any(Result::is_err) {
                return Ok(ExitCode::FAILURE);
            }
        }
        SandboxCommand::Snapshot { id, name } => {
            let snapshot = control()?
                .create_snapshot(&id, name.as_deref())
                .await
                .map_err(|err| not_found_hint(err, &id))?;
            printer.print(&snapshot, || snapshot.snapshot_id.clone());
        }
        SandboxCommand::Snapshots { sandbox } => {
            let snapshots = control()?.list_snapshots(sandbox.as_deref()).await?;
            printer.print(&snapshots, || {
                let rows: Vec<Vec<String>> = snapshots
                    .iter()
                    .map(|s| vec![s.snapshot_id.clone(), s.names.join(", ")])
                    .collect();
                table(&["SNAPSHOT", "NAMES"], &rows)
            });
        }
        SandboxCommand::DeleteSnapshot { snapshot } => {
            if !control()?.delete_snapshot(&snapshot).await? {
                anyhow::bail!("snapshot {snapshot} does not exist (see `dsh sandbox snapshots`)");
            }
            printer
                .print(&serde_json::json!({"deleted": snapshot}), || format!("deleted {snapshot}"));
        }
        SandboxCommand::Pause { id, files_only } => {
            let paused =
                control()?.pause(&id, !files_only).await.map_err(|err| not_found_hint(err, &id))?;
            printer.print(&serde_json::json!({"paused": id, "wasRunning": paused}), || {
                if paused { format!("paused {id}") } else { format!("{id} was already paused") }
            });
        }
        SandboxCommand::Resume { id, timeout } => {
            let info =
                control()?.connect(&id, timeout).await.map_err(|err| not_found_hint(err, &id))?;
            printer.print(&serde_json::json!({"resumed": info.sandbox_id}), || {
                format!("resumed {}", info.sandbox_id)
            });
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// How a sandbox's port is reached: E2B's `<port>-<id>.<domain>` name, and for a local
/// daemon (whose wildcard names need a DNS entry) the header form against its address.
fn exposed(connection: &Connection, id: &str, port: u16) -> serde_json::Value {
    match &connection.envd_url {
        Some(router) => {
            let router = router.trim_end_matches('/');
            let (scheme, authority) = router.split_once("://").unwrap_or(("http", router));
            let daemon_port =
                authority.rsplit_once(':').map(|(_, p)| format!(":{p}")).unwrap_or_default();
            serde_json::json!({
                "url": format!("{scheme}://{port}-{id}.localhost{daemon_port}/"),
                "headers": {"E2b-Sandbox-Id": id, "E2b-Sandbox-Port": port.to_string()},
                "curl": format!("curl -H 'E2b-Sandbox-Id: {id}' -H 'E2b-Sandbox-Port: {port}' {router}/"),
            })
        }
        None => {
            let domain = connection.domain.clone().unwrap_or_else(|| "e2b.app".to_owned());
            serde_json::json!({"url": format!("https://{port}-{id}.{domain}/")})
        }
    }
}

fn not_found_hint(err: dsh_e2b::Error, id: &str) -> anyhow::Error {
    if err.is_not_found() {
        anyhow::anyhow!("sandbox {id} does not exist (see `dsh sandbox list`)")
    } else {
        err.into()
    }
}

async fn serve(
    listen: std::net::SocketAddr,
    state_dir: PathBuf,
    settings: &crate::config::SandboxdConfig,
) -> anyhow::Result<ExitCode> {
    let mut config = crate::connect::daemon_config(&state_dir, settings)?;
    config.listen = listen;
    let mut stop = crate::stop::StopSignals::install()?;
    let daemon = dsh_sandboxd::Daemon::start(config).await?;
    let disk = match daemon.disk_quota_mb() {
        Ok(mb) => format!("each sandbox may write {mb} MiB to its files"),
        Err(reason) => format!("sandboxes have no disk quota: {reason}"),
    };
    eprintln!(
        "dsh sandbox daemon on {url} ({disk})\n\nPoint the official E2B SDKs at it:\n  export E2B_API_URL={url} E2B_SANDBOX_URL={url}\n  export E2B_API_KEY=$(cat {key})\n\nCtrl-C pauses every sandbox and stops the daemon.",
        url = daemon.url(),
        key = state_dir.join(dsh_sandboxd::server::API_KEY_FILE).display()
    );
    let signal = stop.recv().await;
    tracing::info!("{signal}: pausing sandboxes and stopping");
    daemon.shutdown().await?;
    Ok(ExitCode::SUCCESS)
}
