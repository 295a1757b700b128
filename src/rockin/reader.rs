//! The messages of a RoCKIn file, one at a time: each list item's `topic`, `secs`, `nsecs`
//! (and optional `type`) and its `message` converted against the topic's type.

use std::collections::{HashMap, VecDeque};
use std::io::BufRead;
use std::sync::Arc;

use crate::msg::{Registry, Schema, Value};
use crate::time::RosTime;

use super::Limits;
use super::build::{self, wrong};
use super::error::{InputError, InputErrorKind, Mark};
use super::scalars::parse_int;
use super::topics::{known_topics, topic_type};
use super::yaml::{Event, Events, Parser, Replay, Scalar};

/// One message of a RoCKIn file.
#[derive(Debug, Clone)]
pub struct Item {
    /// The topic exactly as written (`pose2d`).
    pub topic: String,
    /// Its message type: from the item's `type` key, else from the RoCKIn table.
    pub datatype: String,
    /// `secs` and `nsecs`: the receive time.
    pub time: RosTime,
    /// The message.
    pub value: Value<'static>,
    /// The compiled type the message was read with.
    pub schema: Arc<Schema>,
    /// Where the item starts.
    pub mark: Mark,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum State {
    Start,
    List,
    Done,
}

/// Reads the messages of a RoCKIn YAML file as they come, holding one message at a time.
///
/// Message types come from `registry` (the bundled definitions, plus `--msg-path`).
pub struct MessageReader<'r, R> {
    parser: Parser<R>,
    registry: &'r Registry,
    schemas: HashMap<String, Arc<Schema>>,
    state: State,
}

/// A scalar key's value and where it is.
type Located = (String, Mark);

impl<'r, R: BufRead> MessageReader<'r, R> {
    /// A reader of `input`.
    pub fn new(input: R, registry: &'r Registry, limits: Limits) -> Self {
        MessageReader {
            parser: Parser::new(input, limits),
            registry,
            schemas: HashMap::new(),
            state: State::Start,
        }
    }

    /// Bytes of the input consumed so far.
    pub fn bytes_read(&self) -> u64 {
        self.parser.bytes_read()
    }

    /// The next message, or `None` at the end of the list.
    pub fn next_message(&mut self) -> Result<Option<Item>, InputError> {
        let r = self.next_inner();
        if !matches!(r, Ok(Some(_))) {
            self.state = State::Done;
        }
        r
    }

    fn next_inner(&mut self) -> Result<Option<Item>, InputError> {
        loop {
            match self.state {
                State::Done => return Ok(None),
                State::Start => match self.parser.next_event()? {
                    Event::SeqStart { .. } => self.state = State::List,
                    Event::Scalar(s) if s.is_null() => return self.expect_end(),
                    Event::StreamEnd { .. } => return Ok(None),
                    other => {
                        return Err(wrong("a list of messages (`- topic: ...` items)", &other));
                    }
                },
                State::List => {
                    return match self.parser.next_event()? {
                        Event::SeqEnd { .. } => self.expect_end(),
                        Event::MapStart { mark, .. } => self.item(mark).map(Some),
                        other => Err(wrong(
                            "a message item (a mapping of topic, secs, nsecs and message)",
                            &other,
                        )),
                    };
                }
            }
        }
    }

    fn expect_end(&mut self) -> Result<Option<Item>, InputError> {
        match self.parser.next_event()? {
            Event::StreamEnd { .. } => Ok(None),
            other => Err(InputError::syntax(
                other.mark(),
                "content after the list of messages",
            )),
        }
    }

    /// The compiled type `datatype`, named at `mark` in errors.
    fn schema(&mut self, datatype: &str, mark: Mark) -> Result<Arc<Schema>, InputError> {
        if let Some(s) = self.schemas.get(datatype) {
            return Ok(Arc::clone(s));
        }
        let s = Schema::from_registry(datatype, None, self.registry).map_err(|e| {
            InputError::new(
                mark,
                InputErrorKind::UnknownType {
                    datatype: datatype.to_string(),
                    reason: e.to_string(),
                },
            )
        })?;
        self.schemas.insert(datatype.to_string(), Arc::clone(&s));
        Ok(s)
    }

    /// The type of an item from its `type` or `topic`; `None` when not known yet (and
    /// `finished` is false).
    fn resolve(
        &mut self,
        topic: Option<&Located>,
        datatype: Option<&Located>,
        finished: bool,
    ) -> Result<Option<(String, Arc<Schema>)>, InputError> {
        if let Some((dt, mark)) = datatype {
            return Ok(Some((dt.clone(), self.schema(dt, *mark)?)));
        }
        let Some((topic, mark)) = topic else {
            return Ok(None);
        };
        match topic_type(topic) {
            Some(dt) => Ok(Some((dt.to_string(), self.schema(dt, *mark)?))),
            None if finished => Err(InputError::new(
                *mark,
                InputErrorKind::UnknownTopic {
                    topic: topic.clone(),
                    known: known_topics(),
                },
            )),
            None => Ok(None),
        }
    }

    /// A scalar value (the next event) of an item key.
    fn text_value(&mut self, key: &str) -> Result<Scalar, InputError> {
        match self.parser.next_event()? {
            Event::Scalar(s) if !s.is_null() => Ok(s),
            other => Err(wrong(format!("a value for '{key}'"), &other).in_field(key)),
        }
    }

