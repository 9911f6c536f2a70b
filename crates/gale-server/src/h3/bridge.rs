//! One HTTP/3 request stream, served by the engine as a stream's request (pulled.rs): its fields go to the engine
//! as HTTP/2's do (`gale_h2::request_head`, parsed and routed as HTTP/1.1's), its DATA into the record's body, and
//! the response is pulled from the record as the engine leaves it for a stream (the head as fields, body bytes, file
//! pieces, the end) and sent as HEADERS, DATA and FIN. The request reads as HTTP/3 (`req.httpVersion` "3.0",
//! `req.secure`, the client's address), and the engine's limits (431, 413, 408) answer as they do on a socket.

use std::future::{poll_fn, Future};
use std::net::SocketAddr;
use std::pin::pin;
use std::rc::Rc;
use std::task::Poll;
use std::time::Instant;

use bytes::{Buf, Bytes};
use h3::error::{Code, ConnectionError, LocalError, StreamError};
use h3::server::RequestStream;
use http::header::CONTENT_LENGTH;
use http::{Response, StatusCode};

use super::Ctx;
use crate::pulled::{Intake, Pull, Refused};
use crate::Server;

type Send = RequestStream<h3_quinn::SendStream<Bytes>, Bytes>;
type Recv = RequestStream<h3_quinn::RecvStream, Bytes>;

/// Body bytes that came with the fields and are handed over with them, so a small body is not streamed to JS.
const GATHER: usize = 64 * 1024;

/// The engine's side of the request: its connection closes when the stream's task ends, however it ends (the
/// engine aborts a request JS still holds, as when a client leaves).
pub(super) struct Opened {
    pub server: Rc<Server>,
    pub key: u32,
}

impl Drop for Opened {
    fn drop(&mut self) {
        self.server.mem_close(self.key);
    }
}

/// Serves one request stream to its end.
pub(super) async fn serve(
    ctx: &Ctx,
    quic: &quinn::Connection,
    peer: SocketAddr,
    req: http::Request<()>,
    stream: RequestStream<h3_quinn::BidiStream<Bytes>, Bytes>,
) {
    let (mut send, mut recv) = stream.split();
    let (parts, ()) = req.into_parts();
    let declared = parts
        .headers
        .get(CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok()?.parse::<u64>().ok());
    // Within `headersTimeout`, as a socket's head must arrive: the first DATA or the stream's end (a request without
    // a body) must come, or the answer is 408.
    let Some(exec) = ctx.exec.upgrade() else {
        return;
    };
    let mut deadline = exec.timer(Instant::now() + ctx.headers_timeout);
    drop(exec);
    let first = {
        let mut data = pin!(recv.recv_data());
        poll_fn(|cx| match data.as_mut().poll(cx) {
            Poll::Ready(r) => Poll::Ready(Some(r)),
            Poll::Pending => deadline.as_mut().poll(cx).map(|()| None),
        })
        .await
    };
    let first = match first {
        Some(Ok(d)) => d.map(|mut b| b.copy_to_bytes(b.remaining())),
        Some(Err(e)) => return close_first(quic, &e),
        None => {
            // (Not stop_sending: h3-quinn's receive half is inside the read just dropped; dropping the half when
            // the task ends stops the client's sending.)
            let mut resp = Response::new(());
            *resp.status_mut() = StatusCode::REQUEST_TIMEOUT;
            if send.send_response(resp).await.is_ok() {
                let _ = send.finish().await;
            }
            return;
        }
    };
    // What else of the body is here already joins the first DATA, up to GATHER. A body that came in one DATA frame is
    // handed over as it came (no copy here); only a second frame makes a joined copy.
    let mut more = first.is_some();
    let mut joined: Vec<u8> = Vec::new();
    let mut total = first.as_ref().map_or(0, Bytes::len);
    while more && total < GATHER {
        match poll_fn(|cx| Poll::Ready(recv.poll_recv_data(cx))).await {
            Poll::Ready(Ok(Some(mut d))) => {
                if joined.is_empty() {
                    joined.extend_from_slice(first.as_deref().unwrap_or_default());
                }
                while d.has_remaining() {
                    let chunk = d.chunk();
                    joined.extend_from_slice(chunk);
                    let n = chunk.len();
                    total += n;
                    d.advance(n);
                }
            }
            Poll::Ready(Ok(None)) => more = false,
            Poll::Ready(Err(e)) => return close_first(quic, &e),
            Poll::Pending => break,
        }
    }
    let body = match &first {
        Some(f) if joined.is_empty() => Some(&f[..]),
        Some(_) => Some(&joined[..]),
        None => None,
    };
    let total = total as u64;
    if declared.is_some_and(|d| total > d || (!more && total != d)) {
        // Longer or shorter than its Content-Length: malformed (RFC 9114 §4.1.2), and none of it reaches the engine.
        return send.stop_stream(Code::H3_MESSAGE_ERROR);
    }
    let Some(server) = ctx.server.upgrade() else {
        return;
    };
    let waker = poll_fn(|cx| Poll::Ready(cx.waker().clone())).await;
    let opened = server.pulled_open(peer, ctx.local, &parts, body, more, waker, None);
    let (key, intake) = match opened {
        Ok(o) => o,
        // The server is closing: the client may retry elsewhere (RFC 9114 §4.1.1).
        Err(Refused::Closing) => return send.stop_stream(Code::H3_REQUEST_REJECTED),
        Err(Refused::Busy(head)) => return busy(&mut send, *head).await,
    };
    let opened = Opened { server, key };
    let result = {
        let mut upload = pin!(upload(&opened, quic, &mut recv, intake, total, declared));
        let mut download = pin!(download(&opened, &mut send));
        let mut uploading = true;
        poll_fn(|cx| {
            if uploading {
                if let Poll::Ready(r) = upload.as_mut().poll(cx) {
                    uploading = false;
                    if let Err(code) = r {
                        return Poll::Ready(Err(code));
                    }
                }
            }
            download.as_mut().poll(cx)
        })
        .await
    };
    if let Err(code) = result {
        send.stop_stream(code);
    }
}

