//! Single-flight rendezvous: when several requests want the same key at
//! once, the first becomes the *leader* and does the work; the others are
//! *followers* that block (with a timeout) on the leader's [`Flight`] until
//! it publishes one outcome, which every follower receives as a clone.
//!
//! [`Flights`] is a plain map, not a lock: the caller keeps it under the same
//! mutex as its cache, so that "is it cached?", "is it in flight?" and "I
//! lead it" are one atomic step, and so that the leader can store its result
//! and retire its flight in one step too. A follower that times out only
//! stops waiting; the leader's flight stays in the map until the leader
//! retires it.

use std::collections::HashMap;
use std::hash::Hash;
use std::sync::{Arc, Condvar, Mutex};
use std::time::Duration;

/// One piece of work in progress, and later its outcome.
pub(crate) struct Flight<T> {
    outcome: Mutex<Option<T>>,
    published: Condvar,
}

impl<T: Clone> Flight<T> {
    fn new() -> Self {
        Flight { outcome: Mutex::new(None), published: Condvar::new() }
    }

    /// Publishes the outcome and wakes every follower. The first outcome
    /// wins; a later one (a leader's drop guard after a normal finish) is
    /// ignored.
    pub(crate) fn complete(&self, outcome: T) {
        let mut slot = self.outcome.lock().unwrap_or_else(|e| e.into_inner());
        if slot.is_none() {
            *slot = Some(outcome);
        }
        drop(slot);
        self.published.notify_all();
    }

    /// Waits up to `timeout` for the outcome; `None` if it did not come.
    pub(crate) fn wait(&self, timeout: Duration) -> Option<T> {
        let slot = self.outcome.lock().unwrap_or_else(|e| e.into_inner());
        let (slot, _) = self.published.wait_timeout_while(slot, timeout, |outcome| outcome.is_none()).unwrap_or_else(|e| e.into_inner());
        slot.clone()
    }
}

/// Whether a caller leads the work for a key or follows someone who does.
pub(crate) enum Role<T> {
    /// Do the work, then [`Flights::retire`] and [`Flight::complete`].
    Leader(Arc<Flight<T>>),
    /// Wait on the leader's flight.
    Follower(Arc<Flight<T>>),
}

/// The flights in progress, by key.
pub(crate) struct Flights<K, T> {
    in_flight: HashMap<K, Arc<Flight<T>>>,
}

impl<K: Hash + Eq, T: Clone> Flights<K, T> {
    pub(crate) fn new() -> Self {
        Flights { in_flight: HashMap::new() }
    }

    /// Follows the flight for `key` if there is one, else starts and leads it.
    pub(crate) fn join(&mut self, key: K) -> Role<T> {
        if let Some(flight) = self.in_flight.get(&key) {
            return Role::Follower(Arc::clone(flight));
        }
        let flight = Arc::new(Flight::new());
        self.in_flight.insert(key, Arc::clone(&flight));
        Role::Leader(flight)
    }

    /// Removes the leader's flight from the map (only that flight: a newer
    /// one under the same key is left alone). New requests for the key then
    /// look in the cache or lead a new flight.
    pub(crate) fn retire(&mut self, key: &K, flight: &Arc<Flight<T>>) {
        if self.in_flight.get(key).is_some_and(|current| Arc::ptr_eq(current, flight)) {
            self.in_flight.remove(key);
        }
    }

    /// Number of flights in progress.
    pub(crate) fn len(&self) -> usize {
        self.in_flight.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_second_caller_follows_the_first() {
        let mut flights: Flights<&str, u32> = Flights::new();
        let Role::Leader(lead) = flights.join("k") else { panic!("first caller leads") };
        let Role::Follower(follow) = flights.join("k") else { panic!("second caller follows") };
        assert!(Arc::ptr_eq(&lead, &follow));
        lead.complete(7);
        assert_eq!(follow.wait(Duration::ZERO), Some(7));
    }

    #[test]
    fn a_follower_that_times_out_leaves_the_flight_in_place() {
        let mut flights: Flights<&str, u32> = Flights::new();
        let Role::Leader(lead) = flights.join("k") else { panic!() };
        let Role::Follower(follow) = flights.join("k") else { panic!() };
        assert_eq!(follow.wait(Duration::from_millis(1)), None);
        assert_eq!(flights.len(), 1);
        flights.retire(&"k", &lead);
        assert_eq!(flights.len(), 0);
    }

    #[test]
    fn retiring_an_old_flight_leaves_a_newer_one_alone() {
        let mut flights: Flights<&str, u32> = Flights::new();
        let Role::Leader(old) = flights.join("k") else { panic!() };
        flights.retire(&"k", &old);
        let Role::Leader(_new) = flights.join("k") else { panic!() };
        flights.retire(&"k", &old);
        assert_eq!(flights.len(), 1);
    }

    #[test]
    fn only_the_first_outcome_is_published() {
        let flight = Flight::new();
        flight.complete(1);
        flight.complete(2);
        assert_eq!(flight.wait(Duration::ZERO), Some(1));
    }
}
