//! The QUIC fuzzer's sessions: raw datagrams at the server's UDP port, a real client through a relay that drops,
//! duplicates, delays, cuts and corrupts datagrams, and a real QUIC connection carrying generated HTTP/3 streams.

use std::cell::RefCell;
use std::net::SocketAddr;
use std::rc::Rc;
use std::time::Duration;

use bytes::{Buf, Bytes};
use tokio::net::UdpSocket;
use tokio::time::timeout;

use super::gen::{datagram, field_section, frame, mutate, odd_number, varint, Rng};

pub struct Target {
    pub addr: SocketAddr,
    pub server_name: String,
    pub client: quinn::ClientConfig,
    /// Client datagrams seen through the relay, replayed (mutated or not) by raw sessions.
    pub captured: RefCell<Vec<Vec<u8>>>,
}

#[derive(Default, Debug, Clone, Copy)]
pub struct Counts {
    pub datagrams: u64,
    pub bytes: u64,
    pub streams: u64,
    /// Request streams that got a response (HEADERS at least) back: generated requests that reached the app.
    pub answered: u64,
}

fn endpoint(t: &Target) -> Option<quinn::Endpoint> {
    let mut e = quinn::Endpoint::client("127.0.0.1:0".parse().ok()?).ok()?;
    e.set_default_client_config(t.client.clone());
    Some(e)
}

/// Datagrams from a fresh socket: generated QUIC headers, random bytes, and captured client datagrams replayed
/// whole (a valid Initial from a new address) or mutated.
pub async fn raw(t: &Target, r: &mut Rng, c: &mut Counts) {
    let Ok(sock) = UdpSocket::bind("127.0.0.1:0").await else {
        return;
    };
    for _ in 0..1 + r.below(20) {
        let replay = {
            let captured = t.captured.borrow();
            (!captured.is_empty()).then(|| r.pick(&captured))
        };
        let mut d = match (r.below(4), replay) {
            (0, _) => {
                let n = r.below(1500) as usize;
                r.bytes(n)
            }
            (1, Some(d)) => d,
            _ => datagram(r),
        };
        if r.chance(50) {
            let n = 1 + r.below(4);
            mutate(r, &mut d, n);
        }
        if sock.send_to(&d, t.addr).await.is_ok() {
            c.datagrams += 1;
            c.bytes += d.len() as u64;
        }
    }
    // Reads what comes back (Version Negotiation, Retry, Initial, stateless reset) for a moment.
    let mut buf = [0u8; 2048];
    let _ = timeout(Duration::from_millis(20), sock.recv_from(&mut buf)).await;
}

/// What the relay does to the datagrams of one session, in percent.
struct Weather {
    drop: u64,
    dup: u64,
    delay: u64,
    cut: u64,
    flip: u64,
}

