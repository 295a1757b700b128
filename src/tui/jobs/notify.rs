//! Where a background thread reports: a cloneable sink for one kind of news. The threads of
//! `jobs/` (worker, opening, ROS publisher, plot series, search, ...) know only their own news
//! type; the event loop wraps each into its event stream (see `term/event.rs`), so they never
//! name the app or its events.

use std::sync::Arc;
use std::sync::mpsc::Sender;

/// A sink for `T`s, shared by the threads that report them. [`Notify::send`] says whether
/// anyone still listens (false once the app is gone: the thread may then stop).
pub struct Notify<T>(Arc<dyn Fn(T) -> bool + Send + Sync>);

impl<T> Notify<T> {
    /// A sink calling `f` for each piece of news.
    pub fn new(f: impl Fn(T) -> bool + Send + Sync + 'static) -> Self {
        Notify(Arc::new(f))
    }

    /// Hands over `news`; false when nobody listens any more.
    pub fn send(&self, news: T) -> bool {
        (self.0)(news)
    }
}

impl<T: Send + 'static> From<Sender<T>> for Notify<T> {
    fn from(tx: Sender<T>) -> Self {
        Notify::new(move |news| tx.send(news).is_ok())
    }
}

impl<T> Clone for Notify<T> {
    fn clone(&self) -> Self {
        Notify(Arc::clone(&self.0))
    }
}

impl<T> std::fmt::Debug for Notify<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Notify")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn says_when_nobody_listens() {
        let (tx, rx) = std::sync::mpsc::channel();
        let notify = Notify::from(tx);
        assert!(notify.clone().send(1));
        assert_eq!(rx.try_recv(), Ok(1));
        drop(rx);
        assert!(
            !notify.send(2),
            "the receiver is gone: no panic, just false"
        );
    }
}
