//! Secrets (E2B's `/secrets`, spec/openapi.yml:4166-4370): named values a sandbox's
//! egress may use, never readable back. What a request may hold is checked here, as E2B
//! checks it (its OpenAPI schema, spec/openapi.yml:2142-2216, then its handlers,
//! packages/api/internal/handlers/secrets.go, and its name rules,
//! packages/shared/pkg/secretsstore/name.go); the store is `store/secrets.rs`.
//!
//! No message here carries what the request held: a value, a name, a metadata key or
//! value, a selector or a token. E2B answers every refusal with one fixed text for the
//! same reason (packages/api/internal/middleware/secrets.go:23-34, handlers/secrets.go:38-40);
//! these say which rule was broken, still quoting nothing of the request.

use std::collections::BTreeMap;

use serde_json::Value;

use crate::server::context::Control;
use crate::server::control_error::{ControlError, ControlResult};
use crate::server::secrets::{
    ID_PREFIX, SecretInfo, SecretValue, Secrets, SecretsError, Selector, is_id,
};

/// A name's length at most, in bytes. E2B: packages/shared/pkg/secretsstore/name.go:10
/// (`maxNameBytes = 128`); spec/openapi.yml:2189-2192 (`minLength: 1`, `maxLength: 128`).
pub const MAX_NAME_BYTES: usize = 128;
/// Metadata entries at most (spec/openapi.yml:2142-2151, `maxProperties: 32`).
pub const MAX_METADATA_ENTRIES: usize = 32;
/// A metadata key's length at most, in bytes (spec/openapi.yml:2145-2147).
pub const MAX_METADATA_KEY_BYTES: usize = 128;
/// A metadata value's length at most, in bytes (spec/openapi.yml:2147, 2151:
/// `maxLength: 1024`).
pub const MAX_METADATA_VALUE_BYTES: usize = 1024;
/// A secret's metadata at most, keys and values together, in bytes
/// (spec/openapi.yml:2147-2148).
pub const MAX_METADATA_BYTES: usize = 8192;
/// A value's length at most, in bytes. E2B's API forwards a value whatever its size and
/// its backend refuses one too large with a 400 (handlers/secrets.go:391-392,
/// `VALUE_TOO_LARGE`); its tests put that backend limit at 64 KiB
/// (handlers/secrets_test.go:527-546 send 64 KiB and 64 KiB + 1).
pub const MAX_VALUE_BYTES: usize = 64 * 1024;
/// A list page's size: 1 to 100, 100 when not given (spec/openapi.yml:101-111,
/// `paginationLimit`).
pub const MAX_PAGE: usize = 100;

/// E2B's text for an unknown secret (packages/api/internal/middleware/secrets.go:30).
pub const NOT_FOUND: &str = "Secret not found";

/// What a name must be, said after each refusal.
const NAME_RULE: &str = "a secret's name is 1 to 128 letters, digits, '_' or '-'";

/// `POST /secrets`' body (E2B's `NewSecret`, spec/openapi.yml:2185-2204).
#[derive(Debug)]
pub struct NewSecret {
    /// Canonical: lower case.
    pub name: String,
    pub value: SecretValue,
    pub metadata: BTreeMap<String, String>,
}

/// `POST /secrets/{secretID}`' body (E2B's `SecretUpdate`, spec/openapi.yml:2206-2216).
#[derive(Debug)]
pub struct SecretUpdate {
    pub value: SecretValue,
    /// `None`: keep the secret's (handlers/secrets.go:234-238).
    pub metadata: Option<BTreeMap<String, String>>,
}

/// A page of the list: how many, and after which id.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Page {
    pub limit: usize,
    pub after: Option<String>,
}

/// E2B's `NormalizeName` (packages/shared/pkg/secretsstore/name.go:14-36): trimmed, 1 to
/// 128 bytes of `[A-Za-z0-9_-]`, lower-cased, not starting with `sec_`. The error says
/// which rule failed, not what was sent.
pub fn normalize_name(input: &str) -> Result<String, String> {
    let name = input.trim();
    if name.is_empty() {
        return Err(format!("empty: {NAME_RULE}"));
    }
    if name.len() > MAX_NAME_BYTES {
        return Err(format!("longer than {MAX_NAME_BYTES} bytes: {NAME_RULE}"));
    }
    if !name.bytes().all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-')) {
        return Err(format!("a character that is not allowed: {NAME_RULE}"));
    }
    let name = name.to_ascii_lowercase();
    if name.starts_with(ID_PREFIX) {
        return Err(format!("the prefix '{ID_PREFIX}' is reserved for secret ids"));
    }
    Ok(name)
}

