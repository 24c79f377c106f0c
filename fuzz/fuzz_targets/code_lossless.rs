#![no_main]

// One file holds both Code Mode properties; this target runs one.
#[allow(dead_code)]
#[path = "../checks/code.rs"]
mod check;

libfuzzer_sys::fuzz_target!(|data: &[u8]| check::lossless(data));
