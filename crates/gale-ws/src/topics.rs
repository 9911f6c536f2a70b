//! The pub/sub registry: which sockets (the caller's keys) subscribe to which topics, with
//! O(1) subscribe/unsubscribe/lookup and O(topics of k) removal of a closing socket.

use std::collections::HashMap;
use std::hash::Hash;

/// A topic's slot: its name and subscribers, in no particular order.
#[derive(Debug)]
pub(crate) struct Topic<K> {
    name: Box<[u8]>,
    subscribers: Vec<K>,
}

/// Where a (topic, key) membership sits in both lists, so either can be `swap_remove`d.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Slots {
    /// Index of the key in the topic's `subscribers`.
    in_topic: usize,
    /// Index of the topic id in the key's topic list.
    in_key: usize,
}

/// Topics and their subscribers. Keys are the caller's socket ids.
///
/// ```
/// use gale_ws::Topics;
/// let mut t = Topics::new();
/// assert!(t.subscribe(b"chat", 1u32));
/// assert!(t.subscribe(b"chat", 2));
/// assert!(!t.subscribe(b"chat", 2)); // already subscribed
/// assert!(t.subscribe(b"news", 2));
/// assert_eq!(t.subscribers(b"chat").len(), 2);
/// t.remove_all(2); // socket 2 closed
/// assert_eq!(t.subscribers(b"chat"), &[1]);
/// assert_eq!(t.len(), 1); // "news" had no one left
/// ```
#[derive(Debug)]
pub struct Topics<K: Copy + Eq + Hash> {
    pub(crate) by_name: HashMap<Box<[u8]>, u32>,
    /// Topic slots by id; `None` slots are free and listed in `free`.
    pub(crate) topics: Vec<Option<Topic<K>>>,
    free: Vec<u32>,
    pub(crate) members: HashMap<(u32, K), Slots>,
    /// Topic ids of each key, in no particular order.
    pub(crate) by_key: HashMap<K, Vec<u32>>,
}

impl<K: Copy + Eq + Hash> Default for Topics<K> {
    fn default() -> Self {
        Topics {
            by_name: HashMap::new(),
            topics: Vec::new(),
            free: Vec::new(),
            members: HashMap::new(),
            by_key: HashMap::new(),
        }
    }
}

impl<K: Copy + Eq + Hash> Topics<K> {
    /// An empty registry.
    pub fn new() -> Self {
        Self::default()
    }

    /// Subscribes `k` to `topic`; false when it already was. O(1).
    pub fn subscribe(&mut self, topic: &[u8], k: K) -> bool {
        let id = match self.by_name.get(topic) {
            Some(&id) => id,
            None => self.create(topic),
        };
        if self.members.contains_key(&(id, k)) {
            return false;
        }
        let subs = &mut self.topic_mut(id).subscribers;
        subs.push(k);
        let in_topic = subs.len() - 1;
        let list = self.by_key.entry(k).or_default();
        list.push(id);
        let in_key = list.len() - 1;
        self.members.insert((id, k), Slots { in_topic, in_key });
        true
    }

    /// Unsubscribes `k` from `topic`; false when it was not subscribed. O(1); a topic left
    /// without subscribers is freed.
    pub fn unsubscribe(&mut self, topic: &[u8], k: K) -> bool {
        match self.by_name.get(topic) {
            Some(&id) => self.remove(id, k, true),
            None => false,
        }
    }

    /// A topic's id while it has subscribers, for repeated membership checks without hashing
    /// its name again (`is_member`). Ids are reused once a topic empties.
    pub fn id(&self, topic: &[u8]) -> Option<u32> {
        self.by_name.get(topic).copied()
    }

    /// Whether `k` is subscribed to the topic with this `id` (see [`id`](Self::id)).
    ///
    /// ```
    /// use gale_ws::Topics;
    /// let mut t = Topics::new();
    /// t.subscribe(b"muted", 7u32);
    /// let muted = t.id(b"muted").unwrap();
    /// assert!(t.is_member(muted, 7) && !t.is_member(muted, 8));
    /// ```
    pub fn is_member(&self, id: u32, k: K) -> bool {
        self.members.contains_key(&(id, k))
    }

    /// Whether `k` is subscribed to `topic`.
    pub fn is_subscribed(&self, topic: &[u8], k: K) -> bool {
        self.by_name
            .get(topic)
            .is_some_and(|&id| self.members.contains_key(&(id, k)))
    }