/// A real HTTP/3 client (quinn + h3) through a relay that mistreats datagrams both ways.
pub async fn relay(t: &Target, r: &mut Rng, c: &mut Counts) {
    let Ok(front) = UdpSocket::bind("127.0.0.1:0").await else {
        return;
    };
    let Ok(back) = UdpSocket::bind("127.0.0.1:0").await else {
        return;
    };
    if back.connect(t.addr).await.is_err() {
        return;
    }
    let Ok(front_addr) = front.local_addr() else {
        return;
    };
    let w = Weather {
        drop: r.below(30),
        dup: r.below(10),
        delay: r.below(20),
        cut: r.below(5),
        flip: r.below(5),
    };
    let seed = r.u64();
    let (front, back) = (Rc::new(front), Rc::new(back));
    let captured = RefCell::new(Vec::new());
    let relay = async {
        let mut r = Rng::new(seed);
        let mut client: Option<SocketAddr> = None;
        let (mut a, mut b) = ([0u8; 2048], [0u8; 2048]);
        loop {
            // (datagram, towards the server?)
            let (d, up) = tokio::select! {
                x = front.recv_from(&mut a) => match x { Ok((n, from)) => { client = Some(from); (a[..n].to_vec(), true) } Err(_) => return },
                x = back.recv(&mut b) => match x { Ok(n) => (b[..n].to_vec(), false), Err(_) => return },
            };
            if up && captured.borrow().len() < 4 {
                captured.borrow_mut().push(d.clone());
            }
            let mut d = d;
            if r.chance(w.drop) {
                continue;
            }
            if r.chance(w.cut) && d.len() > 1 {
                d.truncate(r.below(d.len() as u64) as usize);
            }
            if r.chance(w.flip) {
                mutate(&mut r, &mut d, 1);
            }
            let copies = if r.chance(w.dup) { 2 } else { 1 };
            let delay = if r.chance(w.delay) { r.below(80) } else { 0 };
            let (front, back) = (front.clone(), back.clone());
            let to = client;
            tokio::task::spawn_local(async move {
                if delay > 0 {
                    tokio::time::sleep(Duration::from_millis(delay)).await;
                }
                for _ in 0..copies {
                    let _ = if up {
                        back.send(&d).await
                    } else if let Some(to) = to {
                        front.send_to(&d, to).await
                    } else {
                        Ok(0)
                    };
                }
            });
        }
    };
    let client = async {
        let Some(e) = endpoint(t) else { return };
        let Ok(connecting) = e.connect(front_addr, &t.server_name) else {
            return;
        };
        let Ok(conn) = connecting.await else { return };
        let Ok((mut driver, mut send)) = h3::client::new(h3_quinn::Connection::new(conn)).await
        else {
            return;
        };
        tokio::task::spawn_local(async move {
            std::future::poll_fn(|cx| driver.poll_close(cx)).await;
        });
        for i in 0..1 + r.below(6) {
            let post = i % 2 == 1;
            let Ok(req) = http::Request::builder()
                .method(if post { "POST" } else { "GET" })
                .uri(format!(
                    "https://a.test/{}",
                    if post { "echo" } else { "json" }
                ))
                .body(())
            else {
                return;
            };
            let Ok(mut s) = send.send_request(req).await else {
                return;
            };
            c.streams += 1;
            if post {
                let n = r.below(40_000) as usize;
                let body = Bytes::from(r.bytes(n));
                let _ = s.send_data(body).await;
            }
            let _ = s.finish().await;
            if s.recv_response().await.is_err() {
                return;
            }
            c.answered += 1;
            while let Ok(Some(mut chunk)) = s.recv_data().await {
                chunk.advance(chunk.remaining());
            }
        }
        e.close(0u32.into(), b"");
    };
    tokio::select! {
        _ = relay => {}
        _ = timeout(Duration::from_secs(4), client) => {}
    }
    let mut caught = captured.into_inner();
    if !caught.is_empty() {
        let mut keep = t.captured.borrow_mut();
        if keep.len() >= 64 {
            keep.remove(0);
        }
        keep.push(caught.swap_remove(0));
    }
}

