"""Broken."""
__version__ = "1.0.0"
TEXT = """never
closed
