"""One Groot2 client (pyzmq, so libzmq) driving a server through a scripted
run, for `tests/groot.rs`, which runs it against our server
(`groot_scripted`) and against BehaviorTree.CPP's publisher
(`groot_reference.py`) and compares the two transcripts.

Usage: groot_client.py CONFIG_JSON, where the config is
{"cmd": [server command...], "port": P, "tree": "GrootRun"}; the server is
started with the command, must print `ready`, and takes `tick` / `quit` on
standard input (and answers `ticked ...`). Prints the transcript as JSON:
one object per step. Reply headers are given as hex of their first 6 bytes,
with whether the 16-byte tree UUID is a version-4 UUID, the same in every
reply; times are left out.
"""

import json
import signal
import struct
import subprocess
import sys
import xml.etree.ElementTree as ET

import zmq

TIMEOUT_MS = 10000


class Run:
    def __init__(self, config):
        self.config = config
        self.server = subprocess.Popen(config["cmd"], stdin=subprocess.PIPE,
                                       stdout=subprocess.PIPE, text=True)
        line = self.server.stdout.readline()
        assert line.strip() == "ready", "server did not start: %r" % line
        self.ctx = zmq.Context()
        self.sub = self.ctx.socket(zmq.SUB)
        self.sub.setsockopt(zmq.LINGER, 0)
        self.sub.setsockopt(zmq.SUBSCRIBE, b"")
        self.sub.setsockopt(zmq.RCVTIMEO, TIMEOUT_MS)
        self.sub.connect("tcp://127.0.0.1:%d" % (config["port"] + 1))
        self.connect()
        self.steps = []
        self.uuids = set()
        self.next_id = 1

    def connect(self):
        self.req = self.ctx.socket(zmq.REQ)
        self.req.setsockopt(zmq.LINGER, 0)
        self.req.setsockopt(zmq.RCVTIMEO, TIMEOUT_MS)
        self.req.connect("tcp://127.0.0.1:%d" % self.config["port"])

    def raw(self, frames):
        self.req.send_multipart(frames)
        return self.req.recv_multipart()

    def request(self, kind, payload=None, name=None):
        """One request; its reply recorded as a step."""
        self.next_id += 1
        header = struct.pack("<BBI", 2, ord(kind), self.next_id)
        frames = [header] if payload is None else [header, payload.encode()]
        reply = self.raw(frames)
        step = {"step": name or kind}
        if reply[0] == b"error":
            step["error"] = [f.decode() for f in reply[1:]]
        else:
            step["header"] = reply[0][:6].hex()
            step["echo"] = reply[0][:6] == header
            uuid = reply[0][6:]
            step["uuid_v4"] = len(uuid) == 16 and uuid[6] >> 4 == 4 and uuid[8] >> 6 == 2
            self.uuids.add(uuid)
            step["payload"] = [f.hex() for f in reply[1:]]
        self.steps.append(step)
        return reply

    def tick(self):
        self.server.stdin.write("tick\n")
        self.server.stdin.flush()

    def ticked(self, name):
        line = self.server.stdout.readline().rstrip("\n")
        assert line.startswith("ticked "), "server answered %r" % line
        self.steps.append({"step": name, "ticked": line[len("ticked "):].split("\t")})

    def notification(self, name, uid):
        """Waits for a notification naming `uid`; those before it (of
        replace hooks, which notify too) are recorded with it."""
        before = []
        while True:
            frames = self.sub.recv_multipart()
            body = [f.decode() for f in frames[1:]]
            if body == [str(uid)]:
                break
            before.append(body)
        self.steps.append({"step": name, "type": chr(frames[0][1]), "protocol": frames[0][0],
                           "header_len": len(frames[0]), "body": body, "before": before})

    def hook(self, uid, mode, desired, once=False, position=0, enabled=True):
        return json.dumps({"enabled": enabled, "uid": uid, "mode": mode, "once": once,
                           "desired_status": desired, "position": position})

    def unlock(self, uid, desired, remove=False, position=0):
        return json.dumps({"uid": uid, "desired_status": desired, "position": position,
                           "remove_when_done": remove})

    def close(self):
        try:
            self.server.stdin.write("quit\n")
            self.server.stdin.flush()
            self.server.wait(timeout=30)
        except (OSError, subprocess.TimeoutExpired):
            # A server that does not quit must not outlive the client: it
            # holds the caller's standard error open.
            self.server.kill()
            self.server.wait()
        self.req.close()
        self.sub.close()
        self.ctx.term()


def uids_by_name(xml):
    root = ET.fromstring(xml)
    out = {}
    for tree in root.iter("BehaviorTree"):
        for node in tree.iter():
            if node.get("_uid") is not None:
                out.setdefault(node.get("name"), []).append(int(node.get("_uid")))
    return out


