//! WebSockets over HTTP/2 (RFC 8441): an extended CONNECT stream (`:protocol` websocket) is served by the engine's
//! own WebSocket path through an in-process connection (mem.rs), as HAProxy does it. The request becomes the equal
//! HTTP/1.1 upgrade (GET, Upgrade, and a Sec-WebSocket-Key the engine wants and the client never sees), its 101
//! becomes a 200, and from then on the stream's DATA and the connection's bytes are the same WebSocket frames both
//! ways — so routes, upgrade handlers, permessage-deflate, backpressure, pub/sub and limits are HTTP/1.1's, and the
//! stream's flow control paces both directions. An answer other than 101 goes back as the stream's response.

use std::task::{Context, Poll, Waker};

use bytes::Bytes;
use h2::server::SendResponse;
use h2::{RecvStream, SendStream};
use http::{HeaderValue, Response};

use super::send::wait_capacity;
use super::stream::Pass;
use crate::transport::MemPipe;

/// The body of the 501 that replaces a 2xx answer to a WebSocket's CONNECT.
const NOT_A_WEBSOCKET: &[u8] =
    b"Not Implemented: no WebSocket is served at this path (its handler answered the handshake without upgrading).";

/// One WebSocket stream of an HTTP/2 connection.
pub(super) struct Tunnel {
    /// The pipe (`Inner::pipes`) the engine serves the WebSocket through.
    pub key: usize,
    respond: Option<SendResponse<Bytes>>,
    send: Option<SendStream<Bytes>>,
    recv: Option<RecvStream>,
    /// Bytes handed to the engine and not yet given back to the client's window (the engine has not read them).
    held: usize,
    /// The engine answered with something other than 101: that response is read through the pipe's reader and
    /// sent as the stream's, whole.
    refused: bool,
    /// The stream is finished on our side (END_STREAM or RST_STREAM handed to h2).
    end_sent: bool,
    /// A refusing answer's head, kept until its body is complete; true when it replaced a 2xx.
    answer: Option<(Response<()>, bool)>,
}

/// What receiving did for one tunnel.
pub(super) enum Received {
    /// Nothing for the engine.
    Nothing,
    /// Bytes (or the end) for the engine to read.
    Input,
    /// The client reset the stream or it failed: close the WebSocket's connection.
    Gone,
}

impl Tunnel {
    /// The stream's parts once its CONNECT is handed to the engine through pipe `key` (`recv` None: the client
    /// already ended its side).
    pub fn new(key: usize, respond: SendResponse<Bytes>, recv: Option<RecvStream>) -> Tunnel {
        Tunnel {
            key,
            respond: Some(respond),
            send: None,
            recv,
            held: 0,
            refused: false,
            end_sent: false,
            answer: None,
        }
    }

    /// Receives on the stream: DATA into the pipe (its window given back at once, or held while the pipe is over its
    /// mark), the client's end as the pipe's EOF, a reset or error as `Gone`.
    pub fn receive(&mut self, pipe: &mut MemPipe, swaker: &Waker) -> Received {
        // As Stream::receive: `poll_reset` shares h2's send task with `poll_capacity`, so it registers the streams'
        // waker; `poll_data` waits for input only (no waker).
        let reset = match (&mut self.respond, &mut self.send) {
            (Some(r), _) => r.poll_reset(&mut Context::from_waker(swaker)).is_ready(),
            (None, Some(s)) => s.poll_reset(&mut Context::from_waker(swaker)).is_ready(),
            _ => false,
        };
        let cx = &mut Context::from_waker(Waker::noop());
        if reset {
            self.end_sent = true;
            return Received::Gone;
        }
        let Some(recv) = self.recv.as_mut() else {
            return Received::Nothing;
        };
        if self.held > 0 && !pipe.want_input {
            // The engine read below the mark: the client may send again.
            let _ = recv.flow_control().release_capacity(self.held);
            self.held = 0;
        }
        let mut got = Received::Nothing;
        loop {
            match recv.poll_data(cx) {
                Poll::Ready(Some(Ok(data))) => {
                    let n = data.len();
                    if pipe.conn.is_none() || self.refused {
                        // Nobody reads it any more (the engine answered or closed): window back, bytes dropped.
                        let _ = recv.flow_control().release_capacity(n);
                        continue;
                    }
                    if pipe.take_input(&data) {
                        self.held += n;
                    } else {
                        let _ = recv.flow_control().release_capacity(n);
                    }
                    got = Received::Input;
                }
                Poll::Ready(Some(Err(_))) => {
                    self.end_sent = true;
                    return Received::Gone;
                }
                Poll::Ready(None) => {
                    pipe.in_eof = true;
                    self.recv = None;
                    return Received::Input;
                }
                Poll::Pending => return got,
            }
        }
    }

