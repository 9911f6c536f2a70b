//! Listening: the socket bound and handed to the chosen I/O backend (the readiness poller, or io_uring on Linux),
//! the fallback when io_uring cannot be used, and what stops accepting at shutdown.

use std::io;
use std::net::{SocketAddr, ToSocketAddrs};
use std::rc::Rc;

use mio::Interest;
use socket2::{Domain, Protocol, Socket, Type};

use crate::engine::{Inner, LISTENER};
use crate::lifecycle::to_io;
use crate::uv::{UvHandle, UvLoop};
use crate::{IoBackend, Server};

/// How many times `listen` on port 0 tries when the UDP port of the number the system picked is taken (HTTP/3).
const PORT_ZERO_TRIES: u32 = 5;

/// Whether `e` says HTTP/3's UDP port was taken (only unix has HTTP/3).
#[cfg(unix)]
fn udp_taken(e: &io::Error) -> bool {
    crate::h3::udp_port_taken(e)
}

#[cfg(not(unix))]
fn udp_taken(_: &io::Error) -> bool {
    false
}

impl Server {
    /// Binds and starts accepting on `host:port` (port 0 picks a free port) with the default backend. Returns the
    /// bound address.
    pub fn listen(self: &Rc<Self>, host: &str, port: u16) -> io::Result<SocketAddr> {
        self.listen_io(host, port, IoBackend::Auto).map(|(a, _)| a)
    }

    /// The backend this server listens with: "uring" or "epoll" (the readiness poller on every platform).
    pub fn io_backend(&self) -> &'static str {
        #[cfg(target_os = "linux")]
        if self.inner.borrow().ring.is_some() {
            return "uring";
        }
        "epoll"
    }

    /// [`Server::listen`] with a backend: also returns why io_uring, when asked for, could not be used (the server
    /// then listens with the readiness poller).
    pub fn listen_io(
        self: &Rc<Self>,
        host: &str,
        port: u16,
        io: IoBackend,
    ) -> io::Result<(SocketAddr, Option<String>)> {
        let addr = (host, port).to_socket_addrs()?.next().ok_or_else(|| {
            io::Error::new(io::ErrorKind::InvalidInput, "host resolved to nothing")
        })?;
        // Port 0 with HTTP/3: the system picks a free TCP port, and the UDP port of the same number may be another
        // process's. listen_at then lets go of the TCP socket and the system is asked again, a few times.
        let mut tries = 1;
        loop {
            match self.listen_at(addr, io) {
                Err(e) if port == 0 && udp_taken(&e) => {
                    if tries == PORT_ZERO_TRIES {
                        let why =
                            format!("{e}; tried {tries} times, each time the UDP port was taken");
                        return Err(io::Error::new(e.kind(), why));
                    }
                    tries += 1;
                }
                done => return done,
            }
        }
    }

    /// One try of [`Server::listen_io`] at `addr`.
    fn listen_at(
        self: &Rc<Self>,
        addr: SocketAddr,
        io: IoBackend,
    ) -> io::Result<(SocketAddr, Option<String>)> {
        let mut inner = self.inner.borrow_mut();
        if inner.listener.is_some() || inner.closing {
            return Err(io::Error::other("server is already listening or closed"));
        }
        // HTTP/3's QUIC settings, made (and refused) before anything is bound or set up.
        #[cfg(unix)]
        let quic = match (&inner.h3, &inner.tls) {
            (None, _) => None,
            (Some(_), None) => {
                return Err(io::Error::new(
                    io::ErrorKind::InvalidInput,
                    "http3 needs tls: HTTP/3 runs over QUIC, which is always encrypted (give listen a tls option)",
                ));
            }
            (Some(opts), Some(tls)) => Some(crate::h3::server_config(tls, opts).map_err(to_io)?),
        };
        let socket = Socket::new(Domain::for_address(addr), Type::STREAM, Some(Protocol::TCP))?;
        if crate::sys::REUSE_ADDRESS {
            socket.set_reuse_address(true)?;
        }
        if inner.cfg.reuse_port {
            // Several processes (workers) accept on one port; the kernel spreads connections.
            crate::sys::set_reuse_port(&socket)?;
        }
        if addr.is_ipv6() {
            // "::" accepts IPv4 too, like Node's default.
            let _ = socket.set_only_v6(false);
        }
        let (ring, fallback) = open_ring(io);
        // The ring's accept waits in the kernel; the readiness poller's listener must not block.
        socket.set_nonblocking(ring.is_none())?;
        socket.bind(&addr.into())?;
        socket.listen(inner.cfg.backlog)?;
        let std_listener: std::net::TcpListener = socket.into();
        let bound = std_listener.local_addr()?;
        // HTTP/3's UDP socket on the same port, bound before anything is set up: when that port is taken (port 0
        // picks a free TCP port only), there is nothing to undo but the TCP socket, closed as this returns.
        #[cfg(unix)]
        let udp = match quic {
            Some(config) => Some((crate::h3::bind(bound)?, config)),
            None => None,
        };
        let mut listener = mio::net::TcpListener::from_std(std_listener);
        if ring.is_none() {
            inner
                .poll
                .registry()
                .register(&mut listener, LISTENER, Interest::READABLE)?;
        }
        inner.listener = Some(listener);
        #[cfg(target_os = "linux")]
        if let Some(ring) = ring {
            inner.ring = Some(ring);
            inner.accept();
            inner.ring_submit();
        }
        drop(inner);
        if self.handles.get().is_none_or(|h| h.poll.is_none()) {
            let data = Rc::into_raw(self.clone()) as *const std::ffi::c_void;
            let watched = self.inner.borrow_mut().watch(self.uv_loop, data);
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
                // The tick's period follows the WebSocket routes, which may have come after in-process requests.
                self.start_tick(h.tick);
                self.handles.set(Some(h));
            }
        }
        #[cfg(unix)]
        #[cfg(unix)]
        if let Some((udp, config)) = udp {
            self.start_http3(bound, udp, config)?;
        }
        Ok((bound, fallback))
    }

    /// With `set_http3`: the HTTP/3 endpoint on `udp`, bound at the TLS listener's `bound` address, with `config`.
    #[cfg(unix)]
    fn start_http3(
        self: &Rc<Self>,
        bound: SocketAddr,
        udp: std::net::UdpSocket,
        config: quinn::ServerConfig,
    ) -> io::Result<()> {
        let inner = self.inner.borrow();
        let Some(opts) = inner.h3.clone() else {
            return Ok(()); // listen_at binds `udp` only with HTTP/3 set
        };
        let cfg = inner.cfg.clone();
        drop(inner);
        match crate::h3::Quic::start(self, self.uv_loop, udp, bound, config, &opts, &cfg) {
            Ok(q) => {
                *self.quic.borrow_mut() = Some(Rc::new(q));
                // Alt-Svc on every HTTP/1.1 and HTTP/2 response: browsers learn HTTP/3 is here (RFC 9114 §3.1.1),
                // for a day unless a later response says otherwise.
                let value = format!("h3=\":{}\"; ma=86400", bound.port());
                let mut inner = self.inner.borrow_mut();
                inner
                    .date
                    .set_fixed_lines(format!("Alt-Svc: {value}\r\n").as_bytes());
                inner.alt_svc = http::HeaderValue::from_str(&value).ok();
                Ok(())
            }
            Err(e) => {
                self.abandon_listen();
                Err(to_io(e))
            }
        }
    }

    /// A listen that failed after binding: the TCP listener stops, so the port is free again.
    #[cfg(unix)]
    fn abandon_listen(&self) {
        self.inner.borrow_mut().stop_listening();
    }
}

