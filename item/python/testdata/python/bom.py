"""Docstring after a BOM."""
__version__ = "1.2.3"
NAME = "bom"
