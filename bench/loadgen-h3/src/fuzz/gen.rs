//! What the QUIC fuzzer sends: a seeded PRNG, HTTP/3 frames and QPACK field sections (static table only, written
//! by hand so they can be wrong on purpose), byte mutations, and datagram templates.

/// SplitMix64: small, seedable, no repeats within any run this fuzzer makes (period 2^64).
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Self {
        Rng(seed ^ 0x9e37_79b9_7f4a_7c15)
    }
    pub fn u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    /// Uniform in 0..n (n > 0).
    pub fn below(&mut self, n: u64) -> u64 {
        self.u64() % n.max(1)
    }
    pub fn chance(&mut self, percent: u64) -> bool {
        self.below(100) < percent
    }
    pub fn bytes(&mut self, n: usize) -> Vec<u8> {
        (0..n).map(|_| self.u64() as u8).collect()
    }
    pub fn pick<T: Clone>(&mut self, items: &[T]) -> T {
        items[self.below(items.len() as u64) as usize].clone()
    }
}

/// A QUIC variable-length integer (RFC 9000 §16); values past 2^62 are cut to fit.
pub fn varint(out: &mut Vec<u8>, v: u64) {
    let v = v & ((1 << 62) - 1);
    if v < 1 << 6 {
        out.push(v as u8);
    } else if v < 1 << 14 {
        out.extend_from_slice(&((v as u16) | 0x4000).to_be_bytes());
    } else if v < 1 << 30 {
        out.extend_from_slice(&((v as u32) | 0x8000_0000).to_be_bytes());
    } else {
        out.extend_from_slice(&(v | 0xc000_0000_0000_0000).to_be_bytes());
    }
}

/// A varint of a size the fuzzer likes: small, at an encoding edge, or anything.
pub fn odd_number(r: &mut Rng) -> u64 {
    match r.below(4) {
        0 => r.below(64),
        1 => r.pick(&[
            63,
            64,
            16_383,
            16_384,
            (1 << 30) - 1,
            1 << 30,
            (1 << 62) - 1,
        ]),
        2 => r.below(100_000),
        _ => r.u64(),
    }
}

/// An HTTP/3 frame: type, length, payload.
pub fn frame(out: &mut Vec<u8>, ty: u64, payload: &[u8]) {
    varint(out, ty);
    varint(out, payload.len() as u64);
    out.extend_from_slice(payload);
}

