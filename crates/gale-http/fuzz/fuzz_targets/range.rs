//! Fuzz target: `parse_range` on arbitrary headers never panics, and every Partial answer is
//! in bounds, non-overlapping, within `max_ranges`, with a `multipart_len` that matches the body.
#![no_main]

use gale_http::files::{
    multipart_closing, multipart_len, multipart_part_head, parse_range, Ranges,
};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    // One byte picks the size, one the range limit.
    let [s, m, header @ ..] = data else {
        return;
    };
    let size = match s % 4 {
        0 => u64::from(*s / 4),
        1 => 0,
        2 => u64::MAX,
        _ => 1 << 20,
    };
    let max_ranges = usize::from(*m % 20);
    match parse_range(header, size, max_ranges) {
        Ranges::Full => {}
        Ranges::Unsatisfiable => assert!(header.contains(&b'-')),
        Ranges::Partial(ranges) => {
            assert!(size > 0 && !ranges.is_empty() && ranges.len() <= max_ranges);
            for &(start, end) in &ranges {
                assert!(start <= end && end < size, "{start}-{end}/{size}");
            }
            let mut sorted = ranges.clone();
            sorted.sort_unstable();
            assert!(sorted.windows(2).all(|w| w[0].1 < w[1].0));
            // The framing length must match what the parts write (bodies counted, not built).
            let mut body = Vec::new();
            let mut bytes = 0u128;
            for &(start, end) in &ranges {
                multipart_part_head(&mut body, "b0und", "text/plain", start, end, size);
                bytes += u128::from(end - start) + 1;
            }
            multipart_closing(&mut body, "b0und");
            let want = u64::try_from(body.len() as u128 + bytes).unwrap_or(u64::MAX);
            assert_eq!(multipart_len("b0und", "text/plain", &ranges, size), want);
        }
    }
});
