//! What the task of a stream's request calls (h3/bridge.rs): each call borrows the engine for its part and, outside a
//! batch, leaves events and output to the end of the loop turn.

use std::net::SocketAddr;
use std::rc::Rc;
use std::task::Waker;

use super::{Intake, Pull, Refused, BODY_BUFFER};
use crate::Server;

impl Server {
    /// A stream's request (see `Inner::pulled_open`): its pipe's key, which `mem_close` ends, and what to do with
    /// the rest of the body. `wt`: a WebTransport CONNECT's session id, for JS to accept.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn pulled_open(
        self: &Rc<Self>,
        peer: SocketAddr,
        local: SocketAddr,
        parts: &http::request::Parts,
        body: Option<&[u8]>,
        more: bool,
        waker: Waker,
        wt: Option<u32>,
    ) -> Result<(u32, Intake), Refused> {
        self.ensure_timers().map_err(|_| Refused::Closing)?;
        let r = {
            let mut inner = self.inner.borrow_mut();
            inner.refresh_clock();
            inner.pulled_open(peer, local, parts, body, more, waker, wt)
        };
        self.after_call();
        r
    }

    /// More of the request body of pipe `key` (`end`: the stream's body ended after it).
    pub(crate) fn pulled_body(&self, key: u32, data: &[u8], end: bool) -> Intake {
        let r = {
            let mut inner = self.inner.borrow_mut();
            inner.refresh_clock();
            match inner.pipes.get(key as usize).and_then(|p| p.conn) {
                Some(cid) => inner.pulled_intake(cid, data, end),
                None => Intake::Stop,
            }
        };
        self.after_call();
        r
    }

    /// JS still holds `BODY_BUFFER` of pipe `key`'s request body unread.
    pub(crate) fn pulled_holding(&self, key: u32) -> bool {
        let inner = self.inner.borrow();
        let Some(p) = inner
            .pipes
            .get(key as usize)
            .and_then(|p| inner.conns.get(p.conn?))
            .and_then(|c| c.pulled.as_deref())
        else {
            return false;
        };
        p.body_open
            && p.idx
                .is_some_and(|idx| inner.reqs.get(idx).body_in.buf.len() > BODY_BUFFER)
    }

    /// What the response of pipe `key`'s request has for its stream since the last pull.
    pub(crate) fn pulled_take(&self, key: u32) -> Pull {
        let r = self.inner.borrow_mut().pulled_take(key as usize);
        self.after_call();
        r
    }
}
