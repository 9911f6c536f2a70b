//! Fuzz target: the HTTP/2 flood guard on an arbitrary client byte stream. It never panics, and the verdict does
//! not depend on how the bytes were split into reads (the first byte picks the split points), nor on time
//! standing still while they arrive.
#![no_main]

use gale_h2::{Guard, GuardLimits, PREFACE};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&step, rest)) = data.split_first() else {
        return;
    };
    let limits = GuardLimits {
        control_burst: 8,
        control_per_sec: 1,
        reset_burst: 4,
        reset_per_sec: 1,
    };
    let mut stream = PREFACE.to_vec();
    stream.extend_from_slice(rest);
    let mut whole = Guard::new(limits, 0);
    let a = whole.scan(&stream, 0);
    let mut pieces = Guard::new(limits, 0);
    let size = usize::from(step % 17) + 1;
    let mut b = Ok(());
    for piece in stream.chunks(size) {
        b = pieces.scan(piece, 0);
        if b.is_err() {
            break;
        }
    }
    assert_eq!(a, b, "the verdict depends on read sizes");
    assert_eq!(
        whole.started(),
        pieces.started() || b.is_err() && whole.started()
    );
});
