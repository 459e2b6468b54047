#!/usr/bin/env python3
"""Fetch a web page and return its readable text."""

import json
import sys

import requests
from html.parser import HTMLParser

__version__ = "1.3.0"
__tool_type__ = "python"
__executor_id__ = "rye/core/runtimes/python_script_runtime"
__category__ = "web"
__tool_description__ = "Fetch a page over HTTPS and return its text (scripts and styles removed)"

CONFIG_SCHEMA = {
    "type": "object",
    "properties": {
        "url": {"type": "string", "description": "An https:// URL"},
        "timeout": {"type": "integer", "default": 20},
    },
    "required": ["url"],
}


class _Text(HTMLParser):
    def __init__(self):
        super().__init__()
        self.parts, self._skip = [], 0

    def handle_starttag(self, tag, attrs):
        if tag in ("script", "style"):
            self._skip += 1

    def handle_endtag(self, tag):
        if tag in ("script", "style") and self._skip:
            self._skip -= 1

    def handle_data(self, data):
        if not self._skip and data.strip():
            self.parts.append(data.strip())


def fetch(url: str, timeout: int) -> str:
    if not url.startswith("https://"):
        raise ValueError("only https:// URLs")
    resp = requests.get(url, timeout=timeout, headers={"User-Agent": "rye-fetch/1.3"})
    resp.raise_for_status()
    parser = _Text()
    parser.feed(resp.text)
    return "\n".join(parser.parts)


if __name__ == "__main__":
    params = json.loads(sys.argv[sys.argv.index("--params") + 1])
    try:
        text = fetch(params["url"], params.get("timeout", 20))
        print(json.dumps({"success": True, "text": text[:20000]}))
    except Exception as exc:  # report, never crash the agent
        print(json.dumps({"success": False, "error": str(exc)}))
