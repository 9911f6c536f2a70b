//! The flood guard of an HTTP/2 connection: it reads the frame headers of the client's byte stream before h2
//! does (no payload is copied) and counts frames that cost the server work but carry no request: PING,
//! SETTINGS, PRIORITY, empty DATA/HEADERS/CONTINUATION, unknown frame types ("control"), and RST_STREAM
//! ("resets": the 2023 rapid-reset attack opens and cancels streams as fast as it can). Each kind has a token
//! bucket; a client that empties one is cut off with GOAWAY(ENHANCE_YOUR_CALM). h2 has limits of its own
//! (resets of streams not yet accepted, resets it had to send for protocol errors, small-DATA overhead); this
//! adds rate limits it lacks, per connection, so one client's flood never costs another client anything.

/// The connection preface every HTTP/2 client sends first (RFC 9113 §3.4).
pub const PREFACE: &[u8] = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n";

/// A token bucket counted in thousandths, refilled by elapsed milliseconds.
#[derive(Clone, Copy, Debug)]
struct Bucket {
    milli: u64,
    last_ms: u64,
    burst: u64,
    per_sec: u64,
}

impl Bucket {
    fn new(burst: u64, per_sec: u64, now_ms: u64) -> Bucket {
        Bucket {
            milli: burst * 1000,
            last_ms: now_ms,
            burst,
            per_sec,
        }
    }

    /// Takes one token; false when the bucket is empty.
    fn take(&mut self, now_ms: u64) -> bool {
        let elapsed = now_ms.saturating_sub(self.last_ms);
        self.last_ms = self.last_ms.max(now_ms);
        self.milli = (self.milli + elapsed * self.per_sec).min(self.burst * 1000);
        if self.milli < 1000 {
            return false;
        }
        self.milli -= 1000;
        true
    }
}

/// Rates a client may sustain: a burst, then so many per second.
#[derive(Clone, Copy, Debug)]
pub struct GuardLimits {
    /// PING/SETTINGS/PRIORITY/empty/unknown frames a client may send at once.
    pub control_burst: u64,
    /// … and per second after the burst.
    pub control_per_sec: u64,
    /// RST_STREAM frames a client may send at once.
    pub reset_burst: u64,
    /// … and per second after the burst.
    pub reset_per_sec: u64,
}

impl Default for GuardLimits {
    fn default() -> Self {
        // Browsers send a few SETTINGS/PRIORITY frames at start, gRPC clients a PING per data burst, and a page
        // navigation cancels the streams still loading: far below these. A flood reaches them within milliseconds.
        GuardLimits {
            control_burst: 1000,
            control_per_sec: 200,
            reset_burst: 500,
            reset_per_sec: 100,
        }
    }
}

/// Why a connection was cut off.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Flood {
    /// Too many PING/SETTINGS/PRIORITY/empty/unknown frames.
    Control,
    /// Too many RST_STREAM frames.
    Resets,
}

/// The flood guard of one connection: feed it every byte the client sends, in order, before h2 reads them.
///
/// ```
/// use gale_h2::{Guard, GuardLimits, PREFACE};
/// let mut g = Guard::new(GuardLimits::default(), 0);
/// let settings = [0, 0, 0, 4, 0, 0, 0, 0, 0]; // an empty SETTINGS frame on stream 0
/// g.scan(PREFACE, 0).unwrap();
/// g.scan(&settings, 0).unwrap();
/// assert!(g.started());
/// ```
#[derive(Debug)]
pub struct Guard {
    /// Preface bytes still to pass.
    preface_left: usize,
    hdr: [u8; 9],
    hdr_len: usize,
    /// Payload bytes of the current frame still to pass.
    skip: usize,
    control: Bucket,
    resets: Bucket,
    /// Frames seen after the preface (the first must be the client's SETTINGS).
    frames: u64,
}

