//! The tagged encoding, cross-checked between Rust and the runner's JavaScript codec:
//! Rust encodes a value, the runner's `makeCodec` decodes it into real JavaScript values
//! and encodes it again, Rust decodes the answer: it must be the same value (with
//! JavaScript's own property order: integer-like keys first).

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use dsh_code::{JsString, JsValue};
use proptest::prelude::*;

struct Echo {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
    _dir: tempfile::TempDir,
}

impl Echo {
    fn start() -> Self {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("runner.js");
        std::fs::write(&path, dsh_code::RUNNER_SOURCE).unwrap();
        let mut child = Command::new("node")
            .arg(&path)
            .arg("--codec-echo")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        let stdin = child.stdin.take().unwrap();
        let stdout = BufReader::new(child.stdout.take().unwrap());
        Self { child, stdin, stdout, _dir: dir }
    }

    fn echo(&mut self, text: &str) -> String {
        writeln!(self.stdin, "{}", STANDARD.encode(text)).unwrap();
        self.stdin.flush().unwrap();
        let mut line = String::new();
        self.stdout.read_line(&mut line).unwrap();
        String::from_utf8(STANDARD.decode(line.trim_end()).unwrap()).unwrap()
    }
}

impl Drop for Echo {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn is_array_index(key: &JsString) -> bool {
    match key.as_str() {
        Some(k) => k.parse::<u32>().is_ok_and(|n| n != u32::MAX && n.to_string() == k),
        None => false,
    }
}

/// The value with every object's keys in the order JavaScript keeps them.
fn js_order(value: &JsValue) -> JsValue {
    match value {
        JsValue::Array(items) => JsValue::Array(items.iter().map(js_order).collect()),
        JsValue::Object(entries) => {
            let mut indexed: Vec<_> = entries.iter().filter(|(k, _)| is_array_index(k)).collect();
            indexed.sort_by_key(|(k, _)| k.as_str().and_then(|k| k.parse::<u32>().ok()));
            let named = entries.iter().filter(|(k, _)| !is_array_index(k));
            JsValue::Object(
                indexed.into_iter().chain(named).map(|(k, v)| (k.clone(), js_order(v))).collect(),
            )
        }
        other => other.clone(),
    }
}

fn string() -> impl Strategy<Value = JsString> {
    prop_oneof![
        4 => any::<String>().prop_map(JsString::Text),
        2 => "[$a-z0-9]{0,3}".prop_map(JsString::Text),
        1 => Just(JsString::Text("$dsh".into())),
        1 => Just(JsString::Text("__proto__".into())),
        2 => proptest::collection::vec(prop_oneof![any::<u16>(), 0xd800u16..0xe000u16], 0..6)
            .prop_map(JsString::from_units),
    ]
}

fn value() -> impl Strategy<Value = JsValue> {
    let leaf = prop_oneof![
        Just(JsValue::Undefined),
        Just(JsValue::Null),
        any::<bool>().prop_map(JsValue::Bool),
        prop_oneof![
            any::<f64>(),
            Just(f64::NAN),
            Just(f64::INFINITY),
            Just(f64::NEG_INFINITY),
            Just(-0.0),
            Just(5e-324),
            Just(1e21),
            (-100_000i64..100_000).prop_map(|i| i as f64),
        ]
        .prop_map(JsValue::Number),
        any::<i128>().prop_map(|i| JsValue::BigInt(i.to_string())),
        string().prop_map(JsValue::String),
    ];
    leaf.prop_recursive(4, 40, 6, |inner| {
        prop_oneof![
            proptest::collection::vec(inner.clone(), 0..6).prop_map(JsValue::Array),
            proptest::collection::vec((string(), inner), 0..6).prop_map(|entries| {
                let mut out: Vec<(JsString, JsValue)> = Vec::new();
                for (k, v) in entries {
                    if !out.iter().any(|(e, _)| e == &k) {
                        out.push((k, v));
                    }
                }
                JsValue::Object(out)
            }),
        ]
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn rust_and_javascript_agree(value in value()) {
        thread_local! {
            static ECHO: std::cell::RefCell<Option<Echo>> = const { std::cell::RefCell::new(None) };
        }
        let text = value.to_tagged_text();
        let answer = ECHO.with(|echo| {
            let mut echo = echo.borrow_mut();
            echo.get_or_insert_with(Echo::start).echo(&text)
        });
        let back = JsValue::from_tagged_text(&answer)
            .unwrap_or_else(|e| panic!("{e}: {answer}"));
        prop_assert_eq!(back, js_order(&value));
    }
}

#[test]
fn javascript_refuses_malformed_tags_with_a_path() {
    let mut echo = Echo::start();
    let answer = echo.echo(r#"{"a":[{"$dsh":"wat"}]}"#);
    assert!(answer.contains("unknown tag") && answer.contains("$.a[0]"), "{answer}");
    let answer = echo.echo(r#"{"$dsh":"bigint","v":"1.5"}"#);
    assert!(answer.contains("malformed bigint"), "{answer}");
}