def scenario(run):
    tree = run.config["tree"]
    reply = run.request("T")
    xml = reply[1].decode()
    run.steps[-1]["payload"] = [xml]
    uid = uids_by_name(xml)
    c1, a3, a6 = uid["c1"][0], uid["a3"][0], uid["a6"][1]
    run.request("S", name="S before ticks")
    run.request("B", tree, name="B")
    # Every instance's blackboard, one twice, one that does not exist.
    paths = ";".join(n.get("_fullpath") for n in ET.fromstring(xml).iter("BehaviorTree"))
    run.request("B", tree + ";" + paths + ";" + tree + ";Nowhere", name="B instances")
    run.request("B", "Nowhere", name="B unknown")
    run.request("D", name="D empty")
    reply = run.request("r", "start", name="r start")
    run.steps[-1]["payload"] = [reply[1].decode().isdigit()]
    for k in range(8):
        run.tick()
        run.ticked("tick %d" % k)
        run.request("S", name="S after tick %d" % k)
    reply = run.request("t", name="transitions")
    data = reply[1]
    run.steps[-1]["payload"] = [[int.from_bytes(data[i + 6:i + 8], "little"), data[i + 8]]
                                for i in range(0, len(data), 9)]
    run.request("r", "stop", name="r stop")

    # Replacing a condition: it does not run, its parent sees the status.
    run.request("I", run.hook(c1, 1, "FAILURE", once=True), name="I replace c1")
    run.request("D", name="D replace c1")
    run.tick()
    run.notification("N replace c1", c1)
    run.ticked("tick replaced c1")
    run.request("S", name="S after replaced c1")
    run.request("D", name="D after once")

    # A breakpoint: the tick stops before c1 until unlocked with a status.
    run.request("I", run.hook(c1, 0, "SKIPPED"), name="I breakpoint c1")
    run.tick()
    run.notification("N breakpoint c1", c1)
    run.request("D", name="D while stopped")
    run.request("U", run.unlock(c1, "FAILURE"), name="U c1 FAILURE")
    run.ticked("tick unlocked FAILURE")
    # Unlocked with SKIPPED, the node runs.
    for k in range(3):
        run.tick()
        run.notification("N breakpoint c1 again %d" % k, c1)
        run.request("U", run.unlock(c1, "SKIPPED"), name="U c1 SKIPPED %d" % k)
        run.ticked("tick unlocked SKIPPED %d" % k)
    run.request("R", json.dumps({"uid": c1, "position": 0}), name="R c1")
    run.request("D", name="D after R")

    # A replacement of the second instance of the embedded tree's action.
    run.request("I", run.hook(a6, 1, "SUCCESS", position=0), name="I replace a6")
    for k in range(3):
        run.tick()
        run.ticked("tick a6 replaced %d" % k)
    run.request("A", name="A")
    run.request("D", name="D after A")

    # Replacing a running action (the documented difference: halted here).
    run.tick()
    run.ticked("tick before replacing a3")
    run.request("I", run.hook(a3, 1, "SUCCESS", once=True), name="I replace running a3")
    run.tick()
    run.ticked("tick a3 replaced")

    # Errors.
    run.steps.append({"step": "short header", "reply": [f.decode() for f in run.raw([b"abc"])]})
    run.steps.append({"step": "unknown type",
                      "reply": [f.decode() for f in run.raw([struct.pack("<BBI", 2, ord("Z"), 9)])]})
    run.steps.append({"step": "B without payload",
                      "reply": [f.decode() for f in run.raw([struct.pack("<BBI", 2, ord("B"), 9)])]})
    run.request("R", json.dumps({"uid": c1, "position": 0}), name="R without hook")
    run.request("U", run.unlock(c1, "SUCCESS"), name="U without hook")
    run.request("X", name="X")
    # Documented differences, recorded to be checked one by one.
    run.request("I", run.hook(9999, 0, "SUCCESS"), name="I unknown uid")
    run.request("I", run.hook(c1, 0, "SKIPPED"), name="I c1 for unlock")
    run.request("U", run.unlock(c1, "SUCCESS"), name="U not waiting")
    run.request("A", name="A again")
    run.request("I", run.hook(c1, 0, "SUCCESS", position=1), name="I post c1")
    run.request("D", name="D post")
    run.request("R", json.dumps({"uid": c1, "position": 1}), name="R post")
    run.request("A", name="A last")

    # Heartbeat: with no request for longer than the delay, a waiting
    # breakpoint is released and the node runs.
    run.request("I", run.hook(c1, 0, "FAILURE"), name="I breakpoint for heartbeat")
    run.tick()
    run.notification("N heartbeat", c1)
    run.ticked("tick released by heartbeat")
    run.request("D", name="D after heartbeat")
    run.request("A", name="A end")
    run.steps.append({"step": "uuids", "count": len(run.uuids)})


def main():
    # Every wait below is bounded by its socket's timeout; this bounds the
    # server's answers on its standard output too.
    def out_of_time(signum, frame):
        raise TimeoutError("the scenario took over 300 s")

    signal.signal(signal.SIGALRM, out_of_time)
    signal.alarm(300)
    run = Run(json.loads(sys.argv[1]))
    try:
        scenario(run)
    except BaseException:
        # What was done so far, to see where it stopped.
        print(json.dumps(run.steps, indent=1), file=sys.stderr)
        raise
    finally:
        signal.alarm(0)
        run.close()
    print(json.dumps(run.steps, indent=1))


if __name__ == "__main__":
    main()
