//! Decoder tests: every protocol error with its close code, fragmentation with interleaved
//! control frames, length forms, limits, and splitting the input anywhere.

use crate::decoder::errors as E;
use crate::{write_frame, write_header, CloseError, Decoder, Event, Opcode, Role};

pub(super) const MASK: [u8; 4] = [0x37, 0xfa, 0x21, 0x3d];

/// Everything a decoder produced from some input: events with payloads, then the error.
pub(super) type Outcome = (Vec<(Event, Vec<u8>)>, Option<CloseError>);

/// A masked client frame with explicit FIN and RSV1.
pub(super) fn frame(out: &mut Vec<u8>, fin: bool, rsv1: bool, op: Opcode, payload: &[u8]) {
    write_header(out, fin, rsv1, op, payload.len(), Some(MASK));
    let start = out.len();
    out.extend_from_slice(payload);
    crate::apply_mask(&mut out[start..], MASK, 0);
}

pub(super) fn msg(op: Opcode, payload: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    write_frame(&mut out, op, payload, false, Some(MASK));
    out
}

/// Feeds `input` in pieces cut at `cuts` (increasing offsets), keeping unconsumed bytes
/// for the next piece the way a connection would.
pub(super) fn feed_cuts(dec: &mut Decoder, input: &[u8], cuts: &[usize]) -> Outcome {
    let mut events = Vec::new();
    let mut pending = Vec::new();
    let mut from = 0;
    for &cut in cuts.iter().chain([input.len()].iter()) {
        pending.extend_from_slice(&input[from..cut]);
        from = cut;
        loop {
            match dec.decode(&pending) {
                Err(e) => return (events, Some(e)),
                Ok((n, ev)) => {
                    assert!(n <= pending.len());
                    pending.drain(..n);
                    match ev {
                        Some(ev) => events.push((ev, dec.payload().to_vec())),
                        None => {
                            assert!(pending.len() < 14, "only a partial header is left");
                            break;
                        }
                    }
                }
            }
        }
    }
    (events, None)
}

pub(super) fn feed(dec: &mut Decoder, input: &[u8]) -> Outcome {
    feed_cuts(dec, input, &[])
}

pub(super) fn server(max: usize) -> Decoder {
    Decoder::new(Role::Server, max, None)
}

/// The error `input` makes a fresh server decoder (1 MiB max) fail with.
fn error_of(input: &[u8]) -> CloseError {
    let (_, err) = feed(&mut server(1 << 20), input);
    err.expect("an error")
}

#[test]
fn single_frames() {
    let mut input = msg(Opcode::Text, b"hello");
    input.extend(msg(Opcode::Binary, &[0, 1, 2, 255]));
    input.extend(msg(Opcode::Text, b""));
    input.extend(msg(Opcode::Pong, b"p"));
    let (events, err) = feed(&mut server(100), &input);
    assert_eq!(err, None);
    assert_eq!(
        events,
        [
            (Event::Text, b"hello".to_vec()),
            (Event::Binary, vec![0, 1, 2, 255]),
            (Event::Text, vec![]),
            (Event::Pong, b"p".to_vec()),
        ]
    );
}

#[test]
fn client_role_reads_unmasked_frames() {
    let mut input = Vec::new();
    write_frame(&mut input, Opcode::Text, b"from server", false, None);
    let mut dec = Decoder::new(Role::Client, 100, None);
    let (events, err) = feed(&mut dec, &input);
    assert_eq!((events[0].1.as_slice(), err), (&b"from server"[..], None));
    let (_, err) = feed(
        &mut Decoder::new(Role::Client, 100, None),
        &msg(Opcode::Text, b"x"),
    );
    assert_eq!(err.unwrap().code, 1002, "masked server frame");
    assert_eq!(error_of(&input).code, 1002, "unmasked client frame");
}

#[test]
fn reserved_bits_and_opcodes() {
    for b0 in [0xa1, 0x91, 0xb1] {
        assert_eq!(
            error_of(&[b0, 0x80, 0, 0, 0, 0]).code,
            1002,
            "RSV2/RSV3 {b0:x}"
        );
    }
    assert_eq!(error_of(&[0xc1, 0x80, 0, 0, 0, 0]), E::RSV1);
    for op in (3..=7).chain(11..=15) {
        let e = error_of(&[0x80 | op, 0x80, 0, 0, 0, 0]);
        assert_eq!(e, E::OPCODE, "opcode {op}");
    }
}

#[test]
fn errors_are_found_from_the_first_two_bytes() {
    // No mask key nor payload yet: the error does not wait for them.
    let mut dec = server(100);
    assert_eq!(dec.decode(&[0x83, 0x85]).unwrap_err().code, 1002);
    // And it sticks.
    assert_eq!(
        dec.decode(&msg(Opcode::Text, b"ok")).unwrap_err().code,
        1002
    );
}

