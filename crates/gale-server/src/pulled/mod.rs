//! A request whose stream a task owns (an HTTP/3 request stream, h3/bridge.rs): the task hands the engine the
//! request's fields and body, and pulls the response out of the record as the engine's writer leaves it for a
//! stream (the head as fields, body bytes, a file body, the end), as the HTTP/2 pump does; the engine wakes the task
//! when there is news. Each such request has an in-process connection of its own (mem.rs), for the client's address,
//! `req.secure`, the connection limit and an abort when the task ends, but no bytes go through its pipe.
#![cfg_attr(not(unix), allow(dead_code))]

mod server;
pub(crate) mod state;

use std::net::SocketAddr;
use std::task::Waker;

use bytes::Bytes;

pub(crate) use state::{Intake, Pull, Pulled, Refused};

use crate::conn::{Conn, Io, Phase};
use crate::engine::{Inner, Step};
use crate::request::Action;
use crate::transport::MemPipe;
use crate::Event;

/// Unread request body JS may hold before the task stops reading the stream (HTTP/2 stops giving window back).
pub(super) const BODY_BUFFER: usize = 64 * 1024;
/// Largest piece of a file body handed over in one pull.
const FILE_PIECE: usize = 64 * 1024;

impl Inner {
    /// A stream's request: its connection and record, routed; a JS route's dispatch is queued for the parse loop
    /// (the end of this turn), a native answer is ready to pull. `body` is what arrived of the body with the
    /// fields, `more` whether more may come.
    #[allow(clippy::too_many_arguments)]
    fn pulled_open(
        &mut self,
        peer: SocketAddr,
        local: SocketAddr,
        parts: &http::request::Parts,
        body: Option<&[u8]>,
        more: bool,
        waker: Waker,
        wt: Option<u32>,
    ) -> Result<(u32, Intake), Refused> {
        if self.closing {
            return Err(Refused::Closing);
        }
        if self.conns.len() >= self.cfg.max_connections {
            return Err(Refused::Busy(self.busy_head()));
        }
        let mut pipe = MemPipe::new(true, false);
        pipe.local = Some(local);
        pipe.version = Some(3);
        // The pipe's own news (its end) wakes the task, never JS.
        pipe.waker = Some(waker.clone());
        let key = self.pipes.insert(pipe);
        let cid = self.conns.insert(Conn::new(Io::Mem(key), peer, self.now));
        self.pipes[key].conn = Some(cid);
        let Some(idx) = self.reqs.alloc(cid) else {
            self.mem_close(key);
            return Err(Refused::Busy(self.busy_head()));
        };
        let conn = &mut self.conns[cid];
        conn.phase = Phase::Pulled;
        conn.pulled = Some(Box::new(Pulled {
            idx: Some(idx),
            waker,
            dispatch: None,
            // Open for the body that came with the fields; `pulled_intake` below closes it when that was all.
            body_open: true,
            received: 0,
            since: self.now,
            head_sent: false,
            reset: false,
            wt,
            wt_accepted: false,
        }));
        self.stream_request(idx, parts, 3);
        match self.reqs.get(idx).action {
            Some(Action::Js(route)) => {
                let req = self.reqs.get_mut(idx);
                req.js_owned = true;
                req.body_in.streaming = more;
                let id = req.id(idx);
                if let Some(p) = self.conns[cid].pulled.as_deref_mut() {
                    p.dispatch = Some((id, route));
                }
                self.deferred.push(cid);
            }
            Some(Action::Static(m)) => {
                let tail = self.reqs.get(idx).params[0].span;
                self.serve_static(idx, m as usize, tail);
                self.pulled_native(cid, idx);
            }
            _ => self.pulled_native(cid, idx),
        }
        let intake = match body {
            Some(b) => self.pulled_intake(cid, b, !more),
            None => self.pulled_intake(cid, b"", !more),
        };
        Ok((key as u32, intake))
    }

    /// The head of the 503 over `maxConnections`, as a socket's: Retry-After, and the server's Date and Alt-Svc.
    fn busy_head(&self) -> Box<http::Response<()>> {
        let mut resp = gale_h2::response(&gale_http::ResponseHead {
            status: 503,
            reason: b"",
            content_type: crate::engine::BUSY_TYPE,
            fields: crate::engine::BUSY_FIELDS,
            body_len: Some(crate::engine::BUSY_BODY.len() as u64),
        });
        let server = crate::reply::ServerFields {
            date: &self.date_field,
            alt_svc: self.alt_svc.as_ref(),
        };
        server.add(&mut resp);
        Box::new(resp)
    }

