#!/usr/bin/env python3
# rye:signed:v2:2026-02-21T05:56:40Z:e38a83e87bee8863329ab2b437b88bfb0cd4449e86bb725f7d80895063dc81c6:FZypLieaDCyr0g-PCqjd-l6QMK_JAIdImZW9TQntoZv6pyo7La5KUiOdqY32_w1JGET23XAldzpOZ-T2CsOQDA==:f0ff50dacf109dea
"""Create or overwrite a file, invalidating line ID cache."""

import argparse
import json
import sys
from pathlib import Path

__version__ = "1.0.0"
__tool_type__ = "python"
__executor_id__ = "rye/core/runtimes/python_function_runtime"
__category__ = "rye/file-system"
__tool_description__ = "Create or overwrite a file"

CONFIG_SCHEMA = {
    "type": "object",
    "properties": {
        "file_path": {
            "type": "string",
            "description": "Path to file (relative to project root or absolute)",
        },
        "content": {"type": "string", "description": "Content to write"},
        "create_dirs": {"type": "boolean", "default": True},
        "mode": {"type": "integer", "default": 0o644, "minimum": 0},
    },
    "required": ["file_path", "content"],
}


def execute(params: dict, project_path: str) -> dict:
    project = Path(project_path).resolve()
    file_path = Path(params["file_path"])
    if not file_path.is_absolute():
        file_path = project / file_path
    __version__ = "not module level"
    file_path.write_text(params["content"])
    return {"success": True, "output": f"wrote {file_path}"}


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--params", required=True)
    parser.add_argument("--project-path", required=True)
    args = parser.parse_args()
    result = execute(json.loads(args.params), args.project_path)
    print(json.dumps(result))
