//! Deferred requests: exact message streams for request → answer, request
//! → cancellation on preemption, a late answer after a cancellation, stale
//! tickets after `reset`, a full stream, the worst-case constant, and the
//! exactly-once rule under random preemption.

use bt::Ctx;
use bt::Outcome;
use bt::prelude::*;
use bt::request::{Message, Requests, Stale, Ticket};
use proptest::prelude::*;

/// What an agent asks its animation system for.
#[derive(Clone, Debug, PartialEq)]
enum Anim {
    Run,
    Wave(u32),
}

#[derive(Default)]
struct Bot {
    sees: bool,
    log: Vec<&'static str>,
}

behavior_tree! {
    /// Runs while it sees something; waves once it stops.
    tree Chase(me: &mut Bot, anims: &mut Requests<Anim>, cx: &Ctx) {
        reactive_select {
            reactive_sequence {
                cond me.sees,
                request(anims, Anim::Run),
                action { me.log.push("ran"); Status::Success },
            },
            sequence {
                request(anims, Anim::Wave(7)),
                action { me.log.push("waved"); Status::Success },
            },
        }
    }
}

/// One agent of `Chase` and a stream for it.
fn chase(sees: bool) -> (Requests<Anim>, Bot, Chase) {
    let me = Bot {
        sees,
        ..Bot::default()
    };
    (Requests::for_agents::<Chase>(1), me, Chase::default())
}

fn ticket(agent: u64, slot: u32, stream: u32, generation: u32) -> Ticket {
    Ticket {
        agent,
        slot,
        stream,
        generation,
    }
}

fn cx(agent: u64) -> Ctx {
    Ctx::new(0.0, 0.1).agent(agent)
}

fn starts(messages: &[Message<Anim>]) -> Vec<(Ticket, Anim)> {
    messages
        .iter()
        .filter_map(|m| match m {
            Message::Start(t, r) => Some((*t, r.clone())),
            Message::Cancel(_) => None,
        })
        .collect()
}

#[test]
fn a_request_is_pushed_once_and_its_answer_is_returned_on_the_next_tick() {
    let (mut anims, mut me, mut tree) = chase(true);

    assert_eq!(tree.tick(&mut me, &mut anims, &cx(3)), Status::Running);
    let sent: Vec<Message<Anim>> = anims.drain().collect();
    let ticket = ticket(3, 0, anims.id(), 1);
    assert_eq!(sent, [Message::Start(ticket, Anim::Run)]);

    // Not answered yet: still running, nothing pushed again.
    assert_eq!(tree.tick(&mut me, &mut anims, &cx(3)), Status::Running);
    assert!(anims.is_empty());

    // The same request named for another agent is not this agent's.
    let forged = Ticket { agent: 4, ..ticket };
    assert_eq!(tree.answer(forged, Outcome::Failure), Err(Stale(forged)));
    assert_eq!(tree.answer(ticket, Outcome::Success), Ok(()));
    // A second answer to the same request is refused.
    assert_eq!(tree.answer(ticket, Outcome::Failure), Err(Stale(ticket)));
    assert_eq!(tree.tick(&mut me, &mut anims, &cx(3)), Status::Success);
    assert_eq!(me.log, ["ran"]);
    assert!(anims.is_empty());
    assert!(!tree.is_active());
}

#[test]
fn a_failed_answer_fails_the_node() {
    let (mut anims, mut me, mut tree) = chase(false);
    // Does not see: the wave is requested (slot 1).
    assert_eq!(tree.tick(&mut me, &mut anims, &cx(0)), Status::Running);
    let [(ticket, Anim::Wave(7))] = starts(anims.messages())[..] else {
        panic!("expected one wave request, got {:?}", anims.messages());
    };
    assert_eq!(ticket.slot, 1);
    anims.drain();
    tree.answer(ticket, Outcome::Failure).unwrap();
    assert_eq!(tree.tick(&mut me, &mut anims, &cx(0)), Status::Failure);
    assert!(me.log.is_empty());
}

