import os

__version__ = os.getenv("VERSION")
__tool_type__ = "python"
__executor_id__ = None
__category__ = "t"
__tool_description__ = "Version from the environment"
