#!/usr/bin/env python3
# rye:signed:v2:2026-01-01T00:00:00Z:b610184d76df394326285771ed5d998648a9cd12ccaacfaf760eeaf6ae3b427f:E3yLPTDvrQN2ASQhjpGrStG1PiQOQiahe299Yq_M9ISZoMYHag-HZZFo2T4Mkgc9xLClRgtF8aWYW4Qu6H97Aw==:256695833101b92e
"""Greet someone by name."""

import json
import sys

__version__ = "1.0.0"
__tool_type__ = "python"
__executor_id__ = "rye/core/runtimes/python_script_runtime"
__category__ = "hello"
__tool_description__ = "Greet someone by name"

CONFIG_SCHEMA = {
    "type": "object",
    "properties": {
        "name": {"type": "string", "description": "Who to greet", "default": "World"},
    },
}


def greet(name: str) -> str:
    return f"Hello, {name}."


if __name__ == "__main__":
    params = json.loads(sys.argv[sys.argv.index("--params") + 1])
    print(json.dumps({"success": True, "greeting": greet(params.get("name", "World"))}))
