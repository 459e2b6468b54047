package mcp

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// rawClient speaks JSON-RPC to a server by hand, one line at a time, and
// insists that every line the server writes is one JSON-RPC message.
type rawClient struct {
	t    *testing.T
	w    io.Writer
	in   *bufio.Scanner
	end  func()     // closes the stream and waits for Serve
	stop func()     // ends Serve's context
	done chan error // Serve's result
}

func startRaw(t *testing.T, o Options) *rawClient {
	t.Helper()
	cr, sw := io.Pipe()
	sr, cw := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- Serve(ctx, o, sr, sw) }()
	in := bufio.NewScanner(cr)
	in.Buffer(nil, 64<<20)
	c := &rawClient{t: t, w: cw, in: in, stop: cancel, done: done}
	c.end = sync.OnceFunc(func() {
		cw.Close()
		cr.Close() // a server still writing gets an error, not a block
		if err := <-done; err != nil && !t.Failed() {
			t.Errorf("Serve: %v", err)
		}
		cancel()
	})
	t.Cleanup(c.end)
	return c
}

func (c *rawClient) send(line string) {
	c.t.Helper()
	if _, err := io.WriteString(c.w, line+"\n"); err != nil {
		c.t.Fatal(err)
	}
}

// next reads the server's next line: it must be a JSON-RPC response.
func (c *rawClient) next() map[string]any {
	c.t.Helper()
	lines := make(chan bool, 1)
	go func() { lines <- c.in.Scan() }()
	select {
	case ok := <-lines:
		if !ok {
			c.t.Fatalf("the server closed its stream: %v", c.in.Err())
		}
	case <-time.After(30 * time.Second):
		c.t.Fatal("no answer")
	}
	line := c.in.Bytes()
	if len(line) > MaxResponse {
		c.t.Fatalf("the server wrote a message of %d bytes: more than MaxResponse (%d), which clients such as the SDK's (%d) may not read", len(line), MaxResponse, sdk.DefaultMaxLineLength)
	}
	if err := validMessage(line); err != nil {
		c.t.Fatalf("the server wrote a line that is not JSON-RPC: %v\n%q", err, line)
	}
	var m map[string]any
	if err := json.Unmarshal(line, &m); err != nil {
		c.t.Fatal(err)
	}
	return m
}

// validMessage checks that line is one JSON-RPC 2.0 message: a request
// or notification, or a response with an id (null for an error about a
// message whose id could not be read) and a result or an error.
func validMessage(line []byte) error {
	var m struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Method  string          `json:"method"`
		Result  json.RawMessage `json:"result"`
		Error   *struct {
			Code    int64  `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&m); err != nil {
		if _, derr := jsonrpc.DecodeMessage(line); derr == nil {
			return nil // a request with params, or a _meta
		}
		return err
	}
	switch {
	case m.JSONRPC != "2.0":
		return fmt.Errorf("jsonrpc %q", m.JSONRPC)
	case m.Method != "":
		return nil
	case m.ID == nil:
		return errors.New("a response without an id")
	case (m.Result == nil) == (m.Error == nil):
		return errors.New("a response needs a result or an error, not both")
	case m.Error != nil && (m.Error.Code == 0 || m.Error.Message == ""):
		return errors.New("an error without a code or a message")
	}
	return nil
}

func (c *rawClient) initialize() {
	c.t.Helper()
	c.send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`)
	if r := c.next(); r["result"] == nil {
		c.t.Fatalf("initialize: %v", r)
	}
	c.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
}

func errorCode(r map[string]any) float64 {
	e, _ := r["error"].(map[string]any)
	code, _ := e["code"].(float64)
	return code
}

