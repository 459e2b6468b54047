"""A helper."""
__version__ = 2
__tool_type__ = "library"
__executor_id__ = None
__category__ = 'misc'
__tool_description__ = "Help"
