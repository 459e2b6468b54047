__version__ = "1.0.0"
CONFIG = {
    "a": [1, 2},
}
