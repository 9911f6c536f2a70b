//! A trivial WebSocket server for measuring gale-loadgen-ws: one thread (tokio current-thread runtime +
//! tokio-tungstenite), on 127.0.0.1:PORT, any path.
//! - default: every text or binary message is sent back as it came (ws-echo);
//! - `--broadcast`: the ws-broadcast protocol without parsing JSON: a text starting with
//!   `{"type":"broadcast","payload":` goes to every client with that prefix replaced by
//!   `{"type":"broadcastResult","payload":`, anything else is echoed;
//! - `--wrong`: changes the last byte of every echo, so the generator must report it as invalid.
//!
//! Usage: ws-echo-server PORT [--broadcast] [--wrong]

use std::cell::RefCell;
use std::rc::Rc;

use futures_util::{SinkExt, StreamExt};
use tokio::net::TcpListener;
use tokio::sync::mpsc;
use tokio_tungstenite::tungstenite::Message;

const BROADCAST: &str = r#"{"type":"broadcast","payload":"#;
const RESULT: &str = r#"{"type":"broadcastResult","payload":"#;

type Clients = Rc<RefCell<Vec<(u64, mpsc::UnboundedSender<Message>)>>>;

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
    local.block_on(&rt, async move {
        let listener = TcpListener::bind(("127.0.0.1", port)).await?;
        let mut next_id = 0u64;
        loop {
            let (tcp, _) = listener.accept().await?;
            let _ = tcp.set_nodelay(true);
            next_id += 1;
            let id = next_id;
            let clients = clients.clone();
            tokio::task::spawn_local(async move {
                let Ok(ws) = tokio_tungstenite::accept_async(tcp).await else {
                    return;
                };
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
                while let Some(Ok(m)) = stream.next().await {
                    let reply = match m {
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
            });
        }
    })
}
