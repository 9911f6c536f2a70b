//! Whole responses the server writes by itself: a fixed body (`write_simple_response`) and the answer to a protocol
//! error (`write_error_response`), both encoded by [`crate::encode_head`].

use crate::date::DateCache;
use crate::encode::{encode_head, Framing, ResponseHead};
use crate::error::Error;

/// Appends a complete response with a fixed body, encoded by [`crate::encode_head`] (status line, Date,
/// Content-Type unless empty, `extra_headers` verbatim as ready-made `Name: value\r\n` lines, Content-Length,
/// `Connection: close` if `close`, the blank line), then `body` unless `head_only`.
///
/// 1xx, 204 and 304 responses get neither Content-Length nor body, as RFC 9110 requires.
///
/// ```
/// use gale_http::{write_simple_response, DateCache};
/// use std::time::{Duration, UNIX_EPOCH};
///
/// let date = DateCache::new(UNIX_EPOCH + Duration::from_secs(784111777));
/// let mut out = Vec::new();
/// write_simple_response(&mut out, 404, &date, b"text/plain", b"", b"nope", false, false);
/// assert_eq!(
///     out,
///     b"HTTP/1.1 404 Not Found\r\nDate: Sun, 06 Nov 1994 08:49:37 GMT\r\n\
///       Content-Type: text/plain\r\nContent-Length: 4\r\n\r\nnope"
/// );
/// ```
#[allow(clippy::too_many_arguments)]
pub fn write_simple_response(
    out: &mut Vec<u8>,
    status: u16,
    date: &DateCache,
    content_type: &[u8],
    extra_headers: &[u8],
    body: &[u8],
    close: bool,
    head_only: bool,
) {
    let head = ResponseHead {
        status,
        reason: b"",
        content_type,
        fields: extra_headers,
        body_len: Some(body.len() as u64),
    };
    let e = encode_head(out, &head, date, 1, !close);
    if !head_only && e.framing != Framing::NoBody {
        out.extend_from_slice(body);
    }
}

/// Appends the response for a protocol error: `err.status()`, a `text/plain` body holding
/// `err.message()`, and `Connection: close` (the connection must be closed after it).
pub fn write_error_response(out: &mut Vec<u8>, err: &Error, date: &DateCache) {
    write_simple_response(
        out,
        err.status(),
        date,
        b"text/plain; charset=utf-8",
        b"",
        err.message().as_bytes(),
        true,
        false,
    );
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::{Duration, UNIX_EPOCH};

    #[test]
    fn simple_responses_exact_bytes() {
        let date = DateCache::new(UNIX_EPOCH + Duration::from_secs(1_795_242_371));
        const D: &str = "Date: Sat, 21 Nov 2026 06:26:11 GMT\r\n";
        // (status, content type, extra, body, close, head_only, expected)
        let table: &[(u16, &str, &str, &str, bool, bool, String)] = &[
            (200, "text/plain", "", "hi", false, false,
             format!("HTTP/1.1 200 OK\r\n{D}Content-Type: text/plain\r\nContent-Length: 2\r\n\r\nhi")),
            (200, "", "X-A: 1\r\n", "hi", true, false,
             format!("HTTP/1.1 200 OK\r\n{D}X-A: 1\r\nContent-Length: 2\r\nConnection: close\r\n\r\nhi")),
            (200, "text/plain", "", "hi", false, true,
             format!("HTTP/1.1 200 OK\r\n{D}Content-Type: text/plain\r\nContent-Length: 2\r\n\r\n")),
            (500, "", "", "", false, false,
             format!("HTTP/1.1 500 Internal Server Error\r\n{D}Content-Length: 0\r\n\r\n")),
            (204, "", "", "ignored", false, false, format!("HTTP/1.1 204 No Content\r\n{D}\r\n")),
            (304, "", "ETag: \"a\"\r\n", "", false, false,
             format!("HTTP/1.1 304 Not Modified\r\n{D}ETag: \"a\"\r\n\r\n")),
        ];
        for (status, ct, extra, body, close, head_only, want) in table {
            let mut out = Vec::new();
            write_simple_response(
                &mut out,
                *status,
                &date,
                ct.as_bytes(),
                extra.as_bytes(),
                body.as_bytes(),
                *close,
                *head_only,
            );
            assert_eq!(String::from_utf8(out).unwrap(), *want);
        }
    }

    #[test]
    fn error_response() {
        let date = DateCache::new(UNIX_EPOCH + Duration::from_secs(1_795_242_371));
        let err = Error::body_too_large(1000);
        let mut out = Vec::new();
        write_error_response(&mut out, &err, &date);
        let msg = err.message();
        let want = format!(
            "HTTP/1.1 413 Content Too Large\r\nDate: Sat, 21 Nov 2026 06:26:11 GMT\r\n\
             Content-Type: text/plain; charset=utf-8\r\nContent-Length: {}\r\n\
             Connection: close\r\n\r\n{msg}",
            msg.len()
        );
        assert_eq!(String::from_utf8(out).unwrap(), want);
    }
}
