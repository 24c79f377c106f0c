//! `code-interpreter-v1`, E2B's template for its Code Interpreter SDKs
//! (`DEFAULT_TEMPLATE` in e2b-dev/code-interpreter's SDKs), built by this daemon from
//! steps the first time a sandbox of it is asked for, then kept like any template built
//! here (`templates.rs`): later creates start from its files at once.
//!
//! What it holds (E2B's own is `template/template.py` with `template/requirements.txt`;
//! ours is smaller and runs our server):
//! - a virtual environment at [`VENV`] with jupyter-server, ipykernel and the data stack
//!   from PyPI, each pinned ([`PYPI`]); bash_kernel for `language="bash"` and Deno's
//!   Jupyter kernel (the `deno` package of PyPI) for JavaScript and TypeScript;
//! - IPython's profile for `user`: no colors (E2B's `ipython_kernel_config.py`) and the
//!   `e2b/data` and `e2b/chart` formatters (what E2B's `startup_scripts/0002_data.py`
//!   adds, written here anew);
//! - the start command: `dsh-envd code-interpreter` (crates/code-interpreter), the
//!   envd binary every sandbox has at `/.dsh/bin`, which runs jupyter-server and serves
//!   E2B's protocol on port 49999; the ready command waits for that port.
//!
//! The build's tags are `default` and `dsh-ci-<digest of the recipe>`: a daemon whose
//! recipe changed (new pins, another envd binary) builds it again, reusing every step
//! the step cache still has. A `code-interpreter-v1` built by a user through the
//! Template SDK (no `dsh-ci-` tag) is theirs: it is used as it is.

use std::sync::Arc;
use std::time::{Duration, Instant};

use sha2::{Digest, Sha256};

use crate::server::builds::{self, Definition, Progress, Status, StepBody};
use crate::server::context::Control;
use crate::server::control_error::{ControlError, ControlResult};
use crate::server::files::{now_ms, random_hex};
use crate::server::templates::{self, BuiltTemplate, DEFAULT_TAG};

/// E2B's name of the template.
pub const NAME: &str = "code-interpreter-v1";
/// The prefix of the tag that names the recipe a build was made from.
const TAG_PREFIX: &str = "dsh-ci-";
/// Where the Python environment lives inside.
pub const VENV: &str = "/opt/dsh-code-interpreter/venv";
/// What the environment holds, pinned (E2B's `template/requirements.txt` pins the same
/// jupyter-server, ipykernel, IPython and data stack; bash_kernel and Deno's kernel are
/// ours: E2B builds IJavaScript from git).
pub const PYPI: &[&str] = &[
    "jupyter-server==2.20.0",
    "ipykernel==6.31.0",
    "ipython==9.15.0",
    "numpy==2.3.5",
    "pandas==2.2.3",
    "matplotlib==3.10.9",
    "pillow==12.3.0",
    "orjson==3.11.9",
    "e2b-charts==1.0.0",
    "bash_kernel==0.10.0",
    "deno==2.9.8",
];
/// How long the first build may take before the create that asked for it fails (the
/// build goes on; a later create finds it).
const BUILD_WAIT: Duration = Duration::from_secs(30 * 60);

/// IPython's kernel configuration (E2B: `ipython_kernel_config.py`).
const KERNEL_CONFIG: &str = r#"c = get_config()  # noqa
c.InteractiveShell.colors = "NoColor"
c.PlainTextFormatter.max_seq_length = 0
"#;

/// The formatters E2B's SDKs read as `Result.data` (a DataFrame's columns) and
/// `Result.chart` (a matplotlib figure's data, by e2b-charts).
const FORMATTERS: &str = r#"import sys

import IPython
from IPython.core.formatters import BaseFormatter
from traitlets import ObjectName, Unicode


class DshDataFormatter(BaseFormatter):
    format_type = Unicode("e2b/data")
    print_method = ObjectName("_repr_e2b_data_")
    _return_type = (dict, str)

    def __call__(self, obj):
        pandas = sys.modules.get("pandas")
        if pandas is None or not isinstance(obj, pandas.DataFrame):
            return super().__call__(obj)
        columns = obj.to_dict(orient="list")
        return {
            name: [v.isoformat() if isinstance(v, pandas.Timestamp) else v for v in values]
            for name, values in columns.items()
        }


class DshChartFormatter(BaseFormatter):
    format_type = Unicode("e2b/chart")
    print_method = ObjectName("_repr_e2b_chart_")
    _return_type = (dict, str)

    def __call__(self, obj):
        if sys.modules.get("matplotlib") is None:
            return super().__call__(obj)
        from matplotlib.figure import Figure

        if not isinstance(obj, Figure):
            return super().__call__(obj)
        try:
            from e2b_charts import chart_figure_to_dict

            return chart_figure_to_dict(obj)
        except Exception:
            return {}


