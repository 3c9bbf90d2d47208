//! Behavior trees from [`bt`] (the `arbortick` crate) in Bevy.
//!
//! A tree's state is a few bytes of plain data, so here it simply is a
//! component of the agent's entity: no entity per node, no exclusive
//! `&mut World` system. [`TreePlugin`] ticks every agent of a tree with
//! `par_iter_mut` in an ordinary system, in the public set
//! [`TreeSystems::Tick`], with a tick context built from Bevy's [`Time`].
//!
//! # Making a tree a component
//!
//! Pass Bevy's derives through the tree's header, and say
//! `#[bt(reflect)]` to get `Reflect` on the state and every type inside
//! it (the `bevy_reflect` feature of `bt`, which this crate turns on):
//! inspectors and the Bevy Remote Protocol then show which nodes run, with
//! no code of yours. The reflected state is nested enums, one per
//! composite that remembers a running child; variant `N9` means node 9 of
//! the tree's node table (`Tree::NODES[9]`, labels included) is running.
//!
//! Then say what the tree ticks with, by implementing [`AgentTree`]: which
//! component is the agent (the tree's `&mut` binding), the shared state
//! (the tree's `<Tree>Shared`, or `()`), and the flags types of its
//! context. The plugin keeps the shared state as the resource
//! [`TreeShared`], so gates, global cooldowns and rendezvous work across
//! Bevy's threads.
//!
//! ```
//! use bevy_app::{App, Update};
//! use bevy_ecs::prelude::*;
//! use bevy_ecs::reflect::ReflectComponent;
//! use bevy_time::Time;
//! use bt::prelude::*;
//! use bt::{Ctx, NoFlags};
//! use bt_bevy::{AgentTree, TreeFinished, TreePlugin, TreeShared};
//! use std::time::Duration;
//!
//! #[derive(Component, Default)]
//! pub struct Miner { ore: u32 }
//!
//! behavior_tree! {
//!     #[derive(Component)]
//!     #[bt(reflect)]
//!     #[reflect(Component)]
//!     pub tree Mine(me: &mut Miner, #[context] cx: &Ctx, shared: &MineShared) {
//!         sequence {
//!             'shaft: gate(1) { wait(2.0) },
//!             action { me.ore += 1; Status::Success },
//!         }
//!     }
//! }
//!
//! impl AgentTree for Mine {
//!     type Agent = Miner;
//!     type Shared = MineShared;
//!     type Decision = NoFlags;
//!     type Stimuli = NoFlags;
//!     fn tick_agent(&mut self, me: &mut Miner, cx: &Ctx, shared: &MineShared) -> Status {
//!         self.tick(me, cx, shared)
//!     }
//!     fn reset_agent(&mut self, _: &mut Miner, _: &Ctx, shared: &MineShared) {
//!         self.reset(shared)
//!     }
//! }
//!
//! let mut app = App::new();
//! app.init_resource::<Time>()
//!     .add_plugins(TreePlugin::<Mine>::new(Update))
//!     .register_type::<Mine>();
//! let miners = [(); 2].map(|()| app.world_mut().spawn((Miner::default(), Mine::default())).id());
//!
//! for _ in 0..4 {
//!     app.world_mut().resource_mut::<Time>().advance_by(Duration::from_secs(1));
//!     app.update();
//! }
//! // One miner at a time in the shaft, 2 s each: after 4 s, one came out
//! // with ore, and one is in.
//! let world = app.world();
//! let ore: u32 = miners.iter().map(|&m| world.get::<Miner>(m).unwrap().ore).sum();
//! assert_eq!(ore, 1);
//! assert_eq!(world.resource::<TreeShared<Mine>>().shaft.inside(), 1);
//!
//! // Despawning the miner in the shaft halts its tree: the permit comes back.
//! let inside = miners.into_iter().find(|&m| world.get::<Mine>(m).unwrap().is_active());
//! app.world_mut().despawn(inside.unwrap());
//! assert_eq!(app.world().resource::<TreeShared<Mine>>().shaft.inside(), 0);
//! ```
//!
//! # What the plugin does
//!
//! - **Ticking.** Every entity with both the tree's state and its agent
//!   component is ticked once per run of the schedule, in parallel over
//!   Bevy's compute task pool. The context's time is
//!   [`Time::elapsed_secs_f64`] and its `dt` is [`Time::delta_secs_f64`] of
//!   the schedule's default clock (`Time<Virtual>` in `Update`,
//!   `Time<Fixed>` in `FixedUpdate`); its flags come from the optional
//!   components [`DecisionFlags`] and [`StimuliFlags`] (the system
//!   [`expire_stimuli`] fills the latter from a [`Senses`] store of stimuli
//!   that expire), and its agent id is
//!   the entity's bits. A tick marks the state and the agent as changed,
//!   as any `&mut` access does, unless the plugin is built
//!   [`without_change_detection`](TreePlugin::without_change_detection);
//!   [`batching`](TreePlugin::batching) tunes how agents are split among
//!   threads.
//! - **Order.** [`TreeSystems::Sense`] runs before [`TreeSystems::Tick`]:
//!   put systems that write flags or agent data before the tick, and
//!   systems that act on what the trees decided after it.
//! - **Tracing.** A plugin built [`traced`](TreePlugin::traced) ticks the
//!   agents that the resource [`TreeTrace<T>`]'s hook wants with that hook
//!   attached (a Groot2 server from `arbortick-groot` following one entity,
//!   a recorder), and every other agent as without it; the tree implements
//!   [`TracedAgentTree`] too. `barracks --groot PORT` shows it.
//! - **Inspecting.** A plugin built [`inspected`](TreePlugin::inspected)
//!   keeps a [`TreeInspect<T>`] component current on every agent that has
//!   one: the active path by label, kind and source text, how long each
//!   node has run and the last tick's status, for inspectors and remote
//!   clients to show as they are (see [Inspecting a running
//!   tree](#inspecting-a-running-tree)).
//! - **Guarding writes.** A plugin built
//!   [`reflect_guarded`](TreePlugin::reflect_guarded) registers the state
//!   for reflection read-only: remote clients and inspectors read it, but
//!   cannot change the running branch without the plugin halting what it
//!   abandons.
//! - **Finishing.** A tick that ends in `Success` or `Failure` writes a
//!   [`TreeFinished`] message; the next tick starts the tree over.
//! - **Leaving.** Removing the state, inserting a new one over it,
//!   removing the agent component or despawning the entity halts the
//!   running nodes once (stateful leaves get `halt`, gates their permits
//!   back, rendezvous members leave), through observers, while both
//!   components are still there. A state that stays (its agent component
//!   was removed) is left as new, and starts over if an agent comes back.
//!
//! # Inspecting a running tree
//!
//! The reflected state reads as nested enums of node numbers
//! (`{"active":{"root":{"N5":{"N7":20}}}}`): right for saving, hard for a
//! person. Add [`TreeInspect<T>`] to an agent and build the plugin
//! [`inspected`](TreePlugin::inspected), and after every tick the
//! component says, in words, what runs:
//!
//! ```text
//! {"tree":"Guard","last":"running","active":[
//!   {"id":0,"label":"root","kind":"prioritized","detail":"prioritized","depth":0,"status":"running","active_for":null},
//!   {"id":5,"label":"patrol","kind":"sequence",…,"depth":1,"status":"running","active_for":12.5},
//!   {"id":7,"label":"back","kind":"wait",…}]}
//! ```
//!
//! Inspectors and the Bevy Remote Protocol (`world.get_components` with
//! the type path `bt_bevy::TreeInspect<your::Tree>`) show it as is. It is a
//! view: writing it changes nothing, since the next tick rewrites it.
//!
//! **Writing a tree's state from outside** (an inspector's editor, the
//! remote protocol's `world.mutate_components` or `world.insert_components`
//! on the state itself) skips halting: the branch it abandons never gets
//! its `halt`, a gate permit it held is never given back, a rendezvous
//! keeps a member. To change what an agent does from outside, go through
//! the tree: replace the state with a new one (`insert`: the plugin halts
//! the old one's running nodes once, see *Leaving* above), reset it from a
//! system (`AgentTree::reset_agent`), or force a node through a hook
//! ([`TreePlugin::traced`] with `bt::testing`'s hooks or the live tools).
//!
//! A plugin built [`reflect_guarded`](TreePlugin::reflect_guarded) makes
//! this hold for every outside writer: the state still reads through
//! reflection, writes in place are refused (the remote protocol answers
//! `world.mutate_components` with "Cannot reflect component", an
//! inspector's editor gets no mutable access), and what replaces the state
//! (`world.insert_components`, a scene) inserts a new one, which the
//! plugin halts the old one for, once.
//!
//! ```
//! # use bevy_app::{App, Update};
//! # use bevy_ecs::prelude::*;
//! # use bevy_ecs::reflect::{AppTypeRegistry, ReflectComponent};
//! # use bevy_reflect::TypePath;
//! # use bt::prelude::*;
//! # use bt_bevy::{AgentTree, TreePlugin};
//! # #[derive(Component, Default)] pub struct Bot;
//! # behavior_tree! {
//! #     #[derive(Component)] #[bt(reflect)] #[reflect(Component)]
//! #     pub tree Idle(me: &mut Bot, #[context] cx: &bt::Ctx) { wait(1.0) }
//! # }
//! # impl AgentTree for Idle {
//! #     type Agent = Bot; type Shared = (); type Decision = bt::NoFlags; type Stimuli = bt::NoFlags;
//! #     fn tick_agent(&mut self, me: &mut Bot, cx: &bt::Ctx, _: &()) -> Status { self.tick(me, cx) }
//! #     fn reset_agent(&mut self, _: &mut Bot, _: &bt::Ctx, _: &()) { self.reset() }
//! # }
//! let mut app = App::new();
//! app.init_resource::<bevy_time::Time>()
//!     .add_plugins(TreePlugin::<Idle>::new(Update).reflect_guarded());
//! let bot = app.world_mut().spawn((Bot, Idle::default())).id();
//! app.update();
//!
//! let registry = app.world().resource::<AppTypeRegistry>().clone();
//! let registry = registry.read();
//! let reflect = registry
//!     .get_with_type_path(Idle::type_path())
//!     .and_then(|r| r.data::<ReflectComponent>())
//!     .unwrap();
//! assert!(reflect.reflect(app.world().entity(bot)).is_some()); // reads
//! assert!(reflect.reflect_mut(app.world_mut().entity_mut(bot)).is_none()); // no writes in place
//! ```
//!
//! [`Time`]: bevy_time::Time
//! [`Time::elapsed_secs_f64`]: bevy_time::Time::elapsed_secs_f64
//! [`Time::delta_secs_f64`]: bevy_time::Time::delta_secs_f64

