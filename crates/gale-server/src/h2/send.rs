//! A stream's response handed to h2: the head the engine wrote becomes HEADERS, the body DATA within the stream's
//! window and the flush budget, file bodies read in pieces, then END_STREAM (or a reset for a body that ended short).

use std::task::{Context, Poll, Waker};

use bytes::Bytes;
use h2::SendStream;

use super::stream::{Pass, Stream};
use crate::reply::ServerFields;
use crate::request::Req;
use crate::Event;

/// A whole remaining body up to this size is handed to h2 at once, without reserving capacity first.
const SMALL_BODY: usize = 16 * 1024;
/// Largest piece of a file read for one DATA hand-over.
const FILE_PIECE: usize = 64 * 1024;

/// The stream's window capacity, or 0 with `waker` registered for when h2 assigns some. h2 remembers only the
/// last waker, and only when `poll_capacity` returns Pending: a Ready for an earlier increase (already spent
/// through `capacity()`) is passed over until it does.
pub(super) fn wait_capacity(send: &mut SendStream<Bytes>, waker: &Waker) -> usize {
    let mut cx = Context::from_waker(waker);
    loop {
        match send.poll_capacity(&mut cx) {
            Poll::Ready(Some(Ok(0))) => continue,
            Poll::Ready(Some(Ok(n))) => return n,
            Poll::Ready(Some(Err(_))) | Poll::Ready(None) | Poll::Pending => return 0,
        }
    }
}

impl Stream {
    /// Hands the record's response to h2: the head once written, then body bytes and file pieces within the
    /// stream's capacity and `budget`, then the end of the stream.
    /// A stream out of window capacity registers `waker` (the streams' flag) with h2, so the capacity a
    /// later WINDOW_UPDATE brings wakes it and the pump runs another pass.
    #[allow(clippy::too_many_arguments)]
    pub fn output(
        &mut self,
        req: &mut Req,
        budget: &mut usize,
        hwm: usize,
        server: ServerFields<'_>,
        events: &mut std::collections::VecDeque<Event>,
        waker: &Waker,
    ) -> Pass {
        if self.end_sent {
            return Pass::Finished;
        }
        if self.send.is_none() {
            // `started`: the head is in `h2_head` (JS wrote it, or a native answer was put there).
            if !req.reply.started {
                return Pass::Keep;
            }
            let Some(mut resp) = req.reply.h2_head.take() else {
                self.reset(h2::Reason::INTERNAL_ERROR);
                return Pass::Finished;
            };
            server.add(&mut resp);
            let eos = req.reply.ended && req.reply.out.is_empty() && req.reply.file.is_none();
            let Some(respond) = self.respond.as_mut() else {
                return Pass::Finished;
            };
            match respond.send_response(resp, eos) {
                Ok(s) => self.send = Some(s),
                Err(_) => {
                    self.end_sent = true;
                    return Pass::Finished;
                }
            }
            self.respond = None;
            if eos {
                self.end_sent = true;
                return Pass::Finished;
            }
        }
        let Some(send) = self.send.as_mut() else {
            return Pass::Finished;
        };
        let mut result = Pass::Keep;
        loop {
            let file_left = req.reply.file.as_ref().map_or(0, |f| f.remaining as usize);
            let want = req.reply.out.len() + file_left;
            if want == 0 {
                break;
            }
            if *budget == 0 {
                result = Pass::More;
                break;
            }
            if req.reply.ended && file_left == 0 && want <= SMALL_BODY && !req.reply.short() {
                // The rest of a finished body is small: h2 takes it whole and sends it as the window allows.
                let chunk = Bytes::copy_from_slice(&req.reply.out);
                req.reply.out.clear();
                *budget = budget.saturating_sub(want);
                if send.send_data(chunk, true).is_err() {
                    self.end_sent = true;
                    return Pass::Finished;
                }
                self.end_sent = true;
                break;
            }
            send.reserve_capacity(want);
            let mut cap = send.capacity().min(*budget);
            if cap == 0 {
                cap = wait_capacity(send, waker).min(*budget);
            }
            if cap == 0 {
                // Waiting for the client's WINDOW_UPDATE: h2 wakes the streams' flag when it brings capacity.
                break;
            }
            let chunk = if !req.reply.out.is_empty() {
                let n = cap.min(req.reply.out.len());
                let c = Bytes::copy_from_slice(&req.reply.out[..n]);
                req.reply.out.drain(..n);
                c
            } else {
                match req.reply.read_piece(cap.min(FILE_PIECE)) {
                    Some(c) => c,
                    None => {
                        // The file could not be read: the body cannot be completed.
                        req.reply.file = None;
                        send.send_reset(h2::Reason::INTERNAL_ERROR);
                        self.end_sent = true;
                        return Pass::Finished;
                    }
                }
            };
            *budget = budget.saturating_sub(chunk.len());
            let eos = req.reply.ended
                && req.reply.out.is_empty()
                && req.reply.file.is_none()
                && !req.reply.short();
            if send.send_data(chunk, eos).is_err() {
                self.end_sent = true;
                return Pass::Finished;
            }
            if eos {
                self.end_sent = true;
                break;
            }
        }
        if !self.end_sent && req.reply.ended && req.reply.out.is_empty() && req.reply.file.is_none()
        {
            if req.reply.short() {
                // Fewer bytes than the declared Content-Length: the client must not take it as complete.
                send.send_reset(h2::Reason::INTERNAL_ERROR);
            } else if send.send_data(Bytes::new(), true).is_err() {
                self.end_sent = true;
                return Pass::Finished;
            }
            self.end_sent = true;
        }
        if req.reply.want_drain && req.reply.out.len() <= hwm {
            req.reply.want_drain = false;
            events.push_back(Event::Drain(req.id(self.idx)));
        }
        if self.end_sent {
            Pass::Finished
        } else {
            result
        }
    }
}

