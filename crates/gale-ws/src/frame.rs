//! Frame writing (RFC 6455 §5.2) and masking: server frames go out unmasked, client frames
//! (tests, fuzzing, a future client) masked.

/// A frame opcode. The reserved values 3–7 and 11–15 are not representable: the decoder
/// rejects them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub enum Opcode {
    /// Continues a fragmented message.
    Continuation = 0,
    /// First frame of a text (UTF-8) message.
    Text = 1,
    /// First frame of a binary message.
    Binary = 2,
    /// Close, with an optional code and reason.
    Close = 8,
    /// Ping; answer with a Pong carrying the same payload.
    Ping = 9,
    /// Pong.
    Pong = 10,
}

impl Opcode {
    /// The opcode for the low nibble of a frame's first byte; `None` for reserved values.
    pub fn from_u8(v: u8) -> Option<Opcode> {
        Some(match v {
            0 => Opcode::Continuation,
            1 => Opcode::Text,
            2 => Opcode::Binary,
            8 => Opcode::Close,
            9 => Opcode::Ping,
            10 => Opcode::Pong,
            _ => return None,
        })
    }

    /// Close, Ping and Pong: frames that may appear between the fragments of a message.
    pub fn is_control(self) -> bool {
        self as u8 >= 8
    }
}

/// The largest frame header: 2 bytes, 8 of extended length, 4 of mask.
pub const MAX_HEADER_LEN: usize = 14;

/// Appends a frame header for a payload of `len` bytes, choosing the shortest length form
/// (7, 16 or 64 bits). `mask` is `None` for server frames, the masking key for client frames
/// (whose payload must then be masked with [`apply_mask`]).
///
/// ```
/// use gale_ws::{write_header, Opcode};
/// let mut out = Vec::new();
/// write_header(&mut out, true, false, Opcode::Binary, 300, None);
/// assert_eq!(out, [0x82, 126, 0x01, 0x2c]);
/// ```
pub fn write_header(
    out: &mut Vec<u8>,
    fin: bool,
    rsv1: bool,
    opcode: Opcode,
    len: usize,
    mask: Option<[u8; 4]>,
) {
    let b0 = (u8::from(fin) << 7) | (u8::from(rsv1) << 6) | opcode as u8;
    let m = if mask.is_some() { 0x80 } else { 0 };
    match len {
        0..=125 => out.extend_from_slice(&[b0, m | len as u8]),
        126..=0xffff => {
            let l = (len as u16).to_be_bytes();
            out.extend_from_slice(&[b0, m | 126, l[0], l[1]]);
        }
        _ => {
            out.extend_from_slice(&[b0, m | 127]);
            out.extend_from_slice(&(len as u64).to_be_bytes());
        }
    }
    if let Some(key) = mask {
        out.extend_from_slice(&key);
    }
}

/// Appends a whole single-frame (FIN) message or control frame: header and payload, the
/// payload masked when `mask` is `Some`. `rsv1` marks a permessage-deflate compressed payload.
///
/// ```
/// use gale_ws::{write_frame, Opcode};
/// let mut out = Vec::new();
/// write_frame(&mut out, Opcode::Text, b"Hello", false, None);
/// assert_eq!(out, b"\x81\x05Hello");
/// out.clear();
/// // RFC 6455 §5.7: a masked "Hello" from a client.
/// write_frame(&mut out, Opcode::Text, b"Hello", false, Some([0x37, 0xfa, 0x21, 0x3d]));
/// assert_eq!(out, [0x81, 0x85, 0x37, 0xfa, 0x21, 0x3d, 0x7f, 0x9f, 0x4d, 0x51, 0x58]);
/// ```
pub fn write_frame(
    out: &mut Vec<u8>,
    opcode: Opcode,
    payload: &[u8],
    rsv1: bool,
    mask: Option<[u8; 4]>,
) {
    write_header(out, true, rsv1, opcode, payload.len(), mask);
    let start = out.len();
    out.extend_from_slice(payload);
    if let Some(key) = mask {
        apply_mask(&mut out[start..], key, 0);
    }
}

/// Appends a close frame with `code` and `reason`. A control frame carries at most 125
/// bytes, so the reason is cut to 123 bytes, back to a UTF-8 character boundary so a valid
/// reason stays valid.
///
/// ```
/// use gale_ws::write_close;
/// let mut out = Vec::new();
/// write_close(&mut out, 1000, b"bye", None);
/// assert_eq!(out, b"\x88\x05\x03\xe8bye");
/// ```
pub fn write_close(out: &mut Vec<u8>, code: u16, reason: &[u8], mask: Option<[u8; 4]>) {
    let mut n = reason.len().min(123);
    if n < reason.len() {
        // Step back over continuation bytes (10xxxxxx) to the start of the cut character.
        while n > 0 && reason[n] & 0xc0 == 0x80 {
            n -= 1;
        }
    }
    let mut payload = [0u8; 125];
    payload[..2].copy_from_slice(&code.to_be_bytes());
    payload[2..2 + n].copy_from_slice(&reason[..n]);
    write_frame(out, Opcode::Close, &payload[..2 + n], false, mask);
}

