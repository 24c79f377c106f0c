//! Lossless JSON across the host ↔ program boundary.
//!
//! A JavaScript value crosses as *tagged JSON*: plain JSON for everything JSON can say
//! exactly, and a small object `{"$dsh": <tag>, ...}` for what it cannot:
//!
//! | JavaScript | tagged JSON |
//! |---|---|
//! | `undefined` | `{"$dsh":"undefined"}` |
//! | `NaN`, `Infinity`, `-Infinity`, `-0` | `{"$dsh":"nan"}`, `{"$dsh":"inf"}`, `{"$dsh":"-inf"}`, `{"$dsh":"-0"}` |
//! | `123n` | `{"$dsh":"bigint","v":"123"}` |
//! | a string with lone surrogates | `{"$dsh":"str","u":[<UTF-16 code units>]}` |
//! | an object with a `"$dsh"` key (or a key with lone surrogates) | `{"$dsh":"obj","e":[[key, value], ...]}` |
//!
//! Functions, symbols, cycles and non-plain objects (`Map`, `Date`, class instances) do
//! not cross: the encoder in the runner throws a typed error naming the path. The same
//! encoding is implemented in `runner/runner.js` (`makeCodec`); both directions are
//! property-tested, including through the JavaScript implementation.

use std::fmt;

use serde::de::{self, Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Number, Value};

/// The key that marks a tagged value.
pub const TAG: &str = "$dsh";
/// Deepest nesting accepted when decoding.
pub const MAX_DEPTH: usize = 1000;

/// A JavaScript string: UTF-8 when it is well-formed UTF-16, raw code units otherwise.
#[derive(Clone, PartialEq, Eq, Hash)]
pub enum JsString {
    Text(String),
    /// Invariant: not valid UTF-16 (contains a lone surrogate).
    Units(Vec<u16>),
}

impl JsString {
    /// From UTF-16 code units, keeping the canonical form.
    pub fn from_units(units: Vec<u16>) -> Self {
        match String::from_utf16(&units) {
            Ok(text) => Self::Text(text),
            Err(_) => Self::Units(units),
        }
    }

    /// The string as text, with lone surrogates replaced by U+FFFD.
    pub fn to_string_lossy(&self) -> String {
        match self {
            Self::Text(text) => text.clone(),
            Self::Units(units) => String::from_utf16_lossy(units),
        }
    }

    pub fn as_str(&self) -> Option<&str> {
        match self {
            Self::Text(text) => Some(text),
            Self::Units(_) => None,
        }
    }
}

impl From<&str> for JsString {
    fn from(text: &str) -> Self {
        Self::Text(text.to_owned())
    }
}

impl fmt::Debug for JsString {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Text(text) => fmt::Debug::fmt(text, f),
            Self::Units(units) => write!(f, "Units({units:x?})"),
        }
    }
}

/// A value a program can return or pass to a tool, exactly.
#[derive(Debug, Clone)]
pub enum JsValue {
    Undefined,
    Null,
    Bool(bool),
    /// Any IEEE double, including NaN, ±Infinity and -0.
    Number(f64),
    /// Decimal digits with an optional leading `-`, canonical (no leading zeros, no `-0`).
    BigInt(String),
    String(JsString),
    Array(Vec<JsValue>),
    /// Own enumerable properties in JavaScript's order.
    Object(Vec<(JsString, JsValue)>),
}

/// Exact equality: NaN equals NaN, `0` and `-0` differ, object key order matters.
impl PartialEq for JsValue {
    fn eq(&self, other: &Self) -> bool {
        match (self, other) {
            (Self::Undefined, Self::Undefined) | (Self::Null, Self::Null) => true,
            (Self::Bool(a), Self::Bool(b)) => a == b,
            (Self::Number(a), Self::Number(b)) => {
                (a.is_nan() && b.is_nan()) || a.to_bits() == b.to_bits()
            }
            (Self::BigInt(a), Self::BigInt(b)) => a == b,
            (Self::String(a), Self::String(b)) => a == b,
            (Self::Array(a), Self::Array(b)) => a == b,
            (Self::Object(a), Self::Object(b)) => a == b,
            _ => false,
        }
    }
}

