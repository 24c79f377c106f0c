#![no_main]

#[path = "../checks/egress_head.rs"]
mod check;

libfuzzer_sys::fuzz_target!(|data: &[u8]| check::check(data));
