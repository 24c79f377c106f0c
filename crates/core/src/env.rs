//! Building a child environment without leaking the host's secrets.

use std::collections::BTreeMap;

/// Whether an environment key names a secret that must never reach a spawned process:
/// keys containing `KEY`, `SECRET` or `TOKEN`, or starting with `DSH_` (case-insensitive).
pub fn is_secret_key(key: &str) -> bool {
    let upper = key.to_ascii_uppercase();
    upper.starts_with("DSH_")
        || upper.contains("KEY")
        || upper.contains("SECRET")
        || upper.contains("TOKEN")
}

/// The environment for a child built from a parent environment (for example
/// `std::env::vars()`), with every secret key ([`is_secret_key`]) removed.
///
/// Spawning never inherits anything implicitly: a [`crate::SpawnSpec`] carries the whole
/// environment, and this is the one place that environment should be derived from the
/// host's.
pub fn child_env<I, K, V>(parent: I) -> BTreeMap<String, String>
where
    I: IntoIterator<Item = (K, V)>,
    K: Into<String>,
    V: Into<String>,
{
    parent
        .into_iter()
        .map(|(key, value)| (key.into(), value.into()))
        .filter(|(key, _)| !is_secret_key(key))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secret_keys_are_recognised_case_insensitively() {
        for key in
            ["E2B_API_KEY", "aws_secret_access_key", "GitHub_Token", "dsh_anything", "KEYRING"]
        {
            assert!(is_secret_key(key), "{key}");
        }
        for key in ["PATH", "HOME", "LANG", "TERM", "MYDSH_X"] {
            assert!(!is_secret_key(key), "{key}");
        }
    }
}