/// A value that cannot be represented, with the path where it was found (`$.a[2].b`).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message} at {path}")]
pub struct LosslessError {
    pub path: String,
    pub message: String,
}

fn err(path: &str, message: impl Into<String>) -> LosslessError {
    LosslessError { path: path.to_owned(), message: message.into() }
}

fn child_key(path: &str, key: &str) -> String {
    let ident = key.chars().next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_' || c == '$')
        && key.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '$');
    if ident {
        format!("{path}.{key}")
    } else {
        format!("{path}[{}]", serde_json::Value::String(key.to_owned()))
    }
}

fn is_bigint_digits(text: &str) -> bool {
    let digits = text.strip_prefix('-').unwrap_or(text);
    let canonical =
        digits == "0" && !text.starts_with('-') || (!digits.is_empty() && !digits.starts_with('0'));
    canonical && digits.bytes().all(|b| b.is_ascii_digit())
}

/// JSON as parsed from a frame: like [`serde_json::Value`] but keeping object key order
/// and refusing duplicate keys and lone surrogates.
#[derive(Debug, Clone, PartialEq)]
pub enum RawJson {
    Null,
    Bool(bool),
    Number(f64),
    String(String),
    Array(Vec<RawJson>),
    Object(Vec<(String, RawJson)>),
}

impl<'de> Deserialize<'de> for RawJson {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct RawVisitor;
        impl<'de> Visitor<'de> for RawVisitor {
            type Value = RawJson;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a JSON value")
            }
            fn visit_unit<E>(self) -> Result<RawJson, E> {
                Ok(RawJson::Null)
            }
            fn visit_bool<E>(self, v: bool) -> Result<RawJson, E> {
                Ok(RawJson::Bool(v))
            }
            fn visit_u64<E>(self, v: u64) -> Result<RawJson, E> {
                Ok(RawJson::Number(v as f64))
            }
            fn visit_i64<E>(self, v: i64) -> Result<RawJson, E> {
                Ok(RawJson::Number(v as f64))
            }
            fn visit_f64<E>(self, v: f64) -> Result<RawJson, E> {
                Ok(RawJson::Number(v))
            }
            fn visit_str<E>(self, v: &str) -> Result<RawJson, E> {
                Ok(RawJson::String(v.to_owned()))
            }
            fn visit_string<E>(self, v: String) -> Result<RawJson, E> {
                Ok(RawJson::String(v))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<RawJson, A::Error> {
                let mut items = Vec::new();
                while let Some(item) = seq.next_element()? {
                    items.push(item);
                }
                Ok(RawJson::Array(items))
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<RawJson, A::Error> {
                let mut entries: Vec<(String, RawJson)> = Vec::new();
                let mut seen = std::collections::HashSet::new();
                while let Some(key) = map.next_key::<String>()? {
                    if !seen.insert(key.clone()) {
                        return Err(de::Error::custom(format!("duplicate key {key:?}")));
                    }
                    let value = map.next_value()?;
                    entries.push((key, value));
                }
                Ok(RawJson::Object(entries))
            }
        }
        deserializer.deserialize_any(RawVisitor)
    }
}

impl JsValue {
    /// A plain JSON value (from a tool) as a JavaScript value. Integers beyond 2^53 lose
    /// precision exactly as `JSON.parse` would.
    pub fn from_json(value: &Value) -> Self {
        match value {
            Value::Null => Self::Null,
            Value::Bool(b) => Self::Bool(*b),
            Value::Number(n) => Self::Number(n.as_f64().unwrap_or(f64::NAN)),
            Value::String(s) => Self::String(JsString::Text(s.clone())),
            Value::Array(items) => Self::Array(items.iter().map(Self::from_json).collect()),
            Value::Object(map) => Self::Object(
                map.iter().map(|(k, v)| (JsString::Text(k.clone()), Self::from_json(v))).collect(),
            ),
        }
    }

    /// As plain JSON (for a tool's arguments). Fails, naming the path, on anything plain
    /// JSON cannot say exactly: `undefined`, NaN, ±Infinity, BigInt, lone surrogates.
    /// `-0` becomes `0`'s JSON spelling `-0.0`, which JSON parsers read back as -0.
    pub fn to_json(&self) -> Result<Value, LosslessError> {
        self.to_json_at("$")
    }