#[cfg(test)]
mod tests {
    //! A stream's response transcoded into frames, read back by h2's own client over two in-memory pipes: no
    //! socket and no runtime, the same polling as the engine.

    use std::future::Future;
    use std::pin::Pin;
    use std::task::{Context, Poll};

    use super::*;

    /// The server's fields for a test's stream (a fixed Date, no Alt-Svc).
    fn fields() -> ServerFields<'static> {
        static DATE: http::HeaderValue =
            http::HeaderValue::from_static("Sun, 06 Nov 1994 08:49:37 GMT");
        ServerFields {
            date: &DATE,
            alt_svc: None,
        }
    }
    use crate::h2::pipe::{Flag, Pipe};
    use crate::reply::Reply;

    type ClientConn = Pin<Box<h2::client::Connection<Pipe, Bytes>>>;

    struct Pair {
        sp: Pipe,
        cp: Pipe,
        server: h2::server::Connection<Pipe, Bytes>,
        client: ClientConn,
        send: h2::client::SendRequest<Bytes>,
        waker: std::task::Waker,
    }

    impl Pair {
        /// A server and a client that gives the server a send window of `window` bytes per stream.
        fn new(window: u32) -> Pair {
            let (_, waker) = Flag::new_waker();
            let mut cx = Context::from_waker(&waker);
            let (sp, cp) = (Pipe::default(), Pipe::default());
            let mut server_hs = h2::server::Builder::new().handshake::<_, Bytes>(sp.clone());
            let mut client_hs = Box::pin(
                h2::client::Builder::new()
                    .initial_window_size(window)
                    .handshake::<_, Bytes>(cp.clone()),
            );
            let (mut server, mut client) = (None, None);
            for _ in 0..20 {
                if server.is_none() {
                    if let Poll::Ready(r) = Pin::new(&mut server_hs).poll(&mut cx) {
                        server = Some(r.unwrap());
                    }
                }
                if client.is_none() {
                    if let Poll::Ready(r) = client_hs.as_mut().poll(&mut cx) {
                        client = Some(r.unwrap());
                    }
                }
                shuttle(&sp, &cp);
            }
            let (send, client) = client.expect("client handshake");
            Pair {
                sp,
                cp,
                server: server.expect("server handshake"),
                client: Box::pin(client),
                send,
                waker,
            }
        }

        /// Moves bytes both ways and polls both connections, a few times.
        fn turn(&mut self) {
            let mut cx = Context::from_waker(&self.waker);
            for _ in 0..4 {
                let _ = self.server.poll_closed(&mut cx);
                shuttle(&self.sp, &self.cp);
                let _ = self.client.as_mut().poll(&mut cx);
                shuttle(&self.sp, &self.cp);
            }
        }

        /// The client sends GET /; the server's side of the stream.
        fn open(&mut self) -> (Stream, h2::client::ResponseFuture) {
            let req = http::Request::get("http://t/").body(()).unwrap();
            let (resp, _) = self.send.send_request(req, true).unwrap();
            self.turn();
            let mut cx = Context::from_waker(&self.waker);
            let Poll::Ready(Some(Ok((_, respond)))) = self.server.poll_accept(&mut cx) else {
                panic!("no stream accepted");
            };
            (Stream::new(0, respond, None, 0), resp)
        }
    }

    fn noop() -> Waker {
        Waker::noop().clone()
    }

    fn shuttle(sp: &Pipe, cp: &Pipe) {
        let mut v = Vec::new();
        sp.take_output(&mut v);
        cp.push_input(&v);
        v.clear();
        cp.take_output(&mut v);
        sp.push_input(&v);
    }

    /// A record whose reply head was written (status 200, these fields, this length) and `body` is pending.
    fn record(content_type: &[u8], fields: &[u8], body_len: Option<u64>, body: &[u8]) -> Req {
        Req {
            reply: Reply {
                h2_head: Some(gale_h2::response(&gale_http::ResponseHead {
                    status: 200,
                    reason: b"",
                    content_type,
                    fields,
                    body_len,
                })),
                out: body.to_vec(),
                started: true,
                ..Reply::default()
            },
            ..Req::default()
        }
    }

    #[test]
    fn a_response_goes_out_within_the_window_and_arrives_whole() {
        let mut p = Pair::new(1000);
        let (mut st, mut resp) = p.open();
        let body: Vec<u8> = (0..20_000u32).map(|i| (i % 251) as u8).collect();
        let mut req = record(b"text/plain", b"Connection: close\r\n", Some(20_000), &body);
        req.reply.ended = true;
        let mut events = std::collections::VecDeque::new();
        let mut budget = usize::MAX;
        assert!(
            st.output(
                &mut req,
                &mut budget,
                64 * 1024,
                fields(),
                &mut events,
                &noop()
            ) == Pass::Keep
        );
        // HEADERS went out, and only the client's 1000-byte window of the body.
        assert_eq!(req.reply.out.len(), 19_000);
        p.turn();
        let waker = p.waker.clone();
        let mut cx = Context::from_waker(&waker);
        let Poll::Ready(Ok(response)) = Pin::new(&mut resp).poll(&mut cx) else {
            panic!("no response head");
        };
        assert_eq!(response.status(), 200);
        assert_eq!(response.headers()["content-type"], "text/plain");
        assert_eq!(response.headers()["content-length"], "20000");
        assert!(response.headers().get("connection").is_none());
        let mut recv = response.into_body();
        let mut got = Vec::new();
        let mut finished = false;
        for _ in 0..200 {
            let mut budget = usize::MAX;
            if !finished {
                finished = st.output(
                    &mut req,
                    &mut budget,
                    64 * 1024,
                    fields(),
                    &mut events,
                    &noop(),
                ) == Pass::Finished;
            }
            p.turn();
            while let Poll::Ready(Some(Ok(d))) = recv.poll_data(&mut cx) {
                recv.flow_control().release_capacity(d.len()).unwrap();
                got.extend_from_slice(&d);
            }
            p.turn();
            if recv.is_end_stream() {
                break;
            }
        }
        assert!(finished && recv.is_end_stream());
        assert_eq!(got, body);
    }

    #[test]
    fn a_budget_stops_a_pass_and_a_short_body_resets_the_stream() {
        let mut p = Pair::new(65_535);
        let (mut st, _resp) = p.open();
        let mut req = record(b"", b"", None, &[7; 40_000]);
        let mut events = std::collections::VecDeque::new();
        let mut budget = 10_000;
        assert!(
            st.output(
                &mut req,
                &mut budget,
                64 * 1024,
                fields(),
                &mut events,
                &noop()
            ) == Pass::More
        );
        assert_eq!((budget, req.reply.out.len()), (0, 30_000));

        let (mut st, mut resp) = p.open();
        // A streamed reply that declared 10 bytes and ended after 3.
        let mut req = record(b"", b"", Some(10), b"abc");
        req.reply.declared_left = Some(7);
        req.reply.ended = true;
        let mut budget = usize::MAX;
        assert!(
            st.output(
                &mut req,
                &mut budget,
                64 * 1024,
                fields(),
                &mut events,
                &noop()
            ) == Pass::Finished
        );
        p.turn();
        let waker = p.waker.clone();
        let mut cx = Context::from_waker(&waker);
        // The reset may reach the client before it looks at the head: then the response itself fails.
        let mut err = None;
        match Pin::new(&mut resp).poll(&mut cx) {
            Poll::Ready(Err(e)) => err = Some(e),
            Poll::Ready(Ok(response)) => {
                let mut recv = response.into_body();
                for _ in 0..5 {
                    match recv.poll_data(&mut cx) {
                        Poll::Ready(Some(Err(e))) => {
                            err = Some(e);
                            break;
                        }
                        Poll::Ready(None) => break,
                        _ => p.turn(),
                    }
                }
            }
            Poll::Pending => panic!("no response"),
        }
        assert_eq!(
            err.and_then(|e| e.reason()),
            Some(h2::Reason::INTERNAL_ERROR),
            "the client must not take a short body as complete"
        );
    }

    #[test]
    fn drain_is_reported_once_the_buffered_body_is_below_the_high_water_mark() {
        let mut p = Pair::new(65_535);
        let (mut st, _resp) = p.open();
        let mut req = record(b"", b"", None, &[1; 100_000]);
        req.reply.want_drain = true;
        let mut events = std::collections::VecDeque::new();
        let mut budget = usize::MAX;
        st.output(
            &mut req,
            &mut budget,
            16 * 1024,
            fields(),
            &mut events,
            &noop(),
        );
        // 65 535 bytes fit the window: 34 465 stay, over the 16 KiB mark, so no drain yet.
        assert_eq!(req.reply.out.len(), 100_000 - 65_535);
        assert!(events.is_empty() && req.reply.want_drain);
        req.reply.out.truncate(1000);
        st.output(
            &mut req,
            &mut budget,
            16 * 1024,
            fields(),
            &mut events,
            &noop(),
        );
        assert_eq!(events.pop_front(), Some(Event::Drain(req.id(0))));
    }

    #[test]
    fn capacity_a_window_update_brings_wakes_the_connection() {
        // The client's window is 1000 bytes: the rest of the body waits for its WINDOW_UPDATE, which the server
        // reads while its connection is polled. h2 must then wake the flag the pump checks, or a pump pass that
        // polled it in would stop with the stream still waiting.
        let mut p = Pair::new(1000);
        let (mut st, mut resp) = p.open();
        let mut req = record(b"", b"", Some(20_000), &[9; 20_000]);
        req.reply.ended = true;
        let (flag, waker) = super::super::pipe::Flag::new_waker();
        let mut events = std::collections::VecDeque::new();
        let mut budget = usize::MAX;
        assert!(
            st.output(
                &mut req,
                &mut budget,
                64 * 1024,
                fields(),
                &mut events,
                &waker
            ) == Pass::Keep
        );
        assert_eq!(req.reply.out.len(), 19_000);
        flag.take();
        p.turn();
        let client_waker = p.waker.clone();
        let mut cx = Context::from_waker(&client_waker);
        let Poll::Ready(Ok(response)) = Pin::new(&mut resp).poll(&mut cx) else {
            panic!("no response head");
        };
        let mut recv = response.into_body();
        let Poll::Ready(Some(Ok(d))) = recv.poll_data(&mut cx) else {
            panic!("no data");
        };
        assert_eq!(d.len(), 1000);
        recv.flow_control().release_capacity(d.len()).unwrap();
        assert!(!flag.take(), "nothing assigned before the update arrives");
        p.turn();
        assert!(
            flag.take(),
            "the WINDOW_UPDATE's capacity must wake the connection"
        );
        let mut budget = usize::MAX;
        st.output(
            &mut req,
            &mut budget,
            64 * 1024,
            fields(),
            &mut events,
            &waker,
        );
        assert_eq!(req.reply.out.len(), 18_000);
    }
}