#[test]
fn preemption_cancels_the_request_in_flight_and_its_late_answer_is_never_read() {
    let (mut anims, mut me, mut tree) = chase(true);
    tree.tick(&mut me, &mut anims, &cx(1));
    let run = anims.drain().next().unwrap().ticket();

    // It no longer sees: the reactive sequence halts the request (a
    // cancellation with the same ticket) and the select asks for a wave.
    me.sees = false;
    assert_eq!(tree.tick(&mut me, &mut anims, &cx(1)), Status::Running);
    let wave = ticket(1, 1, anims.id(), 2);
    assert_eq!(
        anims.drain().collect::<Vec<_>>(),
        [Message::Cancel(run), Message::Start(wave, Anim::Wave(7))]
    );

    // The run's answer arrives late: nothing reads it.
    let _ = tree.answer(run, Outcome::Success);
    assert_eq!(tree.tick(&mut me, &mut anims, &cx(1)), Status::Running);
    assert!(me.log.is_empty());

    // Seeing again: a new run is requested, and the reactive select halts
    // the wave after it; the late answer of the old run does not finish
    // the new one.
    me.sees = true;
    assert_eq!(tree.tick(&mut me, &mut anims, &cx(1)), Status::Running);
    let again = ticket(1, 0, anims.id(), 3);
    assert_eq!(
        anims.drain().collect::<Vec<_>>(),
        [Message::Start(again, Anim::Run), Message::Cancel(wave)]
    );
    assert_eq!(tree.tick(&mut me, &mut anims, &cx(1)), Status::Running);
    assert_eq!(tree.answer(run, Outcome::Success), Err(Stale(run)));
    assert_eq!(tree.tick(&mut me, &mut anims, &cx(1)), Status::Running);
    assert!(me.log.is_empty());
}

#[test]
fn reset_cancels_and_makes_every_earlier_ticket_stale() {
    let (mut anims, mut me, mut tree) = chase(true);
    tree.tick(&mut me, &mut anims, &cx(2));
    let ticket = anims.drain().next().unwrap().ticket();

    tree.reset(&mut anims, &cx(2));
    assert_eq!(anims.drain().collect::<Vec<_>>(), [Message::Cancel(ticket)]);
    assert_eq!(tree.answer(ticket, Outcome::Success), Err(Stale(ticket)));

    // The next request of the same node starts clean.
    assert_eq!(tree.tick(&mut me, &mut anims, &cx(2)), Status::Running);
    let next = anims.drain().next().unwrap().ticket();
    assert_eq!((next.slot, next.generation), (0, 2));
    assert_eq!(tree.tick(&mut me, &mut anims, &cx(2)), Status::Running);
    assert!(me.log.is_empty());
    // A reset with nothing in flight pushes nothing.
    let mut idle = Chase::default();
    idle.reset(&mut anims, &cx(2));
    assert!(anims.is_empty());
}

#[test]
fn answers_for_unknown_slots_and_agents_are_refused() {
    let mut tree = Chase::default();
    let unknown = ticket(0, 9, 1, 1);
    assert_eq!(tree.answer(unknown, Outcome::Success), Err(Stale(unknown)));
    let never = ticket(0, 0, 1, 0);
    assert_eq!(tree.answer(never, Outcome::Success), Err(Stale(never)));

    let mut states = vec![Chase::default(); 2];
    let beyond = ticket(5, 0, 1, 1);
    assert_eq!(
        bt::request::deliver(&mut states, [(beyond, Outcome::Success)]),
        [Stale(beyond)]
    );
}

behavior_tree! {
    /// Two requests at once, in a parallel, each followed by a note of how
    /// it ended.
    tree Both(me: &mut Busy, s: &mut Requests<u32>, cx: &Ctx) {
        reactive_sequence {
            cond me.go,
            parallel(success = 2, failure = 1) {
                select {
                    sequence { request(s, 0), action { me.read.push((0, true)); Status::Success } },
                    action { me.read.push((0, false)); Status::Success },
                },
                select {
                    sequence { request(s, 1), action { me.read.push((1, true)); Status::Success } },
                    action { me.read.push((1, false)); Status::Success },
                },
            },
        }
    }

    /// One of three, one at a time; then two at once under a parallel.
    tree Mixed(s: &mut Requests<u32>, cx: &Ctx) {
        select {
            request(s, 0),
            sequence { request(s, 1), request(s, 2) },
            parallel(success = 2, failure = 1) { request(s, 3), Both2(s, cx) },
        }
    }

    tree Both2(_s: &mut Requests<u32>, cx: &Ctx) {
        success
    }
}

