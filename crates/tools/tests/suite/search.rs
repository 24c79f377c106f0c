//! glob and grep on both backends (they run inside the sandbox).

use dsh_tools::ToolError;
use serde_json::{Value, json};

use crate::both;
use crate::common::Harness;

both!(
    glob_lists_matches_newest_first_and_skips_pruned_directories,
    grep_content_files_and_count_modes,
    grep_case_context_glob_filter_and_errors,
);

fn strings(value: &Value) -> Vec<String> {
    value.as_array().unwrap().iter().map(|v| v.as_str().unwrap().to_owned()).collect()
}

async fn glob_lists_matches_newest_first_and_skips_pruned_directories(h: Harness) {
    for file in [
        "a.rs",
        "src/b.rs",
        "src/deep/c.rs",
        "src/notes.txt",
        ".git/x.rs",
        "node_modules/y.rs",
        ".dsh-e2b/z.rs",
    ] {
        h.write(file, "x\n").await;
    }
    h.sh(
        "touch -d '2020-01-01 00:00:00' a.rs && touch -d '2022-01-01 00:00:00' src/b.rs \
         && touch -d '2021-01-01 00:00:00' src/deep/c.rs && touch -d '2019-01-01 00:00:00' src/notes.txt",
    )
    .await;
    let all = h.ok("glob", json!({ "pattern": "**/*.rs" })).await;
    let expected = [h.p("src/b.rs"), h.p("src/deep/c.rs"), h.p("a.rs")];
    assert_eq!(strings(&all.value["paths"]), expected);
    assert_eq!(all.text, format!("{}\n", expected.join("\n")));
    assert_eq!(all.value["total_matches"], 3);

    // `*` does not cross directories.
    let top = h.ok("glob", json!({ "pattern": "*.rs" })).await;
    assert_eq!(strings(&top.value["paths"]), [h.p("a.rs")]);

    // A search directory, braces, and an absolute pattern.
    let src = h.ok("glob", json!({ "pattern": "*.{rs,txt}", "path": "src" })).await;
    assert_eq!(strings(&src.value["paths"]), [h.p("src/b.rs"), h.p("src/notes.txt")]);
    let abs = h.ok("glob", json!({ "pattern": format!("{}/src/**/*.rs", h.root.display()) })).await;
    assert_eq!(strings(&abs.value["paths"]), [h.p("src/b.rs"), h.p("src/deep/c.rs")]);

    let none = h.ok("glob", json!({ "pattern": "**/*.go" })).await;
    assert_eq!(none.text, format!("No files match `**/*.go` under {}\n", h.root.display()));
    assert!(matches!(
        h.err("glob", json!({ "pattern": "*", "path": "missing" })).await,
        ToolError::NotFound { .. }
    ));
    assert!(matches!(
        h.err("glob", json!({ "pattern": "a[" })).await,
        ToolError::InvalidArguments { field, .. } if field == "pattern"
    ));
}

async fn setup_grep(h: &Harness) {
    h.write("src/a.rs", "fn main() {\n    println!(\"Hello\");\n}\n").await;
    h.write("src/b.rs", "// hello world\nlet x = 1;\n").await;
    h.write("notes.txt", "HELLO there\nnothing\nhello again\n").await;
    h.write("node_modules/m.rs", "hello\n").await;
    h.write(".git/config", "hello\n").await;
    h.sh("printf 'hello\\0binary' > blob.bin").await;
}

