//! Fuzz target: the chunked decoder must give the same body, progress and error whether the
//! input arrives whole, split at a fuzzer-chosen point, or (for short inputs) byte by byte.
#![no_main]

use gale_http::{ChunkedDecoder, Error};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    // Two bytes choose the split point, one the body limit.
    let [s0, s1, m, input @ ..] = data else {
        return;
    };
    let split = usize::from(u16::from_le_bytes([*s0, *s1])) % (input.len() + 1);
    let max_body = match m % 4 {
        0 => u64::MAX,
        1 => 0,
        2 => u64::from(*m),
        _ => 1 << 20,
    };

    let whole = feed(input, &[input.len()], max_body);
    assert_eq!(feed(input, &[split, input.len()], max_body), whole);
    if input.len() <= 512 {
        let every: Vec<usize> = (1..=input.len()).collect();
        assert_eq!(feed(input, &every, max_body), whole);
    }
    if let (Ok((consumed, _)), _) = &whole {
        assert!(*consumed <= input.len());
    }
});

/// Feeds `input` cut at the increasing offsets `cuts` (the last is input.len()). Returns
/// (Ok((consumed, done)) or the error, decoded body).
fn feed(input: &[u8], cuts: &[usize], max_body: u64) -> (Result<(usize, bool), Error>, Vec<u8>) {
    let mut dec = ChunkedDecoder::new(max_body);
    let mut out = Vec::new();
    let mut pos = 0;
    for &cut in cuts {
        let piece = &input[pos..cut.max(pos)];
        match dec.decode(piece, &mut out) {
            Err(e) => return (Err(e), out),
            Ok(d) => {
                assert!(d.consumed <= piece.len());
                pos += d.consumed;
                if d.done {
                    assert!(dec.is_done());
                    return (Ok((pos, true)), out);
                }
                assert_eq!(d.consumed, piece.len());
            }
        }
    }
    assert!(dec.total() >= out.len() as u64);
    (Ok((pos, false)), out)
}