/// A create's name: E2B's schema (spec/openapi.yml:2189-2193, `pattern:
/// '^[a-zA-Z0-9_-]+$'`, which leaves no room for the spaces `NormalizeName` would trim),
/// then `NormalizeName` (handlers/secrets.go:83-88).
fn create_name(name: &str) -> ControlResult<String> {
    if name.trim() != name && !name.trim().is_empty() {
        return Err(invalid("name", &format!("a character that is not allowed: {NAME_RULE}")));
    }
    normalize_name(name).map_err(|why| invalid("name", &why))
}

/// Which secret a path segment names, as E2B's `secretRef` reads it
/// (handlers/secrets.go:399-427): trimmed and lower-cased, one starting with `sec_` is an id
/// (a malformed one is a 400, never tried as a name), anything else a name.
pub fn selector(segment: &str) -> ControlResult<Selector> {
    let classified = segment.trim().to_ascii_lowercase();
    if classified.starts_with(ID_PREFIX) {
        if is_id(&classified) {
            return Ok(Selector::Id(classified));
        }
        return Err(ControlError::Invalid(format!(
            "the secretID in the path is malformed: an id is '{ID_PREFIX}' and 26 of 0-9 and a-z but i, l, o and u"
        )));
    }
    normalize_name(segment)
        .map(Selector::Name)
        .map_err(|why| ControlError::Invalid(format!("the secret name in the path: {why}")))
}

/// The list's `limit` and `nextToken` query parameters (spec/openapi.yml:101-118). The
/// token is the secretID a page ended with (as `X-Next-Token` handed it out).
pub fn page(limit: Option<&str>, next_token: Option<&str>) -> ControlResult<Page> {
    let limit = match limit {
        None => MAX_PAGE,
        Some(text) => match text.parse::<usize>() {
            Ok(n) if (1..=MAX_PAGE).contains(&n) => n,
            _ => {
                return Err(ControlError::Invalid(format!(
                    "limit: a whole number from 1 to {MAX_PAGE} is expected"
                )));
            }
        },
    };
    let after = match next_token {
        None => None,
        Some(token) if is_id(token) => Some(token.to_owned()),
        Some(_) => {
            return Err(ControlError::Invalid(
                "nextToken: not a token this API handed out (send X-Next-Token's value)".into(),
            ));
        }
    };
    Ok(Page { limit, after })
}

/// Checks `POST /secrets`' body (parsed JSON).
pub fn parse_new(body: Value) -> ControlResult<NewSecret> {
    let mut fields = object(body)?;
    let name = match fields.remove("name") {
        None => return Err(invalid("name", "missing: a secret needs a name")),
        Some(Value::String(name)) => create_name(&name)?,
        Some(_) => return Err(invalid("name", "a string is expected")),
    };
    let value = value(fields.remove("value"))?;
    let metadata = metadata(fields.remove("metadata"))?.unwrap_or_default();
    Ok(NewSecret { name, value, metadata })
}

/// Checks `POST /secrets/{secretID}`' body (parsed JSON).
pub fn parse_update(body: Value) -> ControlResult<SecretUpdate> {
    let mut fields = object(body)?;
    let value = value(fields.remove("value"))?;
    let metadata = metadata(fields.remove("metadata"))?;
    Ok(SecretUpdate { value, metadata })
}

fn invalid(field: &str, why: &str) -> ControlError {
    ControlError::Invalid(format!("{field}: {why}"))
}

fn object(body: Value) -> ControlResult<serde_json::Map<String, Value>> {
    match body {
        Value::Object(fields) => Ok(fields),
        // An empty body reads as null (`api_body::parse_body`); E2B's request bodies are
        // required (spec/openapi.yml:4221-4226, 4302-4307).
        _ => Err(ControlError::Invalid(
            "invalid request body: a JSON object with the secret's value is expected".into(),
        )),
    }
}

