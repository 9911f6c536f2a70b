//! Size limits for request heads and the early checks that refuse an incomplete head as soon
//! as it can no longer fit, so a slow or hostile client cannot make the server buffer forever.

use crate::diagnose;
use crate::error::{Error, Kind};

/// Header-array size on the stack; `Limits::max_headers` is capped to it.
pub(crate) const HEADER_CAP: usize = 1024;
/// Slack over `max_uri_bytes` for method, spaces and version while the request line is open.
const REQUEST_LINE_SLACK: usize = 64;

/// Size limits applied by [`crate::parse_head`].
#[derive(Clone, Debug)]
pub struct Limits {
    /// Request line, headers and their CRLFs, through the blank line. Default 16 KiB.
    pub max_head_bytes: usize,
    /// Number of header fields. Default 100; values above 1024 act as 1024.
    pub max_headers: usize,
    /// Length of the request-target. Default 8 KiB.
    pub max_uri_bytes: usize,
    /// Refuse a Host value that is not `host[:port]` (RFC 9112 §3.2). Default true; off, any
    /// value passes as on node:http (a missing or repeated Host on HTTP/1.1 is refused either way).
    pub strict_host: bool,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_head_bytes: 16 * 1024,
            max_headers: 100,
            max_uri_bytes: 8 * 1024,
            strict_host: true,
        }
    }
}

/// The head is not complete yet: the error when it can no longer fit (the caller then asks for more bytes).
/// `method` and `uri` are what httparse got through so far.
pub(crate) fn incomplete(
    buf: &[u8],
    method: Option<&str>,
    uri: Option<&str>,
    limits: &Limits,
) -> Result<(), Error> {
    if let Some(e) = request_line_error(buf, method, uri, limits) {
        return Err(e);
    }
    if buf.len() > limits.max_head_bytes {
        return Err(Error::with_limit(
            Kind::HeadTooLarge,
            limits.max_head_bytes as u64,
        ));
    }
    Ok(())
}

pub(crate) fn uri_too_long(limits: &Limits) -> Error {
    Error::with_limit(Kind::UriTooLong, limits.max_uri_bytes as u64)
}

