//! The capsules on a WebTransport session's CONNECT stream (RFC 9297 §3.2; draft-ietf-webtrans-http3 §5): a type
//! and a length (varints), then the value. The session's close (with a code and a reason), its drain, and HTTP
//! datagrams sent on the stream; a capsule of another type is skipped, however long, as the RFC asks.

use crate::{varint, Error};

/// CLOSE_WEBTRANSPORT_SESSION: a 32-bit application error code, then a UTF-8 reason.
pub const CLOSE: u64 = 0x2843;
/// DRAIN_WEBTRANSPORT_SESSION: the peer will close the session soon (no value).
pub const DRAIN: u64 = 0x78ae;
/// DATAGRAM (RFC 9297 §3.5): an HTTP datagram carried on the stream instead of in a QUIC DATAGRAM frame.
pub const DATAGRAM: u64 = 0x00;
/// The longest close reason, in bytes.
pub const MAX_REASON: usize = 1024;

/// A capsule this crate knows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Capsule {
    Close { code: u32, reason: String },
    Drain,
    Datagram(Vec<u8>),
}

/// Reads capsules from a CONNECT stream's bytes as they arrive, in any cuts.
#[derive(Debug)]
pub struct Decoder {
    max: usize,
    /// Bytes of an unknown capsule still to skip.
    skip: u64,
}

impl Decoder {
    /// A decoder that refuses a known capsule with a value over `max` bytes (an unknown one is skipped whatever its
    /// length, so it is never buffered).
    pub fn new(max: usize) -> Decoder {
        Decoder { max, skip: 0 }
    }

    /// Reads from the start of `buf`: how many bytes it used, and the capsule they completed, if any. Call again
    /// with the rest; 0 bytes used and no capsule means `buf` holds only part of the next one (keep it, add more).
    pub fn decode(&mut self, buf: &[u8]) -> Result<(usize, Option<Capsule>), Error> {
        if self.skip > 0 {
            return Ok((self.skipping(buf), None));
        }
        let Some((ty, a)) = varint::decode(buf) else {
            return Ok((0, None));
        };
        let Some((len, b)) = varint::decode(&buf[a..]) else {
            return Ok((0, None));
        };
        let head = a + b;
        if ![CLOSE, DRAIN, DATAGRAM].contains(&ty) {
            self.skip = len;
            return Ok((head + self.skipping(&buf[head..]), None));
        }
        if len > self.max as u64 {
            return Err(Error::TooLarge {
                ty,
                len,
                max: self.max,
            });
        }
        let Some(value) = buf.get(head..head + len as usize) else {
            return Ok((0, None));
        };
        let capsule = match ty {
            CLOSE => {
                let (code, reason) = value.split_at_checked(4).ok_or(Error::BadClose)?;
                if reason.len() > MAX_REASON {
                    return Err(Error::BadClose);
                }
                Capsule::Close {
                    code: u32::from_be_bytes(code.try_into().map_err(|_| Error::BadClose)?),
                    reason: String::from_utf8(reason.to_vec()).map_err(|_| Error::BadClose)?,
                }
            }
            DRAIN if value.is_empty() => Capsule::Drain,
            DRAIN => return Err(Error::BadDrain),
            _ => Capsule::Datagram(value.to_vec()),
        };
        Ok((head + value.len(), Some(capsule)))
    }
}

impl Decoder {
    /// Skips what `buf` holds of an unknown capsule's value (and nothing past it): the bytes used.
    fn skipping(&mut self, buf: &[u8]) -> usize {
        let n = usize::try_from(self.skip).map_or(buf.len(), |s| s.min(buf.len()));
        self.skip -= n as u64;
        n
    }
}

fn put(ty: u64, value: &[u8], out: &mut Vec<u8>) {
    varint::encode(ty, out);
    varint::encode(value.len() as u64, out);
    out.extend_from_slice(value);
}

/// Appends CLOSE_WEBTRANSPORT_SESSION; a reason over [`MAX_REASON`] bytes is cut at a character boundary.
pub fn encode_close(code: u32, reason: &str, out: &mut Vec<u8>) {
    let mut end = reason.len().min(MAX_REASON);
    while !reason.is_char_boundary(end) {
        end -= 1;
    }
    let mut value = code.to_be_bytes().to_vec();
    value.extend_from_slice(&reason.as_bytes()[..end]);
    put(CLOSE, &value, out);
}

/// Appends DRAIN_WEBTRANSPORT_SESSION.
pub fn encode_drain(out: &mut Vec<u8>) {
    put(DRAIN, &[], out);
}

