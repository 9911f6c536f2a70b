//! Connecting with tokio-tungstenite (TCP + WebSocket handshake, optionally asking for a subprotocol): the idle mode's
//! connections, which only need pings answered.

use tokio::net::TcpStream;
use tokio_tungstenite::tungstenite::client::IntoClientRequest;
use tokio_tungstenite::tungstenite::http::HeaderValue;
use tokio_tungstenite::{client_async, WebSocketStream};

use crate::cli::Args;

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
