//! The fast-ws wire format as far as the fastws-echo mode needs it (../shared/reference/seed-systems.md, 004):
//! the server's greeting, hashed event names, replicator value encoding, client events with a reply id, replies.

/// The server's first frame: the 2-byte text 0x00 0x02.
pub const GREETING: &str = "\u{0}\u{2}";
/// The subprotocol the client asks for.
pub const PROTOCOL: &str = "fast-ws";

/// `id(name)` = Σ charCode(name[i])·(i+1), as lowercase hex without padding ("echo" → "41f").
pub fn event_id(name: &str) -> String {
    let sum: u64 = name
        .encode_utf16()
        .enumerate()
        .map(|(i, c)| u64::from(c) * (i as u64 + 1))
        .sum();
    format!("{sum:x}")
}

/// `ENC(v)` for a string: 0x01 + replicator text (a JSON array holding the string) + 0x02.
pub fn encode_string(s: &str) -> String {
    let json = serde_json::to_string(&[s]).expect("a string serializes");
    format!("\u{1}{json}\u{2}")
}

/// Client → server event awaiting a reply: 0x05 + id + 0x16 + replyId + ENC(data).
pub fn event(id: &str, reply_id: u16, encoded: &str) -> String {
    format!("\u{5}{id}\u{16}{reply_id}{encoded}")
}

/// The server's reply: 0x06 + replyId + ENC(data).
pub fn reply(reply_id: u16, encoded: &str) -> String {
    format!("\u{6}{reply_id}{encoded}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn echo_event_and_its_reply() {
        assert_eq!(event_id("echo"), "41f");
        assert_eq!(event_id(""), "0");
        let enc = encode_string("000");
        assert_eq!(enc, "\u{1}[\"000\"]\u{2}");
        assert_eq!(
            event(&event_id("echo"), 7, &enc),
            "\u{5}41f\u{16}7\u{1}[\"000\"]\u{2}"
        );
        assert_eq!(reply(65535, &enc), "\u{6}65535\u{1}[\"000\"]\u{2}");
        assert_eq!(encode_string("a\"b"), "\u{1}[\"a\\\"b\"]\u{2}");
    }
}