_ip = IPython.get_ipython()
_ip.display_formatter.formatters["e2b/data"] = DshDataFormatter(parent=_ip.display_formatter)
_ip.display_formatter.formatters["e2b/chart"] = DshChartFormatter(parent=_ip.display_formatter)
"#;

fn step(kind: &str, args: &[&str]) -> StepBody {
    StepBody {
        kind: kind.to_owned(),
        args: Some(args.iter().map(|a| (*a).to_owned()).collect()),
        ..StepBody::default()
    }
}

/// `text` written to `path` by a shell heredoc (its end marker closes the last line).
fn write_file(path: &str, text: &str) -> String {
    format!("cat > {path} <<'DSH_EOF'\n{text}DSH_EOF")
}

/// The template's definition on this daemon and the tag naming it.
pub struct Recipe {
    pub definition: Definition,
    pub tag: String,
}

impl Recipe {
    pub fn of(shared: &Control) -> Recipe {
        let venv_dir = VENV.trim_end_matches("/venv");
        // rfc3987-syntax (pulled in by jupyter-events' jsonschema extras) builds a grammar
        // when imported: some 1.4 s of every jupyter-server start. jsonschema does
        // without it (it then does not check the `iri` format, which nothing here uses).
        let install = format!(
            "python3 -m venv {VENV} && {VENV}/bin/pip install --no-cache-dir \
             --disable-pip-version-check --quiet {} && \
             {VENV}/bin/pip uninstall --yes --quiet rfc3987-syntax",
            PYPI.join(" ")
        );
        let kernels = format!(
            "{VENV}/bin/python -m bash_kernel.install --sys-prefix && \
             DENO_NO_UPDATE_CHECK=1 {VENV}/bin/deno jupyter --install"
        );
        // One command a line: a heredoc's end marker must stand alone on its line.
        let profile = [
            "set -e".to_owned(),
            "mkdir -p ~/.ipython/profile_default/startup".to_owned(),
            write_file("~/.ipython/profile_default/ipython_kernel_config.py", KERNEL_CONFIG),
            write_file("~/.ipython/profile_default/startup/00-dsh-e2b-formatters.py", FORMATTERS),
        ]
        .join("\n");
        let steps = vec![
            step("USER", &["root"]),
            step("RUN", &[&format!("mkdir -p {venv_dir} && chown user:user {venv_dir}")]),
            step("USER", &["user"]),
            step("RUN", &[&install]),
            step("RUN", &[&kernels]),
            step("RUN", &[&profile]),
            step("WORKDIR", &["/home/user"]),
        ];
        // The envd binary as this daemon starts it (`dsh-envd`, or `dsh __envd`).
        let program = shared
            .envd_binary
            .file_name()
            .map(|name| format!("{}/{}", crate::plan::PROGRAM_DIR, name.to_string_lossy()))
            .unwrap_or_default();
        let mut words = vec![builds::quote(&program)];
        words.extend(shared.config.envd_args.iter().map(|a| builds::quote(&a.to_string_lossy())));
        let start = format!(
            "exec {} code-interpreter --jupyter {VENV}/bin/jupyter-server --cwd /home/user",
            words.join(" ")
        );
        // Listening means ready: the server listens once its default context is up.
        let ready =
            "for i in $(seq 1 2400); do (: </dev/tcp/127.0.0.1/49999) 2>/dev/null && exit 0; \
                     sleep 0.05; done; exit 1"
                .to_owned();
        let definition = Definition {
            steps: Some(steps),
            start_cmd: Some(start),
            ready_cmd: Some(ready),
            ..Definition::default()
        };
        let mut hasher = Sha256::new();
        if let Ok(text) = serde_json::to_vec(&definition.steps) {
            hasher.update(&text);
        }
        for text in [&definition.start_cmd, &definition.ready_cmd].into_iter().flatten() {
            hasher.update(b"\n");
            hasher.update(text.as_bytes());
        }
        let digest: String = hasher.finalize().iter().take(6).map(|b| format!("{b:02x}")).collect();
        Recipe { definition, tag: format!("{TAG_PREFIX}{digest}") }
    }
}

/// One build at a time: creates that come meanwhile wait for it.
static BUILDING: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

