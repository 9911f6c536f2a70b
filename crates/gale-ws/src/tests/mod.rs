//! Unit tests that need more room than their module: the decoder, negotiation, the deflate
//! codec, the handshake and topics.

mod decoder;
mod deflate;
mod handshake;
mod negotiate;
mod split;
mod topics;
