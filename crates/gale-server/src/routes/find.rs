//! Routing a parsed request (`Inner::route`), whatever its protocol: a JS route with its params, or the native answer
//! (a fixed route, a static mount, 404, 405 with Allow, 400 for a malformed param) placed in the record at once.

use gale_router::{decode_param, Found};

use super::Target;
use crate::engine::{Inner, ABSENT_SPAN};
use crate::request::{Action, Param};

impl Inner {
    /// Routes a parsed head: JS route, or a native response (fixed route, 404, 405, bad param).
    pub(crate) fn route(&mut self, idx: usize) {
        let h2 = self.is_stream(idx);
        let req = self.reqs.get_mut(idx);
        let method = req.method.get(&req.head);
        let path = req.path.get(&req.head);
        let (status, extra): (u16, &[u8]) = match self.routes.router.find(
            method,
            path,
            &mut self.scratch.params,
        ) {
            Found::Route(&Target::Answer(_, f)) if answerable(req, h2) => {
                self.routes.fixed[f as usize].answer(req, h2, &self.date);
                return;
            }
            Found::Route(&t @ (Target::Js(_) | Target::Answer(..) | Target::Ws(..))) => {
                let (route, ws_route) = match t {
                    Target::Ws(route, wr) => (route, Some(wr)),
                    Target::Js(route) | Target::Answer(route, _) => (route, None),
                    _ => unreachable!(),
                };
                let base = req.path.start;
                for &(s, e) in &self.scratch.params {
                    if s == u32::MAX {
                        // An optional param that did not match (the router's ABSENT slot).
                        req.params.push(Param {
                            span: ABSENT_SPAN,
                            decoded: false,
                        });
                        continue;
                    }
                    let span = gale_http::Span {
                        start: base + s,
                        end: base + e,
                    };
                    let raw = span.get(&req.head);
                    if self.cfg.decode_params && memchr_pct(raw) {
                        let start = req.param_buf.len() as u32;
                        let mut tmp = std::mem::take(&mut self.scratch.discard);
                        if decode_param(raw, &mut tmp).is_err() {
                            self.scratch.discard = tmp;
                            crate::wire::native_text(
                                    req,
                                    h2,
                                    &self.date,
                                    400,
                                    b"",
                                    b"Bad Request: a path parameter has malformed percent-encoding or is not UTF-8. Percent-encode reserved characters as %XX with valid UTF-8.",
                                );
                            return;
                        }
                        req.param_buf.extend_from_slice(&tmp);
                        self.scratch.discard = tmp;
                        let end = req.param_buf.len() as u32;
                        req.params.push(Param {
                            span: gale_http::Span { start, end },
                            decoded: true,
                        });
                    } else {
                        req.params.push(Param {
                            span,
                            decoded: false,
                        });
                    }
                }
                req.action = Some(Action::Js(route));
                req.ws_route = ws_route;
                return;
            }
            Found::Route(&Target::Static(m)) => {
                // The raw tail below the prefix (not decoded: the static path check decodes it).
                // Up to the real end of the path: the router ignores one trailing slash, but
                // `dir` and `dir/` differ here (redirect vs index file).
                let end = req.path.end;
                let slash = req.path.get(&req.head).last() == Some(&b'/');
                let start = match self.scratch.params.first() {
                    Some(&(s, _)) => req.path.start + s,
                    None if slash => end - 1,
                    None => end,
                };
                let span = gale_http::Span { start, end };
                req.params.push(Param {
                    span,
                    decoded: false,
                });
                req.action = Some(Action::Static(m));
                return;
            }
            Found::Route(&Target::Fixed(f)) => {
                self.routes.fixed[f as usize].answer(req, h2, &self.date);
                return;
            }
            Found::MethodNotAllowed { allow } => {
                let extra = crate::wire::allow_line(allow);
                crate::wire::native_text(req, h2, &self.date, 405, &extra, b"Method Not Allowed");
                return;
            }
            // CONNECT asks for a tunnel, which no route serves (node:http hands it to 'connect' listeners only):
            // 405 with what the server does accept. Its target is an authority, so the router never matches it. (An
            // extended CONNECT, a WebTransport session's, has a path: no route for it is a 404.)
            Found::NotFound if method == b"CONNECT" && !path.starts_with(b"/") => {
                let extra = crate::wire::allow_line(self.routes.router.allow_any(None));
                let body: &[u8] = b"Method Not Allowed: CONNECT (a tunnel) is not served here";
                crate::wire::native_text(req, h2, &self.date, 405, &extra, body);
                return;
            }
            Found::NotFound => match self.routes.fallback {
                Some(route) => {
                    req.action = Some(Action::Js(route));
                    return;
                }
                // `OPTIONS *` asks about the server as a whole (RFC 9110 §9.3.7): every method some route takes.
                // An app with a fallback (a notFound handler, the Express layer) answers it itself (path `*`).
                None if method == b"OPTIONS" && path == b"*" => {
                    let allow = self
                        .routes
                        .router
                        .allow_any(Some(gale_router::Method::Options));
                    let extra = crate::wire::allow_line(allow);
                    crate::wire::native_text(req, h2, &self.date, 200, &extra, b"");
                    return;
                }
                None => (404, b""),
            },
        };
        crate::wire::native_text(req, h2, &self.date, status, extra, b"Not Found");
    }
}

fn memchr_pct(b: &[u8]) -> bool {
    b.contains(&b'%')
}

/// Whether a route's native answer (`Target::Answer`) is the one its JS would give: an HTTP/1.1 GET or HEAD without a
/// body and without If-None-Match or If-Modified-Since (with them, the app's JS may answer 304). Other requests, and
/// HTTP/1.0 and HTTP/2 ones, run the JS route.
fn answerable(req: &crate::request::Req, h2: bool) -> bool {
    if h2 || req.minor != 1 || !req.bodyless {
        return false;
    }
    let method = req.method.get(&req.head);
    if method != b"GET" && method != b"HEAD" {
        return false;
    }
    !req.headers.iter().any(|h| {
        let n = h.name.get(&req.head);
        (n.len() == 13 && n.eq_ignore_ascii_case(b"if-none-match"))
            || (n.len() == 17 && n.eq_ignore_ascii_case(b"if-modified-since"))
    })
}
