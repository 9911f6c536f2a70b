//! A WebTransport session's CONNECT stream, from the request to the session's end (wt.rs has the state, wt_io.rs the
//! streams): the app's answer through the engine's request path, the 200, then the capsules both ways.

use std::cell::RefCell;
use std::future::poll_fn;
use std::net::SocketAddr;
use std::rc::Rc;
use std::task::Poll;
use std::time::{Duration, Instant};

use bytes::{Buf, Bytes};
use gale_wt::capsule::{Capsule, Decoder};
use h3::error::Code;
use h3::server::RequestStream;

use super::bridge::{busy, close_first, wait_for, Opened};
use super::wt::{emit, end_session, SessionRec, WtConn};
use super::Ctx;
use crate::pulled::{Pull, Refused};
use crate::WtEvent;

/// The largest capsule value read from a CONNECT stream (a CLOSE's reason is at most 1024 bytes; DATAGRAM capsules
/// are the only other large ones, and a client sends its datagrams as QUIC datagrams).
const MAX_CAPSULE: usize = 64 * 1024;
/// How long a session the server closed waits for the client's end of the CONNECT stream.
const CLOSE_LINGER: Duration = Duration::from_secs(2);

/// Whether `req` opens a WebTransport session: extended CONNECT with `:protocol` webtransport.
pub(super) fn is_connect(req: &http::Request<()>) -> bool {
    req.method() == http::Method::CONNECT
        && req.extensions().get::<h3::ext::Protocol>() == Some(&h3::ext::Protocol::WEB_TRANSPORT)
}