#[derive(Default)]
struct Busy {
    go: bool,
    read: Vec<(u32, bool)>,
}

#[test]
fn the_worst_case_is_the_maximum_over_exclusive_children_and_the_sum_over_parallel_ones() {
    assert_eq!(Chase::MAX_REQUESTS_PER_TICK, 1);
    assert_eq!(Both::MAX_REQUESTS_PER_TICK, 2);
    assert_eq!(Mixed::MAX_REQUESTS_PER_TICK, 1);
    assert_eq!(Both2::MAX_REQUESTS_PER_TICK, 0);
    assert_eq!(Requests::<u32>::for_agents::<Both>(10).capacity(), 40);
}

#[test]
fn a_full_stream_refuses_a_request_without_losing_it() {
    let mut s = Requests::with_capacity(1);
    let (mut me, mut tree) = (
        Busy {
            go: true,
            ..Busy::default()
        },
        Both::default(),
    );
    assert_eq!(tree.tick(&mut me, &mut s, &cx(0)), Status::Running);
    assert_eq!(s.refused(), 1);
    let first: Vec<_> = s.drain().collect();
    assert_eq!(first.len(), 1);
    // The refused node asks on the next tick.
    assert_eq!(tree.tick(&mut me, &mut s, &cx(0)), Status::Running);
    let second: Vec<_> = s.drain().collect();
    assert!(matches!(second[..], [Message::Start(t, 1)] if t.slot == 1));
    // A cancellation always goes in, even into a full stream.
    s.push(Message::Start(ticket(9, 0, s.id(), 9), 5)).unwrap();
    me.go = false;
    assert_eq!(tree.tick(&mut me, &mut s, &cx(0)), Status::Failure);
    assert_eq!(s.len(), 3);
    assert_eq!(s.spilled(), 2);
}

/// One step of the random schedule.
#[derive(Clone, Debug)]
enum Step {
    /// Tick with this condition.
    Tick(bool),
    /// Answer the `n`-th ticket ever issued (modulo), if any.
    Answer(usize, bool),
    /// Reset the agent.
    Reset,
}

fn step() -> impl Strategy<Value = Step> {
    prop_oneof![
        4 => any::<bool>().prop_map(Step::Tick),
        4 => (any::<usize>(), any::<bool>()).prop_map(|(n, ok)| Step::Answer(n, ok)),
        1 => Just(Step::Reset),
    ]
}

proptest! {
    /// Every `Start` is followed by exactly one of: the tree reading its
    /// answer (the note after the request node), or a `Cancel` of its
    /// ticket; never both, never twice, and a read outcome is the one the
    /// system gave that very ticket.
    #[test]
    fn every_request_ends_in_exactly_one_read_answer_or_one_cancellation(
        steps in proptest::collection::vec(step(), 1..120)
    ) {
        let mut s = Requests::for_agents::<Both>(1);
        let (mut me, mut tree) = (Busy::default(), Both::default());
        let mut issued: Vec<Ticket> = Vec::new();
        // Per slot: the open ticket and the answer it was given, if any.
        let mut open: [Option<(Ticket, Option<bool>)>; 2] = [None, None];
        let mut ended = std::collections::HashSet::new();
        let mut check = |messages: Vec<Message<u32>>,
                         read: &mut Vec<(u32, bool)>,
                         open: &mut [Option<(Ticket, Option<bool>)>; 2],
                         issued: &mut Vec<Ticket>|
         -> Result<(), TestCaseError> {
            // The notes come from reading answers, before any message of
            // this tick about the same slot could matter: a read closes the
            // slot's open ticket.
            for (slot, ok) in read.drain(..) {
                let (ticket, answer) = open[slot as usize].take().expect("a read with a request open");
                prop_assert_eq!(answer, Some(ok), "read {:?} of {:?}", ok, ticket);
                prop_assert!(ended.insert(ticket), "{:?} ended twice", ticket);
            }
            for m in messages {
                match m {
                    Message::Cancel(t) => {
                        let (open_ticket, _) = open[t.slot as usize].take().expect("a cancel with a request open");
                        prop_assert_eq!(open_ticket, t);
                        prop_assert!(ended.insert(t), "{:?} ended twice", t);
                    }
                    Message::Start(t, slot) => {
                        prop_assert_eq!(t.slot, slot);
                        prop_assert!(open[slot as usize].is_none(), "{:?} started over an open request", t);
                        open[slot as usize] = Some((t, None));
                        issued.push(t);
                    }
                }
            }
            Ok(())
        };
        for step in steps {
            match step {
                Step::Tick(go) => {
                    me.go = go;
                    tree.tick(&mut me, &mut s, &cx(0));
                    prop_assert!(s.len() <= 2 * Both::MAX_REQUESTS_PER_TICK);
                }
                Step::Answer(n, ok) => {
                    if !issued.is_empty() {
                        let t = issued[n % issued.len()];
                        let outcome = if ok { Outcome::Success } else { Outcome::Failure };
                        let accepted = tree.answer(t, outcome).is_ok();
                        if let Some((open_ticket, answer @ None)) = &mut open[t.slot as usize]
                            && *open_ticket == t
                        {
                            prop_assert!(accepted, "the open request {:?} refused its answer", t);
                            *answer = Some(ok);
                        } else if t.generation < issued.iter().filter(|i| i.slot == t.slot).map(|i| i.generation).max().unwrap_or(0) {
                            prop_assert!(!accepted, "an older request {:?} accepted an answer", t);
                        }
                    }
                }
                Step::Reset => tree.reset(&mut s, &cx(0)),
            }
            let messages: Vec<_> = s.drain().collect();
            check(messages, &mut me.read, &mut open, &mut issued)?;
        }
        tree.reset(&mut s, &cx(0));
        let messages: Vec<_> = s.drain().collect();
        check(messages, &mut me.read, &mut open, &mut issued)?;
        prop_assert!(open.iter().all(Option::is_none), "open at the end: {:?}", open);
        prop_assert_eq!(ended.len(), issued.len());
    }
}