use bevy_app::{App, Plugin, Update};
use bevy_ecs::batching::BatchingStrategy;
use bevy_ecs::component::Mutable;
use bevy_ecs::lifecycle::{Discard, Remove};
use bevy_ecs::prelude::*;
use bevy_ecs::reflect::{AppTypeRegistry, ReflectComponent, ReflectComponentFns};
use bevy_ecs::schedule::{InternedScheduleLabel, ScheduleLabel};
use bevy_ecs::utils::Parallel;
use bevy_reflect::std_traits::ReflectDefault;
use bevy_reflect::{FromReflect, GetTypeRegistration, Reflect, TypePath};
use bevy_time::Time;
use bt::bitflags::Flags;
use bt::{BehaviorTree, Ctx, Status, Trace};
use core::fmt;
use core::marker::PhantomData;
use core::ops::{Deref, DerefMut};
use std::borrow::Cow;
use std::sync::Arc;

pub use bt;

/// A tree whose state is a Bevy component, and what it ticks with.
///
/// The methods forward to the tree's own `tick` and `reset`, with the
/// arguments in the order of the tree's header; see the
/// [crate documentation](crate) for an example.
pub trait AgentTree: BehaviorTree + Component<Mutability = Mutable> {
    /// The component the tree reads and changes: its `&mut` binding.
    type Agent: Component<Mutability = Mutable>;
    /// The tree's shared state (`<Tree>Shared`), or `()` when it has none.
    type Shared: Default + Send + Sync + 'static;
    /// The decision flags of the tree's context ([`bt::NoFlags`] for none).
    type Decision: Flags + Copy + Send + Sync + 'static;
    /// The stimuli flags of the tree's context ([`bt::NoFlags`] for none).
    type Stimuli: Flags + Copy + Send + Sync + 'static;