    /// Hands what the engine wrote to h2: the answer to the handshake as HEADERS, then WebSocket bytes as DATA
    /// within the stream's window and `budget`, then END_STREAM once the engine closed its side. True beside the
    /// pass when bytes were taken from the pipe (a writer blocked on it may go on).
    pub fn output(
        &mut self,
        pipe: &mut MemPipe,
        budget: &mut usize,
        waker: &Waker,
    ) -> (Pass, bool) {
        if self.end_sent {
            return (Pass::Finished, false);
        }
        if let Some(recv) = self
            .recv
            .as_mut()
            .filter(|_| self.held > 0 && !pipe.want_input)
        {
            // The engine read below the pipe's mark (its news woke this pump): the client may send again.
            let _ = recv.flow_control().release_capacity(self.held);
            self.held = 0;
        }
        if self.send.is_none() {
            if self.refused {
                return self.answer(pipe);
            }
            let status = match gale_http::parse_response_head(&pipe.out) {
                Ok(Some(head)) if head.status == 101 => {
                    let resp = opened(&head.fields);
                    let len = head.head_len;
                    Some((resp, len))
                }
                Ok(Some(_)) => None,
                Ok(None) if !pipe.out_eof => return (Pass::Keep, false),
                // Closed without an answer, or bytes that are not one.
                Ok(None) | Err(()) => {
                    self.reset(h2::Reason::INTERNAL_ERROR);
                    return (Pass::Finished, false);
                }
            };
            let Some((resp, len)) = status else {
                self.refused = true;
                return self.answer(pipe);
            };
            let Some(respond) = self.respond.as_mut() else {
                return (Pass::Finished, false);
            };
            match respond.send_response(resp, false) {
                Ok(s) => self.send = Some(s),
                Err(_) => {
                    self.end_sent = true;
                    return (Pass::Finished, false);
                }
            }
            self.respond = None;
            pipe.out.drain(..len);
        }
        let Some(send) = self.send.as_mut() else {
            return (Pass::Finished, false);
        };
        let mut took = false;
        while !pipe.out.is_empty() {
            if *budget == 0 {
                return (Pass::More, took);
            }
            send.reserve_capacity(pipe.out.len());
            let mut cap = send.capacity().min(*budget);
            if cap == 0 {
                cap = wait_capacity(send, waker).min(*budget);
            }
            if cap == 0 {
                // Waiting for the client's WINDOW_UPDATE: h2 wakes the streams' flag when it brings capacity.
                return (Pass::Keep, took);
            }
            let n = cap.min(pipe.out.len());
            let chunk = Bytes::copy_from_slice(&pipe.out[..n]);
            pipe.out.drain(..n);
            took = true;
            *budget = budget.saturating_sub(n);
            if send.send_data(chunk, false).is_err() {
                self.end_sent = true;
                return (Pass::Finished, took);
            }
        }
        if pipe.out_eof {
            // The engine closed the WebSocket's connection: the stream ends with it.
            let _ = send.send_data(Bytes::new(), true);
            self.end_sent = true;
            return (Pass::Finished, took);
        }
        (Pass::Keep, took)
    }