    fn u32_value(&mut self, key: &'static str, max: u32) -> Result<u32, InputError> {
        let s = self.text_value(key)?;
        let range = if max == u32::MAX {
            "0 to 4294967295"
        } else {
            "0 to 999999999"
        };
        let out_of_range = || {
            InputError::new(
                s.mark,
                InputErrorKind::OutOfRange {
                    value: s.text.trim().to_string(),
                    ty: key,
                    range,
                },
            )
            .in_field(key)
        };
        match parse_int(&s.text) {
            Ok(v) => u32::try_from(v)
                .ok()
                .filter(|v| *v <= max)
                .ok_or_else(out_of_range),
            Err(super::scalars::IntProblem::TooLarge) => Err(out_of_range()),
            Err(super::scalars::IntProblem::NotInteger) => Err(InputError::new(
                s.mark,
                InputErrorKind::WrongType {
                    expected: format!("an integer ({range})"),
                    found: s.describe(),
                },
            )
            .in_field(key)),
        }
    }

    /// One list item, whose mapping starts at `start`.
    fn item(&mut self, start: Mark) -> Result<Item, InputError> {
        let mut topic: Option<Located> = None;
        let mut datatype: Option<Located> = None;
        let mut secs = None;
        let mut nsecs = None;
        let mut built: Option<(Value<'static>, String, Arc<Schema>)> = None;
        let mut deferred: Option<VecDeque<Event>> = None;
        let (end, eof) = loop {
            let key = match self.parser.next_event()? {
                Event::MapEnd { mark, eof } => break (mark, eof),
                Event::Scalar(s) => s,
                other => return Err(wrong("a key (topic, secs, nsecs or message)", &other)),
            };
            let dup = || InputError::new(key.mark, InputErrorKind::Duplicate(key.text.clone()));
            match key.text.as_str() {
                "topic" => {
                    if topic.is_some() {
                        return Err(dup());
                    }
                    let s = self.text_value("topic")?;
                    topic = Some((s.text, s.mark));
                }
                "type" => {
                    if datatype.is_some() {
                        return Err(dup());
                    }
                    let s = self.text_value("type")?;
                    if let Some((_, used, _)) = &built {
                        if *used != s.text {
                            return Err(InputError::syntax(
                                key.mark,
                                format!(
                                    "`type` comes after `message`, which was read as {used}: put `type` before `message`"
                                ),
                            ));
                        }
                    }
                    datatype = Some((s.text, s.mark));
                }
                "secs" => {
                    if secs.is_some() {
                        return Err(dup());
                    }
                    secs = Some(self.u32_value("secs", u32::MAX)?);
                }
                "nsecs" => {
                    if nsecs.is_some() {
                        return Err(dup());
                    }
                    nsecs = Some(self.u32_value("nsecs", 999_999_999)?);
                }
                "message" => {
                    if built.is_some() || deferred.is_some() {
                        return Err(dup());
                    }
                    let first = self.parser.next_event()?;
                    match self.resolve(topic.as_ref(), datatype.as_ref(), false)? {
                        Some((dt, schema)) => {
                            let v = build::message(&mut self.parser, schema.root(), first)
                                .map_err(|e| e.in_field("message"))?;
                            built = Some((v, dt, schema));
                        }
                        None => deferred = Some(self.capture(first)?),
                    }
                }
                _ => {
                    return Err(InputError::new(
                        key.mark,
                        InputErrorKind::UnexpectedKey(key.text.clone()),
                    ));
                }
            }
        };
        let missing = |name: &'static str| {
            if eof && end.column > 1 {
                InputError::new(end, InputErrorKind::TruncatedItem(name))
            } else {
                InputError::new(
                    start,
                    InputErrorKind::MissingKey {
                        key: name,
                        truncated: eof,
                    },
                )
            }
        };
        let topic = topic.ok_or_else(|| missing("topic"))?;
        let secs = secs.ok_or_else(|| missing("secs"))?;
        let nsecs = nsecs.ok_or_else(|| missing("nsecs"))?;
        let (value, dt, schema) = match (built, deferred) {
            (Some(b), _) => b,
            (None, Some(events)) => {
                let Some((dt, schema)) = self.resolve(Some(&topic), datatype.as_ref(), true)?
                else {
                    return Err(missing("topic"));
                };
                let mut replay = Replay(events);
                let first = replay.next_event()?;
                let v = build::message(&mut replay, schema.root(), first)
                    .map_err(|e| e.in_field("message"))?;
                (v, dt, schema)
            }
            (None, None) => return Err(missing("message")),
        };
        Ok(Item {
            topic: topic.0,
            datatype: dt,
            time: RosTime::new(secs, nsecs),
            value,
            schema,
            mark: start,
        })
    }

    /// Records the events of one node (whose first event is `first`) to convert later.
    fn capture(&mut self, first: Event) -> Result<VecDeque<Event>, InputError> {
        let mut out = VecDeque::new();
        let mut depth = 0usize;
        let mut e = first;
        loop {
            match &e {
                Event::SeqStart { .. } | Event::MapStart { .. } => depth += 1,
                Event::SeqEnd { .. } | Event::MapEnd { .. } => depth = depth.saturating_sub(1),
                Event::Scalar(_) | Event::StreamEnd { .. } => {}
            }
            let stop = depth == 0 || matches!(e, Event::StreamEnd { .. });
            out.push_back(e);
            if stop {
                return Ok(out);
            }
            e = self.parser.next_event()?;
        }
    }
}

impl<R: BufRead> Iterator for MessageReader<'_, R> {
    type Item = Result<Item, InputError>;

    fn next(&mut self) -> Option<Self::Item> {
        self.next_message().transpose()
    }
}
