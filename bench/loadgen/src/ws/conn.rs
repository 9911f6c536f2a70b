//! Connecting (TCP + WebSocket handshake, optionally asking for a subprotocol) and reading the next data message.

use futures_util::StreamExt;
use tokio::net::TcpStream;
use tokio_tungstenite::tungstenite::client::IntoClientRequest;
use tokio_tungstenite::tungstenite::http::HeaderValue;
use tokio_tungstenite::tungstenite::{Error, Message};
use tokio_tungstenite::{client_async, WebSocketStream};

use crate::cli::Args;
use crate::stats::Kind;

pub type Ws = WebSocketStream<TcpStream>;

/// TCP connect + WebSocket handshake. With `protocol`, the request carries `Sec-WebSocket-Protocol: <protocol>` and
/// the handshake fails unless the server selects it.
pub async fn connect(a: &Args, protocol: Option<&str>) -> Result<Ws, String> {
    let tcp = TcpStream::connect(a.addr)
        .await
        .map_err(|e| format!("connect: {e}"))?;
    let _ = tcp.set_nodelay(true);
    let mut req = a
        .url
        .as_str()
        .into_client_request()
        .map_err(|e| format!("request: {e}"))?;
    if let Some(p) = protocol {
        let v = HeaderValue::from_str(p).map_err(|e| format!("protocol: {e}"))?;
        req.headers_mut().insert("Sec-WebSocket-Protocol", v);
    }
    let (ws, _) = client_async(req, tcp)
        .await
        .map_err(|e| format!("handshake: {e}"))?;
    Ok(ws)
}

/// The next data message (pings are answered by tungstenite, pongs skipped), or the error kind and reason.
pub async fn next_data(
    rx: &mut (impl StreamExt<Item = Result<Message, Error>> + Unpin),
) -> Result<Message, (Kind, String)> {
    loop {
        match rx.next().await {
            None => return Err((Kind::Closed, "connection closed by the server".into())),
            Some(Err(e)) => return Err((Kind::Read, format!("read: {e}"))),
            Some(Ok(Message::Ping(_) | Message::Pong(_) | Message::Frame(_))) => {}
            Some(Ok(Message::Close(c))) => {
                return Err((Kind::Closed, format!("close frame from the server: {c:?}")))
            }
            Some(Ok(m)) => return Ok(m),
        }
    }
}
