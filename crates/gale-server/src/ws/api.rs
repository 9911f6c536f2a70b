//! The WebSocket API the binding calls for JS: routes, accept, send, close, pub/sub and socket facts.
//! Each call borrows the engine briefly; events it causes reach JS from a loop callback (kick).

use std::net::SocketAddr;

use gale_router::{Method, MethodSel};

use crate::routes::Target;
use crate::ws::{sid_cid, SendResult, WsOptions, WsRoute};
use crate::Server;

impl Server {
    /// Registers WebSocket route `pattern` (GET): upgrade requests go to JS route `route`, which runs the
    /// middleware and then accepts with [`Server::ws_accept`]. Returns the param names.
    pub fn add_ws_route(
        &self,
        pattern: &str,
        route: u32,
        opts: WsOptions,
    ) -> Result<Vec<String>, String> {
        if opts.deflate.server_max_window_bits < 8
            || opts.deflate.server_max_window_bits > 15
            || opts.deflate.client_max_window_bits < 8
            || opts.deflate.client_max_window_bits > 15
        {
            return Err("window bits must be from 8 to 15".into());
        }
        let mut inner = self.inner.borrow_mut();
        let wr = inner.ws.routes.len() as u32;
        let get = MethodSel::One(Method::Get);
        let (names, http) = match inner
            .routes
            .router
            .insert(get, pattern, Target::Ws(route, wr))
        {
            Ok(names) => (names, None),
            Err(e) => match inner.routes.router.route_mut(get, pattern) {
                // A GET route owns this path already: upgrades come here, plain GETs stay there.
                Some((target @ Target::Js(_), names)) => {
                    let Target::Js(js) = *target else {
                        unreachable!()
                    };
                    *target = Target::Ws(route, wr);
                    (names, Some(js))
                }
                _ => return Err(e.to_string()),
            },
        };
        inner.ws.routes.push(WsRoute {
            opts,
            shared: None,
            http,
            js: route,
            native: false,
            js_close: false,
        });
        Ok(names)
    }

    /// Lets the engine accept the upgrades of the WebSocket route whose JS route is `route` by itself (`on`), or takes
    /// that back. JS vouches that its upgrade step would accept each alike: a 101 with the first subprotocol offered
    /// and no other header, the head kept for `ws.req`; it learns of each such socket on its first event
    /// ([`Server::ws_adopt`]), and of its close only when it has a close handler (`js_close`). False when no WebSocket
    /// route has that JS route.
    pub fn ws_accept_natively(&self, route: u32, on: bool, js_close: bool) -> bool {
        let mut inner = self.inner.borrow_mut();
        let Some(r) = inner.ws.routes.iter_mut().find(|r| r.js == route) else {
            return false;
        };
        r.native = on;
        r.js_close = on && js_close;
        true
    }

    /// A socket the engine accepted by itself, on JS's first sight of it (an event with an id JS does not know): its
    /// JS route and subprotocol (empty for none), once; None for any other id. Works for a socket that has closed
    /// while its close event is on its way to JS.
    pub fn ws_adopt(&self, sid: u32) -> Option<(u32, Vec<u8>)> {
        let mut inner = self.inner.borrow_mut();
        let inner = &mut *inner;
        let live = inner
            .conns
            .get_mut(sid_cid(sid))
            .and_then(|c| c.ws.as_mut())
            .filter(|w| w.sid == sid);
        let (route, head) = match live {
            Some(ws) => {
                if !ws.unadopted {
                    return None;
                }
                ws.unadopted = false;
                (inner.ws.routes[ws.route as usize].js, ws.kept.as_deref())
            }
            None => {
                let closed = inner.ws.heads.get_mut(&sid)?;
                (closed.unadopted.take()?, Some(&*closed.head))
            }
        };
        let protocol = head
            .and_then(crate::ws::KeptHead::parse)
            .and_then(|h| {
                let hs = gale_ws::parse_request(h.method(), h.minor_version(), h.headers()).ok()?;
                crate::ws::native_protocol(&hs.protocols)
                    .ok()?
                    .map(<[u8]>::to_vec)
            })
            .unwrap_or_default();
        Some((route, protocol))
    }

    /// Accepts upgrade request `id` (sending 101 with `protocol`, if any, as the subprotocol) and
    /// returns the new socket's id; None when it can no longer be upgraded (client gone, answered,
    /// shutting down). Frames the client sent right after its handshake are processed next. With `keep_head`
    /// the request's head stays in the engine, in one exact-size copy, until JS takes it with
    /// [`Server::ws_take_request`] (at the latest when the socket's close event reaches it).
    pub fn ws_accept(
        &self,
        id: u32,
        protocol: Option<&[u8]>,
        headers: &[u8],
        keep_head: bool,
    ) -> Option<u32> {
        let sid = {
            let mut inner = self.inner.borrow_mut();
            let idx = inner.reqs.lookup(id)?;
            inner.ws_accept(idx, protocol, headers, keep_head)
        };
        self.after_call();
        sid
    }

    /// Sends a message of `len` bytes written by `fill` (text unless `binary`; compressed when asked
    /// and negotiated and not under the route's threshold).
    pub fn ws_send(
        &self,
        sid: u32,
        binary: bool,
        compress: bool,
        len: usize,
        fill: impl FnOnce(&mut Vec<u8>),
    ) -> SendResult {
        let r = self
            .inner
            .borrow_mut()
            .ws_send(sid, binary, compress, len, fill);
        self.after_call();
        r
    }

