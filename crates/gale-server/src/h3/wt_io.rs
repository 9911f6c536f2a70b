//! The stream and datagram tasks of WebTransport (wt.rs has the state they share with JS, wt_session.rs a session's
//! CONNECT stream): each stream (bytes both ways with JS's pauses, resets and ends), the client's streams as they
//! arrive (delivered, held for a session not accepted yet, or refused), and a connection's datagrams.

use std::cell::RefCell;
use std::future::poll_fn;
use std::pin::pin;
use std::rc::Rc;
use std::task::Poll;
use std::time::{Duration, Instant};

use bytes::Bytes;
use gale_wt::session::{codes, Admit};
use h3::quic::{BidiStream as _, RecvStream as _, SendStream as _};
use h3::quic::{SendStreamUnframed as _, StreamErrorIncoming};
use h3::stream::BufRecvStream;

use super::wt::{emit, refuse, StreamRec, WtConn, WtRecv, WtSend, HIGH_WATER};
use super::Ctx;
use crate::WtEvent;

/// Bytes a stream's task hands JS in one poll before it lets the loop run (and JS pause it).
const READ_BUDGET: usize = 256 * 1024;
/// H3_DATAGRAM_ERROR (RFC 9297 §2.1): a datagram without a quarter stream ID.
const H3_DATAGRAM_ERROR: u32 = 0x33;

/// A stream the client opened, its header read (`session`: the CONNECT stream ID it names; `send` None for a
/// unidirectional one): delivered to its open session, held until the session is accepted (or its time is up), or
/// refused over the limits.
pub(super) fn incoming(
    ctx: &Rc<Ctx>,
    conn: &Rc<RefCell<WtConn>>,
    session: u64,
    stream: u64,
    send: Option<WtSend>,
    mut recv: WtRecv,
) {
    let now = conn.borrow().epoch.elapsed().as_millis() as u64;
    let admit = conn.borrow_mut().sessions.stream(stream, session, now);
    match admit {
        Admit::Deliver => match conn.borrow().keys.get(&session).copied() {
            Some(key) => deliver(ctx, key, conn, stream, send, recv),
            None => refuse(send, &mut recv, codes::SESSION_GONE),
        },
        Admit::Hold => {
            conn.borrow_mut().held.insert(stream, (session, send, recv));
            let hold = ctx
                .opts
                .webtransport
                .map_or(Duration::ZERO, |l| Duration::from_millis(l.hold_ms));
            let Some(exec) = ctx.exec.upgrade() else {
                return;
            };
            let mut timer = exec.timer(Instant::now() + hold);
            let conn = conn.clone();
            exec.spawn(async move {
                poll_fn(|cx| timer.as_mut().poll(cx)).await;
                let mut c = conn.borrow_mut();
                let now = c.epoch.elapsed().as_millis() as u64;
                let mut expired = Vec::new();
                c.sessions.expire(now, &mut expired);
                for id in expired {
                    if let Some((_, send, mut recv)) = c.held.remove(&id) {
                        refuse(send, &mut recv, codes::BUFFERED_STREAM_REJECTED);
                    }
                }
            });
        }
        Admit::Refuse(code) => refuse(send, &mut recv, code),
    }
}

/// Hands a client's stream to session `session` (JS's id): JS hears `Stream`, then its bytes.
pub(super) fn deliver(
    ctx: &Rc<Ctx>,
    session: u32,
    conn: &Rc<RefCell<WtConn>>,
    stream: u64,
    send: Option<WtSend>,
    recv: WtRecv,
) {
    let bidi = send.is_some();
    let id = {
        let mut table = ctx.wt.borrow_mut();
        let id = table.id();
        let session_h3 = table.sessions.get(&session).map_or(0, |s| s.h3_id);
        table.streams.insert(
            id,
            StreamRec {
                session,
                session_h3,
                quic_id: Some(stream),
                sends: bidi,
                send_done: !bidi,
                ..StreamRec::default()
            },
        );
        id
    };
    emit(
        ctx,
        [WtEvent::Stream {
            session,
            stream: id,
            bidi,
        }],
    );
    if let Some(exec) = ctx.exec.upgrade() {
        exec.spawn(run(ctx.clone(), id, conn.clone(), send, Some(recv)));
    }
}

