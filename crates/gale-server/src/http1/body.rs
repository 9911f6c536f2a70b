//! An HTTP/1.1 request's body as it arrives: Content-Length or chunked framing, kept for a JS handler that has not
//! answered (else discarded), the handler started while the rest streams in, the read paused for a slow reader, and
//! the rest of a body JS is reading received straight into its record (`read_body_direct`).

use std::io::ErrorKind;

use crate::conn::Phase;
use crate::engine::{Inner, Step, BODY_HIGH_WATER};
use crate::request::Action;
use crate::transport::ReadResult;
use crate::Event;

impl Inner {
    pub(crate) fn feed_body(&mut self, idx: usize, data: &[u8], pos: &mut usize) -> Step {
        let avail = &data[*pos..];
        let req = self.reqs.get_mut(idx);
        // Bytes are kept only for a JS handler that has not answered yet.
        let keep = matches!(req.action, Some(Action::Js(_))) && !req.reply.ended;
        let before = req.body_in.buf.len();
        let done = if avail.is_empty() {
            false
        } else if let Some(dec) = req.body_in.chunked.as_mut() {
            let sink = if keep {
                &mut req.body_in.buf
            } else {
                &mut self.scratch.discard
            };
            let r = dec.decode(avail, sink);
            self.scratch.discard.clear();
            match r {
                Ok(d) => {
                    *pos += d.consumed;
                    d.done
                }
                Err(e) => {
                    *pos = data.len();
                    self.fail(idx, &e);
                    return Step::Stop;
                }
            }
        } else {
            let n = (req.body_in.left.min(avail.len() as u64)) as usize;
            if keep {
                req.body_in.buf.extend_from_slice(&avail[..n]);
            }
            req.body_in.left -= n as u64;
            *pos += n;
            req.body_in.left == 0
        };
        self.body_arrived(idx, before, keep, done)
    }

    /// A request in `Phase::Body` whose streamed body the engine can receive straight into the request's buffer:
    /// a JS handler already reading it (js_owned), a Content-Length body (not chunked), bytes still to come. Its
    /// index then; the caller receives at most `body_in.left` bytes into `reqs[idx].body_in.buf` and calls `body_received`.
    pub(crate) fn direct_body(&self, cid: usize) -> Option<usize> {
        let conn = self.conns.get(cid)?;
        let Phase::Body(idx) = conn.phase else {
            return None;
        };
        if conn.read_paused || conn.tls.is_some() {
            return None;
        }
        let req = self.reqs.get(idx);
        let direct = req.body_in.streaming
            && req.js_owned
            && !req.reply.ended
            && req.body_in.chunked.is_none()
            && req.body_in.left > 0
            && matches!(req.action, Some(Action::Js(_)));
        direct.then_some(idx)
    }

    /// `n` body bytes were received straight into `reqs[idx].body` (already counted in its length).
    pub(crate) fn body_received(&mut self, idx: usize, n: usize) -> Step {
        let req = self.reqs.get_mut(idx);
        let before = req.body_in.buf.len() - n;
        req.body_in.left -= n as u64;
        let done = req.body_in.left == 0;
        self.body_arrived(idx, before, true, done)
    }

    /// After body bytes arrived (`before` = the kept body's length before them): complete the request, start its
    /// handler, wake a waiting reader, or pause reading for a reader that is behind.
    fn body_arrived(&mut self, idx: usize, before: usize, keep: bool, done: bool) -> Step {
        if done {
            return self.body_complete(idx);
        }
        let req = self.reqs.get_mut(idx);
        if keep && !req.js_owned {
            // The body is still on its way: the handler starts now and reads the rest as it comes.
            if let Some(Action::Js(route)) = req.action {
                req.body_in.streaming = true;
                req.js_owned = true;
                return Step::Dispatch(req.id(idx), route);
            }
        }
        if req.body_in.streaming && req.body_in.buf.len() > before && req.body_in.wanted {
            req.body_in.wanted = false;
            self.events.push_back(Event::Body(req.id(idx)));
        }
        if req.body_in.streaming && req.body_in.buf.len() > BODY_HIGH_WATER {
            // JS is not keeping up: stop reading until it takes what is buffered.
            let cid = req.conn;
            self.conns[cid].read_paused = true;
        }
        Step::Stop
    }

    /// The last body byte arrived.
    pub(crate) fn body_complete(&mut self, idx: usize) -> Step {
        let req = self.reqs.get_mut(idx);
        if !req.body_in.streaming {
            return self.finish_request(idx);
        }
        req.body_in.done = true;
        let cid = req.conn;
        let keep_alive = req.keep_alive && !req.reply.native_close;
        if req.body_in.wanted {
            req.body_in.wanted = false;
            self.events.push_back(Event::Body(req.id(idx)));
        }
        let orphan = req.reply.ended && !self.conns[cid].inflight.contains(&idx);
        let conn = &mut self.conns[cid];
        conn.phase = if keep_alive { Phase::Head } else { Phase::Done };
        conn.since = self.now;
        if orphan {
            // Answered before its body ended: the engine is done with it (JS may read it until the turn ends).
            self.reqs.retire(idx);
        }
        Step::Continue
    }
}

/// Receives a streamed request body straight into the request's own buffer when the engine may
/// (`Inner::direct_body`): the kernel's copy is the only one, where going through the connection's read buffer adds
/// a second, and the request's buffer grows once per receive instead of doubling. None: not such a request now, or
/// a transport this does not serve (in-process pipes), so the read buffer is used.
pub(crate) fn read_body_direct(inner: &mut Inner, cid: usize) -> Option<ReadResult> {
    let idx = inner.direct_body(cid)?;
    let r = {
        let Inner { conns, reqs, .. } = &mut *inner;
        let req = reqs.get_mut(idx);
        conns[cid].io.recv_body(req)?
    };
    Some(match r {
        Ok((0, _)) => ReadResult::Eof,
        Ok((n, want)) => {
            // Step::Continue (the body ended) or Stop: the parse loop that follows sees the new phase.
            let _ = inner.body_received(idx, n);
            if n == want {
                ReadResult::Full
            } else {
                ReadResult::Short
            }
        }
        Err(e) if e.kind() == ErrorKind::WouldBlock => ReadResult::WouldBlock,
        Err(_) => ReadResult::Error,
    })
}
