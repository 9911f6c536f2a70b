//! Response bytes: fixed and engine-made answers, the JS reply head type, chunk framing, the
//! `Connection: close` patch, and writing file or cached bodies to a socket. No queue logic here.

use std::io::{ErrorKind, Write};

use gale_http::DateCache;

/// A response registered up front and replayed without entering JS.
pub(crate) struct Fixed {
    pub status: u16,
    /// "Name: value\r\n" lines, Content-Type included.
    pub headers: Vec<u8>,
    pub body: Vec<u8>,
}

impl Fixed {
    pub fn encode(&self, out: &mut Vec<u8>, date: &DateCache, close: bool, head_only: bool) {
        out.clear();
        gale_http::write_simple_response(
            out,
            self.status,
            date,
            b"",
            &self.headers,
            &self.body,
            close,
            head_only,
        );
    }
}

/// Encodes an engine-made plain-text answer (404, 405, 400) into `out`.
pub(crate) fn encode_native(
    out: &mut Vec<u8>,
    date: &DateCache,
    status: u16,
    extra: &[u8],
    body: &[u8],
    close: bool,
    head_only: bool,
) {
    out.clear();
    gale_http::write_simple_response(
        out,
        status,
        date,
        b"text/plain; charset=utf-8",
        extra,
        body,
        close,
        head_only,
    );
}

/// What JS passes for a response head.
#[derive(Clone, Copy, Debug)]
pub struct Reply<'a> {
    pub status: u16,
    /// The Content-Type value, or empty for none.
    pub content_type: &'a [u8],
    /// Extra header lines, each "Name: value\r\n", already validated.
    pub headers: &'a [u8],
    /// A reason phrase other than the standard one (empty: standard). Checked by the engine.
    pub reason: &'a [u8],
    /// The app asked for `Connection: close`: the connection ends after this response.
    pub close: bool,
    /// The length the app declared for a streamed body (or for a HEAD answer's would-be body):
    /// sent as Content-Length instead of chunked coding.
    pub length: Option<u64>,
}

impl Reply<'_> {
    /// A plain reply: standard reason, no declared length, keep-alive as the request allows.
    pub fn new<'a>(status: u16, content_type: &'a [u8], headers: &'a [u8]) -> Reply<'a> {
        Reply {
            status,
            content_type,
            headers,
            reason: b"",
            close: false,
            length: None,
        }
    }
}

/// Whether `reason` may stand in a status line: HTAB, SP, VCHAR, obs-text (RFC 9112 §4).
pub(crate) fn is_reason_phrase(reason: &[u8]) -> bool {
    reason
        .iter()
        .all(|&b| b == b'\t' || b == b' ' || (b >= 0x21 && b != 0x7f))
}

/// Sends as much of a file or cached body as the socket takes. Ok(true) when all of it is sent.
pub(crate) fn send_file(
    sock: &mio::net::TcpStream,
    body: &mut crate::request::FileBody,
) -> std::io::Result<bool> {
    use std::os::fd::AsRawFd;
    let file = match &body.source {
        crate::request::BodySource::File(f) => f,
        crate::request::BodySource::Memory(bytes) => {
            let mut sock = sock;
            while body.remaining > 0 {
                let start = body.offset as usize;
                let end = start + body.remaining as usize;
                match sock.write(&bytes[start..end]) {
                    Ok(0) => return Err(ErrorKind::WriteZero.into()),
                    Ok(n) => {
                        body.offset += n as u64;
                        body.remaining -= n as u64;
                    }
                    Err(e) if e.kind() == ErrorKind::WouldBlock => return Ok(false),
                    Err(e) if e.kind() == ErrorKind::Interrupted => {}
                    Err(e) => return Err(e),
                }
            }
            return Ok(true);
        }
    };
    while body.remaining > 0 {
        let count = body.remaining.min(1 << 20) as usize;
        #[cfg(target_os = "linux")]
        let n = {
            let mut off = body.offset as libc::off_t;
            // SAFETY: both fds are open for the duration of the call; off is a valid pointer.
            unsafe { libc::sendfile(sock.as_raw_fd(), file.as_raw_fd(), &mut off, count) }
        };
        #[cfg(not(target_os = "linux"))]
        let n = {
            use std::os::unix::fs::FileExt;
            let mut buf = vec![0u8; count.min(64 * 1024)];
            match file.read_at(&mut buf, body.offset) {
                Ok(0) => 0,
                Ok(r) => {
                    // SAFETY: writes r initialised bytes from buf to an open socket.
                    unsafe { libc::write(sock.as_raw_fd(), buf.as_ptr() as *const libc::c_void, r) }
                }
                Err(e) => return Err(e),
            }
        };
        if n > 0 {
            body.offset += n as u64;
            body.remaining -= n as u64;
            continue;
        }
        if n == 0 {
            // The file shrank after its length was sent: the response cannot be completed.
            return Err(std::io::ErrorKind::UnexpectedEof.into());
        }
        let err = std::io::Error::last_os_error();
        match err.kind() {
            ErrorKind::WouldBlock => return Ok(false),
            ErrorKind::Interrupted => {}
            _ => return Err(err),
        }
    }
    Ok(true)
}