    fn to_json_at(&self, path: &str) -> Result<Value, LosslessError> {
        Ok(match self {
            Self::Undefined => return Err(err(path, "undefined cannot be sent as JSON")),
            Self::Null => Value::Null,
            Self::Bool(b) => Value::Bool(*b),
            Self::Number(n) => Value::Number(
                number_to_json(*n)
                    .ok_or_else(|| err(path, format!("{n} cannot be sent as JSON")))?,
            ),
            Self::BigInt(_) => return Err(err(path, "a BigInt cannot be sent as JSON")),
            Self::String(s) => Value::String(
                s.as_str()
                    .ok_or_else(|| {
                        err(path, "a string with lone surrogates cannot be sent as JSON")
                    })?
                    .to_owned(),
            ),
            Self::Array(items) => Value::Array(
                items
                    .iter()
                    .enumerate()
                    .map(|(i, v)| v.to_json_at(&format!("{path}[{i}]")))
                    .collect::<Result<_, _>>()?,
            ),
            Self::Object(entries) => {
                let mut map = Map::new();
                for (key, value) in entries {
                    let key = key.as_str().ok_or_else(|| {
                        err(path, "a key with lone surrogates cannot be sent as JSON")
                    })?;
                    map.insert(key.to_owned(), value.to_json_at(&child_key(path, key))?);
                }
                Value::Object(map)
            }
        })
    }

    /// The tagged JSON of this value (plain JSON wherever plain JSON is exact).
    pub fn to_tagged(&self) -> Value {
        match self {
            Self::Undefined => tag("undefined"),
            Self::Null => Value::Null,
            Self::Bool(b) => Value::Bool(*b),
            Self::Number(n) => match number_to_json(*n) {
                Some(number) if !(*n == 0.0 && n.is_sign_negative()) => Value::Number(number),
                _ if n.is_nan() => tag("nan"),
                _ if *n == f64::INFINITY => tag("inf"),
                _ if *n == f64::NEG_INFINITY => tag("-inf"),
                _ => tag("-0"),
            },
            Self::BigInt(digits) => {
                let mut map = tag_map("bigint");
                map.insert("v".into(), Value::String(digits.clone()));
                Value::Object(map)
            }
            Self::String(s) => string_to_tagged(s),
            Self::Array(items) => Value::Array(items.iter().map(Self::to_tagged).collect()),
            Self::Object(entries) => {
                let plain = entries.iter().all(|(k, _)| matches!(k, JsString::Text(t) if t != TAG))
                    && !has_duplicate_keys(entries);
                if plain {
                    Value::Object(
                        entries.iter().map(|(k, v)| (k.to_string_lossy(), v.to_tagged())).collect(),
                    )
                } else {
                    let mut map = tag_map("obj");
                    let list = entries
                        .iter()
                        .map(|(k, v)| Value::Array(vec![string_to_tagged(k), v.to_tagged()]))
                        .collect();
                    map.insert("e".into(), Value::Array(list));
                    Value::Object(map)
                }
            }
        }
    }

    /// Tagged JSON text, keeping object key order (which [`Self::to_tagged`]'s
    /// `serde_json::Value` sorts).
    pub fn to_tagged_text(&self) -> String {
        let mut out = String::new();
        self.write_tagged(&mut out);
        out
    }

