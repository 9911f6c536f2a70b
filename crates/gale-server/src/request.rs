//! Request records: one per request from head parse until its response is written (or JS lets go).
//! Records are pooled and keep their buffers' capacity, so a steady load allocates nothing.
//! Ids handed to JS carry a generation, so a stale id can never reach a recycled record.

use gale_http::{ChunkedDecoder, HeaderSpan, Span};

use crate::reply::Reply;

/// Index bits in a request id; the rest is the generation.
const INDEX_BITS: u32 = 20;
const INDEX_MASK: u32 = (1 << INDEX_BITS) - 1;
/// Buffer capacity a free record keeps (a typical head, body or response fits).
const FREE_KEEP: usize = 16 * 1024;
/// At most this many requests can be alive at once (pipelined or awaiting JS).
pub(crate) const MAX_REQUESTS: usize = INDEX_MASK as usize;

/// What answers a request once its body has arrived.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Action {
    /// Call the JS route with this id.
    Js(u32),
    /// The bytes in `Reply::native` are the whole response.
    Native,
    /// Static mount with this index; the raw path below the prefix is `params[0]`.
    Static(u32),
}

/// One param capture: a span into `head` or, when it had to be percent-decoded, into `param_buf`.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Param {
    pub span: Span,
    pub decoded: bool,
}

#[derive(Default)]
pub(crate) struct Req {
    pub gen: u32,
    pub in_use: bool,
    /// Connection slab index; meaningless once `detached`.
    pub conn: usize,
    /// The connection closed before the response ended.
    pub detached: bool,
    /// JS holds this request: dispatched and neither ended nor released.
    pub js_owned: bool,
    /// A copy of the request head; every span below points into it.
    pub head: Vec<u8>,
    pub headers: Vec<HeaderSpan>,
    pub method: Span,
    pub target: Span,
    pub path: Span,
    pub query: Option<Span>,
    pub params: Vec<Param>,
    pub param_buf: Vec<u8>,
    pub minor: u8,
    pub keep_alive: bool,
    pub head_only: bool,
    pub expect_continue: bool,
    /// An HTTP/1.x request without a body (no Content-Length above 0, no chunked coding): set before routing, as
    /// a route's native answer (`Target::Answer`) is only for those.
    pub bodyless: bool,
    pub action: Option<Action>,
    /// How the engine's own error answers to this request are written (the server's setting).
    pub error_format: crate::ErrorFormat,
    /// A valid WebSocket upgrade request for this WebSocket route (index into `Inner::ws.routes`).
    pub ws_route: Option<u32>,
    /// Done with, but kept until the end of the loop turn (`ReqPool::retire`): JS may still read it.
    pub retired: bool,
    /// The request's body as it comes in.
    pub body_in: BodyIn,
    /// The response as it goes out.
    pub reply: Reply,
}

/// A request's body as it comes in: the bytes held for JS, what the framing still owes, and what JS waits for.
#[derive(Default)]
pub(crate) struct BodyIn {
    pub buf: Vec<u8>,
    /// Bytes a Content-Length body still owes.
    pub left: u64,
    /// The chunked decoder of a chunked body.
    pub chunked: Option<ChunkedDecoder>,
    /// JS got the request before its body was complete; the rest is handed over as it arrives.
    pub streaming: bool,
    /// The whole body has arrived (streaming requests).
    pub done: bool,
    /// Status of a body error JS must see (400 bad chunk, 408 timeout, 413 too large), or 0.
    pub error: u16,
    /// JS waits for more body: send `Event::Body` when bytes arrive, the body ends or fails.
    pub wanted: bool,
}

impl BodyIn {
    fn reset(&mut self) {
        self.buf.clear();
        self.left = 0;
        self.chunked = None;
        self.streaming = false;
        self.done = false;
        self.error = 0;
        self.wanted = false;
    }
}

impl Req {
    fn reset(&mut self) {
        self.detached = false;
        self.js_owned = false;
        self.head.clear();
        self.headers.clear();
        self.params.clear();
        self.param_buf.clear();
        self.query = None;
        self.keep_alive = true;
        self.head_only = false;
        self.expect_continue = false;
        self.bodyless = false;
        self.action = None;
        self.ws_route = None;
        self.retired = false;
        self.body_in.reset();
        self.reply.reset();
        // No shrinking here: every record reaching alloc() is new or went through free(), which
        // already let go of buffers over FREE_KEEP.
    }

    /// Lets go of buffers above FREE_KEEP bytes of capacity: an upload's or a big response's
    /// memory is not kept for the next request.
    fn shrink(&mut self) {
        if self.body_in.buf.capacity() > FREE_KEEP {
            // An upload's buffer (one that ended unread, say) serves the next upload.
            crate::body_pool::give(std::mem::take(&mut self.body_in.buf));
        }
        for v in [&mut self.reply.out, &mut self.reply.native] {
            if v.capacity() > FREE_KEEP {
                *v = Vec::new();
            }
        }
    }

