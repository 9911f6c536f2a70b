//! The response API the binding calls for JS: whole replies, streamed replies, files, request
//! bodies, destroy and release. Each call borrows the engine briefly and schedules events with a kick.

use crate::compress::{choose, compress, header_lines, Scratch};
use crate::conn::Phase;
use crate::wire::Reply;
use crate::Server;
use gale_http::files::Encoding;

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
                Some(idx) if !inner.reqs.get(idx).reply.started => {
                    match inner.compression_for(idx, reply, body_len) {
                        Some(enc) => inner.end_compressed(idx, reply, body_len, fill, enc),
                        None => {
                            inner.write_head(idx, reply, Some(body_len));
                            inner.write_body(idx, body_len, fill, false);
                        }
                    }
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
                Some(idx) if !inner.reqs.get(idx).reply.started => {
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
                Some(idx) if inner.pending_for(idx) > inner.cfg.max_write_buffer => {
                    // The handler keeps writing although write() said to wait for drain, and the
                    // client is not taking the output: abort rather than buffer without bound.
                    let cid = inner.reqs.get(idx).conn;
                    if inner.conns[cid].is_stream() {
                        inner.stream_reset(idx);
                    } else {
                        inner.close_conn(cid);
                    }
                    None
                }
                Some(idx) if inner.reqs.get(idx).reply.started => {
                    inner.write_body(idx, len, fill, false);
                    let cid = inner.reqs.get(idx).conn;
                    inner.touch(cid);
                    let below = inner.pending_for(idx) <= inner.cfg.high_water_mark;
                    if !below {
                        inner.reqs.get_mut(idx).reply.want_drain = true;
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
                Some(idx) if inner.reqs.get(idx).reply.started => {
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
            req.reply.ended = true;
            req.js_owned = false;
            if !req.detached {
                let cid = req.conn;
                if inner.conns[cid].is_stream() {
                    // HTTP/2, HTTP/3: only this stream ends (a reset), not the connection.
                    inner.stream_reset(idx);
                } else {
                    inner.flush(cid);
                    inner.close_conn(cid);
                }
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
                Some(idx) if !inner.reqs.get(idx).reply.started => {
                    match crate::statics::Found::from_path(path, true) {
                        Some(f) => {
                            inner.serve_found(idx, &f, headers, crate::statics::Validators::ALL);
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
            // Gone for body reads: the client left (no more will come), or the response ended (the record is only
            // kept for reads of the request's head until the turn ends).
            if req.retired || (req.detached && !req.body_in.done && req.body_in.error == 0) {
                return None;
            }
            let bytes = std::mem::take(&mut req.body_in.buf);
            let state = if req.body_in.error != 0 {
                req.body_in.error
            } else if !req.body_in.streaming || req.body_in.done {
                1
            } else {
                req.body_in.wanted = true;
                0
            };
            let cid = req.conn;
            let detached = req.detached;
            if !detached {
                let conn = &mut inner.conns[cid];
                if conn.read_paused && conn.phase == Phase::Body(idx) {
                    conn.read_paused = false;
                    inner.deferred.push(cid);
                } else if conn.h2.is_some() {
                    inner.h2_body_taken(cid, idx);
                } else if conn.pulled.is_some() {
                    inner.pulled_body_taken(cid);
                }
            }
            Some((bytes, state))
        };
        self.after_call();
        r
    }

    /// As `take_body`, only when the whole body is here, is valid UTF-8 and at most `limit` bytes (a reader that
    /// wants text takes it as a string then); None, with nothing taken, otherwise.
    pub fn take_body_text(&self, id: u32, limit: usize) -> Option<Vec<u8>> {
        {
            let inner = self.inner.borrow();
            let req = inner.reqs.get(inner.reqs.lookup(id)?);
            let whole = !req.retired
                && !req.detached
                && req.body_in.error == 0
                && (!req.body_in.streaming || req.body_in.done);
            if !whole
                || req.body_in.buf.len() > limit
                || std::str::from_utf8(&req.body_in.buf).is_err()
            {
                return None;
            }
        }
        match self.take_body(id) {
            Some((bytes, 1)) => Some(bytes),
            _ => None,
        }
    }

    /// JS lets go of a request it will not answer (after an abort). The record is retired: JS may read the
    /// request until the end of this loop turn, as after any response.
    pub fn release(&self, id: u32) {
        {
            let mut inner = self.inner.borrow_mut();
            if let Some(idx) = inner.reqs.lookup(id) {
                let req = inner.reqs.get_mut(idx);
                if req.detached {
                    inner.reqs.retire(idx);
                }
            }
        }
        self.after_call();
    }
}

/// Dynamic compression of a whole body (compress.rs codes it; here it is chosen and written).
impl crate::engine::Inner {
    /// The coding a whole body of `len` bytes for request `idx` goes out with, or None (the common
    /// case, decided before any header is looked at when compression is off or the body is small).
    pub(crate) fn compression_for(
        &self,
        idx: usize,
        reply: &crate::Reply,
        len: usize,
    ) -> Option<Encoding> {
        let opts = self.cfg.compression.as_ref()?;
        if len < opts.threshold {
            return None;
        }
        let req = self.reqs.get(idx);
        if req.head_only {
            return None;
        }
        choose(
            opts,
            reply.status,
            reply.content_type,
            reply.headers,
            len,
            req.header(b"accept-encoding"),
        )
    }

    /// Writes a whole response compressed with `enc` (or as it is, when that would not be smaller).
    pub(crate) fn end_compressed(
        &mut self,
        idx: usize,
        reply: &crate::Reply,
        len: usize,
        fill: impl FnOnce(&mut Vec<u8>),
        enc: Encoding,
    ) {
        let opts = self.cfg.compression.expect("checked by compression_for");
        let Scratch {
            mut plain,
            mut packed,
            mut lines,
            mut gzip,
        } = std::mem::take(&mut self.scratch.cz);
        plain.clear();
        plain.reserve(len);
        fill(&mut plain);
        if compress(&opts, enc, &plain, &mut packed, &mut gzip) {
            header_lines(enc, reply.headers, &mut lines);
            let r = crate::Reply {
                headers: &lines,
                ..*reply
            };
            self.write_head(idx, &r, Some(packed.len()));
            self.write_body(idx, packed.len(), |o| o.extend_from_slice(&packed), false);
        } else {
            self.write_head(idx, reply, Some(plain.len()));
            self.write_body(idx, plain.len(), |o| o.extend_from_slice(&plain), false);
        }
        // Scratch kept for the next response, unless one large body made it big.
        for v in [&mut plain, &mut packed, &mut lines] {
            if v.capacity() > 1 << 20 {
                *v = Vec::new();
            }
        }
        self.scratch.cz = Scratch {
            plain,
            packed,
            lines,
            gzip,
        };
    }
}
