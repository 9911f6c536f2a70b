//! A request head kept as bytes and parsed again when JS asks: the upgrade request of a socket whose JS side has not
//! read `ws.req` yet (kept with the socket instead of a JS request object per idle socket), and the head a layer that
//! cannot know when reads stop (the Express layer) copies at a response's end (`Server::req_keep`).

use std::net::SocketAddr;

use gale_http::{parse_head, HeaderSpan, Limits, RequestHead};

use crate::request::Req;
use crate::ws::sid_cid;
use crate::Server;

/// The head of a closed socket's upgrade request, kept (`Inner::ws.heads`) until JS, told of the close, takes it.
pub(crate) struct ClosedHead {
    pub head: Box<[u8]>,
    pub peer: SocketAddr,
    pub secure: bool,
    /// The JS route of a socket the engine accepted and JS never adopted (its close handler adopts it).
    pub unadopted: Option<u32>,
}

/// What JS may read of `req`: the request line and headers, through the last header's last byte (the record's buffer
/// is pooled and larger; line ends in between stay as sent). [`KeptHead::parse`] reads it again once a blank line is
/// appended.
pub(crate) fn head_bytes(req: &Req) -> &[u8] {
    let start = req.method.start as usize;
    let end = req
        .headers
        .iter()
        .map(|h| h.value.end.max(h.name.end))
        .fold(req.target.end, u32::max) as usize;
    &req.head[start..end]
}

/// One exact-size copy of [`head_bytes`], ended with a blank line so it parses again alone.
pub(crate) fn keep(req: &Req) -> Box<[u8]> {
    let bytes = head_bytes(req);
    let mut kept = Vec::with_capacity(bytes.len() + 4);
    kept.extend_from_slice(bytes);
    kept.extend_from_slice(b"\r\n\r\n");
    kept.into_boxed_slice()
}

/// A kept request head, parsed again for JS.
pub struct KeptHead<'a> {
    head: &'a [u8],
    parsed: RequestHead,
    headers: Vec<HeaderSpan>,
}

impl<'a> KeptHead<'a> {
    /// Parses bytes `keep` made (None for anything else). The request passed the server's own limits once; these only
    /// make sure the same bytes parse the same way again, whatever limits the server had.
    pub fn parse(head: &'a [u8]) -> Option<KeptHead<'a>> {
        let limits = Limits {
            max_head_bytes: usize::MAX,
            max_headers: usize::MAX,
            max_uri_bytes: usize::MAX,
            strict_host: false,
        };
        let mut headers = Vec::new();
        let parsed = parse_head(head, &limits, &mut headers).ok()??;
        Some(KeptHead {
            head,
            parsed,
            headers,
        })
    }

    /// The method, e.g. `GET`.
    pub fn method(&self) -> &[u8] {
        self.parsed.method.get(self.head)
    }

    /// The raw request-target, query included.
    pub fn target(&self) -> &[u8] {
        self.parsed.target.get(self.head)
    }

    /// 1 for HTTP/1.1, 0 for HTTP/1.0 (an HTTP/2 request's head is kept in HTTP/1.1 form: 1).
    pub fn minor_version(&self) -> u8 {
        self.parsed.minor_version
    }

    /// Headers in arrival order, names as sent.
    pub fn headers(&self) -> impl Iterator<Item = (&[u8], &[u8])> {
        self.headers
            .iter()
            .map(|h| (h.name.get(self.head), h.value.get(self.head)))
    }
}

impl Server {
    /// Hands socket `sid`'s kept upgrade request to `f` with the peer address and whether the connection was TLS, and
    /// forgets it; None when none is kept (the socket was accepted without `keep_head`, or JS took it already). The
    /// head of a socket that closed is kept until taken, so JS can read the request when it hears of the close.
    pub fn ws_take_request<R>(
        &self,
        sid: u32,
        f: impl FnOnce(&KeptHead, SocketAddr, bool) -> R,
    ) -> Option<R> {
        let (head, peer, secure) = {
            let mut inner = self.inner.borrow_mut();
            let live = inner
                .conns
                .get_mut(sid_cid(sid))
                .filter(|c| c.ws.as_ref().is_some_and(|w| w.sid == sid));
            match live {
                Some(conn) => {
                    let head = conn.ws.as_mut()?.kept.take()?;
                    (head, conn.peer, conn.tls.is_some())
                }
                None => {
                    let c = inner.ws.heads.remove(&sid)?;
                    (c.head, c.peer, c.secure)
                }
            }
        };
        Some(f(&KeptHead::parse(&head)?, peer, secure))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use gale_http::Span;

    fn span(s: usize, e: usize) -> Span {
        Span {
            start: s as u32,
            end: e as u32,
        }
    }

    #[test]
    fn a_kept_head_holds_only_the_head_and_parses_as_the_record() {
        // A pooled record's buffer: bytes before and after the head that the copy must leave out.
        let req = Req {
            head: b"xxGET /chat?room=1 HTTP/1.1\r\nHost: a\r\nX-Y:  z \r\n\r\nBODY".to_vec(),
            method: span(2, 5),
            target: span(6, 18),
            minor: 1,
            headers: vec![
                HeaderSpan {
                    name: span(29, 33),
                    value: span(35, 36),
                },
                HeaderSpan {
                    name: span(38, 41),
                    value: span(44, 45),
                },
            ],
            ..Req::default()
        };
        let kept = keep(&req);
        assert_eq!(
            &*kept,
            &b"GET /chat?room=1 HTTP/1.1\r\nHost: a\r\nX-Y:  z\r\n\r\n"[..]
        );
        let k = KeptHead::parse(&kept).unwrap();
        assert_eq!(k.method(), b"GET");
        assert_eq!(k.target(), b"/chat?room=1");
        assert_eq!(k.minor_version(), 1);
        let hs: Vec<_> = k.headers().collect();
        assert_eq!(
            hs,
            vec![(&b"Host"[..], &b"a"[..]), (&b"X-Y"[..], &b"z"[..])]
        );
    }

    #[test]
    fn an_empty_last_value_and_bare_lf_lines_parse_again() {
        let req = Req {
            head: b"GET / HTTP/1.0\nA: 1\nB:\n\n".to_vec(),
            method: span(0, 3),
            target: span(4, 5),
            headers: vec![
                HeaderSpan {
                    name: span(15, 16),
                    value: span(18, 19),
                },
                HeaderSpan {
                    name: span(20, 21),
                    value: span(22, 22),
                },
            ],
            ..Req::default()
        };
        let kept = keep(&req);
        let k = KeptHead::parse(&kept).unwrap();
        assert_eq!(k.minor_version(), 0);
        let hs: Vec<_> = k.headers().collect();
        assert_eq!(hs, vec![(&b"A"[..], &b"1"[..]), (&b"B"[..], &b""[..])]);
    }
}
