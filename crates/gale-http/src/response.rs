//! Response encoding: status lines, framing headers, chunks, simple and error responses, and
//! the byte-class checks the server uses to validate header names and values from JavaScript.

use crate::date::DateCache;
use crate::error::Error;

/// The terminating zero-size chunk with an empty trailer section.
pub const LAST_CHUNK: &[u8] = b"0\r\n\r\n";

/// The interim response to send before reading the body of a request whose
/// [`crate::RequestHead::expect_continue`] is set.
pub const CONTINUE_100: &[u8] = b"HTTP/1.1 100 Continue\r\n\r\n";

// One table drives both `reason` and the precomputed status lines, so they cannot disagree.
macro_rules! status_table {
    ($($code:literal => $reason:literal,)*) => {
        /// The IANA reason phrase for `status` ("Unknown" for unregistered codes).
        ///
        /// ```
        /// assert_eq!(gale_http::reason(404), "Not Found");
        /// assert_eq!(gale_http::reason(599), "Unknown");
        /// ```
        pub fn reason(status: u16) -> &'static str {
            match status {
                $($code => $reason,)*
                _ => "Unknown",
            }
        }

        fn precomputed_status_line(status: u16) -> Option<&'static [u8]> {
            match status {
                $($code => Some(concat!("HTTP/1.1 ", $code, " ", $reason, "\r\n").as_bytes()),)*
                _ => None,
            }
        }
    };
}

status_table! {
    100 => "Continue",
    101 => "Switching Protocols",
    102 => "Processing",
    103 => "Early Hints",
    200 => "OK",
    201 => "Created",
    202 => "Accepted",
    203 => "Non-Authoritative Information",
    204 => "No Content",
    205 => "Reset Content",
    206 => "Partial Content",
    207 => "Multi-Status",
    208 => "Already Reported",
    226 => "IM Used",
    300 => "Multiple Choices",
    301 => "Moved Permanently",
    302 => "Found",
    303 => "See Other",
    304 => "Not Modified",
    305 => "Use Proxy",
    307 => "Temporary Redirect",
    308 => "Permanent Redirect",
    400 => "Bad Request",
    401 => "Unauthorized",
    402 => "Payment Required",
    403 => "Forbidden",
    404 => "Not Found",
    405 => "Method Not Allowed",
    406 => "Not Acceptable",
    407 => "Proxy Authentication Required",
    408 => "Request Timeout",
    409 => "Conflict",
    410 => "Gone",
    411 => "Length Required",
    412 => "Precondition Failed",
    413 => "Content Too Large",
    414 => "URI Too Long",
    415 => "Unsupported Media Type",
    416 => "Range Not Satisfiable",
    417 => "Expectation Failed",
    // IANA lists 418 as "(Unused)"; every client and Node.js know it by this name.
    418 => "I'm a Teapot",
    421 => "Misdirected Request",
    422 => "Unprocessable Content",
    423 => "Locked",
    424 => "Failed Dependency",
    425 => "Too Early",
    426 => "Upgrade Required",
    428 => "Precondition Required",
    429 => "Too Many Requests",
    431 => "Request Header Fields Too Large",
    451 => "Unavailable For Legal Reasons",
    500 => "Internal Server Error",
    501 => "Not Implemented",
    502 => "Bad Gateway",
    503 => "Service Unavailable",
    504 => "Gateway Timeout",
    505 => "HTTP Version Not Supported",
    506 => "Variant Also Negotiates",
    507 => "Insufficient Storage",
    508 => "Loop Detected",
    510 => "Not Extended",
    511 => "Network Authentication Required",
}

/// Appends `HTTP/1.1 <status> <reason>\r\n`. A status outside 100..=999 cannot be put on the
/// wire, so it is written as 500: validate statuses before calling.
///
/// ```
/// let mut out = Vec::new();
/// gale_http::write_status_line(&mut out, 200);
/// assert_eq!(out, b"HTTP/1.1 200 OK\r\n");
/// ```
pub fn write_status_line(out: &mut Vec<u8>, status: u16) {
    if let Some(line) = precomputed_status_line(status) {
        out.extend_from_slice(line);
        return;
    }
    let status = if (100..=999).contains(&status) {
        status
    } else {
        500
    };
    out.extend_from_slice(b"HTTP/1.1 ");
    out.extend_from_slice(itoa::Buffer::new().format(status).as_bytes());
    out.push(b' ');
    out.extend_from_slice(reason(status).as_bytes());
    out.extend_from_slice(b"\r\n");
}

/// Appends `Content-Length: <len>\r\n`.
pub fn write_content_length(out: &mut Vec<u8>, len: u64) {
    out.extend_from_slice(b"Content-Length: ");
    out.extend_from_slice(itoa::Buffer::new().format(len).as_bytes());
    out.extend_from_slice(b"\r\n");
}