#[test]
fn deliver_hands_a_batch_to_many_agents() {
    let n = 1000;
    let mut anims = Requests::for_agents::<Chase>(n);
    let mut bots: Vec<Bot> = (0..n)
        .map(|i| Bot {
            sees: i % 2 == 0,
            ..Bot::default()
        })
        .collect();
    let mut states = vec![Chase::default(); n];
    for (i, (me, tree)) in bots.iter_mut().zip(&mut states).enumerate() {
        assert_eq!(tree.tick(me, &mut anims, &cx(i as u64)), Status::Running);
    }
    assert_eq!(anims.len(), n);
    // Runs succeed, waves fail.
    let answers: Vec<(Ticket, Outcome)> = anims
        .drain()
        .map(|m| match m {
            Message::Start(t, Anim::Run) => (t, Outcome::Success),
            Message::Start(t, Anim::Wave(_)) => (t, Outcome::Failure),
            Message::Cancel(t) => panic!("nothing was cancelled, got {t:?}"),
        })
        .collect();
    assert!(bt::request::deliver(&mut states, answers).is_empty());
    for (i, (me, tree)) in bots.iter_mut().zip(&mut states).enumerate() {
        let expected = if i % 2 == 0 {
            Status::Success
        } else {
            Status::Failure
        };
        assert_eq!(tree.tick(me, &mut anims, &cx(i as u64)), expected);
    }
}