async fn grep_content_files_and_count_modes(h: Harness) {
    setup_grep(&h).await;
    let content = h.ok("grep", json!({ "pattern": "hello" })).await;
    assert_eq!(
        content.text,
        format!("{}:3:hello again\n{}:1:// hello world\n", h.p("notes.txt"), h.p("src/b.rs"))
    );
    assert_eq!(content.value["total_matches"], 2);
    assert_eq!(
        content.value["matches"][0],
        json!({ "path": h.p("notes.txt"), "line": 3, "text": "hello again", "match": true })
    );

    let files = h
        .ok("grep", json!({ "pattern": "hel+o", "-i": true, "output_mode": "files_with_matches" }))
        .await;
    assert_eq!(
        strings(&files.value["files"]),
        [h.p("notes.txt"), h.p("src/a.rs"), h.p("src/b.rs")]
    );
    assert_eq!(files.value["total_files"], 3);

    let count =
        h.ok("grep", json!({ "pattern": "hello", "-i": true, "output_mode": "count" })).await;
    assert_eq!(
        count.text,
        format!(
            "{}:2\n{}:1\n{}:1\n4 matches in 3 files\n",
            h.p("notes.txt"),
            h.p("src/a.rs"),
            h.p("src/b.rs")
        )
    );
    assert_eq!(count.value["total_matches"], 4);

    let none = h.ok("grep", json!({ "pattern": "no-such-text" })).await;
    assert_eq!(
        (none.text.as_str(), none.value["total_matches"].clone()),
        ("No matches\n", 0.into())
    );
}

async fn grep_case_context_glob_filter_and_errors(h: Harness) {
    setup_grep(&h).await;
    let ctx = h.ok("grep", json!({ "pattern": "println", "context": 1 })).await;
    let a = h.p("src/a.rs");
    assert_eq!(ctx.text, format!("{a}-1-fn main() {{\n{a}:2:    println!(\"Hello\");\n{a}-3-}}\n"));
    assert_eq!(ctx.value["total_matches"], 1);
    assert_eq!(ctx.value["matches"].as_array().unwrap().len(), 3);

    let two = h
        .ok("grep", json!({ "pattern": "^(HELLO|nothing)$|again", "context": 0, "-i": false }))
        .await;
    assert_eq!(two.value["total_matches"], 2);
    assert_eq!(two.text, format!("{n}:2:nothing\n{n}:3:hello again\n", n = h.p("notes.txt")));

    // Glob filters: a simple name glob, braces, and a path glob.
    let rs = h.ok("grep", json!({ "pattern": "hello", "-i": true, "glob": "*.rs", "output_mode": "files_with_matches" })).await;
    assert_eq!(strings(&rs.value["files"]), [h.p("src/a.rs"), h.p("src/b.rs")]);
    let braces = h.ok("grep", json!({ "pattern": "hello", "-i": true, "glob": "*.{txt,md}", "output_mode": "files_with_matches" })).await;
    assert_eq!(strings(&braces.value["files"]), [h.p("notes.txt")]);
    let by_path = h.ok("grep", json!({ "pattern": "hello", "-i": true, "glob": "src/**/b.*", "output_mode": "files_with_matches" })).await;
    assert_eq!(strings(&by_path.value["files"]), [h.p("src/b.rs")]);

    // A single file as the path.
    let one =
        h.ok("grep", json!({ "pattern": "o", "path": "src/b.rs", "output_mode": "count" })).await;
    assert_eq!(one.value["counts"], json!([{ "path": h.p("src/b.rs"), "count": 1 }]));

    // A pattern that looks like an option is still a pattern.
    h.write("flags.txt", "use -v here\n").await;
    let dash = h.ok("grep", json!({ "pattern": "-v", "output_mode": "files_with_matches" })).await;
    assert_eq!(strings(&dash.value["files"]), [h.p("flags.txt")]);

    let bad = h.err("grep", json!({ "pattern": "(unclosed" })).await;
    assert!(
        matches!(&bad, ToolError::InvalidArguments { field, .. } if field == "pattern"),
        "{bad:?}"
    );
    assert!(bad.to_string().contains("Unmatched ( or \\("), "{bad}");
    assert!(matches!(
        h.err("grep", json!({ "pattern": "x", "path": "missing" })).await,
        ToolError::NotFound { .. }
    ));
    assert!(matches!(
        h.err("grep", json!({ "pattern": "x", "output_mode": "lines" })).await,
        ToolError::InvalidArguments { field, .. } if field == "output_mode"
    ));
}
