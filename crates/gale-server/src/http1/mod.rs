//! HTTP/1.1 on a connection: the state machine every connection starts in (head → route → body → dispatch or native
//! answer) and its error answers for bad input; a connection that left HTTP/1.1 (a WebSocket, HTTP/2, a pulled
//! stream's request) has its input handed on here by its phase. Works on `Inner` only; never calls JS.

mod body;
mod head;

use gale_http::Error as HttpError;

use crate::conn::Phase;
use crate::engine::{Inner, Step};
use crate::request::Action;
use crate::Event;

pub(crate) use body::read_body_direct;

impl Inner {
    /// One step through connection `cid`'s input `data` from `*pos`: what its phase says comes next. `Step::Stop`
    /// when more input (or JS) is needed; `Step::Dispatch` hands a routed request to JS.
    pub fn step(&mut self, cid: usize, data: &[u8], pos: &mut usize) -> Step {
        let Some(conn) = self.conns.get_mut(cid) else {
            return Step::Stop;
        };
        match conn.phase {
            Phase::Done | Phase::Lingering => {
                // Input after `Connection: close` or an error is dropped.
                *pos = data.len();
                Step::Stop
            }
            Phase::Body(_) if conn.read_paused => Step::Stop,
            Phase::Body(idx) => self.feed_body(idx, data, pos),
            Phase::Ws => self.ws_step(cid, data, pos),
            Phase::H2 => self.h2_step(cid, data, pos),
            Phase::Pulled => self.pulled_step(cid),
            Phase::Upgrade(_) => {
                // The switch waits for JS's answer; what follows belongs to the new protocol.
                conn.read_paused = true;
                Step::Stop
            }
            Phase::Head => self.head(cid, data, pos),
        }
    }

    /// The whole request is in: answer natively or hand it to JS.
    pub(crate) fn finish_request(&mut self, idx: usize) -> Step {
        let req = self.reqs.get_mut(idx);
        let cid = req.conn;
        let keep_alive = req.keep_alive && !req.reply.native_close;
        let action = req.action;
        let conn = &mut self.conns[cid];
        conn.phase = if keep_alive { Phase::Head } else { Phase::Done };
        conn.since = self.now;
        match action {
            Some(Action::Js(route)) => {
                let req = self.reqs.get_mut(idx);
                req.js_owned = true;
                Step::Dispatch(req.id(idx), route)
            }
            Some(Action::Static(m)) => {
                let tail = self.reqs.get(idx).params[0].span;
                self.serve_static(idx, m as usize, tail);
                self.end_native(idx);
                Step::Continue
            }
            _ => {
                self.end_native(idx);
                Step::Continue
            }
        }
    }

    /// Answers a request with an error and stops reading the connection. When JS already has the
    /// request (streamed body), its body reader gets the error instead and JS answers.
    pub fn fail(&mut self, idx: usize, err: &HttpError) {
        let req = self.reqs.get_mut(idx);
        let cid = req.conn;
        if req.body_in.streaming {
            req.body_in.error = err.status();
            req.keep_alive = false;
            let id = req.id(idx);
            let orphan = req.reply.ended && !self.conns[cid].inflight.contains(&idx);
            if req.body_in.wanted {
                req.body_in.wanted = false;
                self.events.push_back(Event::Body(id));
            }
            let conn = &mut self.conns[cid];
            conn.phase = Phase::Done;
            if orphan {
                self.reqs.retire(idx);
                conn.close_after_flush = true;
                self.touch(cid);
            }
            return;
        }
        crate::wire::native_error(req, false, &self.date, err);
        self.conns[cid].phase = Phase::Done;
        self.end_native(idx);
    }

    /// A connection that should have begun with the HTTP/2 preface and did not: SETTINGS and GOAWAY(PROTOCOL_ERROR),
    /// then the connection closes; no request is made of its input.
    fn preface_error(&mut self, cid: usize) {
        let Some(conn) = self.conns.get_mut(cid) else {
            return;
        };
        gale_h2::preface_error(&mut conn.wbuf);
        conn.phase = Phase::Done;
        conn.close_after_flush = true;
        self.touch(cid);
    }

    /// Answers bad input that produced no request record yet.
    pub fn fail_new(&mut self, cid: usize, err: &HttpError) {
        if let Some(idx) = self.reqs.alloc(cid) {
            self.conns[cid].inflight.push_back(idx);
            self.fail(idx, err);
        } else {
            self.close_conn(cid);
        }
    }
}