#[cfg(feature = "rayon")]
#[test]
fn deliver_parallel_answers_like_deliver_in_any_order() {
    let n = 10_000;
    let mut anims = Requests::for_agents::<Chase>(n);
    let mut bots: Vec<Bot> = (0..n)
        .map(|i| Bot {
            sees: i % 3 != 0,
            ..Bot::default()
        })
        .collect();
    let mut states = vec![Chase::default(); n];
    for (i, (me, tree)) in bots.iter_mut().zip(&mut states).enumerate() {
        tree.tick(me, &mut anims, &cx(i as u64));
    }
    let mut answers: Vec<(Ticket, Outcome)> = anims
        .drain()
        .map(|m| {
            let t = m.ticket();
            (
                t,
                if t.agent % 5 == 0 {
                    Outcome::Failure
                } else {
                    Outcome::Success
                },
            )
        })
        .collect();
    // Stale ones: an old generation, an agent beyond the population.
    let old = Ticket {
        generation: 0,
        ..answers[7].0
    };
    let beyond = Ticket {
        agent: n as u64 + 3,
        ..answers[8].0
    };
    answers.push((old, Outcome::Success));
    answers.push((beyond, Outcome::Success));
    // Scrambled, as a batch system might leave them.
    answers.reverse();
    answers.swap(10, 9000);

    let mut sequential = states.clone();
    let mut expected = bt::request::deliver(&mut sequential, answers.iter().copied());
    expected.sort_by_key(|s| s.0.agent);
    let stale = bt::request::deliver_parallel(&mut states, &mut answers);
    assert_eq!(stale, expected);
    assert_eq!(stale, [Stale(old), Stale(beyond)]);

    let mut again = bots
        .iter()
        .map(|b| Bot {
            sees: b.sees,
            ..Bot::default()
        })
        .collect::<Vec<_>>();
    for (i, ((me, tree), (twin, reference))) in bots
        .iter_mut()
        .zip(&mut states)
        .zip(again.iter_mut().zip(&mut sequential))
        .enumerate()
    {
        let got = tree.tick(me, &mut anims, &cx(i as u64));
        assert_eq!(got, reference.tick(twin, &mut anims, &cx(i as u64)));
        // A failed run falls back to asking for a wave.
        let want = match (i % 5 == 0, i % 3 != 0) {
            (false, _) => Status::Success,
            (true, true) => Status::Running,
            (true, false) => Status::Failure,
        };
        assert_eq!(got, want, "agent {i}");
    }
}

behavior_tree! {
    /// A saved tree with a request: its ticket survives a save and a load.
    #[bt(serde)]
    tree Saved(me: &mut Bot, anims: &mut Requests<Anim>, cx: &Ctx) {
        sequence {
            request(anims, Anim::Run),
            action { me.log.push("ran"); Status::Success },
        }
    }
}

#[test]
fn a_request_in_flight_survives_a_save_and_a_load() {
    let mut anims = Requests::for_agents::<Saved>(1);
    let (mut me, mut tree) = (Bot::default(), Saved::default());
    assert_eq!(tree.tick(&mut me, &mut anims, &cx(4)), Status::Running);
    let ticket = anims.drain().next().unwrap().ticket();

    let json = serde_json::to_string(&tree).unwrap();
    let mut loaded: Saved = serde_json::from_str(&json).unwrap();
    assert!(loaded.is_active());
    assert_eq!(loaded.answer(ticket, Outcome::Success), Ok(()));
    assert_eq!(loaded.tick(&mut me, &mut anims, &cx(4)), Status::Success);
    assert_eq!(me.log, ["ran"]);
    assert!(anims.is_empty());

    // Loaded before the answer came, the original still waits for it.
    assert_eq!(tree.tick(&mut me, &mut anims, &cx(4)), Status::Running);
}

behavior_tree! {
    /// Requests under a decider and under a timeout.
    tree Decide(me: &mut Busy, s: &mut Requests<u32>, cx: &Ctx) {
        prioritized {
            'danger: when me.go => request(s, 1),
            'idle: else => timeout(1.0) { request(s, 2) },
        }
    }
}

#[test]
fn a_decider_switching_and_a_timeout_expiring_cancel_their_requests() {
    let mut s = Requests::for_agents::<Decide>(1);
    let mut me = Busy::default();
    let mut tree = Decide::default();
    let at = |now: f64| Ctx::new(now, 0.1).agent(5);

    assert_eq!(tree.tick(&mut me, &mut s, &at(0.0)), Status::Running);
    let idle = s.drain().next().unwrap().ticket();
    assert_eq!(idle.slot, 1);

    // The higher child's guard passes: the decider halts `idle` first.
    me.go = true;
    assert_eq!(tree.tick(&mut me, &mut s, &at(0.1)), Status::Running);
    let danger = ticket(5, 0, s.id(), 2);
    assert_eq!(
        s.drain().collect::<Vec<_>>(),
        [Message::Cancel(idle), Message::Start(danger, 1)]
    );

    // The active child runs on when its guard no longer holds; once its
    // answer came, the decider finishes.
    me.go = false;
    assert_eq!(tree.tick(&mut me, &mut s, &at(0.2)), Status::Running);
    assert!(s.is_empty());
    tree.answer(danger, Outcome::Success).unwrap();
    assert_eq!(tree.tick(&mut me, &mut s, &at(0.3)), Status::Success);

    // Idle next, whose request then runs out of time.
    assert_eq!(tree.tick(&mut me, &mut s, &at(0.4)), Status::Running);
    let again = ticket(5, 1, s.id(), 3);
    assert_eq!(s.drain().collect::<Vec<_>>(), [Message::Start(again, 2)]);
    assert_eq!(tree.tick(&mut me, &mut s, &at(1.5)), Status::Failure);
    assert_eq!(s.drain().collect::<Vec<_>>(), [Message::Cancel(again)]);
    assert!(!tree.is_active());
}

