//! Response encoding: status lines, framing headers, chunks, simple and error responses, and
//! the byte-class checks the server uses to validate header names and values from JavaScript.

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

/// Appends a chunk-size line for a chunk of `len` bytes (lower-case hex, CRLF); the caller appends the bytes and
/// a CRLF. `len` 0 would end the body: write [`crate::LAST_CHUNK`] for that.
///
/// ```
/// let mut out = Vec::new();
/// gale_http::write_chunk_header(&mut out, 4096);
/// assert_eq!(out, b"1000\r\n");
/// ```
pub fn write_chunk_header(out: &mut Vec<u8>, len: usize) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let mut tmp = [0u8; 16];
    let mut i = tmp.len();
    let mut n = len as u64;
    loop {
        i -= 1;
        tmp[i] = HEX[(n & 15) as usize];
        n >>= 4;
        if n == 0 {
            break;
        }
    }
    out.extend_from_slice(&tmp[i..]);
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
    write_chunk_header(out, data.len());
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

#[cfg(test)]
mod tests {
    use super::*;

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
    fn chunk_headers_match_write_chunk() {
        for len in [1usize, 15, 16, 255, 4096, 0xdead_beef] {
            let mut a = Vec::new();
            write_chunk_header(&mut a, len);
            assert_eq!(a, format!("{len:x}\r\n").as_bytes());
        }
        let mut zero = Vec::new();
        write_chunk_header(&mut zero, 0);
        assert_eq!(zero, b"0\r\n");
    }
}