/// A QPACK prefixed integer (RFC 7541 §5.1) with `flags` in the bits above the prefix.
fn qint(out: &mut Vec<u8>, flags: u8, prefix: u8, v: u64) {
    let max = (1u64 << prefix) - 1;
    if v < max {
        out.push(flags | v as u8);
        return;
    }
    out.push(flags | max as u8);
    let mut v = v - max;
    while v >= 128 {
        out.push((v as u8 & 0x7f) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

/// A literal string, not Huffman-coded (7-bit length prefix).
fn qstr(out: &mut Vec<u8>, s: &[u8]) {
    qint(out, 0, 7, s.len() as u64);
    out.extend_from_slice(s);
}

const METHODS: &[u8] = &[17, 20, 16, 18, 19, 21]; // static: GET POST DELETE HEAD OPTIONS PUT
const PATHS: &[&[u8]] = &[
    b"/",
    b"/json",
    b"/demo/",
    b"/chat",
    b"/nope",
    b"/json?x=1",
    b"*",
    b"",
    b"//..//x",
];

/// A request's field section: mostly valid (static table references and literals), sometimes missing or repeating
/// pseudo-headers, with odd names and values, or dynamic-table references the encoder never sent.
pub fn field_section(r: &mut Rng) -> Vec<u8> {
    let mut out = vec![0, 0]; // Required Insert Count 0, Base 0
    if r.chance(5) {
        out = vec![r.u64() as u8, r.u64() as u8];
    }
    if !r.chance(5) {
        qint(&mut out, 0xc0, 6, u64::from(r.pick(METHODS))); // indexed, static
    }
    if !r.chance(5) {
        qint(&mut out, 0xc0, 6, 23); // :scheme https
    }
    if !r.chance(5) {
        qint(&mut out, 0x50, 4, 0); // :authority, literal value
        qstr(&mut out, b"a.test");
    }
    let n = if r.chance(10) { 2 } else { 1 };
    for _ in 0..n {
        qint(&mut out, 0x50, 4, 1); // :path
        let p = r.pick(PATHS);
        qstr(&mut out, if r.chance(5) { &[0x00, b'/', 0xff] } else { p });
    }
    for _ in 0..r.below(4) {
        match r.below(5) {
            0 => {
                qint(&mut out, 0x50, 4, 4); // content-length
                qstr(&mut out, odd_number(r).to_string().as_bytes());
            }
            1 => {
                let name = r.pick(&[
                    &b"x-fuzz"[..],
                    b"Upper",
                    b"te",
                    b"connection",
                    b"transfer-encoding",
                    b"",
                ]);
                qint(&mut out, 0x20, 3, name.len() as u64); // literal name
                out.extend_from_slice(name);
                qstr(&mut out, b"chunked");
            }
            2 => qint(&mut out, 0x80, 6, r.below(200)), // dynamic-table reference: never inserted
            3 => qint(&mut out, 0xc0, 6, r.below(120)), // static index, maybe past the table's 99
            _ => {
                let len = r.below(300) as usize;
                qint(&mut out, 0x20, 3, 6);
                out.extend_from_slice(b"x-long");
                let value = r.bytes(len);
                qstr(&mut out, &value);
            }
        }
    }
    out
}

/// Flips, sets, inserts, removes or truncates bytes: `n` edits.
pub fn mutate(r: &mut Rng, data: &mut Vec<u8>, n: u64) {
    for _ in 0..n {
        let len = data.len();
        match r.below(6) {
            0 if len > 0 => data[r.below(len as u64) as usize] ^= 1 << r.below(8),
            1 if len > 0 => data[r.below(len as u64) as usize] = r.u64() as u8,
            2 => data.insert(r.below(len as u64 + 1) as usize, r.u64() as u8),
            3 if len > 0 => {
                data.remove(r.below(len as u64) as usize);
            }
            4 if len > 1 => data.truncate(r.below(len as u64) as usize),
            _ => {
                let at = r.below(len as u64 + 1) as usize;
                let n = r.below(16) as usize;
                let extra = r.bytes(n);
                data.splice(at..at, extra);
            }
        }
    }
}

/// A datagram that reaches QUIC's header parsing: a long header (Initial, 0-RTT, Handshake, Retry, or an unknown
/// version, which asks for Version Negotiation) or a short header, with random connection IDs and payload.
pub fn datagram(r: &mut Rng) -> Vec<u8> {
    let mut d = Vec::new();
    if r.chance(70) {
        d.push(0xc0 | (r.below(4) as u8) << 4 | r.below(16) as u8);
        let any = r.u64() as u32;
        let version: u32 = r.pick(&[1, 1, 1, 0x6b33_43cf, 0, 0x1a2a_3a4a, any]);
        d.extend_from_slice(&version.to_be_bytes());
        for _ in 0..2 {
            let n = if r.chance(90) {
                r.below(21)
            } else {
                r.below(256)
            } as usize;
            d.push(n as u8);
            let id = r.bytes(n.min(40));
            d.extend(id);
        }
        // Initial: a token, then the length.
        let token = r.below(3) as usize * 20;
        varint(&mut d, token as u64);
        let token = r.bytes(token);
        d.extend(token);
        let len = if r.chance(80) {
            1200
        } else {
            r.below(1400) as usize
        };
        varint(
            &mut d,
            if r.chance(90) {
                len as u64
            } else {
                odd_number(r)
            },
        );
        let payload = r.bytes(len);
        d.extend(payload);
    } else {
        d.push(0x40 | r.below(64) as u8);
        let n = 1 + r.below(1400) as usize;
        let payload = r.bytes(n);
        d.extend(payload);
    }
    d
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn varints_at_their_edges() {
        let enc = |v| {
            let mut o = Vec::new();
            varint(&mut o, v);
            o
        };
        assert_eq!(enc(37), [0x25]);
        assert_eq!(enc(15_293), [0x7b, 0xbd]); // RFC 9000 appendix A.1's examples
        assert_eq!(enc(494_878_333), [0x9d, 0x7f, 0x3e, 0x7d]);
        assert_eq!(
            enc(151_288_809_941_952_652),
            [0xc2, 0x19, 0x7c, 0x5e, 0xff, 0x14, 0xe8, 0x8c]
        );
    }

    #[test]
    fn a_valid_field_section_reads_as_a_get() {
        // Seeds whose first draws make every part present: static GET, https, authority, one path.
        let mut out = vec![0, 0];
        qint(&mut out, 0xc0, 6, 17);
        qint(&mut out, 0x50, 4, 1);
        qstr(&mut out, b"/");
        assert_eq!(out, [0, 0, 0xd1, 0x51, 1, b'/']);
        let mut long = Vec::new();
        qint(&mut long, 0x20, 3, 10);
        assert_eq!(long, [0x27, 3]);
    }

    #[test]
    fn the_stream_does_not_repeat_soon_and_seeds_differ() {
        let mut a = Rng::new(1);
        let first: Vec<u64> = (0..4).map(|_| a.u64()).collect();
        for _ in 0..100_000 {
            assert_ne!(a.u64(), first[0]);
        }
        assert_ne!(Rng::new(2).u64(), first[0]);
    }
}
