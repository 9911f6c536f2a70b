//! permessage-deflate (RFC 7692): what the server accepts ([`DeflateConfig`]), what was agreed
//! ([`DeflateParams`], from [`negotiate`]), and the per-message codec ([`Deflater`], [`Inflater`]).

mod codec;
mod negotiate;

pub use codec::{Deflater, Inflater};
pub use negotiate::negotiate;

/// The smallest LZ77 window (as log2) the server will compress with. zlib cannot make raw
/// deflate streams with an 8-bit window (it silently uses 9), so offers that demand
/// `server_max_window_bits=8` are declined.
pub const MIN_SERVER_WINDOW_BITS: u8 = 9;

/// What the server is willing to agree to.
#[derive(Debug, Clone, Copy)]
pub struct DeflateConfig {
    /// Answer `server_no_context_takeover` even when not asked: the server resets its
    /// compressor after every message (required for a compressor shared by sockets).
    pub server_no_context_takeover: bool,
    /// Answer `client_no_context_takeover`: clients reset after every message, so the
    /// server's inflater keeps no window between messages.
    pub client_no_context_takeover: bool,
    /// The largest window (log2, 9..=15) the server compresses with.
    pub server_max_window_bits: u8,
    /// The largest window (log2, 8..=15) the server lets clients compress with. Below 15,
    /// offers without `client_max_window_bits` are declined (the client could not be limited).
    pub client_max_window_bits: u8,
    /// Messages shorter than this many bytes are sent uncompressed: for short messages the
    /// CPU cost outweighs the few bytes saved. Used by the sender, not by this crate.
    pub threshold: usize,
    /// zlib compression level, 0..=9.
    pub level: u32,
}

impl Default for DeflateConfig {
    /// Context takeover allowed both ways, 15-bit windows, `threshold` 1024 bytes (as the
    /// `ws` library), `level` 1: the fastest level, since a server compresses every message of
    /// every socket and the ratio gained by higher levels on short messages is small.
    fn default() -> Self {
        DeflateConfig {
            server_no_context_takeover: false,
            client_no_context_takeover: false,
            server_max_window_bits: 15,
            client_max_window_bits: 15,
            threshold: 1024,
            level: 1,
        }
    }
}

/// The agreed parameters of one connection.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DeflateParams {
    /// The server resets its compressor after every message.
    pub server_no_context_takeover: bool,
    /// The client resets its compressor after every message.
    pub client_no_context_takeover: bool,
    /// The window (log2) the server compresses with.
    pub server_max_window_bits: u8,
    /// The largest window (log2) the client compresses with.
    pub client_max_window_bits: u8,
    /// The offer named `server_max_window_bits`, so the response must name it too, even at 15
    /// (RFC 7692 §7.1.2.1; strict clients such as Python's `websockets` fail the connection
    /// otherwise).
    pub server_max_window_bits_offered: bool,
}

impl DeflateParams {
    /// Appends the `Sec-WebSocket-Extensions` response value, e.g.
    /// `permessage-deflate; server_no_context_takeover; client_max_window_bits=10`.
    /// Window bits are written below the default 15 (RFC 7692 §7.1.2 lets the server name
    /// `server_max_window_bits` even when not offered; [`negotiate`] only lowers
    /// `client_max_window_bits` when the client offered it), and `server_max_window_bits`
    /// always when the offer had it (§7.1.2.1).
    ///
    /// ```
    /// use gale_ws::{negotiate, DeflateConfig};
    /// let offer: &[u8] = b"permessage-deflate; client_max_window_bits";
    /// let cfg = DeflateConfig { client_max_window_bits: 12, ..DeflateConfig::default() };
    /// let params = negotiate(&[offer], &cfg).unwrap();
    /// let mut out = Vec::new();
    /// params.response_header(&mut out);
    /// assert_eq!(out, b"permessage-deflate; client_max_window_bits=12");
    /// ```
    pub fn response_header(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(b"permessage-deflate");
        if self.server_no_context_takeover {
            out.extend_from_slice(b"; server_no_context_takeover");
        }
        if self.client_no_context_takeover {
            out.extend_from_slice(b"; client_no_context_takeover");
        }
        for (name, bits) in [
            (
                &b"; server_max_window_bits="[..],
                self.server_max_window_bits,
            ),
            (b"; client_max_window_bits=", self.client_max_window_bits),
        ] {
            let server = name.starts_with(b"; server");
            if bits < 15 || (server && self.server_max_window_bits_offered) {
                out.extend_from_slice(name);
                if bits >= 10 {
                    out.push(b'1');
                }
                out.push(b'0' + bits % 10);
            }
        }
    }
}
