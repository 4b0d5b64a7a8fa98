//! Owns [`BoundedMap`], the per-session memo that holds at most a fixed number of keys: a cache
//! whose every entry is as cheap to make again as any other, so when it is full it starts over
//! rather than keeping an order to evict by.

use crate::StoreUse;
use std::borrow::Borrow;
use std::collections::HashMap;
use std::hash::Hash;

/// A map of at most `capacity` keys. Inserting a key it lacks while full first forgets every
/// entry; what was forgotten is counted ([`BoundedMap::usage`]). Only for what is safe to
/// forget: a lookup that misses must make the value again, never assume it.
#[derive(Debug)]
pub struct BoundedMap<K, V> {
    map: HashMap<K, V>,
    capacity: usize,
    dropped: u64,
}

impl<K: Eq + Hash, V> BoundedMap<K, V> {
    /// An empty map holding at most `capacity` keys (at least one).
    pub fn new(capacity: usize) -> Self {
        Self {
            map: HashMap::new(),
            capacity: capacity.max(1),
            dropped: 0,
        }
    }

    /// The value of `key`, if held.
    pub fn get<Q>(&self, key: &Q) -> Option<&V>
    where
        K: Borrow<Q>,
        Q: Eq + Hash + ?Sized,
    {
        self.map.get(key)
    }

    /// Holds `value` for `key`, starting over first if the map is full and lacks `key`; the
    /// value it replaced, if it held one.
    pub fn insert(&mut self, key: K, value: V) -> Option<V> {
        if self.map.len() >= self.capacity && !self.map.contains_key(&key) {
            self.dropped += self.map.len() as u64;
            self.map.clear();
        }
        self.map.insert(key, value)
    }

    /// Forgets `key` (not counted as dropped: the caller chose to).
    pub fn remove<Q>(&mut self, key: &Q) -> Option<V>
    where
        K: Borrow<Q>,
        Q: Eq + Hash + ?Sized,
    {
        self.map.remove(key)
    }

    /// Keeps only the entries `keep` accepts (not counted as dropped).
    pub fn retain(&mut self, keep: impl FnMut(&K, &mut V) -> bool) {
        self.map.retain(keep);
    }

    /// Every entry, in no particular order.
    pub fn iter(&self) -> impl Iterator<Item = (&K, &V)> {
        self.map.iter()
    }

    /// How full it is, for the status.
    pub fn usage(&self) -> StoreUse {
        StoreUse {
            held: self.map.len(),
            capacity: self.capacity,
            dropped: self.dropped,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_full_map_starts_over_for_a_new_key_and_counts_what_it_forgot() {
        let mut map = BoundedMap::new(2);
        map.insert("a", 1);
        map.insert("b", 2);
        assert_eq!(
            map.insert("a", 3),
            Some(1),
            "a held key is replaced in place"
        );
        assert_eq!(map.usage().dropped, 0);
        map.insert("c", 4);
        assert_eq!(map.get("a"), None);
        assert_eq!(map.get("c"), Some(&4));
        assert_eq!(
            map.usage(),
            StoreUse {
                held: 1,
                capacity: 2,
                dropped: 2
            }
        );
        map.remove("c");
        map.insert("d", 5);
        map.retain(|_, _| false);
        assert_eq!(
            map.usage().dropped,
            2,
            "removals are the caller's, not drops"
        );
    }
}