    /// Ticks the tree once for one agent.
    fn tick_agent(
        &mut self,
        agent: &mut Self::Agent,
        cx: &Ctx<Self::Decision, Self::Stimuli>,
        shared: &Self::Shared,
    ) -> Status;

    /// Halts every running node and leaves the state as new.
    fn reset_agent(
        &mut self,
        agent: &mut Self::Agent,
        cx: &Ctx<Self::Decision, Self::Stimuli>,
        shared: &Self::Shared,
    );
}

/// An [`AgentTree`] whose agents can also tick with a trace hook held as
/// the resource [`TreeTrace<T>`]: a Groot2 server (`arbortick-groot`), a
/// [`Recorder`](bt::record::Recorder), test hooks. Declare the tree's
/// context as `Ctx<D, S, impl Trace>` and forward both methods to its
/// `tick`; add the plugin [`traced`](TreePlugin::traced).
///
/// An agent the hook wants nothing of (its [`Trace::level`] is 0, it
/// follows no statuses and calls no node hooks for it) ticks through
/// [`AgentTree::tick_agent`], as compiled without tracing: a hook that
/// follows one agent costs the others its three questions.
pub trait TracedAgentTree: AgentTree {
    /// The hook.
    type Hook: Trace + Send + Sync + 'static;

    /// Ticks the tree once for one agent, with the hook attached.
    fn tick_traced(
        &mut self,
        agent: &mut Self::Agent,
        cx: &Ctx<Self::Decision, Self::Stimuli, &Self::Hook>,
        shared: &Self::Shared,
    ) -> Status;
}

/// The trace hook the agents of tree `T` tick with, for a plugin built
/// [`traced`](TreePlugin::traced); shared with the rest of the program
/// through the `Arc` (a Groot2 server's `watch`, say). Without it, they
/// tick untraced.
#[derive(Resource)]
pub struct TreeTrace<T: TracedAgentTree>(pub Arc<T::Hook>);

impl<T: TracedAgentTree> Deref for TreeTrace<T> {
    type Target = T::Hook;
    fn deref(&self) -> &T::Hook {
        &self.0
    }
}

