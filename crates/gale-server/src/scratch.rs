//! The engine's reusable buffers (`Inner::scratch`): the header and param spans of the request being parsed, a
//! buffer for bodies nobody reads, the pooled read buffers, and dynamic compression's scratch. They are kept only to
//! reuse their allocations; nothing in them outlives the call that fills it.

use gale_http::HeaderSpan;

/// Size of a pooled read buffer.
pub(crate) const READ_BUF: usize = 64 * 1024;
/// Pooled read buffers kept at most (each `READ_BUF` bytes).
const POOLED_BUFS: usize = 64;

#[derive(Default)]
pub(crate) struct Scratch {
    /// The header spans gale-http's head parser writes (http1/head.rs, and HTTP/2's heads in h2/mod.rs).
    pub hdr: Vec<HeaderSpan>,
    /// The router's param spans (routes/find.rs `route`).
    pub params: Vec<(u32, u32)>,
    /// Where body bytes nobody reads go, and a param being percent-decoded (http1/body.rs, routes/find.rs).
    pub discard: Vec<u8>,
    /// Dynamic compression's bodies, header lines and gzip compressor (respond.rs).
    pub cz: crate::compress::Scratch,
    /// Read buffers of connections that had nothing left over, for the next read (reader.rs).
    bufs: Vec<Vec<u8>>,
}

impl Scratch {
    /// A read buffer of `READ_BUF` capacity, from the pool when it has one.
    pub fn take_buf(&mut self) -> Vec<u8> {
        self.bufs
            .pop()
            .unwrap_or_else(|| Vec::with_capacity(READ_BUF))
    }

    /// Gives a read buffer back to the pool (one that grew past `READ_BUF`, or past the pool's size, is freed).
    pub fn give_buf(&mut self, mut b: Vec<u8>) {
        if b.capacity() == READ_BUF && self.bufs.len() < POOLED_BUFS {
            b.clear();
            self.bufs.push(b);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_pool_keeps_read_sized_buffers_only() {
        let mut s = Scratch::default();
        let mut b = s.take_buf();
        assert_eq!(b.capacity(), READ_BUF);
        b.extend_from_slice(b"left over");
        let at = b.as_ptr();
        s.give_buf(b);
        let again = s.take_buf();
        assert_eq!(
            (again.as_ptr(), again.len()),
            (at, 0),
            "the same allocation, emptied"
        );
        s.give_buf(Vec::with_capacity(READ_BUF * 2));
        assert!(s.bufs.is_empty(), "a grown buffer is freed");
    }
}
