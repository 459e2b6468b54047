# rye:signed:2026-02-15T07:11:41Z:e972:S2FT==:440443d0858f0199
"""F-strings of every nesting (Python 3.12+, PEP 701)."""

names = ["a", "b"]
width = 10
value = 3.14159

simple = f"{value}"
same_quotes = f"{", ".join(names)}"  # PEP 701: the same quote inside
nested = f"{f"{f"{f"{f"{value}"}"}"}"}"  # nested to any depth
spec = f"{value:{width}.{2}f}"  # nested replacement fields in the format spec
spec_nested = f"{value:{f"{width}"}}"
conversions = f"{names!r:>{width}} {value=} {value = !s:^20}"
braces = f"{{literal}} {{{value}}} }}{{"
multi = f"""{
    value  # a comment inside the expression
    + 1
}"""
single_multiline = f"{value
    + 1}"
raw = rf"\d{value}\{names[0]}"
named = f"\N{BULLET} {value}"
dict_in = f"{ {"a": "=", "b": '}'}["a"] }"
lambda_in = f"{(lambda x: x * 2)(width)}"
walrus_in = f"{(y := 10)} {y:=5}"
triple_in_single = f'{'''x'''}'
bytes_concat = f"{value}" "plain" f'{names}'
__version__ = "2.0.0"  # after all of the above: the boundaries are right
__tool_description__ = f"not a literal {__version__}"
__category__ = "tests" f"/{width}"