/// The system sets of the plugin, in the schedule each tree runs in:
/// `Sense` runs before `Tick`.
#[derive(SystemSet, Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TreeSystems {
    /// Before the trees tick: systems that update agents' data and flags.
    Sense,
    /// Every [`TreePlugin`] ticks its tree here.
    Tick,
}

/// The decision flags of an agent's tick context. An agent without this
/// component ticks with no decision flags set.
#[derive(Component, Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DecisionFlags<D: Send + Sync + 'static>(pub D);

/// The stimuli flags of an agent's tick context, usually written by
/// [`expire_stimuli`] from the agent's [`Senses`]. An agent without this
/// component ticks with no stimuli flags set.
#[derive(Component, Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct StimuliFlags<S: Send + Sync + 'static>(pub S);

/// An agent's store of stimuli ([`bt::Stimuli`]: flags that expire, with
/// data), as a component. Systems add stimuli to it; [`expire_stimuli`]
/// drops the expired ones and publishes the rest as [`StimuliFlags`].
#[derive(Component, Clone, Debug, Default)]
pub struct Senses<S, T = (), const N: usize = 8>(pub bt::Stimuli<S, T, N>)
where
    S: Flags + Copy + Send + Sync + 'static,
    T: Send + Sync + 'static;

impl<S, T, const N: usize> Deref for Senses<S, T, N>
where
    S: Flags + Copy + Send + Sync + 'static,
    T: Send + Sync + 'static,
{
    type Target = bt::Stimuli<S, T, N>;

    fn deref(&self) -> &bt::Stimuli<S, T, N> {
        &self.0
    }
}

impl<S, T, const N: usize> DerefMut for Senses<S, T, N>
where
    S: Flags + Copy + Send + Sync + 'static,
    T: Send + Sync + 'static,
{
    fn deref_mut(&mut self) -> &mut bt::Stimuli<S, T, N> {
        &mut self.0
    }
}

/// A system for [`TreeSystems::Sense`]: advances every [`Senses`] store to
/// the current time (dropping the stimuli that expired) and writes its
/// flags into the agent's [`StimuliFlags`], so that the trees see the
/// stimuli still held at this tick.
///
/// `app.add_systems(Update, expire_stimuli::<Alert, f32, 2>.in_set(TreeSystems::Sense))`
pub fn expire_stimuli<S, T, const N: usize>(
    time: Res<Time>,
    mut agents: Query<(&mut Senses<S, T, N>, &mut StimuliFlags<S>)>,
) where
    S: Flags + Copy + PartialEq + Send + Sync + 'static,
    T: Send + Sync + 'static,
{
    let now = time.elapsed_secs_f64();
    agents.par_iter_mut().for_each(|(mut senses, mut flags)| {
        let held = senses.update(now);
        // Written only when it changes, so `Changed<StimuliFlags<S>>`
        // means "new stimuli".
        flags.set_if_neq(StimuliFlags(held));
    });
}

/// The shared state of tree `T`, one for every agent that runs it: a
/// resource that the plugin creates with `T::Shared::default()`.
///
/// It derefs to the shared state, so its gates, cooldowns and rendezvous
/// can be read like fields: `shared.shaft.inside()`.
#[derive(Resource)]
pub struct TreeShared<T: AgentTree>(Arc<T::Shared>);

impl<T: AgentTree> TreeShared<T> {
    /// This shared state, to be used by the plugin's systems.
    pub fn new(shared: T::Shared) -> Self {
        TreeShared(Arc::new(shared))
    }
}

impl<T: AgentTree> Default for TreeShared<T> {
    fn default() -> Self {
        Self::new(T::Shared::default())
    }
}

impl<T: AgentTree> Deref for TreeShared<T> {
    type Target = T::Shared;

    fn deref(&self) -> &T::Shared {
        &self.0
    }
}

/// Written when an agent's tree finishes: a tick of tree `T` returned
/// `Success` or `Failure` for `entity`. Read it with
/// `MessageReader<TreeFinished<T>>`.
pub struct TreeFinished<T> {
    /// The agent.
    pub entity: Entity,
    /// `Status::Success` or `Status::Failure`.
    pub status: Status,
    tree: PhantomData<fn() -> T>,
}

impl<T> TreeFinished<T> {
    /// Tree `T` finished with `status` for `entity`.
    pub fn new(entity: Entity, status: Status) -> Self {
        TreeFinished {
            entity,
            status,
            tree: PhantomData,
        }
    }
}

impl<T> Clone for TreeFinished<T> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<T> Copy for TreeFinished<T> {}

impl<T> PartialEq for TreeFinished<T> {
    fn eq(&self, other: &Self) -> bool {
        (self.entity, self.status) == (other.entity, other.status)
    }
}

impl<T> fmt::Debug for TreeFinished<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TreeFinished")
            .field("tree", &core::any::type_name::<T>())
            .field("entity", &self.entity)
            .field("status", &self.status)
            .finish()
    }
}

impl<T: 'static> Message for TreeFinished<T> {}

