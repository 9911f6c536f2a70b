//! The opening handshake (RFC 6455 §4.2): validating an upgrade request and writing the
//! `101 Switching Protocols` response head.

use crate::deflate::DeflateParams;
use sha1::{Digest, Sha1};

/// Why a request cannot be upgraded; answer with [`HandshakeError::status`] and close.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HandshakeError {
    /// The method is not GET.
    NotGet,
    /// HTTP/1.0: an upgrade needs HTTP/1.1.
    OldHttp,
    /// No `Upgrade: websocket`, or no `upgrade` token in `Connection`.
    NoUpgrade,
    /// `Sec-WebSocket-Version` missing or not 13: answer 426 with `Sec-WebSocket-Version: 13`.
    BadVersion,
    /// `Sec-WebSocket-Key` missing, repeated, or not the base64 of 16 bytes.
    BadKey,
}

impl HandshakeError {
    /// The HTTP status to answer with: 426 Upgrade Required for [`HandshakeError::BadVersion`]
    /// (with a `Sec-WebSocket-Version: 13` header), 400 otherwise.
    pub fn status(self) -> u16 {
        match self {
            HandshakeError::BadVersion => 426,
            _ => 400,
        }
    }

    /// A response body saying what the client must change.
    pub fn message(self) -> &'static str {
        match self {
            HandshakeError::NotGet => "A WebSocket upgrade must be a GET request.",
            HandshakeError::OldHttp => "A WebSocket upgrade needs HTTP/1.1.",
            HandshakeError::NoUpgrade => {
                "A WebSocket upgrade needs `Upgrade: websocket` and `Connection: Upgrade` headers."
            }
            HandshakeError::BadVersion => {
                "Unsupported WebSocket version: send `Sec-WebSocket-Version: 13`."
            }
            HandshakeError::BadKey => {
                "`Sec-WebSocket-Key` must be present once and be the base64 of 16 bytes."
            }
        }
    }
}

/// What a client asked for. Header values are slices of the request head.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Request<'a> {
    /// The `Sec-WebSocket-Key` value, trimmed.
    pub key: &'a [u8],
    /// Subprotocols from all `Sec-WebSocket-Protocol` headers: trimmed tokens, in order.
    pub protocols: Vec<&'a [u8]>,
    /// Raw values of all `Sec-WebSocket-Extensions` headers, for [`crate::negotiate`].
    pub extensions: Vec<&'a [u8]>,
}

/// Validates an upgrade request. `headers` are (name, value) pairs in order, names compared
/// case-insensitively; `minor` is the HTTP/1.x minor version.
///
/// ```
/// use gale_ws::{parse_request, write_response};
/// let headers: [(&[u8], &[u8]); 5] = [
///     (b"Host", b"example.com"),
///     (b"Upgrade", b"websocket"),
///     (b"Connection", b"keep-alive, Upgrade"),
///     (b"Sec-WebSocket-Key", b"dGhlIHNhbXBsZSBub25jZQ=="),
///     (b"Sec-WebSocket-Version", b"13"),
/// ];
/// let req = parse_request(b"GET", 1, headers.iter().copied()).unwrap();
/// let mut out = Vec::new();
/// write_response(&mut out, req.key, None, None);
/// assert!(out.ends_with(b"Sec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=\r\n\r\n"));
/// ```
pub fn parse_request<'a>(
    method: &[u8],
    minor: u8,
    headers: impl Iterator<Item = (&'a [u8], &'a [u8])>,
) -> Result<Request<'a>, HandshakeError> {
    if method != b"GET" {
        return Err(HandshakeError::NotGet);
    }
    if minor == 0 {
        return Err(HandshakeError::OldHttp);
    }
    let (mut upgrade, mut connection, mut version_ok, mut version_seen) = (false, false, false, 0);
    let mut key: Option<&[u8]> = None;
    let mut key_count = 0;
    let mut req = Request {
        key: b"",
        protocols: Vec::new(),
        extensions: Vec::new(),
    };
    for (name, value) in headers {
        if name.eq_ignore_ascii_case(b"upgrade") {
            upgrade |= has_token(value, b"websocket");
        } else if name.eq_ignore_ascii_case(b"connection") {
            connection |= has_token(value, b"upgrade");
        } else if name.eq_ignore_ascii_case(b"sec-websocket-version") {
            version_seen += 1;
            version_ok = trim(value) == b"13";
        } else if name.eq_ignore_ascii_case(b"sec-websocket-key") {
            key_count += 1;
            key = Some(trim(value));
        } else if name.eq_ignore_ascii_case(b"sec-websocket-protocol") {
            req.protocols.extend(tokens(value));
        } else if name.eq_ignore_ascii_case(b"sec-websocket-extensions") {
            req.extensions.push(value);
        }
    }
    if !upgrade || !connection {
        return Err(HandshakeError::NoUpgrade);
    }
    if version_seen != 1 || !version_ok {
        return Err(HandshakeError::BadVersion);
    }
    match key {
        Some(k) if key_count == 1 && is_nonce(k) => req.key = k,
        _ => return Err(HandshakeError::BadKey),
    }
    Ok(req)
}

