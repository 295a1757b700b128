//! Min/max levels over a column's values, so the minimum and maximum over any index range
//! cost O(B · log_B n) instead of O(n): a whole-bag view of a million points stays cheap per
//! frame.
//!
//! Level 0 is the values themselves; level k + 1 holds, per block of [`BLOCK`] entries of
//! level k, their (min, max). Non-finite values (NaN, ±inf) are left out of every min/max.
//! The levels add about 16 / (BLOCK − 1) bytes per point (0.5 with 32).

/// Entries of one level folded into one entry of the next.
pub const BLOCK: usize = 32;

/// Min/max of a range: `None` when it holds no finite value.
pub type MinMax = Option<(f64, f64)>;

/// The levels above the values.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Levels {
    /// `levels[k]` folds `BLOCK^(k+1)` values per entry; entries with no finite value hold
    /// `(inf, -inf)`.
    levels: Vec<Vec<(f64, f64)>>,
}

const EMPTY: (f64, f64) = (f64::INFINITY, f64::NEG_INFINITY);

fn fold(a: (f64, f64), b: (f64, f64)) -> (f64, f64) {
    (a.0.min(b.0), a.1.max(b.1))
}

fn of_value(v: f64) -> (f64, f64) {
    if v.is_finite() { (v, v) } else { EMPTY }
}

impl Levels {
    /// Builds the levels over `values` (O(n)).
    pub fn new(values: &[f64]) -> Self {
        let mut levels: Vec<Vec<(f64, f64)>> = Vec::new();
        if values.len() <= BLOCK {
            return Levels { levels };
        }
        let first: Vec<(f64, f64)> = values
            .chunks(BLOCK)
            .map(|c| c.iter().map(|v| of_value(*v)).fold(EMPTY, fold))
            .collect();
        levels.push(first);
        while levels.last().is_some_and(|l| l.len() > BLOCK) {
            let next: Vec<(f64, f64)> = levels
                .last()
                .map(|l| {
                    l.chunks(BLOCK)
                        .map(|c| c.iter().copied().fold(EMPTY, fold))
                        .collect()
                })
                .unwrap_or_default();
            levels.push(next);
        }
        Levels { levels }
    }

    /// Brings the levels up to date with `values` when only `values[from..]` changed (points
    /// appended): the entries over earlier whole blocks are kept, so an appended piece costs
    /// O(piece + BLOCK · levels) instead of a rebuild. The result equals `Levels::new(values)`.
    pub fn update(&mut self, values: &[f64], from: usize) {
        if self.levels.is_empty() || values.len() <= BLOCK {
            *self = Levels::new(values);
            return;
        }
        // The first entry of level k whose block holds a changed entry of level k − 1.
        let mut block = from / BLOCK;
        if let Some(first) = self.levels.first_mut() {
            first.truncate(block);
            let start = block.saturating_mul(BLOCK);
            first.extend(
                values
                    .get(start..)
                    .unwrap_or_default()
                    .chunks(BLOCK)
                    .map(|c| c.iter().map(|v| of_value(*v)).fold(EMPTY, fold)),
            );
        }
        let mut k = 1;
        while self.levels.get(k - 1).is_some_and(|l| l.len() > BLOCK) {
            block /= BLOCK;
            let start = block.saturating_mul(BLOCK);
            let fresh: Vec<(f64, f64)> = self
                .levels
                .get(k - 1)
                .and_then(|below| below.get(start..))
                .unwrap_or_default()
                .chunks(BLOCK)
                .map(|c| c.iter().copied().fold(EMPTY, fold))
                .collect();
            if k == self.levels.len() {
                self.levels.push(Vec::new());
            }
            if let Some(level) = self.levels.get_mut(k) {
                level.truncate(block);
                level.extend(fresh);
            }
            k += 1;
        }
        self.levels.truncate(k);
    }

    /// Bytes held.
    pub fn heap_bytes(&self) -> usize {
        self.levels
            .iter()
            .map(|l| l.capacity() * size_of::<(f64, f64)>())
            .sum()
    }

