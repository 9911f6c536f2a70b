//! Fuzz target: arbitrary operations on one connection's WebTransport sessions (CONNECTs, answers, streams, closes,
//! ends, expiry, drains) checked against the limits and a plain model: no panic, never more sessions, held streams or
//! open streams per session than the limits, and every stream admitted ends exactly once (closed, refused, expired or
//! given back by its session's end) or is still held or open at the end.
#![no_main]

use std::collections::{BTreeMap, BTreeSet};

use gale_wt::session::{Admit, Limits, Sessions};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&first, ops)) = data.split_first() else {
        return;
    };
    let limits = Limits {
        sessions: usize::from(first & 3) + 1,
        streams: usize::from((first >> 2) & 3) + 1,
        held: usize::from((first >> 4) & 3) + 1,
        hold_ms: u64::from(first >> 6) * 10,
    };
    let mut s = Sessions::new(limits);
    // Where each stream the peer opened stands: its session, and whether it is held (else delivered).
    let mut live: BTreeMap<u64, (u64, bool)> = BTreeMap::new();
    let mut ever = BTreeSet::new();
    let (mut now, mut next_stream) = (0u64, 2u64);
    let (mut out, mut refuse) = (Vec::new(), Vec::new());
    for op in ops.chunks(2) {
        let (kind, arg) = (op[0] & 7, u64::from(*op.get(1).unwrap_or(&0) & 7) * 4);
        out.clear();
        refuse.clear();
        match kind {
            0 => {
                let _ = s.connect(arg);
            }
            1 => {
                if s.accept(arg, &mut out, &mut refuse) {
                    for id in &out {
                        assert_eq!(
                            live.insert(*id, (arg, false)),
                            Some((arg, true)),
                            "delivered from held"
                        );
                    }
                    for (id, _) in &refuse {
                        assert_eq!(live.remove(id), Some((arg, true)), "refused from held");
                    }
                } else {
                    assert!(out.is_empty() && refuse.is_empty());
                }
            }
            2 => {
                let id = next_stream;
                next_stream += 4;
                assert!(ever.insert(id));
                match s.stream(id, arg, now) {
                    Admit::Deliver => assert!(live.insert(id, (arg, false)).is_none()),
                    Admit::Hold => assert!(live.insert(id, (arg, true)).is_none()),
                    Admit::Refuse(_) => {}
                }
            }
            3 => {
                // The peer closes one of a session's delivered streams.
                let pick = live
                    .iter()
                    .find(|(_, &(sid, held))| sid == arg && !held)
                    .map(|(&id, _)| id);
                if let Some(id) = pick {
                    s.stream_closed(arg, id);
                    live.remove(&id);
                }
            }
            4 => {
                let ended = s.end(arg, &mut out);
                for id in &out {
                    assert_eq!(
                        live.remove(id).map(|(sid, _)| sid),
                        Some(arg),
                        "ended with its session"
                    );
                }
                // An ended session leaves no stream behind; a session never connected keeps its held ones.
                assert!(!ended || live.values().all(|&(sid, _)| sid != arg));
                assert!(ended || out.is_empty());
            }
            5 => {
                now += u64::from(op.get(1).copied().unwrap_or(0));
                s.expire(now, &mut out);
                for id in &out {
                    assert_eq!(
                        live.remove(id).map(|(_, held)| held),
                        Some(true),
                        "only held ones expire"
                    );
                }
            }
            6 => {
                let first = s.drain(arg);
                assert!(!first || !s.drain(arg));
            }
            _ => {
                let mut all = Vec::new();
                s.drain_all(&mut all);
                assert!(all.iter().all(|&id| s.draining(id)));
            }
        }
        assert!(s.len() <= limits.sessions);
        assert!(s.held() <= limits.held);
        assert_eq!(s.held(), live.values().filter(|&&(_, held)| held).count());
        for sid in (0..32).step_by(4) {
            let open = live
                .values()
                .filter(|&&(id, held)| id == sid && !held)
                .count();
            assert_eq!(s.streams(sid), open);
            assert!(open <= limits.streams);
        }
    }
});
