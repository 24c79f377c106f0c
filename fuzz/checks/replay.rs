//! Replays what the fuzzers keep for a target (`fuzz/regressions/<target>/`: inputs that
//! once failed; `fuzz/corpus/<target>/`: the committed seeds) through its property, so
//! they stay fixed without a fuzzer. Included by each crate's `tests/` beside the check.

use std::path::{Path, PathBuf};

/// Runs `check` on every kept input of `target`; a failure names the file. Returns how
/// many inputs ran (a target with none is a mistake: the seeds are committed).
pub fn replay(target: &str, check: fn(&[u8])) -> usize {
    let fuzz = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fuzz");
    let mut inputs: Vec<PathBuf> = Vec::new();
    for kind in ["regressions", "corpus"] {
        let Ok(entries) = std::fs::read_dir(fuzz.join(kind).join(target)) else { continue };
        for entry in entries {
            let path = entry.unwrap_or_else(|e| panic!("reading {kind}/{target}: {e}")).path();
            if path.is_file()
                && !path.file_name().is_some_and(|n| n.to_string_lossy().starts_with('.'))
            {
                inputs.push(path);
            }
        }
    }
    inputs.sort();
    assert!(!inputs.is_empty(), "no inputs kept for fuzz target {target} under {}", fuzz.display());
    for path in &inputs {
        let data = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        if let Err(panic) = std::panic::catch_unwind(|| check(&data)) {
            let message = panic
                .downcast_ref::<String>()
                .map(String::as_str)
                .or_else(|| panic.downcast_ref::<&str>().copied())
                .unwrap_or("(no message)");
            panic!("fuzz input {} fails: {message}", path.display());
        }
    }
    inputs.len()
}
