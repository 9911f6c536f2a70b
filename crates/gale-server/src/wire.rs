//! Where response heads are placed: fixed and engine-made answers put into a record (encoded by gale-http for
//! HTTP/1.1, or kept as fields for an HTTP/2 stream), the JS reply head type, and writing file or cached bodies to
//! a socket. The encoding itself is gale-http's (`encode_head`); no queue logic here.

use std::io::{ErrorKind, Write};

use gale_http::{DateCache, ResponseHead};

use crate::request::{Action, Req};

/// A response registered up front and replayed without entering JS.
pub(crate) struct Fixed {
    pub status: u16,
    /// The Content-Type value the head names before `headers`, as a JS reply's (empty: none, or among `headers`).
    pub content_type: Vec<u8>,
    /// "Name: value\r\n" lines (an `app.fixed()` answer's Content-Type among them).
    pub headers: Vec<u8>,
    pub body: Vec<u8>,
}

impl Fixed {
    /// Puts this fixed answer into `req` (see [`put_native`]).
    pub fn answer(&self, req: &mut Req, h2: bool, date: &DateCache) {
        let head = ResponseHead {
            status: self.status,
            reason: b"",
            content_type: &self.content_type,
            fields: &self.headers,
            body_len: Some(self.body.len() as u64),
        };
        put_native(req, h2, date, &head, &self.body);
    }
}

/// `Allow: <methods>\r\n`, the header line of the engine's 405 and `OPTIONS *` answers.
pub(crate) fn allow_line(methods: &str) -> Vec<u8> {
    let mut line = Vec::with_capacity(methods.len() + 9);
    line.extend_from_slice(b"Allow: ");
    line.extend_from_slice(methods.as_bytes());
    line.extend_from_slice(b"\r\n");
    line
}

/// Puts an engine-made answer (404, 405, 400, …) into `req` (see [`put_native`]): `body` as plain text, or, for an
/// error status with a stable code, an RFC 9457 problem document with `body` as its detail when the server's error
/// format asks for one (always, or when the request's `Accept` prefers JSON).
pub(crate) fn native_text(
    req: &mut Req,
    h2: bool,
    date: &DateCache,
    status: u16,
    extra: &[u8],
    body: &[u8],
) {
    let code = gale_http::status_error_code(status);
    native_answer(req, h2, date, status, extra, body, code);
}

/// [`native_text`] with the error code given (a protocol error's own, which may differ from its status's).
fn native_answer(
    req: &mut Req,
    h2: bool,
    date: &DateCache,
    status: u16,
    extra: &[u8],
    body: &[u8],
    code: Option<&str>,
) {
    if let Some(code) = code.filter(|_| wants_problem(req)) {
        let mut doc = Vec::with_capacity(body.len() + 96);
        gale_http::write_problem(&mut doc, status, code, &String::from_utf8_lossy(body));
        let head = ResponseHead {
            status,
            reason: b"",
            content_type: gale_http::PROBLEM_JSON,
            fields: extra,
            body_len: Some(doc.len() as u64),
        };
        put_native(req, h2, date, &head, &doc);
        return;
    }
    let head = ResponseHead {
        status,
        reason: b"",
        content_type: b"text/plain; charset=utf-8",
        fields: extra,
        body_len: Some(body.len() as u64),
    };
    put_native(req, h2, date, &head, body);
}

/// Whether the engine's error answer to `req` is a problem document (its server's setting, then its `Accept`).
fn wants_problem(req: &Req) -> bool {
    match req.error_format {
        crate::ErrorFormat::Text => false,
        crate::ErrorFormat::Problem => true,
        crate::ErrorFormat::Negotiate => req.header(b"accept").is_some_and(gale_http::prefers_json),
    }
}

/// Puts the answer to a protocol error into `req`: its status and message; an HTTP/1.1 connection ends after it
/// (an HTTP/2 stream ends alone).
pub(crate) fn native_error(req: &mut Req, h2: bool, date: &DateCache, err: &gale_http::Error) {
    if !h2 {
        req.keep_alive = false;
        req.reply.native_close = true;
    }
    let msg = err.message();
    native_answer(
        req,
        h2,
        date,
        err.status(),
        b"",
        msg.as_bytes(),
        Some(err.code()),
    );
}

