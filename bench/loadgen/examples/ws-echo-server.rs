//! A trivial WebSocket server for measuring gale-loadgen-ws: one thread (tokio current-thread runtime +
//! tokio-tungstenite), on 127.0.0.1:PORT, any path.
//! - default: every text or binary message is sent back as it came (ws-echo);
//! - `--broadcast`: the ws-broadcast protocol without parsing JSON: a text starting with
//!   `{"type":"broadcast","payload":` goes to every client with that prefix replaced by
//!   `{"type":"broadcastResult","payload":`, anything else is echoed;
//! - fast-ws (fastws-echo): a client asking for the subprotocol `fast-ws` gets it, is greeted with `\x00\x02`, and
//!   every event `\x05 ID \x16 REPLY \x01 DATA \x02` is answered `\x06 REPLY \x01 DATA \x02` (DATA copied as it
//!   came, not decoded);
//! - Socket.IO (sio-echo, sio-broadcast) on a path starting with `/socket.io/`: the Engine.IO v4 open packet, then
//!   `40` → `40{"sid":…}` (`40/nsp,` → `40/nsp,{"sid":…}`: the socket joins that namespace's one room), every event
//!   with an ack `42ID["echo",DATA]` → `43ID[DATA]`, `42/nsp,ID["broadcast",P]` → `42/nsp,["broadcastResult",P]` to
//!   every socket of the namespace and `43/nsp,ID[]` to the sender (DATA and P copied, not decoded), `2` (ping) →
//!   `3`; enough for gale-loadgen-ws's sio modes and `socket.io-client` (websocket transport), to measure the
//!   clients' own ceiling;
//! - `--wrong`: changes the last byte of every echo (fast-ws: the byte before the final 0x02), so the generator must
//!   report it as invalid.
//!
//! Usage: ws-echo-server PORT [--broadcast] [--wrong]

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use futures_util::{SinkExt, StreamExt};
use tokio::net::TcpListener;
use tokio::sync::mpsc;
use tokio_tungstenite::tungstenite::handshake::server::{Request, Response};
use tokio_tungstenite::tungstenite::http::HeaderValue;
use tokio_tungstenite::tungstenite::Message;

const BROADCAST: &str = r#"{"type":"broadcast","payload":"#;
const RESULT: &str = r#"{"type":"broadcastResult","payload":"#;

type Clients = Rc<RefCell<Vec<(u64, mpsc::UnboundedSender<Message>)>>>;
/// Sockets by namespace (`/broadcast`, …): the room a sio broadcast goes to.
type Rooms = Rc<RefCell<Vec<(String, u64, mpsc::UnboundedSender<Message>)>>>;

/// What to do with a Socket.IO client packet.
#[derive(Debug, PartialEq)]
enum Sio {
    /// Send this back.
    Reply(String),
    /// Answer the connect to a namespace other than `/` and put the socket in that namespace's room.
    Join(String, String),
    /// Send the first to every socket of the namespace, the ack (second) to the sender.
    Broadcast(String, String, String),
    Nothing,
}

