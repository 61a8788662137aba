//! Reading on several threads (`--jobs`): many units, each read whole by one
//! thread ([`map_indexed`]), or the files of one unit parsed ahead on worker
//! threads and merged in file order by the calling thread ([`ordered_pipeline`]).
//! Results come back in input order, so figures never depend on the number of threads.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Condvar, Mutex, MutexGuard, PoisonError};

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

fn wait<'a, T>(changed: &Condvar, guard: MutexGuard<'a, T>) -> MutexGuard<'a, T> {
    changed.wait(guard).unwrap_or_else(PoisonError::into_inner)
}

/// Whether a worker may start an item of `size` while items of `in_flight` bytes
/// are started and not yet consumed: always when none is, else within `budget`.
pub fn may_start(in_flight: u64, size: u64, budget: u64) -> bool {
    in_flight == 0 || in_flight.saturating_add(size) <= budget
}

struct Pipe<T> {
    /// The next item a worker may take.
    next: usize,
    /// Sizes of the items taken by workers and not yet consumed.
    in_flight: u64,
    slots: Vec<Option<T>>,
    /// The consumer is done (or failed): workers stop taking items.
    stop: bool,
}

/// `produce(i)` on `threads` worker threads for every item `i` with `sizes[i] <=
/// budget`, in index order of taking, at most `budget` bytes of items in flight
/// (taken and not yet consumed) unless a single item is; and on the calling
/// thread `consume(i, Some(produced))` for those, `consume(i, None)` for the
/// larger ones (the consumer reads them itself), strictly in index order. The
/// first error of `consume` stops the workers and is returned.
pub fn ordered_pipeline<T, E, P, C>(
    sizes: &[u64],
    threads: usize,
    budget: u64,
    produce: P,
    mut consume: C,
) -> Result<(), E>
where
    T: Send,
    P: Fn(usize) -> T + Sync,
    C: FnMut(usize, Option<T>) -> Result<(), E>,
{
    let count = sizes.len();
    let state = Mutex::new(Pipe {
        next: 0,
        in_flight: 0,
        slots: (0..count).map(|_| None).collect(),
        stop: false,
    });
    let changed = Condvar::new();
    // a worker that panicked poisons nothing the others rely on: the state stays valid
    let lock = || state.lock().unwrap_or_else(PoisonError::into_inner);
    std::thread::scope(|scope| {
        for _ in 0..threads.max(1) {
            scope.spawn(|| {
                let mut pipe = lock();
                while !pipe.stop && pipe.next < count {
                    let index = pipe.next;
                    let size = sizes[index];
                    if size > budget {
                        pipe.next += 1; // the consumer's own
                        continue;
                    }
                    if !may_start(pipe.in_flight, size, budget) {
                        pipe = wait(&changed, pipe);
                        continue;
                    }
                    pipe.next += 1;
                    pipe.in_flight += size;
                    drop(pipe);
                    let item = produce(index);
                    pipe = lock();
                    pipe.slots[index] = Some(item);
                    changed.notify_all();
                }
            });
        }
        let mut outcome = Ok(());
        for (index, &size) in sizes.iter().enumerate() {
            let item = if size > budget {
                None
            } else {
                // every item before this one is consumed, so it is taken or next
                let mut pipe = lock();
                loop {
                    if let Some(item) = pipe.slots[index].take() {
                        break Some(item);
                    }
                    pipe = wait(&changed, pipe);
                }
            };
            let taken = item.is_some();
            outcome = consume(index, item);
            if taken {
                lock().in_flight -= size;
                changed.notify_all();
            }
            if outcome.is_err() {
                break;
            }
        }
        lock().stop = true;
        changed.notify_all();
        outcome
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicU64;
    use std::time::Duration;

    #[test]
    fn may_start_within_the_budget_or_alone() {
        assert!(may_start(0, 100, 10)); // alone: any size
        assert!(may_start(4, 6, 10)); // exactly the budget
        assert!(!may_start(4, 7, 10));
        assert!(may_start(0, 0, 0));
        assert!(!may_start(1, 0, 0));
        assert!(!may_start(u64::MAX - 1, 2, u64::MAX - 1)); // no overflow
    }

    #[test]
    fn pipeline_consumes_in_order_and_leaves_large_items_to_the_consumer() {
        let sizes = [1, 5, 2, 9, 3, 0, 4];
        for threads in [0, 1, 2, 3] {
            let mut seen = Vec::new();
            let out: Result<(), ()> = ordered_pipeline(
                &sizes,
                threads,
                5,
                |i| i * 10,
                |i, item| {
                    seen.push((i, item));
                    Ok(())
                },
            );
            assert_eq!(out, Ok(()));
            assert_eq!(
                seen,
                vec![
                    (0, Some(0)),
                    (1, Some(10)),
                    (2, Some(20)),
                    (3, None),
                    (4, Some(40)),
                    (5, Some(50)),
                    (6, Some(60))
                ]
            );
        }
        let none: Result<(), ()> = ordered_pipeline(&[], 2, 5, |i| i, |_, _| Err(()));
        assert_eq!(none, Ok(()));
    }

    #[test]
    fn pipeline_holds_at_most_the_budget() {
        // sizes 3: at most two items (6 <= 7) taken and not consumed at once
        let held = AtomicU64::new(0);
        let most = AtomicU64::new(0);
        let produced = AtomicUsize::new(0);
        let sizes = [3u64; 12];
        let out: Result<(), ()> = ordered_pipeline(
            &sizes,
            3,
            7,
            |i| {
                let now = held.fetch_add(3, Ordering::SeqCst) + 3;
                most.fetch_max(now, Ordering::SeqCst);
                produced.fetch_add(1, Ordering::SeqCst);
                std::thread::sleep(Duration::from_millis(2));
                i
            },
            |i, item| {
                assert_eq!(item, Some(i));
                std::thread::sleep(Duration::from_millis(3));
                held.fetch_sub(3, Ordering::SeqCst);
                Ok(())
            },
        );
        assert_eq!(out, Ok(()));
        assert_eq!(produced.load(Ordering::SeqCst), 12);
        assert!(most.load(Ordering::SeqCst) <= 6, "{most:?}");
        assert!(most.load(Ordering::SeqCst) >= 3);
    }

    #[test]
    fn pipeline_stops_at_the_first_error() {
        let produced = AtomicUsize::new(0);
        let mut seen = Vec::new();
        let out = ordered_pipeline(
            &[1u64; 50],
            2,
            2,
            |i| {
                produced.fetch_add(1, Ordering::SeqCst);
                i
            },
            |i, _| {
                seen.push(i);
                if i == 3 {
                    Err(i)
                } else {
                    Ok(())
                }
            },
        );
        assert_eq!(out, Err(3));
        assert_eq!(seen, vec![0, 1, 2, 3]);
        // the budget lets workers run at most 2 items ahead of the consumer
        assert!(produced.load(Ordering::SeqCst) <= 6);
    }

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