    fn write_tagged(&self, out: &mut String) {
        match self {
            Self::Array(items) => {
                out.push('[');
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    item.write_tagged(out);
                }
                out.push(']');
            }
            Self::Object(entries) => {
                let plain = entries.iter().all(|(k, _)| matches!(k, JsString::Text(t) if t != TAG));
                if plain {
                    out.push('{');
                    for (i, (key, value)) in entries.iter().enumerate() {
                        if i > 0 {
                            out.push(',');
                        }
                        out.push_str(&string_to_tagged(key).to_string());
                        out.push(':');
                        value.write_tagged(out);
                    }
                    out.push('}');
                } else {
                    out.push_str("{\"$dsh\":\"obj\",\"e\":[");
                    for (i, (key, value)) in entries.iter().enumerate() {
                        if i > 0 {
                            out.push(',');
                        }
                        out.push('[');
                        out.push_str(&string_to_tagged(key).to_string());
                        out.push(',');
                        value.write_tagged(out);
                        out.push(']');
                    }
                    out.push_str("]}");
                }
            }
            other => out.push_str(&other.to_tagged().to_string()),
        }
    }

    /// Decodes tagged JSON text.
    pub fn from_tagged_text(text: &str) -> Result<Self, LosslessError> {
        let raw: RawJson = serde_json::from_str(text).map_err(|e| err("$", e.to_string()))?;
        Self::from_raw(&raw)
    }

    /// Decodes parsed tagged JSON.
    pub fn from_raw(raw: &RawJson) -> Result<Self, LosslessError> {
        decode(raw, "$", 0)
    }

    /// Decodes a tagged [`serde_json::Value`] (object key order is the map's).
    pub fn from_tagged(value: &Value) -> Result<Self, LosslessError> {
        Self::from_tagged_text(&value.to_string())
    }
}

fn has_duplicate_keys(entries: &[(JsString, JsValue)]) -> bool {
    let mut seen = std::collections::HashSet::new();
    entries.iter().any(|(k, _)| !seen.insert(k))
}

fn number_to_json(n: f64) -> Option<Number> {
    const SAFE: f64 = 9_007_199_254_740_992.0;
    if n.fract() == 0.0 && n.abs() <= SAFE && !(n == 0.0 && n.is_sign_negative()) {
        // Integral doubles as JSON integers, so tools reading `as_u64` see them.
        return Some(Number::from(n as i64));
    }
    Number::from_f64(n)
}

fn tag_map(name: &str) -> Map<String, Value> {
    let mut map = Map::new();
    map.insert(TAG.into(), Value::String(name.into()));
    map
}

fn tag(name: &str) -> Value {
    Value::Object(tag_map(name))
}

fn string_to_tagged(s: &JsString) -> Value {
    match s {
        JsString::Text(text) => Value::String(text.clone()),
        JsString::Units(units) => {
            let mut map = tag_map("str");
            map.insert("u".into(), Value::Array(units.iter().map(|u| Value::from(*u)).collect()));
            Value::Object(map)
        }
    }
}

fn exact_keys(
    entries: &[(String, RawJson)],
    keys: &[&str],
    path: &str,
) -> Result<(), LosslessError> {
    if entries.len() == keys.len() && keys.iter().all(|k| entries.iter().any(|(e, _)| e == k)) {
        Ok(())
    } else {
        Err(err(path, "malformed tagged value"))
    }
}

fn field<'a>(entries: &'a [(String, RawJson)], key: &str) -> Option<&'a RawJson> {
    entries.iter().find(|(k, _)| k == key).map(|(_, v)| v)
}

fn decode_string(raw: &RawJson, path: &str) -> Result<JsString, LosslessError> {
    match raw {
        RawJson::String(text) => Ok(JsString::Text(text.clone())),
        RawJson::Object(entries) if field(entries, TAG) == Some(&RawJson::String("str".into())) => {
            exact_keys(entries, &[TAG, "u"], path)?;
            let Some(RawJson::Array(units)) = field(entries, "u") else {
                return Err(err(path, "malformed string"));
            };
            let units = units
                .iter()
                .map(|u| match u {
                    RawJson::Number(n) if n.fract() == 0.0 && (0.0..=65535.0).contains(n) => {
                        Ok(*n as u16)
                    }
                    _ => Err(err(path, "malformed string")),
                })
                .collect::<Result<Vec<u16>, _>>()?;
            Ok(JsString::from_units(units))
        }
        _ => Err(err(path, "expected a string")),
    }
}

