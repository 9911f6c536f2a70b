//! Gale's sans-IO WebTransport over HTTP/3 (draft-ietf-webtrans-http3, as Chromium, aioquic and h3 speak it): the
//! bytes a session's CONNECT stream, its streams and its datagrams carry, decoded and encoded without touching a
//! socket. The engine (gale-server's `h3/`) drives them over QUIC; nothing here knows QUIC.
//!
//! - [`varint`]: QUIC variable-length integers (RFC 9000 §16), the unit of everything below.
//! - [`capsule`]: the capsules on a session's CONNECT stream (RFC 9297): CLOSE_WEBTRANSPORT_SESSION with its code and
//!   reason, DRAIN_WEBTRANSPORT_SESSION, DATAGRAM; unknown ones skipped as the RFC asks.
//! - [`stream`]: the header that ties a QUIC stream to its session (unidirectional type 0x54, bidirectional signal
//!   0x41) and a datagram's quarter stream ID (RFC 9297 §2.1); application error codes to HTTP/3's and back.
//! - [`session`]: one connection's sessions: streams and datagrams routed to their session, streams held until it is
//!   accepted, the session and stream limits with the draft's error codes, draining, and what a session's end resets.

#![forbid(unsafe_code)]

pub mod capsule;
pub mod session;
pub mod stream;
pub mod varint;

/// HTTP/3 settings a WebTransport server sends (and the client's it reads).
pub mod settings {
    /// SETTINGS_ENABLE_CONNECT_PROTOCOL (RFC 9220 §3, from RFC 8441): extended CONNECT.
    pub const ENABLE_CONNECT_PROTOCOL: u64 = 0x08;
    /// SETTINGS_H3_DATAGRAM (RFC 9297 §2.1.1): HTTP datagrams.
    pub const H3_DATAGRAM: u64 = 0x33;
    /// SETTINGS_ENABLE_WEBTRANSPORT of draft-02, what Chromium negotiates by default.
    pub const ENABLE_WEBTRANSPORT_DRAFT02: u64 = 0x2b60_3742;
    /// SETTINGS_WEBTRANSPORT_MAX_SESSIONS of draft-07 and later.
    pub const WEBTRANSPORT_MAX_SESSIONS: u64 = 0xc671_706a;
}

/// A malformed or refused input: what the peer sent, named, for the error the engine answers with.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Error {
    /// A capsule longer than the caller's limit: the session is closed rather than buffered without bound.
    TooLarge { ty: u64, len: u64, max: usize },
    /// A CLOSE_WEBTRANSPORT_SESSION whose value is not a 4-byte code and a reason of at most 1024 bytes of UTF-8.
    BadClose,
    /// A DRAIN_WEBTRANSPORT_SESSION with a value (it has none).
    BadDrain,
    /// A stream header whose session ID is not a client-initiated bidirectional stream's.
    BadSession(u64),
    /// A datagram without a whole quarter stream ID, or one over 2^60 − 1.
    BadDatagram,
}

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Error::TooLarge { ty, len, max } => {
                write!(f, "capsule 0x{ty:x} of {len} bytes is over the limit of {max}")
            }
            Error::BadClose => f.write_str(
                "CLOSE_WEBTRANSPORT_SESSION must hold a 4-byte code and a UTF-8 reason of at most 1024 bytes",
            ),
            Error::BadDrain => f.write_str("DRAIN_WEBTRANSPORT_SESSION must be empty"),
            Error::BadDatagram => f.write_str("a datagram must open with a quarter stream ID below 2^60"),
            Error::BadSession(id) => write!(
                f,
                "session ID {id} is not a client-initiated bidirectional stream's"
            ),
        }
    }
}

impl std::error::Error for Error {}
