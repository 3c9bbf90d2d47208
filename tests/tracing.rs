//! Trace events as `tracing` events (`bt::trace::ToTracing`, feature
//! `tracing`): a subscriber that captures events sees one per trace event,
//! with the node, label, agent and status as fields, at `DEBUG` for
//! levels 1 and 2 and `TRACE` above; a subscriber that filters the target
//! out, or keeps only `DEBUG`, gets nothing more, and the tree builds no
//! event it would drop.

use bt::bitflags::bitflags;
use bt::trace::{STATUSES, TRACING_TARGET, ToTracing};
use bt::{Ctx, NoFlags, Status, Trace};
use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use tracing::field::{Field, Visit};
use tracing::span::{Attributes, Id, Record};
use tracing::{Event, Level, Metadata, Subscriber};

bitflags! {
    #[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
    struct Mode: u8 {
        const DANGER = 1;
    }
}

#[derive(Debug, Default)]
struct Deer {
    hungry: bool,
}

bt::behavior_tree! {
    tree Browse(me: &mut Deer, cx: &Ctx<Mode, NoFlags, impl Trace>) {
        prioritized {
            'flee: flags(any = Mode::DANGER) => action { Status::Running },
            'graze: when me.hungry => action { Status::Running },
            'idle: else => action { Status::Running },
        }
    }
}

/// One captured event: its level, fields as text, and the span it was in
/// (the index of the span in [`Capture::spans`]).
#[derive(Clone, Debug, PartialEq)]
struct Captured {
    level: Level,
    fields: BTreeMap<String, String>,
    span: Option<usize>,
}

impl Captured {
    fn get(&self, field: &str) -> Option<&str> {
        self.fields.get(field).map(String::as_str)
    }
}

/// A span's name and fields.
type SpanSeen = (String, BTreeMap<String, String>);

/// Captures the events of levels up to `max`, and the spans (their name
/// and fields) with which one is entered.
struct Capture {
    max: Level,
    events: Arc<Mutex<Vec<Captured>>>,
    spans: Arc<Mutex<Vec<SpanSeen>>>,
    entered: Mutex<Vec<usize>>,
}

struct Fields<'a>(&'a mut BTreeMap<String, String>);

impl Visit for Fields<'_> {
    fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
        self.0
            .insert(field.name().to_string(), format!("{value:?}"));
    }
    fn record_str(&mut self, field: &Field, value: &str) {
        self.0.insert(field.name().to_string(), value.to_string());
    }
}

