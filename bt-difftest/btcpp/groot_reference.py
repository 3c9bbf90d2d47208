"""BehaviorTree.CPP's own Groot2Publisher serving a tree with scripted
leaves, ticked on command: the reference side of `tests/groot.rs`.

Usage: groot_reference.py XML_FILE TREE_ID SCRIPTS_JSON PORT [HEARTBEAT_MS].
Leaves are `run_trees.py`'s: conditions `cN` (model `Cond`) return their
script's next value; actions `aN` (model `A`) start RUNNING, then follow
their script. Prints `ready`, then reads commands on standard input:
`tick` ticks once and prints `ticked STATUS\tcall\tcall...`; `quit` ends.
"""

import json
import sys

import behaviortreepy as bt

# This script's directory is on the path: the leaves are `run_trees.py`'s.
from run_trees import NAME, scripted_factory


def main():
    xml_file, tree_id, scripts, port = sys.argv[1], sys.argv[2], json.loads(sys.argv[3]), int(sys.argv[4])
    calls = []
    factory = scripted_factory(scripts, calls)
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
