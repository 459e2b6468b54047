#!/usr/bin/env python3
"""Format token-shaped strings in a log for redaction tests."""

import json
import sys

__version__ = "1.0.0"
__tool_type__ = "python"
__executor_id__ = "rye/core/runtimes/python_script_runtime"
__category__ = "nearmiss"
__tool_description__ = "Redact token-shaped strings"

CONFIG_SCHEMA = {"type": "object", "properties": {"text": {"type": "string"}}}

# Shapes only: these are not credentials.
EXAMPLES = [
    "AKIAIOSFODNN7EXAMPLE",
    "ghp_abcdefghijklmnopqrstuvwxyzABCD012345",  # the checksum does not match
    "sk_test_4eC39HqLyjWDarjtT1zdp7dc",
    "hf_short",
    "eyJub3QiOiJhIGp3dCJ9.eyJ.c2ln",
    "npm_000000000000000000000000000000000000",
    "xoxb-not-a-token",
]


def redact(text: str) -> str:
    for shape in EXAMPLES:
        text = text.replace(shape, "[redacted]")
    return text


if __name__ == "__main__":
    params = json.loads(sys.argv[sys.argv.index("--params") + 1])
    print(json.dumps({"success": True, "text": redact(params.get("text", ""))}))