/// Ticks tree `T` for every agent, in the schedule given to
/// [`new`](Self::new) (`Update` by default), in [`TreeSystems::Tick`];
/// creates the [`TreeShared<T>`] resource, registers the
/// [`TreeFinished<T>`] message and halts the trees of agents that leave.
///
/// One line per tree: `app.add_plugins(TreePlugin::<Guard>::new(Update))`.
/// The plugin needs a `Time` resource (Bevy's `TimePlugin`, or one the
/// program advances itself).
pub struct TreePlugin<T> {
    schedule: InternedScheduleLabel,
    batching: BatchingStrategy,
    /// Whether ticks mark the state and the agent as changed.
    mark_changed: bool,
    /// The tick system, for a tree ticked with a hook; the plain one
    /// otherwise.
    traced: Option<TickSystem>,
    /// Adds the system that keeps [`TreeInspect`] current.
    inspected: Option<fn(&mut App, InternedScheduleLabel)>,
    /// Registers the state for reflection with writes that halt.
    guarded: Option<fn(&mut App)>,
    tree: PhantomData<fn() -> T>,
}

/// Adds a tick system: `(app, schedule, batching, mark_changed)`.
type TickSystem = fn(&mut App, InternedScheduleLabel, BatchingStrategy, bool);

/// The default smallest batch of agents a thread ticks: fewer agents than
/// this are ticked on the system's own thread, since handing them to the
/// task pool costs more (tens of microseconds per frame) than ticking them.
pub const DEFAULT_MIN_BATCH: usize = 1024;

impl<T> TreePlugin<T> {
    /// Ticks the tree in `schedule`.
    pub fn new(schedule: impl ScheduleLabel) -> Self {
        TreePlugin {
            schedule: schedule.intern(),
            batching: BatchingStrategy::new()
                .min_batch_size(DEFAULT_MIN_BATCH)
                .batches_per_thread(4),
            mark_changed: true,
            traced: None,
            inspected: None,
            guarded: None,
            tree: PhantomData,
        }
    }

    /// How the agents are split into batches for the compute task pool's
    /// threads: by default four batches per thread (so that a thread that
    /// finishes early takes another), of at least [`DEFAULT_MIN_BATCH`]
    /// agents. A population no larger than the smallest batch is ticked on
    /// the system's own thread; with `BatchingStrategy::fixed(usize::MAX)`
    /// every agent always is.
    pub fn batching(mut self, batching: BatchingStrategy) -> Self {
        self.batching = batching;
        self
    }

    /// Ticks without marking the state and agent components as changed.
    ///
    /// By default every tick marks both, as any `&mut` access in Bevy does,
    /// so `Changed<Agent>` filters and inspectors that watch components see
    /// what the trees did. Writing those change ticks costs up to a few
    /// nanoseconds per agent-tick (`BENCHMARKS-bevy.md` measures it); a
    /// program that never asks can turn it off. Changes made by other
    /// systems are still detected.
    pub fn without_change_detection(mut self) -> Self {
        self.mark_changed = false;
        self
    }
}

impl<T: TracedAgentTree> TreePlugin<T> {
    /// Ticks each agent that the [`TreeTrace<T>`] resource's hook wants
    /// with the hook attached (see [`TracedAgentTree`]); the others, and
    /// every agent while the resource is absent, as without it.
    pub fn traced(mut self) -> Self {
        self.traced = Some(|app, schedule, batching, mark_changed| {
            let system = if mark_changed {
                tick_traced::<T, true>
                    .with_input(batching)
                    .in_set(TreeSystems::Tick)
            } else {
                tick_traced::<T, false>
                    .with_input(batching)
                    .in_set(TreeSystems::Tick)
            };
            app.add_systems(schedule, system);
        });
        self
    }
}

impl<T: AgentTree + TypePath> TreePlugin<T> {
    /// Keeps a [`TreeInspect<T>`] current, after every tick, on each agent
    /// that has one, and registers its type for reflection (see
    /// [Inspecting a running tree](crate#inspecting-a-running-tree)).
    /// Agents without the component cost nothing more; each agent with it
    /// costs about 100 ns a frame with 1,000 agents and 300 ns with
    /// 100,000 (`BENCHMARKS-bevy.md`, *every agent inspected*: there the
    /// views no longer fit in the caches), so give it to the agents someone
    /// looks at.
    pub fn inspected(mut self) -> Self {
        self.inspected = Some(|app, schedule| {
            app.register_type::<TreeInspect<T>>()
                .register_type::<InspectedNode>()
                .add_systems(schedule, inspect::<T>.after(TreeSystems::Tick));
        });
        self
    }
}

