//! Fuzz target: parse_head on arbitrary bytes under small and default limits. Checks that it
//! never panics, that every span lies inside the head, and that prefixes agree with the whole.
#![no_main]

use gale_http::{parse_head, Limits, RequestHead, Span};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    // The first three bytes pick small limits, so the fuzzer reaches every limit boundary.
    let (small, input) = match data {
        [a, b, c, rest @ ..] => (
            Limits {
                max_head_bytes: usize::from(*a) * 2,
                max_headers: usize::from(*b % 16),
                max_uri_bytes: usize::from(*c),
                // The low bit of the head-size byte turns the Host check off (gale/express's mode).
                strict_host: *a & 1 == 0,
            },
            rest,
        ),
        _ => (Limits::default(), data),
    };
    check(input, &small);
    check(input, &Limits::default());
});

fn check(input: &[u8], limits: &Limits) {
    let mut headers = Vec::new();
    let Ok(Some(head)) = parse_head(input, limits, &mut headers) else {
        return;
    };
    assert!(head.head_len <= input.len());
    assert!(head.head_len <= limits.max_head_bytes);
    assert!(headers.len() <= limits.max_headers.min(1024));
    assert!(head.target.len() <= limits.max_uri_bytes);
    assert!(head.minor_version <= 1);
    let in_head = |s: Span| s.start <= s.end && s.end as usize <= head.head_len;
    let in_target =
        |s: Span| in_head(s) && s.start >= head.target.start && s.end <= head.target.end;
    assert!(in_head(head.method) && !head.method.is_empty());
    assert!(in_head(head.target) && !head.target.is_empty());
    assert!(in_target(head.path));
    if let Some(q) = head.query {
        assert!(in_target(q) && q.start > head.path.end);
    }
    for h in &headers {
        assert!(in_head(h.name) && in_head(h.value) && !h.name.is_empty());
        assert!(gale_http::is_token(h.name.get(input)));
    }

    // The head alone parses to the same result, and any shorter prefix is merely incomplete:
    // the answer must not depend on how the bytes were split into reads.
    let exact = &input[..head.head_len];
    let mut again = Vec::new();
    let same = parse_head(exact, limits, &mut again).unwrap().unwrap();
    assert_eq!(summary(&same), summary(&head));
    assert_eq!(again, headers);
    for cut in [head.head_len - 1, head.head_len / 2, 1] {
        let got = parse_head(&exact[..cut], limits, &mut again);
        assert!(matches!(got, Ok(None)), "prefix {cut}: {got:?}");
    }
}

fn summary(h: &RequestHead) -> impl PartialEq + std::fmt::Debug {
    (
        h.head_len,
        h.method,
        h.target,
        h.path,
        h.query,
        h.minor_version,
        h.body,
        (h.keep_alive, h.expect_continue, h.upgrade),
    )
}
