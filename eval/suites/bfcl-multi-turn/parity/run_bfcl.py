"""Replays the suite's ground-truth calls on BFCL's own Python classes and prints, per task, each call's
result and every involved instance's final public state, as JSON (read by compare.ts; sets as sorted lists).

Usage: python3 run_bfcl.py <folder holding the bfcl_eval package> > bfcl.json
(the folder of a ShishirPatil/gorilla checkout's berkeley-function-call-leaderboard/).
"""

import copy
import importlib
import json
import sys
from pathlib import Path

sys.path.insert(0, sys.argv[1])
MODULES = {
    "VehicleControlAPI": "bfcl_eval.eval_checker.multi_turn_eval.func_source_code.vehicle_control",
    "TwitterAPI": "bfcl_eval.eval_checker.multi_turn_eval.func_source_code.posting_api",
    "MessageAPI": "bfcl_eval.eval_checker.multi_turn_eval.func_source_code.message_api",
}
data = Path(__file__).resolve().parent.parent / "data"
answers = {}
for line in (data / "possible_answer_BFCL_v4_multi_turn_base.json").read_text().splitlines():
    if line.strip():
        entry = json.loads(line)
        answers[entry["id"]] = entry["ground_truth"]

out = {}
for line in (data / "BFCL_v4_multi_turn_base.json").read_text().splitlines():
    if not line.strip():
        continue
    task = json.loads(line)
    instances = {}
    owner = {}
    for class_name in task["involved_classes"]:
        instance = getattr(importlib.import_module(MODULES[class_name]), class_name)()
        instance._load_scenario(copy.deepcopy(task["initial_config"].get(class_name, {})))
        instances[class_name] = instance
        for name in dir(instance):
            if not name.startswith("_") and callable(getattr(instance, name)):
                owner[name] = instance
    results = []
    for call in (c for turn in answers[task["id"]] for c in turn):
        name = call.split("(", 1)[0].strip()
        try:
            results.append(json.loads(json.dumps(eval("self." + call, {"self": owner[name]}), default=sorted)))
        except Exception as error:  # as BFCL's executor: the error becomes the call's result
            results.append({"exception": str(error)})
    state = {
        class_name: {k: v for k, v in vars(instance).items() if not k.startswith("_")}
        for class_name, instance in instances.items()
    }
    out[task["id"].rsplit("_", 1)[1]] = {"results": results, "state": json.loads(json.dumps(state, default=sorted))}
print(json.dumps(out, indent=1))