impl<T: AgentTree + FromReflect + TypePath + GetTypeRegistration> TreePlugin<T> {
    /// Registers the tree's state for reflection so that what reads or
    /// replaces it from outside (the Bevy Remote Protocol, inspectors,
    /// scenes) can never skip halting (see [Inspecting a running
    /// tree](crate#inspecting-a-running-tree)):
    ///
    /// - **Reading** works as with `#[reflect(Component)]`
    ///   (`world.get_components`).
    /// - **Writing in place is refused**: a remote
    ///   `world.mutate_components` answers "Cannot reflect component", and
    ///   `ReflectComponent::reflect_mut` is `None`. Such a write would
    ///   change the running branch without halting the one it abandons.
    /// - **Replacing** (`world.insert_components`, `insert_reflect`, a scene
    ///   applied over the entity) inserts a new state, so the plugin halts
    ///   the old one's running nodes once, as for any insert.
    ///   `ReflectComponent::apply`, which cannot insert, writes only over a
    ///   state with nothing running (nothing to halt) and otherwise leaves
    ///   the state as it is.
    ///
    /// The state's own `#[reflect(Component)]`, if any, is replaced by
    /// this guarded one, whether the type was registered before or after.
    pub fn reflect_guarded(mut self) -> Self {
        self.guarded = Some(|app| {
            app.register_type::<T>();
            let registry = app.world().resource::<AppTypeRegistry>().clone();
            let mut registry = registry.write();
            if let Some(registration) = registry.get_mut(core::any::TypeId::of::<T>()) {
                registration.insert(guarded_reflect_component::<T>());
            }
        });
        self
    }
}

/// `ReflectComponent` for a tree state that reads as usual and is never
/// written in place: see [`TreePlugin::reflect_guarded`].
fn guarded_reflect_component<T: AgentTree + FromReflect + TypePath>() -> ReflectComponent {
    let mut fns = ReflectComponentFns::new::<T>();
    fns.reflect_mut = |_| None;
    // What inspectors write through: refused too.
    fns.reflect_unchecked_mut = |_| None;
    fns.apply = |mut entity, value| {
        let Some(mut state) = entity.get_mut::<T>() else {
            return;
        };
        if !state.is_active()
            && let Some(new) = T::from_reflect(value)
        {
            *state = new;
        }
    };
    fns.apply_or_insert_mapped = |entity, value, _registry, _map, _relationships| {
        // A tree state holds no entities: nothing to map. Inserting over
        // the old state makes the plugin's observer halt it once.
        if let Some(new) = T::from_reflect(value) {
            entity.insert(new);
        }
    };
    ReflectComponent::new(fns)
}

impl<T> Default for TreePlugin<T> {
    /// Ticks the tree in `Update`.
    fn default() -> Self {
        Self::new(Update)
    }
}

impl<T: AgentTree> Plugin for TreePlugin<T> {
    fn build(&self, app: &mut App) {
        app.init_resource::<TreeShared<T>>()
            .add_message::<TreeFinished<T>>()
            .configure_sets(
                self.schedule,
                (TreeSystems::Sense, TreeSystems::Tick).chain(),
            )
            .add_observer(halt_discarded_state::<T>)
            .add_observer(halt_removed_agent::<T>);
        // One system per setting of change detection, so that each is
        // compiled for its own (the choice inside the loop costs more than
        // the change ticks it saves).
        let batching = self.batching.clone();
        if let Some(add) = self.inspected {
            add(app, self.schedule);
        }
        if let Some(guard) = self.guarded {
            guard(app);
        }
        if let Some(add) = self.traced {
            add(app, self.schedule, batching, self.mark_changed);
            return;
        }
        let system = if self.mark_changed {
            tick::<T, true>
                .with_input(batching)
                .in_set(TreeSystems::Tick)
        } else {
            tick::<T, false>
                .with_input(batching)
                .in_set(TreeSystems::Tick)
        };
        app.add_systems(self.schedule, system);
    }
}

/// What [`tick`] reads of each agent.
type AgentQuery<'w, 's, T> = Query<
    'w,
    's,
    (
        Entity,
        &'static mut T,
        &'static mut <T as AgentTree>::Agent,
        Option<&'static DecisionFlags<<T as AgentTree>::Decision>>,
        Option<&'static StimuliFlags<<T as AgentTree>::Stimuli>>,
    ),
>;

/// The plugin's system: ticks every agent of tree `T` once, in parallel,
/// and writes a [`TreeFinished`] for each tree that finished.
fn tick<T: AgentTree, const MARK_CHANGED: bool>(
    batching: InMut<BatchingStrategy>,
    time: Res<Time>,
    shared: Res<TreeShared<T>>,
    agents: AgentQuery<T>,
    finished: Local<Parallel<Vec<TreeFinished<T>>>>,
    messages: MessageWriter<TreeFinished<T>>,
) {
    let shared: &T::Shared = &shared;
    drive(
        &batching,
        &time,
        agents,
        finished,
        messages,
        |entity, state, agent, cx| {
            tick_one::<T, MARK_CHANGED>(entity, state, agent, cx, |state, agent, cx| {
                state.tick_agent(agent, cx, shared)
            })
        },
    );
}

