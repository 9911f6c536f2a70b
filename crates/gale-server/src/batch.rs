//! Batch scopes: everything one loop turn's callback does runs inside one JS scope, and output, events and records
//! to let go wait for the end of the turn (the kick) so the replies of one turn share a write.

use crate::uv::{self, UvHandle};
use crate::{Event, Server};

/// Most rounds of deferred work and event delivery in one batch before yielding to the loop.
const MAX_ROUNDS: usize = 16;

unsafe extern "C" fn on_kick(h: UvHandle) {
    // SAFETY: the handle's data is a strong Rc<Server> pointer, released only in its close callback.
    let server = unsafe { &*(uv::handle_data(h) as *const Server) };
    server.kick_pending.set(false);
    {
        let mut inner = server.inner.borrow_mut();
        if inner.accepting.more {
            // The backlog's next ACCEPT_BATCH, now that the last one's ready reads ran.
            inner.accept();
        }
    }
    server.begin_batch();
    server.end_batch();
}

impl Server {
    pub(crate) fn begin_batch(&self) {
        self.js_calls.set(0);
        self.handler.begin();
        self.inner.borrow_mut().in_batch = true;
    }

    /// Runs deferred reads, flushes, delivers events, then closes the JS scope (microtasks run,
    /// their responses still corked) and flushes once more.
    pub(crate) fn end_batch(&self) {
        for _ in 0..MAX_ROUNDS {
            let deferred = std::mem::take(&mut self.inner.borrow_mut().deferred);
            for &cid in &deferred {
                self.read_and_process(cid, true);
            }
            self.inner.borrow_mut().flush_dirty();
            let delivered = self.deliver_events();
            if deferred.is_empty() && !delivered {
                break;
            }
        }
        self.handler.end();
        let more = {
            let mut inner = self.inner.borrow_mut();
            inner.flush_dirty();
            // JS has run (microtasks too): the requests answered in this turn are let go.
            inner.reqs.sweep();
            if inner.accepting.retry {
                // Descriptors were freed while accepting was paused (EMFILE): take the backlog.
                inner.accept();
            }
            inner.ring_submit();
            inner.in_batch = false;
            !inner.events.is_empty() || !inner.deferred.is_empty() || inner.accepting.more
        };
        if more {
            self.schedule_kick();
        } else if self.handles.get().is_some_and(|h| h.poll.is_none())
            && self.inner.borrow().pipes.is_empty()
        {
            // Timers made for in-process requests on a server that does not listen: the last one is done.
            self.teardown();
        }
    }

    /// Counts one JS call and runs the microtask checkpoint every [`crate::CHECKPOINT_EVERY`] of them. Called with
    /// no borrow of `inner` held: the jobs it runs may call back into the engine.
    pub(crate) fn counted_js_call(&self) {
        let n = self.js_calls.get() + 1;
        if n >= crate::CHECKPOINT_EVERY {
            self.js_calls.set(0);
            self.handler.checkpoint();
        } else {
            self.js_calls.set(n);
        }
    }

    /// Delivers queued events to JS; true if there were any.
    fn deliver_events(&self) -> bool {
        let mut any = false;
        loop {
            let ev = self.inner.borrow_mut().events.pop_front();
            let Some(ev) = ev else { return any };
            any = true;
            if let Event::Pipe(key) = ev {
                if self.tunnel_news(key) {
                    continue;
                }
            }
            if matches!(ev, Event::Closed) {
                self.teardown();
            }
            self.handler.event(self, ev);
        }
    }

    /// An HTTP/2 WebSocket's pipe news (h2/tunnel.rs) is for its connection's pump, not JS: true when `key` is
    /// such a pipe (the connection is then dirtied, to be flushed in this batch). Kept out of line: the event loop
    /// above is on every batch's path.
    #[inline(never)]
    fn tunnel_news(&self, key: u32) -> bool {
        let mut inner = self.inner.borrow_mut();
        match inner.tunnel_news(key as usize) {
            Some(h2) => {
                inner.touch(h2);
                true
            }
            None => false,
        }
    }

    /// After a call from JS outside a batch: events for JS, output to flush and records to let go wait for the
    /// end of the loop turn (the kick), so replies sent in one turn share a write.
    pub(crate) fn after_call(&self) {
        let inner = self.inner.borrow();
        if !inner.in_batch
            && (!inner.events.is_empty()
                || !inner.deferred.is_empty()
                || !inner.dirty.is_empty()
                || inner.reqs.has_retired())
        {
            drop(inner);
            self.schedule_kick();
        }
    }

    pub(crate) fn schedule_kick(&self) {
        if self.kick_pending.get() {
            return;
        }
        if let Some(h) = self.handles.get() {
            self.kick_pending.set(true);
            // SAFETY: kick is a live timer until teardown, which also clears `handles`.
            unsafe { uv::timer_start(h.kick, on_kick, 0, 0) };
        } else {
            // Never listened: nothing runs on the loop, so deliver right away.
            self.deliver_events();
        }
    }
}
