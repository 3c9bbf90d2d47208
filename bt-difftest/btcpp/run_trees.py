"""Runs trees in BehaviorTree.CPP (behaviortreepy) with scripted leaves.

Input (argv[1]), JSON: {"ticks": N, "tick": "once" or "exactly_once" (BT.CPP's
`tickOnce`, the default, or `tickExactlyOnce`), "scripts": {"c7": [1, 2], "a8": [0, 1]},
"trees": [{"name": "Bt0", "xml": "...", "btlog": "/path/Bt0.btlog"}]}.
Leaves are found by their name: conditions `cN` (model `Cond`) return their
script's next value on each call; stateful actions `aN` (model `A`) start
RUNNING and return their script's next value on each later tick. Script
values: 0 RUNNING, 1 SUCCESS, 2 FAILURE; scripts cycle. A script named
`switch_eq_nN` is no leaf's: before each tick, its next value is written (as
a string) to the root blackboard's entry of that name, a `Switch`'s variable.
A script named `for_each_nN` is a loop's queue: written once, before the
first tick, as BT.CPP reads a queue from a string (`1;2;3`).

Output (stdout), one line per tree (`tree Bt0`), then one per tick: the
root's status and the leaf calls, tab-separated (`RUNNING\tc1\tstart a2`),
in the words of the Rust side.
Each tree's run is also logged by BT.CPP's FileLogger to its `btlog` path.
"""

import json
import os
import sys
import time

import behaviortreepy as bt

STATUS = {0: bt.NodeStatus.RUNNING, 1: bt.NodeStatus.SUCCESS, 2: bt.NodeStatus.FAILURE}
NAME = {v: k for k, v in {"RUNNING": bt.NodeStatus.RUNNING, "SUCCESS": bt.NodeStatus.SUCCESS,
                          "FAILURE": bt.NodeStatus.FAILURE, "IDLE": bt.NodeStatus.IDLE}.items()}


def drain(logger, path):
    """Waits until BT.CPP's FileLogger wrote every transition.

    Its writer thread takes the queued transitions every 10 ms, and may
    drop the last batch when the logger is destroyed, so the file is
    complete once it stops growing across a few of those periods.
    """
    size, stable = -1, 0
    while stable < 3:
        time.sleep(0.012)
        logger.flush()
        now = os.path.getsize(path)
        stable = stable + 1 if now == size else 0
        size = now


def run(job):
    return {tree["name"]: run_tree(job, tree) for tree in job["trees"]}


def scripted_factory(scripts, calls):
    """A factory with the scripted leaves registered (`Cond`, `A`), which
    log their calls into `calls` and follow `scripts` by leaf name."""
    counts = {}

    def step(name):
        k = counts.get(name, 0)
        counts[name] = k + 1
        cycle = scripts[name]
        return STATUS[cycle[k % len(cycle)]]

    def cond(node):
        calls.append(node.name())
        return step(node.name())

    def start(node):
        calls.append("start " + node.name())
        return bt.NodeStatus.RUNNING

    def running(node):
        calls.append("tick " + node.name())
        return step(node.name())

    def halted(node):
        calls.append("halt " + node.name())

    factory = bt.BehaviorTreeFactory()
    factory.register_simple_condition("Cond", cond)
    factory.register_simple_stateful_action("A", start, running, halted)
    return factory


def run_tree(job, tree):
    """One tree's ticks; its leaves log into this call's own list."""
    calls = []
    factory = scripted_factory(job["scripts"], calls)
    factory.register_behavior_tree_from_text(tree["xml"])
    instance = factory.create_tree(tree["name"])
    logger = bt.FileLogger(instance, tree["btlog"])
    ticks = []
    variables = {n: c for n, c in job["scripts"].items() if n.startswith("switch_eq_n")}
    for name, items in job["scripts"].items():
        if name.startswith("for_each_n"):
            instance.root_blackboard().set_string(name, ";".join(str(i) for i in items))
    for i in range(job["ticks"]):
        for name, cycle in variables.items():
            instance.root_blackboard().set_string(name, str(cycle[i % len(cycle)]))
        if job.get("tick") == "exactly_once":
            status = instance.tick_exactly_once()
        else:
            status = instance.tick_once()
        ticks.append([NAME[status], calls[:]])
        calls.clear()
    drain(logger, tree["btlog"])
    # Later transitions (halting the tree, as destroying it does) are not
    # part of the compared run.
    logger.set_enabled(False)
    instance.halt_tree()
    return ticks


if __name__ == "__main__":
    with open(sys.argv[1]) as f:
        job = json.load(f)
    for name, ticks in run(job).items():
        print("tree " + name)
        for status, calls in ticks:
            print("\t".join([status] + calls))
