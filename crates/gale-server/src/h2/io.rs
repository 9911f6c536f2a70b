//! The HTTP/2 connection's side of the engine's plumbing: the output pump and flush, and the hooks the shared
//! paths call for an HTTP/2 connection (graceful close with GOAWAY, timeouts, a closing socket, and the response
//! API's native answers, body hand-over and destroy), each a branch on `Conn::h2` so HTTP/1.1 never pays for it.

use super::stream::Pass;
use super::{H2Conn, State};
use crate::conn::Phase;
use crate::engine::Inner;
use crate::Event;

impl Inner {
    /// Moves response bytes of every stream into h2 (at most the flush budget: the high-water mark less what
    /// is already waiting for the socket) and the frames h2 writes into the connection's write buffer.
    /// True when a stream stopped at the budget with more to send.
    pub(crate) fn h2_pump(&mut self, cid: usize) -> bool {
        let hwm = self.cfg.high_water_mark;
        let now = self.now;
        let Inner {
            conns,
            reqs,
            events,
            alt_svc,
            date_field,
            pipes,
            dirty,
            ..
        } = self;
        let server = crate::reply::ServerFields {
            date: date_field,
            alt_svc: alt_svc.as_ref(),
        };
        let Some(conn) = conns.get_mut(cid) else {
            return false;
        };
        let Some(h2) = conn.h2.as_deref_mut() else {
            return false;
        };
        let mut budget = hwm.saturating_sub(conn.wbuf.len() - conn.wpos);
        let mut more = false;
        let mut alive = !h2.is_done();
        // WebSocket streams finished in this pump: their connections close after it.
        let mut ended = Vec::new();
        // A few passes at most: each sends within the budget, and another runs only when the last one sent
        // something or h2 assigned capacity meanwhile.
        for pass in 0..8 {
            if !alive {
                break;
            }
            let before = budget;
            let n = h2.streams.len();
            h2.finished.clear();
            for k in 0..n {
                let i = (h2.cursor + k) % n;
                let st = &mut h2.streams[i];
                match st.output(
                    reqs.get_mut(st.idx),
                    &mut budget,
                    hwm,
                    server,
                    events,
                    &h2.swaker,
                ) {
                    Pass::Keep => {}
                    Pass::More => more = true,
                    Pass::Finished => {
                        reqs.let_go(st.idx, events);
                        h2.finished.push(i);
                    }
                }
            }
            if n > 0 {
                h2.cursor = (h2.cursor + 1) % n;
            }
            h2.remove_finished(now);
            if !h2.tunnels.is_empty() {
                more |= h2.tunnels_output(pipes, &mut budget, dirty, &mut ended);
            }
            alive = h2.drive_if_woken();
            // h2 took everything handed to it and wrote its frames; another pass is only for a stream it woke
            // meanwhile (capacity assigned to one that waited for window, say).
            if budget == 0 {
                // Out of budget: a stream h2 gave window meanwhile sends once the output drains (the flush pumps
                // again while `more`).
                more |= h2.streams_woken();
                break;
            }
            if !h2.streams_woken() {
                break;
            }
            if pass == 7 && budget < before {
                // Still sending at the last pass: the flush pumps again once this output is written.
                more = true;
            }
        }
        h2.pipe.take_output(&mut conn.wbuf);
        self.h2_tunnels_close(ended);
        if !alive {
            self.h2_over(cid);
        }
        more
    }

    /// The h2 connection ended (closed gracefully, by the client, or for an error whose GOAWAY is already in
    /// the output): every stream's record is let go, and the socket closes once the output is written.
    pub(crate) fn h2_over(&mut self, cid: usize) {
        let Inner {
            conns,
            reqs,
            events,
            ..
        } = self;
        let Some(conn) = conns.get_mut(cid) else {
            return;
        };
        let Some(h2) = conn.h2.as_deref_mut() else {
            return;
        };
        if h2.over {
            return;
        }
        h2.over = true;
        h2.state = State::Done;
        h2.release_all(reqs, events);
        let keys = h2.take_tunnels();
        conn.close_after_flush = true;
        self.h2_tunnels_close(keys);
    }

    /// The connection's flush: output of the streams into h2, frames onto the socket, until everything is
    /// written, the socket is full (the writable edge continues) or no stream has more within its window.
    pub(crate) fn h2_flush(&mut self, cid: usize) {
        let mut progressed = false;
        loop {
            let more = self.h2_pump(cid);
            if !self.write_wbuf(cid, &mut progressed) {
                return;
            }
            if !more {
                break;
            }
        }
        let hwm = self.cfg.high_water_mark;
        let Some(conn) = self.conns.get_mut(cid) else {
            return;
        };
        if conn.close_after_flush {
            self.shut_write(cid);
            return;
        }
        if conn.read_paused && conn.pending() <= hwm && conn.phase == Phase::H2 {
            conn.read_paused = false;
            self.deferred.push(cid);
        }
    }

