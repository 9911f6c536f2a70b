//! The PROXY protocol (HAProxy's, versions 1 and 2): the header a load balancer sends before the
//! client's bytes to say whose connection it is. Parsed strictly, because whoever can forge it
//! chooses the client address the app sees; only used when the server is told it sits behind one.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};

use crate::error::{Error, Kind};

/// The 12-byte signature that starts a version 2 header.
pub const V2_SIGNATURE: &[u8; 12] = b"\r\n\r\n\0\r\nQUIT\n";
/// A version 1 header is at most 107 bytes, CRLF included.
const V1_MAX: usize = 107;
/// Largest version 2 address block accepted (addresses plus TLVs); HAProxy's own headers stay
/// far below this, and a bigger one is more likely an attack than a proxy.
const V2_MAX_BLOCK: usize = 2048;

/// What a PROXY header says about the connection.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ProxyAddrs {
    /// A proxied TCP connection: the client's address and the address it connected to.
    Tcp {
        /// The client (what `req.ip` should report).
        source: SocketAddr,
        /// The address the client connected to on the proxy.
        destination: SocketAddr,
    },
    /// The proxy speaks for itself (v2 `LOCAL`, e.g. health checks) or the family is not TCP
    /// (v1 `UNKNOWN`, v2 `UNSPEC`/UNIX/UDP): keep the connection's own address.
    Local,
}

/// Parses a PROXY protocol header (v1 or v2) at the start of `buf`. `Ok(None)`: more bytes are
/// needed. `Ok(Some((addrs, len)))`: the header was `len` bytes; the client's data follows.
///
/// ```
/// use gale_http::{parse_proxy_header, ProxyAddrs};
/// let buf = b"PROXY TCP4 192.0.2.7 203.0.113.1 56324 443\r\nGET / HTTP/1.1\r\n";
/// let (addrs, len) = parse_proxy_header(buf).unwrap().unwrap();
/// assert_eq!(&buf[len..len + 3], b"GET");
/// let ProxyAddrs::Tcp { source, .. } = addrs else { panic!() };
/// assert_eq!(source.to_string(), "192.0.2.7:56324");
/// assert!(parse_proxy_header(b"PROXY TCP4 192.0").unwrap().is_none()); // incomplete
/// assert!(parse_proxy_header(b"GET / HTTP/1.1\r\n").is_err()); // no header
/// ```
pub fn parse_proxy_header(buf: &[u8]) -> Result<Option<(ProxyAddrs, usize)>, Error> {
    let n = buf.len().min(V2_SIGNATURE.len());
    if buf[..n] == V2_SIGNATURE[..n] {
        return if n < V2_SIGNATURE.len() {
            Ok(None)
        } else {
            parse_v2(buf)
        };
    }
    let n = buf.len().min(6);
    if buf[..n] == b"PROXY "[..n] {
        return if n < 6 { Ok(None) } else { parse_v1(buf) };
    }
    Err(bad())
}

/// Whether `buf` starts like a PROXY header (for a clear answer when the server does not expect one).
pub fn looks_like_proxy_header(buf: &[u8]) -> bool {
    buf.starts_with(b"PROXY ") || buf.starts_with(&V2_SIGNATURE[..8])
}

fn bad() -> Error {
    Error::new(Kind::BadProxyHeader)
}

fn parse_v1(buf: &[u8]) -> Result<Option<(ProxyAddrs, usize)>, Error> {
    let window = &buf[..buf.len().min(V1_MAX)];
    let Some(cr) = window.iter().position(|&b| b == b'\r') else {
        return if buf.len() >= V1_MAX || window.contains(&b'\n') {
            Err(bad())
        } else {
            Ok(None)
        };
    };
    match buf.get(cr + 1) {
        None => return Ok(None),
        Some(b'\n') => {}
        Some(_) => return Err(bad()),
    }
    let line = std::str::from_utf8(&buf[6..cr]).map_err(|_| bad())?;
    let mut parts = line.split(' ');
    let proto = parts.next().ok_or_else(bad)?;
    if proto == "UNKNOWN" {
        // The rest of the line is to be ignored (the spec), but it must still be printable.
        if line.bytes().any(|b| !(0x20..0x7f).contains(&b)) {
            return Err(bad());
        }
        return Ok(Some((ProxyAddrs::Local, cr + 2)));
    }
    let v6 = match proto {
        "TCP4" => false,
        "TCP6" => true,
        _ => return Err(bad()),
    };
    let fields: Vec<&str> = parts.collect();
    let [src, dst, sport, dport] = fields[..] else {
        return Err(bad());
    };
    let ip = |s: &str| -> Result<IpAddr, Error> {
        if v6 {
            s.parse::<Ipv6Addr>().map(IpAddr::V6).map_err(|_| bad())
        } else {
            s.parse::<Ipv4Addr>().map(IpAddr::V4).map_err(|_| bad())
        }
    };
    let port = |s: &str| -> Result<u16, Error> {
        // Decimal without a sign or leading zeros ("0" itself is allowed).
        if s.is_empty() || s.len() > 5 || (s.len() > 1 && s.starts_with('0')) {
            return Err(bad());
        }
        if !s.bytes().all(|b| b.is_ascii_digit()) {
            return Err(bad());
        }
        s.parse::<u16>().map_err(|_| bad())
    };
    let addrs = ProxyAddrs::Tcp {
        source: SocketAddr::new(ip(src)?, port(sport)?),
        destination: SocketAddr::new(ip(dst)?, port(dport)?),
    };
    Ok(Some((addrs, cr + 2)))
}

