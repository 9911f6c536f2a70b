//! Request-body buffers handed back once JS is done with them (a chunk it freed, or one the GC collected), kept for the
//! next large body read: a stream of uploads then reuses a few megabytes instead of mapping, faulting in and unmapping
//! a fresh one per receive (glibc serves allocations this size with mmap, and page faults were a fifth of an upload).

use std::cell::RefCell;

/// Buffers smaller than this are not worth keeping (small bodies come from malloc's heap cheaply).
pub const MIN_KEEP: usize = 64 * 1024;
/// Nor larger than this: one receive asks for at most 1 MiB (`reader::MAX_BODY_RECV`), and a body that grew beyond
/// twice that while JS was not reading is an exception not to pin.
const MAX_KEEP: usize = 2 * 1024 * 1024;
/// What the pool may hold in all, idle: enough for the uploads in flight on one thread to circulate.
const MAX_BYTES: usize = 16 * 1024 * 1024;

struct Pool {
    free: Vec<Vec<u8>>,
    bytes: usize,
}

thread_local! {
    // Per thread: a worker thread's Node environment has its own engine, and Node runs a Buffer's finalizer on the
    // thread of its environment.
    static POOL: RefCell<Pool> = const { RefCell::new(Pool { free: Vec::new(), bytes: 0 }) };
}

/// Hands a body buffer back (its bytes are no longer read by anyone). Kept if it is the right size and there is room.
pub fn give(mut v: Vec<u8>) {
    let cap = v.capacity();
    if !(MIN_KEEP..=MAX_KEEP).contains(&cap) {
        return;
    }
    v.clear();
    POOL.with(|p| {
        let mut p = p.borrow_mut();
        if p.bytes + cap <= MAX_BYTES {
            p.bytes += cap;
            p.free.push(v);
        }
    });
}

/// A kept buffer (empty, at least `MIN_KEEP` of capacity), if there is one.
pub fn take() -> Option<Vec<u8>> {
    POOL.with(|p| {
        let mut p = p.borrow_mut();
        let v = p.free.pop()?;
        p.bytes -= v.capacity();
        Some(v)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_only_mid_sized_buffers_up_to_the_byte_cap() {
        while take().is_some() {}
        give(Vec::with_capacity(1024)); // too small
        give(Vec::with_capacity(8 * 1024 * 1024)); // too large
        assert!(take().is_none());

        let mut v = Vec::with_capacity(MIN_KEEP);
        v.extend_from_slice(b"secret");
        give(v);
        let back = take().expect("kept");
        assert!(back.is_empty(), "handed back empty");
        assert!(back.capacity() >= MIN_KEEP);
        assert!(take().is_none());

        for _ in 0..(MAX_BYTES / MAX_KEEP + 3) {
            give(Vec::with_capacity(MAX_KEEP));
        }
        let mut n = 0;
        while take().is_some() {
            n += 1;
        }
        assert_eq!(n, MAX_BYTES / MAX_KEEP, "no more than MAX_BYTES kept");
    }
}
