//! WebSockets in the engine: per-route options, the state of an upgraded connection and socket ids.
//! The protocol itself (handshake, frames, deflate, topics) is gale-ws; this module only moves bytes.

mod api;
mod head;
mod read;
mod send;
mod upgrade;

use gale_ws::{Decoder, DeflateConfig, DeflateParams, Deflater, Role};
pub use head::KeptHead;
pub(crate) use head::{head_bytes, ClosedHead};
pub(crate) use upgrade::native_protocol;

/// How a WebSocket route compresses what it sends (permessage-deflate, RFC 7692).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Compression {
    /// No permessage-deflate: offers are declined.
    Off,
    /// Every message is compressed on its own (`server_no_context_takeover`), so a published message
    /// is compressed once for all subscribers. Costs no per-socket compressor memory.
    Shared,
    /// Each socket keeps its own compressor and sliding window: better ratios on chatty sockets, at
    /// ~300 KiB per socket and one compression per subscriber when publishing.
    Dedicated,
}

/// Options of one WebSocket route.
#[derive(Clone, Debug)]
pub struct WsOptions {
    /// Largest message accepted, after inflating (1009 above it). Default 1 MiB.
    pub max_payload: usize,
    /// Close a socket that sent nothing for this long (0: never). Default 120 s.
    pub idle_timeout_ms: u64,
    /// Ping a quiet socket at half the idle timeout, so live clients (which answer with a pong) stay open.
    pub send_pings: bool,
    pub compression: Compression,
    /// Deflate parameters: window bits, context takeover, threshold, level.
    pub deflate: DeflateConfig,
    /// Buffered output above which sends are dropped (or the socket closed). Default 1 MiB.
    pub max_backpressure: usize,
    /// Over `max_backpressure`, close the socket (1008) instead of dropping the message.
    pub close_on_backpressure_limit: bool,
}

impl Default for WsOptions {
    fn default() -> Self {
        WsOptions {
            max_payload: 1024 * 1024,
            idle_timeout_ms: 120_000,
            send_pings: true,
            compression: Compression::Off,
            deflate: DeflateConfig::default(),
            max_backpressure: 1024 * 1024,
            close_on_backpressure_limit: false,
        }
    }
}

/// What `Server::ws_send` did with a message.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SendResult {
    /// Written, or corked for the end of this loop turn, with output under the high-water mark.
    Sent = 0,
    /// Accepted, but output is above the high-water mark: wait for `Event::WsDrain`.
    Buffered = 1,
    /// Not sent: the socket is over `max_backpressure` (and it was closed if the route says so).
    Dropped = 2,
    /// Not sent: the socket is closing or gone.
    Closed = 3,
}

/// The engine's WebSocket state apart from the connections (each socket's own is its `WsConn`): the routes, the
/// pub/sub topic tree, closed sockets' kept heads, and the scratch publishing and compressing reuse.
#[derive(Default)]
pub(crate) struct WsState {
    pub routes: Vec<WsRoute>,
    /// Pub/sub: topic → socket ids.
    pub topics: gale_ws::Topics<u32>,
    /// Report topics becoming active and inactive (`Event::Topic`).
    pub watch_topics: bool,
    /// Serial part of the next socket id.
    pub serial: u32,
    /// Kept upgrade requests of sockets that closed before JS read `ws.req`, by socket id, until JS takes them when
    /// it hears of the close (ws/head.rs); open sockets keep theirs in their `WsConn`.
    pub heads: std::collections::HashMap<u32, ClosedHead>,
    /// Scratch for a message being compressed, its compressed form, publish's subscriber list and
    /// its shared compressed frames (kept to avoid allocating per message).
    pub plain: Vec<u8>,
    pub packed: Vec<u8>,
    pub subs: Vec<u32>,
    pub shared_frames: Vec<Option<Vec<u8>>>,
    /// Stamp of the current multi-topic publish (see `WsConn::publish_gen`).
    pub publish_gen: u32,
    /// Scratch: topic ids of a publish's `except` list.
    pub except: Vec<u32>,
}

/// Who a publish reaches: the subscribers of any of `topics` (each socket once), minus
/// `exclude`, minus subscribers of any of `except`; with `skip_busy` (volatile messages), minus
/// sockets that are not writable now: their kernel send buffer is full, or output written to them
/// earlier in this loop turn is still waiting to go (as socket.io's WebSocket transport is not
/// writable between a send and its write callback, so a second volatile packet in a row is dropped).
#[derive(Clone, Copy, Debug, Default)]
pub struct Audience<'a> {
    pub topics: &'a [&'a [u8]],
    pub except: &'a [&'a [u8]],
    pub exclude: Option<u32>,
    pub skip_busy: bool,
}

