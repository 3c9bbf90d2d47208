"""Loads an exported XML file in BehaviorTree.CPP (behaviortreepy) and ticks
it once.

Every model of the file's <TreeNodesModel> is registered first: actions as
stateful actions that succeed, conditions as conditions that succeed,
decorators as decorators that pass their child's status through. The Python
bindings cannot register control nodes: each element of a declared control
model is loaded as BT.CPP's `Sequence` instead (same shape, same attributes),
and the line `stand-ins: ...` names them; a C++ program would register its
own implementation under the model's ID.

Usage: load_tree.py FILE. Prints the stand-ins, if any, then the status of
the first tick.
"""

import sys
import xml.etree.ElementTree as ET

import behaviortreepy as bt


def main(path):
    text = open(path).read()
    root = ET.fromstring(text)
    factory = bt.BehaviorTreeFactory()
    controls = []
    for model in root.find("TreeNodesModel"):
        kind, name = model.tag, model.get("ID")
        if kind == "Action":
            factory.register_simple_stateful_action(
                name, lambda node: bt.NodeStatus.SUCCESS, lambda node: bt.NodeStatus.SUCCESS)
        elif kind == "Condition":
            factory.register_simple_condition(name, lambda node: bt.NodeStatus.SUCCESS)
        elif kind == "Decorator":
            factory.register_simple_decorator(name, lambda status, node: status)
        else:
            controls.append(name)
    if controls:
        print("stand-ins: " + " ".join(controls))
        for tree in root.findall("BehaviorTree"):
            for element in tree.iter():
                if element.tag in controls:
                    element.tag = "Sequence"
        text = ET.tostring(root, encoding="unicode")
    factory.register_behavior_tree_from_text(text)
    tree = factory.create_tree(root.get("main_tree_to_execute"))
    print(tree.tick_once())
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
