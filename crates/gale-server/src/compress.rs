//! Dynamic response compression (the `compression` option): a whole JS body above the threshold, of a
//! compressible type, for a client that accepts br or gzip, goes out compressed with Vary: Accept-Encoding, as
//! the `compression` middleware would do it, but in the engine. Negotiation is gale-http's; no I/O here.

use std::io::Write;

use gale_http::files::{is_compressible, negotiate, Encoding};

/// Settings of dynamic compression.
#[derive(Clone, Copy, Debug)]
pub struct CompressOptions {
    /// Bodies smaller than this go as they are. Default 1024 bytes (the `compression` middleware's).
    pub threshold: usize,
    /// Offer brotli (quality `brotli_quality`).
    pub brotli: bool,
    /// Offer gzip (level `gzip_level`).
    pub gzip: bool,
    /// 0–11; 4 is fast for dynamic content and still beats gzip's ratio on text.
    pub brotli_quality: u32,
    /// 0–9.
    pub gzip_level: u32,
}

impl Default for CompressOptions {
    fn default() -> Self {
        CompressOptions {
            threshold: 1024,
            brotli: true,
            gzip: true,
            brotli_quality: 4,
            gzip_level: 6,
        }
    }
}

/// Whether the app's header lines leave the body alone: it set its own Content-Encoding, or
/// `Cache-Control: no-transform` (RFC 9111 §5.2.2.6).
fn app_forbids(lines: &[u8]) -> bool {
    lines.split(|&b| b == b'\n').any(|line| {
        let Some(colon) = line.iter().position(|&b| b == b':') else {
            return false;
        };
        let (name, value) = (&line[..colon], &line[colon + 1..]);
        name.eq_ignore_ascii_case(b"content-encoding")
            || (name.eq_ignore_ascii_case(b"cache-control")
                && value
                    .windows(12)
                    .any(|w| w.eq_ignore_ascii_case(b"no-transform")))
    })
}

/// The coding to use for a response, or None to send it as it is.
pub(crate) fn choose(
    opts: &CompressOptions,
    status: u16,
    content_type: &[u8],
    header_lines: &[u8],
    body_len: usize,
    accept_encoding: Option<&[u8]>,
) -> Option<Encoding> {
    if body_len < opts.threshold
        || !(200..300).contains(&status)
        || status == 204
        || status == 206
        || content_type.is_empty()
    {
        return None;
    }
    let ct = std::str::from_utf8(content_type).ok()?;
    // Event streams must reach the client as they are written, not wait in a compressor.
    if !is_compressible(ct) || ct.starts_with("text/event-stream") || app_forbids(header_lines) {
        return None;
    }
    let mut offered = [Encoding::Identity; 2];
    let mut n = 0;
    if opts.brotli {
        offered[n] = Encoding::Brotli;
        n += 1;
    }
    if opts.gzip {
        offered[n] = Encoding::Gzip;
        n += 1;
    }
    match negotiate(accept_encoding, &offered[..n])? {
        Encoding::Identity => None,
        e => Some(e),
    }
}

/// Compresses `body` into `out` (cleared first); false when the result would not be smaller. gzip goes
/// through `gz`, the libdeflate compressor kept between responses (made on first use, remade when the level
/// changes).
pub(crate) fn compress(
    opts: &CompressOptions,
    enc: Encoding,
    body: &[u8],
    out: &mut Vec<u8>,
    gz: &mut Option<Gzip>,
) -> bool {
    out.clear();
    let ok = match enc {
        Encoding::Brotli => {
            let mut w =
                brotli::CompressorWriter::new(&mut *out, 4096, opts.brotli_quality.min(11), 22);
            w.write_all(body).and_then(|_| w.flush()).is_ok()
        }
        Encoding::Gzip => {
            let level = opts.gzip_level.min(9);
            let g = match gz {
                Some(g) if g.level == level => g,
                _ => gz.insert(Gzip::new(level)),
            };
            g.compress(body, out)
        }
        Encoding::Identity => false,
    };
    ok && out.len() < body.len()
}