    /// Sends a ping frame.
    pub fn ws_ping(&self, sid: u32, payload: &[u8]) -> SendResult {
        let r = self.inner.borrow_mut().ws_ping(sid, payload);
        self.after_call();
        r
    }

    /// Starts the closing handshake with `code` and `reason` (at most 123 bytes). False when already
    /// closing or gone.
    pub fn ws_close(&self, sid: u32, code: u16, reason: &[u8]) -> bool {
        let ok = {
            let mut inner = self.inner.borrow_mut();
            let cid = sid_cid(sid);
            let open = inner
                .conns
                .get(cid)
                .and_then(|c| c.ws.as_ref())
                .is_some_and(|ws| ws.sid == sid && !ws.close_sent);
            if open {
                inner.ws_send_close(cid, Some(code), reason);
            }
            open
        };
        self.after_call();
        ok
    }

    /// Closes the TCP connection at once (JS hears 1006).
    pub fn ws_terminate(&self, sid: u32) -> bool {
        let ok = {
            let mut inner = self.inner.borrow_mut();
            let cid = sid_cid(sid);
            let live = inner
                .conns
                .get(cid)
                .and_then(|c| c.ws.as_ref())
                .is_some_and(|ws| ws.sid == sid);
            if live {
                inner.close_conn(cid);
            }
            live
        };
        self.after_call();
        ok
    }

    /// Output accepted for this socket and not yet written to the kernel; None when gone.
    pub fn ws_buffered(&self, sid: u32) -> Option<usize> {
        let inner = self.inner.borrow();
        let conn = inner.conns.get(sid_cid(sid))?;
        conn.ws.as_ref().filter(|ws| ws.sid == sid)?;
        Some(conn.pending())
    }

    /// The peer address of a socket.
    pub fn ws_remote(&self, sid: u32) -> Option<SocketAddr> {
        let inner = self.inner.borrow();
        let conn = inner.conns.get(sid_cid(sid))?;
        conn.ws.as_ref().filter(|ws| ws.sid == sid)?;
        Some(conn.peer)
    }

    /// Subscribes a socket to `topic`; false when already subscribed or the socket is gone.
    pub fn ws_subscribe(&self, sid: u32, topic: &[u8]) -> bool {
        let (added, event) = {
            let mut guard = self.inner.borrow_mut();
            let inner = &mut *guard;
            let Some(ws) = inner
                .conns
                .get_mut(sid_cid(sid))
                .and_then(|c| c.ws.as_mut())
                .filter(|ws| ws.sid == sid && !ws.close_sent)
            else {
                return false;
            };
            ws.subscribed = true;
            let added = inner.ws.topics.subscribe(topic, sid);
            let first =
                added && inner.ws.watch_topics && inner.ws.topics.subscribers(topic).len() == 1;
            if first {
                inner.events.push_back(crate::Event::Topic {
                    name: topic.into(),
                    active: true,
                });
            }
            (added, first)
        };
        if event {
            self.after_call();
        }
        added
    }

    /// Unsubscribes a socket from `topic`; false when it was not subscribed.
    pub fn ws_unsubscribe(&self, sid: u32, topic: &[u8]) -> bool {
        let (removed, event) = {
            let mut inner = self.inner.borrow_mut();
            let removed = inner.ws.topics.unsubscribe(topic, sid);
            let last =
                removed && inner.ws.watch_topics && inner.ws.topics.subscribers(topic).is_empty();
            if last {
                inner.events.push_back(crate::Event::Topic {
                    name: topic.into(),
                    active: false,
                });
            }
            (removed, last)
        };
        if event {
            self.after_call();
        }
        removed
    }

    /// Reports topics becoming active (first subscriber) and inactive (last one gone) as
    /// `Event::Topic`; topics active right now are reported at once.
    pub fn watch_topics(&self, on: bool) {
        {
            let mut inner = self.inner.borrow_mut();
            let inner = &mut *inner;
            if on && !inner.ws.watch_topics {
                for name in inner.ws.topics.names() {
                    inner.events.push_back(crate::Event::Topic {
                        name: name.into(),
                        active: true,
                    });
                }
            }
            inner.ws.watch_topics = on;
        }
        self.after_call();
    }

    pub fn ws_is_subscribed(&self, sid: u32, topic: &[u8]) -> bool {
        self.inner.borrow().ws.topics.is_subscribed(topic, sid)
    }

    /// The topics a socket is subscribed to.
    pub fn ws_topics(&self, sid: u32) -> Vec<Vec<u8>> {
        let inner = self.inner.borrow();
        inner
            .ws
            .topics
            .topics_of(sid)
            .into_iter()
            .map(|t| t.to_vec())
            .collect()
    }

    /// Publishes a message to every socket `to` reaches; returns how many got it.
    pub fn ws_publish(
        &self,
        to: &crate::ws::Audience<'_>,
        binary: bool,
        compress: bool,
        payload: &[u8],
    ) -> usize {
        let n = self
            .inner
            .borrow_mut()
            .ws_publish(to, binary, compress, payload);
        self.after_call();
        n
    }

    /// Subscribers of `topic` right now.
    pub fn ws_subscriber_count(&self, topic: &[u8]) -> usize {
        self.inner.borrow().ws.topics.subscribers(topic).len()
    }
}
