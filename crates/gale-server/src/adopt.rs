//! Connections accepted by someone else and handed to the engine by descriptor (Unix): a node:cluster worker gets
//! each connection from the primary, which owns the listening socket (as node:http's workers do), and passes its
//! descriptor here. The engine then serves it as one of its own: TLS, HTTP/2, WebSockets, limits and timeouts.

use std::io;
use std::os::fd::{FromRawFd, RawFd};
use std::rc::Rc;

use mio::Token;

use crate::conn::{Conn, Io};
use crate::lifecycle::to_io;
use crate::Server;

impl Server {
    /// Starts serving connections handed over with [`Server::adopt`], without a listening socket of its own.
    /// Idempotent; fails once the server is closing.
    pub fn serve_adopted(self: &Rc<Self>) -> io::Result<()> {
        {
            let mut inner = self.inner.borrow_mut();
            if inner.closing {
                return Err(io::Error::other("server is closed"));
            }
            inner.accepting.adopting = true;
        }
        if self.handles.get().is_none_or(|h| h.poll.is_none()) {
            let data = Rc::into_raw(self.clone()) as *const std::ffi::c_void;
            let uv_loop = self.uv_loop;
            let watched = self.inner.borrow_mut().poll.watch(uv_loop, data);
            let poll = match watched {
                Ok(h) => h,
                Err(e) => {
                    // SAFETY: no handle kept `data` (watch closes what it made), so this is its only owner.
                    drop(unsafe { Rc::from_raw(data as *const Server) });
                    return Err(to_io(e));
                }
            };
            self.ensure_timers()?;
            if let Some(mut h) = self.handles.get() {
                h.poll = Some(poll);
                self.start_tick(h.tick);
                self.handles.set(Some(h));
            }
        }
        Ok(())
    }

    /// Serves the connected TCP socket `fd` (a copy of it: the caller closes its own). Refused with a 503 past
    /// `maxConnections`, as an accepted one is; errors when the server is not serving adopted connections or
    /// `fd` is not a connected socket.
    pub fn adopt(&self, fd: RawFd) -> io::Result<()> {
        let mut guard = self.inner.borrow_mut();
        // One &mut Inner, so the connection slab and the poller can be borrowed apart.
        let inner = &mut *guard;
        if !inner.accepting.adopting || inner.closing {
            return Err(io::Error::other("the server is not taking connections"));
        }
        // SAFETY: dup() only reads `fd`; a new descriptor (or -1) comes back and is owned from here.
        let own = unsafe { libc::dup(fd) };
        if own < 0 {
            return Err(io::Error::last_os_error());
        }
        // SAFETY: `own` is a fresh descriptor nobody else holds.
        let std = unsafe { std::net::TcpStream::from_raw_fd(own) };
        let peer = std.peer_addr()?;
        std.set_nonblocking(true)?;
        let mut sock = mio::net::TcpStream::from_std(std);
        if inner.conns.len() >= inner.cfg.max_connections {
            inner.refuse(sock);
            return Ok(());
        }
        let _ = sock.set_nodelay(true);
        let tls = inner
            .tls_session()
            .map_err(|()| io::Error::other("no TLS session could be made"))?;
        let now = inner.now;
        let entry = inner.conns.vacant_entry();
        let key = entry.key();
        // Edge-triggered: a socket with bytes already waiting reports readable at once.
        inner
            .poll
            .registry()
            .register(&mut sock, Token(key), crate::poller::CONN_INTEREST)?;
        let proxy = inner.cfg.proxy_protocol;
        let conn = entry.insert(Conn::new(Io::Tcp(sock), peer, now));
        conn.proxy_pending = proxy;
        conn.tls = tls;
        let open = inner.conns.len();
        inner.trim.opened(open);
        Ok(())
    }
}