const DATA: u8 = 0x0;
const HEADERS: u8 = 0x1;
const PRIORITY: u8 = 0x2;
const RST_STREAM: u8 = 0x3;
const SETTINGS: u8 = 0x4;
const PUSH_PROMISE: u8 = 0x5;
const PING: u8 = 0x6;
const GOAWAY: u8 = 0x7;
const WINDOW_UPDATE: u8 = 0x8;
const CONTINUATION: u8 = 0x9;
const FLAG_END_STREAM: u8 = 0x1;
const FLAG_ACK: u8 = 0x1;
const FLAG_END_HEADERS: u8 = 0x4;

impl Guard {
    /// A guard for a connection that starts at `now_ms` (milliseconds on any steady clock).
    pub fn new(limits: GuardLimits, now_ms: u64) -> Guard {
        Guard {
            preface_left: PREFACE.len(),
            hdr: [0; 9],
            hdr_len: 0,
            skip: 0,
            control: Bucket::new(limits.control_burst, limits.control_per_sec, now_ms),
            resets: Bucket::new(limits.reset_burst, limits.reset_per_sec, now_ms),
            frames: 0,
        }
    }

    /// Whether the client got past its preface to a first frame: until then the handshake is unfinished.
    pub fn started(&self) -> bool {
        self.frames > 0
    }

    /// Reads the frame headers in the next bytes of the client's stream. Err when a limit is exceeded.
    pub fn scan(&mut self, data: &[u8], now_ms: u64) -> Result<(), Flood> {
        let mut i = 0;
        while i < data.len() {
            if self.preface_left > 0 {
                let n = self.preface_left.min(data.len() - i);
                self.preface_left -= n;
                i += n;
                continue;
            }
            if self.skip > 0 {
                let n = self.skip.min(data.len() - i);
                self.skip -= n;
                i += n;
                continue;
            }
            let n = (9 - self.hdr_len).min(data.len() - i);
            self.hdr[self.hdr_len..self.hdr_len + n].copy_from_slice(&data[i..i + n]);
            self.hdr_len += n;
            i += n;
            if self.hdr_len < 9 {
                break;
            }
            self.hdr_len = 0;
            self.frames += 1;
            let h = self.hdr;
            let len = (usize::from(h[0]) << 16) | (usize::from(h[1]) << 8) | usize::from(h[2]);
            self.skip = len;
            match classify(h[3], h[4], len) {
                Kind::Request => {}
                Kind::Control => {
                    if !self.control.take(now_ms) {
                        return Err(Flood::Control);
                    }
                }
                Kind::Reset => {
                    if !self.resets.take(now_ms) {
                        return Err(Flood::Resets);
                    }
                }
            }
        }
        Ok(())
    }
}

enum Kind {
    /// Carries requests, bodies or flow control: never limited here.
    Request,
    Control,
    Reset,
}