/// The Socket.IO answer to a client packet.
fn sio_reply(t: &str, wrong: bool) -> Sio {
    if t == "2" {
        return Sio::Reply("3".into());
    }
    let Some(rest) = t.strip_prefix('4') else {
        return Sio::Nothing;
    };
    let (kind, rest) = rest.split_at(rest.len().min(1));
    let (nsp, rest) = match rest.strip_prefix('/') {
        Some(_) => rest.split_once(',').unwrap_or((rest, "")),
        None => ("/", rest),
    };
    let prefix = if nsp == "/" {
        String::new()
    } else {
        format!("{nsp},")
    };
    match kind {
        "0" if nsp == "/" => Sio::Reply(r#"40{"sid":"trivial"}"#.into()),
        "0" => Sio::Join(nsp.into(), format!(r#"40{prefix}{{"sid":"trivial"}}"#)),
        "2" => {
            let open = rest.find('[').unwrap_or(rest.len());
            let (id, args) = rest.split_at(open);
            if let Some(data) = args.strip_prefix(r#"["echo","#) {
                // --wrong: the payload's first '0' becomes '1' (never the id's digits).
                let data = if wrong {
                    data.replacen('0', "1", 1)
                } else {
                    data.to_string()
                };
                Sio::Reply(format!("43{prefix}{id}[{data}"))
            } else if let Some(p) = args.strip_prefix(r#"["broadcast","#) {
                let all = format!(r#"42{prefix}["broadcastResult",{p}"#);
                Sio::Broadcast(nsp.into(), all, format!("43{prefix}{id}[]"))
            } else {
                Sio::Nothing
            }
        }
        _ => Sio::Nothing,
    }
}

/// The fast-ws reply to an event frame `\x05 ID \x16 REPLY \x01 DATA \x02`, or None for anything else.
fn fastws_reply(t: &str, wrong: bool) -> Option<String> {
    let rest = t.strip_prefix('\u{5}')?;
    let sep = rest.find('\u{16}')?;
    let start = rest.find('\u{1}')?;
    if start < sep {
        return None;
    }
    let mut out = format!("\u{6}{}{}", &rest[sep + 1..start], &rest[start..]);
    if wrong {
        let end = out.pop();
        out.pop();
        out.push('1');
        out.extend(end);
    }
    Some(out)
}

fn main() -> std::io::Result<()> {
    let mut port = 3000;
    let (mut broadcast, mut wrong) = (false, false);
    for a in std::env::args().skip(1) {
        match a.as_str() {
            "--broadcast" => broadcast = true,
            "--wrong" => wrong = true,
            p => port = p.parse().unwrap_or(3000),
        }
    }
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    let local = tokio::task::LocalSet::new();
    let clients: Clients = Rc::default();
    let rooms: Rooms = Rc::default();
    local.block_on(&rt, async move {
        let listener = TcpListener::bind(("127.0.0.1", port)).await?;
        let mut next_id = 0u64;
        loop {
            let (tcp, _) = listener.accept().await?;
            let _ = tcp.set_nodelay(true);
            next_id += 1;
            let id = next_id;
            let clients = clients.clone();
            let rooms = rooms.clone();
            tokio::task::spawn_local(async move {
                let fast = Rc::new(Cell::new(false));
                let asked = fast.clone();
                let sio = Rc::new(Cell::new(false));
                let sio_path = sio.clone();
                // The callback's error type is tungstenite's (a whole HTTP response): not ours to shrink.
                #[allow(clippy::result_large_err)]
                let pick = move |req: &Request, mut res: Response| {
                    sio_path.set(req.uri().path().starts_with("/socket.io/"));
                    let wants = req
                        .headers()
                        .get_all("Sec-WebSocket-Protocol")
                        .iter()
                        .filter_map(|v| v.to_str().ok())
                        .any(|v| v.split(',').any(|p| p.trim() == "fast-ws"));
                    if wants {
                        asked.set(true);
                        res.headers_mut().insert(
                            "Sec-WebSocket-Protocol",
                            HeaderValue::from_static("fast-ws"),
                        );
                    }
                    Ok(res)
                };
                let Ok(ws) = tokio_tungstenite::accept_hdr_async(tcp, pick).await else {
                    return;
                };
                let (fast, sio) = (fast.get(), sio.get());
                let (mut sink, mut stream) = ws.split();
                let (tx, mut rx) = mpsc::unbounded_channel::<Message>();
                tokio::task::spawn_local(async move {
                    while let Some(m) = rx.recv().await {
                        if sink.send(m).await.is_err() {
                            return;
                        }
                    }
                });
                if broadcast {
                    clients.borrow_mut().push((id, tx.clone()));
                }
                if fast {
                    let _ = tx.send(Message::text("\u{0}\u{2}"));
                }
                if sio {
                    let _ = tx.send(Message::text(
                        r#"0{"sid":"trivial","upgrades":[],"pingInterval":25000,"pingTimeout":20000,"maxPayload":1000000}"#,
                    ));
                }
                while let Some(Ok(m)) = stream.next().await {
                    let reply = match m {
                        Message::Text(t) if sio => match sio_reply(&t, wrong) {
                            Sio::Reply(r) => Message::text(r),
                            Sio::Join(nsp, r) => {
                                rooms.borrow_mut().push((nsp, id, tx.clone()));
                                Message::text(r)
                            }
                            Sio::Broadcast(nsp, all, ack) => {
                                let out = Message::text(all);
                                for (_, _, c) in rooms.borrow().iter().filter(|r| r.0 == nsp) {
                                    let _ = c.send(out.clone());
                                }
                                Message::text(ack)
                            }
                            Sio::Nothing => continue,
                        },
                        Message::Text(t) if fast => match fastws_reply(&t, wrong) {
                            Some(r) => Message::text(r),
                            None => break,
                        },
                        Message::Text(t) if broadcast && t.starts_with(BROADCAST) => {
                            let out = Message::text(format!("{RESULT}{}", &t[BROADCAST.len()..]));
                            for (_, c) in clients.borrow().iter() {
                                let _ = c.send(out.clone());
                            }
                            continue;
                        }
                        Message::Text(t) if wrong => {
                            let mut s = t.as_str().to_string();
                            s.pop();
                            s.push('1');
                            Message::text(s)
                        }
                        Message::Text(_) | Message::Binary(_) => m,
                        _ => continue,
                    };
                    let _ = tx.send(reply);
                }
                clients.borrow_mut().retain(|(c, _)| *c != id);
                rooms.borrow_mut().retain(|(_, c, _)| *c != id);
            });
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn answers_socket_io_packets() {
        assert_eq!(
            sio_reply("40", false),
            Sio::Reply(r#"40{"sid":"trivial"}"#.into())
        );
        assert_eq!(
            sio_reply("40/broadcast,", false),
            Sio::Join(
                "/broadcast".into(),
                r#"40/broadcast,{"sid":"trivial"}"#.into()
            )
        );
        assert_eq!(sio_reply("2", false), Sio::Reply("3".into()));
        assert_eq!(
            sio_reply(r#"427["echo","00"]"#, false),
            Sio::Reply(r#"437["00"]"#.into())
        );
        assert_eq!(
            sio_reply(r#"427["echo","00"]"#, true),
            Sio::Reply(r#"437["10"]"#.into())
        );
        assert_eq!(
            sio_reply(r#"42/broadcast,3["broadcast",{"id":1}]"#, false),
            Sio::Broadcast(
                "/broadcast".into(),
                r#"42/broadcast,["broadcastResult",{"id":1}]"#.into(),
                "43/broadcast,3[]".into()
            )
        );
        assert_eq!(sio_reply("41", false), Sio::Nothing);
    }
}
