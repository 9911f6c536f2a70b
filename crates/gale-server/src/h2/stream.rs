//! One HTTP/2 stream and its request record: body data in (flow-control capacity given back as JS takes it) and
//! the client's RST_STREAM turned into the same abort JS sees when an HTTP/1.1 client leaves; the response goes out
//! in `send.rs`.

use std::task::Context;

use bytes::Bytes;
use h2::server::SendResponse;
use h2::{RecvStream, SendStream};

use crate::request::{Action, Req, ReqPool};
use crate::Event;

/// Unread request body JS may hold before the client's window stops being replenished.
const BODY_BUFFER: usize = 64 * 1024;

pub(super) struct Stream {
    /// The request record.
    pub idx: usize,
    pub respond: Option<SendResponse<Bytes>>,
    pub send: Option<SendStream<Bytes>>,
    /// The request body's stream; kept after the body ends, to give held capacity back when JS takes it.
    pub recv: Option<RecvStream>,
    /// More of the request body may arrive.
    pub body_open: bool,
    /// Body bytes received and not yet given back to the client's window (JS has not taken them).
    pub held: usize,
    /// Body bytes received so far (the body limit).
    pub received: u64,
    /// A JS route waiting for the end of this round to be dispatched (its body is still arriving).
    pub pending: Option<u32>,
    /// The response is complete on our side (END_STREAM or RST_STREAM handed to h2).
    pub end_sent: bool,
    /// When the stream opened, server ms (the request timeout for its body).
    pub since: u64,
}

/// What a pass did to a stream.
#[derive(PartialEq, Eq)]
pub(super) enum Pass {
    Keep,
    /// It stopped at the flush budget with more to send.
    More,
    /// It is finished: drop it (its record is freed or detached).
    Finished,
}

impl Stream {
    pub fn new(
        idx: usize,
        respond: SendResponse<Bytes>,
        recv: Option<RecvStream>,
        now: u64,
    ) -> Stream {
        Stream {
            idx,
            respond: Some(respond),
            send: None,
            body_open: recv.is_some(),
            recv,
            held: 0,
            received: 0,
            pending: None,
            end_sent: false,
            since: now,
        }
    }

    /// `Expect: 100-continue`: tell the client to send the body.
    pub fn continue_100(&mut self) {
        if let Some(r) = self.respond.as_mut() {
            let mut resp = http::Response::new(());
            *resp.status_mut() = http::StatusCode::CONTINUE;
            let _ = r.send_informational(resp);
        }
    }

    /// Sends RST_STREAM with `reason` (unless the stream is complete already).
    pub fn reset(&mut self, reason: h2::Reason) {
        if self.end_sent {
            return;
        }
        if let Some(s) = self.send.as_mut() {
            s.send_reset(reason);
        } else if let Some(r) = self.respond.as_mut() {
            r.send_reset(reason);
        }
        self.end_sent = true;
    }

    /// No more of the request body is wanted: h2 drops what still arrives for it (counted against the
    /// stream's window only) and resets the stream with NO_ERROR once the response ends.
    pub fn stop_body(&mut self) {
        self.recv = None;
        self.body_open = false;
        self.held = 0;
    }

    /// Gives capacity held for unread body back to the client's window.
    pub fn release_held(&mut self) {
        if self.held > 0 {
            if let Some(recv) = self.recv.as_mut() {
                let _ = recv.flow_control().release_capacity(self.held);
            }
            self.held = 0;
        }
    }

    /// The client reset the stream (or h2 did, for its protocol error): the record is detached and JS
    /// hears `Abort` when it still owes an answer, freed otherwise.
    fn abort(
        &mut self,
        reqs: &mut ReqPool,
        events: &mut std::collections::VecDeque<Event>,
    ) -> bool {
        reqs.let_go(self.idx, events);
        self.end_sent = true;
        true
    }

    /// Takes the body data and resets h2 has for this stream. True when the stream is finished.
    pub fn receive(
        &mut self,
        reqs: &mut ReqPool,
        events: &mut std::collections::VecDeque<Event>,
        body_limit: u64,
        date: &gale_http::DateCache,
        swaker: &std::task::Waker,
    ) -> bool {
        // `poll_reset` leaves its waker where `poll_capacity` does (h2's one send task per stream): the streams' one,
        // or window assigned later would wake nobody. `poll_data` waits for input only, after which every stream is
        // looked at: no waker.
        let reset = match (&mut self.respond, &mut self.send) {
            (Some(r), _) => r.poll_reset(&mut Context::from_waker(swaker)).is_ready(),
            (None, Some(s)) => s.poll_reset(&mut Context::from_waker(swaker)).is_ready(),
            _ => false,
        };
        let cx = &mut Context::from_waker(std::task::Waker::noop());
        if reset {
            return self.abort(reqs, events);
        }
        let Some(recv) = self.recv.as_mut().filter(|_| self.body_open) else {
            return false;
        };
        let req = reqs.get_mut(self.idx);
        let before = req.body_in.buf.len();
        let mut done = false;
        let mut too_large = false;
        loop {
            match recv.poll_data(cx) {
                std::task::Poll::Ready(Some(Ok(data))) => {
                    let n = data.len();
                    self.received += n as u64;
                    if self.received > body_limit {
                        too_large = true;
                        break;
                    }
                    // Bytes are kept only for a JS handler that has not answered yet.
                    let keep = matches!(req.action, Some(Action::Js(_))) && !req.reply.ended;
                    if keep {
                        req.body_in.buf.extend_from_slice(&data);
                    }
                    if !keep || req.body_in.buf.len() <= BODY_BUFFER {
                        let _ = recv.flow_control().release_capacity(n);
                    } else {
                        self.held += n;
                    }
                }
                std::task::Poll::Ready(Some(Err(_))) => return self.abort(reqs, events),
                std::task::Poll::Ready(None) => {
                    done = true;
                    break;
                }
                std::task::Poll::Pending => break,
            }
        }
        if too_large {
            // Receiving stops (h2 refuses the rest of the body once the answer ends the stream).
            self.stop_body();
            let err = gale_http::Error::body_too_large(body_limit);
            if self.pending.take().is_some() {
                crate::wire::native_error(req, true, date, &err);
                req.answer_native();
            } else {
                // JS is reading the body as it comes: its reader fails with 413, and JS answers.
                req.body_in.error = err.status();
                req.wake_body(self.idx, events);
            }
            return false;
        }
        if done {
            self.body_open = false;
            req.body_in.done = true;
        }
        if req.body_in.streaming && (req.body_in.buf.len() > before || done) {
            req.wake_body(self.idx, events);
        }
        false
    }

    /// The request body timed out (`requestTimeout`): JS's body reader fails with 408.
    pub fn body_timeout(&mut self, req: &mut Req, events: &mut std::collections::VecDeque<Event>) {
        self.stop_body();
        req.body_in.error = gale_http::Error::request_timeout().status();
        req.wake_body(self.idx, events);
    }
}
