//! The HTTP/1.1 response-head encoder: one place that decides how a response is framed (Content-Length, chunked,
//! or until the connection closes), which statuses carry no body, and how the connection is marked; plus the chunk
//! lines and the `Connection: close` patch for a head already encoded. The I/O crate only places the bytes.

use crate::date::DateCache;
use crate::response::{write_content_length, write_status_line};

/// A response head as fields, before it is encoded for a protocol (HTTP/1.1 here; HTTP/2 takes the same fields).
#[derive(Clone, Copy, Debug)]
pub struct ResponseHead<'a> {
    /// The status code (100..=999; others are sent as 500).
    pub status: u16,
    /// A reason phrase other than the standard one, or empty. One a status line cannot hold is replaced by the
    /// standard phrase ([`is_reason_phrase`]).
    pub reason: &'a [u8],
    /// The Content-Type value, or empty for none.
    pub content_type: &'a [u8],
    /// Further fields, as validated `Name: value\r\n` lines (never framing or connection fields).
    pub fields: &'a [u8],
    /// The body's length when known (sent as Content-Length); None for a body streamed as it comes.
    pub body_len: Option<u64>,
}

/// How an HTTP/1.1 response body is delimited.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Framing {
    /// 1xx, 204 and 304 carry no body at all (RFC 9110 §6.4.1): no framing field.
    NoBody,
    /// `Content-Length: n`.
    Length(u64),
    /// `Transfer-Encoding: chunked`: every body write is a chunk ([`write_chunk_header`]), the last is
    /// [`crate::LAST_CHUNK`].
    Chunked,
    /// An HTTP/1.0 client and a body of unknown length: the body ends when the connection closes.
    UntilClose,
}

/// What [`encode_head`] wrote: the framing the body must follow, and whether the connection stays open after it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Encoded {
    /// How the body that follows must be written.
    pub framing: Framing,
    /// The head said the connection stays open (false: `Connection: close`, or HTTP/1.0 without keep-alive).
    pub keep_alive: bool,
}

/// Whether a response with `status` carries no body (1xx, 204, 304).
///
/// ```
/// assert!(gale_http::has_no_body(304) && !gale_http::has_no_body(200));
/// ```
pub fn has_no_body(status: u16) -> bool {
    status == 204 || status == 304 || (100..200).contains(&status)
}

/// Whether `reason` may stand in a status line: HTAB, SP, VCHAR, obs-text (RFC 9112 §4).
pub fn is_reason_phrase(reason: &[u8]) -> bool {
    reason
        .iter()
        .all(|&b| b == b'\t' || b == b' ' || (b >= 0x21 && b != 0x7f))
}

/// The framing of a response with `status` and `body_len` to a client speaking HTTP/1.`minor`.
pub fn framing(status: u16, body_len: Option<u64>, minor: u8) -> Framing {
    if has_no_body(status) {
        return Framing::NoBody;
    }
    match body_len {
        Some(n) => Framing::Length(n),
        None if minor >= 1 => Framing::Chunked,
        None => Framing::UntilClose,
    }
}

