//! Handshake tests: the RFC 6455 example key, each refusal with its status, header folding
//! of protocols and extensions, and the response head.

use crate::{accept_key, is_upgrade, parse_request, write_response, DeflateParams, HandshakeError};

const KEY: &str = "dGhlIHNhbXBsZSBub25jZQ==";

fn base() -> Vec<(&'static str, &'static str)> {
    vec![
        ("Host", "server.example.com"),
        ("Upgrade", "websocket"),
        ("Connection", "Upgrade"),
        ("Sec-WebSocket-Key", KEY),
        ("Origin", "http://example.com"),
        ("Sec-WebSocket-Version", "13"),
    ]
}

fn parse(
    method: &str,
    minor: u8,
    h: &[(&'static str, &'static str)],
) -> Result<crate::Request<'static>, HandshakeError> {
    parse_request(
        method.as_bytes(),
        minor,
        h.iter().map(|(n, v)| (n.as_bytes(), v.as_bytes())),
    )
}

fn without(name: &str) -> Vec<(&'static str, &'static str)> {
    base().into_iter().filter(|(n, _)| *n != name).collect()
}

fn replaced(name: &str, value: &'static str) -> Vec<(&'static str, &'static str)> {
    let mut h = without(name);
    h.push((Box::leak(name.to_string().into_boxed_str()), value));
    h
}

#[test]
fn rfc6455_example() {
    assert_eq!(&accept_key(KEY.as_bytes()), b"s3pPLMBiTxaQ9kYGzzhZRbK+xOo=");
    let req = parse("GET", 1, &base()).unwrap();
    assert_eq!(req.key, KEY.as_bytes());
    assert!(req.protocols.is_empty() && req.extensions.is_empty());
}

#[test]
fn accept_key_matches_other_known_pairs() {
    // From the ws library's tests and Wikipedia.
    assert_eq!(
        &accept_key(b"x3JJHMbDL1EzLkh9GBhXDw=="),
        b"HSmrc0sMlYUkAGmm5OPpG2HaGWk="
    );
    assert_eq!(&accept_key(b""), b"Kfh9QIsMVZcl6xEPYxPHzW8SZ8w=");
}

#[test]
fn refusals() {
    assert_eq!(parse("POST", 1, &base()), Err(HandshakeError::NotGet));
    assert_eq!(parse("get", 1, &base()), Err(HandshakeError::NotGet));
    assert_eq!(parse("GET", 0, &base()), Err(HandshakeError::OldHttp));
    assert_eq!(
        parse("GET", 1, &without("Upgrade")),
        Err(HandshakeError::NoUpgrade)
    );
    assert_eq!(
        parse("GET", 1, &replaced("Upgrade", "h2c")),
        Err(HandshakeError::NoUpgrade)
    );
    assert_eq!(
        parse("GET", 1, &without("Connection")),
        Err(HandshakeError::NoUpgrade)
    );
    assert_eq!(
        parse("GET", 1, &replaced("Connection", "keep-alive")),
        Err(HandshakeError::NoUpgrade)
    );
    assert_eq!(
        parse("GET", 1, &replaced("Connection", "upgrades")),
        Err(HandshakeError::NoUpgrade)
    );
    assert_eq!(
        parse("GET", 1, &without("Sec-WebSocket-Version")),
        Err(HandshakeError::BadVersion)
    );
    assert_eq!(
        parse("GET", 1, &replaced("Sec-WebSocket-Version", "8")),
        Err(HandshakeError::BadVersion)
    );
    let mut two_versions = base();
    two_versions.push(("Sec-WebSocket-Version", "13"));
    assert_eq!(
        parse("GET", 1, &two_versions),
        Err(HandshakeError::BadVersion)
    );
    assert_eq!(
        parse("GET", 1, &without("Sec-WebSocket-Key")),
        Err(HandshakeError::BadKey)
    );
    for bad in [
        "",
        "abc",
        "dGhlIHNhbXBsZSBub25jZQ=",
        "dGhlIHNhbXBsZSBub25jZQ",
        "dGhlIHNhbXBsZSBub25j!Q==",
        "dGhlIHNhbXBsZSBub25jZSBub25jZQ==",
    ] {
        assert_eq!(
            parse("GET", 1, &replaced("Sec-WebSocket-Key", bad)),
            Err(HandshakeError::BadKey),
            "{bad}"
        );
    }
    let mut two_keys = base();
    two_keys.push(("sec-websocket-key", KEY));
    assert_eq!(parse("GET", 1, &two_keys), Err(HandshakeError::BadKey));
}

#[test]
fn statuses_and_messages() {
    use HandshakeError::*;
    for e in [NotGet, OldHttp, NoUpgrade, BadVersion, BadKey] {
        assert_eq!(e.status(), if e == BadVersion { 426 } else { 400 });
        assert!(e.message().ends_with('.'));
    }
    assert!(BadVersion.message().contains("Sec-WebSocket-Version: 13"));
}

#[test]
fn lenient_header_forms() {
    let h = vec![
        ("UPGRADE", "WebSocket"),
        ("connection", "keep-alive, Upgrade"),
        ("sec-websocket-key", " dGhlIHNhbXBsZSBub25jZQ==\t"),
        ("SEC-WEBSOCKET-VERSION", " 13 "),
        ("Sec-WebSocket-Protocol", "chat, , superchat "),
        ("Sec-WebSocket-Protocol", "v2.json"),
        (
            "Sec-WebSocket-Extensions",
            "permessage-deflate; client_max_window_bits",
        ),
        ("Sec-WebSocket-Extensions", "x-foo"),
    ];
    let req = parse("GET", 1, &h).unwrap();
    assert_eq!(req.key, KEY.as_bytes());
    assert_eq!(req.protocols, [&b"chat"[..], b"superchat", b"v2.json"]);
    assert_eq!(
        req.extensions,
        [&b"permessage-deflate; client_max_window_bits"[..], b"x-foo"]
    );
}

#[test]
fn upgrade_detection() {
    let check =
        |h: &[(&str, &str)]| is_upgrade(h.iter().map(|(n, v)| (n.as_bytes(), v.as_bytes())));
    assert!(check(&[("Upgrade", "websocket")]));
    assert!(check(&[("x", "y"), ("upgrade", "foo, WEBSOCKET")]));
    assert!(!check(&[("Upgrade", "h2c")]));
    assert!(!check(&[("X-Upgrade", "websocket")]));
    assert!(!check(&[]));
}

#[test]
fn response_head() {
    let mut out = Vec::new();
    write_response(&mut out, KEY.as_bytes(), None, None);
    assert_eq!(
        out,
        b"HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\
          Sec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=\r\n\r\n"
    );
    out.clear();
    let d = DeflateParams {
        server_no_context_takeover: true,
        client_no_context_takeover: false,
        server_max_window_bits: 15,
        client_max_window_bits: 15,
        server_max_window_bits_offered: false,
    };
    write_response(&mut out, KEY.as_bytes(), Some(b"chat"), Some(&d));
    let text = String::from_utf8(out).unwrap();
    assert!(text.ends_with(
        "Sec-WebSocket-Protocol: chat\r\nSec-WebSocket-Extensions: permessage-deflate; \
         server_no_context_takeover\r\n\r\n"
    ));
}
