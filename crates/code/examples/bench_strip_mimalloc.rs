//! Strip throughput with mimalloc as the global allocator (the AST's many small
//! allocations and frees dominate a glibc-malloc profile):
//! `cargo run --release -p dsh-code --example bench_strip_mimalloc`.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::time::Instant;

#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

#[path = "support/typescript.rs"]
mod typescript;

fn main() {
    let source = typescript::one_mib();
    dsh_code::strip_types(&source).unwrap();
    let mut samples = Vec::new();
    for _ in 0..20 {
        let t = Instant::now();
        let out = dsh_code::strip_types(&source).unwrap();
        samples.push(t.elapsed().as_secs_f64());
        assert_eq!(out.len(), source.len());
    }
    samples.sort_by(f64::total_cmp);
    let (median, best) = (samples[samples.len() / 2], samples[0]);
    println!(
        "strip 1 MiB of TypeScript (mimalloc): median {:.1} ms = {:.0} MB/s (best {:.0} MB/s)",
        median * 1e3,
        source.len() as f64 / median / 1e6,
        source.len() as f64 / best / 1e6
    );
}
