//! The Engine.IO v4 + Socket.IO v5 wire format as the sio-echo and sio-broadcast modes speak it over a WebSocket (one
//! packet per text frame): server packets parsed in place, the open packet and connect answers checked, the client's
//! packets (namespace connect and disconnect, events with an ack id, the pong) built (+ tests).

use std::io::Write;

use serde_json::Value;

use crate::stats::escape;

/// The query of the handshake URL: Engine.IO 4 on the websocket transport from the start (no polling, no upgrade).
pub const QUERY: &str = "EIO=4&transport=websocket";

/// Engine.IO's pong: the answer to a server ping `2`.
pub const PONG: &[u8] = b"3";

/// Socket.IO packet types: the digit after Engine.IO's message type `4`.
pub const CONNECT: u8 = b'0';
pub const DISCONNECT: u8 = b'1';
pub const EVENT: u8 = b'2';
pub const ACK: u8 = b'3';
pub const CONNECT_ERROR: u8 = b'4';

/// A server packet, borrowing from its frame.
#[derive(Debug, PartialEq)]
pub enum Packet<'a> {
    /// Engine.IO open `0{…}`: the JSON after the type.
    Open(&'a [u8]),
    /// Engine.IO close `1`.
    Close,
    /// Engine.IO ping `2` (to be answered with [`PONG`]).
    Ping,
    /// A Socket.IO packet (Engine.IO message `4`): its type digit, namespace (`/` when the packet names none), ack id
    /// and the data after them (a JSON array for events and acks, an object for connect answers).
    Sio {
        kind: u8,
        nsp: &'a [u8],
        id: Option<u64>,
        data: &'a [u8],
    },
    /// Anything else (a pong, upgrade or noop, which a server does not send on this transport, or no packet at all).
    Other,
}

/// Parses one text frame as socket.io-parser does: `4`, the type, `/nsp,` when not the main namespace, the ack id's
/// digits, then the data. Err only for an empty frame or an id too large for u64.
pub fn parse(t: &[u8]) -> Result<Packet<'_>, String> {
    match t {
        [] => Err("an empty text frame (no Engine.IO packet type)".into()),
        [b'0', json @ ..] => Ok(Packet::Open(json)),
        [b'1'] => Ok(Packet::Close),
        [b'2'] => Ok(Packet::Ping),
        [b'4', kind, rest @ ..] if kind.is_ascii_digit() => {
            let (nsp, rest): (&[u8], &[u8]) = match rest {
                [b'/', ..] => match rest.iter().position(|&b| b == b',') {
                    Some(i) => (&rest[..i], &rest[i + 1..]),
                    None => (rest, &[]),
                },
                _ => (b"/", rest),
            };
            let digits = rest.iter().take_while(|b| b.is_ascii_digit()).count();
            let id = if digits == 0 {
                None
            } else {
                let id = rest[..digits].iter().try_fold(0u64, |n, &d| {
                    n.checked_mul(10)?.checked_add(u64::from(d - b'0'))
                });
                Some(id.ok_or_else(|| format!("ack id out of range: {}", escape(t)))?)
            };
            Ok(Packet::Sio {
                kind: *kind,
                nsp,
                id,
                data: &rest[digits..],
            })
        }
        _ => Ok(Packet::Other),
    }
}

/// What a packet of `nsp` carries between its type and its ack id: nothing for `/`, else `/name,`.
pub fn nsp_prefix(nsp: &str) -> String {
    if nsp == "/" {
        String::new()
    } else {
        format!("{nsp},")
    }
}

/// The client's namespace connect (no auth data), e.g. `40` or `40/broadcast,`.
pub fn connect(nsp: &str) -> String {
    format!("40{}", nsp_prefix(nsp))
}

/// The client's namespace disconnect, e.g. `41` or `41/broadcast,`.
pub fn disconnect(nsp: &str) -> String {
    format!("41{}", nsp_prefix(nsp))
}

/// Appends the event `42<prefix><id><args>` (`args` = the JSON array `["name",…]`) to `out`.
pub fn event_into(out: &mut Vec<u8>, prefix: &str, id: u64, args: &[u8]) {
    let _ = write!(out, "42{prefix}{id}");
    out.extend_from_slice(args);
}

/// The server's ack of event `id`: `43<prefix><id><args>` (`args` = the JSON array of the ack's arguments).
pub fn ack(prefix: &str, id: u64, args: &[u8]) -> Vec<u8> {
    let mut out = format!("43{prefix}{id}").into_bytes();
    out.extend_from_slice(args);
    out
}

fn has_sid(v: &Value) -> bool {
    v.get("sid")
        .and_then(Value::as_str)
        .is_some_and(|s| !s.is_empty())
}

/// Checks the Engine.IO open packet's JSON (a sid, upgrades, pingInterval, pingTimeout and maxPayload, as Engine.IO 4
/// sends them); returns pingInterval and pingTimeout in ms.
pub fn check_open(json: &[u8]) -> Result<(u64, u64), String> {
    let bad = || {
        format!(
            "the Engine.IO open packet must hold a sid, upgrades, pingInterval, pingTimeout and maxPayload, got 0{}",
            escape(json)
        )
    };
    let v: Value = serde_json::from_slice(json).map_err(|_| bad())?;
    let num = |k: &str| v.get(k).and_then(Value::as_u64);
    match (
        has_sid(&v),
        v.get("upgrades").is_some_and(Value::is_array),
        num("pingInterval"),
        num("pingTimeout"),
        num("maxPayload"),
    ) {
        (true, true, Some(interval), Some(timeout), Some(_)) => Ok((interval, timeout)),
        _ => Err(bad()),
    }
}

