//! The registry: listing, unknown tools, argument validation.

use dsh_tools::ToolError;
use serde_json::{Value, json};

use crate::both;
use crate::common::Harness;

both!(invalid_arguments_name_the_field);

fn field_of(err: &ToolError) -> &str {
    match err {
        ToolError::InvalidArguments { field, .. } => field,
        other => panic!("not an argument error: {other:?}"),
    }
}

async fn invalid_arguments_name_the_field(h: Harness) {
    let cases: [(&str, Value, &str); 14] = [
        ("read", json!({}), "file_path"),
        ("read", json!({ "file_path": 5 }), "file_path"),
        ("read", json!({ "file_path": "x", "bogus": 1 }), "bogus"),
        ("read", json!({ "file_path": "x", "offset": -1 }), "offset"),
        ("read", json!({ "file_path": "x", "offset": 0 }), "offset"),
        ("read", json!({ "file_path": "" }), "file_path"),
        ("read", json!("x"), "$"),
        ("write", json!({ "file_path": "x" }), "content"),
        ("edit", json!({ "file_path": "x", "old_string": "a" }), "new_string"),
        (
            "edit",
            json!({ "file_path": "x", "old_string": "a", "new_string": "b", "replace_all": "yes" }),
            "replace_all",
        ),
        ("bash", json!({ "command": "true" }), "description"),
        (
            "bash",
            json!({ "command": "true", "description": "x", "timeoutMs": 700_000 }),
            "timeoutMs",
        ),
        ("grep", json!({ "pattern": "x", "context": 1000 }), "context"),
        ("task_output", json!({ "task": "task-1" }), "task"),
    ];
    for (tool, args, field) in cases {
        let err = h.err(tool, args.clone()).await;
        assert_eq!(field_of(&err), field, "[{}] {tool} {args}: {err}", h.backend);
        assert!(err.to_string().contains(field), "{err}");
        assert_eq!(err.code(), "invalid_arguments");
    }
    let err = h.err("read", json!({ "file_path": "x", "offset": "two" })).await;
    assert_eq!(
        err.to_string(),
        "invalid arguments for `read`: offset: invalid type: string \"two\", expected u64"
    );
}

#[tokio::test]
async fn list_describes_every_tool_with_a_strict_schema() {
    let h = Harness::local().await;
    let names: Vec<&str> = h.registry.list().iter().map(|spec| spec.name).collect();
    assert_eq!(
        names,
        ["bash", "edit", "glob", "grep", "read", "task_kill", "task_output", "write"]
    );
    for spec in h.registry.list() {
        assert!(spec.description.len() > 100, "{}", spec.name);
        let schema = &spec.input_schema;
        assert_eq!(schema["type"], "object", "{}", spec.name);
        assert_eq!(schema["additionalProperties"], false, "{}", spec.name);
        assert!(schema.get("$schema").is_none());
    }
    let by_name = |name: &str| h.registry.list().into_iter().find(|s| s.name == name).unwrap();
    let read = by_name("read").input_schema;
    assert_eq!(read["required"], json!(["file_path"]));
    assert!(read["properties"]["offset"]["description"].as_str().unwrap().contains("1-based"));
    let bash = by_name("bash").input_schema;
    assert_eq!(bash["required"], json!(["command", "description"]));
    assert!(bash["properties"].get("timeoutMs").is_some());
    let grep = by_name("grep").input_schema;
    assert!(grep["properties"].get("-i").is_some());
    assert_eq!(grep["required"], json!(["pattern"]));
}

#[tokio::test]
async fn unknown_tools_name_the_known_ones() {
    let h = Harness::local().await;
    let err = h.err("cat", json!({})).await;
    assert_eq!(
        err.to_string(),
        "unknown tool `cat`; available tools: bash, edit, glob, grep, read, task_kill, task_output, write"
    );
    assert_eq!(err.code(), "unknown_tool");
}

#[tokio::test]
async fn results_are_capped_and_say_so() {
    let h = Harness::local().await;
    let line = "x".repeat(1000);
    let big: String = (0..1000).map(|_| format!("{line}\n")).collect();
    h.write("big.txt", &big).await;
    let read = h.ok("read", json!({ "file_path": "big.txt" })).await;
    assert!(read.truncated);
    assert!(read.text.len() <= 256 * 1024);
    let shown = read.value["end_line"].as_u64().unwrap();
    assert!(shown > 200 && shown < 1000, "{shown}");
    assert!(read.text.ends_with(&format!(
        "(showing lines 1-{shown} of 1000; continue with offset={})\n",
        shown + 1
    )));
}
