//! A bounded, uniform sample of documents kept in memory after profiling,
//! for the stages that look at individual documents (references, growth,
//! the explorer's document view).

use crate::source::Sink;

/// Uniform sample of a stream of unknown length (Vitter's algorithm R), with
/// a fixed seed per collection so that a file gives the same sample on
/// every run.
pub struct Reservoir {
    cap: u64,
    max_bytes: usize,
    bytes: usize,
    seen: u64,
    rng: u64,
    items: Vec<(u64, Vec<u8>)>,
    /// Documents passed over because they alone would exceed the budget.
    oversized: u64,
}

impl Reservoir {
    /// At most `cap` documents and (roughly) `max_bytes` bytes.
    pub fn new(cap: u64, max_bytes: usize, seed: u64) -> Reservoir {
        Reservoir {
            cap,
            max_bytes,
            bytes: 0,
            seen: 0,
            rng: seed | 1,
            items: Vec::new(),
            oversized: 0,
        }
    }

    fn next_rand(&mut self) -> u64 {
        // xorshift64*
        self.rng ^= self.rng >> 12;
        self.rng ^= self.rng << 25;
        self.rng ^= self.rng >> 27;
        self.rng.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    pub fn offer(&mut self, bytes: &[u8]) {
        let i = self.seen;
        self.seen += 1;
        if (self.items.len() as u64) < self.cap {
            if self.bytes + bytes.len() > self.max_bytes {
                self.oversized += 1;
                return;
            }
            self.bytes += bytes.len();
            self.items.push((i, bytes.to_vec()));
            return;
        }
        let j = self.next_rand() % self.seen;
        if j < self.cap {
            let slot = &mut self.items[j as usize];
            if self.bytes - slot.1.len() + bytes.len() > self.max_bytes {
                self.oversized += 1;
                return;
            }
            self.bytes = self.bytes - slot.1.len() + bytes.len();
            slot.0 = i;
            slot.1.clear();
            slot.1.extend_from_slice(bytes);
        }
    }

    /// Documents skipped to stay within the byte budget.
    pub fn oversized(&self) -> u64 {
        self.oversized
    }

    /// The kept documents in the order they were read.
    pub fn into_documents(mut self) -> Vec<Vec<u8>> {
        self.items.sort_unstable_by_key(|(i, _)| *i);
        self.items.into_iter().map(|(_, b)| b).collect()
    }

    pub fn len(&self) -> usize {
        self.items.len()
    }

    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    /// Hands the sample to `sink` in the order the documents were read.
    pub fn drain_into(mut self, sink: &mut dyn Sink) {
        self.items.sort_unstable_by_key(|(i, _)| *i);
        for (_, b) in &self.items {
            sink.document(b);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reservoir_is_uniform_enough_and_bounded() {
        let mut hits = vec![0u32; 100];
        for seed in 0..400u64 {
            let mut r = Reservoir::new(10, usize::MAX, seed * 7919 + 1);
            for i in 0..100u8 {
                r.offer(&[i]);
            }
            assert_eq!(r.len(), 10);
            let mut got = Vec::new();
            r.drain_into(&mut |b: &[u8]| got.push(b[0]));
            assert!(got.windows(2).all(|w| w[0] < w[1]), "kept in read order");
            for g in got {
                hits[g as usize] += 1;
            }
        }
        // Each item is expected 40 times; allow generous noise.
        assert!(hits.iter().all(|&h| (15..=70).contains(&h)), "{hits:?}");
    }

    #[test]
    fn byte_budget_is_respected() {
        let mut r = Reservoir::new(100, 50, 1);
        for i in 0..100u8 {
            r.offer(&[i; 10]);
        }
        assert_eq!(r.len(), 5);
        assert!(r.oversized() > 0);
        let docs = r.into_documents();
        assert!(docs.iter().map(Vec::len).sum::<usize>() <= 50);
    }
}