fn classify(ty: u8, flags: u8, len: usize) -> Kind {
    match ty {
        DATA if len == 0 && flags & FLAG_END_STREAM == 0 => Kind::Control,
        HEADERS | CONTINUATION if len == 0 && flags & FLAG_END_HEADERS == 0 => Kind::Control,
        DATA | HEADERS | CONTINUATION | WINDOW_UPDATE | GOAWAY => Kind::Request,
        SETTINGS | PING if flags & FLAG_ACK != 0 => Kind::Request,
        RST_STREAM => Kind::Reset,
        // PRIORITY, SETTINGS, PING, PUSH_PROMISE (a protocol error from a client: h2 ends the connection), and
        // frame types HTTP/2 ignores.
        PRIORITY | SETTINGS | PING | PUSH_PROMISE => Kind::Control,
        _ => Kind::Control,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frame(ty: u8, flags: u8, stream: u32, payload: &[u8]) -> Vec<u8> {
        let len = payload.len();
        let mut f = vec![(len >> 16) as u8, (len >> 8) as u8, len as u8, ty, flags];
        f.extend_from_slice(&stream.to_be_bytes());
        f.extend_from_slice(payload);
        f
    }

    fn limits() -> GuardLimits {
        GuardLimits {
            control_burst: 10,
            control_per_sec: 5,
            reset_burst: 3,
            reset_per_sec: 1,
        }
    }

    #[test]
    fn ordinary_traffic_passes_in_any_split() {
        let mut bytes = PREFACE.to_vec();
        bytes.extend(frame(SETTINGS, 0, 0, &[0; 6]));
        bytes.extend(frame(SETTINGS, FLAG_ACK, 0, &[]));
        for s in 0..200u32 {
            let id = s * 2 + 1;
            bytes.extend(frame(HEADERS, FLAG_END_HEADERS, id, &[0x82; 40]));
            bytes.extend(frame(DATA, 0, id, &[7; 1000]));
            bytes.extend(frame(DATA, FLAG_END_STREAM, id, &[]));
            bytes.extend(frame(WINDOW_UPDATE, 0, 0, &[0, 0, 1, 0]));
        }
        for split in [1, 2, 7, 9, 100, 4096, bytes.len()] {
            let mut g = Guard::new(limits(), 0);
            for chunk in bytes.chunks(split) {
                assert_eq!(g.scan(chunk, 0), Ok(()), "split {split}");
            }
            assert_eq!((g.hdr_len, g.skip, g.preface_left), (0, 0, 0));
            assert!(g.started());
        }
    }

    #[test]
    fn a_ping_flood_is_cut_and_a_slow_one_is_not() {
        let ping = frame(PING, 0, 0, &[1; 8]);
        let mut g = Guard::new(limits(), 0);
        g.scan(PREFACE, 0).unwrap();
        assert!(!g.started(), "the preface alone is not a frame");
        for _ in 0..10 {
            g.scan(&ping, 0).unwrap();
        }
        assert_eq!(g.scan(&ping, 0), Err(Flood::Control));

        let mut g = Guard::new(limits(), 0);
        g.scan(PREFACE, 0).unwrap();
        // 5 per second is the sustained rate: one every 200 ms lasts forever.
        for i in 0..1000 {
            g.scan(&ping, i * 200).unwrap();
        }
    }

    #[test]
    fn settings_priority_empty_and_unknown_frames_count_as_control() {
        for f in [
            frame(SETTINGS, 0, 0, &[]),
            frame(PRIORITY, 0, 1, &[0; 5]),
            frame(DATA, 0, 1, &[]),
            frame(CONTINUATION, 0, 1, &[]),
            frame(0x42, 0, 0, &[1, 2, 3]),
        ] {
            let mut g = Guard::new(limits(), 0);
            g.scan(PREFACE, 0).unwrap();
            let flood: Vec<u8> = f.iter().copied().cycle().take(f.len() * 11).collect();
            assert_eq!(g.scan(&flood, 0), Err(Flood::Control), "{f:?}");
        }
        // Acks are answers to our frames and are not counted.
        let mut g = Guard::new(limits(), 0);
        let ack = frame(PING, FLAG_ACK, 0, &[0; 8]);
        let acks: Vec<u8> = ack.iter().copied().cycle().take(ack.len() * 100).collect();
        g.scan(PREFACE, 0).unwrap();
        assert_eq!(g.scan(&acks, 0), Ok(()));
    }

    #[test]
    fn rapid_reset_is_cut() {
        let mut g = Guard::new(limits(), 0);
        g.scan(PREFACE, 0).unwrap();
        let mut r = Ok(());
        for s in 0..10u32 {
            let mut b = frame(
                HEADERS,
                FLAG_END_HEADERS | FLAG_END_STREAM,
                s * 2 + 1,
                &[0x82],
            );
            b.extend(frame(RST_STREAM, 0, s * 2 + 1, &[0, 0, 0, 8]));
            r = g.scan(&b, 0);
            if r.is_err() {
                assert_eq!(s, 3, "the fourth reset is one over the burst of 3");
                break;
            }
        }
        assert_eq!(r, Err(Flood::Resets));
    }

    #[test]
    fn a_bucket_refills_with_time_up_to_its_burst() {
        let mut b = Bucket::new(2, 1, 0);
        assert!(b.take(0) && b.take(0) && !b.take(0));
        assert!(!b.take(999));
        assert!(b.take(1000));
        assert!(b.take(100_000) && b.take(100_000) && !b.take(100_000));
    }
}
