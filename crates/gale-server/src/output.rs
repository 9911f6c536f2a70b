//! Pipelined response order, corked flushing, backpressure (pause reading, `drain` events) and
//! lingering close, on the engine's side; the bytes themselves come from `wire.rs`.
//! Over 400 lines: one state machine, a connection's responses in order (touch, flush, advance, end_native, lingering
//! close), whose steps share `inflight`'s invariants.

use crate::conn::Phase;
use crate::engine::Inner;
use crate::request::Action;
use crate::transport::Wrote;
use crate::wire::{append_with, Reply};
use crate::Event;
use gale_http::{encode_head, mark_close, write_chunk_header, Framing, ResponseHead};

/// The socket is full: remember since when the client has taken nothing (send timeout), and ask for the
/// writable edge where that is not standing (`watch_writable`).
fn stall(
    conn: &mut crate::conn::Conn,
    now: u64,
    progressed: bool,
    registry: &mio::Registry,
    cid: usize,
) {
    if !conn.want_write || progressed {
        conn.stalled_since = now;
    }
    if !conn.want_write {
        crate::transport::watch_writable(&mut conn.io, registry, cid, true);
    }
    conn.want_write = true;
}

impl Inner {
    /// Shutdown began: the last response this connection will send must say `Connection: close`,
    /// and no further requests are read from it.
    pub fn close_after_inflight(&mut self, cid: usize) {
        let Some(conn) = self.conns.get_mut(cid) else {
            return;
        };
        if conn.h2.is_some() {
            return self.h2_goaway(cid);
        }
        let Some(&last) = conn.inflight.back() else {
            return;
        };
        if conn.phase == Phase::Head {
            conn.phase = Phase::Done;
        }
        let req = self.reqs.get_mut(last);
        req.keep_alive = false;
        if req.reply.ended {
            mark_close(&mut req.reply.out);
        } else if req.action == Some(Action::Native) {
            mark_close(&mut req.reply.native);
        }
    }

