//! Fuzz target: `ResponseReader`, the client side of in-process requests. On arbitrary bytes it must give the same
//! head, body, completion and error whether the input arrives whole, split at a fuzzer-chosen point, or (for short
//! inputs) byte by byte, never reporting more bytes consumed than it was given. On a response the engine's own
//! encoder wrote (`encode_head`, then the body as Content-Length, chunks of fuzzer-chosen sizes, or until close) it
//! must read back exactly that status and body, complete.
#![no_main]

use gale_http::{encode_head, write_chunk_header, DateCache, Framing, ResponseHead, ResponseReader};
use libfuzzer_sys::fuzz_target;
use std::time::{Duration, UNIX_EPOCH};

/// What a read of a whole exchange gives: the head (status, reason, fields), the body, and the outcome (Ok(complete)
/// after the connection's end, or the failure).
type Outcome = (Option<(u16, Vec<u8>, Vec<(Vec<u8>, Vec<u8>)>)>, Vec<u8>, Result<bool, ()>);

fuzz_target!(|data: &[u8]| {
    let [mode, s0, s1, input @ ..] = data else {
        return;
    };
    let head_request = mode & 1 != 0;
    if mode & 2 == 0 {
        let split = usize::from(u16::from_le_bytes([*s0, *s1])) % (input.len() + 1);
        let whole = feed(input, &[input.len()], head_request);
        assert_eq!(feed(input, &[split, input.len()], head_request), whole);
        if input.len() <= 512 {
            let every: Vec<usize> = (1..=input.len()).collect();
            assert_eq!(feed(input, &every, head_request), whole);
        }
    } else {
        encoded(*s0, *s1, *mode, input);
    }
});

/// Feeds `input` cut at the increasing offsets `cuts` (the last is input.len()), as a client reading a socket: the
/// unconsumed bytes stay in its buffer and the next piece is appended. Then the connection ends.
fn feed(input: &[u8], cuts: &[usize], head_request: bool) -> Outcome {
    let mut r = ResponseReader::new(head_request);
    let (mut buf, mut body, mut head) = (Vec::new(), Vec::new(), None);
    let mut pos = 0;
    for &cut in cuts {
        buf.extend_from_slice(&input[pos..cut]);
        pos = cut;
        match r.read(&buf, &mut body) {
            Err(()) => return (head, body, Err(())),
            Ok(p) => {
                assert!(p.consumed <= buf.len());
                if let Some(h) = p.head {
                    assert!(head.is_none(), "one final head");
                    let fields = h.fields.iter().map(|(n, v)| (n.to_vec(), v.to_vec())).collect();
                    head = Some((h.status, h.reason.to_vec(), fields));
                }
                assert_eq!(p.done, r.is_done());
                let (used, done) = (p.consumed, p.done);
                buf.drain(..used);
                if done {
                    // Bytes after the response are not its: left in the buffer, never read.
                    return (head, body, Ok(true));
                }
            }
        }
    }
    let end = r.finish().map(|()| true);
    (head, body, end)
}

/// A response as the engine writes it, read back.
fn encoded(s0: u8, s1: u8, mode: u8, rest: &[u8]) {
    let status = 200 + (u16::from_le_bytes([s0, s1]) % 400);
    let (sizes, body) = rest.split_at(rest.len().min(8));
    let date = DateCache::new(UNIX_EPOCH + Duration::from_secs(1_795_242_371));
    let framing_choice = (mode >> 2) % 3;
    let head = ResponseHead {
        status,
        reason: b"",
        content_type: b"application/octet-stream",
        fields: b"X-Fuzz: 1\r\nSet-Cookie: a=1\r\nSet-Cookie: b=2\r\n",
        body_len: (framing_choice == 0).then_some(body.len() as u64),
    };
    // HTTP/1.0 for the body that ends with the connection, HTTP/1.1 chunked otherwise.
    let minor = u8::from(framing_choice != 2);
    let mut out = Vec::new();
    let e = encode_head(&mut out, &head, &date, minor, true);
    let has_body = !gale_http::has_no_body(status);
    match e.framing {
        Framing::NoBody => {}
        Framing::Length(_) | Framing::UntilClose => out.extend_from_slice(body),
        Framing::Chunked => {
            // Chunks of the sizes the fuzzer chose (1..=256), the last taking what is left.
            let mut left = body;
            for &s in sizes {
                if left.is_empty() {
                    break;
                }
                let n = (usize::from(s) + 1).min(left.len());
                write_chunk_header(&mut out, n);
                out.extend_from_slice(&left[..n]);
                out.extend_from_slice(b"\r\n");
                left = &left[n..];
            }
            if !left.is_empty() {
                write_chunk_header(&mut out, left.len());
                out.extend_from_slice(left);
                out.extend_from_slice(b"\r\n");
            }
            out.extend_from_slice(gale_http::LAST_CHUNK);
        }
    }
    let (got_head, got_body, end) = feed(&out, &[out.len()], false);
    let (got_status, _, fields) = got_head.expect("the encoder's head reads back");
    assert_eq!(got_status, status);
    assert_eq!(
        fields.iter().filter(|(n, _)| n == b"Set-Cookie").count(),
        2,
        "repeated fields stay apart"
    );
    assert_eq!(end, Ok(true), "complete");
    assert_eq!(got_body, if has_body { body } else { &[][..] });
    // The same bytes byte by byte (short ones): the same reading.
    if out.len() <= 512 {
        let every: Vec<usize> = (1..=out.len()).collect();
        let again = feed(&out, &every, false);
        assert_eq!(again.1, got_body);
        assert_eq!(again.2, Ok(true));
    }
}