/// Puts a whole native answer into `req`, to be sent once the request's body is in: on HTTP/1.1 the head encoded
/// by gale-http and the body into `req.native`; on an HTTP/2 stream (`h2`) the head as fields into `req.h2_head`
/// and only the body into `req.native`. A HEAD request or a bodiless status gets no body.
pub(crate) fn put_native(
    req: &mut Req,
    h2: bool,
    date: &DateCache,
    head: &ResponseHead<'_>,
    body: &[u8],
) {
    req.reply.native.clear();
    if h2 {
        req.reply.h2_head = Some(gale_h2::response(head));
    } else {
        let e =
            gale_http::encode_head(&mut req.reply.native, head, date, req.minor, req.keep_alive);
        req.keep_alive = e.keep_alive;
    }
    if !req.head_only && !gale_http::has_no_body(head.status) {
        req.reply.native.extend_from_slice(body);
    }
    req.action = Some(Action::Native);
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

/// Sends as much of a file or cached body as the socket takes. Ok(true) when all of it is sent.
pub(crate) fn send_file(
    sock: &mut mio::net::TcpStream,
    body: &mut crate::reply::FileBody,
) -> std::io::Result<bool> {
    while body.remaining > 0 {
        let sent = match &body.source {
            crate::reply::BodySource::Memory(bytes) => {
                let start = body.offset as usize;
                match sock.write(&bytes[start..start + body.remaining as usize]) {
                    Ok(0) => Err(ErrorKind::WriteZero.into()),
                    r => r,
                }
            }
            crate::reply::BodySource::File(file) => {
                match file_piece(sock, file, body.offset, body.remaining) {
                    // The file shrank after its length was sent: the response cannot be completed.
                    Ok(0) => Err(ErrorKind::UnexpectedEof.into()),
                    r => r,
                }
            }
        };
        match sent {
            Ok(n) => {
                body.offset += n as u64;
                body.remaining -= n as u64;
            }
            Err(e) if e.kind() == ErrorKind::WouldBlock => return Ok(false),
            Err(e) if e.kind() == ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(true)
}

/// Sends one piece of `file` from `offset`: sendfile on Linux, in the kernel, up to 1 MiB.
#[cfg(target_os = "linux")]
fn file_piece(
    sock: &mio::net::TcpStream,
    file: &std::fs::File,
    offset: u64,
    remaining: u64,
) -> std::io::Result<usize> {
    use std::os::fd::AsRawFd;
    let count = remaining.min(1 << 20) as usize;
    let mut off = offset as libc::off_t;
    // SAFETY: both fds are open for the duration of the call; off is a valid pointer.
    let n = unsafe { libc::sendfile(sock.as_raw_fd(), file.as_raw_fd(), &mut off, count) };
    if n < 0 {
        Err(std::io::Error::last_os_error())
    } else {
        Ok(n as usize)
    }
}

/// Elsewhere a piece of up to 64 KiB is read at its offset and written (through mio, which must see WouldBlock on
/// Windows); what the socket does not take is read again next time.
#[cfg(not(target_os = "linux"))]
fn file_piece(
    sock: &mut mio::net::TcpStream,
    file: &std::fs::File,
    offset: u64,
    remaining: u64,
) -> std::io::Result<usize> {
    use crate::sys::ReadAt;
    let mut buf = vec![0u8; remaining.min(64 * 1024) as usize];
    match file.read_at(&mut buf, offset)? {
        0 => Ok(0),
        r => sock.write(&buf[..r]),
    }
}

/// Lets `fill` append the `len` body bytes it promised (kept exact even if it misbehaves, so the
/// framing and Content-Length already written stay true).
pub(crate) fn append_with(out: &mut Vec<u8>, len: usize, fill: impl FnOnce(&mut Vec<u8>)) {
    let start = out.len();
    fill(out);
    out.resize(start + len, 0);
}

#[cfg(test)]
mod tests {
    use super::*;

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
}