    /// After output was added for `cid`: flush now, or at the end of the batch when inside one.
    pub fn touch(&mut self, cid: usize) {
        let hwm = self.cfg.high_water_mark;
        let Some(conn) = self.conns.get_mut(cid) else {
            return;
        };
        // Inside a batch the flush comes at its end; outside one (a reply JS sent from a timer, an I/O callback, a
        // setImmediate) at the end of the loop turn (the kick, which after_call schedules): every reply sent in
        // the same turn leaves in one write per connection. Over the high-water mark: now.
        if conn.pending() <= hwm {
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

    /// Flushes the connections that got output in this batch, in the order they got it: what JS wrote first goes
    /// out first, across connections too, as Node's immediate writes do (a WebSocket message sent before an HTTP
    /// answer on another connection reaches the client before it). A flush that dirties a connection again
    /// appends it, so it is flushed in this call too.
    pub fn flush_dirty(&mut self) {
        let mut i = 0;
        while i < self.dirty.len() {
            let cid = self.dirty[i];
            i += 1;
            if let Some(c) = self.conns.get_mut(cid) {
                c.dirty = false;
                self.flush(cid);
            }
        }
        self.dirty.clear();
    }

    /// Writes pending output, then the front response's file body; on EAGAIN waits for the writable edge.
    pub fn flush(&mut self, cid: usize) {
        let Some(conn) = self.conns.get_mut(cid) else {
            return;
        };
        if conn.h2.is_some() {
            return self.h2_flush(cid);
        }
        if conn.pulled.is_some() {
            return self.pulled_flush(cid);
        }
        let mut progressed = false;
        loop {
            if !self.write_wbuf(cid, &mut progressed) {
                return;
            }
            let now = self.now;
            let (conn, mut reach, reqs) = crate::engine::reach!(self, cid, reqs);
            let Some(conn) = conn else {
                return;
            };
            let Some(&front) = conn.inflight.front() else {
                break;
            };
            let req = reqs.get_mut(front);
            let Some(body) = req.reply.file.as_mut() else {
                break;
            };
            let before = body.remaining;
            let sent =
                conn.io
                    .send_file(conn.tls.as_deref_mut(), body, &mut progressed, &mut reach);
            match sent {
                Ok(true) => {
                    req.reply.file = None;
                    req.reply.ended = true;
                    self.advance(cid);
                }
                Ok(false) => {
                    let moved = body.remaining != before;
                    stall(conn, now, progressed || moved, reach.registry, cid);
                    return;
                }
                Err(_) => {
                    self.close_conn(cid);
                    return;
                }
            }
        }
        if self.conns[cid].close_after_flush {
            self.shut_write(cid);
            return;
        }
        self.after_output(cid);
    }

    /// Writes `wbuf` to the socket (through rustls for TLS). False when the socket is full (the writable
    /// edge flushes again) or the connection closed on an error.
    pub(crate) fn write_wbuf(&mut self, cid: usize, progressed: &mut bool) -> bool {
        let now = self.now;
        let hwm = self.cfg.high_water_mark;
        let (conn, mut reach, reqs) = crate::engine::reach!(self, cid, reqs);
        let Some(conn) = conn else {
            return false;
        };
        // A file body sent with sendfile right after these bytes: its head is held back (MSG_MORE) to leave in the
        // same segments as the file's first bytes, as one write of head and body would.
        let file_follows = conn
            .inflight
            .front()
            .is_some_and(|&front| reqs.get(front).reply.file.is_some());
        match crate::transport::write_out(
            conn.out(),
            &mut reach,
            file_follows,
            hwm,
            now,
            progressed,
        ) {
            Wrote::Done => true,
            Wrote::Queued => false,
            Wrote::Full => {
                stall(conn, now, *progressed, reach.registry, cid);
                false
            }
            Wrote::Failed => {
                self.close_conn(cid);
                false
            }
        }
    }

    /// Everything is written and the connection is to close: shut the write side down (after TLS's
    /// close_notify) and linger, or close at once when the peer already sent EOF.
    pub(crate) fn shut_write(&mut self, cid: usize) {
        let now = self.now;
        let (conn, mut reach, deferred) = crate::engine::reach!(self, cid, deferred);
        let Some(conn) = conn else {
            return;
        };
        if conn.eof {
            self.close_conn(cid);
            return;
        }
        conn.io.shut_write(conn.tls.as_deref_mut(), &mut reach);
        conn.phase = Phase::Lingering;
        conn.close_after_flush = false;
        conn.since = now;
        conn.read_paused = false;
        deferred.push(cid);
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
            .is_some_and(|&f| self.reqs.get(f).reply.file.is_some());
        if conn.read_paused
            && !sending_file
            && conn.inflight.len() < max_pipeline
            && conn.phase != Phase::Lingering
        {
            conn.read_paused = false;
            self.deferred.push(cid);
        }
        if let Some(ws) = conn.ws.as_mut() {
            if ws.want_drain {
                ws.want_drain = false;
                self.events.push_back(Event::WsDrain(ws.sid));
            }
        }
        if let Some(&front) = conn.inflight.front() {
            let req = self.reqs.get_mut(front);
            if req.reply.want_drain {
                req.reply.want_drain = false;
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
            if !req.reply.out.is_empty() {
                conn.wbuf.extend_from_slice(&req.reply.out);
                req.reply.out.clear();
            }
            if !req.reply.ended {
                break;
            }
            let close = !req.keep_alive || req.reply.native_close;
            conn.inflight.pop_front();
            if conn.phase != Phase::Body(front) {
                // (A request whose streamed body is still arriving is freed when the body ends.) Retired, not
                // freed: JS may read the request until the end of this loop turn.
                self.reqs.retire(front);
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
    pub(crate) fn complete(&mut self, idx: usize) {
        let req = self.reqs.get_mut(idx);
        req.reply.ended = true;
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
        if conn.is_stream() {
            // Its task or the HTTP/2 pump takes the answer from the record.
            req.answer_native();
            return self.touch(cid);
        }
        let front = conn.inflight.front() == Some(&idx);
        if front {
            if conn.wbuf.is_empty() {
                // Nothing before it: the answer's buffer becomes the output (no copy of a file body read into
                // it), and the empty output buffer, with its capacity, is the next answer's.
                std::mem::swap(&mut conn.wbuf, &mut req.reply.native);
            } else {
                conn.wbuf.extend_from_slice(&req.reply.native);
            }
        } else {
            req.reply.out.extend_from_slice(&req.reply.native);
        }
        if req.reply.file.is_some() {
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
    pub(crate) fn writable_req(&mut self, id: u32) -> Option<usize> {
        let idx = self.reqs.lookup(id)?;
        let req = self.reqs.get_mut(idx);
        if req.detached {
            if !req.reply.ended {
                req.reply.ended = true;
                self.reqs.free(idx);
            }
            return None;
        }
        if req.reply.ended || req.action == Some(Action::Native) {
            return None;
        }
        Some(idx)
    }

    /// Writes a response head for `idx` into its output place: encoded by gale-http for HTTP/1.1, or kept as
    /// fields on a stream (HTTP/2, HTTP/3). `len` is the body's length when the whole body is at hand.
    pub(crate) fn write_head(&mut self, idx: usize, reply: &Reply, len: Option<usize>) {
        let closing = self.closing;
        let req = self.reqs.get_mut(idx);
        let conn = &mut self.conns[req.conn];
        let last = conn.inflight.back() == Some(&idx);
        if (closing && last) || reply.close {
            req.keep_alive = false;
        }
        let no_body = gale_http::has_no_body(reply.status);
        // A streamed body with a declared length goes out with Content-Length, not chunked. A response without a
        // body (HEAD, 204, 304) sends none of it, so it owes none: counting it would end it "short" (a reset stream).
        let body_len = match (len, reply.length) {
            (None, Some(declared)) => {
                if !req.head_only && !no_body {
                    req.reply.declared_left = Some(declared);
                }
                Some(declared)
            }
            // A HEAD answer carries the length of the body a GET would have had.
            (Some(0), Some(declared)) if req.head_only => Some(declared),
            (len, _) => len.map(|n| n as u64),
        };
        let head = ResponseHead {
            status: reply.status,
            reason: reply.reason,
            content_type: reply.content_type,
            fields: reply.headers,
            body_len,
        };
        if no_body {
            req.head_only = true;
        }
        req.reply.started = true;
        if conn.is_stream() {
            req.reply.h2_head = Some(gale_h2::response(&head));
            return;
        }
        let front = conn.inflight.front() == Some(&idx);
        let out = if front {
            &mut conn.wbuf
        } else {
            &mut req.reply.out
        };
        let e = encode_head(out, &head, &self.date, req.minor, req.keep_alive);
        req.keep_alive = e.keep_alive;
        req.reply.chunked = e.framing == Framing::Chunked;
    }

    /// Appends body bytes for a started response (framed when chunked; dropped for HEAD).
    pub(crate) fn write_body(
        &mut self,
        idx: usize,
        len: usize,
        fill: impl FnOnce(&mut Vec<u8>),
        last: bool,
    ) {
        let req = self.reqs.get_mut(idx);
        let conn = &mut self.conns[req.conn];
        let front = conn.inflight.front() == Some(&idx);
        let out = if front {
            &mut conn.wbuf
        } else {
            &mut req.reply.out
        };
        if req.head_only {
            return;
        }
        if let Some(left) = req.reply.declared_left {
            // Content-Length was declared: never send more than it said.
            let start = out.len();
            append_with(out, len, fill);
            let keep = (len as u64).min(left);
            out.truncate(start + keep as usize);
            req.reply.declared_left = Some(left - keep);
            if last && left > keep {
                // Fewer bytes than declared: the client can only tell the body ended short
                // from the connection closing.
                req.keep_alive = false;
                req.reply.native_close = true;
            }
            return;
        }
        if req.reply.chunked {
            if len > 0 {
                write_chunk_header(out, len);
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
    pub(crate) fn pending_for(&self, idx: usize) -> usize {
        let req = self.reqs.get(idx);
        match self.conns.get(req.conn) {
            Some(c) if c.inflight.front() == Some(&idx) => c.pending(),
            _ => req.reply.out.len(),
        }
    }
}
