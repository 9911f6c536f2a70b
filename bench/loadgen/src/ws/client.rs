//! One client of the broadcast modes (`broadcast`, `sio-broadcast`) as two tasks on an upgraded connection: a writer
//! sending the whole masked frames it is handed, and a reader parsing every server frame in place (raw.rs) and handing
//! each text to the mode, answering pings, and counting what ends the connection.

use std::cell::RefCell;
use std::rc::Rc;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::tcp::OwnedReadHalf;
use tokio::net::TcpStream;
use tokio::sync::mpsc;

use crate::raw::{self, Frame, MASK};
use crate::stats::Stats;

/// What a mode does with its clients' frames.
pub trait Receiver {
    fn stats(&mut self) -> &mut Stats;
    /// Set once the run is over: closes and errors are expected from then on.
    fn stopping(&self) -> bool;
    /// A text frame client `id` received (checked by the mode); Some(frame) is sent back (Engine.IO's pong).
    fn on_text(&mut self, id: usize, t: &[u8]) -> Option<Vec<u8>>;
}

/// Starts client `id`'s writer and reader on `tcp` (`rest`: bytes the server sent after its 101 head); returns
/// where to send its frames.
pub fn spawn<R: Receiver + 'static>(
    id: usize,
    tcp: TcpStream,
    rest: Vec<u8>,
    sh: Rc<RefCell<R>>,
) -> mpsc::UnboundedSender<Vec<u8>> {
    let (rd, mut wr) = tcp.into_split();
    let (tx, mut rx) = mpsc::unbounded_channel::<Vec<u8>>();
    let shw = sh.clone();
    tokio::task::spawn_local(async move {
        while let Some(frame) = rx.recv().await {
            if let Err(e) = wr.write_all(&frame).await {
                let mut s = shw.borrow_mut();
                if !s.stopping() {
                    s.stats()
                        .error(|e| &mut e.write, format!("client {id}: write: {e}"));
                }
                return;
            }
        }
        let _ = wr.shutdown().await;
    });
    let mut buf = Vec::with_capacity(4096.max(rest.len()));
    buf.extend_from_slice(&rest);
    tokio::task::spawn_local(reader(id, rd, buf, sh, tx.clone()));
    tx
}

/// Reads client `id`'s frames until the connection ends: every text goes to the mode, pings are answered via `tx`.
async fn reader<R: Receiver>(
    id: usize,
    mut rd: OwnedReadHalf,
    mut buf: Vec<u8>,
    sh: Rc<RefCell<R>>,
    tx: mpsc::UnboundedSender<Vec<u8>>,
) {
    let mut start = 0;
    loop {
        while start < buf.len() {
            let (frame, n) = match raw::parse(&buf[start..]) {
                Ok(Some(x)) => x,
                Ok(None) => break,
                Err(why) => {
                    sh.borrow_mut()
                        .stats()
                        .invalid_because(|| format!("client {id}: {why}"));
                    return;
                }
            };
            let mut s = sh.borrow_mut();
            match frame {
                Frame::Text(t) => {
                    if let Some(answer) = s.on_text(id, t) {
                        let _ = tx.send(answer);
                    }
                }
                Frame::Ping(p) => {
                    let _ = tx.send(raw::client_frame(10, p, MASK));
                }
                Frame::Pong => {}
                Frame::Binary(b) => s.stats().invalid_because(|| {
                    format!("client {id}: unexpected binary message, {} bytes", b.len())
                }),
                Frame::Close(code) => {
                    if !s.stopping() {
                        s.stats().error(
                            |e| &mut e.closed,
                            format!("client {id}: close frame from the server (code {code:?})"),
                        );
                    }
                    return;
                }
            }
            start += n;
        }
        // Keep the unparsed tail at the front; the buffer only grows for a frame larger than it.
        buf.drain(..start);
        start = 0;
        if buf.capacity() - buf.len() < 2048 {
            buf.reserve(4096);
        }
        match rd.read_buf(&mut buf).await {
            Ok(0) | Err(_) if sh.borrow().stopping() => return,
            Ok(0) => {
                sh.borrow_mut().stats().error(
                    |e| &mut e.closed,
                    format!("client {id}: connection closed by the server"),
                );
                return;
            }
            Ok(_) => {}
            Err(e) => {
                sh.borrow_mut()
                    .stats()
                    .error(|e| &mut e.read, format!("client {id}: read: {e}"));
                return;
            }
        }
    }
}
