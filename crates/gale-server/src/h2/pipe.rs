//! The in-memory duplex h2 reads from and writes to, and the waker it is polled with. Bytes the engine read
//! from the socket (plaintext, after rustls under TLS) go in; frames h2 writes come out and are moved to the
//! connection's write buffer, which the engine's own flush sends. No socket, no runtime, no thread.

use std::cell::RefCell;
use std::io;
use std::pin::Pin;
use std::rc::Rc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::task::{Context, Poll, Wake, Waker};

use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};

#[derive(Default)]
struct Bufs {
    input: Vec<u8>,
    /// How much of `input` h2 has read.
    in_pos: usize,
    output: Vec<u8>,
}

/// One end is h2's I/O object, the other the engine's handle to the same buffers (single-threaded: `Rc`).
#[derive(Clone, Default)]
pub(crate) struct Pipe(Rc<RefCell<Bufs>>);

impl Pipe {
    /// Bytes read from the socket, for h2 to read.
    pub fn push_input(&self, data: &[u8]) {
        let mut b = self.0.borrow_mut();
        if b.in_pos == b.input.len() {
            b.input.clear();
            b.in_pos = 0;
        }
        b.input.extend_from_slice(data);
    }

    /// Input h2 has not read yet.
    #[cfg(test)]
    pub fn input_left(&self) -> usize {
        let b = self.0.borrow();
        b.input.len() - b.in_pos
    }

    /// Moves everything h2 wrote to the end of `out`; returns how many bytes.
    pub fn take_output(&self, out: &mut Vec<u8>) -> usize {
        let mut b = self.0.borrow_mut();
        let n = b.output.len();
        if out.is_empty() {
            // Swap rather than copy when the destination is empty (the common case).
            std::mem::swap(out, &mut b.output);
        } else {
            out.extend_from_slice(&b.output);
            b.output.clear();
        }
        n
    }

    /// Output waiting to be taken.
    pub fn output_len(&self) -> usize {
        self.0.borrow().output.len()
    }
}

impl AsyncRead for Pipe {
    fn poll_read(
        self: Pin<&mut Self>,
        _cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let mut b = self.0.borrow_mut();
        let avail = b.input.len() - b.in_pos;
        if avail == 0 {
            // Nothing to read: h2 is polled again when the socket brings more (no waker needed). The
            // socket's end of file closes the connection in the engine, so h2 never needs to see one.
            return Poll::Pending;
        }
        let n = avail.min(buf.remaining());
        let start = b.in_pos;
        buf.put_slice(&b.input[start..start + n]);
        b.in_pos += n;
        if b.in_pos == b.input.len() {
            b.input.clear();
            b.in_pos = 0;
        }
        Poll::Ready(Ok(()))
    }
}

impl AsyncWrite for Pipe {
    // Writes never block: what h2 writes is bounded by what the engine hands it (stream data within the
    // flush budget) and by what the client sends (acks, window updates), which the flood guard limits;
    // reading from the socket pauses while the connection's output is over the high-water mark.
    fn poll_write(
        self: Pin<&mut Self>,
        _cx: &mut Context<'_>,
        data: &[u8],
    ) -> Poll<io::Result<usize>> {
        self.0.borrow_mut().output.extend_from_slice(data);
        Poll::Ready(Ok(data.len()))
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        _cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        let mut b = self.0.borrow_mut();
        let mut n = 0;
        for s in bufs {
            b.output.extend_from_slice(s);
            n += s.len();
        }
        Poll::Ready(Ok(n))
    }

    fn is_write_vectored(&self) -> bool {
        true
    }

    fn poll_flush(self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Poll::Ready(Ok(()))
    }

    fn poll_shutdown(self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Poll::Ready(Ok(()))
    }
}

/// A waker that only records that it was woken: h2 wakes its connection task when a stream operation
/// (data sent, capacity released, a reset) left work for the connection, and the engine polls it then.
#[derive(Default)]
pub(crate) struct Flag(AtomicBool);

impl Wake for Flag {
    fn wake(self: Arc<Self>) {
        self.0.store(true, Ordering::Relaxed);
    }

    fn wake_by_ref(self: &Arc<Self>) {
        self.0.store(true, Ordering::Relaxed);
    }
}

impl Flag {
    /// A waker and the flag it sets.
    pub fn new_waker() -> (Arc<Flag>, Waker) {
        let flag = Arc::new(Flag::default());
        (flag.clone(), Waker::from(flag))
    }

    /// Whether it was woken since the last `take` (and leaves it so).
    pub fn peek(&self) -> bool {
        self.0.load(Ordering::Relaxed)
    }

    /// Whether it was woken since the last call (and clears it).
    pub fn take(&self) -> bool {
        self.0.swap(false, Ordering::Relaxed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(p: &mut Pipe, cap: usize) -> Poll<Vec<u8>> {
        let (_, waker) = Flag::new_waker();
        let mut cx = Context::from_waker(&waker);
        let mut storage = vec![0u8; cap];
        let mut rb = ReadBuf::new(&mut storage);
        match Pin::new(p).poll_read(&mut cx, &mut rb) {
            Poll::Ready(r) => {
                r.unwrap();
                Poll::Ready(rb.filled().to_vec())
            }
            Poll::Pending => Poll::Pending,
        }
    }

    #[test]
    fn input_is_read_in_order_then_pending() {
        let mut p = Pipe::default();
        assert!(read(&mut p, 8).is_pending());
        p.push_input(b"hello ");
        p.push_input(b"world");
        assert_eq!(p.input_left(), 11);
        assert_eq!(read(&mut p, 4), Poll::Ready(b"hell".to_vec()));
        assert_eq!(read(&mut p, 64), Poll::Ready(b"o world".to_vec()));
        assert_eq!(p.input_left(), 0);
        assert!(read(&mut p, 8).is_pending());
        p.push_input(b"!");
        assert_eq!(read(&mut p, 8), Poll::Ready(b"!".to_vec()));
    }

    #[test]
    fn output_accumulates_and_moves_out() {
        let (_, waker) = Flag::new_waker();
        let mut cx = Context::from_waker(&waker);
        let mut p = Pipe::default();
        let r = Pin::new(&mut p).poll_write(&mut cx, b"abc");
        assert!(matches!(r, Poll::Ready(Ok(3))));
        let slices = [io::IoSlice::new(b"de"), io::IoSlice::new(b"f")];
        let r = Pin::new(&mut p).poll_write_vectored(&mut cx, &slices);
        assert!(matches!(r, Poll::Ready(Ok(3))));
        assert_eq!(p.output_len(), 6);
        let mut out = Vec::new();
        assert_eq!(p.take_output(&mut out), 6);
        assert_eq!(out, b"abcdef");
        let r = Pin::new(&mut p).poll_write(&mut cx, b"g");
        assert!(matches!(r, Poll::Ready(Ok(1))));
        p.take_output(&mut out);
        assert_eq!(out, b"abcdefg");
        assert_eq!(p.output_len(), 0);
    }

    #[test]
    fn the_flag_records_wakes() {
        let (flag, waker) = Flag::new_waker();
        assert!(!flag.take());
        waker.wake_by_ref();
        assert!(flag.take());
        assert!(!flag.take());
        waker.wake();
        assert!(flag.take());
    }
}