/// Makes sure `code-interpreter-v1` is built from this daemon's recipe (builds it, and
/// waits, if not).
pub async fn ensure(shared: &Arc<Control>) -> ControlResult<()> {
    let recipe = Recipe::of(shared);
    let _one = BUILDING.lock().await;
    let index = templates::index(shared);
    if let Some(template) = index.find(NAME) {
        let current = template.tags.contains_key(&recipe.tag)
            && index.resolve(&format!("{NAME}:{}", recipe.tag)).is_some();
        let theirs = !template.tags.keys().any(|tag| tag.starts_with(TAG_PREFIX))
            && !template.tags.is_empty();
        if current || theirs {
            return Ok(());
        }
    }
    build(shared, recipe).await
}

/// Drops the tags of earlier recipes, and the builds only they kept (a sandbox made from
/// one has its own copy of its files).
async fn forget_older_recipes(shared: &Control, current: &str) {
    let _names = shared.names_lock.lock().await;
    let index = templates::index(shared);
    let mut all = index.all();
    let Some(template) = all.iter_mut().find(|t| t.name == NAME) else { return };
    let before = template.tags.len();
    template.tags.retain(|tag, _| !tag.starts_with(TAG_PREFIX) || tag == current);
    if template.tags.len() == before {
        return;
    }
    match index.save(&all) {
        Ok(()) => index.remove_unreferenced_builds(&all),
        Err(e) => tracing::warn!(
            error = format!("{e:#}"),
            "forgetting the {NAME} builds of older recipes"
        ),
    }
}

async fn build(shared: &Arc<Control>, recipe: Recipe) -> ControlResult<()> {
    let steps = builds::check_steps(&recipe.definition)
        .map_err(|e| ControlError::Internal(anyhow::anyhow!("the {NAME} recipe: {e}")))?;
    let template_id = {
        let _names = shared.names_lock.lock().await;
        let index = templates::index(shared);
        let mut all = index.all();
        match all.iter().find(|t| t.name == NAME) {
            Some(template) => template.template_id.clone(),
            None => {
                let now = now_ms();
                let id = random_hex(10);
                all.push(BuiltTemplate {
                    template_id: id.clone(),
                    name: NAME.to_owned(),
                    tags: Default::default(),
                    files: Default::default(),
                    created_at_ms: now,
                    updated_at_ms: now,
                });
                index.save(&all).map_err(ControlError::Internal)?;
                id
            }
        }
    };
    let build_id = crate::exec::random_uuid();
    shared.builds.request(
        &build_id,
        Progress {
            template_id,
            tags: vec![recipe.tag.clone(), DEFAULT_TAG.to_owned()],
            cpu_count: None,
            memory_mb: None,
            runtime: None,
            status: Status::Waiting,
            logs: Vec::new(),
            reason: None,
            requested_at: Instant::now(),
        },
    );
    let tag = recipe.tag.clone();
    tracing::info!(build = %build_id, %tag, "building the {NAME} template (first use)");
    builds::start(shared, build_id.clone(), recipe.definition, steps);
    let started = Instant::now();
    loop {
        tokio::time::sleep(Duration::from_millis(250)).await;
        let Some(progress) = shared.builds.get(&build_id) else {
            return Err(ControlError::Internal(anyhow::anyhow!("the {NAME} build was forgotten")));
        };
        // What the progress says, read under its lock (never held across an await).
        let failure = {
            let progress = progress.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
            match progress.status {
                Status::Ready => None,
                Status::Error => {
                    let reason = progress.reason.as_ref().map_or("", |r| r.message.as_str());
                    let tail: Vec<&str> =
                        progress.logs.iter().rev().take(20).map(|e| e.message.as_str()).collect();
                    let tail: Vec<&str> = tail.into_iter().rev().collect();
                    Some(ControlError::Failed(format!(
                        "building the {NAME} template failed: {reason}\n{}",
                        tail.join("\n")
                    )))
                }
                Status::Waiting | Status::Building if started.elapsed() > BUILD_WAIT => {
                    Some(ControlError::Unavailable(format!(
                        "the {NAME} template is still being built: try again shortly"
                    )))
                }
                Status::Waiting | Status::Building => continue,
            }
        };
        if let Some(failure) = failure {
            return Err(failure);
        }
        tracing::info!(build = %build_id, seconds = started.elapsed().as_secs(), "the {NAME} template is built");
        forget_older_recipes(shared, &tag).await;
        return Ok(());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn files_are_written_by_heredocs_whose_marker_stands_alone() {
        let script = write_file("/tmp/x", "a\nb\n");
        assert_eq!(script, "cat > /tmp/x <<'DSH_EOF'\na\nb\nDSH_EOF");
        assert!(KERNEL_CONFIG.ends_with('\n') && FORMATTERS.ends_with('\n'));
        assert!(!KERNEL_CONFIG.contains("DSH_EOF") && !FORMATTERS.contains("DSH_EOF"));
    }
}
