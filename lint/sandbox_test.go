package lint

import (
	"fmt"
	"strings"
	"testing"

	"github.com/ryekit/rye/item"
)

func usesOf(t *testing.T, name, src string) string {
	t.Helper()
	md, err := item.ReadMetadata(item.Tool, name, []byte(src))
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	f := &file{Name: name, Src: []byte(src)}
	var out []string
	for _, u := range codeUses(f, md, pyCode{}) {
		line := 1 + strings.Count(src[:u.off], "\n")
		out = append(out, fmt.Sprintf("%d:%s:%s", line, u.what, u.why))
	}
	return strings.Join(out, "\n")
}

const shHeader = "#!/usr/bin/env bash\n# ---\n# version: \"1.0.0\"\n# ---\n"

func TestShellUses(t *testing.T) {
	for _, c := range []struct{ body, want string }{
		{"echo hi\nprintf '%s' x\nread -r a < f\n", ""},
		{"curl -s https://x\n", "5:network:curl\n5:subprocess:curl"},
		{"x=$(date)\n", "5:subprocess:a command substitution\n5:subprocess:the program date"},
		{"echo \"$(date)\"\n", "5:subprocess:a command substitution"},
		{"ls | wc -l\n", "5:subprocess:the program ls\n5:subprocess:a pipeline\n5:subprocess:the program wc"},
		{"try() { if eval \"$1\"; then R=ok; fi; }\ntry 'x'\n", ""},
		{"case \"$x\" in *a*|*b*) y=1 ;; c) z=2 ;; esac\n", ""},
		{": 3<>/dev/tcp/127.0.0.1/9\n", "5:network:/dev/tcp"},
		{"read -r s < \"$HOME/.profile\"\n", "5:home:$HOME"},
		{"cat ~/.ssh/id_rsa\n", "5:subprocess:the program cat\n5:home:the path ~/.ssh/id_rsa"},
		{"echo $((1 + 2)) foo\n", ""},
		{"arr=(a b c)\necho \"${arr[@]}\"\n", ""},
		{"cat <<EOF\ncurl x | y\nEOF\necho done\n", "5:subprocess:the program cat"},
		{"echo x >&2\necho y 2>/dev/null\n> out echo z\n", ""},
		{"sleep 1 &\n", "5:subprocess:the program sleep\n5:subprocess:a background job"},
		{"# curl in a comment\necho 'curl in a string'\n", ""},
		{"if [ -e x ]; then exec /usr/bin/python3 t.py; fi\n", "5:subprocess:the program /usr/bin/python3"},
		{"while read -r l; do echo \"$l\"; done < f\n", ""},
	} {
		if got := usesOf(t, "t.sh", shHeader+c.body); got != c.want {
			t.Errorf("%q:\ngot  %q\nwant %q", c.body, got, c.want)
		}
	}
}

func TestPythonUses(t *testing.T) {
	for _, c := range []struct{ src, want string }{
		{"import json, os\nprint(os.path.join('a', 'b'))\n", ""},
		{"import requests\n", "1:network:import requests"},
		{"import os, urllib.request as r\n", "1:network:import urllib"},
		{"from http.client import HTTPSConnection\n", "1:network:from http"},
		{"def f():\n    import socket\n", "2:network:import socket"},
		{"import subprocess\nsubprocess.run(['ls'])\n", "1:subprocess:import subprocess"},
		{"import os\nos.system('ls')\nos.popen('ls')\n", "2:subprocess:os.system\n3:subprocess:os.popen"},
		{"import os\np = os.path.expanduser('~/.aws/credentials')\n", "2:home:expanduser()\n2:home:the path ~/.aws/credentials"},
		{"from pathlib import Path\nh = Path.home()\n", "2:home:home()"},
		{"import os\nh = os.environ['HOME']\ng = os.getenv(\"HOME\")\n", "2:home:os.environ HOME\n3:home:os.getenv HOME"},
		{"x = 'import socket'  # import requests\n", ""},
		{"def home(): pass\nhome()\n", ""},
	} {
		if got := usesOf(t, "t.py", c.src); got != c.want {
			t.Errorf("%q:\ngot  %q\nwant %q", c.src, got, c.want)
		}
	}
}

func TestJSUses(t *testing.T) {
	head := "// ---\n// version: \"1.0.0\"\n// ---\n"
	for _, c := range []struct{ src, want string }{
		{"console.log('hi')\n", ""},
		{"const https = require('https')\n", "4:network:the module https"},
		{"import net from \"node:net\"\n", "4:network:the module node:net"},
		{"const r = await fetch(url)\n", "4:network:fetch"},
		{"const { execSync } = require('child_process')\n", "4:subprocess:the module child_process"},
		{"const h = os.homedir()\n", "4:home:homedir()"},
		{"// fetch(x) in a comment\n", ""},
	} {
		if got := usesOf(t, "t.js", head+c.src); got != c.want {
			t.Errorf("%q:\ngot  %q\nwant %q", c.src, got, c.want)
		}
	}
}
