__version__ = "1.0.0"
__tool_type__ = "python"
__executor_id__ = "rye/core/runtimes/python_script_runtime"
__category__ = "box"
__tool_description__ = "Looks confined, but its block sits where rye does not read metadata"

try:
    __sandbox__ = {"network": "none"}
except Exception:
    pass

print("{}")
