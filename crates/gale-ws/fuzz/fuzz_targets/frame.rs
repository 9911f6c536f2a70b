//! Fuzz target: arbitrary bytes into a Decoder in both roles, with and without
//! permessage-deflate: no panic, and the events, payloads and error are the same whether the
//! input arrives whole, cut at fuzzer-chosen points, or (for short inputs) byte by byte.
#![no_main]

use gale_ws::{CloseError, Decoder, DeflateParams, Event, Role};
use libfuzzer_sys::fuzz_target;

type Outcome = (Vec<(Event, Vec<u8>)>, Option<CloseError>);

fuzz_target!(|data: &[u8]| {
    // Byte 0 picks the max payload and deflate parameters, bytes 1-4 two cut points.
    let [cfg, c0, c1, c2, c3, input @ ..] = data else {
        return;
    };
    let max = match cfg & 3 {
        0 => 0,
        1 => 125,
        2 => 4096,
        _ => 1 << 20,
    };
    let deflate = (cfg & 4 != 0).then_some(DeflateParams {
        server_no_context_takeover: cfg & 8 != 0,
        client_no_context_takeover: cfg & 8 != 0,
        server_max_window_bits: 9 + (cfg >> 4) % 7,
        client_max_window_bits: 9 + (cfg >> 4) % 7,
        server_max_window_bits_offered: false,
    });
    let len = input.len();
    let a = usize::from(u16::from_le_bytes([*c0, *c1])) % (len + 1);
    let b = usize::from(u16::from_le_bytes([*c2, *c3])) % (len + 1);
    let cuts = [a.min(b), a.max(b)];
    for role in [Role::Server, Role::Client] {
        let new = || Decoder::new(role, max, deflate);
        let whole = feed(&mut new(), input, &[], max);
        assert_eq!(feed(&mut new(), input, &cuts[..1], max), whole);
        assert_eq!(feed(&mut new(), input, &cuts, max), whole);
        if len <= 256 {
            let every: Vec<usize> = (1..len).collect();
            assert_eq!(feed(&mut new(), input, &every, max), whole);
        }
    }
});

/// Feeds `input` cut at the increasing offsets `cuts`, keeping unconsumed bytes for the next
/// piece as a connection would.
fn feed(dec: &mut Decoder, input: &[u8], cuts: &[usize], max: usize) -> Outcome {
    let mut events = Vec::new();
    let mut pending = Vec::new();
    let mut from = 0;
    for &cut in cuts.iter().chain([input.len()].iter()) {
        pending.extend_from_slice(&input[from..cut]);
        from = cut;
        loop {
            match dec.decode(&pending) {
                Err(e) => {
                    // Errors stick.
                    assert_eq!(dec.decode(&[]), Err(e));
                    return (events, Some(e));
                }
                Ok((n, ev)) => {
                    assert!(n <= pending.len());
                    pending.drain(..n);
                    let Some(ev) = ev else {
                        assert!(pending.len() < 14, "only a partial header is left");
                        break;
                    };
                    let payload = dec.payload();
                    match ev {
                        Event::Text | Event::Binary => assert!(payload.len() <= max),
                        Event::Ping | Event::Pong => assert!(payload.len() <= 125),
                        Event::Close { code } => {
                            assert!(payload.len() <= 123);
                            assert!(code == 1005 || gale_ws::valid_close_code(code));
                        }
                    }
                    if matches!(ev, Event::Text | Event::Close { .. }) {
                        assert!(std::str::from_utf8(payload).is_ok());
                    }
                    events.push((ev, payload.to_vec()));
                }
            }
        }
    }
    (events, None)
}