    /// A native answer for a stream's request: ready to pull, and no more of the body is wanted.
    fn pulled_native(&mut self, cid: usize, idx: usize) {
        self.reqs.get_mut(idx).answer_native();
        if let Some(p) = self.conns[cid].pulled.as_deref_mut() {
            p.body_open = false;
        }
    }

    /// The parse loop's step for a stream's connection: its dispatch, once (there is nothing to read).
    pub(crate) fn pulled_step(&mut self, cid: usize) -> Step {
        match self.conns[cid]
            .pulled
            .as_deref_mut()
            .and_then(|p| p.dispatch.take())
        {
            Some((id, route)) => Step::Dispatch(id, route),
            None => Step::Stop,
        }
    }

    /// Body bytes for the request of connection `cid` (`end`: the stream's body ended after them): kept for a JS
    /// route still answering, JS woken when it waits for them; past `bodyLimit`, 413.
    fn pulled_intake(&mut self, cid: usize, data: &[u8], end: bool) -> Intake {
        let body_limit = self.cfg.body_limit;
        let Inner {
            conns,
            reqs,
            events,
            date,
            ..
        } = self;
        let Some(p) = conns.get_mut(cid).and_then(|c| c.pulled.as_deref_mut()) else {
            return Intake::Stop;
        };
        let Some(idx) = p.idx.filter(|_| p.body_open) else {
            return Intake::Stop;
        };
        let req = reqs.get_mut(idx);
        p.received += data.len() as u64;
        if p.received > body_limit {
            p.body_open = false;
            let err = gale_http::Error::body_too_large(body_limit);
            if p.dispatch.take().is_some() {
                // JS has not seen the request yet: the engine answers.
                crate::wire::native_error(req, true, date, &err);
                req.answer_native();
                p.waker.wake_by_ref();
            } else {
                // JS reads the body as it comes: its reader fails with 413, and JS answers.
                req.body_in.error = err.status();
                req.wake_body(idx, events);
            }
            return Intake::Stop;
        }
        let before = req.body_in.buf.len();
        let keep = matches!(req.action, Some(Action::Js(_))) && !req.reply.ended;
        if keep {
            req.body_in.buf.extend_from_slice(data);
        }
        if end {
            p.body_open = false;
            req.body_in.done = true;
        }
        if req.body_in.streaming && (req.body_in.buf.len() > before || end) {
            req.wake_body(idx, events);
        }
        match (end, keep) {
            (true, _) => Intake::Stop,
            (false, true) if req.body_in.buf.len() > BODY_BUFFER => Intake::Hold,
            (false, true) => Intake::More,
            // A native answer, or JS already answered: the rest is not wanted. A reader JS started anyway ends here
            // (the body as far as it was kept), as it would once HTTP/1.1 had drained the rest.
            (false, false) => {
                p.body_open = false;
                req.body_in.done = true;
                req.wake_body(idx, events);
                Intake::Stop
            }
        }
    }

    /// What the response of pipe `key`'s request has for the task since the last pull.
    fn pulled_take(&mut self, key: usize) -> Pull {
        let hwm = self.cfg.high_water_mark;
        let Some(cid) = self.pipes.get(key).and_then(|p| p.conn) else {
            return Pull::reset();
        };
        let Inner {
            conns,
            reqs,
            events,
            alt_svc,
            date_field,
            ..
        } = self;
        let Some(p) = conns.get_mut(cid).and_then(|c| c.pulled.as_deref_mut()) else {
            return Pull::reset();
        };
        if p.reset {
            return Pull::reset();
        }
        if p.wt_accepted {
            return Pull {
                accept: true,
                ..Pull::default()
            };
        }
        let Some(idx) = p.idx else {
            return Pull::default();
        };
        let req = reqs.get_mut(idx);
        if !req.reply.started {
            return Pull::default();
        }
        let mut pull = Pull::default();
        if !p.head_sent {
            let Some(mut resp) = req.reply.h2_head.take() else {
                return Pull::reset();
            };
            let server = crate::reply::ServerFields {
                date: date_field,
                alt_svc: alt_svc.as_ref(),
            };
            server.add(&mut resp);
            pull.head = Some(resp);
            p.head_sent = true;
        }
        if !req.reply.out.is_empty() {
            pull.body = Bytes::copy_from_slice(&req.reply.out);
            req.reply.out.clear();
        } else if req.reply.file.is_some() {
            match req.reply.read_piece(FILE_PIECE) {
                Some(piece) => pull.body = piece,
                None => {
                    // The file could not be read: the body cannot be completed.
                    req.reply.file = None;
                    pull.reset = true;
                }
            }
        }
        if req.reply.want_drain && req.reply.out.len() <= hwm {
            req.reply.want_drain = false;
            events.push_back(Event::Drain(req.id(idx)));
        }
        if pull.reset || (req.reply.ended && req.reply.out.is_empty() && req.reply.file.is_none()) {
            // Fewer bytes than a declared Content-Length: the client must not take the body as complete.
            pull.reset |= req.reply.short();
            pull.end = !pull.reset;
            p.idx = None;
            reqs.let_go(idx, events);
        }
        pull
    }