/// A libdeflate gzip compressor at one level. Whole bodies are compressed in one call, which is what
/// libdeflate is built for: at the JSON answers of bench/arena's json-comp it took 13–26 µs at levels 1–6
/// where flate2 (zlib-rs) took 16–40 µs, and gave smaller output at each level.
pub(crate) struct Gzip {
    level: u32,
    c: libdeflater::Compressor,
}

impl Gzip {
    /// Level 0–9 as zlib counts them (libdeflate's 10–12 are far slower and not offered).
    pub(crate) fn new(level: u32) -> Gzip {
        let lvl = libdeflater::CompressionLvl::new(level.min(9) as i32)
            .unwrap_or_else(|_| libdeflater::CompressionLvl::default());
        Gzip {
            level,
            c: libdeflater::Compressor::new(lvl),
        }
    }

    /// `body` as a gzip member into `out` (replacing what it held); false only if libdeflate failed.
    pub(crate) fn compress(&mut self, body: &[u8], out: &mut Vec<u8>) -> bool {
        out.resize(self.c.gzip_compress_bound(body.len()), 0);
        match self.c.gzip_compress(body, out) {
            Ok(n) => {
                out.truncate(n);
                true
            }
            Err(_) => {
                out.clear();
                false
            }
        }
    }
}

/// What dynamic compression keeps between responses: the plain body, the compressed one, the header lines,
/// and the gzip compressor.
#[derive(Default)]
pub struct Scratch {
    pub(crate) plain: Vec<u8>,
    pub(crate) packed: Vec<u8>,
    pub(crate) lines: Vec<u8>,
    pub(crate) gzip: Option<Gzip>,
}

