//! Read-only access to a request record for the binding: method, target, headers, params, body, peer.
//! Everything is borrowed from the record; the binding copies only what JS asks for.

use std::net::SocketAddr;

use crate::request::Req;
use crate::Server;

/// A borrowed view of one request, valid for the duration of `Server::with_req`'s closure.
pub struct ReqView<'a> {
    req: &'a Req,
    peer: Option<SocketAddr>,
    secure: bool,
}

impl<'a> ReqView<'a> {
    /// The method token, e.g. `b"GET"`.
    pub fn method(&self) -> &'a [u8] {
        self.req.method.get(&self.req.head)
    }

    /// The raw request-target, query included.
    pub fn target(&self) -> &'a [u8] {
        self.req.target.get(&self.req.head)
    }

    /// The path part of the target (not percent-decoded).
    pub fn path(&self) -> &'a [u8] {
        self.req.path.get(&self.req.head)
    }

    /// The query string without `?`, if any.
    pub fn query(&self) -> Option<&'a [u8]> {
        self.req.query.map(|q| q.get(&self.req.head))
    }

    /// 0 for HTTP/1.0, 1 for HTTP/1.1.
    pub fn minor_version(&self) -> u8 {
        self.req.minor
    }

    /// Headers in arrival order, names as sent.
    pub fn headers(&self) -> impl Iterator<Item = (&'a [u8], &'a [u8])> + 'a {
        let head = &self.req.head;
        self.req
            .headers
            .iter()
            .map(move |h| (h.name.get(head), h.value.get(head)))
    }

    /// The first header named `name` (ASCII case-insensitive).
    pub fn header(&self, name: &[u8]) -> Option<&'a [u8]> {
        self.headers()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v)
    }

    /// The request line and headers as received, through the last header's last byte (no blank line): what a layer
    /// that cannot know when reads stop copies at the response's end, to parse again with [`crate::KeptHead::parse`]
    /// (after appending `\r\n\r\n`) once the engine has let go of the record. An HTTP/2 request's head is in HTTP/1.1
    /// form, so its version is [`ReqView::minor_version`]'s, not the copy's.
    pub fn head_bytes(&self) -> &'a [u8] {
        crate::ws::head_bytes(self.req)
    }

    /// Route params in pattern order, percent-decoded; None for an optional param that matched nothing.
    pub fn params(&self) -> impl Iterator<Item = Option<&'a [u8]>> + 'a {
        let req = self.req;
        req.params
            .iter()
            .map(move |p| (p.span != crate::engine::ABSENT_SPAN).then(|| req.param(p)))
    }

    /// The whole request body (bodies are received before the handler runs).
    pub fn body(&self) -> &'a [u8] {
        &self.req.body_in.buf
    }

    /// The peer address, while the connection is open.
    pub fn peer(&self) -> Option<SocketAddr> {
        self.peer
    }

    /// The request came over TLS.
    pub fn secure(&self) -> bool {
        self.secure
    }
}

impl Server {
    /// Runs `f` on request `id` if it is still known (live or awaiting JS after an abort).
    pub fn with_req<R>(&self, id: u32, f: impl FnOnce(&ReqView) -> R) -> Option<R> {
        let inner = self.inner.borrow();
        let idx = inner.reqs.lookup(id)?;
        let req = inner.reqs.get(idx);
        let conn = (!req.detached).then(|| inner.conns.get(req.conn)).flatten();
        let peer = conn.map(|c| c.peer);
        let secure = conn.is_some_and(|c| c.io.secure(c.tls.is_some(), &inner.pipes));
        Some(f(&ReqView { req, peer, secure }))
    }

    /// The local address request `id`'s connection arrived on (None when it is gone). A syscall,
    /// so it is asked for on its own, not with every request.
    pub fn req_local_addr(&self, id: u32) -> Option<SocketAddr> {
        let inner = self.inner.borrow();
        let req = inner.reqs.get(inner.reqs.lookup(id)?);
        if req.detached {
            return None;
        }
        inner.conns.get(req.conn)?.io.local_addr(&inner.pipes)
    }
}
