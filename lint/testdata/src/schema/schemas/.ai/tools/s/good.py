__version__ = "1.0.0"
__tool_type__ = "library"
__executor_id__ = None
__category__ = "s"
__tool_description__ = "Good schema"
CONFIG_SCHEMA = {
    "type": "object",
    "properties": {"name": {"type": "string", "default": "World"}},
    "required": ["name"],
}
