//! Work spread over a few threads for the length of one call (a scoped fork and join): the
//! topic filter scores hundreds of thousands of names on every core.

/// `work` on `parts` slices of `items` at once (one thread each; inline for one part), the
/// results in the order of the slices. A part whose thread could not start is done on this
/// one; one whose thread panicked adds nothing.
pub fn map_parts<T: Sync, R: Send>(
    items: &[T],
    parts: usize,
    work: impl Fn(&[T]) -> Vec<R> + Sync,
) -> Vec<R> {
    if parts <= 1 || items.len() < 2 {
        return work(items);
    }
    let size = items.len().div_ceil(parts);
    let work = &work;
    std::thread::scope(|scope| {
        let handles: Vec<_> = items
            .chunks(size)
            .map(|part| {
                std::thread::Builder::new()
                    .name("topic-filter-part".into())
                    .spawn_scoped(scope, move || work(part))
                    .map_err(|_| part)
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| match h {
                Ok(h) => h.join().unwrap_or_default(),
                // No thread: this part is scored here.
                Err(part) => work(part),
            })
            .collect()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parts_come_back_in_order() {
        let items: Vec<u32> = (0..1000).collect();
        let doubled = |p: &[u32]| p.iter().map(|x| x * 2).collect::<Vec<_>>();
        let want: Vec<u32> = items.iter().map(|x| x * 2).collect();
        for parts in [0, 1, 3, 8] {
            assert_eq!(map_parts(&items, parts, doubled), want, "{parts} parts");
        }
        assert!(map_parts(&[] as &[u32], 4, doubled).is_empty());
    }
}