// Malformed input gets a protocol error and the server keeps serving;
// what a tool prints never reaches the protocol stream.
func TestMalformedInputKeepsTheServerServing(t *testing.T) {
	needBash(t)
	f := newFixture(t)
	noisy := shellTool("for i in $(seq 1 200); do echo \"stdout line $i {\\\"jsonrpc\\\": \\\"2.0\\\"}\"; echo \"stderr line $i\" >&2; done\n", "")
	f.write(f.project, "tools/p/noisy.sh", noisy, f.key)
	f.write(f.project, "tools/p/huge.sh", shellTool("head -c 3000000 /dev/zero | tr '\\0' '\\1'\nhead -c 3000000 /dev/zero | tr '\\0' '<' >&2\n", ""), f.key)
	c := startRaw(t, Options{Getenv: f.getenv})
	c.initialize()

	for _, tc := range []struct {
		line string
		code float64
		id   any
	}{
		{`this is not json`, jsonrpc.CodeParseError, nil},
		{`{"jsonrpc":"2.0","id":7,"method":"tools/list"`, jsonrpc.CodeParseError, nil},
		{`[{"jsonrpc":"2.0","id":8,"method":"tools/list"}]`, jsonrpc.CodeInvalidRequest, nil},
		{`42`, jsonrpc.CodeInvalidRequest, nil},
		{`{"jsonrpc":"1.0","id":9,"method":"tools/list"}`, jsonrpc.CodeInvalidRequest, 9.0},
		{`{"jsonrpc":"2.0","id":10,"method":"no/such/method"}`, jsonrpc.CodeMethodNotFound, 10.0},
		{`{"jsonrpc":"2.0","id":11,"method":"tools/call","params":{"name":"help","arguments":{}}}`, jsonrpc.CodeInvalidParams, 11.0},
		{`{"jsonrpc":"2.0","id":12,"method":"tools/call","params":"nonsense"}`, jsonrpc.CodeInvalidParams, 12.0},
	} {
		c.send(tc.line)
		r := c.next()
		if errorCode(r) != tc.code || r["id"] != tc.id {
			t.Errorf("%s: %v, want code %v and id %v", tc.line, r, tc.code, tc.id)
		}
	}
	// Blank lines are ignored.
	c.send("")
	c.send("   ")

	c.send(`{"jsonrpc":"2.0","id":20,"method":"tools/call","params":{"name":"execute","arguments":{"item_type":"tool","item_id":"p/noisy","project_path":"` + f.project + `"}}}`)
	r := c.next()
	if r["id"] != 20.0 || r["result"] == nil {
		t.Fatalf("tools/call: %v", r)
	}
	text := r["result"].(map[string]any)["content"].([]any)[0].(map[string]any)["text"].(string)
	var resp map[string]any
	json.Unmarshal([]byte(text), &resp)
	data := resp["data"].(map[string]any)
	if resp["status"] != "success" || !strings.Contains(data["stdout"].(string), "stdout line 200") || !strings.Contains(data["stderr"].(string), "stderr line 200") {
		t.Errorf("noisy tool: %s", text)
	}

	// Output that JSON escapes to six bytes a byte, on both streams: the
	// message is cut to fit (next checks its size), says so, and the
	// server keeps serving.
	c.send(`{"jsonrpc":"2.0","id":21,"method":"tools/call","params":{"name":"execute","arguments":{"item_type":"tool","item_id":"p/huge","project_path":"` + f.project + `"}}}`)
	r = c.next()
	text = r["result"].(map[string]any)["content"].([]any)[0].(map[string]any)["text"].(string)
	resp = nil
	json.Unmarshal([]byte(text), &resp)
	data = resp["data"].(map[string]any)
	if resp["status"] != "success" || !strings.HasPrefix(resp["truncated"].(string), "the data was cut to fit the 8 MiB limit of an MCP message: ") ||
		!strings.HasPrefix(data["stdout"].(string), "\x01\x01") || !strings.Contains(data["stdout"].(string), " more bytes left out here: an MCP message is limited to 8 MiB]") {
		t.Errorf("huge output: %.500s", text)
	}
	c.send(`{"jsonrpc":"2.0","id":22,"method":"tools/list"}`)
	if r := c.next(); r["id"] != 22.0 || r["result"] == nil {
		t.Errorf("after the huge output: %.200v", r)
	}
}