    /// The first request header named `name` (ASCII case-insensitive).
    pub fn header(&self, name: &[u8]) -> Option<&[u8]> {
        self.headers
            .iter()
            .find(|h| h.name.get(&self.head).eq_ignore_ascii_case(name))
            .map(|h| h.value.get(&self.head))
    }

    /// JS waits for more of the body: it hears `Event::Body` (bytes came, the body ended or failed).
    pub fn wake_body(&mut self, idx: usize, events: &mut std::collections::VecDeque<crate::Event>) {
        if self.body_in.wanted {
            self.body_in.wanted = false;
            events.push_back(crate::Event::Body(self.id(idx)));
        }
    }

    /// On a stream (HTTP/2, HTTP/3), a native answer (404, 405, fixed routes, errors, static files): its head is in
    /// `Reply::h2_head`, its body bytes become the output, and the response is complete.
    pub fn answer_native(&mut self) {
        self.reply.out.clear();
        self.reply.out.extend_from_slice(&self.reply.native);
        self.reply.started = true;
        self.reply.ended = true;
        self.js_owned = false;
    }

    /// The id JS uses for this record.
    pub fn id(&self, index: usize) -> u32 {
        (self.gen << INDEX_BITS) | index as u32
    }

    /// Bytes of one param capture.
    pub fn param(&self, p: &Param) -> &[u8] {
        if p.decoded {
            p.span.get(&self.param_buf)
        } else {
            p.span.get(&self.head)
        }
    }
}

/// The pool of request records.
#[derive(Default)]
pub(crate) struct ReqPool {
    slots: Vec<Req>,
    free: Vec<usize>,
    /// Records ever allocated (requests parsed), for stats.
    pub total: u64,
    /// Records retired in this loop turn, freed by `sweep`.
    retired: Vec<usize>,
    /// The server's error format, given to every record.
    error_format: crate::ErrorFormat,
}

impl ReqPool {
    /// An empty pool whose records answer errors in `error_format`.
    pub fn with_error_format(error_format: crate::ErrorFormat) -> ReqPool {
        ReqPool {
            error_format,
            ..ReqPool::default()
        }
    }

    /// Takes a clean record; `None` when MAX_REQUESTS are alive.
    pub fn alloc(&mut self, conn: usize) -> Option<usize> {
        let idx = match self.free.pop() {
            Some(i) => i,
            None if self.slots.len() < MAX_REQUESTS => {
                self.slots.push(Req::default());
                self.slots.len() - 1
            }
            None => return None,
        };
        let r = &mut self.slots[idx];
        r.reset();
        r.in_use = true;
        r.conn = conn;
        r.error_format = self.error_format;
        self.total += 1;
        Some(idx)
    }

    pub fn free(&mut self, idx: usize) {
        let r = &mut self.slots[idx];
        r.retired = false;
        if r.in_use {
            r.in_use = false;
            // A free record may wait long for reuse (records stay at their high-water count), so
            // it keeps no body or response memory beyond what a small request needs: a burst of
            // aborted 64 KiB uploads would otherwise pin 64 KiB per record (the soak's +30 % RSS).
            r.shrink();
            r.gen = (r.gen + 1) & (u32::MAX >> INDEX_BITS);
            self.free.push(idx);
        }
    }

    /// Lets a record go when its connection closes or its stream (HTTP/2, HTTP/3) ends or is reset: detached with
    /// `Event::Abort` when JS still owes its answer; else retired (JS may read it until the end of the turn), and a
    /// body reader still waiting hears that nothing more comes.
    pub fn let_go(&mut self, idx: usize, events: &mut std::collections::VecDeque<crate::Event>) {
        let r = &mut self.slots[idx];
        if r.js_owned && !r.reply.ended {
            r.detached = true;
            events.push_back(crate::Event::Abort(r.id(idx)));
        } else {
            r.wake_body(idx, events);
            self.retire(idx);
        }
    }

    /// Lets a finished record go at the end of the current loop turn instead of now: until then JS may still
    /// read the request it stands for (a 'finish' listener, microtasks, the code right after `res.send()`),
    /// through the same id, and nothing can reuse the record. `sweep` frees it.
    pub fn retire(&mut self, idx: usize) {
        let r = &mut self.slots[idx];
        if r.in_use && !r.retired {
            r.retired = true;
            self.retired.push(idx);
        }
    }

    /// Frees the records retired in this turn (the end of the loop turn: JS has run its microtasks).
    pub fn sweep(&mut self) {
        let retired = std::mem::take(&mut self.retired);
        for &idx in &retired {
            // A record freed meanwhile (and maybe reused) is no longer marked retired: left alone.
            if self.slots[idx].retired {
                self.free(idx);
            }
        }
        self.retired = retired;
        self.retired.clear();
    }

