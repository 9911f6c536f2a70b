//! Fuzz target: permessage-deflate. Messages cut from the input round-trip through a Deflater
//! and an Inflater with fuzzer-chosen window bits, level and context takeover; the raw input
//! fed to an Inflater never panics and never yields more than the limit.
#![no_main]

use gale_ws::{Deflater, Inflater};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let [cfg, lim, input @ ..] = data else {
        return;
    };
    let bits = 9 + cfg % 7;
    let level = u32::from(cfg >> 3) % 10;
    let no_context_takeover = cfg & 0x80 != 0;

    // Round trip: messages separated by 0xff bytes, each compressed then inflated in order.
    let mut deflater = Deflater::new(bits, level, no_context_takeover);
    let mut inflater = Inflater::new(bits, no_context_takeover);
    let (mut wire, mut out) = (Vec::new(), Vec::new());
    for msg in input.split(|&b| b == 0xff) {
        wire.clear();
        out.clear();
        deflater.compress(msg, &mut wire);
        inflater
            .decompress(&wire, &mut out, msg.len())
            .expect("own output inflates");
        assert_eq!(out, msg);
        if !msg.is_empty() {
            // One byte short of the message is too big.
            let mut fresh = Inflater::new(bits, true);
            let mut small = Vec::new();
            let mut one_shot = Deflater::new(bits, level, true);
            wire.clear();
            one_shot.compress(msg, &mut wire);
            let e = fresh
                .decompress(&wire, &mut small, msg.len() - 1)
                .unwrap_err();
            assert_eq!((e.code, small.len()), (1009, 0));
        }
    }

    // Arbitrary bytes: any result, but the limit holds and errors leave `out` as it was.
    let max = usize::from(*lim) * 64;
    let mut inflater = Inflater::new(bits, no_context_takeover);
    let mut out = b"prefix".to_vec();
    for piece in input.chunks(97) {
        match inflater.decompress(piece, &mut out, max) {
            Ok(()) => assert!(out.len() - 6 <= max),
            Err(e) => {
                assert!(e.code == 1007 || e.code == 1009);
                assert_eq!(out.len(), 6);
            }
        }
        out.truncate(6);
    }
});
