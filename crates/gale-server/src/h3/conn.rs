//! One QUIC connection's task: the handshake, HTTP/3's control streams, a task per request stream (bridge.rs), and
//! GOAWAY when the server closes gracefully.

use std::future::{poll_fn, Future};
use std::net::IpAddr;
use std::pin::pin;
use std::rc::Rc;
use std::task::Poll;

use bytes::Bytes;

use super::{bridge, Admitted, Ctx};

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
    let built = h3::server::builder()
        .max_field_section_size(ctx.max_head)
        .build::<_, Bytes>(h3_quinn::Connection::new(conn))
        .await;
    let Ok(mut h3c) = built else { return };
    let waker = poll_fn(|cx| Poll::Ready(cx.waker().clone())).await;
    let slot = ConnSlot {
        key: ctx.conns.borrow_mut().insert(waker),
        ctx: &ctx,
    };
    let mut goaway = false;
    loop {
        // The next request stream; or, once the server closes, the GOAWAY (requests in flight carry on).
        let next = {
            let mut accept = pin!(h3c.accept());
            poll_fn(|cx| match accept.as_mut().poll(cx) {
                Poll::Ready(r) => Poll::Ready(Some(r)),
                Poll::Pending if slot.ctx.closing.get() && !goaway => Poll::Ready(None),
                Poll::Pending => Poll::Pending,
            })
            .await
        };
        match next {
            Some(Ok(Some(resolver))) => {
                let Some(exec) = ctx.exec.upgrade() else {
                    return;
                };
                let ctx = ctx.clone();
                let quic = quic.clone();
                exec.spawn(async move {
                    match resolver.resolve_request().await {
                        Ok((req, stream)) => bridge::serve(&ctx, &quic, peer, req, stream).await,
                        Err(e) => bridge::close_first(&quic, &e),
                    }
                });
            }
            // The client closed, the idle timeout passed, or the endpoint closed.
            Some(_) => return,
            None => {
                goaway = true;
                if h3c.shutdown(0).await.is_err() {
                    return;
                }
            }
        }
    }
}