    /// Marks the retired records of connection `cid` detached: it closed, so its address is no longer theirs.
    pub fn detach_retired(&mut self, cid: usize) {
        for &idx in &self.retired {
            let r = &mut self.slots[idx];
            if r.retired && r.conn == cid {
                r.detached = true;
            }
        }
    }

    /// Records waiting for `sweep`.
    pub fn has_retired(&self) -> bool {
        !self.retired.is_empty()
    }

    /// Resolves a JS id to a live record index.
    pub fn lookup(&self, id: u32) -> Option<usize> {
        let idx = (id & INDEX_MASK) as usize;
        let r = self.slots.get(idx)?;
        (r.in_use && r.gen == id >> INDEX_BITS).then_some(idx)
    }

    pub fn get(&self, idx: usize) -> &Req {
        &self.slots[idx]
    }

    pub fn get_mut(&mut self, idx: usize) -> &mut Req {
        &mut self.slots[idx]
    }

    /// Records in use: requests being parsed, waiting for JS or for their response to be sent.
    pub fn live(&self) -> usize {
        self.slots.len() - self.free.len()
    }

    /// Records allocated so far, in use or pooled.
    pub fn capacity(&self) -> usize {
        self.slots.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stale_ids_never_resolve() {
        let mut pool = ReqPool::default();
        let a = pool.alloc(0).unwrap();
        let id = pool.get(a).id(a);
        assert_eq!(pool.lookup(id), Some(a));
        pool.free(a);
        assert_eq!(pool.lookup(id), None);
        let b = pool.alloc(1).unwrap();
        assert_eq!(a, b, "slot is reused");
        assert_eq!(pool.lookup(id), None, "old id stays stale");
        assert_eq!(pool.lookup(pool.get(b).id(b)), Some(b));
        assert_eq!(pool.live(), 1);
    }

    #[test]
    fn a_retired_record_stays_readable_until_the_sweep_and_is_never_freed_twice() {
        let mut pool = ReqPool::default();
        let a = pool.alloc(0).unwrap();
        let id = pool.get(a).id(a);
        pool.retire(a);
        pool.retire(a);
        assert_eq!(pool.lookup(id), Some(a), "readable until the turn ends");
        assert!(pool.has_retired());
        pool.sweep();
        assert_eq!(pool.lookup(id), None);
        assert!(!pool.has_retired());
        // Retired, then freed by another path and reused before the sweep: the sweep leaves the new one alone.
        let b = pool.alloc(0).unwrap();
        pool.retire(b);
        pool.free(b);
        let c = pool.alloc(1).unwrap();
        assert_eq!(b, c);
        let cid = pool.get(c).id(c);
        pool.sweep();
        assert_eq!(
            pool.lookup(cid),
            Some(c),
            "the sweep must not free a reused record"
        );
    }

    #[test]
    fn reset_clears_state() {
        let mut pool = ReqPool::default();
        let a = pool.alloc(0).unwrap();
        pool.get_mut(a).body_in.buf.extend_from_slice(b"x");
        pool.get_mut(a).reply.ended = true;
        pool.free(a);
        let b = pool.alloc(0).unwrap();
        assert!(pool.get(b).body_in.buf.is_empty());
        assert!(!pool.get(b).reply.ended);
        assert!(pool.get(b).keep_alive);
    }

    #[test]
    fn body_in_reset_leaves_nothing_of_the_last_body() {
        let mut b = BodyIn {
            buf: b"abc".to_vec(),
            left: 9,
            chunked: Some(ChunkedDecoder::new(64)),
            streaming: true,
            done: true,
            error: 413,
            wanted: true,
        };
        b.reset();
        assert!(b.buf.is_empty() && b.buf.capacity() > 0);
        assert!(b.left == 0 && b.chunked.is_none() && b.error == 0);
        assert!(!(b.streaming || b.done || b.wanted));
    }

    #[test]
    fn a_free_record_keeps_no_upload_memory() {
        let mut pool = ReqPool::default();
        let a = pool.alloc(0).unwrap();
        pool.get_mut(a).body_in.buf.reserve(64 * 1024);
        pool.get_mut(a).reply.out.reserve(100 * 1024);
        pool.get_mut(a).reply.native.reserve(512);
        pool.free(a);
        let r = pool.get(a);
        assert_eq!(
            r.body_in.buf.capacity(),
            0,
            "a 64 KiB upload's buffer is let go"
        );
        assert_eq!(
            r.reply.out.capacity(),
            0,
            "a big response's buffer is let go"
        );
        assert!(
            r.reply.native.capacity() >= 512,
            "small buffers stay for the next request"
        );
    }
}
