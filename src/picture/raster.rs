//! The RGB raster a picture becomes, the size it is scaled to, and the area-average
//! downscaler that decoders feed one source pixel at a time.

/// Where a picture must fit, in pixels (aspect ratio kept, never enlarged).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Fit {
    /// Most pixels across.
    pub width: u32,
    /// Most pixels down.
    pub height: u32,
}

impl Fit {
    /// No scaling: the source size.
    pub const FULL: Fit = Fit {
        width: u32::MAX,
        height: u32::MAX,
    };

    /// A fit of `width` × `height` pixels (at least 1 × 1).
    pub fn new(width: u32, height: u32) -> Fit {
        Fit {
            width: width.max(1),
            height: height.max(1),
        }
    }

    /// The size a `width` × `height` source is scaled to: the largest that fits with the same
    /// aspect ratio, no larger than the source, at least 1 × 1.
    pub fn scaled(self, width: u64, height: u64) -> (u32, u32) {
        let (w, h) = (width.max(1), height.max(1));
        let (fw, fh) = (u64::from(self.width), u64::from(self.height));
        if w <= fw && h <= fh {
            return (clamp(w), clamp(h));
        }
        // Compare fw/w with fh/h without floats.
        if fw.saturating_mul(h) <= fh.saturating_mul(w) {
            (clamp(fw), clamp((h.saturating_mul(fw) / w).max(1)))
        } else {
            (clamp((w.saturating_mul(fh) / h).max(1)), clamp(fh))
        }
    }
}

fn clamp(v: u64) -> u32 {
    u32::try_from(v).unwrap_or(u32::MAX).max(1)
}

/// Pixels, 3 bytes (R, G, B) each, row after row.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Raster {
    /// Width in pixels.
    pub width: u32,
    /// Height in pixels.
    pub height: u32,
    /// `width × height × 3` bytes.
    pub rgb: Vec<u8>,
}

#[allow(clippy::many_single_char_names)]
impl Raster {
    /// A `width` × `height` raster of one colour (the caller has bounded the size).
    pub fn filled(width: u32, height: u32, color: [u8; 3]) -> Raster {
        let n = width as usize * height as usize;
        let mut rgb = Vec::with_capacity(n * 3);
        for _ in 0..n {
            rgb.extend_from_slice(&color);
        }
        Raster { width, height, rgb }
    }

    /// The pixel at `(x, y)` (black outside).
    pub fn get(&self, x: u32, y: u32) -> [u8; 3] {
        if x >= self.width || y >= self.height {
            return [0; 3];
        }
        let i = (y as usize * self.width as usize + x as usize) * 3;
        match self.rgb.get(i..i + 3) {
            Some([r, g, b]) => [*r, *g, *b],
            _ => [0; 3],
        }
    }

    /// Sets the pixel at `(x, y)` (ignored outside).
    pub fn set(&mut self, x: u32, y: u32, color: [u8; 3]) {
        if x >= self.width || y >= self.height {
            return;
        }
        let i = (y as usize * self.width as usize + x as usize) * 3;
        if let Some(p) = self.rgb.get_mut(i..i + 3) {
            p.copy_from_slice(&color);
        }
    }
}

/// Area-average downscaling: each source pixel is added to the target pixel it falls in;
/// [`Shrinker::finish`] divides. With equal sizes every target pixel is its source pixel.
pub(crate) struct Shrinker {
    width: u32,
    height: u32,
    /// Target column of each source column.
    cols: Vec<u32>,
    src_height: u64,
    sums: Vec<u32>,
    counts: Vec<u32>,
    /// Target row of the current source row (its sums start here).
    row: usize,
}

impl Shrinker {
    /// A shrinker from `src_w` × `src_h` (already bounded by `MAX_PIXELS`) to `fit`.
    pub(crate) fn new(src_w: u64, src_h: u64, fit: Fit) -> Shrinker {
        let (width, height) = fit.scaled(src_w, src_h);
        let cols = (0..src_w)
            .map(|x| u32::try_from(x * u64::from(width) / src_w.max(1)).unwrap_or(0))
            .collect();
        let n = width as usize * height as usize;
        Shrinker {
            width,
            height,
            cols,
            src_height: src_h.max(1),
            sums: vec![0; n * 3],
            counts: vec![0; n],
            row: 0,
        }
    }

    /// Starts source row `y`.
    pub(crate) fn row(&mut self, y: u64) {
        let ty = y * u64::from(self.height) / self.src_height;
        self.row = usize::try_from(ty).unwrap_or(0) * self.width as usize;
    }

    /// Adds the source pixel in column `x` of the current row.
    #[inline]
    pub(crate) fn add(&mut self, x: usize, rgb: [u8; 3]) {
        let Some(&tx) = self.cols.get(x) else {
            return;
        };
        let i = self.row + tx as usize;
        if let Some(c) = self.counts.get_mut(i) {
            *c += 1;
        }
        if let Some(s) = self.sums.get_mut(i * 3..i * 3 + 3) {
            for (s, v) in s.iter_mut().zip(rgb) {
                *s += u32::from(v);
            }
        }
    }

    /// The averaged raster.
    pub(crate) fn finish(self) -> Raster {
        let mut rgb = Vec::with_capacity(self.sums.len());
        for (s, &c) in self.sums.chunks_exact(3).zip(&self.counts) {
            let c = c.max(1);
            for v in s {
                rgb.push(u8::try_from((v + c / 2) / c).unwrap_or(u8::MAX));
            }
        }
        Raster {
            width: self.width,
            height: self.height,
            rgb,
        }
    }
}
