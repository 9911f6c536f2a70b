//! Fuzz target: prefers_json on arbitrary Accept bytes and write_problem on arbitrary details. Checks that neither
//! panics, that ranges of quality 0 change no answer, and that a document is one JSON object with no raw control
//! character and the detail's text escaped back exactly.
#![no_main]

use gale_http::{prefers_json, write_problem};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let want = prefers_json(data);
    for tail in [&b", text/plain;q=0"[..], b", application/json;q=0", b",", b", image/png"] {
        let mut more = data.to_vec();
        more.extend_from_slice(tail);
        assert_eq!(prefers_json(&more), want, "{tail:?} changed the answer");
    }
    let detail = String::from_utf8_lossy(data);
    let mut out = Vec::new();
    write_problem(&mut out, 400, "GALE_ERR_BAD_REQUEST", &detail);
    assert!(out.starts_with(br#"{"type":"about:blank","title":"Bad Request","status":400"#));
    assert!(out.ends_with(br#","code":"GALE_ERR_BAD_REQUEST"}"#));
    assert!(out.iter().all(|&b| b >= 0x20));
    let text = std::str::from_utf8(&out).expect("UTF-8");
    if !detail.is_empty() && detail != "Bad Request" {
        let start = text.find(r#","detail":""#).expect("a detail") + 11;
        let end = text.len() - r#"","code":"GALE_ERR_BAD_REQUEST"}"#.len();
        assert_eq!(unescape(&text[start..end]), detail);
    }
});

/// The JSON string escapes write_problem uses, undone.
fn unescape(s: &str) -> String {
    let mut out = String::new();
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            assert_ne!(c, '"', "an unescaped quote");
            out.push(c);
            continue;
        }
        match chars.next().expect("an escape") {
            '"' => out.push('"'),
            '\\' => out.push('\\'),
            'n' => out.push('\n'),
            'r' => out.push('\r'),
            't' => out.push('\t'),
            'u' => {
                let hex: String = chars.by_ref().take(4).collect();
                out.push(char::from_u32(u32::from_str_radix(&hex, 16).unwrap()).unwrap());
            }
            e => panic!("unknown escape {e}"),
        }
    }
    out
}