fn parse_v2(buf: &[u8]) -> Result<Option<(ProxyAddrs, usize)>, Error> {
    if buf.len() < 16 {
        return Ok(None);
    }
    let ver_cmd = buf[12];
    let fam = buf[13];
    let len = usize::from(u16::from_be_bytes([buf[14], buf[15]]));
    if ver_cmd >> 4 != 2 || len > V2_MAX_BLOCK {
        return Err(bad());
    }
    let command = ver_cmd & 0x0f;
    if command > 1 {
        return Err(bad());
    }
    if buf.len() < 16 + len {
        return Ok(None);
    }
    let block = &buf[16..16 + len];
    let total = 16 + len;
    if command == 0 {
        // LOCAL: the proxy's own connection (health checks); addresses, if any, are ignored.
        return Ok(Some((ProxyAddrs::Local, total)));
    }
    let (family, transport) = (fam >> 4, fam & 0x0f);
    if family > 3 || transport > 2 {
        return Err(bad());
    }
    let addrs = match (family, transport) {
        (1, 1) => {
            let a = block.get(..12).ok_or_else(bad)?;
            let ip4 = |o: usize| Ipv4Addr::new(a[o], a[o + 1], a[o + 2], a[o + 3]);
            let port = |o: usize| u16::from_be_bytes([a[o], a[o + 1]]);
            ProxyAddrs::Tcp {
                source: SocketAddr::new(IpAddr::V4(ip4(0)), port(8)),
                destination: SocketAddr::new(IpAddr::V4(ip4(4)), port(10)),
            }
        }
        (2, 1) => {
            let a = block.get(..36).ok_or_else(bad)?;
            let ip6 = |o: usize| {
                let mut b = [0u8; 16];
                b.copy_from_slice(&a[o..o + 16]);
                Ipv6Addr::from(b)
            };
            let port = |o: usize| u16::from_be_bytes([a[o], a[o + 1]]);
            ProxyAddrs::Tcp {
                source: SocketAddr::new(IpAddr::V6(ip6(0)), port(32)),
                destination: SocketAddr::new(IpAddr::V6(ip6(16)), port(34)),
            }
        }
        // UNSPEC, UNIX sockets and datagrams: no TCP client address to report.
        _ => ProxyAddrs::Local,
    };
    Ok(Some((addrs, total)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v2(cmd: u8, fam: u8, block: &[u8]) -> Vec<u8> {
        let mut out = V2_SIGNATURE.to_vec();
        out.push(0x20 | cmd);
        out.push(fam);
        out.extend_from_slice(&(block.len() as u16).to_be_bytes());
        out.extend_from_slice(block);
        out
    }

    fn tcp(src: &str, dst: &str) -> ProxyAddrs {
        ProxyAddrs::Tcp {
            source: src.parse().unwrap(),
            destination: dst.parse().unwrap(),
        }
    }

    #[test]
    fn v1_headers() {
        let ok: &[(&[u8], ProxyAddrs)] = &[
            (
                b"PROXY TCP4 1.2.3.4 5.6.7.8 1 65535\r\n",
                tcp("1.2.3.4:1", "5.6.7.8:65535"),
            ),
            (
                b"PROXY TCP6 ::1 2001:db8::2 0 80\r\n",
                tcp("[::1]:0", "[2001:db8::2]:80"),
            ),
            (b"PROXY UNKNOWN\r\n", ProxyAddrs::Local),
            (
                b"PROXY UNKNOWN ffff:f...f:ffff 1.2.3.4 65535 65535\r\n",
                ProxyAddrs::Local,
            ),
        ];
        for (input, want) in ok {
            let mut with_data = input.to_vec();
            with_data.extend_from_slice(b"GET / HTTP/1.1\r\n");
            let (got, len) = parse_proxy_header(&with_data).unwrap().unwrap();
            assert_eq!(
                (got, len),
                (*want, input.len()),
                "{:?}",
                String::from_utf8_lossy(input)
            );
            // Every prefix is "incomplete", never an error.
            for cut in 0..input.len() {
                assert_eq!(parse_proxy_header(&input[..cut]), Ok(None), "cut {cut}");
            }
        }
        let bad_lines: &[&[u8]] = &[
            b"PROXY TCP4 1.2.3.4 5.6.7.8 1 2\n",
            b"PROXY TCP4 1.2.3.4 5.6.7.8 1 2\rX",
            b"PROXY TCP4 1.2.3.4 5.6.7.8 01 2\r\n",
            b"PROXY TCP4 1.2.3.4 5.6.7.8 -1 2\r\n",
            b"PROXY TCP4 1.2.3.4 5.6.7.8 1 65536\r\n",
            b"PROXY TCP4 1.2.3.4 5.6.7.8 1\r\n",
            b"PROXY TCP4 1.2.3.4 5.6.7.8 1 2 3\r\n",
            b"PROXY TCP4 1.2.3.4  5.6.7.8 1 2\r\n",
            b"PROXY TCP4 ::1 5.6.7.8 1 2\r\n",
            b"PROXY TCP6 1.2.3.4 ::1 1 2\r\n",
            b"PROXY TCP4 1.2.3.256 5.6.7.8 1 2\r\n",
            b"PROXY UDP4 1.2.3.4 5.6.7.8 1 2\r\n",
            b"PROXY tcp4 1.2.3.4 5.6.7.8 1 2\r\n",
            b"PROXY UNKNOWN \x01\r\n",
            b"GET / HTTP/1.1\r\n",
            b"PROXYTCP4\r\n",
        ];
        for input in bad_lines {
            assert!(
                parse_proxy_header(input).is_err(),
                "{:?}",
                String::from_utf8_lossy(input)
            );
        }
        // No CRLF within 107 bytes.
        let long = [b"PROXY UNKNOWN ".as_slice(), &[b'a'; 200]].concat();
        assert!(parse_proxy_header(&long).is_err());
        assert_eq!(parse_proxy_header(&long[..100]), Ok(None));
    }

    #[test]
    fn v2_headers() {
        let mut v4 = vec![192, 0, 2, 7, 203, 0, 113, 1];
        v4.extend_from_slice(&56324u16.to_be_bytes());
        v4.extend_from_slice(&443u16.to_be_bytes());
        let mut v4_tlv = v4.clone();
        v4_tlv.extend_from_slice(&[0x04, 0x00, 0x02, b'h', b'2']); // a TLV, skipped
        let mut v6 = [0u8; 36];
        v6[15] = 1; // ::1
        v6[16] = 0x20;
        v6[17] = 0x01;
        v6[31] = 2; // 2001::2
        v6[32..34].copy_from_slice(&8080u16.to_be_bytes());
        v6[34..36].copy_from_slice(&80u16.to_be_bytes());
        let ok: Vec<(Vec<u8>, ProxyAddrs)> = vec![
            (v2(1, 0x11, &v4), tcp("192.0.2.7:56324", "203.0.113.1:443")),
            (
                v2(1, 0x11, &v4_tlv),
                tcp("192.0.2.7:56324", "203.0.113.1:443"),
            ),
            (v2(1, 0x21, &v6), tcp("[::1]:8080", "[2001::2]:80")),
            (v2(0, 0x00, &[]), ProxyAddrs::Local),
            (v2(0, 0x11, &v4), ProxyAddrs::Local),
            (v2(1, 0x00, &[]), ProxyAddrs::Local),
            (v2(1, 0x12, &v4), ProxyAddrs::Local),       // UDP
            (v2(1, 0x31, &[0; 216]), ProxyAddrs::Local), // UNIX
        ];
        for (input, want) in &ok {
            let mut with_data = input.clone();
            with_data.extend_from_slice(b"GET");
            assert_eq!(
                parse_proxy_header(&with_data),
                Ok(Some((*want, input.len())))
            );
            for cut in 0..input.len() {
                assert_eq!(parse_proxy_header(&input[..cut]), Ok(None), "cut {cut}");
            }
        }
        let mut bad_version = v2(1, 0x11, &v4);
        bad_version[12] = 0x11;
        let bad: Vec<Vec<u8>> = vec![
            bad_version,
            v2(2, 0x11, &v4),          // unknown command
            v2(1, 0x11, &v4[..8]),     // block too short for INET
            v2(1, 0x21, &v4),          // block too short for INET6
            v2(1, 0x41, &v4),          // unknown family
            v2(1, 0x13, &v4),          // unknown transport
            v2(1, 0x11, &[0u8; 3000]), // block over the cap
        ];
        for input in &bad {
            assert!(parse_proxy_header(input).is_err(), "{input:?}");
        }
    }

    #[test]
    fn recognises_a_header_it_does_not_expect() {
        assert!(looks_like_proxy_header(b"PROXY TCP4 1.2.3.4"));
        assert!(looks_like_proxy_header(&v2(1, 0x11, &[0; 12])));
        assert!(!looks_like_proxy_header(b"GET / HTTP/1.1\r\n"));
        assert!(!looks_like_proxy_header(b"\r\n\r\nGET"));
    }
}
