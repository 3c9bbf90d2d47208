"""BehaviorTree.CPP's own Groot2Publisher serving a tree with scripted
leaves, ticked on command: the reference side of `tests/groot.rs`.

Usage: groot_reference.py XML_FILE TREE_ID SCRIPTS_JSON PORT [HEARTBEAT_MS].
Leaves are `run_trees.py`'s: conditions `cN` (model `Cond`) return their
script's next value; actions `aN` (model `A`) start RUNNING, then follow
their script. Prints `ready`, then reads commands on standard input:
`tick` ticks once and prints `ticked STATUS\tcall\tcall...`; `quit` ends.
"""

import json
import os
import sys
import time

import behaviortreepy as bt
import zmq

# This script's directory is on the path: the leaves are `run_trees.py`'s.
from run_trees import NAME, scripted_factory


def a_thread_sleeps():
    """Whether a thread of this process sleeps in `nanosleep`: BT.CPP's
    heartbeat loop is the only code here that sleeps (10 ms at a time)."""
    for tid in os.listdir("/proc/self/task"):
        try:
            with open("/proc/self/task/%s/wchan" % tid) as f:
                if "nanosleep" in f.read():
                    return True
        except OSError:
            pass
    return False


def heartbeat_runs(port):
    """Whether the publisher's heartbeat thread runs.

    BT.CPP 4.8.2 starts a server thread, then a heartbeat thread whose loop
    runs while a flag is set that the server thread sets only when it
    starts. A heartbeat thread scheduled first ends at once, and then no
    breakpoint is ever released by the heartbeat (seen on a loaded
    machine). Once the server has answered a request the flag is set, so
    the heartbeat thread has either ended or sleeps in its loop for good;
    it is looked for, with a bound.
    """
    if not os.path.isdir("/proc/self/task"):
        return True
    ctx = zmq.Context()
    req = ctx.socket(zmq.REQ)
    req.setsockopt(zmq.LINGER, 0)
    req.setsockopt(zmq.RCVTIMEO, 10000)
    req.connect("tcp://127.0.0.1:%d" % port)
    # A malformed header: answered with an error, changes nothing.
    req.send(b"ping")
    req.recv_multipart()
    req.close()
    ctx.term()
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        if a_thread_sleeps():
            return True
        time.sleep(0.001)
    return False


def main():
    xml_file, tree_id, scripts, port = sys.argv[1], sys.argv[2], json.loads(sys.argv[3]), int(sys.argv[4])
    calls = []
    factory = scripted_factory(scripts, calls)
    with open(xml_file) as f:
        factory.register_behavior_tree_from_text(f.read())
    tree = factory.create_tree(tree_id)
    for _ in range(5):
        publisher = bt.Groot2Publisher(tree, port)
        if len(sys.argv) > 5:
            publisher.set_max_heartbeat_delay(int(sys.argv[5]))
        if heartbeat_runs(port):
            break
        # Destroying it joins its threads and frees the ports.
        del publisher
        print("Groot2Publisher started without its heartbeat; again", file=sys.stderr)
    else:
        raise SystemExit("Groot2Publisher never started its heartbeat")
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
