//! `dsh template build|list|delete`: templates built from steps on a local daemon (or
//! E2B), from a Dockerfile-like file: `FROM`, `RUN`, `COPY`, `ENV`, `WORKDIR`, `USER`,
//! and `CMD` for the start command (a `# ready: <command>` line gives the ready check).
//! The steps become E2B's template steps, so a build here is the SDK's
//! `Template.build(...)`: the step cache, logs and tags work the same.

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Duration, Instant};

use anyhow::{Context, bail};
use clap::Subcommand;
use dsh_e2b::ControlPlane;
use dsh_e2b::templates::{BuildDefinition, BuildStep};
use sha2::{Digest, Sha256};

use crate::connect::DaemonArgs;
use crate::output::{Printer, table};

#[derive(Debug, Subcommand)]
pub enum TemplateCommand {
    /// Build a template from a Dockerfile-like file (FROM, RUN, COPY, ENV, WORKDIR,
    /// USER, CMD; `# ready: <command>` for the ready check); logs stream to stderr.
    /// `FROM` names a template or snapshot of the daemon (`base`, `name:tag`), or an
    /// image of a registry when it has a `/` or `@` (`library/ubuntu:22.04`,
    /// `127.0.0.1:5000/team/app:1`, `img@sha256:…`), pulled by the daemon.
    Build {
        /// Its name: `name` or `name:tag`.
        name: String,
        /// The file of steps.
        #[arg(short = 'f', long, default_value = "Dockerfile")]
        file: PathBuf,
        /// Where COPY sources are found (default: the file's directory).
        #[arg(long)]
        context: Option<PathBuf>,
        /// Run every step again (ignore the step cache).
        #[arg(long)]
        no_cache: bool,
        /// CPUs of the template's sandboxes.
        #[arg(long)]
        cpu_count: Option<u64>,
        /// Memory of the template's sandboxes, in MiB.
        #[arg(long)]
        memory_mb: Option<u64>,
        /// The runtime of the template's sandboxes (`native` or `gvisor`) unless their
        /// create names one; the daemon's default when absent. The build runs natively.
        #[arg(long)]
        runtime: Option<String>,
        /// The most the build may take, in seconds.
        #[arg(long, default_value_t = 3600)]
        timeout: u64,
    },
    /// List the templates built on this daemon.
    List,
    /// Delete a template (by id or name) with every build of it.
    Delete { template: String },
}

pub async fn run(
    command: TemplateCommand,
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
        TemplateCommand::Build {
            name,
            file,
            context,
            no_cache,
            cpu_count,
            memory_mb,
            runtime,
            timeout,
        } => {
            let text = std::fs::read_to_string(&file)
                .with_context(|| format!("reading {}", file.display()))?;
            let context = context
                .or_else(|| file.parent().map(Path::to_owned))
                .filter(|p| !p.as_os_str().is_empty())
                .unwrap_or_else(|| PathBuf::from("."));
            let parsed = parse(&text).with_context(|| format!("in {}", file.display()))?;
            let build = Build { control: &control, name: &name, context: &context, printer };
            let limits = BuildLimits { cpu_count, memory_mb, runtime };
            build.run(parsed, no_cache, limits, Duration::from_secs(timeout)).await
        }
        TemplateCommand::List => {
            let templates = control.list_templates().await?;
            printer.print(&templates, || {
                let rows: Vec<Vec<String>> = templates
                    .iter()
                    .map(|t| {
                        vec![
                            t.aliases.join(", "),
                            t.names.join(", "),
                            t.template_id.clone(),
                            t.build_status.clone().unwrap_or_default(),
                        ]
                    })
                    .collect();
                table(&["NAME", "TAGS", "TEMPLATE", "STATUS"], &rows)
            });
            Ok(ExitCode::SUCCESS)
        }
        TemplateCommand::Delete { template } => {
            if !control.delete_template(&template).await? {
                bail!("template {template} does not exist (see `dsh template list`)");
            }
            printer
                .print(&serde_json::json!({"deleted": template}), || format!("deleted {template}"));
            Ok(ExitCode::SUCCESS)
        }
    }
}

/// A parsed template file.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Parsed {
    pub from: Option<String>,
    pub steps: Vec<Instruction>,
    pub start_cmd: Option<String>,
    pub ready_cmd: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Instruction {
    Run(String),
    Copy { src: String, dest: String },
    Env(Vec<(String, String)>),
    Workdir(String),
    User(String),
}

