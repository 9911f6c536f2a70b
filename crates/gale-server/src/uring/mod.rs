//! The io_uring driver (Linux): one ring per listening server, watched by a `uv_poll` on the ring's own descriptor
//! (readable while completions wait), so it runs on Node's loop like the epoll poller. Multishot accept, multishot
//! receive into a ring of provided buffers, one send in flight per connection; submissions are flushed once per turn.
//! Over 400 lines: the ring and its provided buffers (`Bufs`), whose unsafe invariants (memory the kernel writes into)
//! are kept in one file to be audited together.

mod conn;
mod serve;

pub(crate) use conn::{queue, send_body, send_now, RingRx, RingSock, RingTx, RING_CAP};
pub(crate) use serve::watch;

use std::io;
use std::os::fd::{AsRawFd, RawFd};
use std::sync::atomic::{AtomicU16, Ordering};

use io_uring::{cqueue, opcode, squeue, types, IoUring};

/// Provided receive buffers: 4 096 of 4 KiB (16 MiB of address space per listening server, touched as used). Each
/// completion's bytes are copied out and the buffer given back at once, so they run short only when more receives
/// finish between two reaps than there are buffers: then a receive ends (ENOBUFS) and is armed again. At 10 000 busy
/// connections that made 1 024 buffers of 8 KiB cost 31.2 µs of CPU per request against 16.1 with these
/// (`npm run bench -- sweep --servers gale,gale-uring`, one run each).
const BUF_COUNT: u16 = 4096;
const BUF_SIZE: usize = 4 * 1024;
const BGID: u16 = 0;
/// Submission queue entries, and completion queue entries (a receive per connection may complete at once).
const ENTRIES: u32 = 4096;
const CQ_ENTRIES: u32 = 16 * 1024;

/// What a submission was, kept in the top byte of its user data.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Op {
    Accept = 1,
    Recv = 2,
    Send = 3,
    Cancel = 4,
}

/// User data: the op, the connection's generation (a reused slab key must not take an old socket's completion) and
/// its slab key.
pub(crate) fn tag(op: Op, gen: u32, cid: usize) -> u64 {
    (op as u64) << 56 | (u64::from(gen) & 0xff_ffff) << 32 | (cid as u64 & 0xffff_ffff)
}

/// One completion, read out of the ring so no borrow of it is held while the engine handles it.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Done {
    pub op: Op,
    pub gen: u32,
    pub cid: usize,
    pub res: i32,
    pub flags: u32,
    pub user_data: u64,
}

impl Done {
    fn of(e: &cqueue::Entry) -> Option<Done> {
        let ud = e.user_data();
        let op = match ud >> 56 {
            1 => Op::Accept,
            2 => Op::Recv,
            3 => Op::Send,
            4 => Op::Cancel,
            _ => return None,
        };
        Some(Done {
            op,
            gen: ((ud >> 32) & 0xff_ffff) as u32,
            cid: (ud & 0xffff_ffff) as usize,
            res: e.result(),
            flags: e.flags(),
            user_data: ud,
        })
    }

    /// A multishot request goes on after this completion.
    pub fn more(&self) -> bool {
        cqueue::more(self.flags)
    }
}

