//! QUIC variable-length integers (RFC 9000 §16): 1, 2, 4 or 8 bytes, the two top bits of the first saying which,
//! values up to 2^62 − 1.

/// The largest value a varint holds.
pub const MAX: u64 = (1 << 62) - 1;

/// Decodes the varint at the start of `buf`: its value and length, or None when `buf` holds only part of it.
pub fn decode(buf: &[u8]) -> Option<(u64, usize)> {
    let first = *buf.first()?;
    let len = 1usize << (first >> 6);
    let bytes = buf.get(..len)?;
    let mut v = u64::from(first & 0x3f);
    for &b in &bytes[1..] {
        v = (v << 8) | u64::from(b);
    }
    Some((v, len))
}

/// The number of bytes `v` takes (the shortest form).
pub fn len(v: u64) -> usize {
    match v {
        0..=63 => 1,
        64..=16_383 => 2,
        16_384..=1_073_741_823 => 4,
        _ => 8,
    }
}

/// Appends `v` in its shortest form. Panics over [`MAX`]: a caller's bug, never a peer's input.
pub fn encode(v: u64, out: &mut Vec<u8>) {
    assert!(v <= MAX, "varint {v} over 2^62 - 1");
    let n = len(v);
    let tag = (n.trailing_zeros() as u64) << (8 * n - 2);
    out.extend_from_slice(&(v | tag).to_be_bytes()[8 - n..]);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rfc_9000_examples_decode_and_encode_back() {
        // RFC 9000 §A.1's examples.
        let cases: [(&[u8], u64); 4] = [
            (
                &[0xc2, 0x19, 0x7c, 0x5e, 0xff, 0x14, 0xe8, 0x8c],
                151_288_809_941_952_652,
            ),
            (&[0x9d, 0x7f, 0x3e, 0x7d], 494_878_333),
            (&[0x7b, 0xbd], 15_293),
            (&[0x25], 37),
        ];
        for (bytes, v) in cases {
            assert_eq!(decode(bytes), Some((v, bytes.len())));
            let mut out = Vec::new();
            encode(v, &mut out);
            assert_eq!(out, bytes);
        }
        // A longer form of 37 is valid too (the RFC's 0x40 0x25).
        assert_eq!(decode(&[0x40, 0x25]), Some((37, 2)));
    }

    #[test]
    fn a_cut_varint_is_incomplete_and_bounds_round_trip() {
        assert_eq!(decode(&[]), None);
        assert_eq!(decode(&[0xc2, 0x19, 0x7c]), None);
        for v in [0, 63, 64, 16_383, 16_384, 1_073_741_823, 1_073_741_824, MAX] {
            let mut out = Vec::new();
            encode(v, &mut out);
            assert_eq!(out.len(), len(v));
            assert_eq!(decode(&out), Some((v, out.len())));
        }
    }
}
