//! gale-ws: sans-IO WebSocket for Gale — the RFC 6455 opening handshake and frame codec,
//! RFC 7692 permessage-deflate, and a pub/sub topic registry. Bytes in, events out: never
//! touches a socket; no napi, no I/O, no unsafe.
//!
//! ```
//! use gale_ws::{parse_request, write_close, write_frame, write_response, Decoder, Event, Opcode, Role};
//!
//! // 1. The upgrade request (headers as parsed by gale-http).
//! let headers: [(&[u8], &[u8]); 4] = [
//!     (b"Upgrade", b"websocket"),
//!     (b"Connection", b"Upgrade"),
//!     (b"Sec-WebSocket-Key", b"dGhlIHNhbXBsZSBub25jZQ=="),
//!     (b"Sec-WebSocket-Version", b"13"),
//! ];
//! let req = parse_request(b"GET", 1, headers.iter().copied()).unwrap();
//! let mut out = Vec::new();
//! write_response(&mut out, req.key, None, None);
//!
//! // 2. Frames from the client.
//! let mut wire = Vec::new();
//! write_frame(&mut wire, Opcode::Text, b"hi", false, Some([7, 7, 7, 7]));
//! let mut dec = Decoder::new(Role::Server, 1 << 20, None);
//! out.clear();
//! match dec.decode(&wire) {
//!     Ok((_, Some(Event::Text))) => write_frame(&mut out, Opcode::Text, dec.payload(), false, None),
//!     Ok(_) => unreachable!(),
//!     Err(e) => write_close(&mut out, e.code, e.reason.as_bytes(), None), // then close
//! }
//! assert_eq!(out, b"\x81\x02hi");
//! ```

#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod close;
pub mod decoder;
pub mod deflate;
pub mod frame;
pub mod handshake;
pub mod topics;
mod utf8;

#[cfg(test)]
mod tests;

pub use close::{valid_close_code, CloseError};
pub use decoder::{Decoder, Event, Role};
pub use deflate::{negotiate, DeflateConfig, DeflateParams, Deflater, Inflater};
pub use frame::{apply_mask, write_close, write_frame, write_header, Opcode};
pub use handshake::{
    accept_key, is_upgrade, parse_request, write_response, HandshakeError, Request,
};
pub use topics::Topics;
