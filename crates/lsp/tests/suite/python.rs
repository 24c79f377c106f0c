//! pyright, for real, on the local backend and through a real dsh-envd.

use dsh_core::WriteExpectation;
use dsh_lsp::{LspOutput, Operation};

use super::common::{
    Backend, Harness, SYSTEM_PATH, base_env, column_of, diagnostics, hover_text, locations,
    tools_bin,
};

const MAIN: &str = r#"def greet(name: str) -> str:
    """Greets in many scripts: 你好 café 🎉"""
    return "hello " + name


label = "你好 café 🎉"; result = greet(label)
again = greet("é")
"#;

const CHECKED_BROKEN: &str =
    "def double(n: int) -> int:\n    return n * 2\n\n\nvalue: int = double(\"oops\")\n";
const CHECKED_FIXED: &str =
    "def double(n: int) -> int:\n    return n * 2\n\n\nvalue: int = double(21)\n";

async fn harness(backend: Backend) -> Harness {
    let path = format!("{}:{SYSTEM_PATH}", tools_bin().display());
    Harness::new(backend, |config| config.env = base_env(&path)).await
}

async fn scenario(h: Harness) {
    let main = h.write("main.py", MAIN).await;
    h.write("pyrightconfig.json", "{}\n").await;

    // Hover on the definition: the docstring comes back byte-exact.
    let hover = h.ask(Operation::Hover, &main, 1, 5).await;
    assert_eq!(hover.server, "pyright");
    let text = hover_text(&hover);
    assert!(text.contains("你好 café 🎉"), "{text}");
    assert!(text.contains("greet"), "{text}");

    // Definition from a call site after a multibyte string on the same line.
    let call = column_of(MAIN, 6, "greet", 0);
    assert_eq!(call, 32, "UTF-16 column of the call");
    let answer = h.ask(Operation::GoToDefinition, &main, 6, call).await;
    let rendered = answer.to_string();
    let expected = format!("{}:1:5: def greet(name: str) -> str:", main.display());
    assert!(rendered.contains(&expected), "{rendered}");
    let definition = locations(&answer);
    assert_eq!(definition.len(), 1, "{definition:?}");
    let target = &definition[0];
    assert_eq!(target.path, main);
    assert_eq!(
        (target.line, target.character, target.end_line, target.end_character),
        (1, 5, 1, 10)
    );
    assert_eq!(target.excerpt, "def greet(name: str) -> str:");
    // Positions are UTF-16 on the way back too: `label` after the string on line 6.
    let label_use = column_of(MAIN, 6, "label", 1);
    let label_def = locations(&h.ask(Operation::GoToDefinition, &main, 6, label_use + 2).await);
    assert_eq!((label_def[0].line, label_def[0].character), (6, 1));

    // References: the declaration and both calls.
    let references = locations(&h.ask(Operation::FindReferences, &main, 1, 5).await);
    let mut found: Vec<(u32, u32)> = references.iter().map(|l| (l.line, l.character)).collect();
    found.sort();
    assert_eq!(found, [(1, 5), (6, call), (7, 9)], "{references:?}");

    // A planted type error shows, then disappears once the file is fixed through Fs.
    let checked = h.write("checked.py", CHECKED_BROKEN).await;
    let broken = diagnostics(&h.ask(Operation::Diagnostics, &checked, 1, 1).await);
    let errors: Vec<_> = broken.iter().filter(|d| d.severity == "error").collect();
    assert_eq!(errors.len(), 1, "{broken:?}");
    assert_eq!(errors[0].line, 5);
    assert!(errors[0].message.contains("int"), "{}", errors[0].message);
    assert_eq!(errors[0].excerpt, "value: int = double(\"oops\")");
    h.fs.write_text(&checked, CHECKED_FIXED, WriteExpectation::Any).await.unwrap();
    let fixed = diagnostics(&h.ask(Operation::Diagnostics, &checked, 1, 1).await);
    assert!(fixed.iter().all(|d| d.severity != "error"), "{fixed:?}");
    // And back again: never a stale answer.
    h.fs.write_text(&checked, CHECKED_BROKEN, WriteExpectation::Any).await.unwrap();
    let again = diagnostics(&h.ask(Operation::Diagnostics, &checked, 1, 1).await);
    assert_eq!(again.iter().filter(|d| d.severity == "error").count(), 1, "{again:?}");

    // Outline, workspace search, rename preview (nothing applied).
    let outline = h.ask(Operation::DocumentSymbols, &main, 1, 1).await;
    let LspOutput::Symbols(symbols) = &outline.output else { panic!("{outline:?}") };
    let greet = symbols.iter().find(|s| s.name == "greet").unwrap();
    assert_eq!(
        (greet.kind.as_str(), greet.location.line, greet.location.character),
        ("function", 1, 5)
    );
    assert!(symbols.iter().any(|s| s.name == "label"));
    let search = h.ask(Operation::WorkspaceSymbols { query: "greet".into() }, &main, 1, 1).await;
    let LspOutput::Symbols(found) = &search.output else { panic!("{search:?}") };
    assert!(found.iter().any(|s| s.name == "greet" && s.location.path == main), "{found:?}");
    let rename = h.ask(Operation::Rename { new_name: "salute".into() }, &main, 6, call).await;
    let LspOutput::Rename(files) = &rename.output else { panic!("{rename:?}") };
    assert_eq!(files.len(), 1, "{files:?}");
    let mut edits: Vec<(u32, u32)> = files[0].edits.iter().map(|e| (e.line, e.character)).collect();
    edits.sort();
    assert_eq!(edits, [(1, 5), (6, call), (7, 9)]);
    assert!(files[0].edits.iter().all(|e| e.new_text == "salute"));
    assert!(rename.to_string().contains("preview only"));
    let unchanged = h.fs.read_text(&main, 1 << 20).await.unwrap();
    assert_eq!(unchanged.text, MAIN);

    // One server for the root, reused across all of the above.
    let running = h.engine.running().await;
    assert_eq!(running.len(), 1, "{running:?}");
    let rendered = hover.to_string();
    assert!(rendered.starts_with("hover (answered by pyright)"), "{rendered}");
    h.engine.dispose().await;
    assert!(h.engine.running().await.is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pyright_on_the_local_backend() {
    scenario(harness(Backend::Host).await).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pyright_through_the_sandbox_backend() {
    scenario(harness(Backend::Sandbox).await).await;
}