/// A real QUIC connection (ALPN h3) carrying generated HTTP/3: control, QPACK and unknown unidirectional streams
/// with valid and broken frames, and request streams with mutated field sections, DATA, frames that do not belong
/// there, lying lengths, resets and stops.
pub async fn frames(t: &Target, r: &mut Rng, c: &mut Counts) {
    let Some(e) = endpoint(t) else { return };
    let Ok(connecting) = e.connect(t.addr, &t.server_name) else {
        return;
    };
    let Ok(Ok(conn)) = timeout(Duration::from_secs(2), connecting).await else {
        return;
    };
    let work = async {
        // Unidirectional streams: control (SETTINGS first, or not), QPACK encoder/decoder, push, unknown.
        for _ in 0..r.below(4) {
            let Ok(mut s) = conn.open_uni().await else {
                return;
            };
            c.streams += 1;
            let mut out = Vec::new();
            let ty: u64 = r.pick(&[0x00, 0x00, 0x02, 0x03, 0x01, 0x21, 0x1f * 7 + 0x21]);
            let ty = if r.chance(10) { odd_number(r) } else { ty };
            varint(&mut out, ty);
            if ty == 0x00 && !r.chance(10) {
                let mut settings = Vec::new();
                for _ in 0..r.below(5) {
                    let any = odd_number(r);
                    let id = r.pick(&[0x01, 0x06, 0x07, 0x08, 0x33, 0x02, any]);
                    varint(&mut settings, id);
                    let value = odd_number(r);
                    varint(&mut settings, value);
                }
                frame(&mut out, 0x04, &settings);
            }
            for _ in 0..r.below(3) {
                let any = odd_number(r);
                let ty = r.pick(&[0x04, 0x07, 0x0d, 0x03, 0x01, 0x00, 0x21, any]);
                let mut p = Vec::new();
                let value = odd_number(r);
                varint(&mut p, value);
                frame(&mut out, ty, &p);
            }
            if ty == 0x02 || ty == 0x03 {
                let n = r.below(64) as usize;
                let instructions = r.bytes(n);
                out.extend(instructions);
            }
            if r.chance(20) {
                let n = 1 + r.below(3);
                mutate(r, &mut out, n);
            }
            let _ = s.write_all(&out).await;
            if r.chance(30) {
                let _ = s.reset(quinn::VarInt::from_u32(r.below(0x400) as u32));
            } else if r.chance(50) {
                let _ = s.finish();
            }
            c.bytes += out.len() as u64;
        }
        // Request streams.
        for _ in 0..1 + r.below(8) {
            let Ok((mut send, mut recv)) = conn.open_bi().await else {
                return;
            };
            c.streams += 1;
            let mut out = Vec::new();
            if r.chance(90) {
                let fields = field_section(r);
                frame(&mut out, 0x01, &fields);
            }
            for _ in 0..r.below(4) {
                let any = odd_number(r);
                let ty = r.pick(&[0x00, 0x00, 0x00, 0x01, 0x04, 0x05, 0x07, 0x21, any]);
                let n = r.below(3000) as usize;
                let payload = r.bytes(n);
                frame(&mut out, ty, &payload);
            }
            if r.chance(15) {
                let n = 1 + r.below(4);
                mutate(r, &mut out, n);
            }
            if r.chance(10) {
                // A length that promises more than comes.
                varint(&mut out, 0x00);
                let len = odd_number(r);
                varint(&mut out, len);
            }
            let pieces = 1 + r.below(3) as usize;
            let step = out.len() / pieces + 1;
            for piece in out.chunks(step) {
                if send.write_all(piece).await.is_err() {
                    break;
                }
            }
            c.bytes += out.len() as u64;
            match r.below(10) {
                0 => {
                    let _ = send.reset(quinn::VarInt::from_u32(r.below(0x200) as u32));
                }
                1 => {
                    let _ = recv.stop(quinn::VarInt::from_u32(r.below(0x200) as u32));
                }
                2 => {} // left open: the server's timers must end it
                _ => {
                    let _ = send.finish();
                }
            }
            if r.chance(70) {
                if let Ok(Ok(data)) =
                    timeout(Duration::from_millis(300), recv.read_to_end(1 << 20)).await
                {
                    c.answered += u64::from(!data.is_empty());
                }
            }
        }
    };
    let _ = timeout(Duration::from_secs(3), work).await;
    if r.chance(50) {
        conn.close(quinn::VarInt::from_u32(r.below(0x400) as u32), b"fuzz");
    }
    c.datagrams += conn.stats().udp_tx.datagrams;
    drop(conn);
    e.close(0u32.into(), b"");
}

/// One HTTP/3 GET with a fresh connection: the exact status 200 and body, within 5 s; else what went wrong.
pub async fn check(t: &Target, path: &str, expect: &[u8]) -> Result<(), String> {
    let run = async {
        let e = endpoint(t).ok_or("no UDP socket for the check")?;
        let conn = e
            .connect(t.addr, &t.server_name)
            .map_err(|e| e.to_string())?
            .await
            .map_err(|e| format!("connect: {e}"))?;
        let (mut driver, mut send) = h3::client::new(h3_quinn::Connection::new(conn))
            .await
            .map_err(|e| format!("HTTP/3 setup: {e}"))?;
        tokio::task::spawn_local(async move {
            std::future::poll_fn(|cx| driver.poll_close(cx)).await;
        });
        let req = http::Request::get(format!("https://a.test{path}"))
            .body(())
            .map_err(|e| e.to_string())?;
        let mut s = send
            .send_request(req)
            .await
            .map_err(|e| format!("request: {e}"))?;
        s.finish().await.map_err(|e| format!("request: {e}"))?;
        let res = s
            .recv_response()
            .await
            .map_err(|e| format!("response: {e}"))?;
        let mut body = Vec::new();
        while let Some(mut chunk) = s.recv_data().await.map_err(|e| format!("body: {e}"))? {
            while chunk.has_remaining() {
                let part = chunk.chunk();
                body.extend_from_slice(part);
                let n = part.len();
                chunk.advance(n);
            }
        }
        e.close(0u32.into(), b"");
        if res.status() != 200 || body != expect {
            return Err(format!(
                "status {}, body {:?}",
                res.status(),
                String::from_utf8_lossy(&body[..body.len().min(200)])
            ));
        }
        Ok(())
    };
    timeout(Duration::from_secs(5), run)
        .await
        .unwrap_or_else(|_| Err("no answer within 5 s".into()))
}