    /// The engine did not switch protocols: its response, read through the pipe's reader, goes back whole once
    /// complete (the head is kept meanwhile; an answer refusing a handshake is small). A 2xx that is not a switch
    /// would tell the client the WebSocket is open: 501 instead, saying why.
    fn answer(&mut self, pipe: &mut MemPipe) -> (Pass, bool) {
        let MemPipe {
            out,
            out_eof,
            reader,
            body,
            ..
        } = pipe;
        let done;
        match reader.read(out, body) {
            Ok(p) => {
                if let Some(h) = p.head.as_ref() {
                    self.answer = Some(if (200..300).contains(&h.status) {
                        (
                            gale_h2::response_from_fields(
                                501,
                                &[(b"content-type", b"text/plain; charset=utf-8")],
                            ),
                            true,
                        )
                    } else {
                        (gale_h2::response_from_fields(h.status, &h.fields), false)
                    });
                }
                done = p.done || (*out_eof && p.consumed == out.len() && reader.finish().is_ok());
                out.drain(..p.consumed);
            }
            Err(()) => {
                out.clear();
                done = true;
            }
        }
        if !done && !*out_eof {
            return (Pass::Keep, true);
        }
        let Some(respond) = self.respond.as_mut() else {
            return (Pass::Finished, true);
        };
        let Some((mut resp, replaced)) = self.answer.take() else {
            respond.send_reset(h2::Reason::INTERNAL_ERROR);
            self.end_sent = true;
            return (Pass::Finished, true);
        };
        let data = if replaced {
            Bytes::from_static(NOT_A_WEBSOCKET)
        } else {
            Bytes::copy_from_slice(body)
        };
        body.clear();
        resp.headers_mut().remove(http::header::CONTENT_LENGTH);
        if let Ok(v) = HeaderValue::from_str(&data.len().to_string()) {
            resp.headers_mut().insert(http::header::CONTENT_LENGTH, v);
        }
        let eos = data.is_empty();
        if let Ok(mut s) = respond.send_response(resp, eos) {
            if !eos {
                let _ = s.send_data(data, true);
            }
        }
        self.respond = None;
        self.end_sent = true;
        (Pass::Finished, true)
    }

    fn reset(&mut self, reason: h2::Reason) {
        if let Some(r) = self.respond.as_mut() {
            r.send_reset(reason);
        } else if let Some(s) = self.send.as_mut() {
            s.send_reset(reason);
        }
        self.end_sent = true;
    }
}

/// The 200 that opens the WebSocket: the 101's fields but HTTP/1.1's connection ones and the handshake's accept value
/// (RFC 8441 §5: the subprotocol and extensions stay).
fn opened(fields: &[(&[u8], &[u8])]) -> Response<()> {
    let mut resp = gale_h2::response_from_fields(200, fields);
    resp.headers_mut()
        .remove(http::header::SEC_WEBSOCKET_ACCEPT);
    resp
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_200_keeps_the_101s_fields_but_the_upgrade_ones() {
        let fields: [(&[u8], &[u8]); 6] = [
            (b"Upgrade", b"websocket"),
            (b"Connection", b"Upgrade"),
            (b"Sec-WebSocket-Accept", b"s3pPLMBiTxaQ9kYGzzhZRbK+xOo="),
            (b"Sec-WebSocket-Protocol", b"chat"),
            (b"Sec-WebSocket-Extensions", b"permessage-deflate"),
            (b"Set-Cookie", b"a=1"),
        ];
        let r = opened(&fields);
        assert_eq!(r.status(), 200);
        // (Field order across names is free in HTTP/2; removing the accept value may move the last one.)
        let mut names: Vec<_> = r.headers().keys().map(|k| k.as_str()).collect();
        names.sort_unstable();
        assert_eq!(
            names,
            [
                "sec-websocket-extensions",
                "sec-websocket-protocol",
                "set-cookie"
            ]
        );
    }
}
