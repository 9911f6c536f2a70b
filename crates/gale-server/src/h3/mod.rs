//! HTTP/3 in the engine: QUIC (quinn, on rustls with the listener's certificates) on a UDP socket at the TLS
//! listener's port, HTTP/3 and QPACK by the `h3` crate, all polled by the executor on Node's loop (exec.rs) with
//! the socket's readiness from a uv_poll (udp.rs). Each request stream is a request record of the engine, as an
//! HTTP/2 stream is (bridge.rs, `pulled/`), so routing, middleware, limits and the JS API are the engine's own.
//! WebTransport sessions (wt.rs, wt_api.rs, wt_session.rs, wt_io.rs) start as such a request: a JS route accepts the extended CONNECT.
//!
//! Why quinn + h3 and not quiche: quinn's QUIC runs on rustls, which the engine already builds with ring, and its
//! `Runtime` trait lets any executor drive it; quiche needs BoringSSL compiled from source. quinn-udp brings GSO
//! and GRO where the kernel has them.

mod bridge;
mod conn;
mod exec;
mod udp;
mod wt;
mod wt_api;
mod wt_io;
mod wt_session;

use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::net::{IpAddr, SocketAddr, UdpSocket};
use std::rc::{Rc, Weak};
use std::sync::Arc;
use std::task::Waker;
use std::time::{Duration, Instant};

use slab::Slab;
use socket2::{Domain, Protocol, Socket, Type};

use crate::uv::UvLoop;
use crate::{H3Options, Server};
use exec::Exec;
use udp::UvUdp;

/// A listening HTTP/3 endpoint: its executor, quinn's endpoint and the socket's poll.
pub(crate) struct Quic {
    exec: Rc<Exec>,
    endpoint: quinn::Endpoint,
    udp: Arc<UvUdp>,
    opts: H3Options,
    pub(crate) ctx: Rc<Ctx>,
}

/// quinn's server config for the listener's TLS config: the same certificates (a reload reaches both), ALPN `h3`.
pub(crate) fn server_config(
    tls: &Arc<rustls::ServerConfig>,
    opts: &H3Options,
) -> Result<quinn::ServerConfig, String> {
    let mut tls = (**tls).clone();
    tls.alpn_protocols = vec![b"h3".to_vec()];
    // No 0-RTT: replayable requests would need the app's consent.
    tls.max_early_data_size = 0;
    let crypto = quinn::crypto::rustls::QuicServerConfig::try_from(tls)
        .map_err(|e| format!("http3 needs TLS 1.3 with AES-128-GCM in the tls options: {e}"))?;
    let mut cfg = quinn::ServerConfig::with_crypto(Arc::new(crypto));
    let transport = Arc::get_mut(&mut cfg.transport).expect("a fresh transport config");
    transport
        .max_concurrent_bidi_streams(opts.max_concurrent_streams.into())
        .enable_segmentation_offload(opts.segmentation_offload)
        .max_idle_timeout(Some(
            quinn::IdleTimeout::try_from(Duration::from_millis(opts.idle_timeout_ms))
                .map_err(|e| e.to_string())?,
        ));
    Ok(cfg)
}