/// Appends one chunk: hex size, CRLF, `data`, CRLF. Writes nothing for empty `data`, because a
/// zero-size chunk would end the body (that is [`LAST_CHUNK`]'s job).
///
/// ```
/// let mut out = Vec::new();
/// gale_http::write_chunk(&mut out, b"hello, world!!!!!");
/// out.extend_from_slice(gale_http::LAST_CHUNK);
/// assert_eq!(out, b"11\r\nhello, world!!!!!\r\n0\r\n\r\n");
/// ```
pub fn write_chunk(out: &mut Vec<u8>, data: &[u8]) {
    if data.is_empty() {
        return;
    }
    out.reserve(data.len() + 20);
    crate::encode::write_chunk_header(out, data.len());
    out.extend_from_slice(data);
    out.extend_from_slice(b"\r\n");
}

/// RFC 9110 `tchar`.
pub(crate) fn is_tchar(b: u8) -> bool {
    b.is_ascii_alphanumeric()
        || matches!(
            b,
            b'!' | b'#'
                | b'$'
                | b'%'
                | b'&'
                | b'\''
                | b'*'
                | b'+'
                | b'-'
                | b'.'
                | b'^'
                | b'_'
                | b'`'
                | b'|'
                | b'~'
        )
}

/// Whether `b` is an RFC 9110 token (a valid header name or method): non-empty, tchars only.
pub fn is_token(b: &[u8]) -> bool {
    !b.is_empty() && b.iter().all(|&c| is_tchar(c))
}

/// Whether `b` may be sent as a header value: no CR, LF, NUL or other control characters
/// except HTAB (so a value can never split into a new header line). Empty is allowed.
pub fn is_header_value(b: &[u8]) -> bool {
    b.iter().all(|&c| c == b'\t' || (c >= 0x20 && c != 0x7f))
}

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
    let head = crate::encode::ResponseHead {
        status,
        reason: b"",
        content_type,
        fields: extra_headers,
        body_len: Some(body.len() as u64),
    };
    let e = crate::encode::encode_head(out, &head, date, 1, !close);
    if !head_only && e.framing != crate::encode::Framing::NoBody {
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
    fn status_lines() {
        let table: &[(u16, &str)] = &[
            (200, "HTTP/1.1 200 OK\r\n"),
            (404, "HTTP/1.1 404 Not Found\r\n"),
            (413, "HTTP/1.1 413 Content Too Large\r\n"),
            (599, "HTTP/1.1 599 Unknown\r\n"),
            (150, "HTTP/1.1 150 Unknown\r\n"),
            (99, "HTTP/1.1 500 Internal Server Error\r\n"),
            (1000, "HTTP/1.1 500 Internal Server Error\r\n"),
        ];
        for (status, want) in table {
            let mut out = b"x".to_vec();
            write_status_line(&mut out, *status);
            assert_eq!(String::from_utf8(out).unwrap(), format!("x{want}"));
        }
        for status in 100..=999 {
            let mut out = Vec::new();
            write_status_line(&mut out, status);
            let want = format!("HTTP/1.1 {status} {}\r\n", reason(status));
            assert_eq!(out, want.as_bytes());
        }
    }

    #[test]
    fn content_length_and_chunks() {
        let mut out = Vec::new();
        write_content_length(&mut out, u64::MAX);
        assert_eq!(out, b"Content-Length: 18446744073709551615\r\n");

        let table: &[(usize, &str)] = &[
            (0, ""),
            (1, "1\r\n"),
            (15, "f\r\n"),
            (16, "10\r\n"),
            (4096, "1000\r\n"),
        ];
        for (len, prefix) in table {
            let data = vec![b'a'; *len];
            let mut out = Vec::new();
            write_chunk(&mut out, &data);
            let mut want = prefix.as_bytes().to_vec();
            if *len > 0 {
                want.extend_from_slice(&data);
                want.extend_from_slice(b"\r\n");
            }
            assert_eq!(out, want, "len {len}");
        }
    }

    #[test]
    fn tokens_and_values() {
        let tokens: &[(&[u8], bool)] = &[
            (b"Content-Type", true),
            (b"x-!#$%&'*+-.^_`|~09", true),
            (b"", false),
            (b"a b", false),
            (b"a:", false),
            (b"a\0", false),
            (b"a\x7f", false),
            (b"\xc3\xa9", false),
            (b"(x)", false),
        ];
        for (t, want) in tokens {
            assert_eq!(is_token(t), *want, "{t:?}");
        }
        let values: &[(&[u8], bool)] = &[
            (b"", true),
            (b"text/html; charset=utf-8", true),
            (b"a\tb c", true),
            (b"caf\xc3\xa9", true),
            (b"a\r\nSet-Cookie: x", false),
            (b"a\rb", false),
            (b"a\nb", false),
            (b"a\0b", false),
            (b"a\x1bb", false),
            (b"a\x7fb", false),
        ];
        for (v, want) in values {
            assert_eq!(is_header_value(v), *want, "{v:?}");
        }
    }

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
