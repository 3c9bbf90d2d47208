"""BehaviorTree.CPP's own Groot2Publisher serving a tree with scripted
leaves, ticked on command: the reference side of `tests/groot.rs`.

Usage: groot_reference.py XML_FILE TREE_ID SCRIPTS_JSON PORT [HEARTBEAT_MS].
Leaves as in `run_trees.py`: conditions `cN` (model `Cond`) return their
script's next value; actions `aN` (model `A`) start RUNNING, then follow
their script. Prints `ready`, then reads commands on standard input:
`tick` ticks once and prints `ticked STATUS\tcall\tcall...`; `quit` ends.
"""

import json
import sys

import behaviortreepy as bt

STATUS = {0: bt.NodeStatus.RUNNING, 1: bt.NodeStatus.SUCCESS, 2: bt.NodeStatus.FAILURE}
NAME = {bt.NodeStatus.RUNNING: "RUNNING", bt.NodeStatus.SUCCESS: "SUCCESS",
        bt.NodeStatus.FAILURE: "FAILURE", bt.NodeStatus.IDLE: "IDLE"}


def main():
    xml_file, tree_id, scripts, port = sys.argv[1], sys.argv[2], json.loads(sys.argv[3]), int(sys.argv[4])
    calls, counts = [], {}

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
    with open(xml_file) as f:
        factory.register_behavior_tree_from_text(f.read())
    tree = factory.create_tree(tree_id)
    publisher = bt.Groot2Publisher(tree, port)
    if len(sys.argv) > 5:
        publisher.set_max_heartbeat_delay(int(sys.argv[5]))
    print("ready", flush=True)
    for line in sys.stdin:
        command = line.split()
        if command == ["tick"]:
            status = tree.tick_once()
            print("ticked " + "\t".join([NAME[status]] + calls), flush=True)
            calls.clear()
        elif command == ["quit"]:
            break
        else:
            raise SystemExit("unknown command " + line)
    del publisher


if __name__ == "__main__":
    main()