/// Why io_uring cannot be used here (the fallback's log line), or the ring.
pub(crate) fn open() -> Result<Ring, String> {
    // An environment without io_uring, on demand (tests, or to rule the backend out without a code change).
    if std::env::var_os("GALE_NO_IO_URING").is_some_and(|v| !v.is_empty() && v != "0") {
        return Err("GALE_NO_IO_URING is set, so io_uring is treated as unavailable".into());
    }
    // Multishot receive (the whole design) is Linux 6.0's.
    if let Some((major, minor)) = kernel_version() {
        if (major, minor) < (6, 0) {
            return Err(format!(
                "Linux {major}.{minor} lacks multishot receive (6.0 or newer is needed)"
            ));
        }
    }
    // COOP_TASKRUN: a completion arriving while the JS thread runs waits for its next system call instead of
    // interrupting it (an inter-processor interrupt per receive otherwise: 14 % of the server's CPU under load,
    // `perf record -e cpu-clock`); a sleeping thread is still woken. SINGLE_ISSUER: only the JS thread submits.
    let uring = IoUring::builder()
        .setup_coop_taskrun()
        .setup_single_issuer()
        .setup_cqsize(CQ_ENTRIES)
        .build(ENTRIES)
        .map_err(|e| {
            match e.raw_os_error() {
        Some(libc::EPERM) => {
            "io_uring_setup was refused with EPERM: kernel.io_uring_disabled is set, or a seccomp \
             profile (a container's) forbids io_uring"
                .to_string()
        }
        Some(libc::ENOSYS) => "this kernel has no io_uring (ENOSYS)".to_string(),
        _ => format!("io_uring_setup failed: {e}"),
    }
        })?;
    let bufs = Bufs::new(&uring)
        .map_err(|e| format!("registering the receive buffer ring failed: {e}"))?;
    Ok(Ring {
        uring,
        bufs,
        live: 0,
        dirty: false,
        orphans: Vec::new(),
        next_gen: 0,
        accept_armed: false,
        nofile: nofile(),
        reaped: Vec::new(),
        received: Vec::new(),
    })
}

/// The soft open-file limit.
fn nofile() -> u64 {
    // SAFETY: rlimit is plain data that getrlimit fills.
    let mut l: libc::rlimit = unsafe { std::mem::zeroed() };
    // SAFETY: l is a valid rlimit.
    unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut l) };
    l.rlim_cur as u64
}

fn kernel_version() -> Option<(u32, u32)> {
    // SAFETY: utsname is plain data; uname fills it.
    let mut u: libc::utsname = unsafe { std::mem::zeroed() };
    // SAFETY: u is a valid utsname.
    if unsafe { libc::uname(&mut u) } != 0 {
        return None;
    }
    // SAFETY: uname wrote a NUL-terminated release string.
    let release = unsafe { std::ffi::CStr::from_ptr(u.release.as_ptr()) }.to_string_lossy();
    let mut parts = release.split(|c: char| !c.is_ascii_digit());
    Some((parts.next()?.parse().ok()?, parts.next()?.parse().ok()?))
}

/// The provided buffer ring: entries the kernel takes receive buffers from, and the buffers themselves.
struct Bufs {
    entries: *mut types::BufRingEntry,
    mem: *mut u8,
    tail: u16,
}

impl Bufs {
    fn entries_layout() -> std::alloc::Layout {
        // The ring must be page-aligned (io_uring_register_buf_ring(3)).
        std::alloc::Layout::from_size_align(
            BUF_COUNT as usize * std::mem::size_of::<types::BufRingEntry>(),
            4096,
        )
        .expect("valid layout")
    }

    fn mem_layout() -> std::alloc::Layout {
        std::alloc::Layout::from_size_align(BUF_COUNT as usize * BUF_SIZE, 4096)
            .expect("valid layout")
    }

    fn new(uring: &IoUring) -> io::Result<Bufs> {
        // SAFETY: both layouts have a non-zero size.
        let entries = unsafe { std::alloc::alloc_zeroed(Self::entries_layout()) };
        // SAFETY: as above.
        let mem = unsafe { std::alloc::alloc(Self::mem_layout()) };
        if entries.is_null() || mem.is_null() {
            return Err(io::ErrorKind::OutOfMemory.into());
        }
        let mut bufs = Bufs {
            entries: entries.cast(),
            mem,
            tail: 0,
        };
        // SAFETY: the ring memory lives as long as `bufs`, which the Ring drops only after the ring is gone.
        unsafe {
            uring
                .submitter()
                .register_buf_ring_with_flags(entries as u64, BUF_COUNT, BGID, 0)?
        };
        for bid in 0..BUF_COUNT {
            bufs.give_back(bid);
        }
        Ok(bufs)
    }

    /// The bytes the kernel put in buffer `bid`.
    fn data(&self, bid: u16, len: usize) -> &[u8] {
        let len = len.min(BUF_SIZE);
        // SAFETY: bid < BUF_COUNT (the kernel returns only ids we gave), and the kernel wrote `len` bytes there and
        // will not touch the buffer again until it is given back.
        unsafe { std::slice::from_raw_parts(self.mem.add(bid as usize * BUF_SIZE), len) }
    }