fn decode(raw: &RawJson, path: &str, depth: usize) -> Result<JsValue, LosslessError> {
    if depth > MAX_DEPTH + 2 {
        return Err(err(path, "value nested too deep"));
    }
    Ok(match raw {
        RawJson::Null => JsValue::Null,
        RawJson::Bool(b) => JsValue::Bool(*b),
        RawJson::Number(n) => JsValue::Number(*n),
        RawJson::String(s) => JsValue::String(JsString::Text(s.clone())),
        RawJson::Array(items) => JsValue::Array(
            items
                .iter()
                .enumerate()
                .map(|(i, v)| decode(v, &format!("{path}[{i}]"), depth + 1))
                .collect::<Result<_, _>>()?,
        ),
        RawJson::Object(entries) => match field(entries, TAG) {
            None => JsValue::Object(
                entries
                    .iter()
                    .map(|(k, v)| {
                        Ok((JsString::Text(k.clone()), decode(v, &child_key(path, k), depth + 1)?))
                    })
                    .collect::<Result<_, LosslessError>>()?,
            ),
            Some(RawJson::String(name)) => match name.as_str() {
                "undefined" | "nan" | "inf" | "-inf" | "-0" => {
                    exact_keys(entries, &[TAG], path)?;
                    match name.as_str() {
                        "undefined" => JsValue::Undefined,
                        "nan" => JsValue::Number(f64::NAN),
                        "inf" => JsValue::Number(f64::INFINITY),
                        "-inf" => JsValue::Number(f64::NEG_INFINITY),
                        _ => JsValue::Number(-0.0),
                    }
                }
                "bigint" => {
                    exact_keys(entries, &[TAG, "v"], path)?;
                    match field(entries, "v") {
                        Some(RawJson::String(digits)) if is_bigint_digits(digits) => {
                            JsValue::BigInt(digits.clone())
                        }
                        _ => return Err(err(path, "malformed bigint")),
                    }
                }
                "str" => JsValue::String(decode_string(raw, path)?),
                "obj" => {
                    exact_keys(entries, &[TAG, "e"], path)?;
                    let Some(RawJson::Array(list)) = field(entries, "e") else {
                        return Err(err(path, "malformed object"));
                    };
                    let mut out: Vec<(JsString, JsValue)> = Vec::with_capacity(list.len());
                    for entry in list {
                        let RawJson::Array(pair) = entry else {
                            return Err(err(path, "malformed object entry"));
                        };
                        let [key, value] = pair.as_slice() else {
                            return Err(err(path, "malformed object entry"));
                        };
                        let key = decode_string(key, path)?;
                        if out.iter().any(|(k, _)| k == &key) {
                            return Err(err(path, "duplicate key"));
                        }
                        let sub = child_key(path, &key.to_string_lossy());
                        out.push((key, decode(value, &sub, depth + 1)?));
                    }
                    JsValue::Object(out)
                }
                other => return Err(err(path, format!("unknown tag {other:?}"))),
            },
            Some(_) => return Err(err(path, "malformed tag")),
        },
    })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use proptest::prelude::*;

    use super::*;

    pub(crate) fn js_string() -> impl Strategy<Value = JsString> {
        prop_oneof![
            4 => any::<String>().prop_map(JsString::Text),
            1 => "[$a-z]{0,4}".prop_map(JsString::Text),
            1 => Just(JsString::Text(TAG.into())),
            2 => proptest::collection::vec(
                prop_oneof![any::<u16>(), 0xd800u16..0xe000u16], 0..6
            ).prop_map(JsString::from_units),
        ]
    }

    pub(crate) fn number() -> impl Strategy<Value = f64> {
        prop_oneof![
            any::<f64>(),
            Just(f64::NAN),
            Just(f64::INFINITY),
            Just(f64::NEG_INFINITY),
            Just(-0.0),
            Just(0.0),
            (-1_000_000i64..1_000_000).prop_map(|i| i as f64),
            Just(9_007_199_254_740_993.0),
            Just(f64::MIN_POSITIVE),
            Just(5e-324),
        ]
    }

    pub(crate) fn js_value() -> impl Strategy<Value = JsValue> {
        let leaf = prop_oneof![
            Just(JsValue::Undefined),
            Just(JsValue::Null),
            any::<bool>().prop_map(JsValue::Bool),
            number().prop_map(JsValue::Number),
            any::<i128>().prop_map(|i| JsValue::BigInt(i.to_string())),
            js_string().prop_map(JsValue::String),
        ];
        leaf.prop_recursive(4, 48, 6, |inner| {
            prop_oneof![
                proptest::collection::vec(inner.clone(), 0..6).prop_map(JsValue::Array),
                proptest::collection::vec((js_string(), inner), 0..6).prop_map(|entries| {
                    // JS objects have unique keys.
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

    fn plain_json() -> impl Strategy<Value = Value> {
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::Bool),
            (-(1i64 << 53)..=(1i64 << 53)).prop_map(Value::from),
            any::<f64>().prop_filter_map("finite", Number::from_f64).prop_map(Value::Number),
            any::<String>().prop_map(Value::String),
        ];
        leaf.prop_recursive(4, 48, 6, |inner| {
            prop_oneof![
                proptest::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
                proptest::collection::btree_map(
                    prop_oneof![any::<String>(), Just(TAG.to_owned())],
                    inner,
                    0..6
                )
                .prop_map(|m| Value::Object(m.into_iter().collect())),
            ]
        })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(512))]

        /// Runner → host: any value the runner encodes decodes to exactly itself.
        #[test]
        fn tagged_text_round_trips_exactly(value in js_value()) {
            let text = value.to_tagged_text();
            prop_assert!(!text.contains('\n'));
            let back = JsValue::from_tagged_text(&text).unwrap();
            prop_assert_eq!(&back, &value);
            // The serde_json::Value form decodes to the same value up to key order.
            let tagged = value.to_tagged();
            let again = JsValue::from_tagged(&tagged).unwrap();
            prop_assert_eq!(again.to_tagged(), tagged);
        }

        /// Host → runner: a tool's plain JSON survives the trip and comes back as the same
        /// JSON (numbers compared as doubles, as JavaScript sees them).
        #[test]
        fn plain_json_round_trips(value in plain_json()) {
            let js = JsValue::from_json(&value);
            let text = js.to_tagged_text();
            let back = JsValue::from_tagged_text(&text).unwrap();
            prop_assert_eq!(&back, &js);
            let json = back.to_json().unwrap();
            prop_assert_eq!(JsValue::from_json(&json), js);
        }

        /// Garbage never panics the decoder.
        #[test]
        fn arbitrary_text_never_panics(text in ".{0,64}") {
            let _ = JsValue::from_tagged_text(&text);
        }
    }

    #[test]
    fn special_values_have_stable_encodings() {
        let value = JsValue::Object(vec![
            ("a".into(), JsValue::Undefined),
            ("b".into(), JsValue::Number(f64::NAN)),
            ("c".into(), JsValue::Number(-0.0)),
            ("d".into(), JsValue::BigInt("-12".into())),
            ("e".into(), JsValue::String(JsString::from_units(vec![0xd800]))),
            ("f".into(), JsValue::Number(42.0)),
        ]);
        assert_eq!(
            value.to_tagged_text(),
            r#"{"a":{"$dsh":"undefined"},"b":{"$dsh":"nan"},"c":{"$dsh":"-0"},"d":{"$dsh":"bigint","v":"-12"},"e":{"$dsh":"str","u":[55296]},"f":42}"#
        );
        let escaped = JsValue::Object(vec![(TAG.into(), JsValue::Number(1.0))]);
        assert_eq!(escaped.to_tagged_text(), r#"{"$dsh":"obj","e":[["$dsh",1]]}"#);
    }

    #[test]
    fn errors_name_the_path() {
        let value = JsValue::Object(vec![(
            "list".into(),
            JsValue::Array(vec![JsValue::Null, JsValue::Number(f64::NAN)]),
        )]);
        let error = value.to_json().unwrap_err();
        assert_eq!(error.path, "$.list[1]");
        let error = JsValue::from_tagged_text(r#"{"x":[{"$dsh":"wat"}]}"#).unwrap_err();
        assert_eq!(error.path, "$.x[0]");
        assert!(JsValue::from_tagged_text(r#"{"a":1,"a":2}"#).is_err());
        assert!(JsValue::from_tagged_text(r#"{"$dsh":"bigint","v":"01"}"#).is_err());
        assert!(JsValue::from_tagged_text(r#"{"$dsh":"nan","x":1}"#).is_err());
    }
}
