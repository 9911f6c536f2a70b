//! `--over h2c`: a WebSocket on a stream of an HTTP/2 connection (RFC 8441) instead of an HTTP/1.1 upgrade — the `h2`
//! crate's client on the TCP connection, an extended CONNECT with `:protocol: websocket` once the server's SETTINGS
//! allow it, a 200 checked; the stream's DATA are then the WebSocket's bytes, read and written as a socket's are.

use std::cell::RefCell;

use bytes::Bytes;
use h2::client::SendRequest;
use h2::{RecvStream, SendStream};
use http::{Method, Request};
use tokio::net::TcpStream;

use crate::cli::Args;

/// The two halves of one WebSocket stream.
pub struct Stream {
    pub send: SendStream<Bytes>,
    pub recv: RecvStream,
}

/// A group of `--streams` workers' HTTP/2 connection (`--streams` > 1): made before they start, made again by the
/// first that finds it gone.
#[derive(Default)]
pub struct Shared(RefCell<Option<SendRequest<Bytes>>>);

impl Shared {
    /// Makes the group's connection now.
    pub async fn open(&self, a: &Args) -> Result<(), String> {
        let c = session(a).await?;
        *self.0.borrow_mut() = Some(c);
        Ok(())
    }
}

/// TCP connect and HTTP/2 handshake (the connection driven by a task of its own), until the server's SETTINGS say
/// extended CONNECT is on.
pub async fn session(a: &Args) -> Result<SendRequest<Bytes>, String> {
    let tcp = TcpStream::connect(a.addr)
        .await
        .map_err(|e| format!("connect: {e}"))?;
    let _ = tcp.set_nodelay(true);
    let (client, conn) = h2::client::handshake(tcp)
        .await
        .map_err(|e| format!("HTTP/2 handshake: {e}"))?;
    tokio::task::spawn_local(async move {
        let _ = conn.await;
    });
    let client = client.ready().await.map_err(|e| format!("HTTP/2: {e}"))?;
    // The server's SETTINGS come right after the handshake, read by the connection's task: give it turns (then
    // milliseconds) until they say extended CONNECT is on, within --timeout.
    let since = std::time::Instant::now();
    let mut turns = 0u32;
    while !client.is_extended_connect_protocol_enabled() {
        if since.elapsed() > a.timeout {
            return Err(
                "the server did not send SETTINGS_ENABLE_CONNECT_PROTOCOL (RFC 8441)".into(),
            );
        }
        turns += 1;
        if turns < 64 {
            tokio::task::yield_now().await;
        } else {
            tokio::time::sleep(std::time::Duration::from_millis(1)).await;
        }
    }
    Ok(client)
}

/// The extended CONNECT for `a.url`'s path, asking for `protocol` (which the server must then select): on `shared`'s
/// connection when there is one, else on a connection of its own.
pub async fn connect(
    a: &Args,
    protocol: Option<&str>,
    shared: Option<&Shared>,
) -> Result<Stream, String> {
    let existing = shared.and_then(|s| s.0.borrow().clone());
    let client = match existing {
        Some(c) => c,
        None => {
            let c = session(a).await?;
            if let Some(s) = shared {
                *s.0.borrow_mut() = Some(c.clone());
            }
            c
        }
    };
    let mut client = match client.ready().await {
        Ok(c) => c,
        Err(e) => {
            // The shared connection is gone: the next worker makes another.
            if let Some(s) = shared {
                s.0.borrow_mut().take();
            }
            return Err(format!("HTTP/2: {e}"));
        }
    };
    let rest = a.url.strip_prefix("ws://").unwrap_or(&a.url);
    let (host, path) = rest.split_at(rest.find('/').unwrap_or(rest.len()));
    let path = if path.is_empty() { "/" } else { path };
    let mut req = Request::builder()
        .method(Method::CONNECT)
        .uri(format!("http://{host}{path}"))
        .header("sec-websocket-version", "13");
    if let Some(p) = protocol {
        req = req.header("sec-websocket-protocol", p);
    }
    let mut req = req.body(()).map_err(|e| format!("extended CONNECT: {e}"))?;
    req.extensions_mut()
        .insert(h2::ext::Protocol::from_static("websocket"));
    let (resp, send) = client
        .send_request(req, false)
        .map_err(|e| format!("extended CONNECT: {e}"))?;
    let resp = resp.await.map_err(|e| format!("extended CONNECT: {e}"))?;
    if resp.status() != 200 {
        return Err(format!(
            "extended CONNECT: status {}, not 200",
            resp.status()
        ));
    }
    let selected = resp
        .headers()
        .get("sec-websocket-protocol")
        .map(|v| v.as_bytes());
    if selected != protocol.map(str::as_bytes) {
        return Err(format!(
            "extended CONNECT: the server selected the subprotocol {:?}, asked for {protocol:?}",
            selected.map(String::from_utf8_lossy)
        ));
    }
    Ok(Stream {
        send,
        recv: resp.into_body(),
    })
}

impl Stream {
    /// Hands `frame` to h2 (which sends it as the stream's window allows).
    pub fn send(&mut self, frame: &[u8]) -> Result<(), String> {
        self.send
            .send_data(Bytes::copy_from_slice(frame), false)
            .map_err(|e| format!("write: {e}"))
    }

    /// The next DATA appended to `buf` (its window given back at once); Ok(false) when the server ended the stream.
    pub async fn fill(&mut self, buf: &mut Vec<u8>) -> Result<bool, String> {
        match self.recv.data().await {
            Some(Ok(d)) => {
                buf.extend_from_slice(&d);
                let _ = self.recv.flow_control().release_capacity(d.len());
                Ok(true)
            }
            Some(Err(e)) => Err(format!("read: {e}")),
            None => Ok(false),
        }
    }
}