/// Appends the HTTP/1.1 head of `head` for a client speaking HTTP/1.`minor`: the status line, Date, Content-Type,
/// the fields, the framing field, the connection field, and the blank line. `keep_alive` is whether the
/// connection may stay open after this response; a body that can only end with the connection turns it off.
///
/// ```
/// use gale_http::{encode_head, DateCache, Framing, ResponseHead};
/// use std::time::{Duration, UNIX_EPOCH};
///
/// let date = DateCache::new(UNIX_EPOCH + Duration::from_secs(784111777));
/// let head = ResponseHead { status: 200, reason: b"", content_type: b"text/plain", fields: b"X-A: 1\r\n", body_len: None };
/// let mut out = Vec::new();
/// let e = encode_head(&mut out, &head, &date, 1, true);
/// assert_eq!(e.framing, Framing::Chunked);
/// assert_eq!(
///     out,
///     b"HTTP/1.1 200 OK\r\nDate: Sun, 06 Nov 1994 08:49:37 GMT\r\nContent-Type: text/plain\r\n\
///       X-A: 1\r\nTransfer-Encoding: chunked\r\n\r\n"
/// );
/// ```
pub fn encode_head(
    out: &mut Vec<u8>,
    head: &ResponseHead<'_>,
    date: &DateCache,
    minor: u8,
    keep_alive: bool,
) -> Encoded {
    let framing = framing(head.status, head.body_len, minor);
    let keep_alive = keep_alive && framing != Framing::UntilClose;
    if head.reason.is_empty()
        || !is_reason_phrase(head.reason)
        || !(100..=999).contains(&head.status)
    {
        write_status_line(out, head.status);
    } else {
        out.extend_from_slice(b"HTTP/1.1 ");
        let s = head.status;
        out.extend_from_slice(&[
            b'0' + (s / 100) as u8,
            b'0' + (s / 10 % 10) as u8,
            b'0' + (s % 10) as u8,
            b' ',
        ]);
        out.extend_from_slice(head.reason);
        out.extend_from_slice(b"\r\n");
    }
    out.extend_from_slice(date.header_line());
    if !head.content_type.is_empty() {
        out.extend_from_slice(b"Content-Type: ");
        out.extend_from_slice(head.content_type);
        out.extend_from_slice(b"\r\n");
    }
    out.extend_from_slice(head.fields);
    match framing {
        Framing::Length(n) => write_content_length(out, n),
        Framing::Chunked => out.extend_from_slice(b"Transfer-Encoding: chunked\r\n"),
        Framing::NoBody | Framing::UntilClose => {}
    }
    if !keep_alive {
        out.extend_from_slice(b"Connection: close\r\n");
    } else if !date.keep_alive_lines().is_empty() {
        out.extend_from_slice(date.keep_alive_lines());
    } else if minor == 0 {
        out.extend_from_slice(b"Connection: keep-alive\r\n");
    }
    out.extend_from_slice(b"\r\n");
    Encoded {
        framing,
        keep_alive,
    }
}

/// Makes a head already encoded at the start of `out` say `Connection: close` (server shutdown decided it after
/// the head was written): a `Connection: keep-alive` line is replaced (and the `Keep-Alive` line after it goes),
/// else the line is added before the blank line. The body after the head is not touched.
pub fn mark_close(out: &mut Vec<u8>) {
    let Some(end) = out.windows(4).position(|w| w == b"\r\n\r\n") else {
        return;
    };
    let head = &out[..end + 2];
    if let Some(p) = head
        .windows(24)
        .position(|w| w == b"Connection: keep-alive\r\n")
    {
        let mut to = p + 24;
        if head[to..].starts_with(b"Keep-Alive: ") {
            if let Some(eol) = head[to..].windows(2).position(|w| w == b"\r\n") {
                to += eol + 2;
            }
        }
        out.splice(p..to, b"Connection: close\r\n".iter().copied());
    } else if !head.windows(19).any(|w| w == b"Connection: close\r\n") {
        out.splice(end + 2..end + 2, b"Connection: close\r\n".iter().copied());
    }
}

/// The `(name, value)` pairs of validated `Name: value\r\n` lines (values trimmed of surrounding blanks), for a
/// protocol that sends fields rather than lines (HTTP/2). Lines without a colon are skipped.
pub fn field_lines(lines: &[u8]) -> impl Iterator<Item = (&[u8], &[u8])> {
    lines.split(|&b| b == b'\n').filter_map(|l| {
        let l = l.strip_suffix(b"\r").unwrap_or(l);
        let colon = l.iter().position(|&b| b == b':')?;
        Some((&l[..colon], trim(&l[colon + 1..])))
    })
}

fn trim(v: &[u8]) -> &[u8] {
    let start = v
        .iter()
        .position(|&b| b != b' ' && b != b'\t')
        .unwrap_or(v.len());
    let end = v
        .iter()
        .rposition(|&b| b != b' ' && b != b'\t')
        .map_or(start, |e| e + 1);
    &v[start..end]
}

/// An HTTP/1.1 response head read back: the inverse of [`encode_head`], for clients, tests and the fuzzer (whose
/// oracle it is: encode, parse, same head).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParsedResponse<'a> {
    /// The status code.
    pub status: u16,
    /// The reason phrase as sent.
    pub reason: &'a [u8],
    /// Every field in order, framing and connection fields included.
    pub fields: Vec<(&'a [u8], &'a [u8])>,
    /// How the body that follows is delimited (RFC 9112 §6.3, for a response to a GET).
    pub framing: Framing,
    /// The head says `Connection: close`.
    pub close: bool,
    /// Bytes of the head, through its blank line.
    pub head_len: usize,
}

