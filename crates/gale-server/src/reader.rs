//! The read path on the JS thread: the watch callback (poller.rs) drains ready sockets, reads into pooled
//! buffers and runs the parse loop, calling JS for each routed request with no engine borrow held.

use crate::engine::{Step, LISTENER};
use crate::transport::ReadResult;
use crate::Server;

impl Server {
    /// The uv_poll callback: drain every ready socket in one batch, inside one JS scope.
    pub(crate) fn on_ready(&self) {
        self.begin_batch();
        let mut events = self.events_buf.borrow_mut();
        {
            let mut inner = self.inner.borrow_mut();
            inner.refresh_clock();
            if inner.poll.drain(&mut events).is_err() {
                events.clear();
            }
        }
        for ev in events.iter() {
            let token = ev.token();
            if token == LISTENER {
                self.inner.borrow_mut().accept();
                continue;
            }
            let cid = token.0;
            if ev.is_writable() || ev.is_error() {
                let mut inner = self.inner.borrow_mut();
                if inner.conns.get(cid).is_some_and(|c| c.want_write) {
                    inner.flush(cid);
                }
            }
            if ev.is_readable() || ev.is_read_closed() || ev.is_error() {
                // A short read empties the queue and new data raises a new edge, so only a FIN or
                // an error needs reading until EAGAIN (the read that sees it).
                self.read_and_process(cid, ev.is_read_closed() || ev.is_error());
            }
        }
        drop(events);
        self.end_batch();
    }

    /// Reads what the socket has and runs the parse loop over it. `greedy` reads until EAGAIN or EOF;
    /// otherwise a short read ends the round (edge-triggered: more data will raise a new edge).
    pub(crate) fn read_and_process(&self, cid: usize, greedy: bool) {
        let mut buf = {
            let mut inner = self.inner.borrow_mut();
            let Some(conn) = inner.conns.get_mut(cid) else {
                return;
            };
            if conn.read_paused {
                return;
            }
            if conn.phase == crate::conn::Phase::Pulled {
                // A stream's request (pulled.rs) is in its record already: nothing to read, its dispatch to hand out.
                drop(inner);
                self.process(cid, &[]);
                return;
            }
            let b = std::mem::take(&mut conn.rbuf);
            let b = if b.capacity() == 0 {
                inner.scratch.take_buf()
            } else {
                b
            };
            // A paused io_uring connection's receive starts again (nothing to do on epoll).
            #[cfg(target_os = "linux")]
            if inner.ring.is_some() {
                inner.ring_resume(cid);
            }
            b
        };
        let mut eof = false;
        // Leftover input from a pause is processed before reading more.
        let mut need_read = buf.is_empty();
        loop {
            let mut last = false;
            if need_read {
                let r = 'read: {
                    let mut inner = self.inner.borrow_mut();
                    let inner = &mut *inner;
                    if buf.is_empty() {
                        if let Some(r) = crate::http1::read_body_direct(inner, cid) {
                            break 'read r;
                        }
                    }
                    let (conn, mut reach) = crate::engine::reach!(inner, cid);
                    let Some(c) = conn else {
                        break 'read ReadResult::Error;
                    };
                    let (r, flush) = c.io.read(c.tls.as_deref_mut(), &mut buf, &mut reach);
                    if flush {
                        inner.touch(cid);
                    }
                    r
                };
                match r {
                    ReadResult::Full => {}
                    ReadResult::Short => last = !greedy && crate::poller::SHORT_READ_DRAINS,
                    ReadResult::WouldBlock => break,
                    ReadResult::Eof => {
                        eof = true;
                        break;
                    }
                    ReadResult::Error => {
                        self.inner.borrow_mut().close_conn(cid);
                        break;
                    }
                }
            }
            need_read = true;
            let used = self.process(cid, &buf);
            buf.drain(..used);
            let inner = self.inner.borrow();
            match inner.conns.get(cid) {
                None => break,
                Some(c) if c.read_paused => break,
                Some(_) if last => break,
                Some(_) => {}
            }
        }
        let mut inner = self.inner.borrow_mut();
        match inner.conns.get_mut(cid) {
            Some(c) if !buf.is_empty() => c.rbuf = buf,
            _ => inner.scratch.give_buf(buf),
        }
        if eof {
            inner.on_eof(cid);
        }
    }

    /// Runs the parse loop over `buf`, calling JS for each routed request. Returns bytes consumed.
    fn process(&self, cid: usize, buf: &[u8]) -> usize {
        let mut pos = 0;
        loop {
            let step = self.inner.borrow_mut().step(cid, buf, &mut pos);
            match step {
                Step::Dispatch(id, route) => {
                    self.handler.request(self, id, route);
                    self.counted_js_call();
                }
                Step::WsMessage {
                    cid,
                    sid,
                    binary,
                    payload,
                } => {
                    self.handler.ws_message(self, sid, &payload, binary);
                    self.inner.borrow_mut().ws_restore(cid, sid, payload);
                    self.counted_js_call();
                }
                Step::Continue => {}
                Step::Stop => return pos,
            }
        }
    }
}