impl Quic {
    /// Starts accepting QUIC connections for `server` on `sock`, bound by [`bind`] to `addr` (the TLS listener's
    /// address and port), with `config` from [`server_config`] (both made before listening set anything up).
    pub fn start(
        server: &Rc<Server>,
        lp: UvLoop,
        sock: UdpSocket,
        addr: SocketAddr,
        config: quinn::ServerConfig,
        opts: &H3Options,
        cfg: &crate::Config,
    ) -> Result<Quic, String> {
        let exec = Exec::new(lp)?;
        let udp = UvUdp::new(sock, lp, &exec, opts.segmentation_offload)
            .map_err(|e| format!("http3: {e}"))?;
        let endpoint = quinn::Endpoint::new_with_abstract_socket(
            quinn::EndpointConfig::default(),
            Some(config),
            udp.clone(),
            exec.runtime(),
        )
        .map_err(|e| format!("http3: {e}"));
        let endpoint = match endpoint {
            Ok(e) => e,
            Err(e) => {
                udp.close();
                exec.close();
                return Err(e);
            }
        };
        let local = udp_local(&endpoint, addr);
        let ctx = Rc::new(Ctx {
            server: Rc::downgrade(server),
            exec: Rc::downgrade(&exec),
            local,
            max_head: cfg.limits.max_head_bytes as u64,
            headers_timeout: Duration::from_millis(cfg.headers_timeout_ms),
            closing: Cell::new(false),
            conns: RefCell::new(Slab::new()),
            per_address: RefCell::new(HashMap::new()),
            handshakes: Cell::new(0),
            bucket: Cell::new((f64::from(opts.max_handshakes_per_second), Instant::now())),
            admitted: Cell::new(0),
            max_connections: cfg.max_connections,
            opts: opts.clone(),
            wt: RefCell::new(wt::WtTable::default()),
        });
        let ep = endpoint.clone();
        let accepting = ctx.clone();
        exec.spawn(async move {
            while let Some(incoming) = ep.accept().await {
                let Some(exec) = accepting.exec.upgrade() else {
                    return;
                };
                if let Some(admitted) = accepting.admit(incoming) {
                    exec.spawn(conn::connection(admitted, accepting.clone()));
                }
            }
        });
        exec.run();
        Ok(Quic {
            exec,
            endpoint,
            udp,
            opts: opts.clone(),
            ctx,
        })
    }

    /// Graceful shutdown: no new connections; each connection gets a GOAWAY, and its requests in flight finish
    /// (the engine's close waits for them, then `close` ends the connections).
    pub fn shutdown(&self) {
        self.endpoint.set_server_config(None);
        self.ctx.closing.set(true);
        let wakers: Vec<Waker> = self
            .ctx
            .conns
            .borrow()
            .iter()
            .map(|(_, w)| w.clone())
            .collect();
        self.exec
            .run_after(|| wakers.into_iter().for_each(Waker::wake));
        self.ctx.wt_drain_all();
    }

    /// New handshakes use `tls` (certificate reload); connections keep the keys they agreed.
    pub fn reload(&self, tls: &Arc<rustls::ServerConfig>) -> Result<(), String> {
        self.endpoint
            .set_server_config(Some(server_config(tls, &self.opts)?));
        Ok(())
    }

    /// Closes every connection (H3_NO_ERROR) and stops. Call with no engine borrow held.
    pub fn close(&self) {
        self.endpoint.close(H3_NO_ERROR.into(), b"server closing");
        // Let quinn's drivers send the CONNECTION_CLOSE frames, then drop everything.
        self.exec.run();
        self.udp.close();
        self.exec.close();
    }
}

/// RFC 9114 §8.1.
const H3_NO_ERROR: u32 = 0x100;

/// The local address the UDP socket has (the TLS listener's).
fn udp_local(endpoint: &quinn::Endpoint, fallback: SocketAddr) -> SocketAddr {
    endpoint.local_addr().unwrap_or(fallback)
}

/// A UDP socket on `addr`; "::" takes IPv4 too, as the TCP listener does.
pub(crate) fn bind(addr: SocketAddr) -> std::io::Result<UdpSocket> {
    let bound = || -> std::io::Result<UdpSocket> {
        let socket = Socket::new(Domain::for_address(addr), Type::DGRAM, Some(Protocol::UDP))?;
        if addr.is_ipv6() {
            let _ = socket.set_only_v6(false);
        }
        socket.bind(&addr.into())?;
        Ok(socket.into())
    };
    // The kind stays, and the payload marks it as this bind's (listen tries again on port 0 when it was taken);
    // the message says which socket it was.
    bound().map_err(|e| {
        std::io::Error::new(
            e.kind(),
            UdpBindError(format!("http3: binding UDP {addr} failed: {e}")),
        )
    })
}

/// A failed bind of HTTP/3's UDP socket (see [`bind`]), told apart from the TCP listener's by `listen`.
#[derive(Debug)]
pub(crate) struct UdpBindError(String);

impl std::fmt::Display for UdpBindError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for UdpBindError {}

