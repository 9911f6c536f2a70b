//! The engine's side of the io_uring backend: the watch callback reaps completions and hands them to the same read,
//! flush and accept logic the epoll backend uses (a receive feeds the parse loop; a send's completion is the
//! writable edge).

use std::os::fd::{AsRawFd, FromRawFd};

use super::{Done, Op, RingSock};
use crate::conn::{Conn, Io};
use crate::engine::Inner;
use crate::uv::{self, UvHandle, UvLoop};
use crate::Server;

unsafe extern "C" fn on_ring(h: UvHandle, _status: std::ffi::c_int, _events: std::ffi::c_int) {
    // SAFETY: the handle's data is a strong Rc<Server> pointer, released only in its close callback.
    let server = unsafe { &*(uv::handle_data(h) as *const Server) };
    server.on_ring();
}

/// A `uv_poll` on the ring's descriptor, readable while completions wait.
pub(crate) fn watch(
    ring_fd: i32,
    lp: UvLoop,
    data: *const std::ffi::c_void,
) -> Result<UvHandle, String> {
    uv::poll_new(lp, ring_fd, data, on_ring)
}

impl Server {
    /// The ring's watch callback: every completion waiting, in one batch inside one JS scope.
    pub(crate) fn on_ring(&self) {
        self.begin_batch();
        let (mut done, mut ready) = {
            let mut inner = self.inner.borrow_mut();
            inner.refresh_clock();
            match inner.ring.as_mut() {
                Some(ring) => {
                    let mut done = std::mem::take(&mut ring.reaped);
                    ring.reap(&mut done);
                    (done, std::mem::take(&mut ring.received))
                }
                None => Default::default(),
            }
        };
        // Every receive of this reap joins its connection's input first, so a request that came in several pieces
        // is parsed whole, as one large read gives it to the epoll backend.
        for d in &done {
            match d.op {
                Op::Recv => {
                    if self.inner.borrow_mut().ring_received(d) {
                        ready.push((d.cid, d.gen));
                    }
                }
                Op::Send => self.inner.borrow_mut().ring_sent(d),
                Op::Accept => self.inner.borrow_mut().ring_accepted(d),
                Op::Cancel => {}
            }
        }
        for &(cid, gen) in &ready {
            // Still the connection that received (an accept in this reap may have reused a closed one's key).
            let same = match self
                .inner
                .borrow_mut()
                .conns
                .get_mut(cid)
                .and_then(|c| c.io.ring(gen))
            {
                Some(r) => {
                    r.ready = false;
                    true
                }
                None => false,
            };
            if same {
                // Greedy: reading what was received costs no system call, and an EOF that came with the last bytes
                // raises no further completion, so it must be read now.
                self.read_and_process(cid, true);
            }
        }
        ready.clear();
        done.clear();
        if let Some(ring) = self.inner.borrow_mut().ring.as_mut() {
            ring.reaped = done;
            ring.received = ready;
        }
        self.end_batch();
    }
}

impl Inner {
    /// Arms the multishot accept if it is not (at listen, and to retry after EMFILE).
    pub(crate) fn ring_accept(&mut self) {
        let (Some(ring), Some(l)) = (self.ring.as_mut(), self.listener.as_ref()) else {
            return;
        };
        if !ring.accept_armed {
            ring.arm_accept(l.as_raw_fd());
        }
    }

    fn ring_accepted(&mut self, d: &Done) {
        let Some(ring) = self.ring.as_mut() else {
            return;
        };
        if !d.more() {
            ring.accept_armed = false;
        }
        if d.res == -libc::ECANCELED && !d.more() && self.listener.is_some() {
            // Cancelled for a new open-file limit (`follow_nofile`), not for closing: armed again under it.
            self.ring_accept();
            return;
        }
        if d.res < 0 {
            if self.listener.is_some() {
                // EMFILE, ENFILE, ENOBUFS, ENOMEM: retried when a connection closes and from the tick (engine.rs).
                self.accepting.paused = true;
            }
            return;
        }
        // SAFETY: the kernel made this descriptor for us; nothing else owns it.
        let std = unsafe { std::net::TcpStream::from_raw_fd(d.res) };
        if self.listener.is_none() {
            return; // accepted while the listener was closing: dropping closes it
        }
        let Ok(peer) = std.peer_addr() else {
            return; // already reset by the client
        };
        if self.conns.len() >= self.cfg.max_connections {
            if std.set_nonblocking(true).is_ok() {
                self.refuse(mio::net::TcpStream::from_std(std));
            }
            return;
        }
        let _ = std.set_nodelay(true);
        let Ok(tls) = self.tls_session() else {
            return;
        };
        let Some(ring) = self.ring.as_mut() else {
            return;
        };
        let gen = ring.next_gen();
        let sock = mio::net::TcpStream::from_std(std);
        let entry = self.conns.vacant_entry();
        let mut r = RingSock::new(sock, gen);
        ring.arm_recv(r.fd(), gen, entry.key());
        r.recv = true;
        let conn = entry.insert(Conn::new(Io::Ring(Box::new(r)), peer, self.now));
        conn.proxy_pending = self.cfg.proxy_protocol;
        conn.tls = tls;
        self.trim.opened(self.conns.len());
    }

