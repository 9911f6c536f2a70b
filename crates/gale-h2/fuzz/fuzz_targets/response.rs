//! Fuzz target: the HTTP/2 response built from a reply's fields never panics, never carries a connection-specific
//! field, and carries Content-Length exactly when the length is known and the status allows a body (unless the
//! fields declare one themselves).
#![no_main]

use gale_http::{field_lines, has_no_body, is_header_value, is_token, ResponseHead};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let [s0, s1, flags, rest @ ..] = data else {
        return;
    };
    let status = u16::from_le_bytes([*s0, *s1]) % 1100;
    let body_len = (flags & 1 != 0).then_some(u64::from(*flags));
    let mut parts = rest.split(|&b| b == 0xff);
    let ct = parts.next().unwrap_or(b"");
    let ct: &[u8] = if is_header_value(ct) { ct } else { b"" };
    let mut fields = Vec::new();
    while let (Some(name), Some(value)) = (parts.next(), parts.next()) {
        if is_token(name) && is_header_value(value) {
            fields.extend_from_slice(name);
            fields.extend_from_slice(b": ");
            fields.extend_from_slice(value);
            fields.extend_from_slice(b"\r\n");
        }
    }
    let head = ResponseHead {
        status,
        reason: b"x",
        content_type: ct,
        fields: &fields,
        body_len,
    };
    let resp = gale_h2::response(&head);
    let code = resp.status().as_u16();
    assert!((100..=999).contains(&code));
    if (100..=999).contains(&status) {
        assert_eq!(code, status);
    }
    let h = resp.headers();
    for gone in [
        "connection",
        "keep-alive",
        "transfer-encoding",
        "upgrade",
        "proxy-connection",
    ] {
        assert!(h.get(gone).is_none(), "{gone}");
    }
    let declared = field_lines(&fields).any(|(n, _)| n.eq_ignore_ascii_case(b"content-length"));
    if !declared {
        let want = body_len
            .filter(|_| !has_no_body(code))
            .map(|n| n.to_string());
        assert_eq!(
            h.get("content-length")
                .map(|v| v.to_str().unwrap().to_owned()),
            want
        );
    }
});
