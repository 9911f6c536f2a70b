//! Micro-benchmark of the hot path: decoding masked 1 KB text messages (the echo benchmark's
//! shape), and compressing/inflating them. Run: `cargo run --release -p gale-ws --example decode_speed`.

use gale_ws::{write_frame, Decoder, Deflater, Inflater, Opcode, Role};
use std::time::Instant;

fn main() {
    let payload: Vec<u8> = (0..1024).map(|i| b'a' + (i % 26) as u8).collect();
    // 64 messages per read, as a busy socket delivers them.
    let mut wire = Vec::new();
    for i in 0..64u8 {
        write_frame(&mut wire, Opcode::Text, &payload, false, Some([i, 2, 3, 4]));
    }
    let mut dec = Decoder::new(Role::Server, 1 << 20, None);
    let rounds = 20_000;
    let start = Instant::now();
    let mut bytes = 0;
    for _ in 0..rounds {
        let mut input = &wire[..];
        while let Ok((n, Some(_))) = dec.decode(input) {
            bytes += dec.payload().len();
            input = &input[n..];
        }
    }
    let secs = start.elapsed().as_secs_f64();
    let msgs = (rounds * 64) as f64;
    println!(
        "decode: {:.2} M msg/s, {:.2} GB/s of payload",
        msgs / secs / 1e6,
        bytes as f64 / secs / 1e9
    );

    let mut d = Deflater::new(15, 1, false);
    let mut inf = Inflater::new(15, false);
    let (mut c, mut out) = (Vec::new(), Vec::new());
    let n = 200_000;
    let start = Instant::now();
    for _ in 0..n {
        c.clear();
        out.clear();
        d.compress(&payload, &mut c);
        inf.decompress(&c, &mut out, 1 << 20).unwrap();
    }
    let secs = start.elapsed().as_secs_f64();
    println!(
        "deflate+inflate (takeover, level 1): {:.0} k msg/s, {} -> {} bytes",
        n as f64 / secs / 1e3,
        payload.len(),
        c.len()
    );
}
