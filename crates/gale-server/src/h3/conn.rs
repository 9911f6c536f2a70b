//! One QUIC connection's task: the handshake, HTTP/3's control streams, a task per request stream (bridge.rs) or
//! WebTransport stream and session (wt_io.rs), and GOAWAY when the server closes gracefully.

use std::cell::RefCell;
use std::collections::HashMap;
use std::future::poll_fn;
use std::net::IpAddr;
use std::rc::Rc;
use std::task::Poll;
use std::time::Instant;

use bytes::Bytes;
use gale_wt::session::Sessions;
use h3::frame::FrameStream;
use h3::proto::frame::Frame;
use h3::quic::StreamId;
use h3::quic::{BidiStream as _, RecvStream as _};
use h3::stream::BufRecvStream;

use super::wt::WtConn;
use super::{bridge, wt_io, wt_session, Admitted, Ctx};

/// A connection's place in `Ctx::conns`, given back when its task ends.
struct ConnSlot<'a> {
    ctx: &'a Ctx,
    key: usize,
}

impl Drop for ConnSlot<'_> {
    fn drop(&mut self) {
        self.ctx.conns.borrow_mut().remove(self.key);
    }
}

/// One QUIC connection: the handshake, then HTTP/3's control streams and a task per request stream.
pub(super) async fn connection(admitted: Admitted, ctx: Rc<Ctx>) {
    struct Counted<'a>(&'a Ctx, IpAddr);
    impl Drop for Counted<'_> {
        fn drop(&mut self) {
            self.0.release(self.1);
        }
    }
    let _counted = Counted(&ctx, admitted.ip);
    ctx.handshakes.set(ctx.handshakes.get() + 1);
    let conn = admitted.incoming.await;
    ctx.handshakes.set(ctx.handshakes.get() - 1);
    let Ok(conn) = conn else { return };
    let peer = conn.remote_address();
    let quic = conn.clone();
    let limits = ctx.opts.webtransport;
    let mut builder = h3::server::builder();
    builder.max_field_section_size(ctx.max_head);
    if let Some(l) = limits {
        // The settings Chromium (draft-02) and aioquic look for: extended CONNECT, HTTP datagrams, WebTransport.
        builder
            .enable_extended_connect(true)
            .enable_webtransport(true)
            .enable_datagram(true)
            .max_webtransport_sessions(l.sessions as u64);
    }
    let built = builder
        .build::<_, Bytes>(h3_quinn::Connection::new(conn))
        .await;
    let Ok(mut h3c) = built else { return };
    let wt = limits.map(|l| {
        Rc::new(RefCell::new(WtConn {
            sessions: Sessions::new(l),
            keys: HashMap::new(),
            held: HashMap::new(),
            quic: quic.clone(),
            opener: h3::quic::Connection::<Bytes>::opener(&h3c.inner.conn),
            epoch: Instant::now(),
        }))
    });
    if let (Some(wt), Some(exec)) = (&wt, ctx.exec.upgrade()) {
        exec.spawn(wt_io::datagrams(ctx.clone(), wt.clone()));
    }
    let waker = poll_fn(|cx| Poll::Ready(cx.waker().clone())).await;
    let slot = ConnSlot {
        key: ctx.conns.borrow_mut().insert(waker),
        ctx: &ctx,
    };
    let mut goaway = false;
    loop {
        // The next request stream; or, once the server closes, the GOAWAY (requests in flight carry on). The
        // client's WebTransport unidirectional streams, which h3 keeps aside as it reads the control streams, go to
        // their sessions on each poll.
        let next = poll_fn(|cx| {
            let r = h3c.poll_accept_request_stream(cx);
            if let Some(wt) = &wt {
                let uni = std::mem::take(&mut h3c.inner.accepted_streams_mut().wt_uni_streams);
                for (session, recv) in uni {
                    let id = recv.recv_id().into_inner();
                    let session = StreamId::from(session).into_inner();
                    wt_io::incoming(&ctx, wt, session, id, None, recv);
                }
            }
            match r {
                Poll::Ready(r) => Poll::Ready(Some(r)),
                Poll::Pending if slot.ctx.closing.get() && !goaway => Poll::Ready(None),
                Poll::Pending => Poll::Pending,
            }
        })
        .await;
        match next {
            Some(Ok(Some(stream))) => {
                let Some(exec) = ctx.exec.upgrade() else {
                    return;
                };
                let resolver = h3c.create_resolver(FrameStream::new(BufRecvStream::new(stream)));
                // As h3's own accept(): a GREASE frame on the first request stream only.
                h3c.inner.send_grease_frame = false;
                exec.spawn(request(
                    ctx.clone(),
                    quic.clone(),
                    wt.clone(),
                    peer,
                    resolver,
                ));
            }
            // Every request is done after a GOAWAY: the last GOAWAY, as h3's `accept` sends it.
            Some(Ok(None)) => {
                let _ = h3c.shutdown(0).await;
                return;
            }
            // The client closed, the idle timeout passed, or the endpoint closed.
            Some(Err(_)) => return,
            None => {
                goaway = true;
                if h3c.shutdown(0).await.is_err() {
                    return;
                }
            }
        }
    }
}

type Resolver = h3::server::RequestResolver<h3_quinn::Connection, Bytes>;

/// One bidirectional stream the client opened: its first frame says what it is. A WebTransport stream goes to its
/// session; a request (HEADERS) is served, a WebTransport CONNECT as a session (wt_io.rs), any other by bridge.rs.
async fn request(
    ctx: Rc<Ctx>,
    quic: quinn::Connection,
    wt: Option<Rc<RefCell<WtConn>>>,
    peer: std::net::SocketAddr,
    mut resolver: Resolver,
) {
    let frame = poll_fn(|cx| resolver.frame_stream.poll_next(cx)).await;
    if let (Some(wt), Ok(Some(Frame::WebTransportStream(session)))) = (&wt, &frame) {
        let session = StreamId::from(*session).into_inner();
        let stream = resolver.frame_stream.into_inner();
        let id = stream.recv_id().into_inner();
        let (send, recv) = stream.split();
        return wt_io::incoming(&ctx, wt, session, id, Some(send), recv);
    }
    let resolved = match resolver.accept_with_frame(frame) {
        Ok(r) => r.resolve().await,
        Err(e) => return bridge::close_first(&quic, &e),
    };
    match resolved {
        Ok((req, stream)) => match wt {
            Some(wt) if wt_session::is_connect(&req) => {
                wt_session::connect(ctx, quic, wt, peer, req, stream).await
            }
            _ => bridge::serve(&ctx, &quic, peer, req, stream).await,
        },
        Err(e) => bridge::close_first(&quic, &e),
    }
}
