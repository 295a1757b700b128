//! Keeping a list's selection inside its viewport.

/// The scroll offset that shows row `selected` of `len` rows in a viewport of `height` rows,
/// moving the current `offset` as little as possible.
pub fn offset_for(selected: usize, offset: usize, len: usize, height: usize) -> usize {
    let height = height.max(1);
    let offset = if selected < offset {
        selected
    } else if selected >= offset + height {
        selected + 1 - height
    } else {
        offset
    };
    offset.min(len.saturating_sub(height))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn follows_the_selection() {
        assert_eq!(offset_for(20, 0, 50, 10), 11);
        assert_eq!(offset_for(5, 11, 50, 10), 5);
        assert_eq!(offset_for(7, 5, 50, 10), 5);
        assert_eq!(offset_for(49, 0, 50, 10), 40);
        assert_eq!(offset_for(0, 30, 5, 10), 0);
    }
}