    /// Graceful close (`app.close()`, idle timeout): GOAWAY, streams in flight finish, then the socket closes.
    pub(crate) fn h2_goaway(&mut self, cid: usize) {
        let now = self.now;
        let Some(conn) = self.conns.get_mut(cid) else {
            return;
        };
        let Some(h2) = conn.h2.as_deref_mut() else {
            return;
        };
        if h2.goaway_ms.is_some() {
            return;
        }
        h2.goaway_ms = Some(now);
        match &mut h2.state {
            State::Open(c) => {
                c.graceful_shutdown();
                // Called on the connection itself, which wakes nobody: the pump must poll it to send the GOAWAY.
                h2.waker.wake_by_ref();
            }
            State::Handshake(_) => {
                h2.state = State::Done;
                conn.close_after_flush = true;
            }
            State::Done => {}
        }
        self.touch(cid);
    }

    /// Timeouts of an HTTP/2 connection, from the tick: an unfinished handshake (`headersTimeout`), an idle
    /// connection (`keepAliveTimeout`: GOAWAY), a GOAWAY the client ignores, request bodies (`requestTimeout`).
    pub(crate) fn h2_tick(&mut self, cid: usize) {
        let now = self.now;
        let cfg = &self.cfg;
        let Some(conn) = self.conns.get(cid) else {
            return;
        };
        let Some(h2) = conn.h2.as_deref() else {
            return;
        };
        // Unfinished until the client's first frame (its SETTINGS) came after the preface.
        let handshaking = matches!(h2.state, State::Handshake(_)) || !h2.guard.started();
        if handshaking && now.saturating_sub(h2.started_ms) > cfg.headers_timeout_ms {
            return self.close_conn(cid);
        }
        match h2.goaway_ms {
            // The client neither acknowledged the GOAWAY's PING nor closed: close now.
            Some(t) if h2.idle() && now.saturating_sub(t) > 2_000 => return self.close_conn(cid),
            None if h2.idle()
                && conn.pending() == 0
                && now.saturating_sub(h2.active_ms) > cfg.keep_alive_timeout_ms =>
            {
                return self.h2_goaway(cid)
            }
            _ => {}
        }
        let timeout = cfg.request_timeout_ms;
        let (h2, reqs, events) = h2_of!(self, cid);
        let Some(h2) = h2 else {
            return;
        };
        let mut woke = false;
        for st in &mut h2.streams {
            if st.body_open && st.pending.is_none() && now.saturating_sub(st.since) > timeout {
                st.body_timeout(reqs.get_mut(st.idx), events);
                woke = true;
            }
        }
        if woke {
            self.touch(cid);
        }
    }

    /// JS took the body received so far: give its capacity back to the client's window.
    pub(crate) fn h2_body_taken(&mut self, cid: usize, idx: usize) {
        let Some(h2) = self.conns.get_mut(cid).and_then(|c| c.h2.as_deref_mut()) else {
            return;
        };
        if let Some(i) = h2.position(idx) {
            if h2.streams[i].held > 0 {
                h2.streams[i].release_held();
                self.touch(cid);
            }
        }
    }

    /// Ends one stream with RST_STREAM(INTERNAL_ERROR) instead of the whole connection (`destroy`, a handler
    /// writing past `maxWriteBuffer`): what HTTP/1.1 does by closing the connection.
    pub(crate) fn h2_reset(&mut self, idx: usize) {
        let cid = self.reqs.get(idx).conn;
        let (h2, reqs, events) = h2_of!(self, cid);
        let Some(h2) = h2 else {
            return;
        };
        if let Some(i) = h2.position(idx) {
            let mut st = h2.streams.swap_remove(i);
            st.reset(h2::Reason::INTERNAL_ERROR);
            reqs.let_go(idx, events);
        }
        self.touch(cid);
    }

    /// Ends one stream's response early, whichever protocol carries it (`Conn::is_stream`).
    pub(crate) fn stream_reset(&mut self, idx: usize) {
        let cid = self.reqs.get(idx).conn;
        if self.conns.get(cid).is_some_and(|c| c.pulled.is_some()) {
            self.pulled_reset(idx);
        } else {
            self.h2_reset(idx);
        }
    }
}

impl H2Conn {
    /// Lets go of every stream (the connection is closing): records JS still answers are detached and JS
    /// hears `Abort`; the rest are freed. Requests found but not yet handed to JS are simply freed.
    pub(crate) fn release_all(
        &mut self,
        reqs: &mut crate::request::ReqPool,
        events: &mut std::collections::VecDeque<Event>,
    ) {
        for (id, _) in self.dispatch.drain(..) {
            if let Some(idx) = reqs.lookup(id) {
                reqs.get_mut(idx).js_owned = false;
            }
        }
        for st in self.streams.drain(..) {
            reqs.let_go(st.idx, events);
        }
    }
}