/// XORs `buf` with the masking key in place (masking and unmasking are the same operation).
/// `offset` is the position of `buf[0]` within the frame payload, so a payload that arrives
/// in pieces can be unmasked piece by piece.
///
/// Works eight bytes at a time: the loop over `u64` words compiles to wide loads and XORs.
///
/// ```
/// use gale_ws::apply_mask;
/// let key = [1, 2, 3, 4];
/// let mut whole = *b"abcdefghijklmnopq";
/// apply_mask(&mut whole, key, 0);
/// let mut pieces = *b"abcdefghijklmnopq";
/// let (a, b) = pieces.split_at_mut(3);
/// apply_mask(a, key, 0);
/// apply_mask(b, key, 3);
/// assert_eq!(whole, pieces);
/// ```
pub fn apply_mask(buf: &mut [u8], mask: [u8; 4], offset: usize) {
    // Rotate the key so that key[0] applies to buf[0].
    let r = offset % 4;
    let key = [
        mask[r],
        mask[(r + 1) % 4],
        mask[(r + 2) % 4],
        mask[(r + 3) % 4],
    ];
    let word = u64::from_ne_bytes([
        key[0], key[1], key[2], key[3], key[0], key[1], key[2], key[3],
    ]);
    let mut chunks = buf.chunks_exact_mut(8);
    for chunk in &mut chunks {
        let v = u64::from_ne_bytes((&*chunk).try_into().expect("8-byte chunk")) ^ word;
        chunk.copy_from_slice(&v.to_ne_bytes());
    }
    // Every whole chunk is 8 bytes, a multiple of 4, so the key phase is unchanged here.
    for (i, b) in chunks.into_remainder().iter_mut().enumerate() {
        *b ^= key[i % 4];
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mask_bytewise(buf: &mut [u8], mask: [u8; 4], offset: usize) {
        for (i, b) in buf.iter_mut().enumerate() {
            *b ^= mask[(offset + i) % 4];
        }
    }

    #[test]
    fn mask_matches_bytewise_at_every_length_and_offset() {
        let key = [0x11, 0x22, 0x44, 0x88];
        for len in 0..40 {
            for offset in 0..9 {
                let data: Vec<u8> = (0..len as u8).map(|b| b.wrapping_mul(7)).collect();
                let mut fast = data.clone();
                let mut slow = data.clone();
                apply_mask(&mut fast, key, offset);
                mask_bytewise(&mut slow, key, offset);
                assert_eq!(fast, slow, "len {len} offset {offset}");
                apply_mask(&mut fast, key, offset);
                assert_eq!(fast, data);
            }
        }
    }

    #[test]
    fn header_lengths() {
        let mut out = Vec::new();
        write_header(&mut out, true, false, Opcode::Text, 125, None);
        assert_eq!(out, [0x81, 125]);
        out.clear();
        write_header(&mut out, true, false, Opcode::Text, 126, None);
        assert_eq!(out, [0x81, 126, 0, 126]);
        out.clear();
        write_header(&mut out, false, true, Opcode::Binary, 0xffff, None);
        assert_eq!(out, [0x42, 126, 0xff, 0xff]);
        out.clear();
        write_header(&mut out, true, false, Opcode::Binary, 0x10000, Some([9; 4]));
        assert_eq!(out, [0x82, 0xff, 0, 0, 0, 0, 0, 1, 0, 0, 9, 9, 9, 9]);
        assert_eq!(out.len(), MAX_HEADER_LEN);
    }

    #[test]
    fn close_reason_cut_on_char_boundary() {
        let mut out = Vec::new();
        let reason = "é".repeat(100); // 200 bytes of 2-byte characters
        write_close(&mut out, 1001, reason.as_bytes(), None);
        assert_eq!(out[1], 2 + 122);
        assert!(std::str::from_utf8(&out[4..]).is_ok());
        out.clear();
        write_close(&mut out, 1000, &[b'a'; 200], None);
        assert_eq!(out.len(), 2 + 125);
        out.clear();
        write_close(&mut out, 4000, b"", None);
        assert_eq!(out, [0x88, 2, 0x0f, 0xa0]);
    }

    #[test]
    fn opcodes() {
        for v in 0..16u8 {
            match Opcode::from_u8(v) {
                Some(op) => assert_eq!(op as u8, v),
                None => assert!(matches!(v, 3..=7 | 11..=15)),
            }
        }
        assert!(Opcode::Ping.is_control() && !Opcode::Continuation.is_control());
    }
}
