//! A minimal WebSocket client for the echo, fastws and broadcast modes, where the generator must cost much less per
//! message than the server: a hand-written handshake (checked: 101, Sec-WebSocket-Accept, the subprotocol), masked
//! frames built once, and an incremental parser over a per-connection buffer that hands out each frame's payload
//! without copying it, allocating or re-validating UTF-8 (the caller compares it byte for byte with what it expects).

use tokio::io::Interest;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio_tungstenite::tungstenite::handshake::derive_accept_key;

use crate::cli::{Args, Over};
use crate::stats::Kind;

/// The mask of the frames this client sends (a fixed key: servers must unmask whatever it is).
pub const MASK: [u8; 4] = [0x5a, 0x1e, 0x77, 0x03];

/// A frame from the server, borrowing its payload from the read buffer.
#[derive(Debug, PartialEq)]
pub enum Frame<'a> {
    Text(&'a [u8]),
    Binary(&'a [u8]),
    Ping(&'a [u8]),
    Pong,
    Close(Option<u16>),
}

/// Parses one frame at the start of `buf`: Ok(None) when it is not complete yet, Ok(Some((frame, bytes used))), or
/// why the bytes are not an acceptable server frame (masked, reserved bits, fragmented: the broadcast messages are
/// small and no extension is negotiated, so a server has no reason to send those).
pub fn parse(buf: &[u8]) -> Result<Option<(Frame<'_>, usize)>, String> {
    let [b0, b1, ..] = *buf else { return Ok(None) };
    if b0 & 0x70 != 0 {
        return Err(format!(
            "frame with reserved bits set (first byte {b0:#04x})"
        ));
    }
    if b1 & 0x80 != 0 {
        return Err("masked frame from the server".into());
    }
    let (len, head) = match b1 & 0x7f {
        126 => match buf.get(2..4) {
            Some(l) => (u64::from(u16::from_be_bytes([l[0], l[1]])), 4),
            None => return Ok(None),
        },
        127 => match buf.get(2..10) {
            Some(l) => (u64::from_be_bytes(l.try_into().expect("8 bytes")), 10),
            None => return Ok(None),
        },
        n => (u64::from(n), 2),
    };
    let len = usize::try_from(len).map_err(|_| "frame too long".to_string())?;
    let Some(payload) = buf.get(head..head + len) else {
        return Ok(None);
    };
    if b0 & 0x80 == 0 || b0 & 0x0f == 0 {
        return Err("fragmented message (not expected for these small messages)".into());
    }
    let frame = match b0 & 0x0f {
        1 => Frame::Text(payload),
        2 => Frame::Binary(payload),
        8 => Frame::Close((len >= 2).then(|| u16::from_be_bytes([payload[0], payload[1]]))),
        9 => Frame::Ping(payload),
        10 => Frame::Pong,
        op => return Err(format!("frame with reserved opcode {op}")),
    };
    Ok(Some((frame, head + len)))
}

/// A masked client frame (`opcode` 1 = text, 10 = pong) carrying `payload`.
pub fn client_frame(opcode: u8, payload: &[u8], mask: [u8; 4]) -> Vec<u8> {
    let mut out = Vec::with_capacity(payload.len() + 14);
    client_frame_into(&mut out, opcode, payload, mask);
    out
}

/// [`client_frame`] appended to `out`, so frames written together share one buffer (and one write).
pub fn client_frame_into(out: &mut Vec<u8>, opcode: u8, payload: &[u8], mask: [u8; 4]) {
    out.push(0x80 | opcode);
    match payload.len() {
        n @ 0..=125 => out.push(0x80 | n as u8),
        n @ 126..=0xffff => {
            out.push(0x80 | 126);
            out.extend_from_slice(&(n as u16).to_be_bytes());
        }
        n => {
            out.push(0x80 | 127);
            out.extend_from_slice(&(n as u64).to_be_bytes());
        }
    }
    out.extend_from_slice(&mask);
    let start = out.len();
    out.extend_from_slice(payload);
    let key = u32::from_ne_bytes(mask);
    let mut words = out[start..].chunks_exact_mut(4);
    for w in &mut words {
        let x = u32::from_ne_bytes([w[0], w[1], w[2], w[3]]) ^ key;
        w.copy_from_slice(&x.to_ne_bytes());
    }
    for (b, m) in words.into_remainder().iter_mut().zip(mask) {
        *b ^= m;
    }
}

/// A data frame handed out by [`RawConn::next`], borrowing the connection's buffer.
#[derive(Debug)]
pub enum Data<'a> {
    Text(&'a [u8]),
    Binary(&'a [u8]),
}

/// What a connection's WebSocket rides on.
enum Io {
    /// Its own TCP connection, upgraded from HTTP/1.1.
    Tcp(TcpStream),
    /// A stream of an HTTP/2 connection (`--over h2c`, h2.rs).
    H2(crate::h2::Stream),
}

/// One client connection: the stream and the bytes read but not yet consumed.
pub struct RawConn {
    io: Io,
    buf: Vec<u8>,
    /// Bytes of `buf` taken by the frame handed out last (dropped on the next call).
    used: usize,
}

impl RawConn {
    /// TCP connect + handshake (asking for `protocol`, which the server must then select).
    /// Over HTTP/2 (`--over h2c`): the extended CONNECT instead, on `shared`'s connection when given (`--streams`).
    pub async fn open(
        a: &Args,
        protocol: Option<&str>,
        shared: Option<&crate::h2::Shared>,
    ) -> Result<RawConn, String> {
        let (io, buf) = match a.over {
            Over::Http1 => {
                let (tcp, buf) = connect_with(a, protocol).await?;
                (Io::Tcp(tcp), buf)
            }
            Over::H2c => (
                Io::H2(crate::h2::connect(a, protocol, shared).await?),
                Vec::with_capacity(4096),
            ),
        };
        Ok(RawConn { io, buf, used: 0 })
    }

    pub async fn send(&mut self, frame: &[u8]) -> Result<(), String> {
        match &mut self.io {
            Io::Tcp(tcp) => tcp
                .write_all(frame)
                .await
                .map_err(|e| format!("write: {e}")),
            Io::H2(s) => s.send(frame),
        }
    }

    /// Whether a whole frame after the one handed out last is already buffered, so [`RawConn::next`] will return
    /// without reading: a caller that answers frames can hold its writes until then and send them in one.
    pub fn buffered(&self) -> bool {
        !matches!(parse(&self.buf[self.used..]), Ok(None))
    }

    /// The stream and the bytes read but not consumed yet (for a caller that splits it into a reader and a writer).
    pub fn into_parts(mut self) -> (TcpStream, Vec<u8>) {
        self.buf.drain(..self.used);
        match self.io {
            Io::Tcp(tcp) => (tcp, self.buf),
            Io::H2(_) => {
                unreachable!("--over h2c is refused for the modes that split a connection (cli.rs)")
            }
        }
    }

    /// The next data frame (pings are answered, pongs skipped), or why there is none: the server closed (Closed),
    /// a read failed (Read) or the bytes are not a frame this client accepts (Invalid).
    /// Reads what the socket has. A short read means the receive queue is empty, so readiness is
    /// cleared right away: the next wait goes to epoll instead of a read that would fail with EAGAIN
    /// (one syscall less per message; edge-triggered epoll reports any later data anew).
    async fn fill(&mut self) -> Result<(), (Kind, String)> {
        let tcp = match &mut self.io {
            Io::Tcp(tcp) => tcp,
            Io::H2(s) => {
                return match s.fill(&mut self.buf).await {
                    Ok(true) => Ok(()),
                    Ok(false) => Err((Kind::Closed, "stream ended by the server".into())),
                    Err(e) => Err((Kind::Read, e)),
                }
            }
        };
        loop {
            tcp.readable()
                .await
                .map_err(|e| (Kind::Read, format!("read: {e}")))?;
            let spare = self.buf.capacity() - self.buf.len();
            match tcp.try_read_buf(&mut self.buf) {
                Ok(0) => return Err((Kind::Closed, "connection closed by the server".into())),
                Ok(n) => {
                    if n < spare {
                        let _ = tcp.try_io(Interest::READABLE, || {
                            Err::<(), _>(std::io::ErrorKind::WouldBlock.into())
                        });
                    }
                    return Ok(());
                }
                Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => continue,
                Err(e) => return Err((Kind::Read, format!("read: {e}"))),
            }
        }
    }

    pub async fn next(&mut self) -> Result<Data<'_>, (Kind, String)> {
        loop {
            self.buf.drain(..self.used);
            self.used = 0;
            let step = match parse(&self.buf) {
                Err(why) => return Err((Kind::Invalid, why)),
                Ok(None) => None,
                Ok(Some((Frame::Text(_) | Frame::Binary(_), n))) => {
                    self.used = n;
                    break;
                }
                Ok(Some((Frame::Ping(p), n))) => Some((Some(client_frame(10, p, MASK)), n)),
                Ok(Some((Frame::Pong, n))) => Some((None, n)),
                Ok(Some((Frame::Close(code), _))) => {
                    return Err((
                        Kind::Closed,
                        format!("close frame from the server (code {code:?})"),
                    ))
                }
            };
            match step {
                Some((pong, n)) => {
                    self.used = n;
                    if let Some(pong) = pong {
                        self.send(&pong).await.map_err(|e| (Kind::Read, e))?;
                    }
                }
                None => {
                    if self.buf.capacity() - self.buf.len() < 4096 {
                        self.buf.reserve(16 * 1024);
                    }
                    self.fill().await?;
                }
            }
        }
        match parse(&self.buf[..self.used]) {
            Ok(Some((Frame::Text(t), _))) => Ok(Data::Text(t)),
            Ok(Some((Frame::Binary(b), _))) => Ok(Data::Binary(b)),
            _ => unreachable!("the frame was parsed above"),
        }
    }

    /// Sends a close frame (1000) and waits up to a second for the server's close or EOF.
    pub async fn close(mut self) {
        let frame = client_frame(8, &1000u16.to_be_bytes(), MASK);
        let _ = tokio::time::timeout(std::time::Duration::from_secs(1), async {
            if self.send(&frame).await.is_ok() {
                while self.next().await.is_ok() {}
            }
        })
        .await;
    }
}

/// Connects and upgrades; returns the stream and any bytes the server sent after its 101 head.
pub async fn connect(a: &Args) -> Result<(TcpStream, Vec<u8>), String> {
    connect_with(a, None).await
}

async fn connect_with(a: &Args, protocol: Option<&str>) -> Result<(TcpStream, Vec<u8>), String> {
    let mut tcp = TcpStream::connect(a.addr)
        .await
        .map_err(|e| format!("connect: {e}"))?;
    let _ = tcp.set_nodelay(true);
    let rest = a.url.strip_prefix("ws://").unwrap_or(&a.url);
    let (host, path) = rest.split_at(rest.find('/').unwrap_or(rest.len()));
    let path = if path.is_empty() { "/" } else { path };
    let key = tokio_tungstenite::tungstenite::handshake::client::generate_key();
    let proto = protocol.map_or(String::new(), |p| {
        format!("Sec-WebSocket-Protocol: {p}\r\n")
    });
    let req = format!(
        "GET {path} HTTP/1.1\r\nHost: {host}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\
         Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n{proto}\r\n"
    );
    tcp.write_all(req.as_bytes())
        .await
        .map_err(|e| format!("handshake: write: {e}"))?;
    let mut buf = Vec::with_capacity(1024);
    loop {
        if buf.len() > 16 * 1024 {
            return Err("handshake: response head longer than 16 KiB".into());
        }
        let n = tcp
            .read_buf(&mut buf)
            .await
            .map_err(|e| format!("handshake: read: {e}"))?;
        if n == 0 {
            return Err("handshake: connection closed before the response".into());
        }
        let mut headers = [httparse::EMPTY_HEADER; 32];
        let mut res = httparse::Response::new(&mut headers);
        let head = match res.parse(&buf) {
            Ok(httparse::Status::Complete(n)) => n,
            Ok(httparse::Status::Partial) => continue,
            Err(e) => return Err(format!("handshake: bad response: {e}")),
        };
        if res.code != Some(101) {
            let status = res
                .code
                .map_or_else(|| "none".to_string(), |c| c.to_string());
            return Err(format!("handshake: status {status}, not 101"));
        }
        let accept = res
            .headers
            .iter()
            .find(|h| h.name.eq_ignore_ascii_case("sec-websocket-accept"))
            .map(|h| h.value);
        if accept != Some(derive_accept_key(key.as_bytes()).as_bytes()) {
            return Err("handshake: wrong or missing Sec-WebSocket-Accept".into());
        }
        let selected = res
            .headers
            .iter()
            .find(|h| h.name.eq_ignore_ascii_case("sec-websocket-protocol"))
            .map(|h| h.value);
        if selected != protocol.map(str::as_bytes) {
            return Err(format!(
                "handshake: the server selected the subprotocol {:?}, asked for {protocol:?}",
                selected.map(String::from_utf8_lossy)
            ));
        }
        return Ok((tcp, buf.split_off(head)));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_frames_whole_and_in_pieces() {
        let mut wire = vec![0x81, 3, b'a', b'b', b'c', 0x89, 1, b'p', 0x8a, 0];
        wire.extend([0x81, 126, 0x01, 0x00]);
        wire.extend(vec![b'x'; 256]);
        wire.extend([0x88, 2, 0x03, 0xe8]);
        let mut off = 0;
        let mut seen = Vec::new();
        while let Some((f, n)) = parse(&wire[off..]).expect("valid") {
            seen.push(format!("{f:?}").chars().take(12).collect::<String>());
            off += n;
        }
        assert_eq!(off, wire.len());
        assert_eq!(seen.len(), 5);
        assert_eq!(
            parse(&wire[..4]).expect("valid"),
            None,
            "a partial frame waits"
        );
        assert_eq!(
            parse(&wire[10..13]).expect("valid"),
            None,
            "a partial 16-bit length waits"
        );
        assert_eq!(
            parse(&[0x88, 2, 0x03, 0xe8]).expect("valid"),
            Some((Frame::Close(Some(1000)), 4))
        );
        assert!(parse(&[0x81, 0x83, 0, 0, 0, 0]).is_err(), "masked");
        assert!(parse(&[0xc1, 0]).is_err(), "RSV1 without an extension");
        assert!(parse(&[0x01, 0]).is_err(), "fragmented");
        assert!(parse(&[0x83, 0]).is_err(), "reserved opcode");
    }

    #[test]
    fn client_frames_are_masked() {
        let f = client_frame(1, b"hi", [1, 2, 3, 4]);
        assert_eq!(f, vec![0x81, 0x82, 1, 2, 3, 4, b'h' ^ 1, b'i' ^ 2]);
        let long = client_frame(1, &[7; 301], MASK);
        assert_eq!(&long[..4], &[0x81, 0x80 | 126, 0x01, 0x2d]);
        let unmasked: Vec<u8> = long[8..]
            .iter()
            .enumerate()
            .map(|(i, b)| b ^ MASK[i % 4])
            .collect();
        assert_eq!(unmasked, vec![7; 301]);
    }
}
