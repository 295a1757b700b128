//! False colours for depth and height: the "turbo" map (Google, 2019, polynomial fit),
//! dark blue for the low end through green to dark red for the high end.

/// The colour of `t` in `0..=1` (clamped; NaN is black).
#[allow(clippy::many_single_char_names)]
pub(crate) fn turbo(t: f64) -> [u8; 3] {
    if t.is_nan() {
        return [0; 3];
    }
    let x = t.clamp(0.0, 1.0);
    let r = 0.135_721_38
        + x * (4.615_392_6
            + x * (-42.660_322_66
                + x * (132.131_082_9 + x * (-152.942_393_96 + x * 59.286_379_48))));
    let g = 0.091_402_61
        + x * (2.194_188_39
            + x * (4.842_966_58 + x * (-14.185_033_33 + x * (4.277_298_55 + x * 2.829_566_04))));
    let b = 0.106_673_3
        + x * (12.641_946_08
            + x * (-60.582_048_36
                + x * (110.362_767_71 + x * (-89.903_109_13 + x * 27.348_249_81))));
    [channel(r), channel(g), channel(b)]
}

#[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
fn channel(v: f64) -> u8 {
    (v.clamp(0.0, 1.0) * 255.0).round() as u8
}

/// Where `v` lies in `lo..=hi`, as `0..=1` (0 when the range is empty).
pub(crate) fn unit(v: f64, lo: f64, hi: f64) -> f64 {
    if hi > lo { (v - lo) / (hi - lo) } else { 0.0 }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn turbo_runs_from_blue_to_red() {
        let lo = turbo(0.15);
        let hi = turbo(1.0);
        assert!(lo[2] > lo[0], "low end is blue: {lo:?}");
        assert_eq!(turbo(0.0), [35, 23, 27], "the polynomial's dark start");
        assert!(hi[0] > hi[2], "high end is red: {hi:?}");
        let mid = turbo(0.5);
        assert!(mid[1] > 200, "middle is green-ish: {mid:?}");
        assert_eq!(turbo(f64::NAN), [0, 0, 0]);
        assert_eq!(turbo(-3.0), turbo(0.0));
    }
}