impl Subscriber for Capture {
    fn enabled(&self, metadata: &Metadata<'_>) -> bool {
        metadata.target() == TRACING_TARGET && *metadata.level() <= self.max
    }
    fn max_level_hint(&self) -> Option<tracing::level_filters::LevelFilter> {
        Some(self.max.into())
    }
    fn new_span(&self, attributes: &Attributes<'_>) -> Id {
        let mut fields = BTreeMap::new();
        attributes.record(&mut Fields(&mut fields));
        let mut spans = self.spans.lock().unwrap();
        spans.push((attributes.metadata().name().to_string(), fields));
        Id::from_u64(spans.len() as u64)
    }
    fn record(&self, _: &Id, _: &Record<'_>) {}
    fn record_follows_from(&self, _: &Id, _: &Id) {}
    fn event(&self, event: &Event<'_>) {
        let mut fields = BTreeMap::new();
        event.record(&mut Fields(&mut fields));
        self.events.lock().unwrap().push(Captured {
            level: *event.metadata().level(),
            fields,
            span: self.entered.lock().unwrap().last().copied(),
        });
    }
    fn enter(&self, span: &Id) {
        self.entered
            .lock()
            .unwrap()
            .push(span.into_u64() as usize - 1);
    }
    fn exit(&self, span: &Id) {
        let left = self.entered.lock().unwrap().pop();
        assert_eq!(
            left,
            Some(span.into_u64() as usize - 1),
            "spans leave in order"
        );
    }
}

/// Ticks agent 4 three times under a subscriber keeping levels up to
/// `max`: calm and hungry, then in danger, then calm again.
fn run(max: Level, hook: ToTracing) -> Vec<Captured> {
    run_with_spans(max, hook).0
}

/// [`run`], with the spans.
fn run_with_spans(max: Level, hook: ToTracing) -> (Vec<Captured>, Vec<SpanSeen>) {
    let events = Arc::new(Mutex::new(Vec::new()));
    let spans = Arc::new(Mutex::new(Vec::new()));
    let subscriber = Capture {
        max,
        events: Arc::clone(&events),
        spans: Arc::clone(&spans),
        entered: Mutex::new(Vec::new()),
    };
    tracing::subscriber::with_default(subscriber, || {
        let (mut tree, mut deer) = (Browse::default(), Deer { hungry: true });
        for (t, mode) in [Mode::empty(), Mode::DANGER, Mode::empty()]
            .into_iter()
            .enumerate()
        {
            let cx = Ctx::new(t as f64, 1.0).flags(mode).agent(4).trace(hook);
            assert_eq!(tree.tick(&mut deer, &cx), Status::Running);
        }
    });
    let spans = spans.lock().unwrap().clone();
    (events.lock().unwrap().clone(), spans)
}

#[test]
fn every_trace_event_is_a_tracing_event_with_the_node_agent_and_status() {
    let events = run(Level::TRACE, ToTracing::new(STATUSES));
    let activations: Vec<_> = events
        .iter()
        .filter(|e| e.get("event") == Some("activate"))
        .collect();
    // 'graze first, 'flee when danger comes; 'flee runs on after it (only
    // a higher child interrupts the active one).
    let chosen: Vec<_> = activations
        .iter()
        .map(|e| e.get("child").unwrap())
        .collect();
    assert_eq!(chosen, ["graze", "flee"]);
    for e in &activations {
        assert_eq!(e.level, Level::DEBUG, "{e:?}");
        assert_eq!(e.get("agent"), Some("4"));
        assert_eq!(e.get("tree"), Some("Browse"));
        assert_eq!(e.get("kind"), Some("prioritized"));
    }
    // The interrupt names who interrupted whom.
    let interrupt = events
        .iter()
        .find(|e| e.get("event") == Some("interrupt"))
        .expect("danger interrupts grazing");
    assert_eq!(interrupt.get("child"), Some("graze"));
    assert_eq!(interrupt.get("by"), Some("flee"));
    // Every node's status, at TRACE: 'graze on tick 1, 'flee on 2 and 3.
    let returned = |label| {
        events
            .iter()
            .filter(|e| e.get("event") == Some("returned") && e.get("label") == Some(label))
            .collect::<Vec<_>>()
    };
    assert_eq!(returned("graze").len(), 1);
    assert_eq!(returned("flee").len(), 2);
    for e in returned("graze").iter().chain(&returned("flee")) {
        assert_eq!(e.level, Level::TRACE);
        assert_eq!(e.get("status"), Some("running"));
        assert_eq!(e.get("kind"), Some("action"));
    }
    // Guard verdicts carry the rejecting clause.
    let rejected = events
        .iter()
        .find(|e| e.get("event") == Some("guard") && e.get("accepted") == Some("false"))
        .expect("'flee's guard rejects while calm");
    assert_eq!(rejected.get("child"), Some("flee"));
    assert!(
        rejected
            .get("rejected_by")
            .is_some_and(|c| c.contains("DANGER"))
    );
    // The time of each tick is a field; the tick's start and end are
    // events too.
    assert!(events.iter().any(|e| e.get("now") == Some("2.0")));
    let ends: Vec<_> = events
        .iter()
        .filter(|e| e.get("event") == Some("tick_end"))
        .map(|e| e.get("status").unwrap())
        .collect();
    assert_eq!(ends, ["running"; 3]);
}

#[test]
fn a_subscriber_keeping_debug_gets_only_levels_1_and_2() {
    let events = run(Level::DEBUG, ToTracing::new(STATUSES));
    assert!(!events.is_empty());
    assert!(events.iter().all(|e| e.level == Level::DEBUG), "{events:?}");
    assert!(
        events
            .iter()
            .all(|e| { matches!(e.get("event"), Some("activate" | "interrupt" | "end")) })
    );
}

#[test]
fn a_subscriber_that_filters_the_target_out_gets_nothing() {
    let events = run(Level::INFO, ToTracing::new(STATUSES));
    assert!(events.is_empty(), "{events:?}");
}

#[test]
fn a_hook_for_one_agent_sends_nothing_for_another() {
    let events = run(Level::TRACE, ToTracing::new(STATUSES).only_agent(5));
    assert!(events.is_empty());
    let events = run(Level::TRACE, ToTracing::new(2).only_agent(4));
    assert!(!events.is_empty());
    assert!(events.iter().all(|e| e.level == Level::DEBUG));
}

#[test]
fn with_tick_spans_each_tick_is_a_span_holding_its_events() {
    let (events, spans) = run_with_spans(Level::TRACE, ToTracing::new(STATUSES).with_tick_spans());
    assert_eq!(spans.len(), 3, "one span per tick: {spans:?}");
    for (k, (name, fields)) in spans.iter().enumerate() {
        assert_eq!(name, "tick");
        assert_eq!(fields.get("agent").map(String::as_str), Some("4"));
        assert_eq!(fields.get("tree").map(String::as_str), Some("Browse"));
        assert_eq!(fields.get("now"), Some(&format!("{:?}", k as f64)));
    }
    assert!(!events.is_empty());
    for e in &events {
        let span = e.span.expect("every event is inside its tick's span");
        assert_eq!(e.get("now"), spans[span].1.get("now").map(String::as_str));
    }
    // Without, no span.
    let (events, spans) = run_with_spans(Level::TRACE, ToTracing::new(STATUSES));
    assert!(spans.is_empty());
    assert!(events.iter().all(|e| e.span.is_none()));
}
