"""Replays every task's ground-truth actions with tau2-bench's own Python tools and writes, per task,
what each call did and the final database (pydantic model_dump, None fields left out).

usage: python3 run_tau2.py <tau2-bench checkout> <out.json>
Needs pydantic 2. tau2's imports outside the retail domain are stubbed below (the tools need none of them).
"""
import json, os, sys, types
from enum import Enum

repo, out_file = sys.argv[1], sys.argv[2]
sys.path.insert(0, os.path.join(repo, 'src'))

from pydantic import BaseModel, ConfigDict

class DB(BaseModel):
    model_config = ConfigDict(extra='forbid')

class ToolType(Enum):
    READ = 'read'; WRITE = 'write'; GENERIC = 'generic'; THINK = 'think'

class ToolKitBase:
    def __init__(self, db): self.db = db

def is_tool(kind):
    return lambda f: f

stubs = {
    'tau2.environment.db': {'DB': DB},
    'tau2.environment.toolkit': {'ToolKitBase': ToolKitBase, 'ToolType': ToolType, 'is_tool': is_tool},
    'tau2.domains.retail.utils': {'RETAIL_DB_PATH': os.path.join(repo, 'data/tau2/domains/retail/db.json')},
}
for name, attrs in stubs.items():
    module = types.ModuleType(name); module.__dict__.update(attrs); sys.modules[name] = module

import importlib.util
def load(name, file):
    spec = importlib.util.spec_from_file_location(name, file)
    module = importlib.util.module_from_spec(spec); sys.modules[name] = module; spec.loader.exec_module(module); return module

retail = os.path.join(repo, 'src/tau2/domains/retail')
data_model = load('tau2.domains.retail.data_model', os.path.join(retail, 'data_model.py'))
tools = load('tau2.domains.retail.tools', os.path.join(retail, 'tools.py'))

raw = json.load(open(os.path.join(repo, 'data/tau2/domains/retail/db.json')))
tasks = json.load(open(os.path.join(repo, 'data/tau2/domains/retail/tasks.json')))
out = {}
for task in tasks:
    db = data_model.RetailDB.model_validate(raw)
    toolkit = tools.RetailTools(db)
    calls = []
    for action in task['evaluation_criteria']['actions'] or []:
        try:
            getattr(toolkit, action['name'])(**action['arguments']); calls.append('ok')
        except Exception as error:
            calls.append('error: ' + str(error))
    out[task['id']] = {'calls': calls, 'db': db.model_dump(exclude_none=True)}
json.dump(out, open(out_file, 'w'), sort_keys=True)
print(f'{len(out)} tasks replayed with tau2-bench tools into {out_file}')