pub(crate) fn no_body_status(status: u16) -> bool {
    status == 204 || status == 304 || (100..200).contains(&status)
}

/// Appends a chunk-size line for `len` bytes.
pub(crate) fn chunk_size_line(out: &mut Vec<u8>, len: usize) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let mut tmp = [0u8; 16];
    let mut i = tmp.len();
    let mut n = len;
    loop {
        i -= 1;
        tmp[i] = HEX[n & 15];
        n >>= 4;
        if n == 0 {
            break;
        }
    }
    out.extend_from_slice(&tmp[i..]);
    out.extend_from_slice(b"\r\n");
}

/// Lets `fill` append the `len` body bytes it promised (kept exact even if it misbehaves, so the
/// framing and Content-Length already written stay true).
pub(crate) fn append_with(out: &mut Vec<u8>, len: usize, fill: impl FnOnce(&mut Vec<u8>)) {
    let start = out.len();
    fill(out);
    out.resize(start + len, 0);
}

/// Makes an already encoded response head say `Connection: close`.
pub(crate) fn mark_close(out: &mut Vec<u8>) {
    let Some(end) = out.windows(4).position(|w| w == b"\r\n\r\n") else {
        return;
    };
    let head = &out[..end + 2];
    if let Some(p) = head
        .windows(24)
        .position(|w| w == b"Connection: keep-alive\r\n")
    {
        out.splice(p..p + 24, b"Connection: close\r\n".iter().copied());
    } else if !head.windows(19).any(|w| w == b"Connection: close\r\n") {
        out.splice(end + 2..end + 2, b"Connection: close\r\n".iter().copied());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chunk_size_lines_are_lowercase_hex() {
        for (len, want) in [
            (0usize, "0\r\n"),
            (1, "1\r\n"),
            (15, "f\r\n"),
            (16, "10\r\n"),
            (4096, "1000\r\n"),
            (0xdead_beef, "deadbeef\r\n"),
        ] {
            let mut out = Vec::new();
            chunk_size_line(&mut out, len);
            assert_eq!(out, want.as_bytes(), "len {len}");
        }
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
            // A "Connection: keep-alive" inside the body is not touched.
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
    fn append_with_keeps_promised_length() {
        let mut out = b"x".to_vec();
        append_with(&mut out, 3, |o| o.extend_from_slice(b"abcdef"));
        assert_eq!(out, b"xabc", "a filler that writes too much is cut");
        append_with(&mut out, 2, |_| {});
        assert_eq!(
            out, b"xabc\0\0",
            "a filler that writes too little is padded"
        );
    }

    #[test]
    fn no_body_statuses() {
        for s in [100, 101, 199, 204, 304] {
            assert!(no_body_status(s), "{s}");
        }
        for s in [200, 201, 205, 302, 404, 500] {
            assert!(!no_body_status(s), "{s}");
        }
    }
}