/// The ring `io` asks for, or why there is none (`None` with no reason: the readiness poller was asked for).
#[cfg(target_os = "linux")]
fn open_ring(io: IoBackend) -> (Option<crate::uring::Ring>, Option<String>) {
    match io {
        IoBackend::Uring => match crate::uring::open() {
            Ok(r) => (Some(r), None),
            Err(why) => (None, Some(why)),
        },
        IoBackend::Auto | IoBackend::Epoll => (None, None),
    }
}

/// Elsewhere there is no io_uring (`Option<()>`: never a ring).
#[cfg(not(target_os = "linux"))]
fn open_ring(io: IoBackend) -> (Option<()>, Option<String>) {
    match io {
        IoBackend::Uring => (None, Some("io_uring is Linux's".into())),
        IoBackend::Auto | IoBackend::Epoll => (None, None),
    }
}

impl Inner {
    /// A watch on what tells this server's backend that work is ready: the ring's descriptor or the poller's.
    fn watch(&mut self, lp: UvLoop, data: *const std::ffi::c_void) -> Result<UvHandle, String> {
        #[cfg(target_os = "linux")]
        if let Some(ring) = self.ring.as_ref() {
            return crate::uring::watch(ring.fd(), lp, data);
        }
        self.poll.watch(lp, data)
    }

    /// Stops accepting: the listener leaves the poller, or the ring's accept is cancelled (now, so the port is
    /// free when `close` returns).
    pub(crate) fn stop_listening(&mut self) {
        let Some(mut l) = self.listener.take() else {
            return;
        };
        #[cfg(target_os = "linux")]
        if let Some(ring) = self.ring.as_mut() {
            if ring.accept_armed {
                ring.cancel(crate::uring::tag(crate::uring::Op::Accept, 0, 0));
            }
            ring.submit();
            return;
        }
        let _ = self.poll.registry().deregister(&mut l);
    }

    /// Hands the ring what this turn queued (nothing without a ring).
    pub(crate) fn ring_submit(&mut self) {
        #[cfg(target_os = "linux")]
        if let Some(ring) = self.ring.as_mut() {
            ring.submit();
        }
    }
}
