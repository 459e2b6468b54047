# -*- coding: latin-1 -*-
"""Café docstring."""
__tool_description__ = "Grüße aus Köln"
ESCAPED = "\xe9 \u00e9"
RAW_BYTES = b"caf\xe9"
