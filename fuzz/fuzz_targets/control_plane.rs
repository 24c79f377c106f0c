#![no_main]

#[path = "../checks/control_plane.rs"]
mod check;

libfuzzer_sys::fuzz_target!(|data: &[u8]| check::check(data));
