//! The worker requests the app waits for: one latest request per kind, so a reply to an older
//! one (the user moved on meanwhile) is recognised and dropped ("latest request wins").

/// Identifies one request (unique for the life of the app).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct RequestId(pub u64);

/// The kinds of request whose replies are awaited; a new one of a kind supersedes the last.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RequestKind {
    /// The message window of the selected topic (or its extension).
    Window,
    /// Payload sizes of the messages shown.
    Sizes,
    /// Decoding the selected message for the inspector.
    Decode,
    /// A message as YAML (clipboard or file).
    Yaml,
    /// Writing the marked interval to a bag.
    Export,
    /// A ROS publishing run (its reports carry the id).
    Publish,
    /// The picture preview of the selected message.
    Picture,
}

impl RequestKind {
    const ALL: [RequestKind; 7] = [
        RequestKind::Window,
        RequestKind::Sizes,
        RequestKind::Decode,
        RequestKind::Yaml,
        RequestKind::Export,
        RequestKind::Publish,
        RequestKind::Picture,
    ];

    fn index(self) -> usize {
        self as usize
    }
}

/// The latest request issued of each kind.
#[derive(Clone, Debug, Default)]
pub struct Pending {
    last: u64,
    current: [Option<RequestId>; RequestKind::ALL.len()],
}

impl Pending {
    /// A new id for a request of `kind`; it becomes the one awaited for that kind.
    pub fn issue(&mut self, kind: RequestKind) -> RequestId {
        self.last += 1;
        let id = RequestId(self.last);
        if let Some(slot) = self.current.get_mut(kind.index()) {
            *slot = Some(id);
        }
        id
    }

    /// True when `id` is the latest request issued of `kind` (its reply is still wanted).
    pub fn is_current(&self, kind: RequestKind, id: RequestId) -> bool {
        self.current.get(kind.index()).copied().flatten() == Some(id)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_latest_request_of_each_kind_wins() {
        let mut p = Pending::default();
        assert!(
            !p.is_current(RequestKind::Decode, RequestId(0)),
            "none issued yet"
        );
        let a = p.issue(RequestKind::Decode);
        assert!(p.is_current(RequestKind::Decode, a));
        let b = p.issue(RequestKind::Decode);
        assert_ne!(a, b);
        assert!(!p.is_current(RequestKind::Decode, a), "superseded");
        assert!(p.is_current(RequestKind::Decode, b));
    }

    #[test]
    fn kinds_do_not_supersede_each_other() {
        let mut p = Pending::default();
        let window = p.issue(RequestKind::Window);
        let export = p.issue(RequestKind::Export);
        for kind in RequestKind::ALL {
            if kind != RequestKind::Window && kind != RequestKind::Export {
                p.issue(kind);
            }
        }
        assert!(p.is_current(RequestKind::Window, window));
        assert!(p.is_current(RequestKind::Export, export));
        assert!(
            !p.is_current(RequestKind::Decode, window),
            "an id of one kind is not current for another"
        );
    }

    #[test]
    fn ids_are_unique_across_kinds() {
        let mut p = Pending::default();
        let ids: std::collections::HashSet<RequestId> = RequestKind::ALL
            .iter()
            .cycle()
            .take(60)
            .map(|k| p.issue(*k))
            .collect();
        assert_eq!(ids.len(), 60);
    }
}
