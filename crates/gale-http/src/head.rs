//! Request-head parsing: httparse for syntax, then limits, target splitting and header
//! semantics, returning spans into the caller's buffer so nothing is copied or allocated.

use std::mem::MaybeUninit;

use crate::diagnose::{self, Version};
use crate::error::{Error, Kind};
use crate::fields::{self, BodyKind};
use crate::limits::{incomplete, request_line_error, Limits, HEADER_CAP};
use crate::span::{HeaderSpan, Span};
use crate::target;

/// A parsed request head. Spans index the buffer given to [`parse_head`].
#[derive(Clone, Debug)]
pub struct RequestHead {
    /// Bytes of the buffer taken by the head, through the blank line; the body or the next
    /// pipelined request starts here.
    pub head_len: usize,
    /// Request method, case-sensitive as sent.
    pub method: Span,
    /// The raw request-target.
    pub target: Span,
    /// Target up to `?`. For absolute-form `http://h/p?q` it is `/p` (empty for `http://h`:
    /// treat as `/`), for `*` it is `*`, and for CONNECT the whole authority.
    pub path: Span,
    /// After the first `?`, without it.
    pub query: Option<Span>,
    /// HTTP minor version: 0 or 1.
    pub minor_version: u8,
    /// Body framing.
    pub body: BodyKind,
    /// Whether the connection may serve another request after this one.
    pub keep_alive: bool,
    /// `Expect: 100-continue` on an HTTP/1.1 request (ignored on HTTP/1.0, per RFC 9110).
    pub expect_continue: bool,
    /// An HTTP/1.1 request with `Connection: upgrade` and an `Upgrade` header.
    pub upgrade: bool,
}

/// Parses a request head at the start of `buf`.
///
/// Returns `Ok(None)` when the head is incomplete but still within `limits`: read more bytes
/// and call again with the grown buffer. `headers` is cleared and filled with every header
/// in order. Any `Err` means: answer with [`Error::status`] and close the connection.
///
/// ```
/// use gale_http::{parse_head, BodyKind, Limits};
///
/// let buf = b"POST /items?id=7 HTTP/1.1\r\nHost: example.com\r\nContent-Length: 2\r\n\r\nhi";
/// let mut headers = Vec::new();
/// let head = parse_head(buf, &Limits::default(), &mut headers).unwrap().unwrap();
/// assert_eq!(head.method.get(buf), b"POST");
/// assert_eq!(head.path.get(buf), b"/items");
/// assert_eq!(head.query.unwrap().get(buf), b"id=7");
/// assert_eq!(head.body, BodyKind::Length(2));
/// assert_eq!(&buf[head.head_len..], b"hi");
/// assert_eq!(headers[0].value.get(buf), b"example.com");
///
/// // Incomplete: read more.
/// assert!(parse_head(&buf[..20], &Limits::default(), &mut headers).unwrap().is_none());
/// ```
pub fn parse_head(
    buf: &[u8],
    limits: &Limits,
    headers: &mut Vec<HeaderSpan>,
) -> Result<Option<RequestHead>, Error> {
    parse(buf, limits, headers).map_err(|e| {
        // A load balancer's PROXY header sent to a server not told to expect one: say so.
        if e.is_parse() && crate::proxy::looks_like_proxy_header(buf) {
            Error::new(Kind::UnexpectedProxyHeader)
        } else {
            e
        }
    })
}

