#!/usr/bin/env python3
# rye:signed:2026-01-01T00:00:00Z:abc:def:123
"""CRLF
line endings."""

__version__ = "1.0.0"
MULTI = """one
two"""
CONFIG = {
    "a": 1,
    "b": [
        "x",
    ],
}
if True:
    NOT_MODULE = 1
LAST = "end"
