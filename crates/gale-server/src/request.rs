//! Request records: one per request from head parse until its response is written (or JS lets go).
//! Records are pooled and keep their buffers' capacity, so a steady load allocates nothing.
//! Ids handed to JS carry a generation, so a stale id can never reach a recycled record.

use gale_http::{ChunkedDecoder, HeaderSpan, Span};

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
    /// The bytes in `Req::native` are the whole response.
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
    pub body: Vec<u8>,
    pub body_left: u64,
    pub chunked: Option<ChunkedDecoder>,
    pub action: Option<Action>,
    /// Pre-encoded native response (404, 405, fixed routes, errors), sent once the body is in (on an HTTP/2
    /// stream only its body: the head is in `h2_head`).
    pub native: Vec<u8>,
    /// On an HTTP/2 stream: the response head, built from the reply's fields, until h2 takes it.
    pub h2_head: Option<http::Response<()>>,
    /// The native response ends the connection.
    pub native_close: bool,
    /// The response head has been written (streaming responses).
    pub started: bool,
    pub chunked_out: bool,
    /// Body bytes a streamed response with a declared Content-Length may still send.
    pub declared_left: Option<u64>,
    /// The response is complete.
    pub ended: bool,
    /// Response bytes produced while an earlier pipelined response is still pending.
    pub out: Vec<u8>,
    /// JS wants a drain event when output falls below the high-water mark.
    pub want_drain: bool,
    /// A file body still to send after the head (static files, `res.sendFile`).
    pub file: Option<FileBody>,
    /// JS got the request before its body was complete; the rest is handed over as it arrives.
    pub streaming: bool,
    /// The whole body has arrived (streaming requests).
    pub body_done: bool,
    /// Status of a body error JS must see (400 bad chunk, 408 timeout, 413 too large), or 0.
    pub body_error: u16,
    /// How the engine's own error answers to this request are written (the server's setting).
    pub error_format: crate::ErrorFormat,
    /// JS waits for more body: send `Event::Body` when bytes arrive, the body ends or fails.
    pub want_body: bool,
    /// A valid WebSocket upgrade request for this WebSocket route (index into `Inner::ws.routes`).
    pub ws_route: Option<u32>,
    /// Done with, but kept until the end of the loop turn (`ReqPool::retire`): JS may still read it.
    pub retired: bool,
}

/// The part of a body a response still has to send after its head: a file (sent with sendfile), or
/// bytes shared with the static-file cache (written without copying).
pub(crate) struct FileBody {
    pub source: BodySource,
    pub offset: u64,
    pub remaining: u64,
}

pub(crate) enum BodySource {
    File(std::fs::File),
    Memory(std::rc::Rc<[u8]>),
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
        self.body.clear();
        self.body_left = 0;
        self.chunked = None;
        self.action = None;
        self.native.clear();
        self.h2_head = None;
        self.native_close = false;
        self.started = false;
        self.chunked_out = false;
        self.declared_left = None;
        self.ended = false;
        self.out.clear();
        self.want_drain = false;
        self.file = None;
        self.streaming = false;
        self.body_done = false;
        self.body_error = 0;
        self.want_body = false;
        self.ws_route = None;
        self.retired = false;
        // No shrinking here: every record reaching alloc() is new or went through free(), which
        // already let go of buffers over FREE_KEEP.
    }

    /// Lets go of buffers above FREE_KEEP bytes of capacity: an upload's or a big response's
    /// memory is not kept for the next request.
    fn shrink(&mut self) {
        if self.body.capacity() > FREE_KEEP {
            // An upload's buffer (one that ended unread, say) serves the next upload.
            crate::body_pool::give(std::mem::take(&mut self.body));
        }
        for v in [&mut self.out, &mut self.native] {
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
        pool.get_mut(a).body.extend_from_slice(b"x");
        pool.get_mut(a).ended = true;
        pool.free(a);
        let b = pool.alloc(0).unwrap();
        assert!(pool.get(b).body.is_empty());
        assert!(!pool.get(b).ended);
        assert!(pool.get(b).keep_alive);
    }

    #[test]
    fn a_free_record_keeps_no_upload_memory() {
        let mut pool = ReqPool::default();
        let a = pool.alloc(0).unwrap();
        pool.get_mut(a).body.reserve(64 * 1024);
        pool.get_mut(a).out.reserve(100 * 1024);
        pool.get_mut(a).native.reserve(512);
        pool.free(a);
        let r = pool.get(a);
        assert_eq!(r.body.capacity(), 0, "a 64 KiB upload's buffer is let go");
        assert_eq!(r.out.capacity(), 0, "a big response's buffer is let go");
        assert!(
            r.native.capacity() >= 512,
            "small buffers stay for the next request"
        );
    }
}