/// The system of a plugin built [`traced`](TreePlugin::traced): as
/// [`tick`], an agent the hook of [`TreeTrace<T>`] wants (by its level,
/// statuses or node hooks) ticked with the hook attached.
fn tick_traced<T: TracedAgentTree, const MARK_CHANGED: bool>(
    batching: InMut<BatchingStrategy>,
    time: Res<Time>,
    shared: Res<TreeShared<T>>,
    hook: Option<Res<TreeTrace<T>>>,
    agents: AgentQuery<T>,
    finished: Local<Parallel<Vec<TreeFinished<T>>>>,
    messages: MessageWriter<TreeFinished<T>>,
) {
    let shared: &T::Shared = &shared;
    let hook: Option<&T::Hook> = hook.as_deref().map(|h| &*h.0);
    drive(
        &batching,
        &time,
        agents,
        finished,
        messages,
        |entity, state, agent, cx| {
            tick_one::<T, MARK_CHANGED>(entity, state, agent, cx, |state, agent, cx| match hook {
                Some(hook) if wants(hook, cx.agent) => {
                    state.tick_traced(agent, &cx.trace(hook), shared)
                }
                _ => state.tick_agent(agent, cx, shared),
            })
        },
    );
}

/// Whether `hook` wants anything of a tick of `agent`.
#[inline(always)]
fn wants<H: Trace>(hook: &H, agent: u64) -> bool {
    H::ENABLED && (hook.statuses(agent) || hook.level(agent) > 0 || (H::HOOKS && hook.hooks(agent)))
}

/// Runs `one` for every agent of the query, on this thread or in parallel,
/// and writes what finished as messages.
#[inline(always)]
fn drive<T: AgentTree>(
    batching: &BatchingStrategy,
    time: &Time,
    mut agents: AgentQuery<T>,
    mut finished: Local<Parallel<Vec<TreeFinished<T>>>>,
    mut messages: MessageWriter<TreeFinished<T>>,
    one: impl Fn(
        Entity,
        Mut<T>,
        Mut<T::Agent>,
        &Ctx<T::Decision, T::Stimuli>,
    ) -> Option<TreeFinished<T>>
    + Sync,
) {
    let clock = Ctx::<T::Decision, T::Stimuli>::new(time.elapsed_secs_f64(), time.delta_secs_f64());
    let finished_ref = &*finished;
    // Below one batch, the task pool would cost more than the ticks.
    let count = agents.iter().size_hint().1.unwrap_or(usize::MAX);
    if count <= batching.batch_size_limits.start {
        let mut done = finished_ref.borrow_local_mut();
        // `for_each` folds table by table, which a `for` loop does not.
        agents
            .iter_mut()
            .for_each(|(entity, state, agent, flags, stimuli)| {
                let cx = context(clock, entity, flags, stimuli);
                if let Some(end) = one(entity, state, agent, &cx) {
                    done.push(end);
                }
            });
    } else {
        agents
            .par_iter_mut()
            .batching_strategy(batching.clone())
            // Each batch borrows its thread's buffer once.
            .for_each_init(
                || finished_ref.borrow_local_mut(),
                |done, (entity, state, agent, flags, stimuli)| {
                    let cx = context(clock, entity, flags, stimuli);
                    if let Some(end) = one(entity, state, agent, &cx) {
                        done.push(end);
                    }
                },
            );
    }
    for batch in finished.iter_mut() {
        messages.write_batch(batch.drain(..));
    }
}

/// One agent's tick context: the frame's clock, the agent's id and flags.
#[inline(always)]
fn context<D: Flags + Copy + Send + Sync + 'static, S: Flags + Copy + Send + Sync + 'static>(
    clock: Ctx<D, S>,
    entity: Entity,
    flags: Option<&DecisionFlags<D>>,
    stimuli: Option<&StimuliFlags<S>>,
) -> Ctx<D, S> {
    let mut cx = clock.agent(entity.to_bits());
    if let Some(flags) = flags {
        cx.flags = flags.0;
    }
    if let Some(stimuli) = stimuli {
        cx.stimuli = stimuli.0;
    }
    cx
}

/// Ticks one agent with `tick`; what finished, to be written as a message.
#[inline(always)]
fn tick_one<T: AgentTree, const MARK_CHANGED: bool>(
    entity: Entity,
    mut state: Mut<T>,
    mut agent: Mut<T::Agent>,
    cx: &Ctx<T::Decision, T::Stimuli>,
    tick: impl FnOnce(&mut T, &mut T::Agent, &Ctx<T::Decision, T::Stimuli>) -> Status,
) -> Option<TreeFinished<T>> {
    let status = if MARK_CHANGED {
        tick(&mut state, &mut agent, cx)
    } else {
        let agent = agent.bypass_change_detection();
        tick(state.bypass_change_detection(), agent, cx)
    };
    status.is_done().then(|| TreeFinished::new(entity, status))
}

