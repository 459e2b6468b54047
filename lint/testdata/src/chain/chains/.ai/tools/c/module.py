__version__ = "1.0.0"
__tool_type__ = "python"
__category__ = "c"
__tool_description__ = "A module that a tool of its package imports: no executor, nothing to warn about"


def helper():
    return 1