/// Over `maxConnections` (each HTTP/3 request holds one while it runs): the engine's 503 with Retry-After, as a
/// socket gets.
pub(super) async fn busy(send: &mut Send, head: Response<()>) {
    if send.send_response(head).await.is_ok()
        && send
            .send_data(Bytes::from_static(crate::engine::BUSY_BODY))
            .await
            .is_ok()
    {
        let _ = send.finish().await;
    }
}

/// Closes the QUIC connection at once when h3 found a connection error on a request stream. h3 only flags the
/// error for the connection's task to close with, while quinn finishes a dropped stream at once: left to them,
/// the client could read a clean end of the request stream (FIN) before the CONNECTION_CLOSE that explains it.
/// Closed here, in the same poll as the drop, quinn sends nothing after CONNECTION_CLOSE (h3 closing again with the
/// same code later is a no-op).
pub(super) fn close_first(quic: &quinn::Connection, e: &StreamError) {
    // (Brace patterns: h3 marks these variants non-exhaustive.)
    if let StreamError::ConnectionError {
        0:
            ConnectionError::Local {
                error: LocalError::Application { code, reason, .. },
                ..
            },
        ..
    } = e
    {
        let code = quinn::VarInt::from_u64(code.value()).unwrap_or(quinn::VarInt::MAX);
        quic.close(code, reason.as_bytes());
    }
}

/// Waits until `ready` says the engine has news for this task (the engine wakes it: its waker is the task's).
pub(super) async fn wait_for(opened: &Opened, mut ready: impl FnMut(&Server, u32) -> bool) {
    poll_fn(|_| {
        if ready(&opened.server, opened.key) {
            Poll::Ready(())
        } else {
            Poll::Pending
        }
    })
    .await
}

/// The rest of the request body into the record, as the engine takes it (`Intake`). A body longer or shorter than
/// its Content-Length is malformed (RFC 9114 §4.1.2): H3_MESSAGE_ERROR, and nothing past it reaches the engine.
async fn upload(
    opened: &Opened,
    quic: &quinn::Connection,
    recv: &mut Recv,
    mut intake: Intake,
    mut total: u64,
    declared: Option<u64>,
) -> Result<(), Code> {
    loop {
        match intake {
            Intake::Stop => return Ok(()),
            Intake::Hold => wait_for(opened, |s, k| !s.pulled_holding(k)).await,
            Intake::More => {}
        }
        let data = match recv.recv_data().await {
            Ok(d) => d.map(|mut b| b.copy_to_bytes(b.remaining())),
            Err(e) => {
                close_first(quic, &e);
                return Err(Code::H3_REQUEST_CANCELLED);
            }
        };
        let end = data.is_none();
        let data = data.unwrap_or_default();
        total += data.len() as u64;
        if declared.is_some_and(|d| total > d || (end && total != d)) {
            return Err(Code::H3_MESSAGE_ERROR);
        }
        intake = opened.server.pulled_body(opened.key, &data, end);
    }
}

/// The engine's response, pulled from the record: its head as HEADERS, its body as DATA, the end as FIN; a reset
/// (after what the pull brought) when the engine gave up on it.
async fn download(opened: &Opened, send: &mut Send) -> Result<(), Code> {
    loop {
        let mut pull = Pull::default();
        wait_for(opened, |s, k| {
            pull = s.pulled_take(k);
            !pull.is_empty()
        })
        .await;
        if let Some(resp) = pull.head {
            send.send_response(resp)
                .await
                .map_err(|_| Code::H3_REQUEST_CANCELLED)?;
        }
        if !pull.body.is_empty() {
            send.send_data(pull.body)
                .await
                .map_err(|_| Code::H3_REQUEST_CANCELLED)?;
        }
        if pull.reset {
            // What came with it went first: the client sees the status and the body up to where it stopped.
            return Err(Code::H3_INTERNAL_ERROR);
        }
        if pull.end {
            return send.finish().await.map_err(|_| Code::H3_REQUEST_CANCELLED);
        }
    }
}
