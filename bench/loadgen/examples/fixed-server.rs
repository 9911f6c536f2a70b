//! A trivial HTTP server for measuring load generators: one thread, and for every request (a head ending in a blank
//! line; bodies are not supported) it writes the same 103-byte response. Usage: fixed-server PORT

use std::collections::HashMap;
use std::io::{self, Read, Write};
use std::net::SocketAddr;

use mio::net::{TcpListener, TcpStream};
use mio::{Events, Interest, Poll, Token};

const RESPONSE: &[u8] = b"HTTP/1.1 200 OK\r\nServer: fixed\r\nContent-Type: application/json\r\nContent-Length: 17\r\n\r\n\
{\"hello\":\"world\"}";
const LISTENER: Token = Token(usize::MAX);

struct Client {
    stream: TcpStream,
    /// How many bytes of "\r\n\r\n" the previous read ended with.
    matched: usize,
    /// Responses owed but not yet written, and the bytes of the first one already written.
    owed: usize,
    partial: usize,
}

/// Counts request ends ("\r\n\r\n") in `data`, continuing a match from the previous read.
fn count_heads(data: &[u8], matched: &mut usize) -> usize {
    const END: &[u8] = b"\r\n\r\n";
    let mut n = 0;
    for &b in data {
        *matched = if b == END[*matched] {
            *matched + 1
        } else if b == b'\r' {
            1
        } else {
            0
        };
        if *matched == END.len() {
            n += 1;
            *matched = 0;
        }
    }
    n
}

/// Writes what the client is owed; false when the connection is gone.
fn flush(c: &mut Client, batch: &[u8]) -> bool {
    while c.owed > 0 {
        let per_write = c.owed.min(batch.len() / RESPONSE.len());
        match c
            .stream
            .write(&batch[c.partial..per_write * RESPONSE.len()])
        {
            Ok(0) => return false,
            Ok(n) => {
                let sent = c.partial + n;
                c.owed -= sent / RESPONSE.len();
                c.partial = sent % RESPONSE.len();
            }
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => return true,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(_) => return false,
        }
    }
    true
}

fn main() -> io::Result<()> {
    let port: u16 = std::env::args()
        .nth(1)
        .and_then(|p| p.parse().ok())
        .unwrap_or(8080);
    let mut listener = TcpListener::bind(SocketAddr::from(([127, 0, 0, 1], port)))?;
    let mut poll = Poll::new()?;
    poll.registry()
        .register(&mut listener, LISTENER, Interest::READABLE)?;
    let batch = RESPONSE.repeat(256);
    let mut buf = vec![0u8; 64 * 1024];
    let mut clients: HashMap<usize, Client> = HashMap::new();
    let mut next = 0;
    let mut events = Events::with_capacity(1024);
    eprintln!("fixed-server: listening on 127.0.0.1:{port}");
    loop {
        poll.poll(&mut events, None)?;
        for ev in events.iter() {
            if ev.token() == LISTENER {
                while let Ok((mut stream, _)) = listener.accept() {
                    let _ = stream.set_nodelay(true);
                    poll.registry().register(
                        &mut stream,
                        Token(next),
                        Interest::READABLE | Interest::WRITABLE,
                    )?;
                    clients.insert(
                        next,
                        Client {
                            stream,
                            matched: 0,
                            owed: 0,
                            partial: 0,
                        },
                    );
                    next += 1;
                }
                continue;
            }
            let id = ev.token().0;
            let Some(c) = clients.get_mut(&id) else {
                continue;
            };
            let mut alive = true;
            if ev.is_readable() || ev.is_read_closed() {
                loop {
                    match c.stream.read(&mut buf) {
                        Ok(0) => {
                            alive = false;
                            break;
                        }
                        Ok(n) => {
                            c.owed += count_heads(&buf[..n], &mut c.matched);
                            if n < buf.len() {
                                break;
                            }
                        }
                        Err(e) if e.kind() == io::ErrorKind::WouldBlock => break,
                        Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                        Err(_) => {
                            alive = false;
                            break;
                        }
                    }
                }
            }
            if alive {
                alive = flush(c, &batch);
            }
            if !alive {
                if let Some(mut c) = clients.remove(&id) {
                    let _ = poll.registry().deregister(&mut c.stream);
                }
            }
        }
    }
}