/// Appends a DATAGRAM capsule.
pub fn encode_datagram(payload: &[u8], out: &mut Vec<u8>) {
    put(DATAGRAM, payload, out);
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every capsule in `buf`, fed `cut` bytes at a time as a stream would bring them.
    fn all(buf: &[u8], cut: usize, max: usize) -> Result<Vec<Capsule>, Error> {
        let mut d = Decoder::new(max);
        let (mut held, mut out, mut fed) = (Vec::new(), Vec::new(), 0);
        while fed < buf.len() || !held.is_empty() {
            let more = &buf[fed..(fed + cut).min(buf.len())];
            fed += more.len();
            held.extend_from_slice(more);
            loop {
                let (n, c) = d.decode(&held)?;
                held.drain(..n);
                out.extend(c);
                if n == 0 {
                    break;
                }
            }
            if more.is_empty() {
                break;
            }
        }
        Ok(out)
    }

    #[test]
    fn capsules_round_trip_whatever_the_cuts_and_unknown_ones_are_skipped() {
        let mut buf = Vec::new();
        encode_close(7, "bye ✓", &mut buf);
        // An unknown capsule (type 0x1234) of 5 000 bytes: skipped even though it is over the limit.
        varint::encode(0x1234, &mut buf);
        varint::encode(5000, &mut buf);
        buf.extend(std::iter::repeat_n(0xaa, 5000));
        encode_drain(&mut buf);
        encode_datagram(b"ping", &mut buf);
        let want = vec![
            Capsule::Close {
                code: 7,
                reason: "bye ✓".into(),
            },
            Capsule::Drain,
            Capsule::Datagram(b"ping".to_vec()),
        ];
        for cut in [1, 2, 3, 7, 64, 4096, buf.len()] {
            assert_eq!(all(&buf, cut, 2048), Ok(want.clone()), "cut {cut}");
        }
    }

    #[test]
    fn an_empty_unknown_capsule_is_skipped_alone() {
        // Found by the fuzzer: a zero-length unknown capsule swallowed the capsule after it.
        let buf = [0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00];
        let want = vec![Capsule::Datagram(Vec::new()); 3];
        for cut in [1, 2, buf.len()] {
            assert_eq!(all(&buf, cut, 16), Ok(want.clone()), "cut {cut}");
        }
    }

    #[test]
    fn malformed_capsules_are_named() {
        let close = |value: &[u8]| {
            let mut b = Vec::new();
            put(CLOSE, value, &mut b);
            Decoder::new(4096).decode(&b)
        };
        assert_eq!(close(&[0, 0, 1]), Err(Error::BadClose));
        assert_eq!(close(&[0, 0, 0, 1, 0xff]), Err(Error::BadClose));
        let mut long = vec![0; 4];
        long.extend(std::iter::repeat_n(b'a', MAX_REASON + 1));
        assert_eq!(close(&long), Err(Error::BadClose));
        let mut b = Vec::new();
        put(DRAIN, b"x", &mut b);
        assert_eq!(Decoder::new(64).decode(&b), Err(Error::BadDrain));
        let mut b = Vec::new();
        encode_datagram(&[0; 100], &mut b);
        assert_eq!(
            Decoder::new(64).decode(&b[..3]),
            Err(Error::TooLarge {
                ty: DATAGRAM,
                len: 100,
                max: 64
            })
        );
    }

    #[test]
    fn a_long_reason_is_cut_at_a_character_boundary() {
        let reason = "é".repeat(600); // 1 200 bytes
        let mut b = Vec::new();
        encode_close(1, &reason, &mut b);
        let Ok((_, Some(Capsule::Close { reason: got, .. }))) = Decoder::new(2048).decode(&b)
        else {
            panic!("no close capsule");
        };
        assert_eq!(got.len(), MAX_REASON);
        assert!(reason.starts_with(&got));
    }

    #[test]
    fn what_chromium_sends_on_a_session_is_read() {
        // Captured from Chromium 156 on a session to a Gale app (2026-12-06), the DATA payload of its CONNECT stream in
        // two reads: first a grease capsule (a reserved type, 0x29 * N + 0x17, in an 8-byte varint, with 58 bytes of
        // value), then, for `wt.close({ closeCode: 5, reason: 'done' })`, CLOSE_WEBTRANSPORT_SESSION.
        let grease: [u8; 67] = [
            198, 28, 240, 249, 130, 75, 175, 213, 58, 145, 194, 11, 14, 63, 204, 70, 76, 184, 161,
            172, 204, 68, 141, 31, 141, 189, 54, 51, 110, 83, 220, 87, 201, 166, 214, 31, 193, 238,
            50, 197, 145, 252, 158, 114, 13, 24, 93, 176, 88, 220, 14, 137, 45, 231, 224, 28, 155,
            201, 179, 60, 108, 154, 66, 220, 74, 116, 66,
        ];
        let close = [104, 67, 8, 0, 0, 0, 5, 100, 111, 110, 101];
        let (ty, _) = varint::decode(&grease).unwrap();
        assert_eq!((ty - 0x17) % 0x29, 0, "a reserved type");
        let stream = [&grease[..], &close[..]].concat();
        // Whole, and cut inside the grease capsule as the network may.
        for cut in [stream.len(), 40] {
            let mut d = Decoder::new(1024);
            let (mut got, mut at) = (Vec::new(), 0);
            for end in [cut, stream.len()] {
                loop {
                    let (n, c) = d.decode(&stream[at..end]).unwrap();
                    at += n;
                    got.extend(c);
                    if n == 0 {
                        break;
                    }
                }
            }
            assert_eq!(at, stream.len());
            let want = Capsule::Close {
                code: 5,
                reason: "done".into(),
            };
            assert_eq!(got, [want]);
        }
    }
}