/// A stream the server opens (JS's `wt_open` made its record `id`): opened when QUIC's stream limit lets it, its
/// header written before what JS wrote meanwhile, then served as any stream.
pub(super) async fn open(
    ctx: Rc<Ctx>,
    id: u32,
    conn: Rc<RefCell<WtConn>>,
    session_h3: u64,
    bidi: bool,
) {
    let mut opener = conn.borrow().opener.clone();
    let opened: Result<(WtSend, Option<WtRecv>), StreamErrorIncoming> = if bidi {
        poll_fn(|cx| h3::quic::OpenStreams::<Bytes>::poll_open_bidi(&mut opener, cx))
            .await
            .map(|b| {
                let (s, r) = BufRecvStream::<_, Bytes>::new(b).split();
                (s, Some(r))
            })
    } else {
        poll_fn(|cx| h3::quic::OpenStreams::<Bytes>::poll_open_send(&mut opener, cx))
            .await
            .map(|s| (BufRecvStream::new(s), None))
    };
    let Ok((send, recv)) = opened else {
        // The connection is gone: the session's end tells JS.
        ctx.wt.borrow_mut().streams.remove(&id);
        return;
    };
    {
        let mut table = ctx.wt.borrow_mut();
        let Some(rec) = table.streams.get_mut(&id) else {
            return;
        };
        rec.session_h3 = session_h3;
        rec.quic_id = Some(send.send_id().into_inner());
        let mut header = Vec::with_capacity(16);
        gale_wt::stream::encode_header(bidi, session_h3, &mut header);
        rec.out.push_front(header.into());
    }
    run(ctx, id, conn, Some(send), recv).await;
}

/// The WebTransport code of a peer's reset or stop (None: the connection went, or an HTTP/3 code).
fn app_code(e: &StreamErrorIncoming) -> Option<u32> {
    match e {
        StreamErrorIncoming::StreamTerminated { error_code } => {
            gale_wt::stream::from_http3(*error_code)
        }
        _ => None,
    }
}

