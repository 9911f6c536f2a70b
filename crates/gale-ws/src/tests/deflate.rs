//! permessage-deflate codec tests: the RFC 7692 §7.2.3 examples, context takeover on and off,
//! window sizes, compressed fragmented messages through the decoder, and inflate limits.

use super::decoder::{feed, feed_cuts, frame, MASK};
use crate::{write_header, Decoder, DeflateParams, Deflater, Event, Inflater, Opcode, Role};

/// Agreed parameters with both directions alike.
pub(super) fn params(bits: u8, no_context_takeover: bool) -> DeflateParams {
    DeflateParams {
        server_no_context_takeover: no_context_takeover,
        client_no_context_takeover: no_context_takeover,
        server_max_window_bits: bits,
        client_max_window_bits: bits,
        server_max_window_bits_offered: false,
    }
}

fn inflate(data: &[u8], max: usize) -> Result<Vec<u8>, crate::CloseError> {
    let mut out = Vec::new();
    Inflater::new(15, true).decompress(data, &mut out, max)?;
    Ok(out)
}

#[test]
fn rfc7692_examples_inflate() {
    // §7.2.3.1, §7.2.3.3 (stored block), §7.2.3.4 (BFINAL), §7.2.3.5 (two blocks).
    for payload in [
        &[0xf2, 0x48, 0xcd, 0xc9, 0xc9, 0x07, 0x00][..],
        &[
            0x00, 0x05, 0x00, 0xfa, 0xff, 0x48, 0x65, 0x6c, 0x6c, 0x6f, 0x00,
        ],
        &[0xf3, 0x48, 0xcd, 0xc9, 0xc9, 0x07, 0x00, 0x00],
        &[
            0xf2, 0x48, 0x05, 0x00, 0x00, 0x00, 0xff, 0xff, 0xca, 0xc9, 0xc9, 0x07, 0x00,
        ],
    ] {
        assert_eq!(inflate(payload, 5).unwrap(), b"Hello", "{payload:x?}");
        assert_eq!(inflate(payload, 4).unwrap_err().code, 1009);
    }
    // §7.2.3.6: an empty message is the single byte 00.
    assert_eq!(inflate(&[0x00], 0).unwrap(), b"");
}

#[test]
fn rfc7692_examples_deflate() {
    for level in 1..=9 {
        let mut d = Deflater::new(15, level, false);
        let mut out = Vec::new();
        d.compress(b"Hello", &mut out);
        assert_eq!(
            out,
            [0xf2, 0x48, 0xcd, 0xc9, 0xc9, 0x07, 0x00],
            "level {level}"
        );
    }
    let mut empty = Vec::new();
    Deflater::new(15, 1, false).compress(b"", &mut empty);
    assert_eq!(empty, [0x00]);
}

#[test]
fn rfc7692_frames_through_the_decoder() {
    let mut input = Vec::new();
    // §7.2.3.1: one compressed frame, then the same message fragmented.
    frame(
        &mut input,
        true,
        true,
        Opcode::Text,
        &[0xf2, 0x48, 0xcd, 0xc9, 0xc9, 0x07, 0x00],
    );
    frame(&mut input, false, true, Opcode::Text, &[0xf2, 0x48, 0xcd]);
    frame(
        &mut input,
        true,
        false,
        Opcode::Continuation,
        &[0xc9, 0xc9, 0x07, 0x00],
    );
    // §7.2.3.2: with context takeover the next "Hello" refers back to the last one.
    frame(
        &mut input,
        true,
        true,
        Opcode::Text,
        &[0xf2, 0x00, 0x11, 0x00, 0x00],
    );
    // §7.2.3.3: a stored block; uncompressed messages may be mixed in.
    frame(
        &mut input,
        true,
        true,
        Opcode::Binary,
        &[
            0x00, 0x05, 0x00, 0xfa, 0xff, 0x48, 0x65, 0x6c, 0x6c, 0x6f, 0x00,
        ],
    );
    frame(&mut input, true, false, Opcode::Text, b"plain");
    let mut dec = Decoder::new(Role::Server, 100, Some(params(15, false)));
    let (events, err) = feed(&mut dec, &input);
    assert_eq!(err, None);
    let hello = b"Hello".to_vec();
    assert_eq!(
        events,
        [
            (Event::Text, hello.clone()),
            (Event::Text, hello.clone()),
            (Event::Text, hello.clone()),
            (Event::Binary, hello),
            (Event::Text, b"plain".to_vec()),
        ]
    );
    for a in 0..=input.len() {
        let mut dec = Decoder::new(Role::Server, 100, Some(params(15, false)));
        assert_eq!(feed_cuts(&mut dec, &input, &[a]), (events.clone(), None));
    }
}

