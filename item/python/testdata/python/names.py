"""Metadata defined through names, calls and rebindings."""
import os

VERSION = "1.4.0"
__version__ = VERSION
TYPES = ("string", "integer")
CONFIG_SCHEMA = {
    "type": "object",
    "properties": {"kind": {"enum": TYPES}, "version": {"const": __version__}},
}
__executor_id__ = os.getenv("RYE_EXECUTOR", "rye/core/runtimes/python_script_runtime")
__category__ = "first"
__category__ = "second"  # a later binding wins
__tool_type__ = "python"
__tool_type__ = __tool_type__.upper()  # rebound by a non-literal
ENV_CONFIG = {"home": UNDEFINED_NAME}
LATER = "defined after its use"
if os.name == "nt":
    __tool_description__ = "inside if: not module level"
__tool_description__ = "Describe the names"
CONFIG = {"x": 1}
CONFIG["y"] = 2  # changed in place: the literal is no longer the value
def __category__():
    pass
import json as ENV
