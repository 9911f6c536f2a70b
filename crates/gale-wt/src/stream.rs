//! What ties a QUIC stream or datagram to its WebTransport session: the header a stream opens with (a
//! unidirectional stream's type 0x54, a bidirectional stream's signal 0x41, each followed by the session ID, the
//! CONNECT stream's ID) and a datagram's quarter stream ID (RFC 9297 §2.1); and the mapping between a session's
//! 32-bit application error codes and the HTTP/3 codes its streams are reset with (draft-ietf-webtrans-http3 §4.4).

use crate::{varint, Error};

/// The unidirectional stream type of a WebTransport stream.
pub const UNI_STREAM_TYPE: u64 = 0x54;
/// The signal value that opens a bidirectional WebTransport stream (in place of an HTTP/3 frame type).
pub const BIDI_SIGNAL: u64 = 0x41;

/// What a stream's first bytes say it is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Opened {
    /// A WebTransport stream of `session`; its data starts after `len` bytes.
    Session { session: u64, len: usize },
    /// Not WebTransport: HTTP/3's own (the type or frame type, not consumed).
    Other(u64),
}

/// A session is named by its CONNECT stream: a client-initiated bidirectional stream (ID ≡ 0 mod 4).
fn session(id: u64) -> Result<u64, Error> {
    if id % 4 == 0 {
        Ok(id)
    } else {
        Err(Error::BadSession(id))
    }
}

fn opened(buf: &[u8], marker: u64) -> Result<Option<Opened>, Error> {
    let Some((ty, a)) = varint::decode(buf) else {
        return Ok(None);
    };
    if ty != marker {
        return Ok(Some(Opened::Other(ty)));
    }
    let Some((id, b)) = varint::decode(&buf[a..]) else {
        return Ok(None);
    };
    Ok(Some(Opened::Session {
        session: session(id)?,
        len: a + b,
    }))
}

/// Reads a peer's unidirectional stream's header; None while `buf` holds only part of it.
pub fn uni_header(buf: &[u8]) -> Result<Option<Opened>, Error> {
    opened(buf, UNI_STREAM_TYPE)
}

/// Reads a peer's bidirectional stream's header; None while `buf` holds only part of it.
pub fn bidi_header(buf: &[u8]) -> Result<Option<Opened>, Error> {
    opened(buf, BIDI_SIGNAL)
}

/// Appends the header of a unidirectional (`bidi` false) or bidirectional stream the server opens for `session`.
pub fn encode_header(bidi: bool, session: u64, out: &mut Vec<u8>) {
    varint::encode(if bidi { BIDI_SIGNAL } else { UNI_STREAM_TYPE }, out);
    varint::encode(session, out);
}

/// Splits an HTTP datagram into its session and payload. A datagram without a whole quarter stream ID, or one naming
/// no possible session, is malformed (H3_DATAGRAM_ERROR, RFC 9297 §2.1).
pub fn datagram(buf: &[u8]) -> Result<(u64, &[u8]), Error> {
    let (q, n) = varint::decode(buf).ok_or(Error::BadDatagram)?;
    // A quarter stream ID over 2^60 - 1 names no stream (RFC 9297 §2.1).
    if q >= 1 << 60 {
        return Err(Error::BadDatagram);
    }
    Ok((q * 4, &buf[n..]))
}

/// Appends the datagram prefix for `session` (its quarter stream ID); the payload follows it.
pub fn encode_datagram_prefix(session: u64, out: &mut Vec<u8>) {
    varint::encode(session / 4, out);
}

/// The first HTTP/3 code of the range WebTransport's application codes map onto.
const FIRST: u64 = 0x52e4_a40f_a8db;
/// The last (application code 0xffff_ffff).
const LAST: u64 = 0x52e5_ac98_3162;

/// The HTTP/3 code a stream is reset or stopped with for WebTransport application code `n`: the range skips the
/// reserved codes 0x1f·N + 0x21 (RFC 9114 §8.1), one every 0x1e.
pub fn to_http3(n: u32) -> u64 {
    let n = u64::from(n);
    FIRST + n + n / 0x1e
}

/// The WebTransport application code an HTTP/3 reset code carries; None for a code outside the range or a reserved
/// one (the stream was reset by HTTP/3 itself, or for no reason the application gave).
pub fn from_http3(h: u64) -> Option<u32> {
    if !(FIRST..=LAST).contains(&h) || (h - 0x21) % 0x1f == 0 {
        return None;
    }
    let shifted = h - FIRST;
    u32::try_from(shifted - shifted / 0x1f).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn error_codes_map_as_chromium_does() {
        // The values of quiche's web_transport_http3_test.cc.
        assert_eq!(to_http3(0x00), 0x52e4_a40f_a8db);
        assert_eq!(to_http3(0xff), 0x52e4_a40f_a9e2);
        assert_eq!(to_http3(0xffff_ffff), 0x52e5_ac98_3162);
        assert_eq!(to_http3(0x1c), 0x52e4_a40f_a8f7);
        assert_eq!(to_http3(0x1d), 0x52e4_a40f_a8f8);
        assert_eq!(to_http3(0x1e), 0x52e4_a40f_a8fa);
        assert_eq!(from_http3(0x52e4_a40f_a8f9), None, "reserved");
        assert_eq!(from_http3(FIRST - 1), None);
        assert_eq!(from_http3(LAST + 1), None);
        for n in (0..2000).chain([0x7fff_ffff, 0xffff_fffe, 0xffff_ffff]) {
            let h = to_http3(n);
            assert_ne!((h - 0x21) % 0x1f, 0, "{n} maps onto a reserved code");
            assert_eq!(from_http3(h), Some(n));
        }
    }

    #[test]
    fn stream_headers_name_their_session_or_step_aside() {
        let mut b = Vec::new();
        encode_header(false, 4, &mut b);
        b.extend_from_slice(b"data");
        assert_eq!(
            uni_header(&b),
            Ok(Some(Opened::Session { session: 4, len: 3 }))
        );
        assert_eq!(uni_header(&b[..1]), Ok(None));
        let mut b = Vec::new();
        encode_header(true, 1 << 20, &mut b);
        assert_eq!(
            bidi_header(&b),
            Ok(Some(Opened::Session {
                session: 1 << 20,
                len: 6
            }))
        );
        // HTTP/3's control stream (type 0x00) and a HEADERS frame (0x01) are not WebTransport's.
        assert_eq!(uni_header(&[0x00]), Ok(Some(Opened::Other(0))));
        assert_eq!(bidi_header(&[0x01, 0x10]), Ok(Some(Opened::Other(1))));
        // A session ID that is not a client-initiated bidirectional stream's.
        assert_eq!(uni_header(&[0x40, 0x54, 0x03]), Err(Error::BadSession(3)));
    }

    #[test]
    fn datagrams_carry_their_session() {
        let mut b = Vec::new();
        encode_datagram_prefix(8, &mut b);
        b.extend_from_slice(b"hi");
        assert_eq!(datagram(&b), Ok((8, &b"hi"[..])));
        assert_eq!(datagram(&[]), Err(Error::BadDatagram));
        assert_eq!(datagram(&[0x80, 0x01]), Err(Error::BadDatagram));
        let mut b = Vec::new();
        varint::encode(1 << 60, &mut b);
        assert_eq!(datagram(&b), Err(Error::BadDatagram));
    }
}
