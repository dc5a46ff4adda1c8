//! A least-recently-used map bounded by bytes, not by entry count. It owns
//! the entries, their sizes and the eviction count; it knows nothing about
//! locking, statistics beyond evictions, or time. Every cache in this module
//! keeps one of these behind its own lock and hands out clones of the values
//! (in practice `Arc`s of immutable data).

use std::hash::Hash;

use lru::LruCache;

/// What happened to a value offered to [`ByteLru::insert`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Insertion {
    /// The value is stored; `evicted` older entries made room for it.
    Stored { evicted: usize },
    /// The value alone is larger than the whole budget, so it was not stored.
    /// Any older value under the same key was removed (it is superseded).
    TooLarge,
}

/// An LRU map whose total of entry sizes never exceeds `max_bytes`.
pub(crate) struct ByteLru<K: Hash + Eq, V> {
    entries: LruCache<K, (V, usize)>,
    bytes: usize,
    max_bytes: usize,
    evictions: u64,
}

impl<K: Hash + Eq, V> ByteLru<K, V> {
    /// An empty map with a budget of `max_bytes` (callers reject zero first).
    pub(crate) fn new(max_bytes: usize) -> Self {
        debug_assert!(max_bytes > 0, "callers reject a zero budget");
        ByteLru { entries: LruCache::unbounded(), bytes: 0, max_bytes, evictions: 0 }
    }

    /// The value under `key`, marked as most recently used.
    pub(crate) fn get(&mut self, key: &K) -> Option<&V> {
        self.entries.get(key).map(|(value, _)| value)
    }

    /// The value under `key` without touching its recency.
    pub(crate) fn peek(&self, key: &K) -> Option<&V> {
        self.entries.peek(key).map(|(value, _)| value)
    }

    /// Whether any key satisfies `matches` (a scan; recency untouched).
    pub(crate) fn any_key(&self, mut matches: impl FnMut(&K) -> bool) -> bool {
        self.entries.iter().any(|(key, _)| matches(key))
    }

    /// Stores `value` (of `size` bytes) under `key`, evicting least recently
    /// used entries until it fits. A value larger than the whole budget is
    /// not stored.
    pub(crate) fn insert(&mut self, key: K, value: V, size: usize) -> Insertion {
        self.remove(&key);
        if size > self.max_bytes {
            return Insertion::TooLarge;
        }
        let mut evicted = 0;
        while self.bytes + size > self.max_bytes {
            match self.entries.pop_lru() {
                Some((_, (_, old_size))) => {
                    self.bytes -= old_size;
                    evicted += 1;
                }
                None => break,
            }
        }
        self.evictions += evicted as u64;
        self.bytes += size;
        self.entries.put(key, (value, size));
        Insertion::Stored { evicted }
    }

    /// Removes and returns the value under `key`.
    pub(crate) fn remove(&mut self, key: &K) -> Option<V> {
        let (value, size) = self.entries.pop(key)?;
        self.bytes -= size;
        Some(value)
    }

    /// Keeps only the entries for which `keep` is true; returns how many
    /// were removed. Removals here are not counted as evictions.
    pub(crate) fn retain(&mut self, mut keep: impl FnMut(&K, &V) -> bool) -> usize {
        let before = self.entries.len();
        let mut freed = 0;
        self.entries.retain(|key, (value, size)| {
            let kept = keep(key, value);
            if !kept {
                freed += *size;
            }
            kept
        });
        self.bytes -= freed;
        before - self.entries.len()
    }

    /// Drops every entry (not counted as evictions).
    pub(crate) fn clear(&mut self) {
        self.entries.clear();
        self.bytes = 0;
    }

    /// Number of entries.
    pub(crate) fn len(&self) -> usize {
        self.entries.len()
    }

    /// Sum of the entries' sizes.
    pub(crate) fn bytes(&self) -> usize {
        self.bytes
    }

    /// Entries pushed out to make room, over the map's life.
    pub(crate) fn evictions(&self) -> u64 {
        self.evictions
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_least_recently_used_entry_goes_first_when_bytes_run_out() {
        let mut lru = ByteLru::new(10);
        lru.insert("a", 1, 4);
        lru.insert("b", 2, 4);
        assert_eq!(lru.get(&"a"), Some(&1));
        assert_eq!(lru.insert("c", 3, 4), Insertion::Stored { evicted: 1 });
        assert!(lru.peek(&"b").is_none(), "b was the least recently used");
        assert_eq!(lru.bytes(), 8);
        assert_eq!(lru.evictions(), 1);
    }

    #[test]
    fn a_value_larger_than_the_budget_is_not_stored_and_evicts_nothing() {
        let mut lru = ByteLru::new(10);
        lru.insert("a", 1, 6);
        assert_eq!(lru.insert("big", 2, 11), Insertion::TooLarge);
        assert_eq!(lru.len(), 1);
        assert_eq!(lru.bytes(), 6);
        assert_eq!(lru.evictions(), 0);
    }

    #[test]
    fn replacing_a_key_counts_its_bytes_once() {
        let mut lru = ByteLru::new(10);
        lru.insert("a", 1, 6);
        assert_eq!(lru.insert("a", 2, 7), Insertion::Stored { evicted: 0 });
        assert_eq!(lru.bytes(), 7);
        assert_eq!(lru.len(), 1);
    }

    #[test]
    fn retain_frees_the_bytes_of_what_it_drops() {
        let mut lru = ByteLru::new(10);
        lru.insert(1, "x", 3);
        lru.insert(2, "y", 4);
        assert_eq!(lru.retain(|k, _| *k == 2), 1);
        assert_eq!(lru.bytes(), 4);
        lru.clear();
        assert_eq!((lru.len(), lru.bytes()), (0, 0));
    }
}
