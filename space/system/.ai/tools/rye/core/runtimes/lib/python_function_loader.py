"""Loader of rye's python_function_runtime: imports a tool file and calls its
execute(params, project_path) function, sync or async, with the parameters
read from standard input as JSON, and prints the result as JSON."""

__version__ = "1.0.0"
__tool_type__ = "library"
__executor_id__ = None
__category__ = "rye/core/runtimes/lib"
__tool_description__ = "Loader for python_function_runtime: import a tool and call execute()"

import asyncio
import importlib.util
import inspect
import json
import sys


def main(argv):
    if len(argv) != 3:
        print(json.dumps({"success": False, "error": "usage: python_function_loader.py TOOL PROJECT_PATH"}))
        return 2
    tool_path, project_path = argv[1], argv[2]
    params = json.loads(sys.stdin.read() or "{}")
    spec = importlib.util.spec_from_file_location("rye_tool", tool_path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    fn = getattr(module, "execute", None)
    if not callable(fn):
        print(json.dumps({"success": False, "error": "no execute(params, project_path) function in " + tool_path}))
        return 1
    result = fn(params, project_path)
    if inspect.isawaitable(result):
        result = asyncio.run(result) if inspect.iscoroutine(result) else asyncio.get_event_loop().run_until_complete(result)
    print(json.dumps({} if result is None else result, default=str))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
