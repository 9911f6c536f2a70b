//! negotiate() against many offer strings: several offers and headers, quoting, malformed
//! and unacceptable offers skipped, window-bit bounds, and the response header.

use crate::{negotiate, DeflateConfig, DeflateParams};

fn p(snct: bool, cnct: bool, sbits: u8, cbits: u8) -> Option<DeflateParams> {
    Some(DeflateParams {
        server_no_context_takeover: snct,
        client_no_context_takeover: cnct,
        server_max_window_bits: sbits,
        client_max_window_bits: cbits,
        server_max_window_bits_offered: false,
    })
}

/// negotiate(), with `server_max_window_bits_offered` cleared so the tables compare the window
/// sizes; `server_max_window_bits_is_echoed` tests that flag.
fn with(headers: &[&str], cfg: &DeflateConfig) -> Option<DeflateParams> {
    let raw: Vec<&[u8]> = headers.iter().map(|h| h.as_bytes()).collect();
    negotiate(&raw, cfg).map(|p| DeflateParams {
        server_max_window_bits_offered: false,
        ..p
    })
}

#[test]
fn server_max_window_bits_is_echoed() {
    let header = |offer: &str, cfg: &DeflateConfig| {
        let mut out = Vec::new();
        negotiate(&[offer.as_bytes()], cfg)
            .unwrap()
            .response_header(&mut out);
        String::from_utf8(out).unwrap()
    };
    let d = DeflateConfig::default();
    // RFC 7692 §7.1.2.1: an offer with server_max_window_bits gets it back, even at 15.
    assert_eq!(
        header("permessage-deflate; server_max_window_bits=15", &d),
        "permessage-deflate; server_max_window_bits=15"
    );
    assert_eq!(
        header(
            "permessage-deflate; server_max_window_bits=12; client_max_window_bits",
            &d
        ),
        "permessage-deflate; server_max_window_bits=12"
    );
    // What Python's websockets (>= 10) offers by default.
    assert_eq!(
        header(
            "permessage-deflate; server_max_window_bits=12; client_max_window_bits=12",
            &d
        ),
        "permessage-deflate; server_max_window_bits=12; client_max_window_bits=12"
    );
    // Without it in the offer, 15 stays implicit.
    assert_eq!(
        header("permessage-deflate; client_max_window_bits", &d),
        "permessage-deflate"
    );
    let capped = DeflateConfig {
        server_max_window_bits: 11,
        ..d
    };
    assert_eq!(
        header("permessage-deflate; server_max_window_bits=15", &capped),
        "permessage-deflate; server_max_window_bits=11"
    );
}

fn one(header: &str) -> Option<DeflateParams> {
    with(&[header], &DeflateConfig::default())
}

#[test]
fn plain_offers() {
    assert_eq!(with(&[], &DeflateConfig::default()), None);
    assert_eq!(one(""), None);
    assert_eq!(one("permessage-deflate"), p(false, false, 15, 15));
    assert_eq!(one("  PerMessage-Deflate  "), p(false, false, 15, 15));
    // What Chrome and Firefox send.
    assert_eq!(
        one("permessage-deflate; client_max_window_bits"),
        p(false, false, 15, 15)
    );
    assert_eq!(
        one("permessage-deflate; server_no_context_takeover; client_no_context_takeover"),
        p(true, true, 15, 15)
    );
    assert_eq!(one("x-webkit-deflate-frame"), None);
    assert_eq!(
        one("x-foo; a=1; b=\"2\", permessage-deflate"),
        p(false, false, 15, 15)
    );
}

#[test]
fn first_acceptable_offer_wins() {
    assert_eq!(
        one("permessage-deflate; server_max_window_bits=10, permessage-deflate"),
        p(false, false, 10, 15)
    );
    assert_eq!(
        one("permessage-deflate; foo, permessage-deflate; client_no_context_takeover"),
        p(false, true, 15, 15)
    );
    // Offers in a later header count when the first has none acceptable.
    assert_eq!(
        with(
            &[
                "x-other",
                "permessage-deflate; unknown=1",
                "permessage-deflate; server_max_window_bits=12"
            ],
            &DeflateConfig::default()
        ),
        p(false, false, 12, 15)
    );
}

#[test]
fn quoted_values() {
    assert_eq!(
        one("permessage-deflate; server_max_window_bits=\"10\""),
        p(false, false, 10, 15)
    );
    assert_eq!(
        one("permessage-deflate; client_max_window_bits=\"\\1\\1\""),
        p(false, false, 15, 11)
    );
    // A comma inside quotes does not end the offer; the bad value skips it.
    assert_eq!(
        one("permessage-deflate; server_max_window_bits=\"1,0\", permessage-deflate; server_max_window_bits=9"),
        p(false, false, 9, 15)
    );
    // Unterminated quote: the whole rest is one malformed offer.
    assert_eq!(
        one("permessage-deflate; server_max_window_bits=\"10, permessage-deflate"),
        None
    );
}