    /// A receive completed: its bytes join the connection's input. True when the connection's parse loop should
    /// run and it was not already listed for it in this reap.
    fn ring_received(&mut self, d: &Done) -> bool {
        let Some(ring) = self.ring.as_mut() else {
            return false;
        };
        let bid = io_uring::cqueue::buffer_select(d.flags);
        let Some((r, read_paused)) = self
            .conns
            .get_mut(d.cid)
            .and_then(|c| Some((c.io.ring(d.gen)?, c.read_paused)))
        else {
            // A closed connection's last receive: only its buffer matters.
            if let Some(bid) = bid {
                ring.give_back(bid);
            }
            return false;
        };
        let mut run = false;
        if let Some(bid) = bid {
            if d.res > 0 {
                r.rx.extend_from_slice(ring.received(bid, d.res as usize));
                run = true;
            }
            ring.give_back(bid);
        } else if d.res == 0 {
            r.eof = true;
            run = true;
        } else if d.res < 0 && d.res != -libc::ENOBUFS && d.res != -libc::ECANCELED {
            r.failed = true;
            run = true;
        }
        if !d.more() {
            r.recv = false;
        }
        let newly = run && !r.ready;
        r.ready |= run;
        if read_paused && r.recv {
            // Reading is paused (backpressure, pipelining limit): stop the receive; `ring_resume` starts it again.
            ring.cancel(super::tag(Op::Recv, r.gen, d.cid));
        } else if !r.recv && !read_paused {
            rearm(ring, r, d.cid);
        }
        newly
    }

    /// A send completed: the next queued output goes, and the engine flushes as on a writable edge.
    fn ring_sent(&mut self, d: &Done) {
        let Some(ring) = self.ring.as_mut() else {
            return;
        };
        let Some(conn) = self.conns.get_mut(d.cid) else {
            ring.orphan_done(d.user_data);
            return;
        };
        let Some(r) = conn.io.ring(d.gen) else {
            ring.orphan_done(d.user_data);
            return;
        };
        if d.res <= 0 {
            // EPIPE, ECONNRESET: the client is gone (the kernel is done with the buffer).
            r.sending.clear();
            r.sent = 0;
            self.close_conn(d.cid);
            return;
        }
        r.sent += d.res as usize;
        conn.stalled_since = self.now;
        if r.sent < r.sending.len() {
            // A short send: the rest goes now.
            // SAFETY: as in `queue`: `sending` stays put until this send's completion.
            unsafe { ring.send(r.fd(), &r.sending[r.sent..], r.gen, d.cid) };
            return;
        }
        r.sent = 0;
        if r.sending.capacity() > 256 * 1024 {
            // A large response's buffer goes (it cycles into wbuf and tx): an idle connection keeps no such buffer,
            // as the epoll path's wbuf does not (output.rs, write_wbuf).
            r.sending = Vec::new();
        } else {
            r.sending.clear();
        }
        super::queue(ring, r, d.cid);
        if r.shut_pending && r.unsent() == 0 {
            r.shut_pending = false;
            let _ = r.sock.shutdown(std::net::Shutdown::Write);
        }
        self.flush(d.cid);
    }

    /// A paused connection reads again: its receive restarts (`read_and_process` calls this).
    pub(crate) fn ring_resume(&mut self, cid: usize) {
        let Some(ring) = self.ring.as_mut() else {
            return;
        };
        let Some(conn) = self.conns.get_mut(cid).filter(|c| !c.read_paused) else {
            return;
        };
        if let Some(r) = conn.io.any_ring() {
            if !r.recv {
                rearm(ring, r, cid);
            }
        }
    }
}

fn rearm(ring: &mut super::Ring, r: &mut RingSock, cid: usize) {
    if !r.eof && !r.failed {
        ring.arm_recv(r.fd(), r.gen, cid);
        r.recv = true;
    }
}