    /// Exact min and max of the finite values in `values[range]` (`values` being what the
    /// levels were built over).
    pub fn min_max(&self, values: &[f64], range: std::ops::Range<usize>) -> MinMax {
        let end = range.end.min(values.len());
        let mut lo = range.start.min(end);
        let mut hi = end;
        let mut acc = EMPTY;
        // Folds entries `a..b` of level `k` (0: the values; k ≥ 1: `self.levels[k - 1]`),
        // a slice at a time.
        let fold_range = |acc: (f64, f64), k: usize, a: usize, b: usize| match k.checked_sub(1) {
            None => values
                .get(a..b)
                .unwrap_or_default()
                .iter()
                .fold(acc, |m, v| fold(m, of_value(*v))),
            Some(up) => self
                .levels
                .get(up)
                .and_then(|l| l.get(a..b))
                .unwrap_or_default()
                .iter()
                .fold(acc, |m, e| fold(m, *e)),
        };
        let mut k = 0usize;
        loop {
            // `lo..hi` index entries of level `k`. Short ranges, or the top: scan.
            if hi - lo <= 2 * BLOCK || k == self.levels.len() {
                acc = fold_range(acc, k, lo, hi);
                break;
            }
            // Fold up to block boundaries on each side, then go up a level.
            let up_lo = lo.div_ceil(BLOCK);
            let up_hi = hi / BLOCK;
            acc = fold_range(acc, k, lo, up_lo * BLOCK);
            acc = fold_range(acc, k, up_hi * BLOCK, hi);
            lo = up_lo;
            hi = up_hi;
            k += 1;
        }
        (acc.0 <= acc.1).then_some(acc)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn brute(values: &[f64], r: std::ops::Range<usize>) -> MinMax {
        let acc = values[r].iter().map(|v| of_value(*v)).fold(EMPTY, fold);
        (acc.0 <= acc.1).then_some(acc)
    }

    #[test]
    fn updating_after_appends_equals_a_rebuild() {
        let values: Vec<f64> = (0..70_000).map(|i| f64::from(i % 1_013) - 500.0).collect();
        let mut levels = Levels::default();
        let mut end = 0;
        for piece in [1, 31, 2, 64, 1_000, 7, 30_000, 1, 38_894] {
            let from = end;
            end += piece;
            levels.update(&values[..end], from);
            assert_eq!(levels, Levels::new(&values[..end]), "after {end} values");
        }
    }

    #[test]
    fn matches_a_scan_on_every_kind_of_range() {
        let mut seed = 7u64;
        let values: Vec<f64> = (0..40_000)
            .map(|i| {
                seed = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
                if i % 997 == 0 {
                    f64::NAN
                } else {
                    ((seed >> 33) as f64).sin() * 100.0
                }
            })
            .collect();
        let levels = Levels::new(&values);
        assert!(levels.heap_bytes() < values.len());
        let n = values.len();
        for (a, b) in [
            (0, n),
            (0, 1),
            (5, 5),
            (31, 33),
            (1, n - 1),
            (1000, 1031),
            (1024, 32_768),
            (1023, 32_769),
            (12_345, 39_999),
            (n - 3, n),
        ] {
            assert_eq!(
                levels.min_max(&values, a..b),
                brute(&values, a..b),
                "{a}..{b}"
            );
        }
        for i in 0..500 {
            let a = (i * 7919) % n;
            let b = (a + i * i * 13) % (n + 1);
            let (a, b) = (a.min(b), a.max(b));
            assert_eq!(
                levels.min_max(&values, a..b),
                brute(&values, a..b),
                "{a}..{b}"
            );
        }
        // Out-of-range ends are clamped; all-NaN is None.
        assert_eq!(levels.min_max(&values, 0..n + 10), brute(&values, 0..n));
        let nan = vec![f64::NAN; 100];
        assert_eq!(Levels::new(&nan).min_max(&nan, 0..100), None);
        // A single spike is found from the top level.
        let mut flat = vec![1.0; 100_000];
        flat[77_777] = 50.0;
        flat[3] = -2.0;
        assert_eq!(
            Levels::new(&flat).min_max(&flat, 0..100_000),
            Some((-2.0, 50.0))
        );
    }
}
