//! Cost of each text-processing stage on 32 MiB of terminal output (not a test).
#![allow(clippy::unwrap_used)]
use std::time::Instant;

use dsh_pty::filter::ControlFilter;
use dsh_pty::screen::Screen;
use dsh_pty::scrollback::{Caps, Scrollback};
use dsh_pty::utf8::Utf8Decoder;

fn main() {
    let line = format!("{}\r\n", "QUJDREVGR0hJSktMTU5PUFFSU1RVVldYWVo".repeat(3));
    let data: Vec<u8> = line.as_bytes().iter().copied().cycle().take(32 << 20).collect();
    let chunks: Vec<&[u8]> = data.chunks(16 * 1024).collect();
    let mb = data.len() as f64 / 1e6;
    let t = Instant::now();
    let mut screen = Screen::new(24, 80);
    for c in &chunks {
        screen.process(c);
    }
    println!("vt100 screen: {:.0} MB/s", mb / t.elapsed().as_secs_f64());
    let t = Instant::now();
    let mut dec = Utf8Decoder::new();
    let mut texts = Vec::new();
    for c in &chunks {
        texts.push(dec.decode(c));
    }
    println!("utf8 decode: {:.0} MB/s", mb / t.elapsed().as_secs_f64());
    let t = Instant::now();
    let mut filter = ControlFilter::new();
    let mut n = 0usize;
    for text in &texts {
        filter.feed(text, |_| n += 1);
    }
    println!("control filter: {:.0} MB/s ({n} pieces)", mb / t.elapsed().as_secs_f64());
    let t = Instant::now();
    let mut filter = ControlFilter::new();
    let mut sb = Scrollback::new(Caps::default());
    for text in &texts {
        filter.feed(text, |p| sb.apply(&p));
    }
    println!("filter + scrollback: {:.0} MB/s", mb / t.elapsed().as_secs_f64());
}