/// Whether `e` is [`bind`]'s, with the UDP port taken.
pub(crate) fn udp_port_taken(e: &std::io::Error) -> bool {
    e.kind() == std::io::ErrorKind::AddrInUse && e.get_ref().is_some_and(|r| r.is::<UdpBindError>())
}

/// What every connection's task shares.
pub(crate) struct Ctx {
    server: Weak<Server>,
    exec: Weak<Exec>,
    local: SocketAddr,
    /// How long a request stream may take to show whether it has a body (the server's `headersTimeout`).
    headers_timeout: Duration,
    /// The request head limit, as QPACK's field section limit (SETTINGS_MAX_FIELD_SECTION_SIZE).
    max_head: u64,
    /// The server is closing gracefully (`Quic::shutdown`).
    closing: Cell<bool>,
    /// Each open connection's task, to wake at shutdown.
    conns: RefCell<Slab<Waker>>,
    /// Open connections (handshakes included) per client address.
    per_address: RefCell<HashMap<IpAddr, u32>>,
    /// Handshakes in progress.
    handshakes: Cell<u32>,
    /// `maxHandshakesPerSecond`'s token bucket: the tokens left (a second's worth at most) and when it was filled.
    bucket: Cell<(f64, Instant)>,
    /// Connections let in and not yet ended (handshakes included).
    admitted: Cell<usize>,
    /// Connections the engine may hold in all (`maxConnections`).
    max_connections: usize,
    opts: H3Options,
    /// WebTransport's sessions and streams (wt.rs).
    wt: RefCell<wt::WtTable>,
}

/// A connection let in: counted against its address until dropped.
struct Admitted {
    incoming: quinn::Incoming,
    ip: IpAddr,
}

impl Ctx {
    /// Lets a connection attempt in, has it prove its address first (Retry) when many handshakes are in progress or
    /// past `maxHandshakesPerSecond`, or refuses it: past `maxConnections` in all, `maxConnectionsPerAddress` from
    /// its address, or the handshake rate once its address is proved.
    fn admit(&self, incoming: quinn::Incoming) -> Option<Admitted> {
        let ip = incoming.remote_address().ip();
        let open = self.admitted.get();
        let from_ip = self.per_address.borrow().get(&ip).copied().unwrap_or(0);
        if open >= self.max_connections || from_ip >= self.opts.max_connections_per_address {
            incoming.refuse();
            return None;
        }
        let validated = incoming.remote_address_validated();
        let busy = self.handshakes.get() >= self.opts.retry_above;
        // Past the handshake rate, a Retry first: it costs one stateless packet, and a flood from spoofed addresses
        // never comes back to spend the tokens clients that can prove their address need.
        if !validated && (busy || !self.has_handshake_token()) {
            // may_retry is false only for a client that already came back with a token that did not validate.
            if incoming.may_retry() {
                let _ = incoming.retry();
            } else {
                incoming.refuse();
            }
            return None;
        }
        if !self.take_handshake_token() {
            incoming.refuse();
            return None;
        }
        *self.per_address.borrow_mut().entry(ip).or_insert(0) += 1;
        self.admitted.set(open + 1);
        Some(Admitted { incoming, ip })
    }

    /// Refills the handshake bucket for the time passed; whether a token is there.
    fn has_handshake_token(&self) -> bool {
        let rate = f64::from(self.opts.max_handshakes_per_second);
        let (tokens, since) = self.bucket.get();
        let now = Instant::now();
        let tokens = (tokens + now.duration_since(since).as_secs_f64() * rate).min(rate);
        self.bucket.set((tokens, now));
        tokens >= 1.0
    }

    /// Spends a handshake token, if there is one.
    fn take_handshake_token(&self) -> bool {
        if !self.has_handshake_token() {
            return false;
        }
        let (tokens, at) = self.bucket.get();
        self.bucket.set((tokens - 1.0, at));
        true
    }

    fn release(&self, ip: IpAddr) {
        self.admitted.set(self.admitted.get() - 1);
        let mut map = self.per_address.borrow_mut();
        if let Some(n) = map.get_mut(&ip) {
            *n -= 1;
            if *n == 0 {
                map.remove(&ip);
            }
        }
    }
}
