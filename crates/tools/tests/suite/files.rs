//! read, write, edit on both backends.

use dsh_tools::ToolError;
use serde_json::json;

use crate::both;
use crate::common::Harness;

both!(
    read_numbers_lines_with_offset_limit_total_and_version,
    read_refuses_binary_directories_and_missing_files,
    write_creates_then_replaces_and_makes_parents,
    edit_replaces_once_or_all_and_shows_a_diff,
    edit_no_match_and_ambiguous_match_are_distinct_errors,
    edit_refuses_a_file_changed_since_it_was_read,
    files_and_commands_see_each_other,
);

async fn read_numbers_lines_with_offset_limit_total_and_version(h: Harness) {
    let written = h.write("notes.txt", "alpha\nbeta\ngamma\ndelta\n").await;
    let version = written.value["version"].clone();
    let all = h.ok("read", json!({ "file_path": "notes.txt" })).await;
    assert_eq!(all.text, "     1\talpha\n     2\tbeta\n     3\tgamma\n     4\tdelta\n");
    assert_eq!(all.value["total_lines"], 4);
    assert_eq!(all.value["start_line"], 1);
    assert_eq!(all.value["end_line"], 4);
    assert_eq!(all.value["version"], version);
    assert_eq!(all.value["content"], "alpha\nbeta\ngamma\ndelta\n");
    assert_eq!(all.value["path"], h.p("notes.txt"));
    assert!(!all.truncated);

    // An absolute path names the same file.
    let part =
        h.ok("read", json!({ "file_path": h.p("notes.txt"), "offset": 2, "limit": 2 })).await;
    assert_eq!(
        part.text,
        "     2\tbeta\n     3\tgamma\n(showing lines 2-3 of 4; continue with offset=4)\n"
    );
    assert_eq!(
        (part.value["start_line"].clone(), part.value["end_line"].clone()),
        (2.into(), 3.into())
    );
    assert_eq!(part.value["total_lines"], 4);

    let past = h.ok("read", json!({ "file_path": "notes.txt", "offset": 9 })).await;
    assert_eq!(past.text, "(offset 9 is past the end: the file has 4 lines)\n");

    h.write("empty.txt", "").await;
    let empty = h.ok("read", json!({ "file_path": "empty.txt" })).await;
    assert_eq!(
        (empty.text.as_str(), empty.value["total_lines"].clone()),
        ("(empty file)\n", 0.into())
    );

    // Default limit: 2000 lines of 2500, numbers right-aligned to six columns.
    let many: String = (1..=2500).map(|n| format!("l{n}\n")).collect();
    h.write("many.txt", &many).await;
    let first = h.ok("read", json!({ "file_path": "many.txt" })).await;
    assert_eq!(first.value["end_line"], 2000);
    assert!(first.text.starts_with("     1\tl1\n     2\tl2\n"));
    assert!(
        first.text.ends_with(
            "  2000\tl2000\n(showing lines 1-2000 of 2500; continue with offset=2001)\n"
        )
    );
}

async fn read_refuses_binary_directories_and_missing_files(h: Harness) {
    h.sh("printf 'ab\\xffcd' > bin.dat && mkdir -p dir").await;
    match h.err("read", json!({ "file_path": "bin.dat" })).await {
        ToolError::NotUtf8 { path, offset } => {
            assert_eq!((path, offset), (h.path("bin.dat"), 2));
        }
        other => panic!("{other:?}"),
    }
    let err = h.err("read", json!({ "file_path": "bin.dat" })).await;
    assert!(
        err.to_string().contains("not a UTF-8 text file (first invalid byte at offset 2)"),
        "{err}"
    );
    assert!(matches!(
        h.err("read", json!({ "file_path": "dir" })).await,
        ToolError::IsADirectory { .. }
    ));
    match h.err("read", json!({ "file_path": "missing.txt" })).await {
        ToolError::NotFound { path } => assert_eq!(path, h.path("missing.txt")),
        other => panic!("{other:?}"),
    }
}

async fn write_creates_then_replaces_and_makes_parents(h: Harness) {
    let created = h.write("a/b/c.txt", "one\n").await;
    assert_eq!(created.value["operation"], "create");
    assert_eq!(created.value["path"], h.p("a/b/c.txt"));
    assert_eq!(created.text, format!("Created {} (4 bytes, 1 lines)", h.p("a/b/c.txt")));
    let replaced = h.write("a/b/c.txt", "two\nlines\n").await;
    assert_eq!(replaced.value["operation"], "replace");
    assert_ne!(replaced.value["version"], created.value["version"]);
    assert_eq!(std::fs::read_to_string(h.path("a/b/c.txt")).unwrap(), "two\nlines\n");
    // The version is the one read sees.
    let read = h.ok("read", json!({ "file_path": "a/b/c.txt" })).await;
    assert_eq!(read.value["version"], replaced.value["version"]);
    // Writing over a directory is refused.
    assert!(matches!(
        h.err("write", json!({ "file_path": "a/b", "content": "x" })).await,
        ToolError::IsADirectory { .. } | ToolError::Failed(_)
    ));
}

