//! Fuzz target: the HTTP/1.1 response encoder against its inverse. A head built from arbitrary bytes (status,
//! reason, Content-Type, fields kept only where the engine would accept them, body length, client version,
//! keep-alive) is encoded with `encode_head` and read back with `parse_response_head`: the same status, reason
//! (or the standard one when the given one cannot stand in a status line), fields in order, framing and
//! connection decision, and a head that ends exactly where the encoder stopped.
#![no_main]

use gale_http::{
    encode_head, is_header_value, is_token, parse_response_head, reason, DateCache, Framing,
    ResponseHead,
};
use libfuzzer_sys::fuzz_target;
use std::time::{Duration, UNIX_EPOCH};

fuzz_target!(|data: &[u8]| {
    let [s0, s1, flags, len0, len1, rest @ ..] = data else {
        return;
    };
    let status = 100 + (u16::from_le_bytes([*s0, *s1]) % 900);
    let minor = flags & 1;
    let keep_alive = flags & 2 != 0;
    let body_len = (flags & 4 != 0).then(|| u64::from(u16::from_le_bytes([*len0, *len1])));
    // The rest: reason, content type, then field names and values, separated by 0xff.
    let mut parts = rest.split(|&b| b == 0xff);
    let reason_in = parts.next().unwrap_or(b"");
    let ct = parts.next().unwrap_or(b"");
    let ct: &[u8] = if is_header_value(ct) { ct } else { b"" };
    let mut fields = Vec::new();
    let mut expected: Vec<(Vec<u8>, Vec<u8>)> = Vec::new();
    // Fewer fields than parse_response_head reads (its fixed array of 128, Date and the rest included).
    while let (Some(name), Some(value), true) = (parts.next(), parts.next(), expected.len() < 100) {
        // What the engine accepts from JS: a token name that is not a framing or connection field, a value with
        // no control characters; values are compared trimmed, as a parser reads them.
        let framing_name = [
            &b"content-length"[..],
            b"transfer-encoding",
            b"connection",
            b"content-type",
            b"date",
        ]
        .iter()
        .any(|n| name.eq_ignore_ascii_case(n));
        if !is_token(name) || framing_name || !is_header_value(value) {
            continue;
        }
        fields.extend_from_slice(name);
        fields.extend_from_slice(b": ");
        fields.extend_from_slice(value);
        fields.extend_from_slice(b"\r\n");
        let v: &[u8] = value.trim_ascii();
        expected.push((name.to_vec(), v.to_vec()));
    }
    let head = ResponseHead {
        status,
        reason: reason_in,
        content_type: ct,
        fields: &fields,
        body_len,
    };
    let date = DateCache::new(UNIX_EPOCH + Duration::from_secs(1_795_242_371));
    let mut out = Vec::new();
    let e = encode_head(&mut out, &head, &date, minor, keep_alive);
    out.extend_from_slice(b"BODY");

    let p = parse_response_head(&out)
        .expect("the encoder wrote a head its parser refuses")
        .expect("incomplete");
    assert_eq!(
        &out[p.head_len..],
        b"BODY",
        "the head ends where the encoder stopped"
    );
    assert_eq!(p.status, status);
    let valid_reason = !reason_in.is_empty() && gale_http::is_reason_phrase(reason_in);
    let want_reason: &[u8] = if valid_reason {
        reason_in
    } else {
        reason(status).as_bytes()
    };
    // A reason that ends in blanks is read back without them (the status line's CRLF follows at once otherwise).
    assert_eq!(p.reason.trim_ascii_end(), want_reason.trim_ascii_end());
    assert_eq!(p.framing, e.framing);
    assert_eq!(p.close, !e.keep_alive);
    assert!(!keep_alive || e.keep_alive || e.framing == Framing::UntilClose);
    match e.framing {
        Framing::NoBody => assert!(gale_http::has_no_body(status)),
        Framing::Length(n) => assert_eq!(Some(n), body_len),
        Framing::Chunked => assert!(body_len.is_none() && minor == 1),
        Framing::UntilClose => assert!(body_len.is_none() && minor == 0 && !e.keep_alive),
    }
    let got: Vec<(Vec<u8>, Vec<u8>)> = p
        .fields
        .iter()
        .filter(|(n, _)| {
            ![
                &b"date"[..],
                b"content-type",
                b"content-length",
                b"transfer-encoding",
                b"connection",
            ]
            .iter()
            .any(|x| n.eq_ignore_ascii_case(x))
        })
        .map(|(n, v)| (n.to_vec(), v.to_vec()))
        .collect();
    assert_eq!(got, expected, "the fields, in order");
    let ct_back = p
        .fields
        .iter()
        .find(|(n, _)| n.eq_ignore_ascii_case(b"content-type"));
    // Read back without surrounding blanks, as every field value.
    assert_eq!(
        ct_back.map(|(_, v)| v.trim_ascii()),
        (!ct.is_empty()).then_some(ct.trim_ascii())
    );
});