    /// JS accepts the WebTransport session request `idx` asked for (it must be a CONNECT the HTTP/3 task marked, not
    /// answered yet): the record is done as if answered, and the task, woken, sends the 200. The session's id.
    pub(crate) fn pulled_wt_accept(&mut self, idx: usize) -> Option<u32> {
        let cid = self.reqs.get(idx).conn;
        let Inner {
            conns,
            reqs,
            events,
            ..
        } = self;
        let p = conns.get_mut(cid).and_then(|c| c.pulled.as_deref_mut())?;
        let req = reqs.get_mut(idx);
        if p.idx != Some(idx) || p.reset || p.wt_accepted || req.reply.started {
            return None;
        }
        let key = p.wt?;
        p.wt_accepted = true;
        p.body_open = false;
        self.wt_sessions += 1;
        p.idx = None;
        // Answered, as far as the record goes: retired at the end of the turn, no abort for JS.
        req.reply.ended = true;
        reqs.let_go(idx, events);
        p.waker.wake_by_ref();
        Some(key)
    }

    /// Output for a stream's connection: wake its task to pull it.
    pub(crate) fn pulled_flush(&mut self, cid: usize) {
        if let Some(p) = self.conns.get(cid).and_then(|c| c.pulled.as_deref()) {
            p.waker.wake_by_ref();
        }
    }

    /// Ends a stream's response early (`destroy`, a handler writing past `maxWriteBuffer`): the task resets the
    /// stream, as HTTP/1.1 closes its connection.
    pub(crate) fn pulled_reset(&mut self, idx: usize) {
        let cid = self.reqs.get(idx).conn;
        let Inner {
            conns,
            reqs,
            events,
            ..
        } = self;
        if let Some(p) = conns.get_mut(cid).and_then(|c| c.pulled.as_deref_mut()) {
            p.reset = true;
            p.body_open = false;
            if p.idx.take().is_some() {
                reqs.let_go(idx, events);
            }
            p.waker.wake_by_ref();
        }
    }

    /// JS took the body received so far: a task holding the stream's body reads on.
    pub(crate) fn pulled_body_taken(&mut self, cid: usize) {
        self.pulled_flush(cid);
    }

    /// The tick for a stream's connection: a body not all in `requestTimeout` after the request came (as HTTP/1.1's
    /// and HTTP/2's) fails JS's reader with 408, and the task stops reading it.
    pub(crate) fn pulled_tick(&mut self, cid: usize) {
        let now = self.now;
        let timeout = self.cfg.request_timeout_ms;
        let Inner {
            conns,
            reqs,
            events,
            ..
        } = self;
        let Some(p) = conns.get_mut(cid).and_then(|c| c.pulled.as_deref_mut()) else {
            return;
        };
        if let Some(idx) = p.idx {
            if p.body_open && p.dispatch.is_none() && now.saturating_sub(p.since) > timeout {
                p.body_open = false;
                let req = reqs.get_mut(idx);
                req.body_in.error = gale_http::Error::request_timeout().status();
                req.wake_body(idx, events);
                p.waker.wake_by_ref();
            }
        }
    }

    /// The connection of a stream's request is closing (the task ended): a request JS still answers is aborted.
    pub(crate) fn pulled_release(&mut self, p: Pulled) {
        let Some(idx) = p.idx else {
            return;
        };
        if p.dispatch.is_some() {
            // Never handed to JS: nothing to tell it.
            self.reqs.get_mut(idx).js_owned = false;
        }
        self.reqs.let_go(idx, &mut self.events);
    }
}