    /// Hands buffer `bid` back to the kernel.
    fn give_back(&mut self, bid: u16) {
        let idx = (self.tail & (BUF_COUNT - 1)) as usize;
        // SAFETY: idx < BUF_COUNT, inside the entries allocation; the kernel reads entries only up to the tail we
        // publish below.
        let e = unsafe { &mut *self.entries.add(idx) };
        // SAFETY: bid < BUF_COUNT, so the address is inside `mem`.
        e.set_addr(unsafe { self.mem.add(bid as usize * BUF_SIZE) } as u64);
        e.set_len(BUF_SIZE as u32);
        e.set_bid(bid);
        self.tail = self.tail.wrapping_add(1);
        // SAFETY: the tail field overlays the first entry's reserved field, a u16 the kernel reads atomically.
        let tail = unsafe { &*(types::BufRingEntry::tail(self.entries) as *const AtomicU16) };
        tail.store(self.tail, Ordering::Release);
    }
}

impl Drop for Bufs {
    fn drop(&mut self) {
        if self.mem.is_null() {
            return; // leaked on purpose (Ring's drop)
        }
        // SAFETY: allocated in `new` with these layouts.
        unsafe {
            std::alloc::dealloc(self.entries.cast(), Self::entries_layout());
            std::alloc::dealloc(self.mem, Self::mem_layout());
        }
    }
}

pub(crate) struct Ring {
    // Dropped first: the kernel is done with the buffers before they are freed (see Drop).
    uring: IoUring,
    bufs: Bufs,
    /// Requests the kernel still holds (their last completion not yet reaped).
    live: usize,
    /// Entries wait to be submitted.
    dirty: bool,
    /// Send buffers of closed connections, kept until their send completes (the kernel reads them until then).
    orphans: Vec<(u64, Vec<u8>)>,
    next_gen: u32,
    pub accept_armed: bool,
    /// The open-file limit when the accept was armed: the kernel applies the limit it read then (the multishot
    /// accept is prepared once), so a changed limit re-arms it (`follow_nofile`).
    nofile: u64,
    /// The completions being handled (`Server::on_ring`), kept to reuse the allocation.
    pub reaped: Vec<Done>,
    /// Connections that received in the completions being handled, with their generation (likewise).
    pub received: Vec<(usize, u32)>,
}

impl Ring {
    pub fn fd(&self) -> RawFd {
        self.uring.as_raw_fd()
    }

    pub fn next_gen(&mut self) -> u32 {
        self.next_gen = (self.next_gen + 1) & 0xff_ffff;
        self.next_gen
    }

    /// Queues `e`; everything queued goes to the kernel at the end of the turn (`submit`).
    ///
    /// # Safety
    /// What the entry points at (a send's buffer) must stay valid until its completion is reaped.
    unsafe fn push(&mut self, e: squeue::Entry) {
        // SAFETY: forwarded to the caller.
        while unsafe { self.uring.submission().push(&e) }.is_err() {
            // The submission queue is full: hand it to the kernel now.
            let _ = self.uring.submit();
        }
        self.live += 1;
        self.dirty = true;
    }

    /// From the tick: when the open-file limit changed (setrlimit, prlimit) since the accept was armed, cancel it;
    /// its last completion re-arms it (uring/serve.rs), under the new limit.
    pub fn follow_nofile(&mut self) {
        let now = nofile();
        if self.accept_armed && now != self.nofile {
            self.nofile = now;
            self.cancel(tag(Op::Accept, 0, 0));
        }
    }

    pub fn arm_accept(&mut self, listener: RawFd) {
        self.nofile = nofile();
        // No SOCK_NONBLOCK: io_uring waits in the kernel; the engine's own calls on these sockets pass MSG_DONTWAIT.
        let e = opcode::AcceptMulti::new(types::Fd(listener))
            .flags(libc::SOCK_CLOEXEC)
            .build()
            .user_data(tag(Op::Accept, 0, 0));
        // SAFETY: accept points at no memory of ours.
        unsafe { self.push(e) };
        self.accept_armed = true;
    }

    pub fn arm_recv(&mut self, fd: RawFd, gen: u32, cid: usize) {
        let e = opcode::RecvMulti::new(types::Fd(fd), BGID)
            .build()
            .user_data(tag(Op::Recv, gen, cid));
        // SAFETY: the receive writes only into provided buffers, which live as long as the ring.
        unsafe { self.push(e) };
    }