    /// The subscribers of `topic`, in no particular order; empty when none.
    pub fn subscribers(&self, topic: &[u8]) -> &[K] {
        match self.by_name.get(topic) {
            Some(&id) => &self.topic(id).subscribers,
            None => &[],
        }
    }

    /// Unsubscribes `k` from every topic (when its socket closes). O(topics of k).
    pub fn remove_all(&mut self, k: K) {
        self.remove_all_reporting(k, |_| {});
    }

    /// Like [`remove_all`](Self::remove_all), calling `emptied` with the name of every topic
    /// this left without subscribers (a server that mirrors topics elsewhere, in Redis say,
    /// stops listening there).
    ///
    /// ```
    /// use gale_ws::Topics;
    /// let mut t = Topics::new();
    /// t.subscribe(b"a", 1u32);
    /// t.subscribe(b"b", 1);
    /// t.subscribe(b"b", 2);
    /// let mut gone = Vec::new();
    /// t.remove_all_reporting(1, |name| gone.push(name.to_vec()));
    /// assert_eq!(gone, [b"a".to_vec()]);
    /// ```
    pub fn remove_all_reporting(&mut self, k: K, mut emptied: impl FnMut(&[u8])) {
        let Some(ids) = self.by_key.remove(&k) else {
            return;
        };
        for id in ids {
            if self.topic(id).subscribers.len() == 1 && self.members.contains_key(&(id, k)) {
                emptied(&self.topic(id).name);
            }
            self.remove(id, k, false);
        }
    }

    /// The topics `k` is subscribed to, in no particular order.
    pub fn topics_of(&self, k: K) -> Vec<&[u8]> {
        self.by_key.get(&k).map_or_else(Vec::new, |ids| {
            ids.iter().map(|&id| &*self.topic(id).name).collect()
        })
    }

    /// The names of the topics with at least one subscriber, in no particular order.
    pub fn names(&self) -> impl Iterator<Item = &[u8]> {
        self.by_name.keys().map(|k| &**k)
    }

    /// The number of topics with at least one subscriber.
    pub fn len(&self) -> usize {
        self.by_name.len()
    }

    /// Whether there are no topics.
    pub fn is_empty(&self) -> bool {
        self.by_name.is_empty()
    }

    fn create(&mut self, name: &[u8]) -> u32 {
        let topic = Topic {
            name: name.into(),
            subscribers: Vec::new(),
        };
        let id = match self.free.pop() {
            Some(id) => {
                self.topics[id as usize] = Some(topic);
                id
            }
            None => {
                let id = u32::try_from(self.topics.len()).expect("fewer than 2^32 topics");
                self.topics.push(Some(topic));
                id
            }
        };
        self.by_name.insert(name.into(), id);
        id
    }

    /// Removes the membership (id, k). `key_list`: also remove `id` from k's topic list
    /// (`remove_all` drops the whole list instead).
    fn remove(&mut self, id: u32, k: K, key_list: bool) -> bool {
        let Some(slots) = self.members.remove(&(id, k)) else {
            return false;
        };
        let subs = &mut self.topic_mut(id).subscribers;
        subs.swap_remove(slots.in_topic);
        let (moved, empty) = (subs.get(slots.in_topic).copied(), subs.is_empty());
        if let Some(moved) = moved {
            self.slots_mut(id, moved).in_topic = slots.in_topic;
        }
        if empty {
            let topic = self.topics[id as usize].take().expect("live topic");
            self.by_name.remove(&topic.name);
            self.free.push(id);
        }
        if key_list {
            let list = self.by_key.get_mut(&k).expect("member keys have a list");
            list.swap_remove(slots.in_key);
            let (moved, empty) = (list.get(slots.in_key).copied(), list.is_empty());
            if let Some(moved) = moved {
                self.slots_mut(moved, k).in_key = slots.in_key;
            } else if empty {
                self.by_key.remove(&k);
            }
        }
        true
    }

    fn topic(&self, id: u32) -> &Topic<K> {
        self.topics[id as usize].as_ref().expect("live topic")
    }

    fn topic_mut(&mut self, id: u32) -> &mut Topic<K> {
        self.topics[id as usize].as_mut().expect("live topic")
    }

    fn slots_mut(&mut self, id: u32, k: K) -> &mut Slots {
        self.members.get_mut(&(id, k)).expect("membership")
    }
}
