//! Topics tests: the basic operations, and random operation sequences checked against a
//! simple model (which also checks the position indexes stay consistent).

use crate::Topics;
use std::collections::{BTreeMap, BTreeSet};

#[test]
fn basics() {
    let mut t: Topics<u64> = Topics::new();
    assert!(t.is_empty() && t.subscribers(b"a").is_empty());
    assert!(t.subscribe(b"a", 1));
    assert!(!t.subscribe(b"a", 1));
    assert!(t.subscribe(b"a", 2) && t.subscribe(b"b", 1));
    assert_eq!(t.len(), 2);
    assert!(t.is_subscribed(b"a", 2) && !t.is_subscribed(b"b", 2) && !t.is_subscribed(b"c", 1));
    let mut of1 = t.topics_of(1);
    of1.sort();
    assert_eq!(of1, [&b"a"[..], b"b"]);
    assert!(t.unsubscribe(b"a", 1) && !t.unsubscribe(b"a", 1) && !t.unsubscribe(b"zzz", 1));
    assert_eq!(t.subscribers(b"a"), &[2]);
    assert!(t.unsubscribe(b"a", 2));
    assert_eq!(
        (t.len(), t.subscribers(b"a")),
        (1, &[][..]),
        "empty topic freed"
    );
    t.remove_all(1);
    assert!(t.is_empty() && t.topics_of(1).is_empty());
    t.remove_all(99); // unknown key: nothing happens
                      // Freed slots are reused.
    assert!(t.subscribe(b"c", 5));
    assert_eq!(t.topics.len(), 2);
}

#[test]
fn remove_all_leaves_others() {
    let mut t = Topics::new();
    for topic in 0..50u32 {
        for k in 0..10u32 {
            t.subscribe(&topic.to_be_bytes(), k);
        }
    }
    t.remove_all(3);
    t.remove_all(7);
    assert_eq!(t.len(), 50);
    for topic in 0..50u32 {
        let mut s = t.subscribers(&topic.to_be_bytes()).to_vec();
        s.sort();
        assert_eq!(s, [0, 1, 2, 4, 5, 6, 8, 9]);
    }
    for k in 0..10 {
        t.remove_all(k);
    }
    assert!(t.is_empty() && t.members.is_empty() && t.by_key.is_empty());
}

#[test]
fn random_operations_match_a_model() {
    let mut t: Topics<u16> = Topics::new();
    let mut model: BTreeMap<Vec<u8>, BTreeSet<u16>> = BTreeMap::new();
    let mut seed = 0x2545_f491_4f6c_dd1du64;
    let mut next = |n: u64| {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed % n
    };
    for step in 0..20_000 {
        let topic = format!("t{}", next(12)).into_bytes();
        let k = next(20) as u16;
        match next(10) {
            0..=4 => {
                let fresh = model.entry(topic.clone()).or_default().insert(k);
                assert_eq!(t.subscribe(&topic, k), fresh);
            }
            5..=7 => {
                let had = model.get_mut(&topic).is_some_and(|s| s.remove(&k));
                model.retain(|_, s| !s.is_empty());
                assert_eq!(t.unsubscribe(&topic, k), had);
            }
            8 => {
                model.values_mut().for_each(|s| {
                    s.remove(&k);
                });
                model.retain(|_, s| !s.is_empty());
                t.remove_all(k);
            }
            _ => assert_eq!(
                t.is_subscribed(&topic, k),
                model.get(&topic).is_some_and(|s| s.contains(&k))
            ),
        }
        if step % 100 == 0 {
            assert_eq!(t.len(), model.len());
            for (topic, subs) in &model {
                let got: BTreeSet<u16> = t.subscribers(topic).iter().copied().collect();
                assert_eq!(&got, subs);
                assert_eq!(t.subscribers(topic).len(), subs.len(), "no duplicates");
            }
            for k in 0..20 {
                let got: BTreeSet<Vec<u8>> =
                    t.topics_of(k).into_iter().map(<[u8]>::to_vec).collect();
                let want: BTreeSet<Vec<u8>> = model
                    .iter()
                    .filter(|(_, s)| s.contains(&k))
                    .map(|(n, _)| n.clone())
                    .collect();
                assert_eq!(got, want);
            }
        }
    }
}