behavior_tree! {
    /// A tree with one request, embedded twice below.
    tree Fetch(s: &mut Requests<u32>, cx: &Ctx, what: u32) {
        request(s, what)
    }

    /// Its own request on another stream, and the embedded tree twice in a
    /// parallel.
    tree Errand(me: &mut Busy, s: &mut Requests<u32>, t: &mut Requests<u32>, cx: &Ctx) {
        reactive_sequence {
            cond me.go,
            parallel(success = 3, failure = 1) {
                request(t, 0),
                Fetch(s, cx, 10),
                Fetch(s, cx, 20),
            },
        }
    }
}

#[test]
fn embedded_trees_make_requests_and_their_answers_find_them() {
    assert_eq!(Fetch::MAX_REQUESTS_PER_TICK, 1);
    assert_eq!(Errand::MAX_REQUESTS_PER_TICK, 3);
    let (mut s, mut t) = (Requests::with_capacity(8), Requests::with_capacity(8));
    let (mut me, mut tree) = (
        Busy {
            go: true,
            ..Busy::default()
        },
        Errand::default(),
    );
    assert_eq!(tree.tick(&mut me, &mut s, &mut t, &cx(2)), Status::Running);
    let own = t.drain().next().unwrap().ticket();
    let fetched: Vec<(Ticket, u32)> = starts_u32(s.drain().collect());
    // Both embedded requests have slot 0 of `Fetch`, like the own one has
    // slot 0 of `Errand`: the stream and the generation tell them apart.
    assert_eq!(
        fetched
            .iter()
            .map(|(t, v)| (t.slot, t.generation, *v))
            .collect::<Vec<_>>(),
        [(0, 1, 10), (0, 2, 20)]
    );
    assert_eq!((own.slot, own.generation), (0, 1));

    // The second fetch's answer reaches the second instance only.
    tree.answer(fetched[1].0, Outcome::Success).unwrap();
    assert_eq!(
        tree.answer(fetched[1].0, Outcome::Success),
        Err(Stale(fetched[1].0))
    );
    assert_eq!(tree.tick(&mut me, &mut s, &mut t, &cx(2)), Status::Running);
    assert!(s.is_empty() && t.is_empty());

    // Halting the parallel cancels what still runs, in both trees.
    me.go = false;
    assert_eq!(tree.tick(&mut me, &mut s, &mut t, &cx(2)), Status::Failure);
    assert_eq!(t.drain().collect::<Vec<_>>(), [Message::Cancel(own)]);
    assert_eq!(
        s.drain().collect::<Vec<_>>(),
        [Message::Cancel(fetched[0].0)]
    );
    assert_eq!(tree.answer(fetched[0].0, Outcome::Success), Ok(()));
    assert!(!tree.is_active());
}

fn starts_u32(messages: Vec<Message<u32>>) -> Vec<(Ticket, u32)> {
    messages
        .into_iter()
        .filter_map(|m| match m {
            Message::Start(t, v) => Some((t, v)),
            Message::Cancel(_) => None,
        })
        .collect()
}

#[test]
fn the_views_show_request_nodes() {
    use bt::BehaviorTree;
    assert_eq!(Chase::NODES[3].kind, NodeKind::Request);
    assert_eq!(NodeKind::Request.keyword(), "request");
    // A node of our own: declared as an action model, used under its name.
    assert!(
        Chase::BTCPP_XML.contains("<Action ID=\"Request\""),
        "{}",
        Chase::BTCPP_XML
    );
    assert!(
        Chase::BTCPP_XML.contains("<Request "),
        "{}",
        Chase::BTCPP_XML
    );
    assert!(
        Chase::MERMAID.contains("request(anims, Anim::Run)"),
        "{}",
        Chase::MERMAID
    );
}
