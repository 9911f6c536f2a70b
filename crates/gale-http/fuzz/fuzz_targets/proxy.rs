//! Fuzz target: parse_proxy_header on arbitrary bytes: no panic; a header it accepts has a length
//! inside the input and parses the same with anything appended; every shorter prefix of an accepted
//! header is "incomplete" (never an error), so a header split across reads is never refused.
#![no_main]

use gale_http::parse_proxy_header;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(Some((addrs, len))) = parse_proxy_header(data) else {
        return;
    };
    assert!(len <= data.len());
    let mut more = data[..len].to_vec();
    more.extend_from_slice(b"GET / HTTP/1.1\r\n");
    assert_eq!(parse_proxy_header(&more), Ok(Some((addrs, len))));
    for cut in 0..len {
        assert_eq!(parse_proxy_header(&data[..cut]), Ok(None), "cut {cut}");
    }
});
