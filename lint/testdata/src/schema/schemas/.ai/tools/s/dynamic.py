__version__ = "1.0.0"
__tool_type__ = "python"
__executor_id__ = "rye/core/runtimes/python_script_runtime"
__category__ = "s"
__tool_description__ = "Its schema is built at run time: the metadata analyzer's finding, not this one's"
CONFIG_SCHEMA = build_schema()
