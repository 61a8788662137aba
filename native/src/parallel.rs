//! Reading many units on several threads (`--jobs`): each unit is read whole by one
//! thread (a Claude Code project folder is never split), results come back in
//! input order, so figures never depend on the number of threads.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

/// `work(i)` for every `i < count`, on up to `threads` threads; results in index order.
pub fn map_indexed<T: Send, F: Fn(usize) -> T + Sync>(
    count: usize,
    threads: usize,
    work: F,
) -> Vec<T> {
    let threads = threads.clamp(1, count.max(1));
    if threads == 1 {
        return (0..count).map(work).collect();
    }
    let next = AtomicUsize::new(0);
    let slots: Vec<Mutex<Option<T>>> = (0..count).map(|_| Mutex::new(None)).collect();
    std::thread::scope(|scope| {
        for _ in 0..threads {
            scope.spawn(|| loop {
                let index = next.fetch_add(1, Ordering::Relaxed);
                if index >= count {
                    break;
                }
                let result = work(index);
                // a slot is written once, by the one thread that took its index
                if let Ok(mut slot) = slots[index].lock() {
                    *slot = Some(result);
                }
            });
        }
    });
    slots
        .into_iter()
        .map(|slot| {
            slot.into_inner()
                .ok()
                .flatten()
                .expect("every index was taken by a thread")
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn results_in_order_for_any_thread_count() {
        for threads in [0, 1, 2, 3, 16] {
            let out = map_indexed(100, threads, |i| i * i);
            assert_eq!(out, (0..100).map(|i| i * i).collect::<Vec<_>>());
        }
        assert!(map_indexed(0, 4, |i| i).is_empty());
    }

    #[test]
    fn one_thread_works_on_the_callers_thread_and_more_on_their_own() {
        let caller = std::thread::current().id();
        let on = |threads| map_indexed(8, threads, |_| std::thread::current().id());
        assert!(on(1).iter().all(|&id| id == caller));
        assert!(on(2).iter().all(|&id| id != caller));
    }
}
