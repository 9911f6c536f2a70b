//! Gives the heap memory a burst of connections used back to the OS once the burst is over.
//! glibc keeps freed memory in its arenas, so a flood of 1 000 uploads would otherwise leave
//! the process at the flood's high-water RSS for good (`npm run bench -- soak`).

/// A burst: at least this many connections open at once.
const BURST: usize = 256;

/// Tracks the high-water of open connections since the last trim.
#[derive(Default)]
pub(crate) struct Trim {
    peak: usize,
}

impl Trim {
    /// A connection was accepted; `open` is the count now. One comparison on the accept path.
    #[inline]
    pub fn opened(&mut self, open: usize) {
        if open > self.peak {
            self.peak = open;
        }
    }

    /// Called from the one-second tick: true when a burst has ended (at most a quarter of its
    /// peak still open), and then starts watching for the next one.
    pub fn burst_over(&mut self, open: usize) -> bool {
        if self.peak >= BURST && open <= self.peak / 4 {
            self.peak = open;
            true
        } else {
            false
        }
    }
}

/// Returns the free pages of every malloc arena to the OS (a few ms for ~100 MiB, once per burst).
pub(crate) fn release_free_memory() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: malloc_trim only walks glibc's own free lists; no pointer of ours is involved, and
    // it is thread-safe (it takes each arena's lock).
    unsafe {
        libc::malloc_trim(0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_burst_is_over_when_three_quarters_are_gone() {
        let mut t = Trim::default();
        for n in 1..=1000 {
            t.opened(n);
        }
        assert!(!t.burst_over(600), "still most of the burst open");
        assert!(t.burst_over(250));
        assert!(!t.burst_over(10), "one trim per burst");
    }

    #[test]
    fn small_loads_never_trim() {
        let mut t = Trim::default();
        t.opened(BURST - 1);
        assert!(!t.burst_over(0));
    }
}
