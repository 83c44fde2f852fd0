//! Measures what a tape node costs, with a counting global allocator (in its
//! own test binary so that no other test shares the allocator).

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

use autograd::tape::Tape;

/// The system allocator, counting the bytes currently allocated by this
/// thread (the test harness's other threads may allocate meanwhile: a
/// process-wide count failed once under load).
struct Counting;

thread_local! {
    static LIVE_HERE: Cell<isize> = const { Cell::new(0) };
}

fn count(bytes: isize) {
    let _ = LIVE_HERE.try_with(|live| live.set(live.get() + bytes));
}

/// Bytes this thread has allocated and not freed.
fn live() -> isize {
    LIVE_HERE.with(Cell::get)
}

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        count(layout.size() as isize);
        System.alloc(layout)
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        count(layout.size() as isize);
        System.alloc_zeroed(layout)
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        count(-(layout.size() as isize));
        System.dealloc(ptr, layout)
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        count(new_size as isize - layout.size() as isize);
        System.realloc(ptr, layout, new_size)
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// One test only: the counter is global, so no other test may allocate
/// concurrently in this binary.
#[test]
fn measured_bytes_per_node() {
    const N: usize = 1_000_000;
    assert_eq!(Tape::BYTES_PER_NODE, 33);

    // a tape with room for N nodes reserves N * BYTES_PER_NODE bytes (plus
    // one hidden sentinel node), and recording N nodes allocates nothing more
    let before = live();
    let exact = Tape::with_capacity(N);
    let x = exact.var(1.0);
    let mut y = x;
    while exact.len() < N {
        y *= 0.5;
    }
    let bytes = (live() - before) as usize;
    let per_node = bytes as f64 / N as f64;
    println!("tape: {N} nodes in {bytes} bytes = {per_node:.4} bytes per node");
    assert_eq!(
        bytes,
        (N + 1) * Tape::BYTES_PER_NODE,
        "{per_node} bytes per node"
    );

    // backward: one adjoint (8 bytes) per node, owned by the Gradients
    let before = live();
    let g = y.backward();
    let adjoint_bytes = (live() - before) as usize;
    println!("backward: {adjoint_bytes} bytes for {N} nodes");
    assert_eq!(adjoint_bytes, (N + 1) * 8);
    assert!(g[x] >= 0.0);

    // a buffer this large is freed with its Gradients, not kept for reuse
    // (what may remain is the standard library's one-time registration of
    // the thread-local that keeps small buffers)
    drop(g);
    let kept = live() - before;
    assert!(
        kept < 1024,
        "{kept} bytes kept after dropping the gradients"
    );

    // clear keeps the memory: a second step allocates nothing for the tape
    let before = live();
    exact.clear();
    let x = exact.var(1.0);
    let mut y = x;
    while exact.len() < N {
        y *= 0.5;
    }
    assert_eq!(live(), before);
}
