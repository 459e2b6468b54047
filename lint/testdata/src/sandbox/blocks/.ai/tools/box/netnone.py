__version__ = "1.0.0"
__tool_type__ = "python"
__executor_id__ = "rye/core/runtimes/python_script_runtime"
__category__ = "box"
__tool_description__ = "Fetches a page although its block says network none"
__sandbox__ = {"network": "none", "filesystem": {"write": ["{run_dir}"]}}

import json
import urllib.request
import subprocess

def main():
    subprocess.run(["ls"])
    print(json.dumps({"ok": True}))