#[test]
fn control_frame_rules() {
    let mut long = Vec::new();
    frame(&mut long, true, false, Opcode::Ping, &[0; 126]);
    assert_eq!(error_of(&long), E::LONG_CONTROL);
    let mut ok = Vec::new();
    frame(&mut ok, true, false, Opcode::Ping, &[7; 125]);
    assert_eq!(feed(&mut server(10), &ok).0, [(Event::Ping, vec![7; 125])]);
    let mut unfinished = Vec::new();
    frame(&mut unfinished, false, false, Opcode::Pong, b"");
    assert_eq!(error_of(&unfinished), E::FRAGMENTED_CONTROL);
    let mut compressed = Vec::new();
    frame(&mut compressed, true, true, Opcode::Ping, b"");
    let mut dec = Decoder::new(Role::Server, 100, Some(super::deflate::params(15, false)));
    assert_eq!(feed(&mut dec, &compressed).1, Some(E::RSV1));
}

#[test]
fn fragment_order_rules() {
    let mut cont = Vec::new();
    frame(&mut cont, true, false, Opcode::Continuation, b"x");
    assert_eq!(error_of(&cont), E::NO_MESSAGE);
    let mut nested = Vec::new();
    frame(&mut nested, false, false, Opcode::Text, b"a");
    frame(&mut nested, true, false, Opcode::Binary, b"b");
    assert_eq!(error_of(&nested), E::OPEN_MESSAGE);
    // A finished message closes the fragment sequence: a continuation after it is an error.
    let mut after = msg(Opcode::Text, b"done");
    after.extend_from_slice(&cont);
    let (events, err) = feed(&mut server(100), &after);
    assert_eq!((events.len(), err), (1, Some(E::NO_MESSAGE)));
}

#[test]
fn fragmented_message_with_interleaved_control_frames() {
    let mut input = Vec::new();
    frame(&mut input, false, false, Opcode::Text, b"Hel");
    frame(&mut input, true, false, Opcode::Ping, b"ping");
    frame(&mut input, false, false, Opcode::Continuation, b"");
    frame(&mut input, true, false, Opcode::Pong, b"");
    frame(&mut input, true, false, Opcode::Continuation, b"lo");
    let (events, err) = feed(&mut server(5), &input);
    assert_eq!(err, None);
    assert_eq!(
        events,
        [
            (Event::Ping, b"ping".to_vec()),
            (Event::Pong, vec![]),
            (Event::Text, b"Hello".to_vec())
        ]
    );
}

#[test]
fn lengths_16_and_64_bit() {
    for len in [125, 126, 127, 0xffff, 0x10000, 100_000] {
        let payload: Vec<u8> = (0..len).map(|i| (i % 251) as u8).collect();
        let input = msg(Opcode::Binary, &payload);
        let (events, err) = feed(&mut server(len), &input);
        assert_eq!(err, None);
        assert_eq!(events, [(Event::Binary, payload)], "len {len}");
    }
    let e = error_of(&[0x82, 0xff, 0x80, 0, 0, 0, 0, 0, 0, 0]);
    assert_eq!(e, E::LENGTH);
}

#[test]
fn max_payload_checked_from_the_header() {
    // A 64-bit length of 2^40 with no payload behind it: refused at once.
    let mut header = Vec::new();
    write_header(
        &mut header,
        true,
        false,
        Opcode::Binary,
        1 << 40,
        Some(MASK),
    );
    assert_eq!(error_of(&header).code, 1009);
    // Exactly the maximum passes; one byte more across fragments fails at the last header.
    let mut input = Vec::new();
    frame(&mut input, false, false, Opcode::Binary, &[1; 6]);
    frame(&mut input, true, false, Opcode::Continuation, &[2; 4]);
    assert_eq!(feed(&mut server(10), &input).1, None);
    let mut dec = server(9);
    let first_len = 2 + 4 + 6;
    let (n, ev) = dec.decode(&input[..first_len]).unwrap();
    assert_eq!((n, ev), (first_len, None));
    let e = dec.decode(&input[first_len..first_len + 2]).unwrap_err();
    assert_eq!(e, E::TOO_BIG);
    // Control frames do not count towards the message.
    let mut mixed = Vec::new();
    frame(&mut mixed, false, false, Opcode::Binary, &[1; 5]);
    frame(&mut mixed, true, false, Opcode::Ping, &[0; 100]);
    frame(&mut mixed, true, false, Opcode::Continuation, &[2; 5]);
    assert_eq!(feed(&mut server(10), &mixed).1, None);
}

#[test]
fn text_must_be_utf8_and_fails_fast() {
    assert_eq!(error_of(&msg(Opcode::Text, b"a\xffb")).code, 1007);
    // The bad first fragment fails before the message is finished.
    let mut input = Vec::new();
    frame(&mut input, false, false, Opcode::Text, b"ok\xc0\x80");
    assert_eq!(error_of(&input), E::NOT_UTF8);
    // A bad byte in a partial payload fails before the frame is complete.
    let whole = msg(Opcode::Text, b"abc\xff and much more text to come");
    let mut dec = server(100);
    assert_eq!(dec.decode(&whole[..10]).unwrap_err().code, 1007);
    // A character split across fragments is fine; one cut off at the end is not.
    let mut split = Vec::new();
    frame(
        &mut split,
        false,
        false,
        Opcode::Text,
        &"x€".as_bytes()[..2],
    );
    frame(
        &mut split,
        true,
        false,
        Opcode::Continuation,
        &"x€".as_bytes()[2..],
    );
    assert_eq!(feed(&mut server(100), &split).0[0].1, "x€".as_bytes());
    let mut cut = Vec::new();
    frame(&mut cut, false, false, Opcode::Text, b"x\xe2\x82");
    frame(&mut cut, true, false, Opcode::Continuation, b"");
    assert_eq!(error_of(&cut).code, 1007);
    // Binary messages are not checked.
    assert_eq!(feed(&mut server(10), &msg(Opcode::Binary, b"\xff")).1, None);
}

