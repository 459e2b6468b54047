__version__ = "1.0.0"
__tool_type__ = "library"
__executor_id__ = None
__category__ = "c"
__tool_description__ = "Imported, not run"
