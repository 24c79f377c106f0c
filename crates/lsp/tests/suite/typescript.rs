//! typescript-language-server, for real: definition and hover across two files. The
//! server is found through the engine's search PATH (not the env PATH).

use dsh_core::WriteExpectation;
use dsh_lsp::Operation;

use super::common::{Backend, Harness, column_of, diagnostics, hover_text, locations, tools_bin};

const UTIL: &str = "/** Adds two numbers: 你好 🎉 */\nexport function add(a: number, b: number): number {\n  return a + b;\n}\n";
const MAIN: &str =
    "import { add } from \"./util\";\nconst note = \"café 🎉\"; const total: number = add(1, 2);\n";

async fn scenario(h: Harness) {
    h.write("tsconfig.json", "{ \"compilerOptions\": { \"strict\": true } }\n").await;
    let util = h.write("util.ts", UTIL).await;
    let main = h.write("main.ts", MAIN).await;
    let call = column_of(MAIN, 2, "add", 0);

    let definition = locations(&h.ask(Operation::GoToDefinition, &main, 2, call).await);
    assert_eq!(definition.len(), 1, "{definition:?}");
    let target = &definition[0];
    assert_eq!(target.path, util, "{definition:?}");
    assert_eq!((target.line, target.character, target.end_character), (2, 17, 20));
    assert_eq!(target.excerpt, "export function add(a: number, b: number): number {");

    let hover = h.ask(Operation::Hover, &main, 2, call).await;
    assert_eq!(hover.server, "typescript");
    let text = hover_text(&hover);
    assert!(text.contains("add(a: number, b: number): number"), "{text}");
    assert!(text.contains("Adds two numbers: 你好 🎉"), "{text}");

    let references = locations(&h.ask(Operation::FindReferences, &util, 2, 17).await);
    let mut found: Vec<_> = references.iter().map(|l| (l.path.clone(), l.line)).collect();
    found.sort();
    found.dedup();
    assert!(found.contains(&(util.clone(), 2)) && found.contains(&(main.clone(), 2)), "{found:?}");

    // Diagnostics from a push-only server: a type error, then none once fixed.
    let broken = h.write("broken.ts", "const n: number = \"not a number\";\nexport {};\n").await;
    let found = diagnostics(&h.ask(Operation::Diagnostics, &broken, 1, 1).await);
    let errors: Vec<_> = found.iter().filter(|d| d.severity == "error").collect();
    assert_eq!(errors.len(), 1, "{found:?}");
    assert_eq!((errors[0].line, errors[0].character), (1, 7));
    assert!(errors[0].message.contains("not assignable"), "{}", errors[0].message);
    h.fs.write_text(&broken, "const n: number = 42;\nexport {};\n", WriteExpectation::Any)
        .await
        .unwrap();
    let fixed = diagnostics(&h.ask(Operation::Diagnostics, &broken, 1, 1).await);
    assert!(fixed.iter().all(|d| d.severity != "error"), "{fixed:?}");
    h.engine.dispose().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn typescript_on_the_local_backend() {
    let bin = tools_bin();
    scenario(Harness::new(Backend::Host, |c| c.search_path = vec![bin]).await).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn typescript_through_the_sandbox_backend() {
    let bin = tools_bin();
    scenario(Harness::new(Backend::Sandbox, |c| c.search_path = vec![bin]).await).await;
}