/// The app's header lines plus `Content-Encoding` and `Vary: Accept-Encoding`, with a strong ETag made
/// weak (the compressed bytes are not the ones it named), into `out`.
pub(crate) fn header_lines(enc: Encoding, app: &[u8], out: &mut Vec<u8>) {
    out.clear();
    for line in app.split_inclusive(|&b| b == b'\n') {
        let colon = line.iter().position(|&b| b == b':');
        if let Some(c) = colon {
            let (name, value) = (&line[..c], &line[c + 1..]);
            let v = value.trim_ascii_start();
            if name.eq_ignore_ascii_case(b"etag") && v.first() == Some(&b'"') {
                out.extend_from_slice(name);
                out.extend_from_slice(b": W/");
                out.extend_from_slice(v);
                continue;
            }
        }
        out.extend_from_slice(line);
    }
    out.extend_from_slice(b"Content-Encoding: ");
    out.extend_from_slice(enc.token().as_bytes());
    out.extend_from_slice(b"\r\nVary: Accept-Encoding\r\n");
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Read;

    #[test]
    fn when_to_compress() {
        let o = CompressOptions::default();
        let json = b"application/json";
        let br = Some(&b"gzip, deflate, br"[..]);
        assert_eq!(choose(&o, 200, json, b"", 2000, br), Some(Encoding::Brotli));
        assert_eq!(
            choose(&o, 200, json, b"", 2000, Some(b"gzip")),
            Some(Encoding::Gzip)
        );
        assert_eq!(choose(&o, 200, json, b"", 1000, br), None); // under the threshold
        assert_eq!(choose(&o, 200, b"image/png", b"", 2000, br), None);
        assert_eq!(choose(&o, 200, b"text/event-stream", b"", 2000, br), None);
        assert_eq!(choose(&o, 200, json, b"", 2000, None), None); // no Accept-Encoding
        assert_eq!(choose(&o, 200, json, b"", 2000, Some(b"identity")), None);
        assert_eq!(choose(&o, 304, json, b"", 2000, br), None);
        assert_eq!(choose(&o, 206, json, b"", 2000, br), None);
        assert_eq!(choose(&o, 200, b"", b"", 2000, br), None);
        let set = b"Content-Encoding: gzip\r\n";
        assert_eq!(choose(&o, 200, json, set, 2000, br), None);
        let nt = b"X-A: 1\r\nCache-Control: public, No-Transform\r\n";
        assert_eq!(choose(&o, 200, json, nt, 2000, br), None);
        let gzip_only = CompressOptions { brotli: false, ..o };
        assert_eq!(
            choose(&gzip_only, 200, json, b"", 2000, br),
            Some(Encoding::Gzip)
        );
    }

    #[test]
    fn round_trips_and_headers() {
        let o = CompressOptions::default();
        let body = br#"{"items":[1,2,3,4,5,6,7,8,9,10],"#.repeat(100);
        let mut out = Vec::new();
        let mut gz = None;
        assert!(compress(&o, Encoding::Gzip, &body, &mut out, &mut gz));
        let mut back = Vec::new();
        flate2::read::GzDecoder::new(&out[..])
            .read_to_end(&mut back)
            .unwrap();
        assert_eq!(back, body);
        assert!(compress(&o, Encoding::Brotli, &body, &mut out, &mut gz));
        let mut back = Vec::new();
        brotli::Decompressor::new(&out[..], 4096)
            .read_to_end(&mut back)
            .unwrap();
        assert_eq!(back, body);
        // Incompressible bytes are not sent compressed.
        let mut x = 0x2545_f491_4f6c_dd1d_u64;
        let noise: Vec<u8> = (0..4000)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                (x >> 24) as u8
            })
            .collect();
        assert!(!compress(&o, Encoding::Gzip, &noise, &mut out, &mut gz));
        let mut lines = Vec::new();
        header_lines(Encoding::Brotli, b"ETag: \"abc\"\r\nX-A: 1\r\n", &mut lines);
        assert_eq!(
            lines,
            b"ETag: W/\"abc\"\r\nX-A: 1\r\nContent-Encoding: br\r\nVary: Accept-Encoding\r\n"
        );
        header_lines(Encoding::Gzip, b"etag: W/\"x\"\r\n", &mut lines);
        assert_eq!(
            lines,
            b"etag: W/\"x\"\r\nContent-Encoding: gzip\r\nVary: Accept-Encoding\r\n"
        );
    }

    #[test]
    fn every_gzip_level_round_trips_and_the_compressor_follows_the_level() {
        // Records that vary (a repeated one compresses alike at every level).
        let body: Vec<u8> = (0..200u32)
            .flat_map(|i| {
                format!(
                    r#"{{"id":{i},"name":"Widget {}","price":{},"tags":["t{}","u{}"]}},"#,
                    i * 7919 % 1000,
                    i * 31 % 977,
                    i % 13,
                    i * i % 17
                )
                .into_bytes()
            })
            .collect();
        let mut out = Vec::new();
        let mut gz = None;
        let mut sizes = Vec::new();
        for level in 0..=9 {
            let o = CompressOptions {
                gzip_level: level,
                ..CompressOptions::default()
            };
            let smaller = compress(&o, Encoding::Gzip, &body, &mut out, &mut gz);
            assert_eq!(gz.as_ref().map(|g| g.level), Some(level));
            // Level 0 stores: a gzip member bigger than the body, so it is not used.
            assert_eq!(smaller, level > 0, "level {level}");
            let mut back = Vec::new();
            flate2::read::GzDecoder::new(&out[..])
                .read_to_end(&mut back)
                .unwrap();
            assert_eq!(back, body, "level {level}");
            sizes.push(out.len());
        }
        assert!(
            sizes[9] < sizes[1],
            "level 9 ({}) smaller than 1 ({})",
            sizes[9],
            sizes[1]
        );
        // Out of range is capped at 9, as `CompressOptions::gzip_level` says.
        let o = CompressOptions {
            gzip_level: 12,
            ..CompressOptions::default()
        };
        assert!(compress(&o, Encoding::Gzip, &body, &mut out, &mut gz));
        assert_eq!(out.len(), sizes[9]);
    }
}
