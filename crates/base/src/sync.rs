//! Owns how the engine takes a lock whose holder may have panicked: the data stays usable. Every
//! mutex of the engine guards data a panic cannot leave half-written (a status published whole, a
//! set of paths, a tail of bytes), and the panic itself is reported where it is caught, so a
//! poisoned lock is never a reason to fail again.

use std::sync::{Mutex, MutexGuard, PoisonError};

/// The data behind `mutex`, whether or not a thread panicked while holding it.
pub fn lock<T: ?Sized>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_lock_poisoned_by_a_panic_still_gives_its_data() {
        let mutex = std::sync::Arc::new(Mutex::new(1));
        let held = std::sync::Arc::clone(&mutex);
        let panicked = std::thread::spawn(move || {
            let _guard = held.lock();
            panic!("while holding the lock");
        })
        .join();
        assert!(panicked.is_err());
        assert!(mutex.is_poisoned());
        *lock(&mutex) += 1;
        assert_eq!(*lock(&mutex), 2);
    }
}
