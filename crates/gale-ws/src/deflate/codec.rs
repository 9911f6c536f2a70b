//! The per-message codec (RFC 7692 §7.2): raw DEFLATE with a sync flush per message, the
//! trailing `00 00 FF FF` removed on send and put back on receive.

use crate::close::CloseError;
use flate2::{Compress, Compression, Decompress, FlushCompress, FlushDecompress, Status};

/// The empty stored block a sync flush ends with (RFC 7692 §7.2.1).
const TAIL: [u8; 4] = [0, 0, 0xff, 0xff];

/// Compresses outgoing messages. Keep one per socket ("dedicated", may keep context between
/// messages) or one shared by all sockets (then created with `no_context_takeover`, since
/// any message may go to any socket).
///
/// ```
/// use gale_ws::{Deflater, Inflater};
/// let mut d = Deflater::new(15, 6, false);
/// let mut wire = Vec::new();
/// d.compress(b"Hello", &mut wire);
/// assert_eq!(wire, [0xf2, 0x48, 0xcd, 0xc9, 0xc9, 0x07, 0x00]); // RFC 7692 §7.2.3.1
/// let mut msg = Vec::new();
/// Inflater::new(15, false).decompress(&wire, &mut msg, 1024).unwrap();
/// assert_eq!(msg, b"Hello");
/// ```
pub struct Deflater {
    z: Compress,
    no_context_takeover: bool,
}

impl std::fmt::Debug for Deflater {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Deflater")
            .field("no_context_takeover", &self.no_context_takeover)
            .finish_non_exhaustive()
    }
}

impl Deflater {
    /// A compressor with a `window_bits` window (clamped to 9..=15: zlib cannot produce raw
    /// 8-bit-window streams, see [`super::MIN_SERVER_WINDOW_BITS`]) at zlib `level` (0..=9).
    /// With `no_context_takeover` every message is compressed independently.
    pub fn new(window_bits: u8, level: u32, no_context_takeover: bool) -> Deflater {
        let bits = window_bits.clamp(9, 15);
        Deflater {
            z: Compress::new_with_window_bits(Compression::new(level.min(9)), false, bits),
            no_context_takeover,
        }
    }

    /// Appends the compressed message (sync-flushed, trailing `00 00 FF FF` removed) to `out`;
    /// the compressor is then reset when created with `no_context_takeover`. An empty message
    /// becomes the single byte `00` (RFC 7692 §7.2.3.6).
    pub fn compress(&mut self, data: &[u8], out: &mut Vec<u8>) {
        if data.is_empty() {
            // zlib emits nothing for a flush with no new input; the empty stored block
            // `00 00 00 FF FF` without its tail is the one byte 00, and leaves the window as is.
            out.push(0);
            return;
        }
        let in_start = self.z.total_in();
        let out_start = out.len();
        // Compressed size is usually below the input; the loop grows `out` when not.
        out.reserve(data.len() / 2 + 64);
        loop {
            let consumed = (self.z.total_in() - in_start) as usize;
            if out.len() == out.capacity() {
                out.reserve(out.len() - out_start + 64);
            }
            self.z
                .compress_vec(&data[consumed..], out, FlushCompress::Sync)
                .expect("raw deflate of a byte slice cannot fail");
            // The flush is complete once all input is in and zlib stopped with room left.
            let consumed = (self.z.total_in() - in_start) as usize;
            if consumed == data.len() && out.len() < out.capacity() {
                break;
            }
        }
        debug_assert!(out[out_start..].ends_with(&TAIL));
        out.truncate(out.len() - TAIL.len());
        if self.no_context_takeover {
            self.z.reset();
        }
    }
}