#[test]
fn invalid_offers_are_skipped() {
    for bad in [
        "permessage-deflate; foo",
        "permessage-deflate; server_no_context_takeover; server_no_context_takeover",
        "permessage-deflate; client_max_window_bits; client_max_window_bits=10",
        "permessage-deflate; server_no_context_takeover=1",
        "permessage-deflate; client_no_context_takeover=\"\"",
        "permessage-deflate; server_max_window_bits",
        "permessage-deflate; server_max_window_bits=",
        "permessage-deflate; server_max_window_bits=7",
        "permessage-deflate; server_max_window_bits=16",
        "permessage-deflate; server_max_window_bits=0",
        "permessage-deflate; server_max_window_bits=010",
        "permessage-deflate; server_max_window_bits=1e1",
        "permessage-deflate; server_max_window_bits=99999999999",
        "permessage-deflate; client_max_window_bits=7",
        "permessage-deflate; client_max_window_bits=abc",
        "permessage-deflate;",
        "permessage-deflate;;",
        "permessage-deflate; =10",
        "permessage-deflate server_no_context_takeover",
        "permessage-deflate; server_max_window_bits=10 11",
        ", ,",
        "\"permessage-deflate\"",
    ] {
        assert_eq!(one(bad), None, "{bad}");
        let then_good = format!("{bad}, permessage-deflate; client_max_window_bits=9");
        assert_eq!(one(&then_good), p(false, false, 15, 9), "{then_good}");
    }
}

#[test]
fn window_bits_bounds() {
    // zlib cannot compress with an 8-bit window: such offers are declined.
    assert_eq!(one("permessage-deflate; server_max_window_bits=8"), None);
    assert_eq!(
        one("permessage-deflate; server_max_window_bits=9"),
        p(false, false, 9, 15)
    );
    assert_eq!(
        one("permessage-deflate; client_max_window_bits=8"),
        p(false, false, 15, 8)
    );
    let cfg = DeflateConfig {
        server_max_window_bits: 11,
        client_max_window_bits: 10,
        ..DeflateConfig::default()
    };
    // The config caps both; an offer below the cap keeps its value.
    assert_eq!(
        with(
            &["permessage-deflate; server_max_window_bits=13; client_max_window_bits"],
            &cfg
        ),
        p(false, false, 11, 10)
    );
    assert_eq!(
        with(
            &["permessage-deflate; server_max_window_bits=9; client_max_window_bits=12"],
            &cfg
        ),
        p(false, false, 9, 10)
    );
    assert_eq!(
        with(&["permessage-deflate; client_max_window_bits=8"], &cfg),
        p(false, false, 11, 8)
    );
    // A client that cannot be told its window is declined when the config wants it smaller.
    assert_eq!(with(&["permessage-deflate"], &cfg), None);
    // Out-of-range config values are clamped.
    let wild = DeflateConfig {
        server_max_window_bits: 3,
        client_max_window_bits: 40,
        ..DeflateConfig::default()
    };
    assert_eq!(
        with(&["permessage-deflate; client_max_window_bits"], &wild),
        p(false, false, 9, 15)
    );
}

#[test]
fn config_forces_no_context_takeover() {
    let cfg = DeflateConfig {
        server_no_context_takeover: true,
        client_no_context_takeover: true,
        ..DeflateConfig::default()
    };
    assert_eq!(with(&["permessage-deflate"], &cfg), p(true, true, 15, 15));
}

#[test]
fn response_headers() {
    let header = |p: DeflateParams| {
        let mut out = Vec::new();
        p.response_header(&mut out);
        String::from_utf8(out).unwrap()
    };
    assert_eq!(
        header(p(false, false, 15, 15).unwrap()),
        "permessage-deflate"
    );
    assert_eq!(
        header(p(true, true, 9, 10).unwrap()),
        "permessage-deflate; server_no_context_takeover; client_no_context_takeover; \
         server_max_window_bits=9; client_max_window_bits=10"
    );
    // The answer parses back (as an offer) to the same parameters.
    let agreed = p(true, false, 12, 8).unwrap();
    let cfg = DeflateConfig {
        client_max_window_bits: 8,
        ..DeflateConfig::default()
    };
    assert_eq!(with(&[&header(agreed)], &cfg), Some(agreed));
}