    /// Sends `buf` on `fd`.
    ///
    /// # Safety
    /// `buf` must stay allocated and unchanged until the send's completion is reaped (the connection keeps it, or
    /// hands it to `orphan` when it closes first).
    pub unsafe fn send(&mut self, fd: RawFd, buf: &[u8], gen: u32, cid: usize) {
        let len = buf.len().min(u32::MAX as usize) as u32;
        let e = opcode::Send::new(types::Fd(fd), buf.as_ptr(), len)
            .flags(libc::MSG_NOSIGNAL)
            .build()
            .user_data(tag(Op::Send, gen, cid));
        // SAFETY: forwarded to the caller.
        unsafe { self.push(e) };
    }

    /// Cancels the request with this user data (a closing connection's receive or send).
    pub fn cancel(&mut self, user_data: u64) {
        let e = opcode::AsyncCancel2::new(types::CancelBuilder::user_data(user_data))
            .build()
            .user_data(tag(Op::Cancel, 0, 0));
        // SAFETY: a cancel points at no memory.
        unsafe { self.push(e) };
    }

    /// Keeps a closed connection's send buffer until the send's completion (`user_data`) is reaped.
    pub fn orphan(&mut self, user_data: u64, buf: Vec<u8>) {
        self.orphans.push((user_data, buf));
    }

    /// Hands what was queued in this turn to the kernel: one `io_uring_enter` per turn.
    pub fn submit(&mut self) {
        if self.dirty {
            self.dirty = false;
            let _ = self.uring.submit();
        }
    }

    /// Moves the completions waiting in the ring into `out`.
    pub fn reap(&mut self, out: &mut Vec<Done>) {
        loop {
            for e in self.uring.completion() {
                if !cqueue::more(e.flags()) {
                    self.live = self.live.saturating_sub(1);
                }
                if let Some(d) = Done::of(&e) {
                    out.push(d);
                }
            }
            // More completions than the queue holds (thousands of connections at once): the kernel keeps the rest
            // and moves them in only on an io_uring_enter asking for events, which this one does (and submits).
            if !self.uring.submission().cq_overflow() {
                return;
            }
            let _ = self.uring.submitter().submit_and_wait(0);
            self.dirty = false;
        }
    }

    /// The `len` bytes a receive put in buffer `bid`; the buffer goes back to the kernel with `give_back`.
    pub fn received(&self, bid: u16, len: usize) -> &[u8] {
        self.bufs.data(bid, len)
    }

    pub fn give_back(&mut self, bid: u16) {
        self.bufs.give_back(bid);
    }

    /// A send completed for a connection that is gone: its buffer can go now.
    pub fn orphan_done(&mut self, user_data: u64) {
        if let Some(i) = self.orphans.iter().position(|(ud, _)| *ud == user_data) {
            self.orphans.swap_remove(i);
        }
    }
}

impl Drop for Ring {
    fn drop(&mut self) {
        // Cancel everything and wait (bounded) for the kernel to finish with our memory: a receive or send completes
        // only after the kernel stopped writing into a provided buffer or reading a send buffer.
        let e = opcode::AsyncCancel2::new(types::CancelBuilder::any())
            .build()
            .user_data(tag(Op::Cancel, 0, 0));
        // SAFETY: a cancel points at no memory.
        unsafe { self.push(e) };
        let ts = types::Timespec::new().nsec(50_000_000);
        for _ in 0..40 {
            let args = types::SubmitArgs::new().timespec(&ts);
            let _ = self.uring.submitter().submit_with_args(1, &args);
            let mut done = Vec::new();
            self.reap(&mut done);
            if self.live == 0 {
                return;
            }
        }
        // The kernel still holds requests after two seconds: leak the memory rather than free it under them.
        std::mem::forget(std::mem::take(&mut self.orphans));
        let bufs = std::mem::replace(
            &mut self.bufs,
            Bufs {
                entries: std::ptr::null_mut(),
                mem: std::ptr::null_mut(),
                tail: 0,
            },
        );
        std::mem::forget(bufs);
    }
}