/// `value`: a string (required: spec/openapi.yml:2187-2188, 2208-2209), moved out of the
/// body rather than copied.
fn value(value: Option<Value>) -> ControlResult<SecretValue> {
    match value {
        None => Err(invalid("value", "missing: a secret needs a value")),
        Some(Value::String(value)) => {
            let value = SecretValue::new(value);
            if value.len() > MAX_VALUE_BYTES {
                return Err(invalid("value", &format!("longer than {MAX_VALUE_BYTES} bytes")));
            }
            Ok(value)
        }
        Some(_) => Err(invalid("value", "a string is expected")),
    }
}

/// `metadata` (spec/openapi.yml:2142-2151): absent or null is `None` (E2B's generated
/// `*SecretMetadata` is nil for both: packages/api/internal/api/api.gen.go:607-616).
fn metadata(metadata: Option<Value>) -> ControlResult<Option<BTreeMap<String, String>>> {
    let entries = match metadata {
        None | Some(Value::Null) => return Ok(None),
        Some(Value::Object(entries)) => entries,
        Some(_) => return Err(invalid("metadata", "an object of strings is expected")),
    };
    if entries.len() > MAX_METADATA_ENTRIES {
        return Err(invalid(
            "metadata",
            &format!("more than {MAX_METADATA_ENTRIES} entries ({} sent)", entries.len()),
        ));
    }
    let mut total = 0usize;
    let mut checked = BTreeMap::new();
    for (key, value) in entries {
        let Value::String(value) = value else {
            return Err(invalid("metadata", "every value must be a string"));
        };
        if key.len() > MAX_METADATA_KEY_BYTES {
            return Err(invalid(
                "metadata",
                &format!("a key is longer than {MAX_METADATA_KEY_BYTES} bytes"),
            ));
        }
        if value.len() > MAX_METADATA_VALUE_BYTES {
            return Err(invalid(
                "metadata",
                &format!("a value is longer than {MAX_METADATA_VALUE_BYTES} bytes"),
            ));
        }
        total += key.len() + value.len();
        checked.insert(key, value);
    }
    if total > MAX_METADATA_BYTES {
        return Err(invalid(
            "metadata",
            &format!(
                "{total} bytes in all (keys and values), more than the {MAX_METADATA_BYTES} allowed"
            ),
        ));
    }
    Ok(Some(checked))
}

/// Runs a store change off the async threads.
async fn blocking<T: Send + 'static>(
    secrets: &Secrets,
    change: impl FnOnce(&Secrets) -> Result<T, SecretsError> + Send + 'static,
) -> ControlResult<T> {
    let secrets = secrets.clone();
    tokio::task::spawn_blocking(move || change(&secrets))
        .await
        .map_err(|e| ControlError::Internal(anyhow::anyhow!("the secrets task panicked: {e}")))?
        .map_err(|e| match e {
            SecretsError::NameTaken => ControlError::Conflict(e.to_string()),
            SecretsError::Io(e) => ControlError::Internal(e.context("storing a secret")),
        })
}

/// Stores a new secret (version 1); 409 when its name is taken.
pub async fn create(control: &Control, new: NewSecret) -> ControlResult<SecretInfo> {
    let NewSecret { name, value, metadata } = new;
    let made = blocking(&control.secrets, move |s| s.create(&name, value, metadata)).await?;
    tracing::info!(secret = %made.secret_id, "secret created");
    Ok(made)
}

/// One page of the secrets, oldest first, and the token of the next when there is one
/// (E2B sends `X-Next-Token` only then: handlers/secrets.go:161-163).
pub fn list(control: &Control, page: &Page) -> (Vec<SecretInfo>, Option<String>) {
    let all = control.secrets.list();
    let mut rest: Vec<SecretInfo> = match &page.after {
        Some(after) => all.into_iter().filter(|s| s.secret_id > *after).collect(),
        None => all,
    };
    let more = rest.len() > page.limit;
    rest.truncate(page.limit);
    let next = if more { rest.last().map(|s| s.secret_id.clone()) } else { None };
    (rest, next)
}

pub fn get(control: &Control, selector: &Selector) -> Option<SecretInfo> {
    control.secrets.get(selector)
}