/// Parses the HTTP/1.1 response head at the start of `buf`. Ok(None): the head is not complete yet. Err(()):
/// not a response head, or its framing fields are contradictory (RFC 9112 §6.3: a Content-Length that is not
/// one number, or Transfer-Encoding whose last coding is not chunked).
#[allow(clippy::result_unit_err)]
pub fn parse_response_head(buf: &[u8]) -> Result<Option<ParsedResponse<'_>>, ()> {
    let mut storage = [httparse::EMPTY_HEADER; 128];
    match parse_with(buf, &mut storage) {
        // Many Set-Cookie lines, say: a heap array for the rare head with more fields.
        Err(Some(httparse::Error::TooManyHeaders)) => {
            parse_with(buf, &mut vec![httparse::EMPTY_HEADER; MAX_RESPONSE_FIELDS]).map_err(|_| ())
        }
        r => r.map_err(|_| ()),
    }
}

/// Fields a response head may have for [`parse_response_head`].
const MAX_RESPONSE_FIELDS: usize = 4096;

fn parse_with<'a>(
    buf: &'a [u8],
    storage: &mut [httparse::Header<'a>],
) -> Result<Option<ParsedResponse<'a>>, Option<httparse::Error>> {
    let mut res = httparse::Response::new(storage);
    let head_len = match res.parse(buf) {
        Ok(httparse::Status::Complete(n)) => n,
        Ok(httparse::Status::Partial) => return Ok(None),
        Err(e) => return Err(Some(e)),
    };
    let status = res.code.ok_or(None)?;
    // The reason is the rest of the status line, which ends at its LF (a CR before it is not part of it); looking
    // further (the first CR anywhere) read a head with bare LF line ends differently depending on what followed.
    let nl = buf[..head_len]
        .iter()
        .position(|&b| b == b'\n')
        .ok_or(None)?;
    let line = buf[..nl].strip_suffix(b"\r").unwrap_or(&buf[..nl]);
    let reason_start = line.iter().position(|&b| b == b' ').ok_or(None)? + 5;
    let reason = line.get(reason_start..).unwrap_or(b"");
    let mut fields = Vec::with_capacity(res.headers.len());
    let (mut length, mut chunked, mut te, mut close) = (None, false, false, false);
    for h in res.headers.iter() {
        let (name, value) = (h.name.as_bytes(), h.value);
        fields.push((name, value));
        if name.eq_ignore_ascii_case(b"content-length") {
            let n: u64 = std::str::from_utf8(value)
                .ok()
                .and_then(|v| v.parse().ok())
                .ok_or(None)?;
            if length.is_some_and(|l| l != n) {
                return Err(None);
            }
            length = Some(n);
        } else if name.eq_ignore_ascii_case(b"transfer-encoding") {
            te = true;
            chunked = value
                .rsplit(|&b| b == b',')
                .next()
                .is_some_and(|c| trim(c).eq_ignore_ascii_case(b"chunked"));
        } else if name.eq_ignore_ascii_case(b"connection") {
            close |= value
                .split(|&b| b == b',')
                .any(|t| trim(t).eq_ignore_ascii_case(b"close"));
        }
    }
    if te && !chunked {
        return Err(None);
    }
    let framing = if has_no_body(status) {
        Framing::NoBody
    } else if chunked {
        Framing::Chunked
    } else if let Some(n) = length {
        Framing::Length(n)
    } else {
        Framing::UntilClose
    };
    Ok(Some(ParsedResponse {
        status,
        reason,
        fields,
        framing,
        close,
        head_len,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::{Duration, UNIX_EPOCH};

    const D: &str = "Date: Sat, 21 Nov 2026 06:26:11 GMT\r\n";

    fn date() -> DateCache {
        DateCache::new(UNIX_EPOCH + Duration::from_secs(1_795_242_371))
    }

    fn enc(head: ResponseHead<'_>, minor: u8, keep_alive: bool) -> (String, Encoded) {
        let mut out = Vec::new();
        let e = encode_head(&mut out, &head, &date(), minor, keep_alive);
        (String::from_utf8(out).unwrap(), e)
    }

    fn head(status: u16, body_len: Option<u64>) -> ResponseHead<'static> {
        ResponseHead {
            status,
            reason: b"",
            content_type: b"",
            fields: b"",
            body_len,
        }
    }

    #[test]
    fn framing_by_status_length_and_version() {
        assert_eq!(framing(200, Some(5), 1), Framing::Length(5));
        assert_eq!(framing(200, None, 1), Framing::Chunked);
        assert_eq!(framing(200, None, 0), Framing::UntilClose);
        for s in [100, 101, 199, 204, 304] {
            assert_eq!(framing(s, Some(5), 1), Framing::NoBody, "{s}");
            assert_eq!(framing(s, None, 0), Framing::NoBody, "{s}");
        }
        assert_eq!(framing(205, None, 1), Framing::Chunked);
    }

    #[test]
    fn heads_exact_bytes() {
        let (s, e) = enc(head(200, Some(2)), 1, true);
        assert_eq!(
            s,
            format!("HTTP/1.1 200 OK\r\n{D}Content-Length: 2\r\n\r\n")
        );
        assert_eq!(
            e,
            Encoded {
                framing: Framing::Length(2),
                keep_alive: true
            }
        );

        let (s, e) = enc(head(200, None), 0, true);
        assert_eq!(
            s,
            format!("HTTP/1.1 200 OK\r\n{D}Connection: close\r\n\r\n")
        );
        assert_eq!(
            e,
            Encoded {
                framing: Framing::UntilClose,
                keep_alive: false
            }
        );

        let (s, _) = enc(head(200, Some(0)), 0, true);
        assert_eq!(
            s,
            format!("HTTP/1.1 200 OK\r\n{D}Content-Length: 0\r\nConnection: keep-alive\r\n\r\n")
        );

        let (s, e) = enc(head(304, None), 0, true);
        assert_eq!(
            s,
            format!("HTTP/1.1 304 Not Modified\r\n{D}Connection: keep-alive\r\n\r\n")
        );
        assert!(e.keep_alive, "a bodiless answer needs no close to end it");

        let h = ResponseHead {
            status: 201,
            reason: b"Made It",
            content_type: b"application/json",
            fields: b"X-A: 1\r\nX-B: 2\r\n",
            body_len: Some(10),
        };
        let (s, _) = enc(h, 1, false);
        assert_eq!(
            s,
            format!(
                "HTTP/1.1 201 Made It\r\n{D}Content-Type: application/json\r\nX-A: 1\r\nX-B: 2\r\n\
                 Content-Length: 10\r\nConnection: close\r\n\r\n"
            )
        );
    }

    #[test]
    fn a_reason_a_status_line_cannot_hold_gets_the_standard_one() {
        for bad in [&b"a\r\nX: y"[..], b"a\nb", b"\x7f", b"\x00"] {
            let h = ResponseHead {
                reason: bad,
                ..head(404, Some(0))
            };
            let (s, _) = enc(h, 1, true);
            assert!(s.starts_with("HTTP/1.1 404 Not Found\r\n"), "{s:?}");
        }
        let h = ResponseHead {
            reason: b"caf\xc3\xa9 \tok",
            ..head(200, Some(0))
        };
        let mut out = Vec::new();
        encode_head(&mut out, &h, &date(), 1, true);
        assert!(out.starts_with(b"HTTP/1.1 200 caf\xc3\xa9 \tok\r\n"));
        // Out of range: 500 and its phrase, never a malformed status line.
        let h = ResponseHead {
            reason: b"Fine",
            ..head(1000, Some(0))
        };
        let (s, _) = enc(h, 1, true);
        assert!(
            s.starts_with("HTTP/1.1 500 Internal Server Error\r\n"),
            "{s}"
        );
    }

    #[test]
    fn keep_alive_lines_as_node_writes_them() {
        let mut d = date();
        d.set_keep_alive(Some(5));
        let head = ResponseHead {
            status: 200,
            reason: b"",
            content_type: b"",
            fields: b"",
            body_len: Some(2),
        };
        for minor in [0, 1] {
            let mut out = Vec::new();
            assert!(encode_head(&mut out, &head, &d, minor, true).keep_alive);
            let s = String::from_utf8(out).unwrap();
            assert!(
                s.ends_with(
                    "Content-Length: 2\r\nConnection: keep-alive\r\nKeep-Alive: timeout=5\r\n\r\n"
                ),
                "{s}"
            );
        }
        // A closing response says only that.
        let mut out = Vec::new();
        encode_head(&mut out, &head, &d, 1, false);
        let s = String::from_utf8(out).unwrap();
        assert!(
            s.ends_with("Content-Length: 2\r\nConnection: close\r\n\r\n")
                && !s.contains("Keep-Alive"),
            "{s}"
        );
    }

    #[test]
    fn mark_close_inserts_replaces_or_keeps() {
        let cases: &[(&str, &str)] = &[
            (
                "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok",
                "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok",
            ),
            (
                "HTTP/1.1 200 OK\r\nConnection: keep-alive\r\nContent-Length: 2\r\n\r\nok",
                "HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 2\r\n\r\nok",
            ),
            (
                "HTTP/1.1 200 OK\r\nConnection: close\r\n\r\n",
                "HTTP/1.1 200 OK\r\nConnection: close\r\n\r\n",
            ),
            (
                "HTTP/1.1 200 OK\r\nConnection: keep-alive\r\nKeep-Alive: timeout=5\r\nContent-Length: 2\r\n\r\nok",
                "HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 2\r\n\r\nok",
            ),
            (
                "HTTP/1.1 200 OK\r\n\r\nConnection: keep-alive\r\n",
                "HTTP/1.1 200 OK\r\nConnection: close\r\n\r\nConnection: keep-alive\r\n",
            ),
        ];
        for (input, want) in cases {
            let mut out = input.as_bytes().to_vec();
            mark_close(&mut out);
            assert_eq!(String::from_utf8(out).unwrap(), *want);
        }
    }

    #[test]
    fn field_lines_split_and_trim() {
        let got: Vec<_> = field_lines(b"A: 1\r\nB:  two  \r\nno colon\r\nC:\r\n").collect();
        assert_eq!(got, [(&b"A"[..], &b"1"[..]), (b"B", b"two"), (b"C", b"")]);
        assert_eq!(field_lines(b"").count(), 0);
    }

    #[test]
    fn encoded_heads_parse_back_to_what_was_encoded() {
        let h = ResponseHead {
            status: 418,
            reason: b"I'm short",
            content_type: b"text/x",
            fields: b"A: 1\r\nB: two words\r\n",
            body_len: None,
        };
        for (minor, keep_alive) in [(1, true), (1, false), (0, true), (0, false)] {
            let mut out = Vec::new();
            let e = encode_head(&mut out, &h, &date(), minor, keep_alive);
            out.extend_from_slice(b"body");
            let p = parse_response_head(&out).unwrap().unwrap();
            assert_eq!((p.status, p.reason), (418, &b"I'm short"[..]));
            assert_eq!(p.framing, e.framing);
            assert_eq!(p.close, !e.keep_alive);
            assert_eq!(&out[p.head_len..], b"body");
            let names: Vec<&[u8]> = p.fields.iter().map(|f| f.0).collect();
            assert_eq!(&names[..4], [&b"Date"[..], b"Content-Type", b"A", b"B"]);
        }
        assert_eq!(
            parse_response_head(b"HTTP/1.1 200 OK\r\nX: y\r\n"),
            Ok(None)
        );
        // Bare LF line ends: the reason is the status line's rest, whatever comes after the head.
        for tail in [&b""[..], b"body\r\n"] {
            let mut bytes = b"HTTP/1.1 404 Gone Away\nX: y\n\n".to_vec();
            bytes.extend_from_slice(tail);
            let p = parse_response_head(&bytes).unwrap().unwrap();
            assert_eq!(
                (p.status, p.reason, p.head_len),
                (404, &b"Gone Away"[..], 29)
            );
        }
        assert!(parse_response_head(
            b"HTTP/1.1 200 OK\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n"
        )
        .is_err());
        assert!(
            parse_response_head(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip\r\n\r\n").is_err()
        );
    }

    #[test]
    fn heads_with_many_fields_parse() {
        let mut head = b"HTTP/1.1 200 OK\r\n".to_vec();
        for i in 0..300 {
            head.extend_from_slice(format!("Set-Cookie: c{i}=1\r\n").as_bytes());
        }
        head.extend_from_slice(b"Content-Length: 0\r\n\r\n");
        let p = parse_response_head(&head).unwrap().unwrap();
        assert_eq!(p.fields.len(), 301);
        assert_eq!(p.framing, Framing::Length(0));
    }

    #[test]
    fn no_body_statuses() {
        for s in [100, 101, 199, 204, 304] {
            assert!(has_no_body(s), "{s}");
        }
        for s in [200, 201, 205, 302, 404, 500] {
            assert!(!has_no_body(s), "{s}");
        }
    }
}
