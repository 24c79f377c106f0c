//! Languages, their kernels, and the code that sets a context's directory and
//! environment variables in each.

/// A language a context runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Language {
    Python,
    JavaScript,
    TypeScript,
    Bash,
}

/// E2B's names (`template/server/contexts.py`, `normalize_language`): none is Python,
/// names are lowercased and trimmed, `js` is JavaScript and `ts` TypeScript. `None` for a
/// language this server has no kernel for (E2B's R and Java).
pub fn normalize_language(name: Option<&str>) -> Result<Language, String> {
    let Some(name) = name else { return Ok(Language::Python) };
    match name.trim().to_lowercase().as_str() {
        "" | "python" => Ok(Language::Python),
        "js" | "javascript" => Ok(Language::JavaScript),
        "ts" | "typescript" => Ok(Language::TypeScript),
        "bash" => Ok(Language::Bash),
        other => Err(format!(
            "language '{other}' is not available here (python, javascript, typescript, bash)"
        )),
    }
}

/// A JSON string literal: valid in Python and JavaScript source alike.
fn literal(text: &str) -> String {
    serde_json::Value::String(text.to_owned()).to_string()
}

/// `text` as one single-quoted shell word.
fn shell_word(text: &str) -> String {
    format!("'{}'", text.replace('\'', r"'\''"))
}

/// A variable name every language here can set: `[A-Za-z_][A-Za-z0-9_]*`.
pub fn valid_env_name(name: &str) -> bool {
    let mut bytes = name.bytes();
    bytes.next().is_some_and(|b| b.is_ascii_alphabetic() || b == b'_')
        && bytes.all(|b| b.is_ascii_alphanumeric() || b == b'_')
}

impl Language {
    /// How E2B names it in a context (`Context.language`).
    pub fn name(self) -> &'static str {
        match self {
            Language::Python => "python",
            Language::JavaScript => "javascript",
            Language::TypeScript => "typescript",
            Language::Bash => "bash",
        }
    }

    /// The Jupyter kernelspec that runs it: ipykernel's `python3`, bash_kernel's `bash`,
    /// and Deno's kernel (`deno jupyter`) for JavaScript and TypeScript alike (E2B runs
    /// TypeScript on its JavaScript kernel too: `get_kernel_for_language`).
    pub fn kernel(self) -> &'static str {
        match self {
            Language::Python => "python3",
            Language::JavaScript | Language::TypeScript => "deno",
            Language::Bash => "bash",
        }
    }

    /// Code that changes the context's working directory (E2B:
    /// `messaging.py`, `change_current_directory`).
    pub fn chdir(self, path: &str) -> String {
        match self {
            Language::Python => format!("import os as __dsh_os; __dsh_os.chdir({})", literal(path)),
            Language::JavaScript | Language::TypeScript => format!("Deno.chdir({})", literal(path)),
            Language::Bash => format!("cd {}", shell_word(path)),
        }
    }

    /// Code that sets one environment variable (E2B: `_set_env_var_snippet`).
    pub fn set_env(self, name: &str, value: &str) -> String {
        match self {
            Language::Python => {
                format!("import os; os.environ[{}] = {}", literal(name), literal(value))
            }
            Language::JavaScript | Language::TypeScript => {
                format!("Deno.env.set({}, {})", literal(name), literal(value))
            }
            Language::Bash => format!("export {name}={}", shell_word(value)),
        }
    }

    /// Code that removes one environment variable (E2B: `_delete_env_var_snippet`).
    pub fn unset_env(self, name: &str) -> String {
        match self {
            Language::Python => format!("import os; os.environ.pop({}, None)", literal(name)),
            Language::JavaScript | Language::TypeScript => {
                format!("Deno.env.delete({})", literal(name))
            }
            Language::Bash => format!("unset {name}"),
        }
    }
}

/// The indentation of the first non-empty line (E2B: `_get_code_indentation`): the
/// variables' code is indented alike, so a cell that starts indented still parses.
pub fn indentation(code: &str) -> &str {
    code.lines()
        .find(|line| !line.trim().is_empty())
        .map_or("", |line| &line[..line.len() - line.trim_start().len()])
}

/// `snippet` indented by `indent`, line by line (E2B: `_indent_code_with_level`).
pub fn indent(snippet: &str, indent: &str) -> String {
    snippet
        .split('\n')
        .map(
            |line| if line.trim().is_empty() { line.to_owned() } else { format!("{indent}{line}") },
        )
        .collect::<Vec<_>>()
        .join("\n")
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn languages_are_normalized_as_e2b_does() {
        assert_eq!(normalize_language(None).unwrap(), Language::Python);
        assert_eq!(normalize_language(Some(" JS ")).unwrap(), Language::JavaScript);
        assert_eq!(normalize_language(Some("ts")).unwrap(), Language::TypeScript);
        assert_eq!(normalize_language(Some("Bash")).unwrap(), Language::Bash);
        assert!(normalize_language(Some("r")).is_err());
    }

    #[test]
    fn snippets_quote_their_values() {
        assert_eq!(
            Language::Python.set_env("A", "it's \"x\"\n"),
            r#"import os; os.environ["A"] = "it's \"x\"\n""#
        );
        assert_eq!(Language::Bash.set_env("A", "it's"), r"export A='it'\''s'");
        assert_eq!(Language::JavaScript.chdir("/tmp/a b"), r#"Deno.chdir("/tmp/a b")"#);
        assert_eq!(Language::Bash.unset_env("A"), "unset A");
        assert!(valid_env_name("_A1"));
        assert!(!valid_env_name("1A"));
        assert!(!valid_env_name("A-B"));
        assert!(!valid_env_name(""));
    }

    #[test]
    fn indentation_follows_the_first_line() {
        assert_eq!(indentation("\n    x = 1\n  y"), "    ");
        assert_eq!(indent("a\n\nb", "  "), "  a\n\n  b");
    }
}
