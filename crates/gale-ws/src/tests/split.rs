//! Splitting the input at every byte offset (and in many pieces) must not change the
//! events or the error: the decoder is resumable anywhere.

use super::decoder::{feed, feed_cuts, frame, msg, server};
use crate::Opcode;

/// A stream exercising every path: fragments, control frames between them, empty frames,
/// 16-bit lengths, a close.
fn mixed_stream() -> Vec<u8> {
    let mut s = mixed_messages();
    frame(&mut s, true, false, Opcode::Close, b"\x03\xe8done");
    s
}

fn mixed_messages() -> Vec<u8> {
    let mut s = msg(Opcode::Text, "héllo wörld".as_bytes());
    frame(&mut s, false, false, Opcode::Binary, &[1, 2, 3]);
    frame(&mut s, true, false, Opcode::Ping, b"are you there");
    frame(&mut s, false, false, Opcode::Continuation, &[]);
    frame(&mut s, true, false, Opcode::Continuation, &[4; 200]);
    frame(&mut s, false, false, Opcode::Text, &"€€".as_bytes()[..4]);
    frame(
        &mut s,
        true,
        false,
        Opcode::Continuation,
        &"€€".as_bytes()[4..],
    );
    s.extend(msg(Opcode::Text, b""));
    s.extend(msg(Opcode::Binary, &[9; 130]));
    s
}

#[test]
fn any_split_gives_the_same_events() {
    let input = mixed_stream();
    let whole = feed(&mut server(1000), &input);
    assert_eq!(whole.0.len(), 7);
    assert_eq!(whole.1, None);
    for a in 0..=input.len() {
        assert_eq!(
            feed_cuts(&mut server(1000), &input, &[a]),
            whole,
            "cut at {a}"
        );
    }
    let every: Vec<usize> = (1..input.len()).collect();
    assert_eq!(feed_cuts(&mut server(1000), &input, &every), whole);
    for a in (0..input.len()).step_by(7) {
        for b in (a..input.len()).step_by(13) {
            assert_eq!(feed_cuts(&mut server(1000), &input, &[a, b]), whole);
        }
    }
}

#[test]
fn any_split_gives_the_same_error() {
    let mut input = mixed_messages();
    frame(&mut input, false, false, Opcode::Text, b"abc");
    frame(&mut input, true, false, Opcode::Continuation, b"d\xf8");
    let whole = feed(&mut server(1000), &input);
    assert_eq!(whole.1.unwrap().code, 1007);
    for a in 0..=input.len() {
        assert_eq!(
            feed_cuts(&mut server(1000), &input, &[a]),
            whole,
            "cut at {a}"
        );
    }
}