/// Cheap routing test: true when an `Upgrade` header contains the token `websocket`
/// (case-insensitive). [`parse_request`] does the full validation.
///
/// ```
/// let h: [(&[u8], &[u8]); 1] = [(b"upgrade", b"h2c, WebSocket")];
/// assert!(gale_ws::is_upgrade(h.iter().copied()));
/// ```
pub fn is_upgrade<'a>(mut headers: impl Iterator<Item = (&'a [u8], &'a [u8])>) -> bool {
    headers.any(|(n, v)| n.eq_ignore_ascii_case(b"upgrade") && has_token(v, b"websocket"))
}

/// The `Sec-WebSocket-Accept` value for `key`: base64(SHA-1(key + the RFC 6455 GUID)).
///
/// ```
/// assert_eq!(&gale_ws::accept_key(b"dGhlIHNhbXBsZSBub25jZQ=="), b"s3pPLMBiTxaQ9kYGzzhZRbK+xOo=");
/// ```
pub fn accept_key(key: &[u8]) -> [u8; 28] {
    const GUID: &[u8] = b"258EAFA5-E914-47DA-95CA-C5AB0DC85B11";
    let mut sha = Sha1::new();
    sha.update(key);
    sha.update(GUID);
    let digest: [u8; 20] = sha.finalize().into();
    gale_http::base64_20(&digest)
}

/// Appends the whole `HTTP/1.1 101 Switching Protocols` head, ending with the blank line:
/// Upgrade, Connection, Sec-WebSocket-Accept, and when given Sec-WebSocket-Protocol and
/// Sec-WebSocket-Extensions (from [`DeflateParams::response_header`]).
pub fn write_response(
    out: &mut Vec<u8>,
    key: &[u8],
    protocol: Option<&[u8]>,
    deflate: Option<&DeflateParams>,
) {
    out.extend_from_slice(
        b"HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\
          Sec-WebSocket-Accept: ",
    );
    out.extend_from_slice(&accept_key(key));
    out.extend_from_slice(b"\r\n");
    if let Some(p) = protocol {
        out.extend_from_slice(b"Sec-WebSocket-Protocol: ");
        out.extend_from_slice(p);
        out.extend_from_slice(b"\r\n");
    }
    if let Some(d) = deflate {
        out.extend_from_slice(b"Sec-WebSocket-Extensions: ");
        d.response_header(out);
        out.extend_from_slice(b"\r\n");
    }
    out.extend_from_slice(b"\r\n");
}

/// Trims optional whitespace (spaces and tabs) from both ends.
pub(crate) fn trim(v: &[u8]) -> &[u8] {
    let start = v.iter().position(|b| !matches!(b, b' ' | b'\t'));
    let end = v.iter().rposition(|b| !matches!(b, b' ' | b'\t'));
    match (start, end) {
        (Some(s), Some(e)) => &v[s..=e],
        _ => &[],
    }
}

/// The non-empty trimmed elements of a comma-separated header value.
fn tokens(v: &[u8]) -> impl Iterator<Item = &[u8]> {
    v.split(|&b| b == b',').map(trim).filter(|t| !t.is_empty())
}

fn has_token(v: &[u8], token: &[u8]) -> bool {
    tokens(v).any(|t| t.eq_ignore_ascii_case(token))
}

const B64: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/// Whether `k` looks like the base64 of 16 bytes: 22 alphabet characters then `==`. Like the
/// `ws` library, the unused low bits of the last character are not checked.
fn is_nonce(k: &[u8]) -> bool {
    let [body @ .., b'=', b'='] = k else {
        return false;
    };
    body.len() == 22 && body.iter().all(|b| B64.contains(b))
}