/// Serves stream `id` until both its halves are done: JS's bytes out (its end, its reset), the client's bytes to JS
/// unless JS paused it (its end, its reset), a drain event when the output fell below the high-water mark.
async fn run(
    ctx: Rc<Ctx>,
    id: u32,
    conn: Rc<RefCell<WtConn>>,
    mut send: Option<WtSend>,
    mut recv: Option<WtRecv>,
) {
    // h3-quinn's receive half lends its QUIC stream to the read in flight (its last poll was Pending), and stopping it
    // then would find no stream (h3-quinn panics): a stop waits for the read to come back (below).
    let mut reading = false;
    let fut = poll_fn(|cx| {
        let mut evs = Vec::new();
        let done = {
            let mut table = ctx.wt.borrow_mut();
            let Some(rec) = table.streams.get_mut(&id) else {
                return Poll::Ready(());
            };
            if rec.waker.as_ref().is_none_or(|w| !w.will_wake(cx.waker())) {
                rec.waker = Some(cx.waker().clone());
            }
            if let Some(s) = send.as_mut() {
                if let Some(code) = rec.reset {
                    s.reset(code);
                    send = None;
                    rec.send_done = true;
                } else {
                    let mut failed = None;
                    while let Some(front) = rec.out.front_mut() {
                        match s.poll_send(cx, front) {
                            Poll::Ready(Ok(n)) => {
                                rec.out_len = rec.out_len.saturating_sub(n);
                                if front.is_empty() {
                                    rec.out.pop_front();
                                }
                            }
                            Poll::Ready(Err(e)) => {
                                failed = Some(e);
                                break;
                            }
                            Poll::Pending => break,
                        }
                    }
                    if let Some(e) = failed {
                        // The client stopped this stream's sending (STOP_SENDING), or the connection went.
                        evs.push(WtEvent::Reset {
                            stream: id,
                            code: app_code(&e),
                            stopped: true,
                        });
                        send = None;
                        rec.send_done = true;
                        rec.out.clear();
                        rec.out_len = 0;
                    } else if rec.out.is_empty() && rec.fin {
                        let _ = s.poll_finish(cx);
                        send = None;
                        rec.send_done = true;
                    }
                    if rec.want_drain && rec.out_len <= HIGH_WATER && !rec.send_done {
                        rec.want_drain = false;
                        evs.push(WtEvent::Drain(id));
                    }
                }
            }
            if let Some(r) = recv.as_mut() {
                if let Some(code) = rec.stop {
                    // With a read in flight the stream is the read's: the stop waits for what the read brings (the
                    // client is sending, which is why the app stops it), dropped, and then goes with its code. A
                    // stream of an ended session is let go at once (quinn stops it with code 0).
                    let settled = if !reading || code == codes::SESSION_GONE {
                        Some(!reading)
                    } else {
                        match r.poll_data(cx) {
                            Poll::Pending => None,
                            Poll::Ready(Ok(Some(_))) => Some(true),
                            // It ended or was reset meanwhile: nothing to stop.
                            Poll::Ready(_) => Some(false),
                        }
                    };
                    if let Some(stop) = settled {
                        if stop {
                            r.stop_sending(code);
                        }
                        recv = None;
                    }
                } else if !rec.paused {
                    let mut budget = READ_BUDGET;
                    loop {
                        let polled = r.poll_data(cx);
                        reading = polled.is_pending();
                        match polled {
                            Poll::Ready(Ok(Some(data))) => {
                                budget = budget.saturating_sub(data.len());
                                evs.push(WtEvent::Data {
                                    stream: id,
                                    data,
                                    fin: false,
                                });
                                if budget == 0 {
                                    cx.waker().wake_by_ref();
                                    break;
                                }
                            }
                            Poll::Ready(Ok(None)) => {
                                evs.push(WtEvent::Data {
                                    stream: id,
                                    data: Bytes::new(),
                                    fin: true,
                                });
                                recv = None;
                                break;
                            }
                            Poll::Ready(Err(e)) => {
                                evs.push(WtEvent::Reset {
                                    stream: id,
                                    code: app_code(&e),
                                    stopped: false,
                                });
                                recv = None;
                                break;
                            }
                            Poll::Pending => break,
                        }
                    }
                }
            }
            let done = send.is_none() && recv.is_none();
            if done {
                if let Some(rec) = table.streams.remove(&id) {
                    if let Some(q) = rec.quic_id {
                        conn.borrow_mut().sessions.stream_closed(rec.session_h3, q);
                    }
                }
            }
            done
        };
        emit(&ctx, evs);
        if done {
            Poll::Ready(())
        } else {
            Poll::Pending
        }
    });
    pin!(fut).await;
}

/// A connection's datagrams, each to its open session (dropped for any other, as the draft allows); a datagram
/// without a whole quarter stream ID closes the connection with H3_DATAGRAM_ERROR.
pub(super) async fn datagrams(ctx: Rc<Ctx>, conn: Rc<RefCell<WtConn>>) {
    let quic = conn.borrow().quic.clone();
    while let Ok(d) = quic.read_datagram().await {
        let parsed = gale_wt::stream::datagram(&d).map(|(s, p)| (s, d.len() - p.len()));
        let Ok((session, at)) = parsed else {
            quic.close(H3_DATAGRAM_ERROR.into(), b"malformed HTTP datagram");
            return;
        };
        let key = {
            let c = conn.borrow();
            c.sessions
                .datagram(session)
                .then(|| c.keys.get(&session).copied())
                .flatten()
        };
        if let Some(key) = key {
            emit(
                &ctx,
                [WtEvent::Datagram {
                    session: key,
                    data: d.slice(at..),
                }],
            );
        }
    }
}