/// Parses the file: one instruction a line (a trailing `\` continues it), `#` comments.
pub fn parse(text: &str) -> anyhow::Result<Parsed> {
    let mut parsed = Parsed::default();
    let mut pending = String::new();
    for (number, raw) in text.lines().enumerate() {
        let line = raw.trim();
        if pending.is_empty() {
            if let Some(ready) = line.strip_prefix("# ready:") {
                parsed.ready_cmd = Some(ready.trim().to_owned());
                continue;
            }
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
        }
        if let Some(continued) = line.strip_suffix('\\') {
            pending.push_str(continued);
            pending.push(' ');
            continue;
        }
        pending.push_str(line);
        let whole = std::mem::take(&mut pending);
        instruction(&mut parsed, whole.trim()).with_context(|| format!("line {}", number + 1))?;
    }
    if !pending.is_empty() {
        bail!("the last line ends with '\\' and nothing follows");
    }
    Ok(parsed)
}

/// Whether `FROM` names a registry's image rather than one of the daemon's templates or
/// snapshots (whose names have neither `/` nor `@`).
fn is_image(from: &str) -> bool {
    from.contains('/') || from.contains('@')
}

fn instruction(parsed: &mut Parsed, line: &str) -> anyhow::Result<()> {
    let (keyword, rest) = line.split_once(char::is_whitespace).unwrap_or((line, ""));
    let rest = rest.trim();
    let need = |what: &str| -> anyhow::Result<()> {
        if rest.is_empty() { bail!("{keyword} needs {what}") } else { Ok(()) }
    };
    match keyword.to_ascii_uppercase().as_str() {
        "FROM" => {
            need("a base")?;
            if parsed.from.is_some() || !parsed.steps.is_empty() {
                bail!("FROM must come first, once");
            }
            parsed.from = Some(rest.to_owned());
        }
        "RUN" => {
            need("a command")?;
            parsed.steps.push(Instruction::Run(rest.to_owned()));
        }
        "COPY" => {
            let words: Vec<&str> = rest.split_whitespace().collect();
            let [src, dest] = words[..] else { bail!("COPY takes a source and a destination") };
            if src.contains(['*', '?', '[']) {
                bail!("COPY {src}: sources are paths here (the SDK's Template takes globs)");
            }
            parsed.steps.push(Instruction::Copy { src: src.to_owned(), dest: dest.to_owned() });
        }
        "ENV" => {
            need("a variable")?;
            let vars = if let Some((name, value)) = rest.split_once('=') {
                if name.contains(char::is_whitespace) {
                    bail!("ENV: use NAME=value or NAME value");
                }
                vec![(name.to_owned(), unquote(value).to_owned())]
            } else {
                let (name, value) = rest.split_once(char::is_whitespace).unwrap_or((rest, ""));
                vec![(name.to_owned(), value.trim().to_owned())]
            };
            parsed.steps.push(Instruction::Env(vars));
        }
        "WORKDIR" => {
            need("a directory")?;
            parsed.steps.push(Instruction::Workdir(rest.to_owned()));
        }
        "USER" => {
            need("a user")?;
            parsed.steps.push(Instruction::User(rest.to_owned()));
        }
        "CMD" | "ENTRYPOINT" => {
            need("a command")?;
            parsed.start_cmd = Some(shell_form(rest)?);
        }
        other => bail!("unknown instruction {other} (FROM, RUN, COPY, ENV, WORKDIR, USER, CMD)"),
    }
    Ok(())
}

fn unquote(value: &str) -> &str {
    value.strip_prefix('"').and_then(|v| v.strip_suffix('"')).unwrap_or(value)
}

/// `CMD ["a", "b c"]` as the shell line `'a' 'b c'`; a shell form stays as it is.
fn shell_form(text: &str) -> anyhow::Result<String> {
    if !text.starts_with('[') {
        return Ok(text.to_owned());
    }
    let words: Vec<String> = serde_json::from_str(text).context("CMD's JSON form")?;
    Ok(words
        .iter()
        .map(|w| format!("'{}'", w.replace('\'', r"'\''")))
        .collect::<Vec<_>>()
        .join(" "))
}