/// Sends `messages` through a Deflater and a Decoder in `role`'s peer direction with the
/// given parameters, fragmenting every third message, and checks they come back intact.
fn round_trip(p: DeflateParams, messages: &[Vec<u8>], level: u32) -> usize {
    let mut deflater = Deflater::new(
        p.client_max_window_bits,
        level,
        p.client_no_context_takeover,
    );
    let mut dec = Decoder::new(Role::Server, 1 << 20, Some(p));
    let mut wire = Vec::new();
    let mut compressed = Vec::new();
    for (i, m) in messages.iter().enumerate() {
        compressed.clear();
        deflater.compress(m, &mut compressed);
        if i % 3 == 2 && compressed.len() > 2 {
            let (a, b) = compressed.split_at(compressed.len() / 2);
            frame(&mut wire, false, true, Opcode::Binary, a);
            frame(&mut wire, true, false, Opcode::Continuation, b);
        } else {
            frame(&mut wire, true, true, Opcode::Binary, &compressed);
        }
    }
    let (events, err) = feed(&mut dec, &wire);
    assert_eq!(err, None);
    let got: Vec<Vec<u8>> = events.into_iter().map(|(_, p)| p).collect();
    assert_eq!(got, messages);
    wire.len()
}

fn sample_messages() -> Vec<Vec<u8>> {
    let text = b"{\"type\":\"chat\",\"room\":\"lobby\",\"text\":\"hello everyone, how are you?\"}";
    let mut v: Vec<Vec<u8>> = (0..8).map(|i| [&text[..], &[b'0' + i]].concat()).collect();
    v.push(Vec::new());
    v.push((0..5000u32).map(|i| (i * 7 % 13) as u8).collect());
    v.push(text.repeat(50));
    v
}

#[test]
fn context_takeover_on_and_off() {
    let msgs = sample_messages();
    for level in [1, 6, 9] {
        let with = round_trip(params(15, false), &msgs, level);
        let without = round_trip(params(15, true), &msgs, level);
        // Later messages refer back to earlier ones only with context takeover.
        assert!(with < without, "level {level}: {with} vs {without}");
    }
}

#[test]
fn every_window_size_round_trips() {
    let msgs = sample_messages();
    for bits in 8..=15 {
        for nct in [false, true] {
            round_trip(params(bits, nct), &msgs, 6);
        }
    }
}

#[test]
fn shared_deflater_without_context_is_deterministic() {
    let mut d = Deflater::new(15, 6, true);
    let (mut a, mut b) = (Vec::new(), Vec::new());
    d.compress(b"same message same message", &mut a);
    d.compress(b"same message same message", &mut b);
    assert_eq!(a, b);
    let mut inf = Inflater::new(15, true);
    let mut out = Vec::new();
    inf.decompress(&a, &mut out, 100).unwrap();
    inf.decompress(&b, &mut out, 100).unwrap();
    assert_eq!(out, b"same message same messagesame message same message");
}

#[test]
fn window_bits_limit_how_far_the_deflater_refers_back() {
    // 2000 bytes, then again as a second message: with context takeover and a 15-bit window
    // the second is a short back-reference into the first; a 9-bit (512-byte) window cannot
    // reach it, so the peer's smaller window is never exceeded.
    let mut x = 0x9e37_79b9_7f4a_7c15u64;
    let block: Vec<u8> = (0..2000)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x as u8
        })
        .collect();
    for (bits, short) in [(15, true), (12, true), (10, false), (9, false)] {
        let mut d = Deflater::new(bits, 9, false);
        let mut inf = Inflater::new(bits, false);
        let mut out = Vec::new();
        for i in 0..3 {
            let mut c = Vec::new();
            d.compress(&block, &mut c);
            if i > 0 {
                assert!(
                    if short { c.len() < 100 } else { c.len() > 1500 },
                    "bits {bits}: {} bytes",
                    c.len()
                );
            }
            inf.decompress(&c, &mut out, 1 << 20).unwrap();
        }
        assert_eq!(out, block.repeat(3));
    }
    // zlib-rs always keeps a 32 KiB inflate window, so a smaller-than-agreed Inflater still
    // reads a wider peer (lenient, and what a 9-bit clamp for 8-bit peers relies on).
    let mut wide = Deflater::new(15, 9, false);
    let mut inf = Inflater::new(9, false);
    let mut out = Vec::new();
    for _ in 0..2 {
        let mut c = Vec::new();
        wide.compress(&block, &mut c);
        inf.decompress(&c, &mut out, 1 << 20).unwrap();
    }
    assert_eq!(out, block.repeat(2));
}