/// Replaces a secret's value (and metadata, when given); `None`: no such secret.
pub async fn update(
    control: &Control,
    selector: Selector,
    update: SecretUpdate,
) -> ControlResult<Option<SecretInfo>> {
    let SecretUpdate { value, metadata } = update;
    let updated = blocking(&control.secrets, move |s| s.update(&selector, value, metadata)).await?;
    if let Some(secret) = &updated {
        tracing::info!(secret = %secret.secret_id, version = secret.current_version, "secret updated");
    }
    Ok(updated)
}

/// Deletes a secret; `false`: no such secret.
pub async fn delete(control: &Control, selector: Selector) -> ControlResult<bool> {
    let id = control.secrets.get(&selector).map(|s| s.secret_id);
    let deleted = blocking(&control.secrets, move |s| s.delete(&selector)).await?;
    if let (true, Some(id)) = (deleted, id) {
        tracing::info!(secret = %id, "secret deleted");
    }
    Ok(deleted)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;
    use serde_json::json;

    #[test]
    fn names_are_normalized_as_e2b_does() {
        // E2B: packages/shared/pkg/secretsstore/name.go and its selector table,
        // packages/api/internal/handlers/secrets_test.go:321-341.
        assert_eq!(normalize_name("  My-Secret  ").unwrap(), "my-secret");
        assert_eq!(normalize_name("A_b-9").unwrap(), "a_b-9");
        assert_eq!(normalize_name(&"a".repeat(128)).unwrap(), "a".repeat(128));
        assert_eq!(normalize_name("secret-key").unwrap(), "secret-key");
        for bad in ["", "   ", "my secret", "é", "a.b", "sec_foo", "SEC_foo"] {
            assert!(normalize_name(bad).is_err(), "{bad:?}");
        }
        assert!(normalize_name(&"a".repeat(129)).unwrap_err().starts_with("longer than 128"));
    }

    #[test]
    fn selectors_are_ids_or_names() {
        let id = "sec_01kyjhkfvse96rg4d2qzd9enft";
        assert_eq!(selector(id).unwrap(), Selector::Id(id.into()));
        assert_eq!(selector(&format!(" {} ", id.to_uppercase())).unwrap(), Selector::Id(id.into()));
        assert_eq!(selector("  My-Secret ").unwrap(), Selector::Name("my-secret".into()));
        for bad in [" SEC_FOO ", "sec_not-a-real-identifier", "my secret", "   "] {
            assert!(selector(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn refusals_quote_nothing_of_the_request() {
        let sentinel = "sentinel-DO-NOT-ECHO";
        let bodies = [
            json!({"name": format!("{sentinel} x"), "value": sentinel}),
            json!({"name": "ok", "value": sentinel, "metadata": {sentinel: 7}}),
            json!({"name": "ok", "value": sentinel, "metadata": {"k": sentinel.repeat(100)}}),
            json!({"name": "ok", "value": sentinel.repeat(4000)}),
            json!({"name": sentinel, "value": 7}),
        ];
        for body in bodies {
            let message = parse_new(body).unwrap_err().to_string();
            assert!(!message.contains(sentinel), "{message}");
        }
        let message = selector(&format!("{sentinel} !")).unwrap_err().to_string();
        assert!(!message.contains(sentinel), "{message}");
        let message = page(None, Some(sentinel)).unwrap_err().to_string();
        assert!(!message.contains(sentinel), "{message}");
    }

    #[test]
    fn metadata_limits() {
        let many: serde_json::Map<String, Value> =
            (0..33).map(|i| (format!("k{i}"), json!("v"))).collect();
        let ok: serde_json::Map<String, Value> =
            (0..32).map(|i| (format!("k{i}"), json!("v"))).collect();
        assert!(metadata(Some(Value::Object(ok))).is_ok());
        assert!(metadata(Some(Value::Object(many))).is_err());
        assert!(metadata(Some(json!({"k".repeat(128): "v".repeat(1024)}))).is_ok());
        assert!(metadata(Some(json!({"k".repeat(129): "v"}))).is_err());
        assert!(metadata(Some(json!({"k": "v".repeat(1025)}))).is_err());
        // 8 entries of 1 + 1024 bytes: 8200 in all.
        let big: serde_json::Map<String, Value> =
            (0..8).map(|i| (i.to_string(), json!("v".repeat(1024)))).collect();
        assert!(metadata(Some(Value::Object(big))).unwrap_err().to_string().contains("8200"));
        assert_eq!(metadata(Some(Value::Null)).unwrap(), None);
    }
}