/// Halts `entity`'s tree if it runs, while its state and agent are there.
/// The context is the tick's, without flags: halting reads only the time.
fn halt<T: AgentTree>(
    entity: Entity,
    agents: &mut Query<(&mut T, &mut T::Agent)>,
    time: &Time,
    shared: &T::Shared,
) {
    if let Ok((mut state, mut agent)) = agents.get_mut(entity)
        && state.is_active()
    {
        let cx = Ctx::new(time.elapsed_secs_f64(), time.delta_secs_f64()).agent(entity.to_bits());
        state.reset_agent(&mut agent, &cx, shared);
    }
}

/// The state is removed, replaced or despawned: its running nodes halt.
fn halt_discarded_state<T: AgentTree>(
    discard: On<Discard<T>>,
    mut agents: Query<(&mut T, &mut T::Agent)>,
    time: Res<Time>,
    shared: Res<TreeShared<T>>,
) {
    halt(discard.entity, &mut agents, &time, &shared);
}

/// The agent is removed (or despawned): its tree cannot tick any more, so
/// its running nodes halt.
fn halt_removed_agent<T: AgentTree>(
    remove: On<Remove<T::Agent>>,
    mut agents: Query<(&mut T, &mut T::Agent)>,
    time: Res<Time>,
    shared: Res<TreeShared<T>>,
) {
    halt(remove.entity, &mut agents, &time, &shared);
}

/// A view, in words, of what an agent's tree `T` is doing: kept current
/// after every tick by a plugin built
/// [`inspected`](TreePlugin::inspected), for inspectors and remote clients
/// (see [Inspecting a running tree](crate#inspecting-a-running-tree)).
/// Add it to the agents to show; writing it changes nothing.
#[derive(Component, Reflect)]
#[reflect(Component, Default)]
pub struct TreeInspect<T: TypePath> {
    /// The tree's name.
    pub tree: Cow<'static, str>,
    /// What the last tick returned: `running`, `success` or `failure`
    /// (`not ticked` before the first).
    pub last: Cow<'static, str>,
    /// The active path, root first: every node running.
    pub active: Vec<InspectedNode>,
    #[reflect(ignore)]
    tree_type: PhantomData<fn() -> T>,
}

impl<T: TypePath> Default for TreeInspect<T> {
    fn default() -> Self {
        TreeInspect {
            tree: Cow::Borrowed(""),
            last: Cow::Borrowed("not ticked"),
            active: Vec::new(),
            tree_type: PhantomData,
        }
    }
}

impl<T: TypePath> fmt::Debug for TreeInspect<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TreeInspect")
            .field("tree", &self.tree)
            .field("last", &self.last)
            .field("active", &self.active)
            .finish()
    }
}

/// One running node of a [`TreeInspect`].
#[derive(Reflect, Clone, Debug, Default, PartialEq)]
pub struct InspectedNode {
    /// Its id in its tree's node table (`Tree::NODES`).
    pub id: u32,
    /// Its label, without the quote.
    pub label: Option<Cow<'static, str>>,
    /// Its kind, as the DSL's keyword (`prioritized`, `leaf`, `wait`…).
    pub kind: Cow<'static, str>,
    /// Its source text.
    pub detail: Cow<'static, str>,
    /// Its depth in the whole tree (embedded trees' nodes included).
    pub depth: u32,
    /// `running`: every node of the active path runs.
    pub status: Cow<'static, str>,
    /// Seconds since it became active, for nodes that record it (decider
    /// children in trees that record activation times, `scope`s, `wait`,
    /// `timeout`, `delay`).
    pub active_for: Option<f64>,
}

/// The system of a plugin built [`inspected`](TreePlugin::inspected):
/// rewrites every [`TreeInspect<T>`] from its agent's state. Every text is
/// the node table's own (`Cow::Borrowed`): nothing is allocated once a
/// path as long has been seen.
fn inspect<T: AgentTree + TypePath>(
    time: Res<Time>,
    mut finished: MessageReader<TreeFinished<T>>,
    mut views: Query<(&T, &mut TreeInspect<T>)>,
) {
    let now = time.elapsed_secs_f64();
    for end in finished.read() {
        if let Ok((_, mut view)) = views.get_mut(end.entity) {
            let last = if end.status == Status::Success {
                "success"
            } else {
                "failure"
            };
            view.last = Cow::Borrowed(last);
        }
    }
    for (state, mut view) in &mut views {
        let view = &mut *view;
        view.tree = Cow::Borrowed(T::VIEW.name);
        let mut n = 0;
        state.visit_active(0, &mut |node| {
            if view.active.len() == n {
                view.active.push(InspectedNode::default());
            }
            let entry = &mut view.active[n];
            let info = node.info;
            entry.id = info.id as u32;
            entry.label = info.label.map(Cow::Borrowed);
            entry.kind = Cow::Borrowed(info.kind.keyword());
            entry.detail = Cow::Borrowed(info.detail);
            entry.depth = node.depth as u32;
            entry.status = Cow::Borrowed("running");
            entry.active_for = node.since.map(|since| now - since);
            n += 1;
        });
        view.active.truncate(n);
        if n > 0 {
            view.last = Cow::Borrowed("running");
        }
    }
}