async fn edit_replaces_once_or_all_and_shows_a_diff(h: Harness) {
    h.write("code.py", "def f():\n    return 1\n\nx = f()\ny = f()\n").await;
    h.ok("read", json!({ "file_path": "code.py" })).await;
    let one = h
        .ok(
            "edit",
            json!({ "file_path": "code.py", "old_string": "return 1", "new_string": "return 2" }),
        )
        .await;
    assert_eq!(one.value["replacements"], 1);
    let diff = one.value["diff"].as_str().unwrap();
    assert!(diff.contains("-    return 1\n+    return 2\n"), "{diff}");
    assert!(
        diff.starts_with(&format!(
            "--- {}\n+++ {}\n@@ -1,5 +1,5 @@\n",
            h.p("code.py"),
            h.p("code.py")
        )),
        "{diff}"
    );
    assert!(one.text.starts_with(&format!("Edited {}: 1 replacement\n", h.p("code.py"))));

    // A second edit right after the first needs no new read: the context knows the version.
    let all = h
        .ok(
            "edit",
            json!({ "file_path": "code.py", "old_string": "f()", "new_string": "g()", "replace_all": true }),
        )
        .await;
    assert_eq!(all.value["replacements"], 3);
    assert_eq!(
        std::fs::read_to_string(h.path("code.py")).unwrap(),
        "def g():\n    return 2\n\nx = g()\ny = g()\n"
    );
    let read = h.ok("read", json!({ "file_path": "code.py" })).await;
    assert_eq!(read.value["version"], all.value["version"]);
}

async fn edit_no_match_and_ambiguous_match_are_distinct_errors(h: Harness) {
    h.write("t.txt", "a b a\n").await;
    match h
        .err("edit", json!({ "file_path": "t.txt", "old_string": "zzz", "new_string": "y" }))
        .await
    {
        ToolError::NoMatch { path } => assert_eq!(path, h.path("t.txt")),
        other => panic!("{other:?}"),
    }
    match h.err("edit", json!({ "file_path": "t.txt", "old_string": "a", "new_string": "y" })).await
    {
        ToolError::AmbiguousMatch { count, .. } => assert_eq!(count, 2),
        other => panic!("{other:?}"),
    }
    let err =
        h.err("edit", json!({ "file_path": "t.txt", "old_string": "a", "new_string": "a" })).await;
    assert!(
        matches!(&err, ToolError::InvalidArguments { field, .. } if field == "new_string"),
        "{err:?}"
    );
    let err =
        h.err("edit", json!({ "file_path": "t.txt", "old_string": "", "new_string": "a" })).await;
    assert!(
        matches!(&err, ToolError::InvalidArguments { field, .. } if field == "old_string"),
        "{err:?}"
    );
    assert!(matches!(
        h.err("edit", json!({ "file_path": "nope.txt", "old_string": "a", "new_string": "b" }))
            .await,
        ToolError::NotFound { .. }
    ));
    assert_eq!(std::fs::read_to_string(h.path("t.txt")).unwrap(), "a b a\n");
}

async fn edit_refuses_a_file_changed_since_it_was_read(h: Harness) {
    h.write("s.txt", "alpha\nbeta\n").await;
    let read = h.ok("read", json!({ "file_path": "s.txt" })).await;
    // Out of band: not through the tools (same length, so only the content differs).
    std::fs::write(h.path("s.txt"), "alpha\nBETA\n").unwrap();
    match h
        .err("edit", json!({ "file_path": "s.txt", "old_string": "alpha", "new_string": "gamma" }))
        .await
    {
        ToolError::StaleVersion { path, expected, actual } => {
            assert_eq!(path, h.path("s.txt"));
            assert_eq!(expected, read.value["version"].as_str().unwrap());
            assert_ne!(actual, expected);
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(std::fs::read_to_string(h.path("s.txt")).unwrap(), "alpha\nBETA\n");
    // Reading again makes the edit possible.
    h.ok("read", json!({ "file_path": "s.txt" })).await;
    h.ok("edit", json!({ "file_path": "s.txt", "old_string": "alpha", "new_string": "gamma" }))
        .await;
    assert_eq!(std::fs::read_to_string(h.path("s.txt")).unwrap(), "gamma\nBETA\n");
}

async fn files_and_commands_see_each_other(h: Harness) {
    h.write("from_fs.txt", "written by the write tool\n").await;
    let out = h.sh("cat from_fs.txt && pwd").await;
    assert_eq!(
        out.value["stdout"].as_str().unwrap(),
        format!("written by the write tool\n{}\n", h.root.display())
    );
    h.sh("mkdir -p sub && printf 'from bash\\n' > sub/from_bash.txt").await;
    let read = h.ok("read", json!({ "file_path": "sub/from_bash.txt" })).await;
    assert_eq!(read.text, "     1\tfrom bash\n");
    // And a command sees an edit at once.
    h.ok(
        "edit",
        json!({ "file_path": "sub/from_bash.txt", "old_string": "bash", "new_string": "edit" }),
    )
    .await;
    let out = h.sh("cat sub/from_bash.txt").await;
    assert_eq!(out.value["stdout"], "from edit\n");
}
