//! Fuzz target: arbitrary bytes as a WebTransport CONNECT stream's capsules, a stream's header and a datagram: no
//! panic; the capsules and error are the same whether the bytes arrive whole or cut at two fuzzer-chosen points;
//! every capsule decoded encodes back to bytes that decode to it.
#![no_main]

use gale_wt::capsule::{self, Capsule, Decoder};
use gale_wt::{stream, Error};
use libfuzzer_sys::fuzz_target;

/// The capsules of `parts` fed in order to one decoder, and the error that stopped it.
fn run(parts: &[&[u8]], max: usize) -> (Vec<Capsule>, Option<Error>) {
    let mut d = Decoder::new(max);
    let (mut held, mut out) = (Vec::new(), Vec::new());
    for part in parts {
        held.extend_from_slice(part);
        loop {
            match d.decode(&held) {
                Ok((n, c)) => {
                    assert!(n <= held.len());
                    held.drain(..n);
                    out.extend(c);
                    if n == 0 {
                        break;
                    }
                }
                Err(e) => return (out, Some(e)),
            }
        }
    }
    (out, None)
}

fuzz_target!(|data: &[u8]| {
    let [cfg, c0, c1, input @ ..] = data else {
        return;
    };
    let max = [0, 16, 1024, 65_536][usize::from(cfg & 3)];
    let len = input.len();
    let (a, b) = {
        let (x, y) = (usize::from(*c0) % (len + 1), usize::from(*c1) % (len + 1));
        (x.min(y), x.max(y))
    };
    let whole = run(&[input], max);
    let cut = run(&[&input[..a], &input[a..b], &input[b..]], max);
    assert_eq!(whole, cut, "cuts at {a} and {b} changed the outcome");
    for c in &whole.0 {
        let mut bytes = Vec::new();
        match c {
            Capsule::Close { code, reason } => capsule::encode_close(*code, reason, &mut bytes),
            Capsule::Drain => capsule::encode_drain(&mut bytes),
            Capsule::Datagram(p) => capsule::encode_datagram(p, &mut bytes),
        }
        assert_eq!(run(&[&bytes], max), (vec![c.clone()], None));
    }
    let _ = stream::uni_header(input);
    let _ = stream::bidi_header(input);
    if let Ok((session, payload)) = stream::datagram(input) {
        assert_eq!(session % 4, 0);
        assert!(payload.len() < input.len());
    }
});