/// A session's CONNECT stream, from the request to the session's end: the request goes to the app as any HTTP/3
/// request does (routing, middleware); an answer other than the app's accept goes back as the response, and the
/// session ends unopened. Accepted, the 200 goes out and the stream carries capsules: the client's CLOSE, DRAIN
/// and DATAGRAM capsules to JS, JS's close and the server's drain to the client.
pub(super) async fn connect(
    ctx: Rc<Ctx>,
    quic: quinn::Connection,
    conn: Rc<RefCell<WtConn>>,
    peer: SocketAddr,
    req: http::Request<()>,
    stream: RequestStream<h3_quinn::BidiStream<Bytes>, Bytes>,
) {
    let h3_id = stream.id().into_inner();
    let (mut send, mut recv) = stream.split();
    if let Err(code) = conn.borrow_mut().sessions.connect(h3_id) {
        // Over the session limit: this CONNECT is rejected, the connection goes on.
        return send.stop_stream(Code::from(code));
    }
    let key = {
        let mut table = ctx.wt.borrow_mut();
        let key = table.id();
        table.sessions.insert(
            key,
            SessionRec {
                conn: conn.clone(),
                h3_id,
                accepted: false,
                close: None,
                drain: false,
                waker: None,
            },
        );
        key
    };
    conn.borrow_mut().keys.insert(h3_id, key);
    // However this task ends, the session ends with it (its streams reset, JS told when it was accepted).
    struct Ends<'a>(&'a Ctx, u32, Option<(u32, Vec<u8>)>);
    impl Drop for Ends<'_> {
        fn drop(&mut self) {
            let (code, reason) = self.2.take().unwrap_or_default();
            end_session(self.0, self.1, code, &reason);
        }
    }
    let mut ends = Ends(&ctx, key, None);
    let Some(server) = ctx.server.upgrade() else {
        return;
    };
    let (parts, ()) = req.into_parts();
    let waker = poll_fn(|cx| Poll::Ready(cx.waker().clone())).await;
    let opened = match server.pulled_open(peer, ctx.local, &parts, None, false, waker, Some(key)) {
        Ok((k, _)) => Opened { server, key: k },
        Err(Refused::Closing) => return send.stop_stream(Code::H3_REQUEST_REJECTED),
        Err(Refused::Busy(head)) => return busy(&mut send, *head).await,
    };
    // The app's answer: its accept, or a response sent as on any request stream (and no session).
    loop {
        let mut pull = Pull::default();
        wait_for(&opened, |s, k| {
            pull = s.pulled_take(k);
            !pull.is_empty()
        })
        .await;
        if pull.accept {
            break;
        }
        if let Some(resp) = pull.head {
            if send.send_response(resp).await.is_err() {
                return;
            }
        }
        if !pull.body.is_empty() && send.send_data(pull.body).await.is_err() {
            return;
        }
        if pull.reset {
            return send.stop_stream(Code::H3_INTERNAL_ERROR);
        }
        if pull.end {
            let _ = send.finish().await;
            return;
        }
    }
    drop(opened);
    // draft-02's answer header: Chromium checks it (h3 and aioquic do not).
    let resp = http::Response::builder()
        .status(200)
        .header("sec-webtransport-http3-draft", "draft02")
        .body(())
        .expect("a valid response");
    if send.send_response(resp).await.is_err() {
        return;
    }
    enum Next {
        Close(u32, String),
        Drain,
        Data(Result<Option<Bytes>, h3::error::StreamError>),
    }
    let mut decoder = Decoder::new(MAX_CAPSULE);
    let mut pending: Vec<u8> = Vec::new();
    loop {
        let next = poll_fn(|cx| {
            {
                let mut table = ctx.wt.borrow_mut();
                let Some(rec) = table.sessions.get_mut(&key) else {
                    return Poll::Ready(Next::Close(0, String::new()));
                };
                if rec.waker.as_ref().is_none_or(|w| !w.will_wake(cx.waker())) {
                    rec.waker = Some(cx.waker().clone());
                }
                if let Some((code, reason)) = rec.close.clone() {
                    return Poll::Ready(Next::Close(code, reason));
                }
                if std::mem::take(&mut rec.drain) {
                    return Poll::Ready(Next::Drain);
                }
            }
            recv.poll_recv_data(cx)
                .map(|r| Next::Data(r.map(|d| d.map(|mut b| b.copy_to_bytes(b.remaining())))))
        })
        .await;
        match next {
            Next::Close(code, reason) => {
                let mut buf = Vec::new();
                gale_wt::capsule::encode_close(code, &reason, &mut buf);
                ends.2 = Some((code, reason.into_bytes()));
                if send.send_data(buf.into()).await.is_err() || send.finish().await.is_err() {
                    return;
                }
                // The client answers with its own FIN; stopping the stream before it (which dropping it does) makes
                // Chromium report a lost connection instead of the close. What it sends meanwhile is ignored.
                let Some(exec) = ctx.exec.upgrade() else {
                    return;
                };
                let mut deadline = exec.timer(Instant::now() + CLOSE_LINGER);
                drop(exec);
                poll_fn(|cx| loop {
                    if deadline.as_mut().poll(cx).is_ready() {
                        return Poll::Ready(());
                    }
                    match recv.poll_recv_data(cx) {
                        Poll::Ready(Ok(Some(_))) => continue,
                        Poll::Ready(_) => return Poll::Ready(()),
                        Poll::Pending => return Poll::Pending,
                    }
                })
                .await;
                return;
            }
            Next::Drain => {
                let mut buf = Vec::new();
                gale_wt::capsule::encode_drain(&mut buf);
                if send.send_data(buf.into()).await.is_err() {
                    return;
                }
            }
            Next::Data(Ok(Some(bytes))) => {
                pending.extend_from_slice(&bytes);
                let mut at = 0;
                loop {
                    match decoder.decode(&pending[at..]) {
                        Ok((0, None)) => break,
                        Ok((n, capsule)) => {
                            at += n;
                            match capsule {
                                Some(Capsule::Close { code, reason }) => {
                                    // The client closed: our side ends too (the draft: FIN after its CLOSE).
                                    let _ = send.finish().await;
                                    ends.2 = Some((code, reason.into_bytes()));
                                    return;
                                }
                                Some(Capsule::Drain) => emit(&ctx, [WtEvent::Draining(key)]),
                                Some(Capsule::Datagram(d)) => emit(
                                    &ctx,
                                    [WtEvent::Datagram {
                                        session: key,
                                        data: d.into(),
                                    }],
                                ),
                                None => {}
                            }
                        }
                        Err(e) => {
                            // A malformed capsule ends the session: the CONNECT stream is reset with H3_MESSAGE_ERROR.
                            send.stop_stream(Code::H3_MESSAGE_ERROR);
                            let reason = format!("malformed capsule from the client: {e}");
                            ends.2 = Some((0, reason.into_bytes()));
                            return;
                        }
                    }
                }
                pending.drain(..at);
            }
            // The client ended the CONNECT stream without a CLOSE capsule: a close with code 0.
            Next::Data(Ok(None)) => {
                let _ = send.finish().await;
                return;
            }
            Next::Data(Err(e)) => return close_first(&quic, &e),
        }
    }
}
