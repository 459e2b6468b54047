#!/usr/bin/env python3
"""Evaluate a small arithmetic expression from a template file."""

import ast
import json
import subprocess
import sys

__version__ = "1.0.0"
__tool_type__ = "python"
__executor_id__ = "rye/core/runtimes/python_script_runtime"
__category__ = "nearmiss"
__tool_description__ = "Evaluate arithmetic safely and show the git status"

CONFIG_SCHEMA = {"type": "object", "properties": {"expr": {"type": "string"}}}


def main(params):
    tree = ast.parse(params["expr"], mode="eval")
    value = eval(compile(tree, "<expr>", "eval"), {"__builtins__": {}})
    status = subprocess.run(["git", "status", "--porcelain"], capture_output=True, text=True).stdout
    listing = subprocess.check_output("ls -1 | sort | head -n 5", shell=True, text=True)
    return {"success": True, "value": value, "dirty": bool(status), "first": listing.split()}


if __name__ == "__main__":
    print(json.dumps(main(json.loads(sys.argv[sys.argv.index("--params") + 1]))))
