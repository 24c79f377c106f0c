//! Properties of Code Mode's wire and lossless JSON (`dsh_code::decode_runner_line`,
//! `dsh_code::lossless`), for the `code_wire` and `code_lossless` fuzz targets and
//! dsh-code's test replaying their regressions.

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use dsh_code::lossless::{JsString, JsValue, RawJson};

/// `code_wire`. Input: a line the runner might print, taken both as the line itself
/// (bytes) and as the JSON the runner would have encoded into a line.
pub fn wire(data: &[u8]) {
    if let Ok(Some(raw)) = dsh_code::decode_runner_line(data) {
        value_round_trips(&raw);
    }
    if std::str::from_utf8(data).is_ok() {
        // A line the runner's own encoding made is never refused for its framing.
        match dsh_code::decode_runner_line(STANDARD.encode(data).as_bytes()) {
            Ok(Some(raw)) => value_round_trips(&raw),
            Ok(None) => {}
            Err(message) => {
                assert!(message.starts_with("a frame does not validate"), "{message}")
            }
        }
    }
}

/// `code_lossless`. Input: text taken as tagged JSON (what the runner returns) and as
/// plain JSON (what a tool returns to a program).
pub fn lossless(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else { return };
    if let Ok(value) = JsValue::from_tagged_text(text) {
        round_trips(&value);
    }
    if let Ok(json) = serde_json::from_str::<serde_json::Value>(text) {
        let value = JsValue::from_json(&json);
        round_trips(&value);
        // Plain JSON always goes back to a tool as the same JSON.
        let back = value.to_json().unwrap_or_else(|e| panic!("plain JSON refused: {e}"));
        assert_eq!(JsValue::from_json(&back), value);
    }
}

fn value_round_trips(raw: &RawJson) {
    if let Ok(value) = JsValue::from_raw(raw) {
        round_trips(&value);
    }
}

/// A value the host accepted crosses again exactly: its tagged text (key order kept) and
/// its `serde_json::Value` form (keys sorted) decode to it, and plain JSON, when the value
/// has one, says the same up to key order.
fn round_trips(value: &JsValue) {
    let text = value.to_tagged_text();
    assert!(!text.contains('\n'));
    let back = JsValue::from_tagged_text(&text).unwrap_or_else(|e| panic!("{text}: {e}"));
    assert_eq!(&back, value, "{text}");
    assert_eq!(back.to_tagged_text(), text);

    let tagged = value.to_tagged();
    let again = JsValue::from_tagged(&tagged).unwrap_or_else(|e| panic!("{tagged}: {e}"));
    assert_eq!(sorted(&again), sorted(value), "{tagged}");
    assert_eq!(again.to_tagged(), tagged);

    if let Ok(json) = value.to_json() {
        assert_eq!(sorted(&JsValue::from_json(&json)), sorted(value), "{json}");
    }
}

/// The value with every object's entries in key order (a `serde_json::Map` sorts them).
fn sorted(value: &JsValue) -> JsValue {
    match value {
        JsValue::Array(items) => JsValue::Array(items.iter().map(sorted).collect()),
        JsValue::Object(entries) => {
            let mut entries: Vec<(JsString, JsValue)> =
                entries.iter().map(|(k, v)| (k.clone(), sorted(v))).collect();
            entries.sort_by_key(|(k, _)| k.to_string_lossy());
            JsValue::Object(entries)
        }
        other => other.clone(),
    }
}