// A line longer than maxMessage is refused, and the next one is served.
func TestTooLongLine(t *testing.T) {
	f := newFixture(t)
	c := startRaw(t, Options{Getenv: f.getenv})
	c.initialize()
	go func() {
		io.WriteString(c.w, `{"jsonrpc":"2.0","id":3,"method":"tools/list","params":{"x":"`+strings.Repeat("x", maxMessage)+`"}}`+"\n")
		c.send(`{"jsonrpc":"2.0","id":4,"method":"tools/list"}`)
	}()
	if r := c.next(); errorCode(r) != jsonrpc.CodeInvalidRequest || !strings.Contains(mustJSON(r), "longer than 16 MiB") {
		t.Errorf("long line: %v", r)
	}
	if r := c.next(); r["id"] != 4.0 || r["result"] == nil {
		t.Errorf("after the long line: %v", r)
	}
}

// check accepts exactly the lines that are one JSON-RPC message.
func FuzzCheck(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`,
		`{"jsonrpc":"2.0","id":"a","result":{}}`,
		`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}`,
		`[{"jsonrpc":"2.0","id":1,"method":"x"}]`,
		`{"jsonrpc":"1.0","id":[1],"method":"x"}`,
		`not json`, `42`, `"s"`, ` `, `{}`, `{"id":1}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		reply := check(line)
		if reply == nil {
			s := strings.TrimSpace(string(line))
			if s == "" {
				return
			}
			if _, err := jsonrpc.DecodeMessage([]byte(s)); err != nil || s[0] != '{' {
				t.Fatalf("accepted %q: %v", line, err)
			}
			return
		}
		if err := validMessage(reply[:len(reply)-1]); err != nil || reply[len(reply)-1] != '\n' || !bytes.Contains(reply, []byte(`"error":{`)) {
			t.Fatalf("reply %q: %v", reply, err)
		}
	})
}

// When the client closes the stream, the server ends and a running tool's
// process group is killed.
func TestClosedStreamKillsRunningTools(t *testing.T) {
	needBash(t)
	f := newFixture(t)
	f.write(f.project, "tools/p/spawn.sh", shellTool("sleep 300 &\necho $! > child.pid\necho $$ > tool.pid\nwait\n", ""), f.key)
	c := startRaw(t, Options{Getenv: f.getenv})
	c.initialize()
	c.send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"execute","arguments":{"item_type":"tool","item_id":"p/spawn","project_path":"` + f.project + `"}}}`)
	pids := waitForPids(t, filepath.Join(f.project, "child.pid"), filepath.Join(f.project, "tool.pid"))
	c.end()
	for _, pid := range pids {
		waitGone(t, pid)
	}
}

// When Serve's context ends (rye mcp got SIGTERM), Serve returns and a
// running tool's process group is killed.
func TestStoppedServerKillsRunningTools(t *testing.T) {
	needBash(t)
	f := newFixture(t)
	f.write(f.project, "tools/p/spawn.sh", shellTool("sleep 300 &\necho $! > child.pid\necho $$ > tool.pid\nwait\n", ""), f.key)
	c := startRaw(t, Options{Getenv: f.getenv})
	c.initialize()
	c.send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"execute","arguments":{"item_type":"tool","item_id":"p/spawn","project_path":"` + f.project + `"}}}`)
	pids := waitForPids(t, filepath.Join(f.project, "child.pid"), filepath.Join(f.project, "tool.pid"))
	c.stop()
	select {
	case err := <-c.done:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("Serve: %v", err)
		}
		c.done <- nil // for the cleanup
	case <-time.After(20 * time.Second):
		t.Fatal("Serve did not return")
	}
	for _, pid := range pids {
		waitGone(t, pid)
	}
}
