//! Responses: encoding replies from JS and native answers, keeping pipelined responses in order,
//! corked flushing, backpressure (pause reading, `drain` events) and lingering close.

use std::io::{ErrorKind, Write};
use std::net::Shutdown;

use gale_http::{write_content_length, write_status_line, DateCache};

use crate::conn::Phase;
use crate::engine::Inner;
use crate::request::Action;
use crate::{Event, Server};

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
}

/// Sends as much of a file or cached body as the socket takes. Ok(true) when all of it is sent.
fn send_file(
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

fn no_body_status(status: u16) -> bool {
    status == 204 || status == 304 || (100..200).contains(&status)
}

/// Appends a chunk-size line for `len` bytes.
fn chunk_size_line(out: &mut Vec<u8>, len: usize) {
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
fn append_with(out: &mut Vec<u8>, len: usize, fill: impl FnOnce(&mut Vec<u8>)) {
    let start = out.len();
    fill(out);
    out.resize(start + len, 0);
}

/// Makes an already encoded response head say `Connection: close`.
fn mark_close(out: &mut Vec<u8>) {
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

impl Inner {
    /// Shutdown began: the last response this connection will send must say `Connection: close`,
    /// and no further requests are read from it.
    pub fn close_after_inflight(&mut self, cid: usize) {
        let Some(conn) = self.conns.get_mut(cid) else {
            return;
        };
        let Some(&last) = conn.inflight.back() else {
            return;
        };
        if conn.phase == Phase::Head {
            conn.phase = Phase::Done;
        }
        let req = self.reqs.get_mut(last);
        req.keep_alive = false;
        if req.ended {
            mark_close(&mut req.out);
        } else if req.action == Some(Action::Native) {
            mark_close(&mut req.native);
        }
    }

    /// After output was added for `cid`: flush now, or at the end of the batch when inside one.
    pub fn touch(&mut self, cid: usize) {
        let hwm = self.cfg.high_water_mark;
        let Some(conn) = self.conns.get_mut(cid) else {
            return;
        };
        if self.in_batch && conn.pending() <= hwm {
            if !conn.dirty {
                conn.dirty = true;
                self.dirty.push(cid);
            }
            return;
        }
        self.flush(cid);
        if let Some(conn) = self.conns.get_mut(cid) {
            if conn.pending() > hwm {
                conn.read_paused = true;
            }
        }
    }

    pub fn flush_dirty(&mut self) {
        while let Some(cid) = self.dirty.pop() {
            if let Some(c) = self.conns.get_mut(cid) {
                c.dirty = false;
                self.flush(cid);
            }
        }
    }

    /// Writes pending output, then the front response's file body; on EAGAIN waits for the writable edge.
    pub fn flush(&mut self, cid: usize) {
        loop {
            let Some(conn) = self.conns.get_mut(cid) else {
                return;
            };
            while conn.wpos < conn.wbuf.len() {
                match conn.sock.write(&conn.wbuf[conn.wpos..]) {
                    Ok(0) => {
                        self.close_conn(cid);
                        return;
                    }
                    Ok(n) => conn.wpos += n,
                    Err(e) if e.kind() == ErrorKind::WouldBlock => {
                        conn.want_write = true;
                        return;
                    }
                    Err(e) if e.kind() == ErrorKind::Interrupted => {}
                    Err(_) => {
                        self.close_conn(cid);
                        return;
                    }
                }
            }
            conn.wbuf.clear();
            conn.wpos = 0;
            conn.want_write = false;
            if conn.wbuf.capacity() > 256 * 1024 {
                conn.wbuf = Vec::new();
            }
            let Some(&front) = conn.inflight.front() else {
                break;
            };
            let req = self.reqs.get_mut(front);
            let Some(body) = req.file.as_mut() else {
                break;
            };
            match send_file(&conn.sock, body) {
                Ok(true) => {
                    req.file = None;
                    req.ended = true;
                    self.advance(cid);
                }
                Ok(false) => {
                    conn.want_write = true;
                    return;
                }
                Err(_) => {
                    self.close_conn(cid);
                    return;
                }
            }
        }
        let conn = &mut self.conns[cid];
        if conn.close_after_flush {
            if conn.eof {
                self.close_conn(cid);
                return;
            }
            let _ = conn.sock.shutdown(Shutdown::Write);
            conn.phase = Phase::Lingering;
            conn.close_after_flush = false;
            conn.since = self.now;
            conn.read_paused = false;
            self.deferred.push(cid);
            return;
        }
        self.after_output(cid);
    }

    /// Output shrank: wake a paused reader and a waiting streamer.
    fn after_output(&mut self, cid: usize) {
        let hwm = self.cfg.high_water_mark;
        let max_pipeline = self.cfg.max_pipeline;
        let Some(conn) = self.conns.get_mut(cid) else {
            return;
        };
        if conn.pending() > hwm {
            return;
        }
        let sending_file = conn
            .inflight
            .front()
            .is_some_and(|&f| self.reqs.get(f).file.is_some());
        if conn.read_paused
            && !sending_file
            && conn.inflight.len() < max_pipeline
            && conn.phase != Phase::Lingering
        {
            conn.read_paused = false;
            self.deferred.push(cid);
        }
        if let Some(&front) = conn.inflight.front() {
            let req = self.reqs.get_mut(front);
            if req.want_drain {
                req.want_drain = false;
                self.events.push_back(Event::Drain(req.id(front)));
            }
        }
    }

    /// The front response (and any finished ones behind it) are complete: move the queue on.
    fn advance(&mut self, cid: usize) {
        let closing = self.closing;
        let now = self.now;
        let conn = &mut self.conns[cid];
        while let Some(&front) = conn.inflight.front() {
            let req = self.reqs.get_mut(front);
            if !req.out.is_empty() {
                conn.wbuf.extend_from_slice(&req.out);
                req.out.clear();
            }
            if !req.ended {
                break;
            }
            let close = !req.keep_alive || req.native_close;
            conn.inflight.pop_front();
            if conn.phase != Phase::Body(front) {
                // (A request whose streamed body is still arriving is freed when the body ends.)
                self.reqs.free(front);
            }
            if close {
                conn.close_after_flush = true;
                conn.phase = Phase::Done;
                break;
            }
        }
        if conn.inflight.is_empty() {
            conn.since = now;
            if closing && conn.phase == Phase::Head && conn.rbuf.is_empty() && !conn.partial {
                conn.close_after_flush = true;
                conn.phase = Phase::Done;
            }
        }
        self.after_output(cid);
    }

    /// Marks `idx` ended and pushes its bytes toward the socket.
    fn complete(&mut self, idx: usize) {
        let req = self.reqs.get_mut(idx);
        req.ended = true;
        req.js_owned = false;
        let cid = req.conn;
        if self.conns[cid].inflight.front() == Some(&idx) {
            self.advance(cid);
        }
        self.touch(cid);
    }

    /// Sends the pre-encoded native answer of `idx`; a file body follows from `flush`.
    pub fn end_native(&mut self, idx: usize) {
        let req = self.reqs.get_mut(idx);
        let cid = req.conn;
        let conn = &mut self.conns[cid];
        let front = conn.inflight.front() == Some(&idx);
        if front {
            conn.wbuf.extend_from_slice(&req.native);
        } else {
            req.out.extend_from_slice(&req.native);
        }
        if req.file.is_some() {
            // The response ends when flush() has sent the file; meanwhile stop reading new requests
            // so a large download cannot pile up answers behind it.
            req.js_owned = false;
            conn.read_paused = true;
            if front {
                self.touch(cid);
            }
            return;
        }
        self.complete(idx);
    }

    /// Resolves a JS id to a record that can still take output. Frees detached ones.
    fn writable_req(&mut self, id: u32) -> Option<usize> {
        let idx = self.reqs.lookup(id)?;
        let req = self.reqs.get_mut(idx);
        if req.detached {
            if !req.ended {
                req.ended = true;
                self.reqs.free(idx);
            }
            return None;
        }
        if req.ended || req.action == Some(Action::Native) {
            return None;
        }
        Some(idx)
    }

    /// Writes a response head for `idx` into its output place.
    fn write_head(&mut self, idx: usize, reply: &Reply, len: Option<usize>) {
        let closing = self.closing;
        let req = self.reqs.get_mut(idx);
        let conn = &mut self.conns[req.conn];
        let last = conn.inflight.back() == Some(&idx);
        if closing && last {
            req.keep_alive = false;
        }
        if len.is_none() && req.minor == 0 {
            // HTTP/1.0 has no chunked coding: the body ends when the connection does.
            req.keep_alive = false;
        }
        let front = conn.inflight.front() == Some(&idx);
        let out = if front { &mut conn.wbuf } else { &mut req.out };
        write_status_line(out, reply.status);
        out.extend_from_slice(self.date.header_line());
        if !reply.content_type.is_empty() {
            out.extend_from_slice(b"Content-Type: ");
            out.extend_from_slice(reply.content_type);
            out.extend_from_slice(b"\r\n");
        }
        out.extend_from_slice(reply.headers);
        if !no_body_status(reply.status) {
            match len {
                Some(n) => write_content_length(out, n as u64),
                None if req.minor == 1 => {
                    out.extend_from_slice(b"Transfer-Encoding: chunked\r\n");
                    req.chunked_out = true;
                }
                None => {}
            }
        }
        if !req.keep_alive {
            out.extend_from_slice(b"Connection: close\r\n");
        } else if req.minor == 0 {
            out.extend_from_slice(b"Connection: keep-alive\r\n");
        }
        out.extend_from_slice(b"\r\n");
        if no_body_status(reply.status) {
            req.head_only = true;
        }
        req.started = true;
    }

    /// Appends body bytes for a started response (framed when chunked; dropped for HEAD).
    fn write_body(&mut self, idx: usize, len: usize, fill: impl FnOnce(&mut Vec<u8>), last: bool) {
        let req = self.reqs.get_mut(idx);
        let conn = &mut self.conns[req.conn];
        let front = conn.inflight.front() == Some(&idx);
        let out = if front { &mut conn.wbuf } else { &mut req.out };
        if req.head_only {
            return;
        }
        if req.chunked_out {
            if len > 0 {
                chunk_size_line(out, len);
                append_with(out, len, fill);
                out.extend_from_slice(b"\r\n");
            }
            if last {
                out.extend_from_slice(gale_http::LAST_CHUNK);
            }
        } else if len > 0 {
            append_with(out, len, fill);
        }
    }

    /// Output pending for `idx`: the socket's when it is the front response, else its own buffer.
    fn pending_for(&self, idx: usize) -> usize {
        let req = self.reqs.get(idx);
        match self.conns.get(req.conn) {
            Some(c) if c.inflight.front() == Some(&idx) => c.pending(),
            _ => req.out.len(),
        }
    }
}

impl Server {
    /// Sends a whole response to request `id`: head, then `body_len` bytes written by `fill`.
    /// Returns false when the request is gone (client left, or already answered).
    pub fn end(
        &self,
        id: u32,
        reply: &Reply,
        body_len: usize,
        fill: impl FnOnce(&mut Vec<u8>),
    ) -> bool {
        let ok = {
            let mut inner = self.inner.borrow_mut();
            match inner.writable_req(id) {
                Some(idx) if !inner.reqs.get(idx).started => {
                    inner.write_head(idx, reply, Some(body_len));
                    inner.write_body(idx, body_len, fill, false);
                    inner.complete(idx);
                    true
                }
                _ => false,
            }
        };
        self.after_call();
        ok
    }

    /// Starts a streamed response (chunked on HTTP/1.1). Returns false when the request is gone.
    pub fn write_head(&self, id: u32, reply: &Reply) -> bool {
        let ok = {
            let mut inner = self.inner.borrow_mut();
            match inner.writable_req(id) {
                Some(idx) if !inner.reqs.get(idx).started => {
                    inner.write_head(idx, reply, None);
                    let cid = inner.reqs.get(idx).conn;
                    inner.touch(cid);
                    true
                }
                _ => false,
            }
        };
        self.after_call();
        ok
    }

    /// Writes a body chunk of a streamed response. `None`: the request is gone; `Some(false)`: buffered
    /// over the high-water mark, wait for `Event::Drain`.
    pub fn write(&self, id: u32, len: usize, fill: impl FnOnce(&mut Vec<u8>)) -> Option<bool> {
        let r = {
            let mut inner = self.inner.borrow_mut();
            match inner.writable_req(id) {
                Some(idx) if inner.reqs.get(idx).started => {
                    inner.write_body(idx, len, fill, false);
                    let cid = inner.reqs.get(idx).conn;
                    inner.touch(cid);
                    let below = inner.pending_for(idx) <= inner.cfg.high_water_mark;
                    if !below {
                        inner.reqs.get_mut(idx).want_drain = true;
                    }
                    Some(below)
                }
                _ => None,
            }
        };
        self.after_call();
        r
    }

    /// Ends a streamed response, optionally with a last chunk.
    pub fn end_stream(&self, id: u32, len: usize, fill: impl FnOnce(&mut Vec<u8>)) -> bool {
        let ok = {
            let mut inner = self.inner.borrow_mut();
            match inner.writable_req(id) {
                Some(idx) if inner.reqs.get(idx).started => {
                    inner.write_body(idx, len, fill, true);
                    inner.complete(idx);
                    true
                }
                _ => false,
            }
        };
        self.after_call();
        ok
    }

    /// Abandons a response mid-way (a handler failed after streaming started): what was written is
    /// flushed and the connection closes without the terminating chunk, so the client sees a
    /// truncated body rather than a complete one.
    pub fn destroy(&self, id: u32) {
        {
            let mut inner = self.inner.borrow_mut();
            let Some(idx) = inner.reqs.lookup(id) else {
                return;
            };
            let req = inner.reqs.get_mut(idx);
            req.ended = true;
            req.js_owned = false;
            if !req.detached {
                let cid = req.conn;
                inner.flush(cid);
                inner.close_conn(cid);
            } else {
                inner.reqs.free(idx);
            }
        }
        self.after_call();
    }

    /// Answers request `id` with the file at `path` (validators, ranges, precompressed siblings), the
    /// same way static mounts do. `headers` are extra "Name: value\r\n" lines. Err(404) when there
    /// is no such file; Ok(false) when the request is gone.
    pub fn send_file(&self, id: u32, path: &std::path::Path, headers: &[u8]) -> Result<bool, u16> {
        let r = {
            let mut inner = self.inner.borrow_mut();
            match inner.writable_req(id) {
                Some(idx) if !inner.reqs.get(idx).started => {
                    match crate::statics::Found::from_path(path, true) {
                        Some(f) => {
                            inner.serve_found(idx, &f, headers);
                            inner.end_native(idx);
                            Ok(true)
                        }
                        None => Err(404),
                    }
                }
                _ => Ok(false),
            }
        };
        self.after_call();
        r
    }

    /// Hands JS the request body received so far: (bytes, state) with state 0 = more is coming
    /// (an `Event::Body` follows), 1 = complete, or the error status (400/408/413) that ended it.
    /// None when the request is gone.
    pub fn take_body(&self, id: u32) -> Option<(Vec<u8>, u16)> {
        let r = {
            let mut inner = self.inner.borrow_mut();
            let idx = inner.reqs.lookup(id)?;
            let req = inner.reqs.get_mut(idx);
            let bytes = std::mem::take(&mut req.body);
            let state = if req.body_error != 0 {
                req.body_error
            } else if !req.streaming || req.body_done {
                1
            } else {
                req.want_body = true;
                0
            };
            let cid = req.conn;
            let detached = req.detached;
            if !detached {
                let conn = &mut inner.conns[cid];
                if conn.read_paused && conn.phase == Phase::Body(idx) {
                    conn.read_paused = false;
                    inner.deferred.push(cid);
                }
            }
            Some((bytes, state))
        };
        self.after_call();
        r
    }

    /// JS lets go of a request it will not answer (after an abort). Frees the record.
    pub fn release(&self, id: u32) {
        let mut inner = self.inner.borrow_mut();
        if let Some(idx) = inner.reqs.lookup(id) {
            let req = inner.reqs.get_mut(idx);
            if req.detached {
                inner.reqs.free(idx);
            }
        }
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