fn parse(
    buf: &[u8],
    limits: &Limits,
    headers: &mut Vec<HeaderSpan>,
) -> Result<Option<RequestHead>, Error> {
    headers.clear();
    let max_headers = limits.max_headers.min(HEADER_CAP);
    let mut storage = [MaybeUninit::<httparse::Header<'_>>::uninit(); HEADER_CAP];
    let mut req = httparse::Request::new(&mut []);
    let parsed = httparse::ParserConfig::default().parse_request_with_uninit_headers(
        &mut req,
        buf,
        &mut storage[..max_headers],
    );
    let head_len = match parsed {
        Ok(httparse::Status::Complete(n)) => n,
        Ok(httparse::Status::Partial) => {
            return incomplete(buf, req.method, req.path, limits).map(|()| None)
        }
        Err(httparse::Error::Version) => {
            return match diagnose::classify_version(buf) {
                Version::Unsupported => Err(Error::new(Kind::VersionNotSupported)),
                Version::Incomplete => incomplete(buf, req.method, req.path, limits).map(|()| None),
                Version::Malformed => Err(Error::new(Kind::BadVersion)),
            }
        }
        Err(e) => return Err(syntax_error(e, buf, max_headers)),
    };

    // httparse sets every field of a complete request.
    let (Some(method), Some(uri), Some(minor)) = (req.method, req.path, req.version) else {
        return Err(Error::new(Kind::BadVersion));
    };
    if let Some(e) = request_line_error(buf, Some(method), Some(uri), limits) {
        return Err(e);
    }
    // Spans are u32: a head past 4 GiB is refused whatever the configured limit.
    if head_len > limits.max_head_bytes || u32::try_from(head_len).is_err() {
        return Err(Error::with_limit(
            Kind::HeadTooLarge,
            limits.max_head_bytes as u64,
        ));
    }

    let span = |s: &[u8]| {
        let start = s.as_ptr() as usize - buf.as_ptr() as usize;
        // In range: every slice httparse returns lies within buf[..head_len] < 2^32.
        Span {
            start: start as u32,
            end: (start + s.len()) as u32,
        }
    };
    headers.extend(req.headers.iter().map(|h| HeaderSpan {
        name: span(h.name.as_bytes()),
        value: span(h.value),
    }));

    let target = span(uri.as_bytes());
    let ((path_start, path_end), query) = target::split_target(method.as_bytes(), uri.as_bytes())?;
    let sub = |start: usize, end: usize| Span {
        start: target.start + start as u32,
        end: target.start + end as u32,
    };

    let f = fields::analyze(
        minor,
        limits.strict_host,
        req.headers.iter().map(|h| (h.name.as_bytes(), h.value)),
    )?;
    let keep_alive = if minor == 1 {
        !f.conn_close
    } else {
        f.conn_keep_alive && !f.conn_close
    };

    Ok(Some(RequestHead {
        head_len,
        method: span(method.as_bytes()),
        target,
        path: sub(path_start, path_end),
        query: query.map(|(s, e)| sub(s, e)),
        minor_version: minor,
        body: f.body.unwrap_or(BodyKind::None),
        keep_alive,
        expect_continue: minor == 1 && f.expect_continue,
        upgrade: minor == 1 && f.conn_upgrade && f.upgrade_header,
    }))
}

/// Maps an httparse syntax error (other than `Version`) to our kinds.
fn syntax_error(e: httparse::Error, buf: &[u8], max_headers: usize) -> Error {
    match e {
        httparse::Error::Token => diagnose::token_error(buf),
        httparse::Error::HeaderName => diagnose::header_name_error(buf),
        httparse::Error::HeaderValue => Error::new(Kind::BadHeaderValue),
        httparse::Error::TooManyHeaders => {
            Error::with_limit(Kind::TooManyHeaders, max_headers as u64)
        }
        httparse::Error::NewLine | httparse::Error::Status | httparse::Error::Version => {
            Error::new(Kind::BadLineEnding)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(buf: &[u8]) -> Result<Option<RequestHead>, Error> {
        parse_head(buf, &Limits::default(), &mut Vec::new())
    }

    #[test]
    fn simple_get() {
        let buf =
            b"GET /a/b?x=1 HTTP/1.1\r\nHost: example.com\r\nAccept:  */* \r\nX-Empty:\r\n\r\n";
        let mut headers = vec![
            HeaderSpan {
                name: Span::default(),
                value: Span::default()
            };
            3
        ];
        let head = parse_head(buf, &Limits::default(), &mut headers)
            .unwrap()
            .unwrap();
        assert_eq!(head.head_len, buf.len());
        assert_eq!(head.method.get(buf), b"GET");
        assert_eq!(head.target.get(buf), b"/a/b?x=1");
        assert_eq!(head.path.get(buf), b"/a/b");
        assert_eq!(head.query.map(|q| q.get(buf)), Some(&b"x=1"[..]));
        assert_eq!(head.minor_version, 1);
        assert_eq!(head.body, BodyKind::None);
        assert!(head.keep_alive && !head.expect_continue && !head.upgrade);
        let fields: Vec<(&[u8], &[u8])> = headers
            .iter()
            .map(|h| (h.name.get(buf), h.value.get(buf)))
            .collect();
        let want: &[(&[u8], &[u8])] = &[
            (b"Host", b"example.com"),
            (b"Accept", b"*/*"),
            (b"X-Empty", b""),
        ];
        assert_eq!(fields, want);
        assert!(headers[2].value.is_empty() && headers[0].value.len() == 11);
    }

    #[test]
    fn incomplete_at_every_split_point() {
        let requests: &[&[u8]] = &[
            b"GET / HTTP/1.1\r\nHost: a\r\n\r\n",
            b"\r\nPOST /x?y HTTP/1.0\r\nContent-Length: 3\r\nConnection: keep-alive\r\n\r\n",
            b"PUT /u HTTP/1.1\nHost: h\nTransfer-Encoding: chunked\n\n",
            b"OPTIONS * HTTP/1.1\r\nHost: h\r\nExpect: 100-continue\r\nX: \t v \t\r\n\r\n",
        ];
        for req in requests {
            assert_eq!(parse(req).unwrap().unwrap().head_len, req.len());
            for split in 0..req.len() {
                let got = parse(&req[..split]);
                assert!(
                    matches!(got, Ok(None)),
                    "{:?} at {split}: {got:?}",
                    &req[..split]
                );
            }
        }
    }

    #[test]
    fn pipelined_requests() {
        let buf = b"GET /1 HTTP/1.1\r\nHost: a\r\n\r\nPOST /2 HTTP/1.1\r\nHost: a\r\nContent-Length: 2\r\n\r\nhi";
        let first = parse(buf).unwrap().unwrap();
        assert_eq!(first.head_len, 28);
        assert_eq!(first.path.get(buf), b"/1");
        let rest = &buf[first.head_len..];
        let second = parse(rest).unwrap().unwrap();
        assert_eq!(second.path.get(rest), b"/2");
        assert_eq!(second.body, BodyKind::Length(2));
        assert_eq!(&rest[second.head_len..], b"hi");
    }

    #[test]
    fn persistence_and_upgrade() {
        // (version, extra header lines, keep_alive, upgrade, expect_continue)
        let table: &[(&str, &str, bool, bool, bool)] = &[
            ("1.1", "", true, false, false),
            ("1.1", "Connection: close\r\n", false, false, false),
            (
                "1.1",
                "Connection: Keep-Alive, Upgrade\r\nUpgrade: websocket\r\n",
                true,
                true,
                false,
            ),
            (
                "1.1",
                "Connection: Keep-Alive, Upgrade\r\n",
                true,
                false,
                false,
            ),
            ("1.1", "Upgrade: websocket\r\n", true, false, false),
            (
                "1.1",
                "Connection: upgrade, close\r\nUpgrade: h2c\r\n",
                false,
                true,
                false,
            ),
            ("1.1", "Expect: 100-continue\r\n", true, false, true),
            ("1.0", "", false, false, false),
            ("1.0", "Connection: keep-alive\r\n", true, false, false),
            (
                "1.0",
                "Connection: Keep-Alive, Upgrade\r\nUpgrade: websocket\r\n",
                true,
                false,
                false,
            ),
            (
                "1.0",
                "Connection: keep-alive, close\r\n",
                false,
                false,
                false,
            ),
            ("1.0", "Connection: close\r\n", false, false, false),
            ("1.0", "Expect: 100-continue\r\n", false, false, false),
        ];
        for (version, extra, keep_alive, upgrade, expect) in table {
            let req = format!("GET / HTTP/{version}\r\nHost: a\r\n{extra}\r\n");
            let head = parse(req.as_bytes()).unwrap().unwrap();
            let got = (head.keep_alive, head.upgrade, head.expect_continue);
            assert_eq!(got, (*keep_alive, *upgrade, *expect), "{req:?}");
            assert_eq!(head.minor_version, u8::from(*version == "1.1"));
        }
    }

    #[test]
    fn body_kinds() {
        let table: &[(&str, BodyKind)] = &[
            ("", BodyKind::None),
            ("Content-Length: 0\r\n", BodyKind::None),
            (
                "Content-Length: 10\r\nContent-Length: 10\r\n",
                BodyKind::Length(10),
            ),
            ("Transfer-Encoding: Chunked\r\n", BodyKind::Chunked),
        ];
        for (extra, body) in table {
            let req = format!("POST / HTTP/1.1\r\nHost: a\r\n{extra}\r\n");
            assert_eq!(
                parse(req.as_bytes()).unwrap().unwrap().body,
                *body,
                "{req:?}"
            );
        }
    }

    #[test]
    fn rejected_framing() {
        use crate::error::Kind::*;
        let table: &[(&str, Kind, u16)] = &[
            ("Content-Length: +5\r\n", BadContentLength, 400),
            ("Content-Length: 5 5\r\n", BadContentLength, 400),
            ("Content-Length: -1\r\n", BadContentLength, 400),
            (
                "Content-Length: 99999999999999999999\r\n",
                BadContentLength,
                400,
            ),
            (
                "Content-Length: 1\r\nContent-Length: 2\r\n",
                ConflictingContentLength,
                400,
            ),
            ("Content-Length: 1, 2\r\n", ConflictingContentLength, 400),
            (
                "Content-Length: 3\r\nTransfer-Encoding: chunked\r\n",
                ContentLengthWithTransferEncoding,
                400,
            ),
            (
                "Transfer-Encoding: chunked, gzip\r\n",
                BadTransferEncoding,
                400,
            ),
            ("Host: b\r\n", BadHost, 400),
            ("Expect: 200-ok\r\n", ExpectationFailed, 417),
        ];
        for (extra, kind, status) in table {
            let req = format!("POST / HTTP/1.1\r\nHost: a\r\n{extra}\r\n");
            let err = parse(req.as_bytes()).unwrap_err();
            assert_eq!((err.kind(), err.status()), (*kind, *status), "{req:?}");
        }
        let other: &[(&str, Kind)] = &[
            ("GET / HTTP/1.1\r\n\r\n", MissingHost),
            (
                "POST / HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n",
                BadTransferEncoding,
            ),
        ];
        for (req, kind) in other {
            assert_eq!(parse(req.as_bytes()).unwrap_err().kind(), *kind, "{req:?}");
        }
    }

    #[test]
    fn headers_vec_is_cleared() {
        let mut headers = Vec::new();
        let limits = Limits::default();
        parse_head(
            b"GET / HTTP/1.1\r\nHost: a\r\nA: b\r\n\r\n",
            &limits,
            &mut headers,
        )
        .unwrap();
        assert_eq!(headers.len(), 2);
        parse_head(b"GET / HTTP/1.1\r\nHost: a\r\n", &limits, &mut headers).unwrap();
        assert!(headers.is_empty());
        parse_head(b"GET / HTTP/1.0\r\n\r\n", &limits, &mut headers).unwrap();
        assert!(headers.is_empty());
    }
}