/// A registered WebSocket route.
pub(crate) struct WsRoute {
    pub opts: WsOptions,
    /// The JS route of a plain GET on the same path (Engine.IO serves long-polling GETs and
    /// WebSocket upgrades on one URL, as uWebSockets.js lets a path have both).
    pub http: Option<u32>,
    /// The compressor of `Compression::Shared` (always reset between messages).
    pub shared: Option<Deflater>,
    /// The JS route that runs this route's middleware and upgrade step.
    pub js: u32,
    /// Upgrades are accepted here without JS (`Server::ws_accept_natively`): JS vouched that its upgrade step would
    /// accept them alike, and learns of a socket on its first event (`Server::ws_adopt`).
    pub native: bool,
    /// JS has a close handler for this route: the close of a socket JS never adopted still reaches it.
    pub js_close: bool,
}

/// Index bits of a socket id (the connection's slab key); the rest is a serial number, so an id
/// kept by JS after its socket closed never reaches a later socket on the same slot.
const SID_INDEX_BITS: u32 = 20;
const SID_INDEX_MASK: u32 = (1 << SID_INDEX_BITS) - 1;

pub(crate) fn sid_cid(sid: u32) -> usize {
    (sid & SID_INDEX_MASK) as usize
}

/// State of an upgraded connection.
pub(crate) struct WsConn {
    pub sid: u32,
    /// Index into `Inner::ws.routes`.
    pub route: u32,
    /// Holds the negotiated permessage-deflate parameters too (`decoder.deflate()`), so they are not kept twice.
    pub decoder: Decoder,
    /// This socket's own compressor (`Compression::Dedicated`), created on first use.
    /// Boxed: an idle socket keeps only the pointer (the compressor is ~150 bytes inline).
    pub deflater: Option<Box<Deflater>>,
    /// Server time of the last frame received.
    pub last_recv: u64,
    /// How long after `last_recv` our ping went out (ms, at least 1); 0 when no ping is unanswered. Kept as an offset
    /// so it fits in the struct's padding (`ws_conn_stays_small`).
    pub ping_after: u32,
    /// A tick found it quiet past its idle timeout; the next tick closes it if nothing came in between.
    pub expiring: bool,
    /// Our close frame is out: nothing more may be sent.
    pub close_sent: bool,
    /// What JS hears when the connection ends; 1006 until a close frame is sent or received.
    pub close_code: u16,
    pub close_reason: Box<[u8]>,
    /// A send reported `Buffered`: announce the drain.
    pub want_drain: bool,
    /// Subscribed to at least one topic (so closing can skip the topic registry).
    pub subscribed: bool,
    /// The last multi-topic publish that reached this socket (`Inner::ws.publish_gen`), so a
    /// socket in several of its topics gets the message once.
    pub publish_gen: u32,
    /// The upgrade request's head while JS has not read `ws.req` (ws/head.rs); None when JS copied it at the 101.
    pub kept: Option<Box<[u8]>>,
    /// Accepted by the engine (`WsRoute::native`) and not yet asked for by JS (`Server::ws_adopt`).
    pub unadopted: bool,
}

impl WsConn {
    pub fn new(
        sid: u32,
        route: u32,
        max_payload: usize,
        deflate: Option<DeflateParams>,
        now: u64,
    ) -> WsConn {
        WsConn {
            sid,
            route,
            decoder: Decoder::new(Role::Server, max_payload, deflate),
            deflater: None,
            last_recv: now,
            ping_after: 0,
            expiring: false,
            close_sent: false,
            close_code: 1006,
            close_reason: Box::default(),
            want_drain: false,
            subscribed: false,
            publish_gen: 0,
            kept: None,
            unadopted: false,
        }
    }

    /// Records how the socket ended, the first time only.
    pub fn set_close(&mut self, code: u16, reason: &[u8]) {
        if self.close_code == 1006 {
            self.close_code = code;
            self.close_reason = reason.into();
        }
    }
}

/// Makes the id of a socket on connection `cid`.
pub(crate) fn make_sid(serial: u32, cid: usize) -> u32 {
    ((serial & ((1 << (32 - SID_INDEX_BITS)) - 1)) << SID_INDEX_BITS) | cid as u32
}

/// Most connections a WebSocket id can name.
pub(crate) const MAX_WS_CONNS: usize = SID_INDEX_MASK as usize;

#[cfg(test)]
mod size_tests {
    /// Every open WebSocket holds one boxed `WsConn`: it stays within 184 bytes on 64-bit targets (deflate state,
    /// decoder failures, the compressor and the kept head are boxed apart; see gale-ws's `decoder_stays_small`).
    #[test]
    #[cfg(target_pointer_width = "64")]
    fn ws_conn_stays_small() {
        let size = std::mem::size_of::<super::WsConn>();
        assert!(size <= 184, "WsConn is {size} bytes");
    }
}
