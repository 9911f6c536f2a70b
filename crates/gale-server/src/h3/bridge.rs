//! One HTTP/3 request stream, served by the engine through an in-process connection (mem.rs): the request's
//! fields become the equivalent HTTP/1.1 head (`gale_h2::request_head`, as for HTTP/2) and its DATA the body;
//! the response the engine writes is read back parsed and sent as HEADERS and DATA. The connection carries the
//! client's address and reads as HTTP/3 (`req.httpVersion` "3.0", `req.secure`), so the app cannot tell the
//! difference, and the engine's limits (431, 413, 408) answer as they do on a socket.

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
use http::{Method, Response, StatusCode};

use super::Ctx;
use crate::mem::{MemState, MemWrite};
use crate::Server;

type Send = RequestStream<h3_quinn::SendStream<Bytes>, Bytes>;
type Recv = RequestStream<h3_quinn::RecvStream, Bytes>;

/// Closes the in-process connection when the request's task ends, however it ends (the engine aborts a request
/// JS still holds, as when a client leaves).
struct Pipe {
    server: Rc<Server>,
    key: u32,
}

impl Drop for Pipe {
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
    let mut head = Vec::with_capacity(256);
    gale_h2::request_head(&parts, &mut head);
    let declared = parts.headers.contains_key(CONTENT_LENGTH);
    let head_only = parts.method == Method::HEAD;
    // A request whose stream ended with its fields has no body; otherwise the first DATA is here before the head
    // goes in, so a body without Content-Length can be framed as chunked.
    // Within `headersTimeout`, as a socket's head must arrive: a stream that never shows it gets a 408.
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
    let chunked = first.is_some() && !declared;
    if chunked {
        head.truncate(head.len() - 2);
        head.extend_from_slice(b"transfer-encoding: chunked\r\n\r\n");
    }
    let Some(server) = ctx.server.upgrade() else {
        return;
    };
    let waker = poll_fn(|cx| Poll::Ready(cx.waker().clone())).await;
    let Some(key) = server.h3_open(peer, ctx.local, head_only, waker) else {
        // The server is closing: the client may retry elsewhere (RFC 9114 §4.1.1).
        send.stop_stream(Code::H3_REQUEST_REJECTED);
        return;
    };
    let pipe = Pipe { server, key };
    if pipe.server.mem_write(key, &head) == MemWrite::Gone {
        send.stop_stream(Code::H3_INTERNAL_ERROR);
        return;
    }
    let body_len = parts
        .headers
        .get(CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok()?.parse::<u64>().ok());
    let result = {
        let mut upload = pin!(upload(&pipe, quic, &mut recv, first, chunked, body_len));
        let mut download = pin!(download(&pipe, &mut send));
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

/// Waits for the engine to have news on the pipe (its waker is this task's).
async fn wait_for(pipe: &Pipe, mut ready: impl FnMut(&Server, u32) -> bool) {
    poll_fn(|_| {
        if ready(&pipe.server, pipe.key) {
            Poll::Ready(())
        } else {
            Poll::Pending
        }
    })
    .await
}

/// The request body into the pipe: as sent, or chunked when it has no Content-Length. A body longer or shorter
/// than its Content-Length is malformed (RFC 9114 §4.1.2): H3_MESSAGE_ERROR, and nothing past it reaches the engine.
async fn upload(
    pipe: &Pipe,
    quic: &quinn::Connection,
    recv: &mut Recv,
    mut first: Option<Bytes>,
    chunked: bool,
    declared: Option<u64>,
) -> Result<(), Code> {
    let mut total = 0u64;
    let mut frame = Vec::new();
    loop {
        let data = match first.take() {
            Some(d) => Some(d),
            None => match recv.recv_data().await {
                Ok(d) => d.map(|mut b| b.copy_to_bytes(b.remaining())),
                Err(e) => {
                    close_first(quic, &e);
                    return Err(Code::H3_REQUEST_CANCELLED);
                }
            },
        };
        let Some(data) = data else {
            if declared.is_some_and(|d| total != d) {
                return Err(Code::H3_MESSAGE_ERROR);
            }
            if chunked {
                pipe.server.mem_write(pipe.key, b"0\r\n\r\n");
            }
            return Ok(());
        };
        if data.is_empty() {
            continue;
        }
        total += data.len() as u64;
        if declared.is_some_and(|d| total > d) {
            return Err(Code::H3_MESSAGE_ERROR);
        }
        let w = if chunked {
            frame.clear();
            frame.extend_from_slice(format!("{:x}\r\n", data.len()).as_bytes());
            frame.extend_from_slice(&data);
            frame.extend_from_slice(b"\r\n");
            pipe.server.mem_write(pipe.key, &frame)
        } else {
            pipe.server.mem_write(pipe.key, &data)
        };
        match w {
            MemWrite::Ok => {}
            // The engine answered and closed (413, or a response without reading): the rest is not wanted.
            MemWrite::Gone => return Ok(()),
            MemWrite::Full => wait_for(pipe, |s, k| !s.mem_full(k)).await,
        }
    }
}

/// The engine's response out of the pipe: its head as HEADERS, its body as DATA, the end as FIN.
async fn download(pipe: &Pipe, send: &mut Send) -> Result<(), Code> {
    loop {
        let mut got = None;
        wait_for(pipe, |s, k| {
            got = s.mem_read(k, |out| {
                (
                    out.head
                        .map(|h| gale_h2::response_from_fields(h.status, &h.fields)),
                    Bytes::copy_from_slice(out.body),
                    out.state,
                )
            });
            // Gone, or something to pass on.
            got.as_ref()
                .is_none_or(|(h, b, st)| h.is_some() || !b.is_empty() || *st != MemState::More)
        })
        .await;
        let Some((head, body, state)) = got else {
            return Err(Code::H3_INTERNAL_ERROR);
        };
        if let Some(resp) = head {
            send.send_response(resp)
                .await
                .map_err(|_| Code::H3_REQUEST_CANCELLED)?;
        }
        if !body.is_empty() {
            send.send_data(body)
                .await
                .map_err(|_| Code::H3_REQUEST_CANCELLED)?;
        }
        match state {
            MemState::More => {}
            MemState::Done => {
                return send.finish().await.map_err(|_| Code::H3_REQUEST_CANCELLED);
            }
            MemState::Failed => return Err(Code::H3_INTERNAL_ERROR),
        }
    }
}