/// A hash of what a COPY sends (its instruction, then each file's path, mode, size and
/// bytes, or a link's target, in path order): the same files are uploaded once.
fn files_hash(context: &Path, src: &str, dest: &str) -> anyhow::Result<String> {
    use std::os::unix::fs::PermissionsExt;
    let mut hash = Sha256::new();
    hash.update(format!("COPY {src} {dest}"));
    let root = context.join(src);
    let mut stack = vec![root.clone()];
    let mut paths = Vec::new();
    while let Some(path) = stack.pop() {
        let meta = std::fs::symlink_metadata(&path)
            .with_context(|| format!("COPY {src}: {}", path.display()))?;
        paths.push((path.clone(), meta.clone()));
        if meta.is_dir() {
            for entry in std::fs::read_dir(&path)? {
                stack.push(entry?.path());
            }
        }
    }
    paths.sort_by(|a, b| a.0.cmp(&b.0));
    for (path, meta) in paths {
        hash.update(path.strip_prefix(context).unwrap_or(&path).to_string_lossy().as_bytes());
        hash.update(format!("\0{:o}\0{}\0", meta.permissions().mode(), meta.len()));
        if meta.is_file() {
            hash.update(std::fs::read(&path)?);
        } else if meta.file_type().is_symlink() {
            hash.update(std::fs::read_link(&path)?.to_string_lossy().as_bytes());
        }
    }
    Ok(hash.finalize().iter().map(|b| format!("{b:02x}")).collect())
}

/// A gzipped tar of `src` (relative to `context`), made by the host's tar.
fn archive(context: &Path, src: &str) -> anyhow::Result<Vec<u8>> {
    let output = std::process::Command::new("tar")
        .arg("-czf")
        .arg("-")
        .arg("-C")
        .arg(context)
        .arg("--")
        .arg(src)
        .output()
        .context("running tar")?;
    if !output.status.success() {
        bail!("tar of {src}: {}", String::from_utf8_lossy(&output.stderr).trim());
    }
    Ok(output.stdout)
}

/// What the template's sandboxes get unless their create says otherwise.
struct BuildLimits {
    cpu_count: Option<u64>,
    memory_mb: Option<u64>,
    runtime: Option<String>,
}

struct Build<'a> {
    control: &'a ControlPlane,
    name: &'a str,
    context: &'a Path,
    printer: Printer,
}

impl Build<'_> {
    async fn run(
        &self,
        parsed: Parsed,
        no_cache: bool,
        limits: BuildLimits,
        timeout: Duration,
    ) -> anyhow::Result<ExitCode> {
        let started = Instant::now();
        let BuildLimits { cpu_count, memory_mb, runtime } = limits;
        let requested =
            self.control.request_build(self.name, cpu_count, memory_mb, runtime.as_deref()).await?;
        let mut steps = Vec::new();
        for instruction in &parsed.steps {
            let (kind, args, files_hash) = match instruction {
                Instruction::Run(cmd) => ("RUN", vec![cmd.clone()], None),
                Instruction::Copy { src, dest } => {
                    let hash = files_hash(self.context, src, dest)?;
                    let data = archive(self.context, src)?;
                    let uploaded = self
                        .control
                        .upload_build_files(&requested.template_id, &hash, data)
                        .await?;
                    progress(
                        started,
                        if uploaded {
                            format!("uploaded {src}")
                        } else {
                            format!("{src}: already uploaded")
                        },
                    );
                    (
                        "COPY",
                        vec![src.clone(), dest.clone(), String::new(), String::new()],
                        Some(hash),
                    )
                }
                Instruction::Env(vars) => {
                    ("ENV", vars.iter().flat_map(|(k, v)| [k.clone(), v.clone()]).collect(), None)
                }
                Instruction::Workdir(dir) => ("WORKDIR", vec![dir.clone()], None),
                Instruction::User(user) => ("USER", vec![user.clone()], None),
            };
            steps.push(BuildStep { kind: kind.to_owned(), args, force: false, files_hash });
        }
        let from = parsed.from.unwrap_or_else(|| "base".to_owned());
        let image = is_image(&from);
        let definition = BuildDefinition {
            from_template: (!image).then(|| from.clone()),
            from_image: image.then(|| from.clone()),
            force: no_cache,
            steps,
            start_cmd: parsed.start_cmd,
            ready_cmd: parsed.ready_cmd,
        };
        self.control.start_build(&requested, &definition).await?;
        let mut seen = 0;
        let status = loop {
            let status = self.control.build_status(&requested, seen).await?;
            seen += status.log_entries.len();
            for entry in &status.log_entries {
                progress(started, entry.message.clone());
            }
            if matches!(status.status.as_str(), "ready" | "error") && status.log_entries.is_empty()
            {
                break status;
            }
            if started.elapsed() > timeout {
                bail!(
                    "the build did not finish within {} s (it goes on in the daemon)",
                    timeout.as_secs()
                );
            }
            tokio::time::sleep(Duration::from_millis(200)).await;
        };
        let seconds = started.elapsed().as_secs_f64();
        let report = serde_json::json!({
            "name": self.name,
            "templateID": requested.template_id,
            "buildID": requested.build_id,
            "tags": requested.tags,
            "status": status.status,
            "reason": status.reason,
            "seconds": (seconds * 10.0).round() / 10.0,
        });
        if status.status != "ready" {
            let reason = status.reason.map(|r| match r.step {
                Some(step) => format!("step {step}: {}", r.message),
                None => r.message,
            });
            if self.printer.json {
                self.printer.print(&report, String::new);
            }
            bail!("the build failed: {}", reason.unwrap_or_else(|| "no reason given".into()));
        }
        self.printer.print(&report, || {
            format!(
                "built {} ({}) in {seconds:.1} s",
                requested.names.join(", "),
                requested.template_id
            )
        });
        Ok(ExitCode::SUCCESS)
    }
}