/// Decompresses incoming messages, bounding the output (zip bombs).
///
/// ```
/// use gale_ws::Inflater;
/// let mut inf = Inflater::new(15, false);
/// let mut out = Vec::new();
/// // RFC 7692 §7.2.3.2: the second "Hello" refers back to the first.
/// inf.decompress(&[0xf2, 0x48, 0xcd, 0xc9, 0xc9, 0x07, 0x00], &mut out, 100).unwrap();
/// inf.decompress(&[0xf2, 0x00, 0x11, 0x00, 0x00], &mut out, 100).unwrap();
/// assert_eq!(out, b"HelloHello");
/// assert_eq!(inf.decompress(&[0xf2, 0x48, 0xcd, 0xc9, 0xc9, 0x07, 0x00], &mut out, 4).unwrap_err().code, 1009);
/// ```
pub struct Inflater {
    z: Decompress,
    no_context_takeover: bool,
}

impl std::fmt::Debug for Inflater {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Inflater")
            .field("no_context_takeover", &self.no_context_takeover)
            .finish_non_exhaustive()
    }
}

/// The error for a message that inflates past the limit.
pub(crate) const TOO_BIG: CloseError = CloseError::too_big("message too big once inflated");
/// The error for a compressed payload that is not a valid DEFLATE stream.
pub(crate) const BAD_DATA: CloseError = CloseError::invalid_data("invalid compressed data");

impl Inflater {
    /// A decompressor for a peer compressing with windows up to `window_bits` (clamped to
    /// 9..=15: a 9-bit window also reads the streams of zlib-based peers that were asked for 8
    /// and silently used 9). The zlib-rs backend keeps a 32 KiB window whatever the bits, so
    /// this bounds nothing; it only matters with a C zlib backend. With `no_context_takeover`
    /// every message is inflated independently.
    pub fn new(window_bits: u8, no_context_takeover: bool) -> Inflater {
        Inflater {
            z: Decompress::new_with_window_bits(false, window_bits.clamp(9, 15)),
            no_context_takeover,
        }
    }

    /// Inflates one whole message's payload (appending `00 00 FF FF` itself) onto `out`.
    /// `Err` with code 1009 when the message would exceed `max` bytes, 1007 on a corrupt
    /// stream; on error `out` is cut back to its length before the call and the inflater
    /// reset (the connection is to be closed anyway).
    pub fn decompress(
        &mut self,
        data: &[u8],
        out: &mut Vec<u8>,
        max: usize,
    ) -> Result<(), CloseError> {
        let start = out.len();
        let result = self.run(data, out, start, max);
        if result.is_err() {
            out.truncate(start);
            self.z.reset(false);
        } else if self.no_context_takeover {
            self.z.reset(false);
        }
        result
    }

    fn run(
        &mut self,
        data: &[u8],
        out: &mut Vec<u8>,
        start: usize,
        max: usize,
    ) -> Result<(), CloseError> {
        for input in [data, &TAIL[..]] {
            let in_start = self.z.total_in();
            loop {
                let consumed = (self.z.total_in() - in_start) as usize;
                if out.len() == out.capacity() {
                    let produced = out.len() - start;
                    if produced > max {
                        return Err(TOO_BIG);
                    }
                    // Grow geometrically, but never past one byte over the limit: that byte
                    // tells "exactly max" from "too big" without inflating a bomb further.
                    let want = produced.max(input.len() * 4).clamp(256, 1 << 20);
                    out.reserve_exact(want.min(max - produced + 1));
                }
                let out_before = out.len();
                let status = self
                    .z
                    .decompress_vec(&input[consumed..], out, FlushDecompress::Sync)
                    .map_err(|_| BAD_DATA)?;
                if out.len() - start > max {
                    return Err(TOO_BIG);
                }
                let now = (self.z.total_in() - in_start) as usize;
                if status == Status::StreamEnd {
                    // A final block (BFINAL) ends the stream: anything after it is ignored
                    // and the next message starts a new stream (RFC 7692 §7.2.3.4).
                    self.z.reset(false);
                    return Ok(());
                }
                let stalled = now == consumed && out.len() == out_before;
                if (now == input.len() && out.len() < out.capacity()) || stalled {
                    break;
                }
            }
        }
        Ok(())
    }
}