/// Whether the request line is too long, whether or not it is complete: its target is over
/// `max_uri_bytes` (414), or its method over `max_uri_bytes + 64` (501, naming the method), the
/// slack an open request line gets before its method ends. Judging partial and complete lines
/// alike means the answer never depends on how the bytes were split into reads.
pub(crate) fn request_line_error(
    buf: &[u8],
    method: Option<&str>,
    uri: Option<&str>,
    limits: &Limits,
) -> Option<Error> {
    let max_uri = limits.max_uri_bytes;
    let max_method = max_uri.saturating_add(REQUEST_LINE_SLACK);
    let method_too_long = |m: &[u8]| Error::method_too_long(m, max_method as u64);
    match (method, uri) {
        (Some(method), _) if method.len() > max_method => Some(method_too_long(method.as_bytes())),
        (Some(_), Some(uri)) => (uri.len() > max_uri).then(|| uri_too_long(limits)),
        (Some(method), None) => {
            // The target is open: everything after "METHOD SP" so far belongs to it.
            let target_start = method.as_ptr() as usize - buf.as_ptr() as usize + method.len() + 1;
            (buf.len().saturating_sub(target_start) > max_uri).then(|| uri_too_long(limits))
        }
        (None, _) => {
            // The method is still open: the line so far is all method (token characters, or
            // httparse would have refused it).
            let line = &buf[diagnose::leading_blank_lines(buf)..];
            (line.len() > max_method).then(|| method_too_long(line))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::Kind;
    use crate::parse_head;

    /// Outcome of parsing: complete, incomplete, or the error kind with its limit.
    #[derive(Debug, PartialEq, Eq)]
    enum Got {
        Complete,
        Incomplete,
        Failed(Kind, Option<u64>),
    }

    fn run(buf: &[u8], limits: &Limits) -> Got {
        match parse_head(buf, limits, &mut Vec::new()) {
            Ok(Some(head)) => {
                assert!(head.head_len <= buf.len());
                Got::Complete
            }
            Ok(None) => Got::Incomplete,
            Err(e) => Got::Failed(e.kind(), e.limit()),
        }
    }

    fn limits(head: usize, headers: usize, uri: usize) -> Limits {
        Limits {
            max_head_bytes: head,
            max_headers: headers,
            max_uri_bytes: uri,
            ..Limits::default()
        }
    }

    /// A GET whose target is exactly `uri_len` bytes, with `n` headers (the first is Host).
    fn request(uri_len: usize, n: usize) -> Vec<u8> {
        let mut req = format!("GET /{} HTTP/1.1\r\n", "a".repeat(uri_len - 1));
        for i in 0..n {
            req.push_str(if i == 0 { "Host: h\r\n" } else { "X: y\r\n" });
        }
        req.push_str("\r\n");
        req.into_bytes()
    }

    #[test]
    fn defaults() {
        let l = Limits::default();
        assert_eq!(
            (l.max_head_bytes, l.max_headers, l.max_uri_bytes),
            (16384, 100, 8192)
        );
    }

    #[test]
    fn boundaries() {
        use Got::*;
        let req = request(10, 3); // 10-byte target, 3 headers
        let len = req.len();
        let table: &[(&str, &[u8], Limits, Got)] = &[
            // Head bytes, complete head.
            ("head at limit", &req, limits(len, 100, 100), Complete),
            (
                "head over",
                &req,
                limits(len - 1, 100, 100),
                Failed(Kind::HeadTooLarge, Some(len as u64 - 1)),
            ),
            // Head bytes, incomplete head: a buffer of exactly the limit may still grow into a head.
            (
                "partial at limit",
                &req[..len - 1],
                limits(len - 1, 100, 100),
                Incomplete,
            ),
            (
                "partial over",
                &req[..len - 1],
                limits(len - 2, 100, 100),
                Failed(Kind::HeadTooLarge, Some(len as u64 - 2)),
            ),
            // Header count.
            ("headers at limit", &req, limits(1000, 3, 100), Complete),
            (
                "headers over",
                &req,
                limits(1000, 2, 100),
                Failed(Kind::TooManyHeaders, Some(2)),
            ),
            (
                "no headers allowed",
                &req,
                limits(1000, 0, 100),
                Failed(Kind::TooManyHeaders, Some(0)),
            ),
            // URI, complete head.
            ("uri at limit", &req, limits(1000, 100, 10), Complete),
            (
                "uri over",
                &req,
                limits(1000, 100, 9),
                Failed(Kind::UriTooLong, Some(9)),
            ),
            // URI over while headers are still arriving: refused without waiting.
            (
                "uri over, partial",
                &req[..len - 3],
                limits(1000, 100, 9),
                Failed(Kind::UriTooLong, Some(9)),
            ),
        ];
        for (name, buf, limits, want) in table {
            assert_eq!(run(buf, limits), *want, "{name}");
        }
    }

    #[test]
    fn open_request_line() {
        // max_uri 100: an open target is refused as soon as it passes 100 bytes.
        let l = limits(1000, 100, 100);
        let line = format!("GET /{}", "a".repeat(200));
        assert_eq!(run(&line.as_bytes()[..104], &l), Got::Incomplete);
        assert_eq!(
            run(&line.as_bytes()[..105], &l),
            Got::Failed(Kind::UriTooLong, Some(100))
        );
        // Leading blank lines are not part of the request line, but count toward the head.
        let padded = format!("\r\n\r\n{}", &line[..104]);
        assert_eq!(run(padded.as_bytes(), &l), Got::Incomplete);
        assert_eq!(
            run(padded.as_bytes(), &limits(107, 100, 100)),
            Got::Failed(Kind::HeadTooLarge, Some(107))
        );
        // The method is open until its SP: a line of only method gets the same slack, and a
        // complete method longer than that is refused too, so splitting never changes the answer.
        // An over-long method is 501 Not Implemented (not a limit: `limit()` is None).
        let method = "M".repeat(165);
        assert_eq!(run(&method.as_bytes()[..164], &l), Got::Incomplete);
        assert_eq!(
            run(method.as_bytes(), &l),
            Got::Failed(Kind::MethodTooLong, None)
        );
        let whole = format!("{} / HTTP/1.1\r\nHost: a\r\n\r\n", &method[..164]);
        assert_eq!(run(whole.as_bytes(), &l), Got::Complete);
        let whole = format!("{method} / HTTP/1.1\r\nHost: a\r\n\r\n");
        assert_eq!(
            run(whole.as_bytes(), &l),
            Got::Failed(Kind::MethodTooLong, None)
        );
        // Once the method is done, the open target alone is measured against max_uri.
        let open = format!("{} /{}", &method[..150], "a".repeat(99));
        assert_eq!(run(open.as_bytes(), &l), Got::Incomplete);
        let open = format!("{open}a");
        assert_eq!(
            run(open.as_bytes(), &l),
            Got::Failed(Kind::UriTooLong, Some(100))
        );
        // Default limits: a 9 KiB target with no line end yet is refused early with 414.
        let long = format!("GET /{}", "a".repeat(9 * 1024));
        assert_eq!(
            run(long.as_bytes(), &Limits::default()),
            Got::Failed(Kind::UriTooLong, Some(8192))
        );
    }

    #[test]
    fn over_long_method_is_501_naming_its_start() {
        // 100 KB of method, whole or still open: 501, the message names its first 16 characters.
        let method = "A".repeat(100_000);
        for buf in [
            method.clone(),
            format!("{method} / HTTP/1.1\r\nHost: a\r\n\r\n"),
        ] {
            let err = parse_head(buf.as_bytes(), &Limits::default(), &mut Vec::new()).unwrap_err();
            assert_eq!(err.status(), 501);
            assert_eq!(
                err.message(),
                "Not Implemented: the request method \"AAAAAAAAAAAAAAAA...\" is longer than 8256 \
                 bytes, and no such method is implemented here. Send a method such as GET or POST."
            );
        }
    }

    #[test]
    fn header_count_capped_at_1024() {
        let l = limits(1 << 20, usize::MAX, 100);
        assert_eq!(run(&request(1, 1024), &l), Got::Complete);
        assert_eq!(
            run(&request(1, 1025), &l),
            Got::Failed(Kind::TooManyHeaders, Some(1024))
        );
    }

    #[test]
    fn default_limits_at_boundary() {
        let l = Limits::default();
        let uri_ok = request(8192, 1);
        let uri_over = request(8193, 1);
        assert_eq!(run(&uri_ok, &l), Got::Complete);
        assert_eq!(
            run(&uri_over, &l),
            Got::Failed(Kind::UriTooLong, Some(8192))
        );
        assert_eq!(run(&request(1, 100), &l), Got::Complete);
        assert_eq!(
            run(&request(1, 101), &l),
            Got::Failed(Kind::TooManyHeaders, Some(100))
        );
        // Pad one header value so the head is exactly 16 KiB, then one byte more.
        let base = b"GET / HTTP/1.1\r\nHost: h\r\nX: \r\n\r\n".len();
        let make = |total: usize| {
            format!(
                "GET / HTTP/1.1\r\nHost: h\r\nX: {}\r\n\r\n",
                "v".repeat(total - base)
            )
            .into_bytes()
        };
        assert_eq!(run(&make(16384), &l), Got::Complete);
        assert_eq!(
            run(&make(16385), &l),
            Got::Failed(Kind::HeadTooLarge, Some(16384))
        );
    }
}