/// A progress line on stderr (stdout stays the result's).
fn progress(started: Instant, line: String) {
    let mut stderr = std::io::stderr().lock();
    let _ = writeln!(stderr, "{:>6.1}s  {line}", started.elapsed().as_secs_f64());
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn from_names_an_image_when_it_has_a_slash_or_a_digest() {
        let kinds: Vec<(&str, bool)> = [
            "base",
            "webapp:v2",
            "e2bdev/base",
            "library/ubuntu:22.04",
            "127.0.0.1:5000/team/app:1",
            "img@sha256:0123",
        ]
        .into_iter()
        .map(|from| (from, is_image(from)))
        .collect();
        assert_eq!(
            kinds,
            [
                ("base", false),
                ("webapp:v2", false),
                ("e2bdev/base", true),
                ("library/ubuntu:22.04", true),
                ("127.0.0.1:5000/team/app:1", true),
                ("img@sha256:0123", true),
            ]
        );
    }

    #[test]
    fn a_template_file_parses_into_steps() {
        let parsed = parse(
            "# a web app\nFROM base\nCOPY app /srv/app\nENV GREETING=\"hello there\"\nENV MODE prod\n\
             RUN apt-get update && \\\n    apt-get install -y jq\nWORKDIR /srv/app\nUSER root\n\
             CMD [\"python3\", \"-m\", \"http.server\", \"8080\"]\n# ready: curl -sf localhost:8080\n",
        )
        .unwrap();
        assert_eq!(
            parsed,
            Parsed {
                from: Some("base".into()),
                steps: vec![
                    Instruction::Copy { src: "app".into(), dest: "/srv/app".into() },
                    Instruction::Env(vec![("GREETING".into(), "hello there".into())]),
                    Instruction::Env(vec![("MODE".into(), "prod".into())]),
                    Instruction::Run("apt-get update &&  apt-get install -y jq".into()),
                    Instruction::Workdir("/srv/app".into()),
                    Instruction::User("root".into()),
                ],
                start_cmd: Some("'python3' '-m' 'http.server' '8080'".into()),
                ready_cmd: Some("curl -sf localhost:8080".into()),
            }
        );
    }

    #[test]
    fn bad_lines_are_named() {
        let err = |text: &str| format!("{:#}", parse(text).unwrap_err());
        assert_eq!(
            err("FROM base\nADD x y\n"),
            "line 2: unknown instruction ADD (FROM, RUN, COPY, ENV, WORKDIR, USER, CMD)"
        );
        assert_eq!(err("RUN\n"), "line 1: RUN needs a command");
        assert_eq!(err("COPY a\n"), "line 1: COPY takes a source and a destination");
        assert_eq!(err("RUN x\nFROM base\n"), "line 2: FROM must come first, once");
        assert_eq!(err("RUN a \\\n"), "the last line ends with '\\' and nothing follows");
    }
}
