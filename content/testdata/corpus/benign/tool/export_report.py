#!/usr/bin/env python3
"""Export a report: decode the attachment, run git to find the author."""

import base64
import json
import os
import subprocess
import sys
import urllib.request

__version__ = "0.4.0"
__tool_type__ = "python"
__executor_id__ = "rye/core/runtimes/python_script_runtime"
__category__ = "reports"
__tool_description__ = "Write a report attachment to disk and name who changed it last"

CONFIG_SCHEMA = {
    "type": "object",
    "properties": {
        "attachment_b64": {"type": "string"},
        "path": {"type": "string"},
        "webhook": {"type": "string", "description": "Where to POST a notice"},
    },
    "required": ["attachment_b64", "path"],
}


def main(params):
    data = base64.b64decode(params["attachment_b64"])
    with open(params["path"], "wb") as f:
        f.write(data)
    author = subprocess.run(
        ["git", "log", "-1", "--format=%an", "--", params["path"]],
        capture_output=True, text=True, check=False,
    ).stdout.strip()
    if params.get("webhook"):
        body = json.dumps({"path": params["path"], "author": author}).encode()
        req = urllib.request.Request(params["webhook"], data=body, headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(req, timeout=10) as resp:
            status = resp.status
    else:
        status = None
    config = json.loads(open(os.path.join(os.path.dirname(__file__), "settings.json")).read())
    return {"success": True, "author": author, "notified": status, "mode": config.get("mode")}


if __name__ == "__main__":
    params = json.loads(sys.argv[sys.argv.index("--params") + 1])
    print(json.dumps(main(params)))
