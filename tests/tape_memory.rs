//! Measures what a tape node costs, with a counting global allocator (in its
//! own test binary so that no other test shares the allocator).

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

use autograd::tape::Tape;

/// The system allocator, counting the bytes currently allocated.
struct Counting;

static LIVE: AtomicUsize = AtomicUsize::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        LIVE.fetch_add(layout.size(), Ordering::SeqCst);
        System.alloc(layout)
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        LIVE.fetch_add(layout.size(), Ordering::SeqCst);
        System.alloc_zeroed(layout)
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        LIVE.fetch_sub(layout.size(), Ordering::SeqCst);
        System.dealloc(ptr, layout)
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        LIVE.fetch_sub(layout.size(), Ordering::SeqCst);
        LIVE.fetch_add(new_size, Ordering::SeqCst);
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
    let before = LIVE.load(Ordering::SeqCst);
    let exact = Tape::with_capacity(N);
    let x = exact.var(1.0);
    let mut y = x;
    while exact.len() < N {
        y *= 0.5;
    }
    let bytes = LIVE.load(Ordering::SeqCst) - before;
    let per_node = bytes as f64 / N as f64;
    println!("tape: {N} nodes in {bytes} bytes = {per_node:.4} bytes per node");
    assert_eq!(
        bytes,
        (N + 1) * Tape::BYTES_PER_NODE,
        "{per_node} bytes per node"
    );

    // backward: one adjoint (8 bytes) per node, owned by the Gradients
    let before = LIVE.load(Ordering::SeqCst);
    let g = y.backward();
    let adjoint_bytes = LIVE.load(Ordering::SeqCst) - before;
    println!("backward: {adjoint_bytes} bytes for {N} nodes");
    assert_eq!(adjoint_bytes, (N + 1) * 8);
    assert!(g[x] >= 0.0);

    // a buffer this large is freed with its Gradients, not kept for reuse
    // (what may remain is the standard library's one-time registration of
    // the thread-local that keeps small buffers)
    drop(g);
    let kept = LIVE.load(Ordering::SeqCst) - before;
    assert!(
        kept < 1024,
        "{kept} bytes kept after dropping the gradients"
    );

    // clear keeps the memory: a second step allocates nothing for the tape
    let before = LIVE.load(Ordering::SeqCst);
    exact.clear();
    let x = exact.var(1.0);
    let mut y = x;
    while exact.len() < N {
        y *= 0.5;
    }
    assert_eq!(LIVE.load(Ordering::SeqCst), before);
}