#[test]
fn zip_bomb_stops_at_the_limit() {
    let zeros = vec![0u8; 8 << 20];
    let mut bomb = Vec::new();
    Deflater::new(15, 9, true).compress(&zeros, &mut bomb);
    assert!(bomb.len() < 16 << 10);
    let mut out = Vec::new();
    let e = Inflater::new(15, true)
        .decompress(&bomb, &mut out, 1 << 16)
        .unwrap_err();
    assert_eq!(e.code, 1009);
    assert!(out.capacity() < 1 << 18, "inflating stopped near the limit");
    // Through the decoder: 1009.
    let mut input = Vec::new();
    frame(&mut input, true, true, Opcode::Binary, &bomb);
    let mut dec = Decoder::new(Role::Server, 1 << 16, Some(params(15, false)));
    assert_eq!(feed(&mut dec, &input).1.unwrap().code, 1009);
    // Exactly at the limit is fine.
    let mut dec = Decoder::new(Role::Server, 8 << 20, Some(params(15, false)));
    assert_eq!(feed(&mut dec, &input).0[0].1.len(), 8 << 20);
}

#[test]
fn compressed_size_checked_from_the_header() {
    let mut header = Vec::new();
    write_header(&mut header, true, true, Opcode::Binary, 1 << 30, Some(MASK));
    let mut dec = Decoder::new(Role::Server, 1 << 20, Some(params(15, false)));
    assert_eq!(dec.decode(&header).unwrap_err().code, 1009);
}

#[test]
fn corrupt_and_non_utf8_compressed_messages() {
    let mut input = Vec::new();
    frame(&mut input, true, true, Opcode::Binary, &[0xff, 0xff, 0xff]);
    let mut dec = Decoder::new(Role::Server, 100, Some(params(15, false)));
    assert_eq!(feed(&mut dec, &input).1.unwrap().code, 1007);

    let mut bad = Vec::new();
    Deflater::new(15, 6, false).compress(b"caf\xe9", &mut bad);
    let mut input = Vec::new();
    frame(&mut input, true, true, Opcode::Text, &bad);
    let mut dec = Decoder::new(Role::Server, 100, Some(params(15, false)));
    assert_eq!(feed(&mut dec, &input).1.unwrap().code, 1007);
}

#[test]
fn client_role_inflates_with_the_server_parameters() {
    let p = DeflateParams {
        server_no_context_takeover: true,
        client_no_context_takeover: false,
        server_max_window_bits: 10,
        client_max_window_bits: 15,
        server_max_window_bits_offered: false,
    };
    let mut d = Deflater::new(10, 6, true);
    let mut wire = Vec::new();
    for m in sample_messages() {
        let mut c = Vec::new();
        d.compress(&m, &mut c);
        crate::write_frame(&mut wire, Opcode::Binary, &c, true, None);
    }
    let (events, err) = feed(&mut Decoder::new(Role::Client, 1 << 20, Some(p)), &wire);
    assert_eq!(err, None);
    assert_eq!(events.len(), sample_messages().len());
}

#[test]
fn shrink_buffers_frees_idle_capacity() {
    let big: Vec<u8> = (0..100_000u32).map(|i| (i % 251) as u8).collect();
    let mut c = Vec::new();
    Deflater::new(15, 1, true).compress(&big, &mut c);
    let mut input = Vec::new();
    frame(&mut input, true, true, Opcode::Binary, &c);
    frame(&mut input, true, false, Opcode::Ping, b"x");
    let mut dec = Decoder::new(Role::Server, 1 << 20, Some(params(15, true)));
    let (events, err) = feed(&mut dec, &input);
    assert_eq!((events.len(), err), (2, None));
    dec.shrink_buffers(4096);
    assert_eq!(dec.payload(), b"x", "the last event's payload stays");
    // The inflated message (100 KB) is freed, the small compressed buffer kept.
    assert_eq!(dec.data.capacity(), 0);
    assert!(dec.raw_capacity() > 0 && dec.raw_capacity() <= 4096);
    dec.shrink_buffers(0);
    assert_eq!((dec.raw_capacity(), dec.payload()), (0, &b"x"[..]));
}
