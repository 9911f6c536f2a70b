//! The connection preface (RFC 9113 §3.4): whether a connection's first bytes are the client's preface, and the
//! frames that answer one that is not, where HTTP/2 was negotiated (ALPN `h2`) and nothing else may be spoken.

use crate::guard::PREFACE;

/// What a connection's first bytes are, as far as they go.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Preface {
    /// The whole preface.
    Complete,
    /// A prefix of it: wait for more.
    Partial,
    /// Something else.
    Invalid,
}

/// Reads the start of a connection's input (empty input is a [`Preface::Partial`]).
pub fn preface(avail: &[u8]) -> Preface {
    if avail.starts_with(PREFACE) {
        Preface::Complete
    } else if PREFACE.starts_with(avail) {
        Preface::Partial
    } else {
        Preface::Invalid
    }
}

/// HTTP/2's PROTOCOL_ERROR code.
const PROTOCOL_ERROR: u32 = 0x1;

/// Appends the answer to an invalid preface: the server's own preface (an empty SETTINGS frame, which must come
/// first) and GOAWAY(PROTOCOL_ERROR) for stream 0 whose debug data says why; the connection then closes.
pub fn preface_error(out: &mut Vec<u8>) {
    const WHY: &[u8] = b"invalid connection preface";
    // SETTINGS: length 0, type 0x4, no flags, stream 0.
    out.extend_from_slice(&[0, 0, 0, 0x4, 0, 0, 0, 0, 0]);
    let len = 8 + WHY.len();
    out.extend_from_slice(&[
        (len >> 16) as u8,
        (len >> 8) as u8,
        len as u8,
        0x7,
        0,
        0,
        0,
        0,
        0,
    ]);
    out.extend_from_slice(&0u32.to_be_bytes()); // last stream id: none was processed
    out.extend_from_slice(&PROTOCOL_ERROR.to_be_bytes());
    out.extend_from_slice(WHY);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classifies_first_bytes() {
        assert_eq!(preface(PREFACE), Preface::Complete);
        let mut more = PREFACE.to_vec();
        more.extend_from_slice(&[0, 0, 0, 4, 0, 0, 0, 0, 0]);
        assert_eq!(preface(&more), Preface::Complete);
        assert_eq!(preface(&PREFACE[..5]), Preface::Partial);
        assert_eq!(preface(b""), Preface::Partial);
        assert_eq!(preface(b"GET / HTTP/1.1\r\n"), Preface::Invalid);
        assert_eq!(preface(b"PRI * HTTP/2.0\r\n\r\nXX"), Preface::Invalid);
        assert_eq!(
            preface(b"INVALID CONNECTION PREFACE\r\n\r\n"),
            Preface::Invalid
        );
    }

    #[test]
    fn error_is_settings_then_goaway_protocol_error() {
        let mut out = Vec::new();
        preface_error(&mut out);
        // SETTINGS, empty, on stream 0.
        assert_eq!(&out[..9], &[0, 0, 0, 4, 0, 0, 0, 0, 0]);
        let goaway = &out[9..];
        let len =
            (usize::from(goaway[0]) << 16) | (usize::from(goaway[1]) << 8) | usize::from(goaway[2]);
        assert_eq!(goaway[3], 0x7, "GOAWAY");
        assert_eq!(&goaway[5..9], &[0, 0, 0, 0], "on stream 0");
        assert_eq!(
            goaway.len(),
            9 + len,
            "the frame's length covers its payload"
        );
        assert_eq!(&goaway[9..13], &[0, 0, 0, 0], "last stream id 0");
        assert_eq!(&goaway[13..17], &[0, 0, 0, 1], "PROTOCOL_ERROR");
        assert_eq!(&goaway[17..], b"invalid connection preface");
    }
}