#[test]
fn close_frames() {
    let close = |payload: &[u8]| {
        let mut input = Vec::new();
        frame(&mut input, true, false, Opcode::Close, payload);
        feed(&mut server(100), &input)
    };
    assert_eq!(close(b"").0, [(Event::Close { code: 1005 }, vec![])]);
    assert_eq!(
        close(b"\x03\xe8bye").0,
        [(Event::Close { code: 1000 }, b"bye".to_vec())]
    );
    assert_eq!(
        close(b"\x0f\xa0").0,
        [(Event::Close { code: 4000 }, vec![])]
    );
    assert_eq!(close(b"\x03").1, Some(E::CLOSE_LEN));
    for code in [0u16, 999, 1004, 1005, 1006, 1015, 2000, 5000] {
        let e = close(&code.to_be_bytes()).1;
        assert_eq!(e, Some(E::CLOSE_CODE), "{code}");
    }
    assert_eq!(close(b"\x03\xe8\xff").1.unwrap().code, 1007);
    let mut written = Vec::new();
    crate::write_close(&mut written, 1001, "going away é".as_bytes(), Some(MASK));
    let (events, _) = feed(&mut server(100), &written);
    assert_eq!(events[0].0, Event::Close { code: 1001 });
    assert_eq!(events[0].1, "going away é".as_bytes());
}

#[test]
fn payloads_are_consumed_as_they_arrive() {
    let input = msg(Opcode::Binary, &[5; 1000]);
    let mut dec = server(1000);
    // A partial header is not consumed.
    assert_eq!(dec.decode(&input[..3]).unwrap(), (0, None));
    // The header and the payload bytes present are.
    assert_eq!(dec.decode(&input[..500]).unwrap(), (500, None));
    assert_eq!(
        dec.decode(&input[500..]).unwrap(),
        (input.len() - 500, Some(Event::Binary))
    );
    assert_eq!(dec.payload(), &[5; 1000][..]);
}

#[test]
fn several_frames_in_one_call_return_one_event_each() {
    let mut input = msg(Opcode::Text, b"one");
    input.extend(msg(Opcode::Text, b"two"));
    let mut dec = server(10);
    let (n, ev) = dec.decode(&input).unwrap();
    assert_eq!((n, ev, dec.payload()), (9, Some(Event::Text), &b"one"[..]));
    let (m, ev) = dec.decode(&input[n..]).unwrap();
    assert_eq!((m, ev, dec.payload()), (9, Some(Event::Text), &b"two"[..]));
    assert_eq!(dec.decode(&[]).unwrap(), (0, None));
}

#[test]
fn buffers_are_reused_in_steady_state() {
    let mut dec = server(4096);
    let input = msg(Opcode::Binary, &[3; 1024]);
    dec.decode(&input).unwrap();
    let ptr = dec.payload().as_ptr();
    for _ in 0..100 {
        assert_eq!(dec.decode(&input).unwrap().1, Some(Event::Binary));
        let buf = dec.take_payload();
        assert_eq!((buf.as_ptr(), buf.len()), (ptr, 1024));
        dec.restore_payload(buf);
    }
    // A ping between messages has its own buffer and does not disturb the data one.
    let ping = msg(Opcode::Ping, b"x");
    assert_eq!(dec.decode(&ping).unwrap().1, Some(Event::Ping));
    assert_eq!(dec.take_payload(), b"x");
    assert_eq!(dec.decode(&input).unwrap().1, Some(Event::Binary));
    assert_eq!(dec.payload().as_ptr(), ptr);
    // A payload not given back is replaced by a fresh buffer.
    let kept = dec.take_payload();
    assert_eq!(dec.decode(&input).unwrap().1, Some(Event::Binary));
    assert_eq!((dec.payload().len(), kept.len()), (1024, 1024));
    dec.restore_payload(kept); // slot is full: dropped, contents untouched
    assert_eq!(dec.payload(), &[3; 1024][..]);
    dec.shrink_buffers(0);
    assert_eq!(dec.payload(), &[3; 1024][..]);
}

/// Every open WebSocket holds a decoder: an idle one stays within 112 bytes (deflate state and failures boxed).
#[test]
#[cfg(target_pointer_width = "64")]
fn decoder_stays_small() {
    assert!(
        std::mem::size_of::<Decoder>() <= 112,
        "{}",
        std::mem::size_of::<Decoder>()
    );
}
