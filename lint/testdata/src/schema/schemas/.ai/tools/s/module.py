__version__ = "1.0.0"
__tool_type__ = "python"
__category__ = "s"
__tool_description__ = "Imported, not run: no schema needed"