/// Checks the server's answer to [`connect`]: `40<prefix>{"sid":…}` (a connect error `44…` says why not).
pub fn check_connected(t: &[u8], nsp: &str) -> Result<(), String> {
    let expected = || {
        format!(
            "expected the connect answer 40{}{{\"sid\":…}}, got text, {} bytes: {}",
            nsp_prefix(nsp),
            t.len(),
            escape(t)
        )
    };
    match parse(t)? {
        Packet::Sio {
            kind: CONNECT,
            nsp: n,
            id: None,
            data,
        } if n == nsp.as_bytes() => match serde_json::from_slice::<Value>(data) {
            Ok(v) if has_sid(&v) => Ok(()),
            _ => Err(expected()),
        },
        Packet::Sio {
            kind: CONNECT_ERROR,
            data,
            ..
        } => Err(format!(
            "the server refused the namespace {nsp}: 44{}{}",
            nsp_prefix(nsp),
            escape(data)
        )),
        _ => Err(expected()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_server_packets() {
        assert_eq!(
            parse(b"0{\"sid\":\"a\"}"),
            Ok(Packet::Open(b"{\"sid\":\"a\"}"))
        );
        assert_eq!(parse(b"2"), Ok(Packet::Ping));
        assert_eq!(parse(b"1"), Ok(Packet::Close));
        assert_eq!(parse(b"3"), Ok(Packet::Other));
        assert_eq!(parse(b"2probe"), Ok(Packet::Other));
        assert!(parse(b"").is_err());
        assert_eq!(
            parse(b"43123[\"00\"]"),
            Ok(Packet::Sio {
                kind: ACK,
                nsp: b"/",
                id: Some(123),
                data: b"[\"00\"]"
            })
        );
        assert_eq!(
            parse(b"42/broadcast,[\"broadcastResult\",{\"id\":7}]"),
            Ok(Packet::Sio {
                kind: EVENT,
                nsp: b"/broadcast",
                id: None,
                data: b"[\"broadcastResult\",{\"id\":7}]"
            })
        );
        assert_eq!(
            parse(b"43/broadcast,0[]"),
            Ok(Packet::Sio {
                kind: ACK,
                nsp: b"/broadcast",
                id: Some(0),
                data: b"[]"
            })
        );
        assert_eq!(
            parse(b"41/x"),
            Ok(Packet::Sio {
                kind: DISCONNECT,
                nsp: b"/x",
                id: None,
                data: b""
            })
        );
        assert!(parse(b"4399999999999999999999[]").is_err(), "id overflow");
        assert_eq!(parse(b"4x"), Ok(Packet::Other));
    }

    #[test]
    fn builds_client_packets() {
        assert_eq!(connect("/"), "40");
        assert_eq!(connect("/broadcast"), "40/broadcast,");
        assert_eq!(disconnect("/broadcast"), "41/broadcast,");
        let mut out = b"x".to_vec();
        event_into(&mut out, "", 17, b"[\"echo\",\"00\"]");
        assert_eq!(out, b"x4217[\"echo\",\"00\"]");
        out.clear();
        event_into(&mut out, &nsp_prefix("/b"), 0, b"[\"broadcast\",{}]");
        assert_eq!(out, b"42/b,0[\"broadcast\",{}]");
        assert_eq!(ack("/b,", 3, b"[]"), b"43/b,3[]");
        assert_eq!(ack("", 65536, b"[1]"), b"4365536[1]");
    }

    #[test]
    fn checks_the_open_packet_and_connect_answers() {
        let open = br#"{"sid":"s1","upgrades":[],"pingInterval":25000,"pingTimeout":20000,"maxPayload":1000000}"#;
        assert_eq!(check_open(open), Ok((25_000, 20_000)));
        assert!(check_open(br#"{"sid":"s1","upgrades":[],"pingInterval":25000}"#).is_err());
        assert!(check_open(b"not json").is_err());
        assert_eq!(check_connected(br#"40{"sid":"x"}"#, "/"), Ok(()));
        assert_eq!(
            check_connected(br#"40/broadcast,{"sid":"x","pid":"p"}"#, "/broadcast"),
            Ok(())
        );
        let wrong_nsp = check_connected(br#"40{"sid":"x"}"#, "/broadcast").unwrap_err();
        assert!(
            wrong_nsp.contains("expected the connect answer 40/broadcast,{\"sid\":…}"),
            "{wrong_nsp}"
        );
        assert!(check_connected(br#"40{"sid":""}"#, "/").is_err());
        let refused = check_connected(br#"44/broadcast,{"message":"no"}"#, "/broadcast");
        assert_eq!(
            refused,
            Err(
                r#"the server refused the namespace /broadcast: 44/broadcast,{"message":"no"}"#
                    .into()
            )
        );
    }
}
